"""Core-aten decompositions of the random ops: ``bernoulli.default``.

Corresponds to torch/_refs/__init__.py's ``bernoulli`` (PyTorch 2.13's ``core_aten_decompositions()`` entry):
``(rand(self.shape, dtype=float32) < self).to(self.dtype)``, the generator passed on when given.
"""

from __future__ import annotations

from typing import Any

from dispatcher import dtypes
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition

aten = namespace("aten")


@register_decomposition(aten.bernoulli.default)
def bernoulli(self: Tensor, *, generator: Any = None) -> Tensor:
    """``(rand(self.shape, dtype=float32) < self).to(self.dtype)``."""
    kw: dict[str, Any] = {} if generator is None else {"generator": generator}
    raw_p = aten.rand.default(list(self.shape), **kw, dtype=dtypes.float32, device=self.device, pin_memory=False)
    return aten.to.dtype(aten.lt.Tensor(raw_p, self), self.dtype)
