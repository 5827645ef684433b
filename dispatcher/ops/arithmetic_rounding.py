"""Rounding kernels and the rounding divisions: ``floor`` / ``ceil`` / ``round`` / ``trunc`` / ``fix`` / ``frac``,
``floor_divide``, ``fmod``, ``remainder`` (and their in-place forms).

Corresponds to aten/src/ATen/native/UnaryOps.cpp (rounding: integral inputs are copied unchanged, bool is refused
on CPU, floats round in their dtype; ``round`` rounds half to even, as nearbyint) and BinaryOps.cpp
(``floor_divide`` is ``div(..., rounding_mode='floor')``'s kernel; ``fmod`` takes the dividend's sign,
``remainder`` the divisor's; integer division by zero raises on CPU). A binary in-place kernel checks, as
TensorIterator does for its output, that the broadcast result fits ``self`` before computing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import arithmetic as _arithmetic
from . import tensor_iterator as _pw
from .composite import _aten
from .kernel_registry import impl
from .meta_utils import np_operand
from .tensor_iterator import inplace_checked, inplace_from

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


@impl("fix", "CompositeImplicitAutograd")
def fix(self: Tensor) -> Tensor:
    """``trunc(self)``."""
    return _aten().trunc.default(self)


# --- fix / frac ----------------------------------------------------------------------------------------


@impl("frac", "CPU", "Meta")
def frac(self: Tensor) -> Tensor:
    """``self - trunc(self)``; floating dtypes only (CPU)."""
    _pw._require_dtype("frac_cpu", self._dtype, self, _pw._is_float)

    def compute() -> Any:
        x = _pw._operand(self, self._dtype)
        return x - np.trunc(x)

    return _pw._run(_pw.unary_meta(self), self, compute)


frac_ = impl("frac_", "CPU", "Meta")(inplace_from(frac, "frac_"))


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


# --- floor_divide, in-place fmod / remainder ------------------------------------------------------------------------------


@impl("floor_divide", "CPU", "Meta")
def floor_divide(self: Any, other: Any) -> Tensor:
    """``div(self, other, rounding_mode='floor')``'s kernel (div_floor_stub); either side may be a Python number."""
    return _arithmetic.div_tensor_mode(self, other, rounding_mode="floor")


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
