"""Pointwise kernels: arithmetic, comparisons, unary math, activations, their in-place forms and backwards.

Corresponds to aten/src/ATen/native/BinaryOps.cpp, UnaryOps.cpp, TensorCompare.cpp,
Activation.cpp, PointwiseOps.cpp and their TensorIterator CPU kernels. Every
kernel computes its output's metadata the way TensorIterator does (broadcast
shape, promoted dtype, strides following the inputs' layout), so one function
serves as the Meta kernel and the CPU kernel. NumPy computes in the result
dtype, or in float32 for float16 results (PyTorch's "opmath" type) then
rounds once, as PyTorch's CPU kernels do.

Errors follow PyTorch: checks its meta functions make raise on every device;
checks its CPU kernels make (unsupported dtypes: ``"abs_cpu" not implemented
for 'Bool'``, integer division by zero, negative integer powers) raise only
on CPU, so a Meta run succeeds where PyTorch's does.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides, device
from .fp_errors import ignoring_fp_errors
from .kernel_registry import impl
from .meta_utils import (
    TensorMeta,
    broadcast_shapes,
    check_inplace,
    checked_scalar,
    elementwise_strides,
    materialize,
    np_operand,
    preserve_format_strides,
    scalar_type_name,
)

_bool, _float16, _float32, _float64 = _dt.bool, _dt.float16, _dt.float32, _dt.float64
_pybool, _pyint, _pyfloat = bool, int, float  # the module's names stay Python's
_META = device("meta")


# --- metadata ---------------------------------------------------------------------------------


def _shape(x: Any) -> tuple[int, ...]:
    return x._shape if isinstance(x, Tensor) else ()


def binary_meta(a: Any, b: Any, dtype: _dt.dtype | None = None, common: _dt.dtype | None = None) -> TensorMeta:
    """Broadcast shape, promoted dtype (or ``dtype``), TensorIterator strides.

    ``common`` is the dtype the inputs are computed in (default: their promoted dtype); on CPU,
    PyTorch converts an input of another dtype first, which can change its layout.
    """
    if isinstance(b, Tensor) and isinstance(a, Tensor) and a._shape == b._shape and a._contiguous and b._contiguous:
        # The common case: same shape, both contiguous.
        if dtype is None:
            dtype = a._dtype if a._dtype is b._dtype else _dt.result_type(a, b)
        return TensorMeta(a._shape, contiguous_strides(a._shape), dtype)
    shape = broadcast_shapes(_shape(a), _shape(b))
    if common is None:
        common = _dt.result_type(a, b)
    stride = elementwise_strides(shape, (_as_dtype_layout(a, common), _as_dtype_layout(b, common)))
    return TensorMeta(shape, stride, dtype or common)


def iter_meta(operands: tuple[Any, ...], dtype: _dt.dtype) -> TensorMeta:
    """TensorIterator metadata for inputs (Tensors or Python numbers) computed in ``dtype``."""
    shape = broadcast_shapes(*(_shape(x) for x in operands))
    return TensorMeta(shape, elementwise_strides(shape, [_as_dtype_layout(x, dtype) for x in operands]), dtype)


def _as_dtype_layout(x: Any, dtype: _dt.dtype) -> Any:
    """A stand-in with the layout of ``x.to(dtype)`` (PyTorch converts CPU inputs to the common dtype first)."""
    if not isinstance(x, Tensor) or x._dtype is dtype or not x._shape:
        return x
    stride = preserve_format_strides(x)
    return x if stride == x._stride else Tensor._empty(x._shape, dtype, _META, stride)


def unary_meta(self: Tensor, dtype: _dt.dtype | None = None) -> TensorMeta:
    """A unary op's output: self's shape; self's layout when dense, else dense in self's dim order."""
    if self._contiguous and self._shape:
        return TensorMeta(self._shape, contiguous_strides(self._shape), dtype or self._dtype)
    return TensorMeta(self._shape, elementwise_strides(self._shape, (self,)), dtype or self._dtype)


def _converted_meta(self: Tensor, dtype: _dt.dtype) -> TensorMeta:
    """Unary op on ``self.to(dtype)``: the conversion copy (preserve format) decides the layout."""
    if dtype is self._dtype:
        return unary_meta(self)
    stride = preserve_format_strides(self)
    copy = Tensor._empty(self._shape, dtype, _META, stride)
    return unary_meta(copy, dtype)


def _opmath(dt: _dt.dtype) -> _dt.dtype:
    """The dtype PyTorch's CPU kernels compute in: float32 for float16, else the dtype itself."""
    return _float32 if dt is _float16 else dt


def _float_result(dt: _dt.dtype) -> _dt.dtype:
    """Integral (and bool) inputs of a floating op give the default float dtype."""
    return dt if dt.is_floating_point or dt.is_complex else _dt.get_default_dtype()


def _is_cpu(x: Any) -> bool:
    return isinstance(x, Tensor) and x._data is not None


