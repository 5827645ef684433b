"""The Python key's fallback: where dispatch modes and tensor subclasses take over.

Corresponds to pythonFallback in aten/src/ATen/core/PythonFallbackKernel.cpp.
The Python key is reached when a tensor argument carries it (a tensor subclass)
or when a dispatch mode is active (entering a mode includes Python in TLS). The
modes and subclass protocol are built on top of this module; with neither, the
Python key is reached only if a user includes it by hand, which PyTorch treats
as an internal error, and so do we (with a clearer message).
"""

from __future__ import annotations

from typing import Any

from .errors import DispatchError


def python_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    raise DispatchError(
        f"{op.name()}: hit the Python dispatch key but no dispatch mode is active and no argument is a tensor "
        "subclass with __torch_dispatch__ (was DispatchKey.Python included in TLS by hand?)"
    )
