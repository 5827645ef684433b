"""Core-aten decompositions of the transcendental ops: ``tanh_backward``, ``sigmoid_backward``, ``logaddexp``,
``logit`` / ``logit_backward``, ``xlogy`` and their in-place forms.

Corresponds to the entries PyTorch 2.13's ``core_aten_decompositions()`` holds for these ops
(torch/_decomp/decompositions.py and torch/_refs/__init__.py), op for op:

* ``tanh_backward`` / ``sigmoid_backward``: ``grad * (1 - y * y)`` / ``grad * (y * (1 - y))``, half precision
  computed in float32 (``pw_cast_for_opmath``);
* ``logaddexp``: ``max + log1p(exp(min - max))``; where both are the same infinity, that infinity;
* ``logit``: the input clamped by two ``where``s (compare first, then replace above the maximum, then below the
  minimum), then ``log(x / (1 - x))``; ``logit_backward``: ``grad / (x * (1 - x))`` inside the range. With a
  negative ``eps`` it differs from its kernel, in PyTorch as here: the decomposition keeps values inside
  ``[eps, 1 - eps]`` and gives 0 outside, the kernel keeps ``[0, 1]`` and gives NaN outside;
* ``xlogy.Tensor``: ``where(self == 0, 0, self * log(other))``, NaN where ``other`` is NaN. Its Scalar overloads
  are not here: PyTorch's decomposition wraps the number with ``prims.scalar_tensor``, an op this library does not
  define (``MISSING_CORE_DECOMPOSITIONS`` in __init__.py lists them);
* ``logit_`` / ``xlogy_.Tensor``: the decomposition, then ``copy_`` into self (inplace.py).

Tensor arguments are converted (``_to_copy``) to the computation dtype and the result back (type_promotion.py).
"""

from __future__ import annotations

import math

from dispatcher.memory_format import strided
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .inplace import _register_inplace
from .registry import register_decomposition
from .type_promotion import _broadcast, _finish, _promoted, _scalar, pw_cast_for_opmath

aten = namespace("aten")


@register_decomposition(aten.tanh_backward.default)
@pw_cast_for_opmath
def tanh_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    return grad_output * (1 - output * output)


@register_decomposition(aten.sigmoid_backward.default)
@pw_cast_for_opmath
def sigmoid_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    return grad_output * (output * (1 - output))


# --- logaddexp --------------------------------------------------------------------------------------------------------


def _isfinite(x: Tensor) -> Tensor:
    finite_abs = aten.ne.Scalar(aten.abs.default(x), math.inf)
    return aten.mul.Tensor(aten.eq.Tensor(x, x), finite_abs)


@register_decomposition(aten.logaddexp.default)
def logaddexp(self: Tensor, other: Tensor) -> Tensor:
    """``max + log1p(exp(min - max))``; where both are the same infinity, that infinity."""
    (a, b), _, result = _promoted((self, other), False)
    a, b = _broadcast(a, b)
    a_ge_b = aten.ge.Tensor(a, b)
    larger = aten.where.self(a_ge_b, a, b)
    smaller = aten.where.self(a_ge_b, b, a)
    same_inf = aten.logical_and.default(aten.logical_not.default(_isfinite(a)), aten.eq.Tensor(a, b))
    out = aten.add.Tensor(larger, aten.log1p.default(aten.exp.default(aten.sub.Tensor(smaller, larger))))
    return _finish(aten.where.self(same_inf, a, out), result)


# --- logit, logit_backward --------------------------------------------------------------------------------------------


def _clamp(x: Tensor, lo: float, hi: float) -> Tensor:
    below, above = aten.lt.Scalar(x, lo), aten.gt.Scalar(x, hi)
    x = aten.where.self(above, _scalar(hi, x), x)
    return aten.where.self(below, _scalar(lo, x), x)


@register_decomposition(aten.logit.default)
def logit(self: Tensor, eps: float | None = None) -> Tensor:
    (x,), _, result = _promoted((self,), True)
    lo = -1.0 if eps is None else eps
    x = _clamp(x, lo, 1 - lo)
    return _finish(aten.log.default(aten.div.Tensor(x, aten.sub.Tensor(1, x))), result)


@register_decomposition(aten.logit_backward.default)
def logit_backward(grad_output: Tensor, self: Tensor, eps: float | None = None) -> Tensor:
    (g, x), _, result = _promoted((grad_output, self), False)
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    inside = aten.logical_and.default(aten.ge.Scalar(x, lo), aten.le.Scalar(x, hi))
    value = aten.div.Tensor(g, aten.mul.Tensor(x, aten.sub.Tensor(1.0, x)))
    if eps is None:
        outside = aten.full.default([], math.nan, dtype=value.dtype, layout=strided, device=value.device,
                                    pin_memory=False)
    else:
        outside = _scalar(0.0, value)
    return _finish(aten.where.self(inside, value, outside), result)


# --- xlogy ------------------------------------------------------------------------------------------------------------


@register_decomposition(aten.xlogy.Tensor)
def xlogy(self: Tensor, other: Tensor) -> Tensor:
    """``where(self == 0, 0, self * log(other))``, NaN where ``other`` is NaN."""
    (x, y), compute, result = _promoted((self, other), True)
    is_zero = aten.eq.Scalar(x, 0)
    product = aten.mul.Tensor(x, aten.log.default(y))
    out = aten.where.self(is_zero, _scalar(0, product), product)
    out = aten.where.self(aten.isnan.default(y), _scalar(math.nan, out), out)
    return _finish(out, result)


_register_inplace(aten.logit_.default, logit)
_register_inplace(aten.xlogy_.Tensor, xlogy)
