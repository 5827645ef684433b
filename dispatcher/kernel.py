"""KernelFunction: one registered kernel and how it wants to be called.

Corresponds to aten/src/ATen/core/boxing/KernelFunction.h. In C++ a kernel may be
boxed (takes the op, the key set and a stack) or unboxed (typed arguments). In
Python every call is boxed in spirit; what differs is the *calling convention*:

==================  ================================================
convention          how the dispatcher calls ``fn``
==================  ================================================
PLAIN               ``fn(*args, **kwargs)`` (``Library.impl``)
WITH_KEYSET         ``fn(keyset, *args, **kwargs)`` (``with_keyset=True``)
FALLBACK            ``fn(op, *args, **kwargs)`` (``Library.fallback``)
FALLBACK_KEYSET     ``fn(keyset, op, *args, **kwargs)``
BOXED               ``fn(op, raw_keyset, args, kwargs)`` (built-in kernels)
==================  ================================================

``args``/``kwargs`` are already normalised to schema form (see ``schema.bind``).
A fallthrough kernel is never called: its key is masked out of the call's key set.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from .keyset import DispatchKeySet

PLAIN, WITH_KEYSET, FALLBACK, FALLBACK_KEYSET, BOXED = range(5)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# Frames in these files are the registration machinery, not the code that registers.
_MACHINERY = {os.path.join(_PACKAGE_DIR, name) for name in (
    "kernel.py", "python_dispatcher.py", "_C.py", "library/__init__.py", "library/core.py", "library/functions.py",
    "library/custom_ops.py",
)}


class KernelFunction:
    """A kernel in a dispatch table or registration list."""

    __slots__ = ("fn", "convention", "debug", "is_fallthrough", "from_python", "signature")

    def __init__(
        self,
        fn: Callable[..., Any] | None,
        convention: int = PLAIN,
        debug: str = "",
        is_fallthrough: bool = False,
        from_python: bool = True,
    ) -> None:
        self.fn = fn  #: the Python callable (None for a fallthrough)
        self.convention = convention  #: one of PLAIN, WITH_KEYSET, FALLBACK, FALLBACK_KEYSET, BOXED
        self.debug = debug  #: "registered at file:line", as PyTorch's dumps print it
        self.is_fallthrough = is_fallthrough  #: skip this key instead of calling anything
        self.from_python = from_python  #: registered by user code through Library (allow_override checks)
        #: the C++ signature a typed (unboxed) kernel has, as the dump prints it ("(Tensor _0) -> Tensor _0")
        self.signature: str | None = None

    def call(self, op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        """Call the kernel for ``op`` with the (raw) key set the dispatcher computed."""
        c = self.convention
        if c == BOXED:
            return self.fn(op, ks, args, kwargs)
        if c == PLAIN:
            return self.fn(*args, **kwargs)
        if c == WITH_KEYSET:
            return self.fn(DispatchKeySet.from_raw_repr(ks), *args, **kwargs)
        if c == FALLBACK:
            return self.fn(op, *args, **kwargs)
        return self.fn(DispatchKeySet.from_raw_repr(ks), op, *args, **kwargs)

    def __repr__(self) -> str:
        name = getattr(self.fn, "__qualname__", repr(self.fn))
        return f"KernelFunction({'fallthrough' if self.is_fallthrough else name}, {self.debug})"


def registration_site() -> str:
    """``registered at file:line`` of the code that registered (PyTorch's debug text)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if os.path.abspath(filename) not in _MACHINERY:
            return f"registered at {filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "registered at <unknown>"


def builtin_site(name: str) -> str:
    """Debug text of a kernel the dispatcher itself registers."""
    return f"registered at dispatcher/{name}"
