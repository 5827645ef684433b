"""Comparison and logical kernels: ``eq`` / ``ne`` / ``lt`` / ``le`` / ``gt`` / ``ge``, ``maximum`` / ``minimum``,
``where``, ``isnan`` / ``isinf`` / ``isfinite`` / ``signbit``, ``logical_not`` / ``and`` / ``or`` / ``xor``,
``heaviside``.

Corresponds to aten/src/ATen/native/BinaryOps.cpp, TensorCompare.cpp, UnaryOps.cpp and their TensorIterator CPU
kernels. Comparisons compute in the promoted dtype and return bool. ``where.self`` converts ``self`` / ``other``
to the result dtype first (which can change the output's layout, as PyTorch's preserve-format copy does); its
overloads with a Python number (``where.ScalarSelf`` ...) are CompositeImplicitAutograd: ``scalar_tensor`` + ``to``
+ ``where.self``. ``isinf`` (CompositeExplicitAutograd: ``abs`` + ``eq``) and ``isfinite`` (CompositeImplicitAutograd:
``self == self`` times ``abs != inf``) are compositions, as in PyTorch; ``logical_and`` / ``or`` / ``xor`` are
CompositeExplicitAutograd.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..memory_format import preserve_format
from ..tensor import Tensor
from . import arithmetic as _arithmetic
from . import factories as _factories
from . import tensor_iterator as _pw
from .composite import _STRIDED, _aten, _op, is_tensor_subclass_like
from .kernel_registry import impl
from .meta_utils import TensorMeta, broadcast_shapes, check_inplace, elementwise_strides, np_operand, scalar_type_name
from .tensor_iterator import _as_dtype_layout, _bool, _run, _shape, binary_meta, inplace_from, unary_meta

# --- maximum / minimum / where / comparisons ------------------------------------------------------


def _min_max(self: Tensor, other: Tensor, fn: Any, logical: Any) -> Tensor:
    meta = binary_meta(self, other)
    if meta.dtype.is_complex:
        raise RuntimeError(f"{fn.__name__}() not implemented for complex tensors.")

    def compute() -> Any:
        if meta.dtype is _bool:
            return logical(self._data, np_operand(other, _bool))
        return fn(np_operand(self, meta.dtype), np_operand(other, meta.dtype))

    return _run(meta, self, compute)


@impl("maximum", "CPU", "Meta")
def maximum(self: Tensor, other: Tensor) -> Tensor:
    return _min_max(self, other, np.maximum, np.logical_or)


@impl("maximum.out", "CPU", "Meta")
def maximum_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    """``maximum`` written into ``out`` (an ``out`` of the result's shape; resizing ``out`` is not supported)."""
    from .tensor_iterator import _store

    result = maximum(self, other)
    if tuple(out._shape) != tuple(result._shape):
        raise NotImplementedError("maximum(out=...): an out tensor of another shape than the result (resized by "
                                  "PyTorch) is not supported by dispatchkit")
    return _store(out, result)


@impl("minimum", "CPU", "Meta")
def minimum(self: Tensor, other: Tensor) -> Tensor:
    return _min_max(self, other, np.minimum, np.logical_and)


@impl("max.other", "CompositeImplicitAutograd")
def max_other(self: Tensor, other: Tensor) -> Tensor:
    """``maximum(self, other)`` (``Tensor.max(other)`` / ``torch.max(x, other)`` bind to this op)."""
    return _aten().maximum.default(self, other)


@impl("min.other", "CompositeImplicitAutograd")
def min_other(self: Tensor, other: Tensor) -> Tensor:
    """``minimum(self, other)``."""
    return _aten().minimum.default(self, other)


@impl("where.self", "CPU", "Meta")
def where_self(condition: Tensor, self: Any, other: Any) -> Tensor:
    cdt = condition._dtype
    if cdt is _dt.uint8:
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be removed in a future "
            "version of PyTorch. Use a boolean condition instead.",
            UserWarning,
            stacklevel=2,
        )
    elif cdt is not _bool:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype {scalar_type_name(cdt)}"
        )
    dtype = _dt.result_type(self, other)
    # PyTorch converts self / other to the result dtype first (a preserve-format copy when it changes)
    operands = (_as_dtype_layout(condition, _bool), _as_dtype_layout(self, dtype), _as_dtype_layout(other, dtype))
    shape = broadcast_shapes(*(_shape(x) for x in operands))
    meta = TensorMeta(shape, elementwise_strides(shape, operands), dtype)

    def compute() -> Any:
        return np.where(np_operand(condition, _bool), np_operand(self, dtype), np_operand(other, dtype))

    return _run(meta, condition, compute)


# --- where with scalars (TensorCompare.cpp) ---------------------------------------------------------


@impl("where.ScalarSelf", "CompositeImplicitAutograd")
def where_scalar_self(condition: Tensor, self: Any, other: Tensor) -> Tensor:
    result_type = _dt.result_type(other, self)
    self_t = _op("scalar_tensor")(self, dtype=result_type, layout=_STRIDED, device=other._device)
    other_c = other if other._dtype is result_type else _op("to.dtype")(other, result_type)
    return _op("where.self")(condition, self_t, other_c)


