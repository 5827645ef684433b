"""Derivative formulas for the ops added by the ops_a listing batch (in-place unary ops, ...).

Same conventions as derivatives.py and derivatives_inplace.py: formulas are written
with aten ops, named and shaped as PyTorch's derivatives.yaml / FunctionsManual.cpp
entries, and an in-place op takes its out-of-place entry's formula (torchgen's rule:
a formula reading ``self`` sees a clone taken before the op, ``result`` is ``self``
after it).
"""

from __future__ import annotations

from typing import Any

from ..memory_format import preserve_format
from ..op_overload import namespace
from . import derivatives, derivatives_inplace, derivatives_math, derivatives_nn  # noqa: F401 - entries used below
from .derivatives_inplace import inplace_of
from .derivatives_math import _options, _zero_like_grad
from .function import derivative

aten = namespace("aten")

# --- in-place unary ops ---------------------------------------------------------------------------
inplace_of("exp_", "exp")  # grad * result
inplace_of("log_", "log", clone_self_for=(0,))  # grad / self
inplace_of("sigmoid_", "sigmoid")  # sigmoid_backward(grad, result)
inplace_of("tanh_", "tanh")  # tanh_backward(grad, result)
inplace_of("sqrt_", "sqrt")  # grad / (2 * result)
inplace_of("neg_", "neg")
inplace_of("sin_", "sin", clone_self_for=(0,))
inplace_of("cos_", "cos", clone_self_for=(0,))
inplace_of("abs_", "abs", clone_self_for=(0,))
inplace_of("clamp_", "clamp", clone_self_for=(0,))
inplace_of("clamp_.Tensor", "clamp.Tensor", clone_self_for=(0, 1, 2))


# --- rounding: zero gradient; logarithm variants ------------------------------------------------------------------


def _zeros_like_grad(node: str, op: str) -> None:
    @derivative(op, node, ("self",))
    def backward(ctx, grads, needs):
        return (aten.zeros_like.default(grads[0]),)


for _op, _node in (("floor", "FloorBackward0"), ("ceil", "CeilBackward0"), ("round", "RoundBackward0"),
                   ("trunc", "TruncBackward0"), ("round.decimals", "RoundBackward1")):
    _zeros_like_grad(_node, _op)
del _op, _node


@derivative("log1p", "Log1PBackward0", ("self",), save_inputs=("self",))
def _log1p(ctx, grads, needs):
    """log1p_backward: grad / (self + 1)."""
    return (aten.div.Tensor(grads[0], aten.add.Scalar(ctx.self, 1)),)


@derivative("expm1", "Expm1Backward0", ("self",), save_outputs=(0,))
def _expm1(ctx, grads, needs):
    """grad * (result + 1)."""
    return (aten.mul.Tensor(grads[0], aten.add.Scalar(ctx.result, 1)),)


@derivative("log2", "Log2Backward0", ("self",), save_inputs=("self",))
def _log2(ctx, grads, needs):
    """grad / (self * ln 2)."""
    return (aten.div.Tensor(grads[0], aten.mul.Scalar(ctx.self, 0.6931471805599453)),)


# --- binary / ternary pointwise ---------------------------------------------------------------------------------------


def _where_zero(mask_fn: Any, grad: Any) -> Any:
    """``where(mask, grad, at::scalar_tensor(0., grad.options()))``: C++ evaluates the arguments right to left, so
    the zero is made before the mask."""
    zero = _zero_like_grad(grad)
    return aten.where.self(mask_fn(), grad, zero)


@derivative("clamp_min.Tensor", "ClampMinBackward1", ("self", "min"), save_inputs=("self", "min"))
def _clamp_min_tensor(ctx, grads, needs):
    """min gets the gradient where it won (self < min), self where it did not (computed in that order)."""
    g, x, lo = grads[0], ctx.self, ctx.min
    g_min = _where_zero(lambda: aten.lt.Tensor(x, lo), g) if needs[1] else None
    g_self = _where_zero(lambda: aten.ge.Tensor(x, lo), g) if needs[0] else None
    return (g_self, g_min)


@derivative("clamp_max.Tensor", "ClampMaxBackward1", ("self", "max"), save_inputs=("self", "max"))
def _clamp_max_tensor(ctx, grads, needs):
    g, x, hi = grads[0], ctx.self, ctx.max
    g_max = _where_zero(lambda: aten.gt.Tensor(x, hi), g) if needs[1] else None
    g_self = _where_zero(lambda: aten.le.Tensor(x, hi), g) if needs[0] else None
    return (g_self, g_max)


