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


def shallow_copy_and_detach(t: Any) -> Any:
    """A new tensor over ``t``'s storage and version counter, with no autograd history.

    Corresponds to ``TensorImpl::shallow_copy_and_detach``, which autograd uses when it
    saves an output for backward, unpacks it, and stores a first ``.grad``. In PyTorch
    this calls ``aten.detach`` through the active dispatch mode (or the Python
    subclass) when there is one, which is why traces show ``detach`` nodes there; the
    modes layer adds that branch here. Without a mode it is a plain metadata copy.
    """
    out = type(t)._from_storage(t._storage, t._shape, t._stride, t._storage_offset, t._dtype, t._device)
    out._version_counter = t._version_counter
    return out
