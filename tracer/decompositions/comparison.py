"""Core-aten decompositions of the comparison ops: ``heaviside`` and ``heaviside_``.

Corresponds to the torch/_refs/__init__.py ``heaviside`` PyTorch 2.13's ``core_aten_decompositions()`` uses: the
arguments promoted and broadcast (type_promotion.py), then ``where(x == 0, values, where(x < 0 or isnan(x), 0,
1))`` with the numbers as ``scalar_tensor``s, cast back to the result dtype; ``heaviside_`` is the decomposition
followed by ``copy_`` into self (inplace.py).
"""

from __future__ import annotations

from dispatcher import dtypes
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .inplace import _register_inplace
from .registry import register_decomposition
from .type_promotion import _broadcast, _finish, _promoted, _scalar

aten = namespace("aten")


@register_decomposition(aten.heaviside.default)
def heaviside(self: Tensor, values: Tensor) -> Tensor:
    (x, v), _, result = _promoted((self, values), False)
    x, v = _broadcast(x, v)
    is_zero = aten.eq.Scalar(x, 0)
    below = aten.logical_or.default(aten.lt.Scalar(x, 0), aten.isnan.default(x))
    one, zero = _scalar(1, x, dtypes.int64), _scalar(0, x, dtypes.int64)
    steps = aten.where.self(below, zero, one)
    return _finish(aten.where.self(is_zero, v, steps), result)


_register_inplace(aten.heaviside_.default, heaviside)
