"""Core-aten decompositions of the pw batch: ``floor_divide``, ``frac``, ``heaviside``, ``logaddexp``, ``logit``,
``logit_backward``, ``nan_to_num``, ``xlogy`` and their in-place forms.

Corresponds to the entries PyTorch 2.13's ``core_aten_decompositions()`` holds for these ops (torch/_refs and
torch/_decomp/decompositions.py), op for op:

* the references' type promotion (``elementwise_type_promotion_wrapper``): tensor arguments are converted
  (``_to_copy``) to the computation dtype (the promoted dtype, the default float for integral inputs of
  int-to-float ops, float32 for float16), and the result back to the result dtype;
* ``torch.where`` with a Python number makes it a ``scalar_tensor`` of the promoted dtype; ``clamp`` with
  numbers compares first, then replaces above the maximum, then below the minimum;
* an in-place op is its out-of-place decomposition followed by ``self.copy_(result)`` (``register_inplace``).

``logit_backward`` with a negative ``eps`` differs from its kernel, in PyTorch as here: the decomposition keeps
values inside ``[eps, 1 - eps]`` and gives 0 outside, the kernel keeps ``[0, 1]`` and gives NaN outside.

``xlogy``'s Scalar overloads are not here: PyTorch's decomposition wraps the number with
``prims.scalar_tensor``, an op this library does not define (tracer/decompositions.py lists them as missing).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dispatcher import dtypes
from dispatcher.memory_format import contiguous_format, strided
from dispatcher.op_overload import namespace
from dispatcher.ops.meta_utils import broadcast_shapes
from dispatcher.tensor import Tensor

from .decomp_registry import register_decomposition

aten = namespace("aten")


def _promoted(args: tuple[Any, ...], int_to_float: bool) -> tuple[list[Any], Any, Any]:
    """(arguments converted to the computation dtype, computation dtype, result dtype)."""
    result = dtypes.result_type(*args)
    if int_to_float and not (result.is_floating_point or result.is_complex):
        result = dtypes.get_default_dtype()
    compute = dtypes.float32 if result is dtypes.float16 else result
    converted = [aten._to_copy.default(a, dtype=compute) if isinstance(a, Tensor) and a.dtype is not compute else a
                 for a in args]
    return converted, compute, result


def _broadcast(*tensors: Tensor) -> list[Tensor]:
    """``_maybe_broadcast`` of the binary references: each tensor with dimensions but not of the common shape is
    expanded to it (0-dim tensors broadcast as numbers do)."""
    shape = list(broadcast_shapes(*(tuple(t.shape) for t in tensors)))
    return [t if t.dim() == 0 or list(t.shape) == shape else aten.expand.default(t, shape) for t in tensors]


def _finish(out: Tensor, result_dtype: Any) -> Tensor:
    return out if out.dtype is result_dtype else aten._to_copy.default(out, dtype=result_dtype)


def _scalar(value: Any, like: Tensor, dtype: Any = None) -> Tensor:
    """``torch.where``'s wrapping of a number: ``scalar_tensor(value, dtype=..., layout, device)``."""
    return aten.scalar_tensor.default(value, dtype=dtype or like.dtype, layout=strided, device=like.device)


def _register_inplace(inplace_op: Any, outplace: Callable[..., Tensor]) -> None:
    @register_decomposition(inplace_op)
    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return aten.copy_.default(self, outplace(self, *args, **kwargs))

    inplace.__name__ = inplace.__qualname__ = inplace_op.name().split("::")[1].replace(".", "_")


# --- floor_divide -----------------------------------------------------------------------------------------------------


@register_decomposition([aten.floor_divide.default, aten.floor_divide.Scalar])
def floor_divide(self: Any, other: Any) -> Tensor:
    return aten.div.Tensor_mode(self, other, rounding_mode="floor")


# --- frac, heaviside, logaddexp ------------------------------------------------------------------------------------------