@impl("where.ScalarOther", "CompositeImplicitAutograd")
def where_scalar_other(condition: Tensor, self: Tensor, other: Any) -> Tensor:
    result_type = _dt.result_type(self, other)
    other_t = _op("scalar_tensor")(other, dtype=result_type, layout=_STRIDED, device=self._device)
    self_c = self if self._dtype is result_type else _op("to.dtype")(self, result_type)
    return _op("where.self")(condition, self_c, other_t)


@impl("where.Scalar", "CompositeImplicitAutograd")
def where_scalar(condition: Tensor, self: Any, other: Any) -> Tensor:
    result_type = _dt.result_type(self, other)
    other_t = _op("scalar_tensor")(other, dtype=result_type, layout=_STRIDED, device=condition._device)
    self_t = _op("scalar_tensor")(self, dtype=result_type, layout=_STRIDED, device=condition._device)
    return _op("where.self")(condition, self_t, other_t)


@impl("where", "CompositeImplicitAutograd")
def where_condition(condition: Tensor) -> list[Tensor]:
    """``where(condition)``: ``nonzero_numpy`` (a 0-dim condition is unsqueezed first), one index tensor per dim."""
    if condition.dim() == 0:
        condition = _op("unsqueeze")(condition, 0)
    return list(_op("unbind.int")(_op("nonzero")(condition), 1))


# --- eq / ne / lt / le / gt / ge -----------------------------------------------------------------------


def _comparison(name: str, fn: Any) -> Callable[..., Tensor]:
    def compare(self: Tensor, other: Any) -> Tensor:
        meta = binary_meta(self, other, _bool)
        common = _dt.result_type(self, other)
        return _run(meta, self, lambda: fn(np_operand(self, common), np_operand(other, common)))

    compare.__name__ = name
    compare.__doc__ = f"aten::{name}: compares in the promoted dtype, returns bool."
    return compare


