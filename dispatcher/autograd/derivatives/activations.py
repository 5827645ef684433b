"""Derivative formulas of the activations: ``relu`` / ``relu6`` / ``threshold``, ``gelu``, ``silu``, ``mish``,
``leaky_relu``, ``hardtanh``, ``elu`` / ``celu`` / ``selu``, ``softplus``, ``hardswish`` / ``hardsigmoid``,
``glu``, ``log_sigmoid``, ``_softmax`` / ``_log_softmax``; their backward ops (double backward); and the
in-place forms (``leaky_relu_``, ``elu_``, ``celu_`` read the result; the others take their out-of-place
formula with self from before the op).

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call (``gelu_double_backward``, ``elu_double_backward``, ``softplus_double_backward``,
``log_sigmoid_double_backward``, ``glu_double_backward``, ``softmax_double_backward``, ...). ``silu_backward``,
``mish_backward`` and ``hardsigmoid_backward`` have no formula in PyTorch (their node fails when backward
reaches it).
"""

from __future__ import annotations

from typing import Any

from ...memory_format import preserve_format, strided
from ...op_overload import namespace
from ..function import derivative
from ..grad_mode import is_grad_enabled
from .cpp_idioms import _one_minus, _options, _rsub, _type_as
from .inplace_formulas import inplace_of

aten = namespace("aten")


# --- relu, threshold ------------------------------------------------------------------------------

@derivative("relu", "ReluBackward0", ("self",), save_outputs=(0,))
def _relu(ctx, grads, needs):
    return (aten.threshold_backward.default(grads[0], ctx.result, 0),)


inplace_of("relu_", "relu")  # threshold_backward(grad, result, 0): result is self after the op


@derivative("threshold", "ThresholdBackward0", ("self",), save_inputs=("self", "threshold"))
def _threshold(ctx, grads, needs):
    return (aten.threshold_backward.default(grads[0], ctx.self, ctx.threshold),)


inplace_of("threshold_", "threshold", clone_self_for=(0,), node_name="ThresholdBackward1")


@derivative("threshold_backward", "ThresholdBackwardBackward0", ("grad_output", "self"),
            save_inputs=("self", "threshold"))
def _threshold_backward(ctx, grads, needs):
    g = grads[0]
    g_out = aten.threshold_backward.default(g, ctx.self, ctx.threshold) if needs[0] else None
    return (g_out, aten.zeros_like.default(g) if needs[1] else None)


# --- gelu, silu, mish -----------------------------------------------------------------------------

@derivative("gelu", "GeluBackward0", ("self",), save_inputs=("self", "approximate"))
def _gelu(ctx, grads, needs):
    if ctx.approximate == "none":
        return (aten.gelu_backward.default(grads[0], ctx.self),)
    return (aten.gelu_backward.default(grads[0], ctx.self, approximate=ctx.approximate),)


def _rdiv(scalar: Any, t: Any) -> Any:
    """C++ ``scalar / tensor``: ``empty_like(t, preserve_format).fill_(scalar).div_(t)``."""
    out = aten.empty_like.default(t, memory_format=preserve_format)
    return aten.div_.Tensor(aten.fill_.Scalar(out, scalar), t)


# math.h's constants (as doubles), combined as FunctionsManual.cpp combines them
_M_SQRT2, _M_SQRT1_2, _M_2_SQRTPI = 1.4142135623730951, 0.7071067811865476, 1.1283791670955126
_GELU_BETA_TANH = _M_SQRT2 * _M_2_SQRTPI * 0.5
_GELU_BETA = _M_2_SQRTPI * _M_SQRT1_2 * 0.5
_GELU_KAPPA = 0.044715