def _modulo_tensor(op: str, node: str, rounding_mode: str) -> None:
    @derivative(op, node, ("self", "other"), save_inputs=("self", "other"))
    def backward(ctx, grads, needs):
        """self: grad; other: ``-grad * self.div(other, rounding_mode)`` (other first, as PyTorch orders them)."""
        g = grads[0]
        g_other = None
        if needs[1]:
            quotient = aten.div.Tensor_mode(ctx.self, ctx.other, rounding_mode=rounding_mode)
            g_other = aten.mul.Tensor(aten.neg.default(g), quotient)
        return (g if needs[0] else None, g_other)


_modulo_tensor("fmod.Tensor", "FmodBackward1", "trunc")
_modulo_tensor("remainder.Tensor", "RemainderBackward1", "floor")


@derivative("fmod.Scalar", "FmodBackward0", ("self",))
def _fmod_scalar(ctx, grads, needs):
    return (grads[0],)


@derivative("remainder.Scalar", "RemainderBackward0", ("self",))
def _remainder_scalar(ctx, grads, needs):
    return (grads[0],)


@derivative("remainder.Scalar_Tensor", "NotImplemented", ("other",))
def _remainder_scalar_tensor(ctx, grads, needs):
    """PyTorch has no formula for a Scalar dividend: its node fails when backward reaches it."""
    raise RuntimeError("derivative for aten::remainder is not implemented")


def _rdiv_scalar_tensor(scalar: Any, t: Any) -> Any:
    """C++ ``Scalar / Tensor``: ``empty_like(t, preserve_format).fill_(scalar).div_(t)``."""
    filled = aten.fill_.Scalar(aten.empty_like.default(t, memory_format=preserve_format), scalar)
    return aten.div_.Tensor(filled, t)


@derivative("addcmul", "AddcmulBackward0", ("self", "tensor1", "tensor2"),
            save_inputs=("tensor1", "tensor2", "value"))
def _addcmul(ctx, grads, needs):
    g, v = grads[0], ctx.value
    g1 = aten.mul.Tensor(g, aten.mul.Scalar(ctx.tensor2, v)) if needs[1] else None
    g2 = aten.mul.Tensor(g, aten.mul.Scalar(ctx.tensor1, v)) if needs[2] else None
    return (g if needs[0] else None, g1, g2)


@derivative("addcdiv", "AddcdivBackward0", ("self", "tensor1", "tensor2"),
            save_inputs=("tensor1", "tensor2", "value"))
def _addcdiv(ctx, grads, needs):
    """tensor1: ``grad * (value / tensor2)``; tensor2: ``-grad * ((tensor1 * value) / (tensor2 * tensor2))``."""
    g, v, t1, t2 = grads[0], ctx.value, ctx.tensor1, ctx.tensor2
    g1 = aten.mul.Tensor(g, _rdiv_scalar_tensor(v, t2)) if needs[1] else None
    g2 = None
    if needs[2]:
        square = aten.mul.Tensor(t2, t2)
        ratio = aten.div.Tensor(aten.mul.Scalar(t1, v), square)
        g2 = aten.mul.Tensor(aten.neg.default(g), ratio)
    return (g if needs[0] else None, g1, g2)


# --- activations ------------------------------------------------------------------------------------------------------


@derivative("leaky_relu", "LeakyReluBackward0", ("self",), save_inputs=("self", "negative_slope"))
def _leaky_relu(ctx, grads, needs):
    return (aten.leaky_relu_backward.default(grads[0], ctx.self, ctx.negative_slope, False),)


@derivative("hardtanh", "HardtanhBackward0", ("self",), save_inputs=("self", "min_val", "max_val"))
def _hardtanh(ctx, grads, needs):
    return (aten.hardtanh_backward.default(grads[0], ctx.self, ctx.min_val, ctx.max_val),)


@derivative("elu", "EluBackward0", ("self",), save_inputs=("self", "alpha", "scale", "input_scale"))
def _elu(ctx, grads, needs):
    return (aten.elu_backward.default(grads[0], ctx.alpha, ctx.scale, ctx.input_scale, False, ctx.self),)


@derivative("softplus", "SoftplusBackward0", ("self",), save_inputs=("self", "beta", "threshold"))
def _softplus(ctx, grads, needs):
    return (aten.softplus_backward.default(grads[0], ctx.self, ctx.beta, ctx.threshold),)


@derivative("hardswish", "HardswishBackward0", ("self",), save_inputs=("self",))
def _hardswish(ctx, grads, needs):
    return (aten.hardswish_backward.default(grads[0], ctx.self),)


