"""Pointwise kernels of the pw batch: bitwise and logical ops, shifts, floor division, in-place modulo, more math.

Corresponds to aten/src/ATen/native/BinaryOps.cpp (bitwise_*, __lshift__ / __rshift__,
floor_divide, atan2, hypot, logaddexp, xlogy, heaviside, logit_backward), UnaryOps.cpp
(tan, asin, ..., erfinv, frac, signbit, logit, nan_to_num) and their TensorIterator
CPU kernels. They reuse pointwise.py's metadata helpers, so one function is the Meta
and the CPU kernel, and follow PyTorch's kinds:

* the ``.Tensor`` overloads are structured CPU / Meta kernels; the ``.Scalar`` and
  ``.Scalar_Tensor`` overloads are CompositeExplicitAutograd kernels that wrap the
  number (``wrapped_scalar_tensor``) and compute as the ``.Tensor`` kernel does;
* a binary in-place kernel (``bitwise_or_``, ``floor_divide_``, ``fmod_`` ...) checks, as
  TensorIterator does for its output, that the broadcast result fits ``self`` (shape, and a
  dtype ``self`` can hold) before the dtype dispatch of the kernel runs;
* a floating in-place kernel (``tan_``, ``atan2_``, ``logit_`` ...) computes first and then
  refuses a floating result for an integral ``self`` (pointwise_more.inplace_from).

Shifts follow PyTorch's CPU kernels: a shift by a negative amount or by at least the
bit width gives 0 (left), or the sign fill (right: -1 for negative signed values, else 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..memory_format import strided
from ..tensor import Tensor
from . import pointwise as _pw
from .kernel_registry import impl
from .meta_utils import TensorMeta, check_inplace, np_operand, preserve_format_strides
from .misc import _check_no_internal_overlap
from .pointwise_more import _float_remainder, _modulo, _store, inplace_from

_bool = _dt.bool


def _integral(dt: _dt.dtype) -> bool:
    return not (dt.is_floating_point or dt.is_complex)


def _tensor_of(self: Any, other: Any) -> Tensor:
    """The argument that decides the output's device (a Python number stands for a wrapped 0-dim tensor)."""
    return self if isinstance(self, Tensor) else other


def _binary_int(kernel: str, fn: Callable[[Any, Any], Any], ok: Callable[[_dt.dtype], bool] = _integral
                ) -> Callable[[Any, Any], Tensor]:
    """A TensorIterator binary op computed in the promoted dtype, which ``ok`` must accept (CPU only)."""

    def op(self: Any, other: Any) -> Tensor:
        meta = _pw.binary_meta(self, other)
        like = _tensor_of(self, other)
        _pw._require_dtype(kernel, meta.dtype, like, ok)
        return _pw._run(meta, like, lambda: fn(np_operand(self, meta.dtype), np_operand(other, meta.dtype)))

    op.__name__ = kernel.removesuffix("_cpu")
    return op


def inplace_checked(kernel: Callable[[Any, Any], Tensor], name: str) -> Callable[[Tensor, Any], Tensor]:
    """``self op= other``: TensorIterator's output checks (shape, cast to self's dtype) first, then the kernel."""

    def inplace(self: Tensor, other: Any) -> Tensor:
        _check_no_internal_overlap(self)
        meta = _pw.binary_meta(self, other)
        check_inplace(self, meta.shape, meta.dtype)
        return _store(self, kernel(self, other))

    inplace.__name__ = name
    inplace.__doc__ = f"aten::{name}: the out-of-place kernel's result stored into self."
    return inplace


# --- bitwise and / or / xor -------------------------------------------------------------------------------------------

bitwise_xor_tensor = impl("bitwise_xor.Tensor", "CPU", "Meta")(_binary_int("bitwise_xor_cpu", np.bitwise_xor))
_bitwise_or = _binary_int("bitwise_or_cpu", np.bitwise_or)
_bitwise_and = _binary_int("bitwise_and_cpu", np.bitwise_and)
_BITWISE = {"and": _bitwise_and, "or": _bitwise_or, "xor": bitwise_xor_tensor}

