"""Arithmetic kernels: ``add`` / ``sub`` / ``mul`` / ``div``, ``neg``, ``abs``, ``sign`` / ``sgn``, ``reciprocal``,
``pow``, ``square``, ``positive``, ``addcmul`` / ``addcdiv`` (and ``_``), ``lerp``, and their in-place and ``.Scalar`` forms.

Corresponds to aten/src/ATen/native/BinaryOps.cpp, UnaryOps.cpp, Pow.cpp, PointwiseOps.cpp, Lerp.cpp and their
TensorIterator CPU kernels (native/cpu/BinaryOpsKernel.cpp, LerpKernel.cpp, ...). Every kernel computes its
output's metadata the way TensorIterator does (tensor_iterator.py), so one function serves as the Meta and the CPU
kernel; NumPy computes in the result dtype, or in float32 for float16 results, then rounds once, as PyTorch's CPU
kernels do. Checks PyTorch's meta functions make raise on every device; checks its CPU kernels make (unsupported
dtypes, integer division by zero, negative integer powers) raise only on CPU.

The ``.Scalar`` overloads are CompositeExplicitAutograd calls of the ``.Tensor`` kernels with the wrapped number;
``square`` / ``positive`` are CompositeImplicitAutograd (``pow`` / no op). ``lerp`` computes as the CPU kernel
does (``end - (end - self) * (1 - weight)`` where ``|weight| >= 0.5``) and does not promote types. The rest of the
family: clamping in arithmetic_clamp.py, rounding and the rounding divisions in arithmetic_rounding.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from ..zero_tensor import ZERO_BIT
from . import tensor_iterator as _pw
from .composite import _aten, _op
from .fp_errors import ignoring_fp_errors
from .kernel_registry import impl
from .meta_utils import TensorMeta, broadcast_shapes, check_inplace, checked_scalar, materialize, np_operand
from .tensor_iterator import (
    _bool,
    _converted_meta,
    _float16,
    _float32,
    _float64,
    _float_result,
    _is_cpu,
    _not_bool,
    _opmath,
    _pybool,
    _pyfloat,
    _pyint,
    _require_dtype,
    _run,
    _store,
    _unary_float,
    _write,
    binary_meta,
    inplace_from,
    unary_meta,
)

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
            return Tensor._wrap_contiguous(ignoring_fp_errors(np.add, self._data, other._data), self._dtype)
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
        return Tensor._wrap_contiguous(ignoring_fp_errors(np.multiply, self._data, other._data), self._dtype)
    if _scalar_hot(self, other):
        return _scalar_result(self, other, np.multiply)
    meta = binary_meta(self, other)
    return _run(meta, self, lambda: _mul_values(self, other, meta.dtype))


@impl("mul.Scalar", "CompositeExplicitAutograd")
def mul_scalar(self: Tensor, other: Any) -> Tensor:
    if self._key_set & ZERO_BIT:  # at::mul(self, wrapped scalar): a zero tensor reaches mul.Tensor's ZeroTensor kernel
        return _op("mul.Tensor")(self, other)
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


# --- reciprocal / neg / abs ----------------------------------------------------------------------------


def _reciprocal(x: np.ndarray) -> Any:
    return 1 / x


reciprocal = impl("reciprocal", "CPU", "Meta")(_unary_float("reciprocal", _reciprocal))


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
    # a complex tensor's magnitude is real (toRealValueType), as torch's abs
    real = self._dtype.to_real() if self._dtype.is_complex else None
    return _run(unary_meta(self, real), self, lambda: np.abs(self._data))


# --- sgn / sign -----------------------------------------------------------------------------------


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


# --- sub.Scalar ----------------------------------------------------------------------------------------


@impl("sub.Scalar", "CompositeExplicitAutograd")
def sub_scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return sub_tensor(self, other, alpha=alpha)


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


# --- in-place forms, square, positive ------------------------------------------------------------------


neg_ = impl("neg_", "CPU", "Meta")(inplace_from(neg, "neg_"))
_abs_inplace = inplace_from(abs, "abs_")


@impl("abs_", "CompositeExplicitAutograd")
def abs_(self: Tensor) -> Tensor:
    if self._dtype.is_complex:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return _abs_inplace(self)


@impl("add_.Scalar", "CompositeExplicitAutograd")
def add__scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    """``add_.Tensor`` with the wrapped number."""
    return add__tensor(self, other, alpha=alpha)


@impl("square", "CompositeImplicitAutograd")
def square(self: Tensor) -> Tensor:
    """``pow(self, 2)`` (bool and integer selves give int64 / their dtype, as pow's promotion does)."""
    return _aten().pow.Tensor_Scalar(self, 2)


@impl("positive", "CompositeImplicitAutograd")
def positive(self: Tensor) -> Tensor:
    """``self`` itself (no op); bool tensors are refused."""
    if self._dtype is _bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


pow__scalar = impl("pow_.Scalar", "CPU", "Meta")(inplace_from(pow_tensor_scalar, "pow_"))


# --- addcmul / addcdiv -------------------------------------------------------------------------------------------------


def _checked_value(value: Any, dtype: Any) -> Any:
    """``value.to<scalar_t>()``: a complex value with an imaginary part does not fit a real dtype."""
    if isinstance(value, complex) and not dtype.is_complex and value.imag != 0:
        raise RuntimeError(f"value cannot be converted to type {_pw._C_TYPE_NAMES[dtype.name]} without overflow")
    return checked_scalar(value, dtype)


_ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes."
)


