"""More pointwise kernels: in-place unary ops, rounding and logarithm variants, fmod / remainder, addcmul / addcdiv.

Corresponds to the same ATen files as pointwise.py (UnaryOps.cpp, BinaryOps.cpp,
TensorCompare.cpp, PointwiseOps.cpp). These ops were added after pointwise.py
and reuse its metadata helpers: one function is the Meta and the CPU kernel.

An in-place unary kernel (``exp_``, ``clamp_`` ...) runs the out-of-place kernel,
then checks that its result fits ``self`` as TensorIterator does for an output
argument (same shape, a dtype ``self`` can hold: ``exp_`` of an int64 tensor
refuses "result type Float can't be cast to the desired output type Long"),
then stores it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..memory_format import preserve_format
from ..tensor import Tensor
from . import factories as _factories
from . import pointwise as _pw
from .fp_errors import ignoring_fp_errors
from .kernel_registry import impl
from .meta_utils import broadcast_shapes, can_cast, check_inplace, checked_scalar, np_operand
from .misc import _check_no_internal_overlap


def _copy_unsafe(dst: np.ndarray, src: np.ndarray) -> None:
    np.copyto(dst, src, casting="unsafe")


def _store(self: Tensor, result: Tensor) -> Tensor:
    """Write ``result`` (an out-of-place kernel's output) into ``self``: TensorIterator's output checks first."""
    _check_no_internal_overlap(self)
    check_inplace(self, result._shape, result._dtype)
    if self._data is not None and result._data is not None:
        ignoring_fp_errors(_copy_unsafe, self._data, result._data)
    return self


def inplace_from(kernel: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    """The in-place kernel ``name`` computing with the out-of-place ``kernel``."""

    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _store(self, kernel(self, *args, **kwargs))

    inplace.__name__ = name
    inplace.__doc__ = f"aten::{name}: the out-of-place kernel's result stored into self."
    return inplace


# --- in-place unary ops ---------------------------------------------------------------------------

for _name in ("exp", "log", "sigmoid", "tanh", "sqrt", "neg", "sin", "cos"):
    globals()[f"{_name}_"] = impl(f"{_name}_", "CPU", "Meta")(inplace_from(getattr(_pw, _name), f"{_name}_"))
del _name

abs_ = impl("abs_", "CompositeExplicitAutograd")(inplace_from(_pw.abs, "abs_"))


@impl("clamp_", "CPU", "Meta")
def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - schema names
    """clamp's meta function checks the cast itself, naming self's dtype as C++ does ("long int")."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dtype = _pw._clamp_scalar_dtype(self, min, max)
    if dtype is not self._dtype and not can_cast(dtype, self._dtype):
        raise RuntimeError(f"result type {_pw.scalar_type_name(dtype)} can't be cast to the desired output type "
                           f"{_pw._C_TYPE_NAMES[self._dtype.name]}")
    return _store(self, _pw.clamp(self, min, max))

clamp__tensor = impl("clamp_.Tensor", "CPU", "Meta")(inplace_from(_pw.clamp_tensor, "clamp_"))


# --- rounding: integral inputs are copied unchanged, bool is refused (CPU), floats round in their dtype ------------


def _rounding(name: str, fn: Callable[[np.ndarray], Any]) -> Callable[[Tensor], Tensor]:
    def rounding(self: Tensor) -> Tensor:
        dtype = self._dtype
        if dtype.is_complex:
            raise NotImplementedError(f"{name} is not supported for complex inputs")
        _pw._require_dtype(f"{name}_vml_cpu", dtype, self, _pw._not_bool)
        if not dtype.is_floating_point:
            return _pw._run(_pw.unary_meta(self), self, lambda: np.array(self._data, copy=True))
        return _pw._run(_pw.unary_meta(self), self, lambda: fn(_pw._operand(self, dtype)))

    rounding.__name__ = name
    rounding.__doc__ = f"aten::{name}: floats rounded in their dtype, integers copied."
    return rounding


floor = impl("floor", "CPU", "Meta")(_rounding("floor", np.floor))
ceil = impl("ceil", "CPU", "Meta")(_rounding("ceil", np.ceil))
round = impl("round", "CPU", "Meta")(_rounding("round", np.round))  # noqa: A001 - half to even, as nearbyint
trunc = impl("trunc", "CPU", "Meta")(_rounding("trunc", np.trunc))



@impl("round.decimals", "CPU", "Meta")
def round_decimals(self: Tensor, *, decimals: int) -> Tensor:
    """Round half to even at ``10**-decimals``: ``nearbyint(x * 10**d) / 10**d`` (d < 0: divide, then multiply)."""
    dtype = self._dtype
    _pw._require_dtype("round_cpu", dtype, self, _pw._is_float)

    def compute() -> Any:
        x = _pw._operand(self, dtype)
        scale = x.dtype.type(10.0 ** abs(decimals))
        if decimals < 0:
            return np.round(x / scale) * scale
        return np.round(x * scale) / scale

    return _pw._run(_pw.unary_meta(self), self, compute)

# --- logarithms and exponentials computed in floating point ---------------------------------------------------------

log1p = impl("log1p", "CPU", "Meta")(_pw._unary_float("log1p", np.log1p))
expm1 = impl("expm1", "CPU", "Meta")(_pw._unary_float("expm1", np.expm1))
log2 = impl("log2", "CPU", "Meta")(_pw._unary_float("log2", np.log2))


@impl("isinf", "CompositeExplicitAutograd")
def isinf(self: Tensor) -> Tensor:
    """PyTorch's kernel: ``abs(self) == inf`` for floating selves (the two ops decide the layout), else
    ``zeros_like(self, dtype=bool)`` (preserve format)."""
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        out = _factories.zeros_like(self, dtype=_pw._bool, memory_format=preserve_format)
        if out._data is not None:
            out._data[...] = False
        return out
    absolute = _pw.abs(self)
    return _pw.eq(absolute, math.inf) if self._data is None else _pw._run(
        _pw.binary_meta(absolute, math.inf, _pw._bool), self, lambda: np.isinf(self._data))


# --- CompositeImplicitAutograd: square, isfinite ----------------------------------------------------------------------


def _aten() -> Any:
    from ..op_overload import namespace

    return namespace("aten")


@impl("square", "CompositeImplicitAutograd")
def square(self: Tensor) -> Tensor:
    """``pow(self, 2)`` (bool and integer selves give int64 / their dtype, as pow's promotion does)."""
    return _aten().pow.Tensor_Scalar(self, 2)


@impl("isfinite", "CompositeImplicitAutograd")
def isfinite(self: Tensor) -> Tensor:
    """Integral selves: ``ones_like(self, dtype=bool)``; floating: ``(self == self) * (self.abs() != inf)``
    (C++ evaluates the right operand first, so abs and ne run before eq)."""
    aten = _aten()
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        return aten.ones_like.default(self, dtype=_pw._bool, memory_format=preserve_format)
    finite_abs = aten.ne.Scalar(aten.abs.default(self), math.inf)
    return aten.mul.Tensor(aten.eq.Tensor(self, self), finite_abs)


@impl("fix", "CompositeImplicitAutograd")
def fix(self: Tensor) -> Tensor:
    """``trunc(self)``."""
    return _aten().trunc.default(self)


# --- clamp_min / clamp_max with a Tensor bound ------------------------------------------------------------------------


@impl("clamp_min.Tensor", "CPU", "Meta")
def clamp_min_tensor(self: Tensor, min: Tensor) -> Tensor:  # noqa: A002 - schema names
    return _pw.clamp_tensor(self, min, None)


@impl("clamp_max.Tensor", "CPU", "Meta")
def clamp_max_tensor(self: Tensor, max: Tensor) -> Tensor:  # noqa: A002
    return _pw.clamp_tensor(self, None, max)


# --- fmod / remainder -------------------------------------------------------------------------------------------------


def _float_fmod(a: np.ndarray, b: np.ndarray) -> Any:
    return np.fmod(a, b)


def _float_remainder(a: np.ndarray, b: np.ndarray) -> Any:
    """PyTorch's floating remainder: fmod, moved by one divisor when its sign differs from the divisor's."""
    mod = np.fmod(a, b)
    fix = (mod != 0) & ((b < 0) != (mod < 0))
    return np.where(fix, mod + b, mod)


def _modulo(kernel: str, int_fn: Callable[..., Any], float_fn: Callable[..., Any]) -> Callable[..., Tensor]:
    def modulo(self: Any, other: Any) -> Tensor:
        meta = _pw.binary_meta(self, other)
        dtype = meta.dtype
        like = self if isinstance(self, Tensor) else other
        _pw._require_dtype(kernel, dtype, like, _pw._not_bool)

        def compute() -> Any:
            op = _pw._opmath(dtype)
            a, b = np.asarray(np_operand(self, op)), np.asarray(np_operand(other, op))
            if op.is_floating_point:
                return float_fn(a, b)
            if np.broadcast(a, b).size and np.any(b == 0):
                raise RuntimeError("ZeroDivisionError")
            return int_fn(a, b)

        return _pw._run(meta, like, compute)

    modulo.__name__ = kernel.removesuffix("_cpu")
    return modulo


fmod_tensor = impl("fmod.Tensor", "CPU", "Meta")(_modulo("fmod_cpu", np.fmod, _float_fmod))
fmod_scalar = impl("fmod.Scalar", "CompositeExplicitAutograd")(_modulo("fmod_cpu", np.fmod, _float_fmod))
remainder_tensor = impl("remainder.Tensor", "CPU", "Meta")(_modulo("remainder_cpu", np.remainder, _float_remainder))
remainder_scalar = impl("remainder.Scalar", "CompositeExplicitAutograd")(
    _modulo("remainder_cpu", np.remainder, _float_remainder))


@impl("remainder.Scalar_Tensor", "CPU", "Meta")
def remainder_scalar_tensor(self: Any, other: Tensor) -> Tensor:
    """``remainder(wrapped_scalar_tensor(self), other)``."""
    return remainder_tensor(self, other)


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


@impl("bitwise_or.Tensor", "CPU", "Meta")
def bitwise_or_tensor(self: Tensor, other: Tensor) -> Tensor:
    """``self | other`` in the promoted dtype; bool and integer dtypes only (PyTorch's CPU kernel refuses others)."""
    meta = _pw.binary_meta(self, other)
    _pw._require_dtype("bitwise_or_cpu", meta.dtype, self, lambda d: not (d.is_floating_point or d.is_complex))
    return _pw._run(meta, self, lambda: np.bitwise_or(np_operand(self, meta.dtype), np_operand(other, meta.dtype)))