def _not_implemented(kernel: str, dt: _dt.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dt)}\'')


def _require_dtype(kernel: str, dt: _dt.dtype, device_like: Any, ok: Callable[[_dt.dtype], bool]) -> None:
    """The CPU kernel's dtype dispatch: raise PyTorch's NotImplementedError (CPU only, as PyTorch)."""
    if not ok(dt) and _is_cpu(device_like):
        raise _not_implemented(kernel, dt)


def _is_float(dt: _dt.dtype) -> bool:
    return dt.is_floating_point


def _not_bool(dt: _dt.dtype) -> bool:
    return dt is not _bool


def _run(meta: TensorMeta, device_like: Any, fn: Callable[[], Any]) -> Tensor:
    """``materialize`` with NumPy's floating-point warnings off (PyTorch gives inf / nan silently)."""
    if device_like._data is None:
        return materialize(meta, None, device_like)
    return materialize(meta, ignoring_fp_errors(fn), device_like)


def _write(out: np.ndarray, fn: Callable[..., Any], *args: Any) -> None:
    """An in-place kernel's store: ``out[...] = fn(*args)`` (call it through ``ignoring_fp_errors``)."""
    out[...] = fn(*args)


def _operand(x: Any, dtype: _dt.dtype) -> Any:
    return np_operand(x, _opmath(dtype))


# --- add / sub / mul / div ------------------------------------------------------------------------


def _alpha_check(dtype: _dt.dtype, alpha: Any) -> None:
    if isinstance(alpha, _pybool) and dtype is not _bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, _pyfloat) and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, complex) and not dtype.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def _sub_check(self: Any, other: Any) -> None:
    a_bool = _dt_of(self) is _bool
    b_bool = _dt_of(other) is _bool
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if a_bool or b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def _dt_of(x: Any) -> _dt.dtype:
    return x._dtype if isinstance(x, Tensor) else _dt.scalar_dtype(x)


def _add_values(self: Any, other: Any, alpha: Any, dtype: _dt.dtype, sign: int = 1) -> Any:
    """``self + sign * alpha * other`` computed in ``dtype``'s opmath type."""
    if dtype is _bool:
        # bool add: a logical or (alpha is a bool or a number; non-zero means True)
        b = np_operand(other, _bool)
        return np.logical_or(np_operand(self, _bool), b & _pybool(alpha)) if alpha != 1 else np.logical_or(
            np_operand(self, _bool), b
        )
    op = _opmath(dtype)
    a = np_operand(self, op)
    b = np_operand(other, op)
    if alpha != 1:
        b = b * checked_scalar(alpha, dtype).astype(op.np_dtype)
    return np.add(a, b) if sign > 0 else np.subtract(a, b)


def _same_layout_cpu(a: Any, b: Any) -> bool:
    """The hot case: two CPU tensors, same dtype (not bool / float16) and shape (not 0-dim), both contiguous."""
    return (
        type(b) is Tensor
        and type(a) is Tensor
        and a._dtype is b._dtype
        and a._shape == b._shape
        and a._contiguous
        and b._contiguous
        and a._data is not None
        and b._data is not None
        and a._shape != ()
        and a._dtype is not _bool
        and a._dtype is not _float16
    )


#: Python ints in this range convert to any floating dtype without an OverflowError (np_operand's slow case)
_EXACT_INT = 1 << 53


def _scalar_hot(self: Any, other: Any) -> bool:
    """The other hot case: ``self`` a float32 / float64 tensor (not 0-dim, no empty dim) with row-major strides and
    ``other`` a Python float or int. The result has self's shape, dtype and strides (what ``binary_meta``,
    ``result_type`` and TensorIterator's stride choice give for it), so none of them needs to run."""
    c = other.__class__
    if not (c is _pyfloat or (c is _pyint and -_EXACT_INT < other < _EXACT_INT)):
        return False
    dt = getattr(self, "_dtype", None)
    if dt is not _float32 and dt is not _float64:
        return False
    shape = self._shape
    return bool(shape) and self._contiguous and self._stride == contiguous_strides(shape) and 0 not in shape


def _scalar_result(self: Tensor, other: Any, ufunc: Any) -> Tensor:
    """``ufunc(self, other)`` for ``_scalar_hot`` arguments (the number converted to self's dtype, as np_operand)."""
    dt = self._dtype
    if self._data is None:  # Meta: only the output's metadata
        return Tensor._empty(self._shape, dt, self._device, self._stride)
    return Tensor._wrap_contiguous(ignoring_fp_errors(ufunc, self._data, dt.np_dtype.type(other)), dt)