def _addc(kernel: str, self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any, divide: bool) -> Tensor:
    if divide and not (tensor1._dtype.is_floating_point or tensor1._dtype.is_complex) and not (
            tensor2._dtype.is_floating_point or tensor2._dtype.is_complex):
        raise RuntimeError(_ADDCDIV_INTEGER)
    dtype = _dt.result_type(self, tensor1, tensor2)
    broadcast_shapes(broadcast_shapes(self._shape, tensor1._shape), tensor2._shape)  # TensorIterator's order
    meta = _pw.iter_meta((self, tensor1, tensor2), dtype)
    _pw._require_dtype(kernel, dtype, self, _pw._not_bool)
    v = _checked_value(value, dtype) if self._data is not None else None

    def compute() -> Any:
        op = _pw._opmath(dtype)
        a, b, c = np_operand(self, op), np_operand(tensor1, op), np_operand(tensor2, op)
        scale = np.asarray(v).astype(op.np_dtype)[()]
        return a + scale * b / c if divide else a + scale * b * c

    return _pw._run(meta, self, compute)


@impl("addcmul", "CPU", "Meta")
def addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    return _addc("addcmul_cpu_out", self, tensor1, tensor2, value, divide=False)


@impl("addcdiv", "CPU", "Meta")
def addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    return _addc("addcdiv_cpu_out", self, tensor1, tensor2, value, divide=True)


@impl("addcmul_", "CPU", "Meta")
def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``self += value * tensor1 * tensor2`` (the structured kernel's out is ``self``: no broadcasting of self)."""
    return _store(self, addcmul(self, tensor1, tensor2, value=value))


@impl("addcdiv_", "CPU", "Meta")
def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``self += value * tensor1 / tensor2``."""
    return _store(self, addcdiv(self, tensor1, tensor2, value=value))


# --- lerp (Lerp.cpp): no type promotion ----------------------------------------------------------------


def _c_name(dt: _dt.dtype) -> str:
    """dtype as ``c10::toString(ScalarType)`` lower-cased in lerp's messages ("float", "double", "long")."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "bool": "bool", "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int"}.get(dt.name, dt.name)


def _lerp_values(start: Any, end: Any, weight: Any) -> Any:
    with np.errstate(all="ignore"):
        diff = end - start
        return np.where(np.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


def _lerp(kernel: str, self: Tensor, end: Tensor, weight: Any) -> Tensor:
    if end._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {_c_name(self._dtype)} for `end` but got dtype {_c_name(end._dtype)}")
    operands: tuple[Any, ...] = (self, end)
    if isinstance(weight, Tensor):
        if weight._dtype is not self._dtype:
            raise RuntimeError(
                f"expected dtype {_c_name(self._dtype)} for `weight` but got dtype {_c_name(weight._dtype)}")
        operands = (self, end, weight)
    meta = _pw.iter_meta(operands, self._dtype)
    _pw._require_dtype(kernel, self._dtype, self, lambda d: d.is_floating_point or d.is_complex)

    def compute() -> Any:
        dt = self._dtype
        w = _pw._operand(weight, dt) if isinstance(weight, Tensor) else dt.np_dtype.type(weight)
        return _lerp_values(_pw._operand(self, dt), _pw._operand(end, dt), w)

    return _pw._run(meta, self, compute)


@impl("lerp.Scalar", "CPU", "Meta")
def lerp_scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return _lerp("lerp_kernel_scalar", self, end, weight)


@impl("lerp.Tensor", "CPU", "Meta")
def lerp_tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    return _lerp("lerp_kernel_tensor", self, end, weight)


@impl("lerp_.Scalar", "CPU", "Meta")
def lerp__scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return _store(self, lerp_scalar(self, end, weight))


@impl("lerp_.Tensor", "CPU", "Meta")
def lerp__tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    return _store(self, lerp_tensor(self, end, weight))
