"""Core-ATen decompositions of the ops_a batch (addcmul, addcdiv, clamp_min / clamp_max with a Tensor bound,
activations and losses).

Corresponds to the torch/_refs and torch/_decomp/decompositions.py entries PyTorch 2.13's
``core_aten_decompositions()`` uses for these ops; each calls the same aten ops in the same order
(tests/test_decompositions_table.py traces every sample both ways and compares).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from dispatcher import dtypes
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .decomp_core import _cast, _flat_tensors, _python_type_of, computation_dtype, pw_cast_for_opmath
from .decomp_registry import register_decomposition

aten = namespace("aten")


def _int_to_float_promotion(fn: Callable[..., Any]) -> Callable[..., Any]:
    """torch/_refs' INT_TO_FLOAT type promotion: integral results become the default float dtype; the tensors are
    converted to the computation dtype (float32 for half precision) first, the result back afterwards."""

    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        result = dtypes.result_type(*_flat_tensors(args, kwargs))
        if not (result.is_floating_point or result.is_complex):
            result = dtypes.get_default_dtype()
        compute = computation_dtype(result)
        return _cast(fn(*_cast(args, compute), **{k: _cast(v, compute) for k, v in kwargs.items()}), result)

    return inner


def _default_promotion(fn: Callable[..., Any]) -> Callable[..., Any]:
    """torch/_refs' DEFAULT type promotion (see ``_int_to_float_promotion``)."""

    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        result = dtypes.result_type(*_flat_tensors(args, kwargs))
        compute = computation_dtype(result)
        return _cast(fn(*_cast(args, compute), **{k: _cast(v, compute) for k, v in kwargs.items()}), result)

    return inner


_WEAK_ORDER = (bool, int, float, complex)


def _check_value(value: Any, self: Tensor, name: str = "value") -> None:
    """The refs' check that ``value`` fits self's (computation) dtype: bool <= int <= float <= complex."""
    python_type = _python_type_of(self._dtype)
    kind = complex if isinstance(value, complex) else float if isinstance(value, float) else (
        bool if isinstance(value, bool) else int)
    if _WEAK_ORDER.index(kind) > _WEAK_ORDER.index(python_type):
        raise ValueError(f"{name} argument of type {kind} cannot be safely cast to type {python_type}!")


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


@register_decomposition(aten.clamp_min.Tensor)
def clamp_min_tensor(self: Tensor, min: Tensor) -> Tensor:  # noqa: A002 - the schema's name
    return aten.clamp.Tensor(self, min)


@register_decomposition(aten.clamp_max.Tensor)
def clamp_max_tensor(self: Tensor, max: Tensor) -> Tensor:  # noqa: A002
    return aten.clamp.Tensor(self, None, max)


# --- activations (torch/_decomp/decompositions.py, torch/_refs/nn/functional) ---------------------------------------


@register_decomposition(aten.leaky_relu_backward)
@pw_cast_for_opmath
def leaky_relu_backward(grad_output: Tensor, self: Tensor, negative_slope: Any, self_is_result: bool) -> Tensor:
    return aten.where(self > 0, grad_output, grad_output * negative_slope)


@register_decomposition(aten.hardtanh_backward)
@pw_cast_for_opmath
def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: Any, max_val: Any) -> Tensor:
    outside = aten.bitwise_or.Tensor(self <= min_val, self >= max_val)
    return aten.where(outside, 0.0, grad_output)


@register_decomposition(aten.elu_backward)
@pw_cast_for_opmath
def elu_backward(grad_output: Tensor, alpha: Any, scale: Any, input_scale: Any, is_result: bool,
                 self_or_result: Tensor) -> Tensor:
    negcoef = alpha * scale
    poscoef = scale
    negiptcoef = input_scale
    if is_result:
        return aten.where(self_or_result <= 0, grad_output * negiptcoef * (self_or_result + negcoef),
                          grad_output * poscoef)
    return aten.where(self_or_result <= 0,
                      grad_output * negiptcoef * negcoef * aten.exp.default(self_or_result * negiptcoef),
                      grad_output * poscoef)


@register_decomposition(aten.softplus)
@_default_promotion
def softplus(self: Tensor, beta: Any = None, threshold: Any = 20) -> Tensor:
    """The ref: ``where(x * beta > threshold, x, log1p(exp(x * beta)) / beta)``, no scaling without ``beta``."""
    if beta is not None:
        _check_value(beta, self, "beta")
        scaled = self * beta
        rhs = aten.div.Tensor(aten.log1p.default(aten.exp.default(scaled)), beta)
    else:
        scaled = self
        rhs = aten.log1p.default(aten.exp.default(scaled))
    return aten.where(scaled > threshold, self, rhs)


@register_decomposition(aten.softplus_backward)
@pw_cast_for_opmath
def softplus_backward(grad_output: Tensor, self: Tensor, beta: Any, threshold: Any) -> Tensor:
    z = aten.exp.default(self * beta)
    return aten.where((self * beta) > threshold, grad_output, grad_output * z / (z + 1.0))


@register_decomposition(aten.hardswish)
@pw_cast_for_opmath
def hardswish(self: Tensor) -> Tensor:
    return self * aten.clamp.default(aten.clamp.default(self + 3, 0), None, 6) / 6


@register_decomposition(aten.hardswish_backward)
@pw_cast_for_opmath
def hardswish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    return aten.where(self <= -3, 0.0, aten.where(self < 3, grad_output * ((self / 3) + 0.5), grad_output))