def _gelu_double_backward(ggI: Any, gO: Any, x: Any, approximate: str) -> Any:  # noqa: N803 - PyTorch's names
    """d/dx of gelu_backward(gO, x) = gO * gelu'(x), times ggI: gelu''(x) written out with aten ops."""
    if approximate == "tanh":
        beta, kappa = _GELU_BETA_TANH, _GELU_KAPPA
        inner = aten.mul.Scalar(aten.add.Tensor(x, aten.mul.Scalar(aten.pow.Tensor_Scalar(x, 3), kappa)), beta)
        tanh_inner = aten.tanh.default(inner)
        sech_inner = _rdiv(1, aten.cosh.default(inner))
        f = aten.mul.Scalar(x, 0.5)
        g = _rsub(1, aten.mul.Tensor(tanh_inner, tanh_inner))
        h = aten.mul.Scalar(aten.add.Scalar(aten.mul.Tensor(aten.mul.Scalar(x, 3 * kappa), x), 1), beta)
        f_prime_gh = aten.mul.Tensor(aten.mul.Scalar(g, 0.5), h)
        sech_tanh = aten.mul.Tensor(aten.neg.default(sech_inner), tanh_inner)
        g_prime = aten.mul.Tensor(aten.mul.Tensor(aten.mul.Scalar(sech_inner, 2), sech_tanh), h)
        g_prime_fh = aten.mul.Tensor(aten.mul.Tensor(f, h), g_prime)
        h_prime = aten.mul.Scalar(aten.mul.Scalar(x, 6 * kappa), beta)
        h_prime_fg = aten.mul.Tensor(aten.mul.Tensor(f, g), h_prime)
        total = aten.add.Tensor(aten.add.Tensor(aten.mul.Scalar(f_prime_gh, 2), g_prime_fh), h_prime_fg)
        return aten.mul.Tensor(aten.mul.Tensor(ggI, gO), total)
    x_sq = aten.mul.Tensor(x, x)
    pdf = aten.mul.Scalar(aten.exp.default(aten.mul.Scalar(x_sq, -0.5)), _GELU_BETA)
    sq_pdf = aten.mul.Tensor(x_sq, pdf)  # 2 * pdf - x_sq * pdf, right operand first
    dgrad = aten.sub.Tensor(aten.mul.Scalar(pdf, 2), sq_pdf)
    return aten.mul.Tensor(aten.mul.Tensor(ggI, gO), dgrad)


@derivative("gelu_backward", "GeluBackwardBackward0", ("grad_output", "self"),
            save_inputs=("grad_output", "self", "approximate"))
def _gelu_backward(ctx, grads, needs):
    g, approximate = grads[0], ctx.approximate
    g_out = None
    if needs[0]:
        kw = {} if approximate == "none" else {"approximate": approximate}
        g_out = aten.gelu_backward.default(g, ctx.self, **kw)
    g_self = _gelu_double_backward(g, ctx.grad_output, ctx.self, approximate) if needs[1] else None
    return (g_out, g_self)


@derivative("silu", "SiluBackward0", ("self",), save_inputs=("self",))
def _silu(ctx, grads, needs):
    """silu_backward, or (while building a graph for double backward) its formula written out."""
    g, x = grads[0], ctx.self
    if not is_grad_enabled():
        return (aten.silu_backward.default(g, x),)
    sigmoid = aten.sigmoid.default(x)
    inner = aten.add.Scalar(aten.mul.Tensor(x, _rsub(1.0, sigmoid)), 1.0)
    return (aten.mul.Tensor(aten.mul.Tensor(g, sigmoid), inner),)


@derivative("silu_backward", "NotImplemented", ("grad_output", "self"))
def _silu_backward(ctx, grads, needs):
    """PyTorch has no formula for silu_backward: its node is ``NotImplemented``, which fails when backward reaches it."""
    raise RuntimeError("derivative for aten::silu_backward is not implemented")


@derivative("mish", "MishBackward0", ("self",), save_inputs=("self",))
def _mish(ctx, grads, needs):
    return (aten.mish_backward.default(grads[0], ctx.self),)


inplace_of("mish_", "mish", clone_self_for=(0,))


@derivative("mish_backward", "NotImplemented", ("grad_output", "self"))
def _mish_backward(ctx, grads, needs):
    """PyTorch has no formula: its node fails when backward reaches it."""
    raise RuntimeError("derivative for aten::mish_backward is not implemented")


# --- leaky_relu, hardtanh, elu, celu, softplus ----------------------------------------------------

@derivative("leaky_relu", "LeakyReluBackward0", ("self",), save_inputs=("self", "negative_slope"))
def _leaky_relu(ctx, grads, needs):
    return (aten.leaky_relu_backward.default(grads[0], ctx.self, ctx.negative_slope, False),)


@derivative("leaky_relu_", "LeakyReluBackward1", ("self",), save_inputs=("negative_slope",), save_outputs=(0,))
def _leaky_relu_(ctx, grads, needs):
    """From the result (self after the op): ``leaky_relu_backward(grad, result, negative_slope, true)``."""
    return (aten.leaky_relu_backward.default(grads[0], ctx.result, ctx.negative_slope, True),)