for _kind, _fn in _BITWISE.items():
    _name = f"bitwise_{_kind}"
    # .Scalar / .Scalar_Tensor: at::bitwise_<kind>(self, wrapped_scalar_tensor(other)) and the mirror image
    impl(f"{_name}.Scalar", "CompositeExplicitAutograd")(_fn)
    impl(f"{_name}.Scalar_Tensor", "CompositeExplicitAutograd")(_fn)
    impl(f"{_name}_.Scalar", "CompositeExplicitAutograd")(inplace_checked(_fn, f"{_name}_"))
    if _kind != "and":  # bitwise_and_.Tensor is listed already (pointwise_more.py's batch)
        impl(f"{_name}_.Tensor", "CPU", "Meta")(inplace_checked(_fn, f"{_name}_"))
del _kind, _fn, _name


@impl("bitwise_not_", "CPU", "Meta")
def bitwise_not_(self: Tensor) -> Tensor:
    return _store(self, _pw.bitwise_not(self))


# --- shifts -------------------------------------------------------------------------------------------------------------


def _shift_amount(a: np.ndarray, b: Any) -> tuple[Any, Any]:
    """(out of range, the amount with out-of-range entries replaced by 0) for ``a``'s bit width."""
    bits = np.dtype(a.dtype).itemsize * 8
    b = np.asarray(b)
    bad = (b < 0) | (b >= bits)
    return bad, np.where(bad, 0, b).astype(a.dtype)


def _lshift(a: Any, b: Any) -> Any:
    a = np.asarray(a)
    bad, amount = _shift_amount(a, b)
    return np.where(bad, a.dtype.type(0), np.left_shift(a, amount)).astype(a.dtype)


def _rshift(a: Any, b: Any) -> Any:
    a = np.asarray(a)
    bad, amount = _shift_amount(a, b)
    fill = np.where(a < 0, a.dtype.type(-1), a.dtype.type(0)) if a.dtype.kind == "i" else a.dtype.type(0)
    return np.where(bad, fill, np.right_shift(a, amount)).astype(a.dtype)


def _not_bool_integral(dt: _dt.dtype) -> bool:
    return _integral(dt) and dt is not _bool


_SHIFTS = {"left": _binary_int("lshift_cpu", _lshift, _not_bool_integral),
           "right": _binary_int("rshift_cpu", _rshift, _not_bool_integral)}

for _side, _fn in _SHIFTS.items():
    _name, _dunder = f"bitwise_{_side}_shift", "__lshift__" if _side == "left" else "__rshift__"
    _inplace = inplace_checked(_fn, f"{_name}_")
    impl(f"{_name}.Tensor", "CPU", "Meta")(_fn)
    impl(f"{_name}.Tensor_Scalar", "CompositeExplicitAutograd")(_fn)
    impl(f"{_name}.Scalar_Tensor", "CompositeExplicitAutograd")(_fn)
    impl(f"{_name}_.Tensor", "CPU", "Meta")(_inplace)
    impl(f"{_name}_.Tensor_Scalar", "CompositeExplicitAutograd")(_inplace)
    # the Python operators' own ops (<<, >>, <<=, >>=): CPU / Meta kernels of their own in PyTorch
    for _overload in ("Tensor", "Scalar"):
        impl(f"{_dunder}.{_overload}", "CPU", "Meta")(_fn)
        impl(f"__i{_dunder[2:]}.{_overload}", "CPU", "Meta")(_inplace)
del _side, _fn, _name, _dunder, _inplace, _overload


# --- logical_xor --------------------------------------------------------------------------------------------------------

logical_xor, logical_xor_ = _pw._logical(np.logical_xor)
logical_xor.__name__, logical_xor_.__name__ = "logical_xor", "logical_xor_"
impl("logical_xor", "CompositeExplicitAutograd")(logical_xor)
impl("logical_xor_", "CompositeExplicitAutograd")(logical_xor_)


# --- floor_divide, in-place fmod / remainder ------------------------------------------------------------------------------


@impl("floor_divide", "CPU", "Meta")
def floor_divide(self: Any, other: Any) -> Tensor:
    """``div(self, other, rounding_mode='floor')``'s kernel (div_floor_stub); either side may be a Python number."""
    return _pw.div_tensor_mode(self, other, rounding_mode="floor")