@register_decomposition(aten.frac.default)
def frac(self: Tensor) -> Tensor:
    (x,), _, result = _promoted((self,), False)
    return _finish(aten.sub.Tensor(x, aten.trunc.default(x)), result)


@register_decomposition(aten.heaviside.default)
def heaviside(self: Tensor, values: Tensor) -> Tensor:
    (x, v), _, result = _promoted((self, values), False)
    x, v = _broadcast(x, v)
    is_zero = aten.eq.Scalar(x, 0)
    below = aten.logical_or.default(aten.lt.Scalar(x, 0), aten.isnan.default(x))
    one, zero = _scalar(1, x, dtypes.int64), _scalar(0, x, dtypes.int64)
    steps = aten.where.self(below, zero, one)
    return _finish(aten.where.self(is_zero, v, steps), result)


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


# --- logit, logit_backward ---------------------------------------------------------------------------------------------


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


# --- nan_to_num ------------------------------------------------------------------------------------------------------------


@register_decomposition(aten.nan_to_num.default)
def nan_to_num(self: Tensor, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        return aten.clone.default(self)
    info = np.finfo(self.dtype.np_dtype)
    nan = 0.0 if nan is None else nan
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = aten.where.self(aten.isnan.default(self), _scalar(nan, self), self)
    out = aten.where.self(_is_inf(self, -math.inf), _scalar(neginf, self), out)
    return aten.where.self(_is_inf(self, math.inf), _scalar(posinf, self), out)


def _is_inf(x: Tensor, inf: float) -> Tensor:
    """``isposinf`` / ``isneginf``: a float16 input is compared in float32 (the references' computation dtype)."""
    if x.dtype is dtypes.float16:
        x = aten._to_copy.default(x, dtype=dtypes.float32)
    return aten.eq.Scalar(x, inf)


# --- xlogy -------------------------------------------------------------------------------------------------------------------


@register_decomposition(aten.xlogy.Tensor)
def xlogy(self: Tensor, other: Tensor) -> Tensor:
    """``where(self == 0, 0, self * log(other))``, NaN where ``other`` is NaN."""
    (x, y), compute, result = _promoted((self, other), True)
    is_zero = aten.eq.Scalar(x, 0)
    product = aten.mul.Tensor(x, aten.log.default(y))
    out = aten.where.self(is_zero, _scalar(0, product), product)
    out = aten.where.self(aten.isnan.default(y), _scalar(math.nan, out), out)
    return _finish(out, result)


_register_inplace(aten.frac_.default, frac)
_register_inplace(aten.heaviside_.default, heaviside)
_register_inplace(aten.logit_.default, logit)
_register_inplace(aten.nan_to_num_.default, nan_to_num)
_register_inplace(aten.xlogy_.Tensor, xlogy)


# --- trace, trace_backward --------------------------------------------------------------------------------------------------


@register_decomposition(aten.trace.default)
def trace(self: Tensor) -> Tensor:
    """The main diagonal made contiguous, summed over every dim."""
    diagonal = aten.clone.default(aten.diagonal.default(self), memory_format=contiguous_format)
    return aten.sum.dim_IntList(diagonal, [])


@register_decomposition(aten.trace_backward.default)
def trace_backward(grad: Tensor, sizes: list[int]) -> Tensor:
    """The gradient put at every ``cols + 1``-th element of a flat zero tensor, viewed as ``sizes``."""
    rows, cols = sizes
    flat = aten.full.default([rows * cols], 0, dtype=grad.dtype, layout=strided, device=grad.device,
                             pin_memory=False)
    indices = aten.arange.start_step(0, min(rows, cols) * (cols + 1), cols + 1, dtype=dtypes.int64, layout=strided,
                                     device=grad.device)
    values = aten.expand.default(grad, [min(rows, cols)])
    return aten.view.default(aten.index_put.default(flat, [indices], values), list(sizes))
