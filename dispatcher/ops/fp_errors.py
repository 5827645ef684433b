"""NumPy's floating-point error state for kernels: warnings off while a kernel computes.

PyTorch's CPU kernels give inf / nan silently where NumPy warns (overflow, 0/0, inf - inf), so kernels compute
with NumPy's errors ignored. ``np.errstate(all="ignore")`` builds that state anew at every use, which costs more
than a small kernel's arithmetic; ``ignoring_fp_errors`` sets the same state, made once, through the context
variable NumPy (>= 2) keeps it in, and falls back to ``np.errstate`` where that variable does not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:  # NumPy 2 keeps the error state in a context variable (numpy/_core/_ufunc_config.py)
    from numpy._core._ufunc_config import _extobj_contextvar as _STATE
except ImportError:  # pragma: no cover - older NumPy
    _STATE = None

if _STATE is not None:
    with np.errstate(all="ignore"):
        _IGNORE = _STATE.get()


def ignoring_fp_errors(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with NumPy's floating-point errors ignored (as inside ``np.errstate(all="ignore")``)."""
    if _STATE is None:  # pragma: no cover - older NumPy
        with np.errstate(all="ignore"):
            return fn(*args)
    token = _STATE.set(_IGNORE)
    try:
        return fn(*args)
    finally:
        _STATE.reset(token)


def quiet_fp(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: ``fn`` computes with NumPy's floating-point errors ignored (a NumPy helper of a kernel)."""

    def quiet(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            return ignoring_fp_errors(lambda: fn(*args, **kwargs))
        return ignoring_fp_errors(fn, *args)

    quiet.__name__ = quiet.__qualname__ = fn.__name__
    quiet.__doc__ = fn.__doc__
    quiet.__wrapped__ = fn  # type: ignore[attr-defined]
    return quiet