floor_divide_scalar = impl("floor_divide.Scalar", "CompositeExplicitAutograd")(floor_divide)
floor_divide__tensor = impl("floor_divide_.Tensor", "CPU", "Meta")(inplace_checked(floor_divide, "floor_divide_"))
floor_divide__scalar = impl("floor_divide_.Scalar", "CompositeExplicitAutograd")(
    inplace_checked(floor_divide, "floor_divide_"))

_fmod = _modulo("fmod_cpu", np.fmod, np.fmod)
_remainder = _modulo("remainder_cpu", np.remainder, _float_remainder)


impl("fmod_.Tensor", "CPU", "Meta")(inplace_checked(_fmod, "fmod_"))
impl("fmod_.Scalar", "CompositeExplicitAutograd")(inplace_checked(_fmod, "fmod_"))
impl("remainder_.Tensor", "CPU", "Meta")(inplace_checked(_remainder, "remainder_"))
impl("remainder_.Scalar", "CompositeExplicitAutograd")(inplace_checked(_remainder, "remainder_"))


# --- unary math computed in floating point ---------------------------------------------------------------------------------


def _erfinv(y: Any) -> Any:
    """The inverse error function: Giles' single-precision approximation, then two Newton steps in float64."""
    dtype = np.asarray(y).dtype
    y64 = np.asarray(y, dtype=np.float64)
    w = -np.log1p(-y64 * y64)
    central = w < 5.0
    wc = np.where(central, w, 5.0) - 2.5
    p = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
              0.246640727, 1.50140941):
        p = c + p * wc
    wt = np.sqrt(np.where(central, 5.0, w)) - 3.0
    q = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
              1.00167406, 2.83297682):
        q = c + q * wt
    x = np.where(central, p, q) * y64
    for _ in range(2):  # Newton: erf(x) - y over erf'(x) = 2/sqrt(pi) exp(-x^2)
        step = (_pw.erf_numpy(x) - y64) / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
        x = np.where(np.isfinite(step), x - step, x)
    x = np.where(np.abs(y64) == 1.0, np.copysign(np.inf, y64), x)
    x = np.where(np.abs(y64) > 1.0, np.nan, x)
    return x.astype(dtype) if isinstance(y, np.ndarray) else dtype.type(x)


def _exp2(x: Any) -> Any:
    return np.exp2(x)


_FLOAT_UNARY = {"tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "log10": np.log10,
                "exp2": _exp2, "erfinv": _erfinv, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}

for _name, _fn in _FLOAT_UNARY.items():
    globals()[_name] = impl(_name, "CPU", "Meta")(_pw._unary_float(_name, _fn))
    globals()[f"{_name}_"] = impl(f"{_name}_", "CPU", "Meta")(inplace_from(globals()[_name], f"{_name}_"))
del _name, _fn
sinh_ = impl("sinh_", "CPU", "Meta")(inplace_from(_pw.sinh, "sinh_"))
cosh_ = impl("cosh_", "CPU", "Meta")(inplace_from(_pw.cosh, "cosh_"))


@impl("frac", "CPU", "Meta")
def frac(self: Tensor) -> Tensor:
    """``self - trunc(self)``; floating dtypes only (CPU)."""
    _pw._require_dtype("frac_cpu", self._dtype, self, _pw._is_float)

    def compute() -> Any:
        x = _pw._operand(self, self._dtype)
        return x - np.trunc(x)

    return _pw._run(_pw.unary_meta(self), self, compute)


frac_ = impl("frac_", "CPU", "Meta")(inplace_from(frac, "frac_"))


@impl("signbit", "CPU", "Meta")
def signbit(self: Tensor) -> Tensor:
    """Bool: the sign bit of floats (``-0.0`` and ``-nan`` too), ``x < 0`` for integers."""

    def compute() -> Any:
        x = self._data
        if self._dtype.is_floating_point:
            return np.signbit(x)
        return np.less(x, 0) if x.dtype.kind == "i" else np.zeros(x.shape, dtype=np.bool_)

    return _pw._run(_pw.unary_meta(self, _bool), self, compute)


def _logit_values(x: Any, eps: float | None) -> Any:
    if eps is not None and eps >= 0:
        x = np.clip(x, x.dtype.type(eps), x.dtype.type(1 - eps))
    return np.log(x / (1 - x))