@derivative("leaky_relu_", "LeakyReluBackward1", ("self",), save_inputs=("negative_slope",), save_outputs=(0,))
def _leaky_relu_(ctx, grads, needs):
    """From the result (self after the op): ``leaky_relu_backward(grad, result, negative_slope, true)``."""
    return (aten.leaky_relu_backward.default(grads[0], ctx.result, ctx.negative_slope, True),)


@derivative("elu_", "EluBackward1", ("self",), save_inputs=("alpha", "scale", "input_scale"), save_outputs=(0,))
def _elu_(ctx, grads, needs):
    return (aten.elu_backward.default(grads[0], ctx.alpha, ctx.scale, ctx.input_scale, True, ctx.result),)


inplace_of("hardtanh_", "hardtanh", clone_self_for=(0,))
inplace_of("hardswish_", "hardswish", clone_self_for=(0,))


# --- losses -------------------------------------------------------------------------------------------------------------


@derivative("smooth_l1_loss", "SmoothL1LossBackward0", ("self", "target"),
            save_inputs=("self", "target", "reduction", "beta"))
def _smooth_l1_loss(ctx, grads, needs):
    g = grads[0]
    return (
        aten.smooth_l1_loss_backward.default(g, ctx.self, ctx.target, ctx.reduction, ctx.beta) if needs[0] else None,
        aten.smooth_l1_loss_backward.default(g, ctx.target, ctx.self, ctx.reduction, ctx.beta) if needs[1] else None,
    )


@derivative("log_sigmoid_forward", "LogSigmoidBackward0", ("self",), save_inputs=("self",), save_outputs=(1,),
            non_differentiable_outputs=(1,))
def _log_sigmoid_forward(ctx, grads, needs):
    """``log_sigmoid_backward(grad, self, buffer)``: the buffer is the forward's second output."""
    return (aten.log_sigmoid_backward.default(grads[0], ctx.self, ctx.result1),)


@derivative("mish", "MishBackward0", ("self",), save_inputs=("self",))
def _mish(ctx, grads, needs):
    return (aten.mish_backward.default(grads[0], ctx.self),)


inplace_of("mish_", "mish", clone_self_for=(0,))


# --- the backward ops (double backward), as derivatives.yaml / FunctionsManual.cpp write them --------------------------


def _type_as(mask: Any, grad: Any) -> Any:
    """``mask.type_as(grad)``: ``_to_copy(mask, grad.options())``."""
    return aten._to_copy.default(mask, **_options(grad))


def _grad_output_then_zero_self(op: str, node: str, call: Any, saved: tuple[str, ...]) -> None:
    """grad_output: the backward op applied to grad; self: ``zeros_like(grad)`` (piecewise-linear activations)."""

    @derivative(op, node, ("grad_output", "self"), save_inputs=saved)
    def backward(ctx, grads, needs):
        g = grads[0]
        g_out = call(ctx, g) if needs[0] else None
        return (g_out, aten.zeros_like.default(g) if needs[1] else None)


_grad_output_then_zero_self(
    "leaky_relu_backward", "LeakyReluBackwardBackward0",
    lambda ctx, g: aten.leaky_relu_backward.default(g, ctx.self, ctx.negative_slope, False),  # always false
    ("self", "negative_slope"))
_grad_output_then_zero_self(
    "hardtanh_backward", "HardtanhBackwardBackward0",
    lambda ctx, g: aten.hardtanh_backward.default(g, ctx.self, ctx.min_val, ctx.max_val),
    ("self", "min_val", "max_val"))


@derivative("elu_backward", "EluBackwardBackward0", ("grad_output", "self_or_result"),
            save_inputs=("grad_output", "alpha", "scale", "input_scale", "is_result", "self_or_result"))
def _elu_backward(ctx, grads, needs):
    """grad_output: ``elu_backward(grad, ...)``; self_or_result: ``elu_double_backward``."""
    g, x = grads[0], ctx.self_or_result
    args = (ctx.alpha, ctx.scale, ctx.input_scale, ctx.is_result)
    g_out = aten.elu_backward.default(g, *args, x) if needs[0] else None
    g_x = None
    if needs[1]:
        negative = _type_as(aten.lt.Scalar(x, 0), g)
        scaled = aten.mul.Scalar(aten.mul.Tensor(g, ctx.grad_output), ctx.input_scale)
        if ctx.is_result:
            g_x = aten.mul.Tensor(scaled, negative)
        else:
            g_x = aten.mul.Tensor(aten.elu_backward.default(scaled, *args, x), negative)
    return (g_out, g_x)