@derivative("hardtanh", "HardtanhBackward0", ("self",), save_inputs=("self", "min_val", "max_val"))
def _hardtanh(ctx, grads, needs):
    return (aten.hardtanh_backward.default(grads[0], ctx.self, ctx.min_val, ctx.max_val),)


inplace_of("hardtanh_", "hardtanh", clone_self_for=(0,))


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


@derivative("elu", "EluBackward0", ("self",), save_inputs=("self", "alpha", "scale", "input_scale"))
def _elu(ctx, grads, needs):
    return (aten.elu_backward.default(grads[0], ctx.alpha, ctx.scale, ctx.input_scale, False, ctx.self),)


@derivative("elu_", "EluBackward1", ("self",), save_inputs=("alpha", "scale", "input_scale"), save_outputs=(0,))
def _elu_(ctx, grads, needs):
    return (aten.elu_backward.default(grads[0], ctx.alpha, ctx.scale, ctx.input_scale, True, ctx.result),)


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


def _inverse_alpha(alpha: Any) -> float:
    """``1.0 / alpha.toFloat()``: alpha rounded to a C float first."""
    import numpy as np

    return 1.0 / float(np.float32(alpha))


@derivative("celu", "CeluBackward0", ("self",), save_inputs=("self", "alpha"))
def _celu(ctx, grads, needs):
    """``elu_backward(grad, alpha, 1, 1 / alpha, false, self)``."""
    return (aten.elu_backward.default(grads[0], ctx.alpha, 1, _inverse_alpha(ctx.alpha), False, ctx.self),)


@derivative("celu_", "CeluBackward1", ("self",), save_inputs=("alpha",), save_outputs=(0,))
def _celu_(ctx, grads, needs):
    """From the result: ``elu_backward(grad, alpha, 1, 1 / alpha, true, result)``."""
    return (aten.elu_backward.default(grads[0], ctx.alpha, 1, _inverse_alpha(ctx.alpha), True, ctx.result),)


@derivative("softplus", "SoftplusBackward0", ("self",), save_inputs=("self", "beta", "threshold"))
def _softplus(ctx, grads, needs):
    return (aten.softplus_backward.default(grads[0], ctx.self, ctx.beta, ctx.threshold),)


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


# --- hardswish, hardsigmoid, glu, log_sigmoid -----------------------------------------------------

@derivative("hardswish", "HardswishBackward0", ("self",), save_inputs=("self",))
def _hardswish(ctx, grads, needs):
    return (aten.hardswish_backward.default(grads[0], ctx.self),)


inplace_of("hardswish_", "hardswish", clone_self_for=(0,))


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


@derivative("hardsigmoid", "HardsigmoidBackward0", ("self",), save_inputs=("self",))
def _hardsigmoid(ctx, grads, needs):
    return (aten.hardsigmoid_backward.default(grads[0], ctx.self),)


inplace_of("hardsigmoid_", "hardsigmoid", clone_self_for=(0,))


@derivative("hardsigmoid_backward", "NotImplemented", ("grad_output", "self"))
def _hardsigmoid_backward(ctx, grads, needs):
    """PyTorch has no formula: its node fails when backward reaches it."""
    raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


@derivative("glu", "GluBackward0", ("self",), save_inputs=("self", "dim"))
def _glu(ctx, grads, needs):
    return (aten.glu_backward.default(grads[0], ctx.self, ctx.dim),)


@derivative("glu_backward", "GluBackwardBackward0", ("grad_output", "self"),
            save_inputs=("grad_output", "self", "dim"))