@impl("logit", "CPU", "Meta")
def logit(self: Tensor, eps: float | None = None) -> Tensor:
    """``log(z / (1 - z))`` with ``z`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given and not negative."""
    dtype = _pw._float_result(self._dtype)
    meta = _pw._converted_meta(self, dtype)
    return _pw._run(meta, self, lambda: _logit_values(_pw._operand(self, dtype), eps))


logit_ = impl("logit_", "CPU", "Meta")(inplace_from(logit, "logit_"))


@impl("logit_backward", "CPU", "Meta")
def logit_backward(grad_output: Tensor, self: Tensor, eps: float | None = None) -> Tensor:
    """``grad / (x (1 - x))`` inside the domain (``[0, 1]``, or ``[eps, 1 - eps]``), else NaN (no eps) or 0."""
    meta = _pw.binary_meta(grad_output, self)
    _pw._require_dtype("logit_backward_cpu", meta.dtype, grad_output, _pw._is_float)

    def compute() -> Any:
        g, x = _pw._operand(grad_output, meta.dtype), _pw._operand(self, meta.dtype)
        if eps is None or eps < 0:
            lo, hi, outside = 0.0, 1.0, np.nan
        else:
            lo, hi, outside = eps, 1.0 - eps, 0.0
        inside = (x >= lo) & (x <= hi)
        return np.where(inside, g / (x * (1 - x)), outside)

    return _pw._run(meta, grad_output, compute)


