"""Core-aten decompositions of the conversion ops: ``fill_.Scalar``, ``fill_.Tensor`` and ``zero_``.

Corresponds to torch/_refs/__init__.py's ``fill_`` / ``zero_`` (and torch/_decomp/decompositions.py's
``fill.Tensor``) that PyTorch 2.13's ``core_aten_decompositions()`` uses: the functional result (``full_like``,
``zeros_like``, or ``copy(self, value)`` for a 0-d value tensor) copied into self with ``copy_``.
"""

from __future__ import annotations

from typing import Any

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition

aten = namespace("aten")


@register_decomposition(aten.fill_.Tensor)
def fill_tensor_(self: Tensor, value: Tensor) -> Tensor:
    """The functional ``fill.Tensor`` is ``copy(self, value)``; the in-place form copies that back into self."""
    if value.dim() != 0:
        raise RuntimeError(
            f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions")
    return self.copy_(aten.copy.default(self, value))


@register_decomposition(aten.zero_.default)
def zero_(self: Tensor) -> Tensor:
    return self.copy_(aten.zeros_like.default(self))


@register_decomposition(aten.fill_.Scalar)
def fill_(self: Tensor, value: Any) -> Tensor:
    return self.copy_(aten.full_like.default(self, value, pin_memory=False))
