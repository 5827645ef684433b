"""Core-aten decompositions of the arithmetic ops: ``rsub``, ``clamp_min`` / ``clamp_max``, ``sgn``, ``addcmul`` /
``addcdiv``, ``lerp``, ``floor_divide``, ``frac``, ``nan_to_num`` and their in-place forms.

Corresponds to the entries of torch/_decomp/decompositions.py and the torch/_refs/__init__.py functions PyTorch
2.13's ``core_aten_decompositions()`` uses for these ops; each calls the same aten ops in the same order:

* ``rsub.Scalar`` / ``rsub.Tensor``: ``sub`` with the operands swapped; ``clamp_min`` / ``clamp_max`` (a number or a Tensor bound):
  ``clamp`` with the other bound ``None``;
* ``sgn``: ``sign`` for real inputs; ``x / |x|``, 0 where ``|x|`` is 0, for complex ones;
* ``addcmul`` / ``addcdiv``: ``self + value * tensor1 * tensor2`` (``/ tensor2``), with the DEFAULT / INT_TO_FLOAT
  type promotion of the references;
* ``lerp.Scalar`` / ``lerp.Tensor``: the weight (a scalar one as ``full([], w)``) picks, by ``|w| >= 0.5``,
  ``coeff = where(mask, w - 1, w)`` and ``base = where(mask, end, start)``; the result is
  ``coeff * (end - start) + base``; tensors of another shape than the broadcast one are ``expand``ed to
  compute the output strides (the expansion is unused); float16 is computed in float32 (``_to_copy`` in and
  out); ``lerp_`` is ``lerp`` then ``copy_`` into self;
* ``floor_divide``: ``div.Tensor_mode`` with ``rounding_mode="floor"``; ``frac``: ``x - trunc(x)``;
  ``nan_to_num``: NaN, -inf and +inf replaced in turn through ``where`` (the dtype's limits by default; a float16
  input is compared in float32); an integral input is cloned;
* ``frac_`` / ``nan_to_num_``: the decomposition, then ``copy_`` into self (inplace.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dispatcher import dtypes
from dispatcher.memory_format import strided
from dispatcher.op_overload import namespace
from dispatcher.ops.meta_utils import broadcast_shapes
from dispatcher.tensor import Tensor

from .inplace import _register_inplace
from .registry import register_decomposition
from .type_promotion import (
    _check_value,
    _default_promotion,
    _finish,
    _int_to_float_promotion,
    _promoted,
    _scalar,
    pw_cast_for_opmath,
)

aten = namespace("aten")


@register_decomposition(aten.rsub.Scalar)
def rsub(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return aten.sub.Tensor(other, self, alpha=alpha)


@register_decomposition(aten.rsub.Tensor)
def rsub_tensor(self: Tensor, other: Tensor, *, alpha: Any = 1) -> Tensor:
    return aten.sub.Tensor(other, self, alpha=alpha)


@register_decomposition(aten.clamp_min.default)
def clamp_min(self: Tensor, min: Any) -> Tensor:  # noqa: A002 - the schema's name
    return aten.clamp.default(self, min)


@register_decomposition(aten.clamp_max.default)
def clamp_max(self: Tensor, max: Any) -> Tensor:  # noqa: A002 - the schema's name
    return aten.clamp.default(self, None, max)


@register_decomposition(aten.clamp_min.Tensor)
def clamp_min_tensor(self: Tensor, min: Tensor) -> Tensor:  # noqa: A002 - the schema's name
    return aten.clamp.Tensor(self, min)


@register_decomposition(aten.clamp_max.Tensor)
def clamp_max_tensor(self: Tensor, max: Tensor) -> Tensor:  # noqa: A002
    return aten.clamp.Tensor(self, None, max)


@register_decomposition(aten.sgn.default)
@pw_cast_for_opmath
def sgn(self: Tensor) -> Tensor:
    """Real inputs: ``sign``; complex ones: ``x / |x|``, 0 where ``|x|`` is 0 (half precision computes in float32)."""
    if not self.dtype.is_complex:
        return aten.sign.default(self)
    magnitude = aten.abs.default(self)
    return aten.where(aten.eq.Scalar(magnitude, 0), 0, aten.div.Tensor(self, magnitude))


# --- addcmul, addcdiv -------------------------------------------------------------------------------------------------


@register_decomposition(aten.addcmul)
@_default_promotion
def addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``self + value * tensor1 * tensor2``."""
    _check_value(value, self)
    return aten.add.Tensor(self, aten.mul.Tensor(aten.mul.Tensor(tensor1, value), tensor2))


@register_decomposition(aten.addcdiv)
@_int_to_float_promotion
def addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``self + value * tensor1 / tensor2``."""
    _check_value(value, self)
    return aten.add.Tensor(self, aten.div.Tensor(aten.mul.Tensor(tensor1, value), tensor2))


_register_inplace(aten.addcmul_.default, addcmul)
_register_inplace(aten.addcdiv_.default, addcdiv)


# --- lerp -------------------------------------------------------------------------------------------------------------


def _lerp(start: Tensor, end: Tensor, weight: Any) -> Tensor:
    result_dtype = start._dtype
    low_precision = result_dtype is dtypes.float16  # computed in float32 (the refs' opmath), cast back
    if low_precision:
        start = aten._to_copy.default(start, dtype=dtypes.float32)
        end = aten._to_copy.default(end, dtype=dtypes.float32)
        if isinstance(weight, Tensor):
            weight = aten._to_copy.default(weight, dtype=dtypes.float32)
    inputs = [start, end]
    if not isinstance(weight, Tensor):
        weight = aten.full.default([], weight, dtype=start._dtype, layout=strided, device=start._device,
                                   pin_memory=False)
    else:
        inputs.append(weight)
    mask = aten.ge.Scalar(aten.abs.default(weight), 0.5)
    coeff = aten.where.self(mask, aten.sub.Tensor(weight, 1), weight)
    base = aten.where.self(mask, end, start)
    output = aten.add.Tensor(aten.mul.Tensor(coeff, aten.sub.Tensor(end, start)), base)
    shape = broadcast_shapes(*(t._shape for t in inputs))
    for t in inputs:  # _maybe_broadcast, for compute_elementwise_output_strides (the expansions are unused)
        if t._shape and t._shape != shape:
            aten.expand.default(t, list(shape))
    if low_precision:
        output = aten._to_copy.default(output, dtype=result_dtype)
    return output


@register_decomposition(aten.lerp.Scalar)
def lerp_scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return _lerp(self, end, weight)


@register_decomposition(aten.lerp.Tensor)
def lerp_tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    return _lerp(self, end, weight)


@register_decomposition(aten.lerp_.Scalar)
def lerp__scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return aten.copy_.default(self, _lerp(self, end, weight))


@register_decomposition(aten.lerp_.Tensor)
def lerp__tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    return aten.copy_.default(self, _lerp(self, end, weight))


# --- floor_divide, frac, nan_to_num -----------------------------------------------------------------------------------


@register_decomposition([aten.floor_divide.default, aten.floor_divide.Scalar])
def floor_divide(self: Any, other: Any) -> Tensor:
    return aten.div.Tensor_mode(self, other, rounding_mode="floor")


@register_decomposition(aten.frac.default)
def frac(self: Tensor) -> Tensor:
    (x,), _, result = _promoted((self,), False)
    return _finish(aten.sub.Tensor(x, aten.trunc.default(x)), result)


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


_register_inplace(aten.frac_.default, frac)
_register_inplace(aten.nan_to_num_.default, nan_to_num)