def _glu_backward(ctx, grads, needs):
    """grad_output: ``glu_double_backward_grad_output`` (dim wrapped); self: ``glu_double_backward`` (dim as given)."""
    g, go, x, dim = grads[0], ctx.grad_output, ctx.self, ctx.dim
    d = dim + x.dim() if dim < 0 else dim
    half = x.size(d) // 2
    g_out = g_x = None
    if needs[0]:
        sizes = list(x.shape)
        sizes[d] = half
        ones = aten.ones.default(sizes, dtype=x.dtype, layout=strided, device=x.device)
        tmp = aten.mul.Tensor(g, aten.glu_backward.default(ones, x, d))
        second = aten.narrow.default(tmp, d, half, half)  # (C++ evaluates the right operand first)
        g_out = aten.add.Tensor(aten.narrow.default(tmp, d, 0, half), second)
    if needs[1]:
        first_half = aten.narrow.default(x, dim, 0, half)
        second_half = aten.narrow.default(x, dim, half, half)
        sig = aten.sigmoid.default(second_half)
        one_sub = _one_minus(sig)
        sig_one_sub = aten.mul.Tensor(sig, one_sub)
        gg_first = aten.narrow.default(g, dim, 0, half)
        gg_second = aten.narrow.default(g, dim, half, half)
        gg_second_first = aten.mul.Tensor(gg_second, first_half)
        gi_first = aten.mul.Tensor(aten.mul.Tensor(gg_second, go), sig_one_sub)
        b = aten.mul.Tensor(sig, sig_one_sub)
        second_order = aten.sub.Tensor(aten.mul.Tensor(sig_one_sub, one_sub), b)
        y = aten.mul.Tensor(aten.mul.Tensor(gg_second_first, go), second_order)
        gi_second = aten.add.Tensor(aten.mul.Tensor(aten.mul.Tensor(gg_first, go), sig_one_sub), y)
        g_x = aten.cat.default([gi_first, gi_second], dim)
    return (g_out, g_x)


@derivative("log_sigmoid_forward", "LogSigmoidBackward0", ("self",), save_inputs=("self",), save_outputs=(1,),
            non_differentiable_outputs=(1,))
def _log_sigmoid_forward(ctx, grads, needs):
    """``log_sigmoid_backward(grad, self, buffer)``: the buffer is the forward's second output."""
    return (aten.log_sigmoid_backward.default(grads[0], ctx.self, ctx.result1),)


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


# --- softmax, log_softmax -------------------------------------------------------------------------

@derivative("_softmax", "SoftmaxBackward0", ("self",), save_inputs=("dim",), save_meta=("self",), save_outputs=(0,))
def _softmax(ctx, grads, needs):
    return (aten._softmax_backward_data.default(grads[0], ctx.result, ctx.dim, ctx.self._dtype),)


@derivative("_log_softmax", "LogSoftmaxBackward0", ("self",), save_inputs=("dim",), save_meta=("self",),
            save_outputs=(0,))
def _log_softmax(ctx, grads, needs):
    return (aten._log_softmax_backward_data.default(grads[0], ctx.result, ctx.dim, ctx.self._dtype),)


@derivative("_softmax_backward_data", "SoftmaxBackwardDataBackward0", ("grad_output", "output"),
            save_inputs=("grad_output", "output", "dim", "input_dtype"))
def _softmax_backward_data(ctx, grads, needs):
    out, dim = ctx.output, ctx.dim
    g_out = None
    if needs[0]:
        g_out = aten._softmax_backward_data.default(aten.to.dtype(grads[0], out._dtype), out, dim, ctx.input_dtype)
    g_output = None
    if needs[1]:  # softmax_double_backward: go * g - sum(out * go) * g - go * sum(out * g)
        go = ctx.grad_output
        g = aten.to.dtype(grads[0], out._dtype)
        last = aten.mul.Tensor(go, aten.sum.dim_IntList(aten.mul.Tensor(out, g), [dim], True))
        middle = aten.mul.Tensor(aten.sum.dim_IntList(aten.mul.Tensor(out, go), [dim], True), g)
        first = aten.sub.Tensor(aten.mul.Tensor(go, g), middle)
        g_output = aten.to.dtype(aten.sub.Tensor(first, last), out._dtype)
    return (g_out, g_output)


@derivative("_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", ("grad_output", "output"),
            save_inputs=("grad_output", "output", "dim"))
def _log_softmax_backward_data(ctx, grads, needs):
    out, dim = ctx.output, ctx.dim
    g_out = None
    if needs[0]:  # g - sum(g * exp(output))
        exp = aten.exp.default(out)
        total = aten.sum.dim_IntList(aten.mul.Tensor(aten.to.dtype(grads[0], out._dtype), exp), [dim], True)
        g_out = aten.sub.Tensor(aten.to.dtype(grads[0], out._dtype), total)
    g_output = None
    if needs[1]:  # -sum(grad_output) * exp(output) * g
        g = aten.to.dtype(grads[0], out._dtype)
        exp = aten.exp.default(out)
        scaled = aten.mul.Tensor(aten.neg.default(aten.sum.dim_IntList(ctx.grad_output, [dim], True)), exp)
        g_output = aten.to.dtype(aten.mul.Tensor(scaled, g), out._dtype)
    return (g_out, g_output)