@impl("nan_to_num", "CompositeExplicitAutograd")
def nan_to_num(self: Tensor, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """NaN -> ``nan`` (0), +inf -> ``posinf`` (the dtype's max), -inf -> ``neginf`` (its lowest); integers copied."""
    meta = TensorMeta(self._shape, preserve_format_strides(self), self._dtype)  # at::empty_like(self) / clone
    if not self._dtype.is_floating_point:
        return _pw._run(meta, self, lambda: np.array(self._data, copy=True))

    def compute() -> Any:
        x = self._data
        info = np.finfo(x.dtype)
        big = info.max if posinf is None else posinf
        small = info.min if neginf is None else neginf
        out = np.where(np.isnan(x), x.dtype.type(0.0 if nan is None else nan), x)
        out = np.where(np.isposinf(x), x.dtype.type(big), out)
        return np.where(np.isneginf(x), x.dtype.type(small), out)

    return _pw._run(meta, self, compute)


@impl("nan_to_num_", "CompositeExplicitAutograd")
def nan_to_num_(self: Tensor, nan: float | None = None, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:
    return _store(self, nan_to_num(self, nan, posinf, neginf))


# --- binary math ------------------------------------------------------------------------------------------------------


def _binary_float(kernel: str, fn: Callable[[Any, Any], Any], int_to_float: bool) -> Callable[[Any, Any], Tensor]:
    """A binary op in floating point: integral inputs promote to the default float (``int_to_float``), or are
    refused by the CPU kernel."""

    def op(self: Any, other: Any) -> Tensor:
        common = _dt.result_type(self, other)
        dtype = _pw._float_result(common) if int_to_float else common
        meta = _pw.binary_meta(self, other, dtype, dtype)
        like = _tensor_of(self, other)
        if not int_to_float:
            _pw._require_dtype(kernel, dtype, like, _pw._is_float)
        return _pw._run(meta, like, lambda: fn(_pw._operand(self, dtype), _pw._operand(other, dtype)))

    op.__name__ = kernel.removesuffix("_cpu")
    return op


def _xlogy_values(x: Any, y: Any) -> Any:
    out = np.where(x == 0, x.dtype.type(0) if hasattr(x, "dtype") else 0.0, x * np.log(y))
    return np.where(np.isnan(y), y, out)


atan2 = impl("atan2", "CPU", "Meta")(_binary_float("atan2_cpu", np.arctan2, True))
hypot = impl("hypot", "CPU", "Meta")(_binary_float("hypot_cpu", np.hypot, False))
logaddexp = impl("logaddexp", "CPU", "Meta")(_binary_float("logaddexp_cpu", np.logaddexp, False))
xlogy_tensor = impl("xlogy.Tensor", "CPU", "Meta")(_binary_float("xlogy_cpu", _xlogy_values, True))
impl("xlogy.Scalar_Self", "CompositeExplicitAutograd")(xlogy_tensor)
impl("xlogy.Scalar_Other", "CompositeExplicitAutograd")(xlogy_tensor)
atan2_ = impl("atan2_", "CPU", "Meta")(inplace_from(atan2, "atan2_"))
hypot_ = impl("hypot_", "CPU", "Meta")(inplace_from(hypot, "hypot_"))
impl("xlogy_.Tensor", "CPU", "Meta")(inplace_from(xlogy_tensor, "xlogy_"))
impl("xlogy_.Scalar_Other", "CompositeExplicitAutograd")(inplace_from(xlogy_tensor, "xlogy_"))


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


# --- CompositeImplicitAutograd: positive, the arctan aliases ---------------------------------------------------------------


def _aten() -> Any:
    from ..op_overload import namespace

    return namespace("aten")


@impl("positive", "CompositeImplicitAutograd")
def positive(self: Tensor) -> Tensor:
    """``self`` itself (no op); bool tensors are refused."""
    if self._dtype is _bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


@impl("arctan", "CompositeImplicitAutograd")
def arctan(self: Tensor) -> Tensor:
    return _aten().atan.default(self)


@impl("arctan2", "CompositeImplicitAutograd")
def arctan2(self: Tensor, other: Tensor) -> Tensor:
    return _aten().atan2.default(self, other)



def _dunder(kind: str, inplace: bool, overload: str) -> Callable[[Tensor, Any], Tensor]:
    """``__and__`` & co. (what Python's ``&``, ``|``, ``^`` and ``&=`` ... call): ``at::bitwise_<kind>(self, other)``
    or ``self.bitwise_<kind>_(other)``."""
    op_name = f"bitwise_{kind}_" if inplace else f"bitwise_{kind}"

    def dunder(self: Tensor, other: Any) -> Tensor:
        return getattr(getattr(_aten(), op_name), overload)(self, other)

    dunder.__name__ = f"__{'i' if inplace else ''}{kind}__"
    return dunder


for _kind in ("and", "or", "xor"):
    for _overload in ("Scalar", "Tensor"):
        impl(f"__{_kind}__.{_overload}", "CompositeImplicitAutograd")(_dunder(_kind, False, _overload))
        impl(f"__i{_kind}__.{_overload}", "CompositeImplicitAutograd")(_dunder(_kind, True, _overload))
del _kind, _overload


# --- small tensor functions: trace, broadcast_to, reshape_as --------------------------------------------------------------


@impl("trace", "CPU", "Meta")
def trace(self: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix, accumulated as ``sum`` does (integral and bool -> int64; bool
    refused by the CPU kernel)."""
    if len(self._shape) != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {len(self._shape)}")
    dtype = _dt.int64 if _integral(self._dtype) else self._dtype
    if self._data is not None and self._dtype is _bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")

    def compute() -> Any:
        x = _pw._operand(self, dtype) if self._dtype.is_floating_point else self._data.astype(np.int64)
        return np.asarray(np.trace(x)).astype(dtype.np_dtype)

    return _pw._run(TensorMeta((), (), dtype), self, compute)


@impl("trace_backward", "CompositeImplicitAutograd")
def trace_backward(grad: Tensor, sizes: list[int]) -> Tensor:
    """``zeros(rows * cols)``, the gradient written at every ``cols + 1``-th element (``index_fill``), viewed as
    ``sizes``."""
    aten = _aten()
    rows, cols = sizes
    options = {"dtype": grad._dtype, "layout": strided, "device": grad._device}
    grad_input = aten.zeros.default([rows * cols], **options)
    indices = aten.arange.start_step(0, min(rows, cols) * (cols + 1), cols + 1, dtype=_dt.int64, layout=strided,
                                     device=grad._device)
    return aten.view.default(aten.index_fill.int_Tensor(grad_input, 0, indices, grad), list(sizes))


@impl("broadcast_to", "CompositeImplicitAutograd")
def broadcast_to(self: Tensor, size: list[int]) -> Tensor:
    return _aten().expand.default(self, list(size))


@impl("reshape_as", "CompositeImplicitAutograd")
def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return _aten().reshape.default(self, list(other._shape))