@impl("add.Tensor", "CPU", "Meta")
def add_tensor(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if alpha == 1 and type(alpha) is _pyint:
        if _same_layout_cpu(self, other):  # the hot path (4x4 a + b)
            return Tensor._wrap_contiguous(np.add(self._data, other._data), self._dtype)
        if _scalar_hot(self, other):
            return _scalar_result(self, other, np.add)
        meta = binary_meta(self, other)
        dtype = meta.dtype
        if dtype is not _bool and dtype is not _float16:
            if self._data is None:
                return materialize(meta, None, self)
            return materialize(meta, lambda: np.add(np_operand(self, dtype), np_operand(other, dtype)), self)
    else:
        meta = binary_meta(self, other)
    _alpha_check(meta.dtype, alpha)
    return _run(meta, self, lambda: _add_values(self, other, alpha, meta.dtype))


@impl("add.Scalar", "CompositeExplicitAutograd")
def add_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return add_tensor(self, other, alpha=alpha)


@impl("add_.Tensor", "CPU", "Meta")
def add__tensor(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    meta = binary_meta(self, other)
    _alpha_check(meta.dtype, alpha)
    check_inplace(self, meta.shape, meta.dtype)
    if self._data is not None:
        ignoring_fp_errors(_write, self._data, _add_values, self, other, alpha, meta.dtype)
    return self


@impl("sub.Tensor", "CPU", "Meta")
def sub_tensor(self: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    if alpha == 1 and type(alpha) is _pyint and _scalar_hot(self, other):
        return _scalar_result(self, other, np.subtract)
    _sub_check(self, other)
    meta = binary_meta(self, other)
    _alpha_check(meta.dtype, alpha)
    like = self if isinstance(self, Tensor) else other
    return _run(meta, like, lambda: _add_values(self, other, alpha, meta.dtype, sign=-1))


@impl("sub_.Tensor", "CPU", "Meta")
def sub__tensor(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    _sub_check(self, other)
    meta = binary_meta(self, other)
    _alpha_check(meta.dtype, alpha)
    check_inplace(self, meta.shape, meta.dtype)
    if self._data is not None:
        ignoring_fp_errors(_write, self._data, _add_values, self, other, alpha, meta.dtype, -1)
    return self


@impl("rsub.Scalar", "CompositeExplicitAutograd")
def rsub_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    """``other - alpha * self`` (PyTorch: ``sub(wrapped_scalar_tensor(other), self, alpha)``)."""
    return sub_tensor(other, self, alpha=alpha)


def _mul_values(self: Any, other: Any, dtype: _dt.dtype) -> Any:
    op = _opmath(dtype)
    return np.multiply(np_operand(self, op), np_operand(other, op))


@impl("mul.Tensor", "CPU", "Meta")
def mul_tensor(self: Tensor, other: Any) -> Tensor:
    if _same_layout_cpu(self, other):
        return Tensor._wrap_contiguous(np.multiply(self._data, other._data), self._dtype)
    if _scalar_hot(self, other):
        return _scalar_result(self, other, np.multiply)
    meta = binary_meta(self, other)
    return _run(meta, self, lambda: _mul_values(self, other, meta.dtype))


@impl("mul.Scalar", "CompositeExplicitAutograd")
def mul_scalar(self: Tensor, other: Any) -> Tensor:
    return mul_tensor(self, other)


@impl("mul_.Tensor", "CPU", "Meta")
def mul__tensor(self: Tensor, other: Any) -> Tensor:
    meta = binary_meta(self, other)
    check_inplace(self, meta.shape, meta.dtype)
    if self._data is not None:
        ignoring_fp_errors(_write, self._data, _mul_values, self, other, meta.dtype)
    return self


def _true_div_meta(self: Tensor, other: Any) -> TensorMeta:
    dtype = _float_result(_dt.result_type(self, other))
    return binary_meta(self, other, dtype, dtype)


def _true_div_values(self: Any, other: Any, dtype: _dt.dtype) -> Any:
    op = _opmath(dtype)
    return np.true_divide(np_operand(self, op), np_operand(other, op))


@impl("div.Tensor", "CPU", "Meta")
def div_tensor(self: Tensor, other: Any) -> Tensor:
    if _scalar_hot(self, other):
        return _scalar_result(self, other, np.true_divide)
    meta = _true_div_meta(self, other)
    return _run(meta, self, lambda: _true_div_values(self, other, meta.dtype))


@impl("div.Scalar", "CompositeExplicitAutograd")
def div_scalar(self: Tensor, other: Any) -> Tensor:
    return div_tensor(self, other)


@impl("div_.Tensor", "CPU", "Meta")
def div__tensor(self: Tensor, other: Any) -> Tensor:
    meta = _true_div_meta(self, other)
    check_inplace(self, meta.shape, meta.dtype)
    if self._data is not None:
        ignoring_fp_errors(_write, self._data, _true_div_values, self, other, meta.dtype)
    return self


@impl("div_.Scalar", "CompositeExplicitAutograd")
def div__scalar(self: Tensor, other: Any) -> Tensor:
    return div__tensor(self, other)


@impl("mul_.Scalar", "CompositeExplicitAutograd")
def mul__scalar(self: Tensor, other: Any) -> Tensor:
    return mul__tensor(self, other)


def _int_div(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    """C-style (trunc) or floor integer division; PyTorch raises on a zero divisor."""
    if np.broadcast(a, b).size and np.any(b == 0):
        raise RuntimeError("ZeroDivisionError")
    q = np.floor_divide(a, b)
    if mode == "trunc" and a.dtype.kind == "i":
        r = a - q * b
        q = q + ((r != 0) & ((a < 0) != (b < 0))).astype(q.dtype)
    return q


@impl("div.Tensor_mode", "CPU", "Meta")
def div_tensor_mode(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is None:
        return div_tensor(self, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )
    meta = binary_meta(self, other)
    dtype = meta.dtype
    like = self if isinstance(self, Tensor) else other  # (a number dividend: floor_divide's decomposition)
    _require_dtype(f"div_{rounding_mode}_cpu", dtype, like, _not_bool)

    def compute() -> Any:
        op = _opmath(dtype)
        a, b = np.asarray(np_operand(self, op)), np.asarray(np_operand(other, op))
        if not op.is_floating_point:
            return _int_div(a, b, rounding_mode)
        if rounding_mode == "trunc":
            return np.trunc(np.true_divide(a, b))
        return np.floor_divide(a, b)

    return _run(meta, like, compute)


# --- unary ----------------------------------------------------------------------------------------


def _unary_float(kernel: str, fn: Callable[[np.ndarray], Any]) -> Callable[[Tensor], Tensor]:
    """A unary op computing in floating point: integral and bool inputs give the default float dtype."""

    def unary(self: Tensor) -> Tensor:
        dtype = self._dtype
        if (dtype is _float32 or dtype is _float64) and self._contiguous and self._shape:
            # the hot case (unary_meta's first branch, no conversion): contiguous output of self's dtype
            meta = TensorMeta(self._shape, contiguous_strides(self._shape), dtype)
            if self._data is None:
                return materialize(meta, None, self)
            return materialize(meta, ignoring_fp_errors(fn, self._data), self)
        dtype = _float_result(dtype)
        meta = _converted_meta(self, dtype) if dtype is not self._dtype else unary_meta(self)
        return _run(meta, self, lambda: fn(_operand(self, dtype)))

    unary.__name__ = kernel
    unary.__doc__ = f"aten::{kernel}, computed in floating point."
    return unary


def _sigmoid(x: np.ndarray) -> Any:
    return 1 / (1 + np.exp(-x))


def _rsqrt(x: np.ndarray) -> Any:
    return 1 / np.sqrt(x)


def _reciprocal(x: np.ndarray) -> Any:
    return 1 / x


# erf: piecewise Taylor polynomials. [0, 6) is cut into intervals of width 1/4; on each, erf is its Taylor
# polynomial about the interval's centre (about 0 for the first, so that tiny arguments keep their relative
# accuracy), whose coefficients are exact: erf^(k)(c) = 2/sqrt(pi) (-1)^(k-1) H_(k-1)(c) exp(-c^2) (H the
# physicists' Hermite polynomials) and erf(c) itself from math.erf; erf(x) is 1.0 in float64 from 6 on. Degree 15
# leaves a remainder below 1e-15 relative on every interval (float64); degree 9 below 1e-9, which float32 and
# float16 results (computed in float32) cannot tell apart. One gather per coefficient and a Horner step each, where
# a power series alone needs some 60 terms near 3.
_ERF_WIDTH = 0.25
_ERF_LIMIT = 6.0


def _erf_taylor_table(degree: int, np_dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """(centres, coefficients): coefficients[k] holds the x^k coefficient about each centre; the last is erf = 1."""
    n = int(_ERF_LIMIT / _ERF_WIDTH)
    centres = [0.0] + [(i + 0.5) * _ERF_WIDTH for i in range(1, n)] + [_ERF_LIMIT]
    table = np.zeros((degree + 1, n + 1))
    for i, c in enumerate(centres[:n]):
        table[0, i] = math.erf(c)
        scale = 2.0 / math.sqrt(math.pi) * math.exp(-c * c)
        h_prev, h = 0.0, 1.0  # H_(k-2)(c), H_(k-1)(c)
        factorial = 1.0
        for k in range(1, degree + 1):
            factorial *= k
            table[k, i] = scale * (-1.0) ** (k - 1) * h / factorial
            h_prev, h = h, 2.0 * c * h - 2.0 * (k - 1) * h_prev
    table[0, n] = 1.0
    # one contiguous row per coefficient, in the dtype the polynomial is evaluated in
    return np.array(centres, dtype=np_dtype), [np.ascontiguousarray(row, dtype=np_dtype) for row in table]


_ERF_TABLES = {np.dtype(np.float64): _erf_taylor_table(15, np.float64),
               np.dtype(np.float32): _erf_taylor_table(9, np.float32)}


def _erf_piecewise(x: np.ndarray) -> np.ndarray:
    """erf of a float64 or float32 array, in its dtype (see above)."""
    centres, rows = _ERF_TABLES[x.dtype]
    limit = x.dtype.type(_ERF_LIMIT)
    ax = np.fmin(np.abs(x), limit)  # (fmin: NaN becomes the limit here, and NaN again below)
    idx = (ax * x.dtype.type(1.0 / _ERF_WIDTH)).astype(np.intp)
    t = ax - centres[idx]
    out = rows[-1][idx]
    for row in rows[-2::-1]:
        out *= t
        out += row[idx]
    out = np.copysign(out, x)
    nan = np.isnan(x)
    return np.where(nan, x, out) if nan.any() else out


def erf_numpy(x: Any) -> np.ndarray:
    """The error function in float64, accurate to a few ulps (NumPy only)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        return _erf_piecewise(x.reshape(1)).reshape(())
    return _erf_piecewise(x)


def _erf(x: np.ndarray) -> Any:
    if isinstance(x, np.ndarray) and x.dtype == np.float32 and x.ndim:
        return _erf_piecewise(x)
    res = erf_numpy(x)
    return res.astype(x.dtype) if isinstance(x, np.ndarray) else x.dtype.type(res)


exp = impl("exp", "CPU", "Meta")(_unary_float("exp", np.exp))
log = impl("log", "CPU", "Meta")(_unary_float("log", np.log))
sin = impl("sin", "CPU", "Meta")(_unary_float("sin", np.sin))
cos = impl("cos", "CPU", "Meta")(_unary_float("cos", np.cos))
tanh = impl("tanh", "CPU", "Meta")(_unary_float("tanh", np.tanh))
sigmoid = impl("sigmoid", "CPU", "Meta")(_unary_float("sigmoid", _sigmoid))
sqrt = impl("sqrt", "CPU", "Meta")(_unary_float("sqrt", np.sqrt))
rsqrt = impl("rsqrt", "CPU", "Meta")(_unary_float("rsqrt", _rsqrt))
reciprocal = impl("reciprocal", "CPU", "Meta")(_unary_float("reciprocal", _reciprocal))
erf = impl("erf", "CPU", "Meta")(_unary_float("erf", _erf))
cosh = impl("cosh", "CPU", "Meta")(_unary_float("cosh", np.cosh))
sinh = impl("sinh", "CPU", "Meta")(_unary_float("sinh", np.sinh))


@impl("neg", "CPU", "Meta")
def neg(self: Tensor) -> Tensor:
    if self._dtype is _bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return _run(unary_meta(self), self, lambda: np.negative(self._data))


@impl("abs", "CompositeExplicitAutograd")
def abs(self: Tensor) -> Tensor:  # noqa: A001 - PyTorch's name
    _require_dtype("abs_cpu", self._dtype, self, _not_bool)
    return _run(unary_meta(self), self, lambda: np.abs(self._data))


@impl("logical_not", "CompositeExplicitAutograd")
def logical_not(self: Tensor) -> Tensor:
    return _run(unary_meta(self, _bool), self, lambda: np.logical_not(self._data))


@impl("bitwise_not", "CPU", "Meta")
def bitwise_not(self: Tensor) -> Tensor:
    _require_dtype("bitwise_not_cpu", self._dtype, self, lambda d: not (d.is_floating_point or d.is_complex))
    return _run(unary_meta(self), self, lambda: np.invert(self._data))


# --- clamp / relu ---------------------------------------------------------------------------------


def _clamp_scalar_dtype(self: Tensor, *bounds: Any) -> _dt.dtype:
    """clamp's manual promotion: floating self keeps its dtype, else promote with the (number) bounds."""
    for b in bounds:
        if isinstance(b, complex):
            raise RuntimeError("clamp is not supported for complex types")
    if self._dtype.is_complex:
        raise RuntimeError("clamp is not supported for complex types")
    if self._dtype.is_floating_point:
        return self._dtype
    return _dt.result_type(self, *(b for b in bounds if b is not None))


def _clamp_values(x: Any, lo: Any, hi: Any) -> Any:
    """min(max(x, lo), hi) with NaN propagation (so lo > hi gives hi)."""
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def _bound(value: Any, dtype: _dt.dtype, op: _dt.dtype) -> Any:
    return checked_scalar(value, dtype).astype(op.np_dtype)


def _clamp_scalar(kernel: str, self: Tensor, lo: Any, hi: Any) -> Tensor:
    dtype = _clamp_scalar_dtype(self, lo, hi)
    _require_dtype(kernel, dtype, self, _not_bool)
    meta = _converted_meta(self, dtype)
    op = _opmath(dtype)

    def compute() -> Any:
        x = np_operand(self, op)
        return _clamp_values(
            x, None if lo is None else _bound(lo, dtype, op), None if hi is None else _bound(hi, dtype, op)
        )

    return _run(meta, self, compute)


@impl("clamp", "CPU", "Meta")
def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - schema names
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    kernel = "clamp_scalar_cpu" if min is not None and max is not None else (
        "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu"
    )
    return _clamp_scalar(kernel, self, min, max)


@impl("clamp_min", "CPU", "Meta")
def clamp_min(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    return _clamp_scalar("clamp_min_scalar_cpu", self, min, None)


@impl("clamp_max", "CPU", "Meta")
def clamp_max(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    return _clamp_scalar("clamp_max_scalar_cpu", self, None, max)


@impl("clamp.Tensor", "CPU", "Meta")
def clamp_tensor(self: Tensor, min: Tensor | None = None, max: Tensor | None = None) -> Tensor:  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    operands = tuple(t for t in (self, min, max) if t is not None)
    dtype = _dt.result_type(*operands)
    if dtype.is_complex:
        raise RuntimeError("clamp is not supported for complex types")
    if min is not None and max is not None:
        _require_dtype("clamp_cpu", dtype, self, _not_bool)
    meta = iter_meta(operands, dtype)
    op = _opmath(dtype)

    def compute() -> Any:
        lo = None if min is None else np_operand(min, op)
        hi = None if max is None else np_operand(max, op)
        return _clamp_values(np_operand(self, op), lo, hi)

    return _run(meta, self, compute)


def _relu_check(self: Tensor) -> None:
    if self._dtype is _bool and self._data is not None:
        raise RuntimeError("Boolean inputs not supported for relu")


@impl("relu", "CPU", "Meta")
def relu(self: Tensor) -> Tensor:
    _relu_check(self)
    return _run(unary_meta(self), self, lambda: np.maximum(self._data, self._dtype.np_dtype.type(0)))


@impl("relu_", "CPU", "Meta")
def relu_(self: Tensor) -> Tensor:
    _relu_check(self)
    if self._data is not None:
        np.maximum(self._data, self._dtype.np_dtype.type(0), out=self._data)
    return self


# --- pow ------------------------------------------------------------------------------------------


_NEG_INT_POW = "Integers to negative integer powers are not allowed."


def _int_pow(base: Any, exp: Any) -> Any:
    """Integer power as PyTorch's ``powi``: wraps on overflow; negative exponents give 1, +-1 or 0."""
    base, exp = np.asarray(base), np.asarray(exp)
    neg = exp < 0
    result = np.power(base, np.where(neg, 0, exp).astype(exp.dtype))
    if np.any(neg):
        one = base == 1
        minus_one = base == -1 if base.dtype.kind == "i" else np.zeros(base.shape, bool)
        odd = (exp % 2) != 0
        neg_value = np.where(one, 1, np.where(minus_one, np.where(odd, -1, 1), 0)).astype(result.dtype)
        result = np.where(neg, neg_value, result)
    return result


def _pow_values(base: Any, exp: Any, dtype: _dt.dtype) -> Any:
    op = _opmath(dtype)
    b, e = np_operand(base, op), np_operand(exp, op)
    if op.is_floating_point or op.is_complex:
        return np.power(b, e)
    return _int_pow(b, e)


@impl("pow.Tensor_Scalar", "CPU", "Meta")
def pow_tensor_scalar(self: Tensor, exponent: Any) -> Tensor:
    if _scalar_hot(self, exponent) and exponent != 0.5 and exponent != -0.5:
        return _scalar_result(self, exponent, np.power)  # (what _pow_values computes for these)
    dtype = _dt.result_type(self, exponent)
    if (
        _is_cpu(self)
        and not (self._dtype.is_floating_point or self._dtype.is_complex)
        and isinstance(exponent, (_pyint, _pybool))
        and exponent < 0
    ):
        raise RuntimeError(_NEG_INT_POW)
    meta = _converted_meta(self, dtype)
    if dtype in (_dt.float32, _dt.float64) and not isinstance(exponent, _pybool) and exponent in (0.5, -0.5):
        # PyTorch's float/double CPU kernel computes these as sqrt / rsqrt, which keep the sign of -0.0
        # (rsqrt(-0.) = -inf); its float16 kernel uses pow (pow(-0., -0.5) = inf)
        def root() -> Any:
            x = np_operand(self, _opmath(dtype))
            return np.sqrt(x) if exponent > 0 else np.reciprocal(np.sqrt(x))

        return _run(meta, self, root)
    return _run(meta, self, lambda: _pow_values(self, exponent, dtype))


@impl("pow.Tensor_Tensor", "CPU", "Meta")
def pow_tensor_tensor(self: Tensor, exponent: Tensor) -> Tensor:
    meta = binary_meta(self, exponent)
    _require_dtype("pow", meta.dtype, self, _not_bool)
    return _run(meta, self, lambda: _pow_values(self, exponent, meta.dtype))


@impl("pow.Scalar", "CPU", "Meta")
def pow_scalar(self: Any, exponent: Tensor) -> Tensor:
    """PyTorch's meta function always allocates a contiguous output of exponent's shape."""
    dtype = _dt.result_type(self, exponent)
    meta = TensorMeta(exponent._shape, contiguous_strides(exponent._shape), dtype)
    if self == 1 and not isinstance(self, _pybool):
        return _run(meta, exponent, lambda: np.ones(exponent._shape, _opmath(dtype).np_dtype))
    _require_dtype("pow", dtype, exponent, _not_bool)
    return _run(meta, exponent, lambda: _pow_values(self, exponent, dtype))


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


@impl("minimum", "CPU", "Meta")
def minimum(self: Tensor, other: Tensor) -> Tensor:
    return _min_max(self, other, np.minimum, np.logical_and)


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


# --- activations ----------------------------------------------------------------------------------


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_KAPPA = 0.044715


def _check_approximate(approximate: str) -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _gelu_values(x: np.ndarray, approximate: str) -> Any:
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + _GELU_KAPPA * x * x * x)
        return 0.5 * x * (1 + np.tanh(inner))
    return x * 0.5 * (1 + _erf(x * x.dtype.type(_INV_SQRT_2)))


@impl("gelu", "CPU", "Meta")
def gelu(self: Tensor, *, approximate: str = "none") -> Tensor:
    _check_approximate(approximate)
    _require_dtype("GeluKernelImpl", self._dtype, self, _is_float)
    dtype = self._dtype
    return _run(unary_meta(self), self, lambda: _gelu_values(_operand(self, dtype), approximate))


@impl("silu", "CPU", "Meta")
def silu(self: Tensor) -> Tensor:
    _require_dtype("silu_cpu", self._dtype, self, _is_float)
    dtype = self._dtype

    def compute() -> Any:
        x = _operand(self, dtype)
        return x / (1 + np.exp(-x))

    return _run(unary_meta(self), self, compute)


@impl("tanh_backward", "CPU", "Meta")
def tanh_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    meta = binary_meta(grad_output, output)
    _require_dtype("tanh_backward_cpu", meta.dtype, grad_output, _is_float)

    def compute() -> Any:
        g, y = _operand(grad_output, meta.dtype), _operand(output, meta.dtype)
        return g * (1 - y * y)

    return _run(meta, grad_output, compute)


@impl("sigmoid_backward", "CPU", "Meta")
def sigmoid_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    meta = binary_meta(grad_output, output)
    _require_dtype("sigmoid_backward_cpu", meta.dtype, grad_output, _is_float)

    def compute() -> Any:
        g, y = _operand(grad_output, meta.dtype), _operand(output, meta.dtype)
        return g * (1 - y) * y

    return _run(meta, grad_output, compute)


@impl("threshold_backward", "CPU", "Meta")
def threshold_backward(grad_output: Tensor, self: Tensor, threshold: Any) -> Tensor:
    """``self <= threshold ? 0 : grad_output`` (PyTorch's iterator takes self first, then grad_output)."""
    dtype = _dt.result_type(self, grad_output)
    meta = iter_meta((self, grad_output), dtype)
    _require_dtype("threshold_cpu", dtype, grad_output, _not_bool)

    def compute() -> Any:
        op = _opmath(dtype)
        x, g = np_operand(self, op), np_operand(grad_output, op)
        return np.where(x <= _bound(threshold, dtype, op), op.np_dtype.type(0), g)

    return _run(meta, grad_output, compute)


@impl("gelu_backward", "CPU", "Meta")
def gelu_backward(grad_output: Tensor, self: Tensor, *, approximate: str = "none") -> Tensor:
    _check_approximate(approximate)
    meta = binary_meta(grad_output, self)
    _require_dtype("GeluBackwardKernelImpl", meta.dtype, grad_output, _is_float)

    def compute() -> Any:
        g, x = _operand(grad_output, meta.dtype), _operand(self, meta.dtype)
        if approximate == "tanh":
            x_sq = x * x
            inner = _SQRT_2_OVER_PI * (x + _GELU_KAPPA * x_sq * x)
            t = np.tanh(inner)
            left = 0.5 * x
            right = 1 + t
            left_derivative = 0.5 * right
            right_derivative = left * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_KAPPA * x_sq)
            return g * (left_derivative + right_derivative)
        cdf = 0.5 * (1 + _erf(x * x.dtype.type(_INV_SQRT_2)))
        pdf = np.exp(-0.5 * x * x) * x.dtype.type(_INV_SQRT_2PI)
        return g * (cdf + x * pdf)

    return _run(meta, grad_output, compute)


# --- masked_fill ----------------------------------------------------------------------------------


_C_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def _check_mask(mask: Tensor) -> None:
    if mask._dtype is not _bool:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {_C_TYPE_NAMES[mask._dtype.name]}"
        )


def _fill_value(value: Any, dtype: _dt.dtype) -> Any:
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.dim()} dimension(s)."
            )
        return None if value._data is None else value._data[()].item()
    return value


@impl("masked_fill_.Scalar", "CPU", "Meta")
def masked_fill__scalar(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    _check_mask(mask)
    shape = broadcast_shapes(self._shape, mask._shape)
    check_inplace(self, shape, self._dtype)
    if self._data is not None and mask._data is not None:
        fill = checked_scalar(value, self._dtype)
        np.copyto(self._data, fill, where=np.broadcast_to(mask._data, shape))
    return self


def _masked_fill(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """PyTorch: expand self and mask to a common shape, clone contiguous, then fill in place."""
    _check_mask(mask)
    shape = broadcast_shapes(mask._shape, self._shape)
    fill = _fill_value(value, self._dtype)
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)

    def compute() -> Any:
        out = np.array(np.broadcast_to(self._data, shape), dtype=self._dtype.np_dtype)
        v = checked_scalar(fill, self._dtype)
        np.copyto(out, v, where=np.broadcast_to(mask._data, shape))
        return out

    return _run(meta, self, compute)


@impl("masked_fill.Scalar", "CompositeExplicitAutograd")
def masked_fill_scalar(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    return _masked_fill(self, mask, value)


@impl("masked_fill.Tensor", "CompositeExplicitAutograd")
def masked_fill_tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    return _masked_fill(self, mask, value)


# --- ops autograd formulas call: sgn, isnan, logical and/or, sub.Scalar, silu_backward, masked_fill_.Tensor ------


@impl("sgn", "CPU", "Meta")
def sgn(self: Tensor) -> Tensor:
    """The sign (-1, 0, 1; bool stays bool, NaN gives 0 as PyTorch's ``(0 < x) - (x < 0)``)."""

    def compute() -> Any:
        x = self._data
        if self._dtype is _bool:
            return x.copy()
        if self._dtype.is_complex:
            mag = np.abs(x)
            return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag))
        return (np.greater(x, 0).astype(x.dtype) - np.less(x, 0).astype(x.dtype)).astype(x.dtype)

    return _run(unary_meta(self), self, compute)


@impl("isnan", "CPU", "Meta")
def isnan(self: Tensor) -> Tensor:
    def compute() -> Any:
        if self._dtype.is_floating_point or self._dtype.is_complex:
            return np.isnan(self._data)
        return np.zeros(self._shape, np.bool_)

    return _run(unary_meta(self, _bool), self, compute)


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


@impl("sub.Scalar", "CompositeExplicitAutograd")
def sub_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return sub_tensor(self, other, alpha=alpha)


@impl("silu_backward", "CPU", "Meta")
def silu_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """``grad * sigmoid(x) * (1 + x * (1 - sigmoid(x)))``."""
    meta = binary_meta(grad_output, self)
    _require_dtype("silu_backward_cpu", meta.dtype, grad_output, _is_float)

    def compute() -> Any:
        g, x = _operand(grad_output, meta.dtype), _operand(self, meta.dtype)
        s = 1 / (1 + np.exp(-x))
        return g * s * (1 + x * (1 - s))

    return _run(meta, grad_output, compute)


@impl("masked_fill_.Tensor", "CPU", "Meta")
def masked_fill__tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    """Fill with a 0-dim tensor's value (PyTorch reads it with ``item()``, then fills as the Scalar overload)."""
    _check_mask(mask)
    fill = _fill_value(value, self._dtype)
    shape = broadcast_shapes(self._shape, mask._shape)
    check_inplace(self, shape, self._dtype)
    if self._data is not None and mask._data is not None:
        np.copyto(self._data, checked_scalar(fill, self._dtype), where=np.broadcast_to(mask._data, shape))
    return self


# --- ops core-aten decompositions call: sign (for sgn), bitwise_and.Tensor (for embedding_dense_backward) --------


@impl("sign", "CPU", "Meta")
def sign(self: Tensor) -> Tensor:
    """-1, 0 or 1 in self's dtype (bool stays bool, NaN gives 0); complex inputs are refused, as PyTorch does."""
    if self._dtype.is_complex:
        raise NotImplementedError(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."
        )

    def compute() -> Any:
        x = self._data
        if self._dtype is _bool:
            return x.copy()
        return (np.greater(x, 0).astype(x.dtype) - np.less(x, 0).astype(x.dtype)).astype(x.dtype)

    return _run(unary_meta(self), self, compute)


@impl("bitwise_and.Tensor", "CPU", "Meta")
def bitwise_and_tensor(self: Tensor, other: Tensor) -> Tensor:
    """``self & other`` in the promoted dtype; only bool and integer dtypes (PyTorch's CPU kernel refuses others)."""
    meta = binary_meta(self, other)
    _require_dtype("bitwise_and_cpu", meta.dtype, self, lambda d: not (d.is_floating_point or d.is_complex))
    return _run(meta, self, lambda: np.bitwise_and(np_operand(self, meta.dtype), np_operand(other, meta.dtype)))