# --- in-place activations: torch's ``register_inplace`` (the out-of-place op, then ``self.copy_(out)``) --------------


def _register_inplace(inplace_op: Any, outplace: Callable[..., Any]) -> None:
    @register_decomposition(inplace_op)
    def inplace(*args: Any, **kwargs: Any) -> Any:
        return args[0].copy_(outplace(*args, **kwargs))

    inplace.__name__ = inplace.__qualname__ = f"{inplace_op.name().split('::')[1].replace('.', '_')}"


_register_inplace(aten.leaky_relu_.default, aten.leaky_relu)
_register_inplace(aten.hardtanh_.default, aten.hardtanh)
_register_inplace(aten.hardswish_.default, aten.hardswish)


@_default_promotion
def _elu_ref(a: Tensor, alpha: Any = 1.0, scale: Any = 1.0, input_scale: Any = 1.0) -> Tensor:
    """torch/_refs' elu: ``where(a > 0, scale * a, (alpha * scale) * expm1(a * input_scale))``."""
    python_type = _python_type_of(a._dtype)
    for name, v in (("input_scale", input_scale), ("scale", scale), ("alpha", alpha)):
        kind = complex if isinstance(v, complex) else float if isinstance(v, float) else (
            bool if isinstance(v, bool) else int)
        if _WEAK_ORDER.index(kind) > _WEAK_ORDER.index(python_type):
            raise RuntimeError(f"{name} argument of type {kind} cannot be safely cast to type {python_type}!")
    return aten.where(a > 0, scale * a, (alpha * scale) * aten.expm1.default(a * input_scale))


@register_decomposition(aten.elu_.default)
def elu_(self: Tensor, alpha: Any = 1.0, scale: Any = 1.0, input_scale: Any = 1.0) -> Tensor:
    """torch/_refs' ``_make_inplace(elu)``: the reference computed, then copied into self."""
    return self.copy_(_elu_ref(self, alpha, scale, input_scale))


# --- losses ------------------------------------------------------------------------------------------------------------

_MEAN, _SUM = 1, 2


def _apply_loss_reduction(loss: Tensor, reduction: int) -> Tensor:
    if reduction == _MEAN:
        return aten.mean.default(loss)
    if reduction == _SUM:
        return aten.sum.default(loss)
    return loss


@register_decomposition(aten.smooth_l1_loss.default)
@pw_cast_for_opmath
def smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = _MEAN, beta: float = 1.0) -> Tensor:
    loss = aten.abs.default(self - target)
    loss = aten.where(loss < beta, 0.5 * loss**2 / beta, loss - 0.5 * beta)
    return _apply_loss_reduction(loss, reduction)


@register_decomposition(aten.smooth_l1_loss_backward.default)
@pw_cast_for_opmath
def smooth_l1_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float) -> Tensor:
    norm = 1.0 / self.numel() if reduction == _MEAN else 1.0
    x = self - target
    abs_x = aten.abs.default(x)
    norm_grad = norm * grad_output
    return aten.where(abs_x < beta, norm_grad * x / beta, norm_grad * aten.sign.default(x))


# --- log_sigmoid -------------------------------------------------------------------------------------------------------


@register_decomposition(aten.log_sigmoid_forward.default)
@pw_cast_for_opmath
def log_sigmoid_forward(self: Tensor) -> tuple[Tensor, Tensor]:
    """``(min(0, x) - log1p(z), z)`` with ``z = exp(-|x|)`` (the CPU buffer)."""
    lower = aten.minimum.default(self.new_zeros(()), self)
    z = aten.exp.default(-aten.abs.default(self))
    return lower - aten.log1p.default(z), z


@register_decomposition(aten.log_sigmoid_backward.default)
@pw_cast_for_opmath
def log_sigmoid_backward(grad_output: Tensor, self: Tensor, buffer: Tensor) -> Tensor:
    in_negative = self < 0
    max_deriv = aten.where(in_negative, 1, 0)
    sign = aten.where(in_negative, 1, -1)
    z = buffer if buffer.numel() > 0 else aten.exp.default(-aten.abs.default(self))
    return grad_output * (max_deriv - sign * (z / (1 + z)))


# --- mish ---------------------------------------------------------------------------------------------------------------


@_default_promotion
def _mish_ref(a: Tensor) -> Tensor:
    """torch/_refs' mish: ``a * tanh(softplus(a))`` (softplus through the table: decomposed again)."""
    return a * aten.tanh.default(aten.softplus.default(a))


@register_decomposition(aten.mish.default)
def mish(self: Tensor) -> Tensor:
    return _mish_ref(self)


@register_decomposition(aten.mish_.default)
def mish_(self: Tensor) -> Tensor:
    """torch/_refs' ``_make_inplace(mish)``: the reference, copied into self."""
    return self.copy_(_mish_ref(self))


@register_decomposition(aten.mish_backward.default)
@pw_cast_for_opmath
def mish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """torch/_decomp's mish_backward (math_mish_backward's formula, in the opmath dtype):
    ``grad * (t + self * sigmoid(self) * (1 - t * t))`` with ``t = tanh(softplus(self))``."""
    tanh_softplus = aten.tanh.default(aten.softplus.default(self))
    sig = aten.sigmoid.default(self)
    rest = aten.mul.Tensor(aten.mul.Tensor(self, sig),
                           aten.sub.Tensor(1, aten.mul.Tensor(tanh_softplus, tanh_softplus)))
    return aten.mul.Tensor(grad_output, aten.add.Tensor(tanh_softplus, rest))