@derivative("softplus_backward", "SoftplusBackwardBackward0", ("grad_output", "self"),
            save_inputs=("grad_output", "self", "beta", "threshold"))
def _softplus_backward(ctx, grads, needs):
    """self: ``softplus_double_backward(grad * grad_output, self, beta, threshold)``
    = ``sigmoid_backward(g, sigmoid(self * beta)) * (self * beta < threshold).type_as(g) * beta``."""
    g, x, beta = grads[0], ctx.self, ctx.beta
    g_out = aten.softplus_backward.default(g, x, beta, ctx.threshold) if needs[0] else None
    g_x = None
    if needs[1]:
        gg = aten.mul.Tensor(g, ctx.grad_output)
        beta_x = aten.mul.Scalar(x, beta)
        inside = _type_as(aten.lt.Scalar(beta_x, ctx.threshold), g)
        sb = aten.sigmoid_backward.default(gg, aten.sigmoid.default(beta_x))
        g_x = aten.mul.Scalar(aten.mul.Tensor(sb, inside), beta)
    return (g_out, g_x)


@derivative("hardswish_backward", "HardswishBackwardBackward0", ("grad_output", "self"),
            save_inputs=("grad_output", "self"))
def _hardswish_backward(ctx, grads, needs):
    """self: ``where(-3 < self & self < 3, grad * grad_output / 3, zeros({}))``."""
    g, x = grads[0], ctx.self
    g_out = aten.hardswish_backward.default(g, x) if needs[0] else None
    g_x = None
    if needs[1]:
        zero = aten.zeros.default([], **_options(x))
        value = aten.div.Scalar(aten.mul.Tensor(g, ctx.grad_output), 3.0)
        upper = aten.lt.Scalar(x, 3.0)
        inside = aten.logical_and.default(aten.gt.Scalar(x, -3.0), upper)
        g_x = aten.where.self(inside, value, zero)
    return (g_out, g_x)


@derivative("log_sigmoid_backward", "LogSigmoidBackwardBackward0", ("grad_output", "self"),
            save_inputs=("grad_output", "self", "buffer"), no_requires_grad=("buffer",))
def _log_sigmoid_backward(ctx, grads, needs):
    """self: ``log_sigmoid_double_backward(grad * grad_output, self)`` = ``g * (sigmoid(self) - 1) * sigmoid(self)``;
    the buffer is not differentiable."""
    g, x = grads[0], ctx.self
    g_out = aten.log_sigmoid_backward.default(g, x, ctx.buffer) if needs[0] else None
    g_x = None
    if needs[1]:
        gg = aten.mul.Tensor(g, ctx.grad_output)
        z = aten.sigmoid.default(x)
        g_x = aten.mul.Tensor(aten.mul.Tensor(gg, aten.sub.Scalar(z, 1)), z)
    return (g_out, g_x)


@derivative("mish_backward", "NotImplemented", ("grad_output", "self"))
def _mish_backward(ctx, grads, needs):
    """PyTorch has no formula: its node fails when backward reaches it."""
    raise RuntimeError("derivative for aten::mish_backward is not implemented")


def _smooth_l1_double_backward(g: Any, x: Any, target: Any, reduction: int, beta: float) -> Any:
    """``g * (|x - target| < beta).type_as(g) / beta``, divided by numel for a mean; zeros for ``beta == 0``."""
    if beta == 0.0:
        return aten.zeros.default(list(g._shape), **_options(g))
    inside = _type_as(aten.lt.Scalar(aten.abs.default(aten.sub.Tensor(x, target)), beta), g)
    out = aten.div.Scalar(aten.mul.Tensor(g, inside), beta)
    if reduction == 1:
        out = aten.div_.Scalar(out, x.numel())
    return out


@derivative("smooth_l1_loss_backward", "SmoothL1LossBackwardBackward0", ("grad_output", "self", "target"),
            save_inputs=("grad_output", "self", "target", "reduction", "beta"))
def _smooth_l1_loss_backward(ctx, grads, needs):
    g, x, t, red, beta = grads[0], ctx.self, ctx.target, ctx.reduction, ctx.beta
    g_out = aten.smooth_l1_loss_backward.default(g, x, t, red, beta) if needs[0] else None
    g_x = _smooth_l1_double_backward(aten.mul.Tensor(g, ctx.grad_output), x, t, red, beta) if needs[1] else None
    g_t = None
    if needs[2]:
        g_t = aten.neg.default(_smooth_l1_double_backward(aten.mul.Tensor(g, ctx.grad_output), x, t, red, beta))
    return (g_out, g_x, g_t)
