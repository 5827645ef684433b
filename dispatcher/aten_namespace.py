"""``aten()``: the ``aten`` op namespace (``torch.ops.aten``), looked up on first use.

For modules below the op registry (autograd's engine and views, tensor construction, composite kernels, the
tracer) that call aten ops at run time: importing ``op_overload`` at module level would make an import cycle.
"""

from __future__ import annotations

from typing import Any

_ATEN: Any = None


def aten() -> Any:
    """The ``aten`` namespace object (cached after the first call)."""
    global _ATEN
    if _ATEN is None:
        from .op_overload import namespace

        _ATEN = namespace("aten")
    return _ATEN