for _name, _fn in (
    ("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
    ("gt", np.greater), ("ge", np.greater_equal),
):
    _kernel = _comparison(_name, _fn)
    impl(f"{_name}.Tensor", "CPU", "Meta")(_kernel)
    impl(f"{_name}.Scalar", "CPU", "Meta")(_kernel)
    globals()[_name] = _kernel
del _name, _fn, _kernel


# --- isnan / isinf / isfinite / signbit ----------------------------------------------------------------


@impl("isnan", "CPU", "Meta")
def isnan(self: Tensor) -> Tensor:
    def compute() -> Any:
        if self._dtype.is_floating_point or self._dtype.is_complex:
            return np.isnan(self._data)
        return np.zeros(self._shape, np.bool_)

    return _run(unary_meta(self, _bool), self, compute)


@impl("isinf", "CompositeExplicitAutograd")
def isinf(self: Tensor) -> Tensor:
    """PyTorch's kernel: ``abs(self) == inf`` for floating selves (the two ops decide the layout), else
    ``zeros_like(self, dtype=bool)`` (preserve format)."""
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        out = _factories.zeros_like(self, dtype=_pw._bool, memory_format=preserve_format)
        if out._data is not None:
            out._data[...] = False
        return out
    absolute = _arithmetic.abs(self)
    return eq(absolute, math.inf) if self._data is None else _pw._run(  # noqa: F821 - eq: bound by the loop above
        _pw.binary_meta(absolute, math.inf, _pw._bool), self, lambda: np.isinf(self._data))


@impl("isfinite", "CompositeImplicitAutograd")
def isfinite(self: Tensor) -> Tensor:
    """Integral selves: ``ones_like(self, dtype=bool)``; floating: ``(self == self) * (self.abs() != inf)``
    (C++ evaluates the right operand first, so abs and ne run before eq)."""
    aten = _aten()
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        return aten.ones_like.default(self, dtype=_pw._bool, memory_format=preserve_format)
    finite_abs = aten.ne.Scalar(aten.abs.default(self), math.inf)
    return aten.mul.Tensor(aten.eq.Tensor(self, self), finite_abs)


@impl("isclose", "CompositeImplicitAutograd")
def isclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """``self == other``, or'ed with ``isfinite(|self - other|) & (|self - other| <= atol + |rtol * other|)``
    (bool operands are first converted to the default dtype); NaNs are close to NaNs under ``equal_nan``."""
    aten = _aten()
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{scalar_type_name(self._dtype)} did not match {scalar_type_name(other._dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close = aten.eq.Tensor(self, other)
    if equal_nan and (self._dtype.is_floating_point or self._dtype.is_complex):
        nans = aten.isnan.default(self)
        if is_tensor_subclass_like(other):  # (torch: no in-place op into a plain tensor with a subclass operand)
            both = aten.bitwise_and.Tensor(nans, aten.isnan.default(other))
        else:
            both = aten.bitwise_and_.Tensor(nans, aten.isnan.default(other))
        close = aten.bitwise_or_.Tensor(close, both)
    if rtol == 0 and atol == 0:
        return close
    a, b = self, other
    if a._dtype is _bool:
        a = aten.to.dtype(a, _dt.get_default_dtype())
    if not (b._dtype.is_floating_point or b._dtype.is_complex):  # an integral (or bool) other: the default float
        b = aten.to.dtype(b, _dt.get_default_dtype())
    allowed = aten.add.Scalar(aten.abs.default(aten.mul.Scalar(b, rtol)), atol)
    actual = aten.abs.default(aten.sub.Tensor(a, b))
    finite = aten.isfinite.default(actual)
    return aten.bitwise_or_.Tensor(close, aten.bitwise_and_.Tensor(finite, aten.le.Tensor(actual, allowed)))


@impl("signbit", "CPU", "Meta")
def signbit(self: Tensor) -> Tensor:
    """Bool: the sign bit of floats (``-0.0`` and ``-nan`` too), ``x < 0`` for integers."""

    def compute() -> Any:
        x = self._data
        if self._dtype.is_floating_point:
            return np.signbit(x)
        return np.less(x, 0) if x.dtype.kind == "i" else np.zeros(x.shape, dtype=np.bool_)

    return _pw._run(_pw.unary_meta(self, _bool), self, compute)


# --- logical_not / logical_and / logical_or ------------------------------------------------------------


@impl("logical_not", "CompositeExplicitAutograd")
def logical_not(self: Tensor) -> Tensor:
    return _run(unary_meta(self, _bool), self, lambda: np.logical_not(self._data))


@impl("logical_not_", "CompositeExplicitAutograd")
def logical_not_(self: Tensor) -> Tensor:
    """``self`` replaced in place by ``not self`` (0 / 1 in self's dtype): what ``nanmean``'s composite calls."""
    if self._device.type != "meta":
        self._data[...] = np.logical_not(self._data)
    return self


def _logical(fn: Any) -> Callable[[Tensor, Tensor], Tensor]:
    def logical(self: Tensor, other: Tensor) -> Tensor:
        meta = binary_meta(self, other, _bool, _dt.result_type(self, other))
        return _run(meta, self, lambda: fn(np_operand(self, _bool), np_operand(other, _bool)))

    def logical_(self: Tensor, other: Tensor) -> Tensor:
        meta = binary_meta(self, other, _bool)
        check_inplace(self, meta.shape, self._dtype)
        if self._data is not None:
            self._data[...] = fn(np_operand(self, _bool), np_operand(other, _bool))
        return self

    return logical, logical_


for _name, _fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or)):
    _out, _inplace = _logical(_fn)
    _out.__name__, _inplace.__name__ = _name, f"{_name}_"
    impl(_name, "CompositeExplicitAutograd")(_out)
    impl(f"{_name}_", "CompositeExplicitAutograd")(_inplace)
    globals()[_name], globals()[f"{_name}_"] = _out, _inplace
del _name, _fn, _out, _inplace


# --- logical_xor --------------------------------------------------------------------------------------------------------

logical_xor, logical_xor_ = _logical(np.logical_xor)
logical_xor.__name__, logical_xor_.__name__ = "logical_xor", "logical_xor_"
impl("logical_xor", "CompositeExplicitAutograd")(logical_xor)
impl("logical_xor_", "CompositeExplicitAutograd")(logical_xor_)


# --- heaviside -----------------------------------------------------------------------------------------


@impl("heaviside", "CPU", "Meta")
def heaviside(self: Tensor, values: Tensor) -> Tensor:
    """0 where ``self < 0`` (or NaN), ``values`` where ``self == 0``, 1 elsewhere; both of one dtype."""
    if self._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    meta = _pw.binary_meta(self, values)

    def compute() -> Any:
        x, v = self._data, values._data
        one, zero = x.dtype.type(1), x.dtype.type(0)
        return np.where(x == 0, v, np.where((x < 0) | (x != x), zero, one))

    return _pw._run(meta, self, compute)


heaviside_ = impl("heaviside_", "CPU", "Meta")(inplace_from(heaviside, "heaviside_"))


@impl("allclose", "CompositeExplicitAutograd")
def allclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """``isclose(...).all().item()`` as a Python bool (TensorCompare.cpp's allclose)."""
    aten = _aten()
    close = aten.isclose.default(self, other, rtol, atol, equal_nan)
    return bool(aten.item.default(aten.all.default(close)))


@impl("equal", "CPU")
def equal(self: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same sizes and equal elements compared in their promoted dtype (NaN is
    never equal); tensors of different sizes are simply not equal (ReduceOps.cpp's cpu_equal)."""
    if tuple(self.shape) != tuple(other.shape):
        return False
    if self.numel() == 0:
        return True
    return bool(np.all(self._data == other._data))
