"""Transcendental kernels: exp / log families, trigonometric and hyperbolic functions, ``sqrt`` / ``rsqrt``,
``sigmoid``, ``erf`` / ``erfinv``, ``logit``, the binary ``atan2`` / ``hypot`` / ``logaddexp`` / ``xlogy``, the
backward ops ``tanh_backward`` / ``sigmoid_backward`` / ``logit_backward``, and their in-place forms.

Corresponds to aten/src/ATen/native/UnaryOps.cpp, BinaryOps.cpp and their TensorIterator CPU kernels
(native/cpu/UnaryOpsKernel.cpp, BinaryOpsKernel.cpp). These ops compute in floating point: integral and bool
inputs give the default float dtype (``tensor_iterator._unary_float``), except ``hypot`` / ``logaddexp``, whose
CPU kernels refuse integral inputs. An in-place kernel (``exp_``, ``atan2_`` ...) computes first and then
refuses a floating result for an integral ``self`` ("result type Float can't be cast to the desired output type
Long"). ``erf`` uses piecewise Taylor polynomials (``erf_numpy``, also what the NumPy backend of the compiler
calls); ``arctan`` / ``arctan2`` are CompositeImplicitAutograd aliases of ``atan`` / ``atan2``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from . import tensor_iterator as _pw
from .composite import _aten
from .kernel_registry import impl
from .tensor_iterator import (
    _is_float,
    _operand,
    _require_dtype,
    _run,
    _tensor_of,
    _unary_float,
    binary_meta,
    inplace_from,
)


def _sigmoid(x: np.ndarray) -> Any:
    return 1 / (1 + np.exp(-x))


def _rsqrt(x: np.ndarray) -> Any:
    return 1 / np.sqrt(x)


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

erf = impl("erf", "CPU", "Meta")(_unary_float("erf", _erf))
cosh = impl("cosh", "CPU", "Meta")(_unary_float("cosh", np.cosh))
sinh = impl("sinh", "CPU", "Meta")(_unary_float("sinh", np.sinh))


# --- in-place unary ops ---------------------------------------------------------------------------

for _name in ("exp", "log", "sigmoid", "tanh", "sqrt", "sin", "cos"):
    globals()[f"{_name}_"] = impl(f"{_name}_", "CPU", "Meta")(inplace_from(globals()[_name], f"{_name}_"))
del _name


# --- logarithms and exponentials computed in floating point ---------------------------------------------------------

log1p = impl("log1p", "CPU", "Meta")(_pw._unary_float("log1p", np.log1p))
expm1 = impl("expm1", "CPU", "Meta")(_pw._unary_float("expm1", np.expm1))
log2 = impl("log2", "CPU", "Meta")(_pw._unary_float("log2", np.log2))


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
        step = (erf_numpy(x) - y64) / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
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
sinh_ = impl("sinh_", "CPU", "Meta")(inplace_from(sinh, "sinh_"))
cosh_ = impl("cosh_", "CPU", "Meta")(inplace_from(cosh, "cosh_"))


# --- logit ---------------------------------------------------------------------------------------------


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


# --- tanh_backward / sigmoid_backward ------------------------------------------------------------------


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


# --- arctan / arctan2 (CompositeImplicitAutograd aliases) ----------------------------------------------


@impl("arctan", "CompositeImplicitAutograd")
def arctan(self: Tensor) -> Tensor:
    return _aten().atan.default(self)


@impl("arctan2", "CompositeImplicitAutograd")
def arctan2(self: Tensor, other: Tensor) -> Tensor:
    return _aten().atan2.default(self, other)
