"""Derivative formulas for the ops of the loss batch (binary cross entropy, huber, soft margin, selu / celu,
hardsigmoid, glu, threshold, in-place clamp_min / add).

Same conventions as derivatives_more_a.py: formulas are written with aten ops, named and shaped as PyTorch's
derivatives.yaml / FunctionsManual.cpp entries (``binary_cross_entropy_with_logits_backward`` is a
FunctionsManual function, not an op: its ops are recorded one by one, in place when nothing is subclass-like
and grad mode is off, as PyTorch's).
"""

from __future__ import annotations

from typing import Any

from ..memory_format import preserve_format, strided
from ..op_overload import namespace
from ..schema import UNDEFINED_TENSOR
from . import derivatives, derivatives_inplace, derivatives_math, derivatives_more_a  # noqa: F401 - entries used
from .derivatives_inplace import inplace_of
from .function import derivative

aten = namespace("aten")

_MEAN = 1


def _subclass_like(*tensors: Any) -> bool:
    from ..ops.composite import is_tensor_subclass_like

    return any(t is not None and is_tensor_subclass_like(t) for t in tensors)


def _grad_enabled() -> bool:
    from .grad_mode import is_grad_enabled

    return is_grad_enabled()


# --- binary cross entropy -----------------------------------------------------------------------------------------


def _logit(x: Any) -> Any:
    """``at::logit(x)``; until ``aten::logit`` is listed (the pointwise batch adds it): ``log(x) - log1p(-x)``."""
    from ..ops.native_functions import NATIVE_FUNCTIONS

    if any(op.name == "logit" for op in NATIVE_FUNCTIONS):
        return aten.logit.default(x)
    return aten.sub.Tensor(aten.log.default(x), aten.log1p.default(aten.neg.default(x)))


def _bce_target_backward(grad: Any, x: Any, target: Any, weight: Any, reduction: int) -> Any:
    """FunctionsManual's binary_cross_entropy_target_backward: ``-logit(self) * grad [* weight]`` (/ numel)."""
    grad_target = aten.neg_.default(_logit(x))
    grad_target = aten.mul.Tensor(grad_target, grad) if _subclass_like(grad) else aten.mul_.Tensor(grad_target, grad)
    if weight is not None:
        grad_target = (aten.mul.Tensor(grad_target, weight) if _subclass_like(weight)
                       else aten.mul_.Tensor(grad_target, weight))
    if reduction == _MEAN:
        grad_target = aten.div_.Scalar(grad_target, target.numel())
    return grad_target


@derivative("binary_cross_entropy", "BinaryCrossEntropyBackward0", ("self", "target"),
            save_inputs=("self", "target", "weight", "reduction"), no_requires_grad=("weight",))
def _binary_cross_entropy(ctx, grads, needs):
    """self: ``binary_cross_entropy_backward(grad, self, target, weight, reduction)``; target:
    ``binary_cross_entropy_target_backward``."""
    g = grads[0]
    weight = UNDEFINED_TENSOR if ctx.weight is None else ctx.weight  # (the C++ passes an undefined tensor)
    return (aten.binary_cross_entropy_backward.default(g, ctx.self, ctx.target, weight, ctx.reduction)
            if needs[0] else None,
            _bce_target_backward(g, ctx.self, ctx.target, ctx.weight, ctx.reduction) if needs[1] else None)


def _bce_logits_self_backward(grad: Any, x: Any, target: Any, weight: Any, pos_weight: Any, reduction: int) -> Any:
    """FunctionsManual's binary_cross_entropy_with_logits_backward."""
    out_of_place = _subclass_like(x, target) or _grad_enabled()
    if pos_weight is not None:
        t = aten.mul.Tensor(pos_weight, target)
        if out_of_place:
            grad_input = aten.sub.Tensor(aten.mul.Tensor(aten.sub.Tensor(aten.add.Scalar(t, 1), target),
                                                         aten.sigmoid.default(x)), t)
        else:
            grad_input = aten.sub_.Tensor(aten.mul_.Tensor(aten.sub_.Tensor(aten.add.Scalar(t, 1), target),
                                                           aten.sigmoid.default(x)), t)
    elif out_of_place:
        grad_input = aten.sub.Tensor(aten.sigmoid.default(x), target)
    else:
        grad_input = aten.sub_.Tensor(aten.sigmoid.default(x), target)
    if _subclass_like(grad) or _grad_enabled():
        grad_input = aten.mul.Tensor(grad_input, grad)
    else:
        grad_input = aten.mul_.Tensor(grad_input, grad)
    if weight is not None:
        if _subclass_like(weight) or _grad_enabled():
            grad_input = aten.mul.Tensor(grad_input, weight)
        else:
            grad_input = aten.mul_.Tensor(grad_input, weight)
    if reduction == _MEAN:
        grad_input = aten.div_.Scalar(grad_input, x.numel())
    return grad_input


def _bce_logits_target_backward(grad: Any, x: Any, target: Any, weight: Any, pos_weight: Any,
                                reduction: int) -> Any:
    """FunctionsManual's binary_cross_entropy_with_logits_target_backward (its out-of-place branch)."""
    if pos_weight is not None:
        grad_target = aten.mul.Tensor(
            aten.sub.Tensor(aten.log_sigmoid.default(aten.neg.default(x)),
                            aten.mul.Tensor(aten.log_sigmoid.default(x), pos_weight)), grad)
    else:
        grad_target = aten.mul.Tensor(aten.neg.default(x), grad)
    if weight is not None:
        grad_target = aten.mul.Tensor(grad_target, weight)
    if reduction == _MEAN:
        grad_target = aten.div_.Scalar(grad_target, target.numel())
    return grad_target


@derivative("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", ("self", "target"),
            save_inputs=("self", "target", "weight", "pos_weight", "reduction"),
            no_requires_grad=("weight", "pos_weight"))
def _binary_cross_entropy_with_logits(ctx, grads, needs):
    args = (ctx.self, ctx.target, ctx.weight, ctx.pos_weight, ctx.reduction)
    return (_bce_logits_self_backward(grads[0], *args) if needs[0] else None,
            _bce_logits_target_backward(grads[0], *args) if needs[1] else None)


# --- huber, soft margin ----------------------------------------------------------------------------------------------


@derivative("huber_loss", "HuberLossBackward0", ("self", "target"),
            save_inputs=("self", "target", "reduction", "delta"))
def _huber_loss(ctx, grads, needs):
    g = grads[0]
    return (
        aten.huber_loss_backward.default(g, ctx.self, ctx.target, ctx.reduction, ctx.delta) if needs[0] else None,
        aten.huber_loss_backward.default(g, ctx.target, ctx.self, ctx.reduction, ctx.delta) if needs[1] else None,
    )


@derivative("soft_margin_loss", "SoftMarginLossBackward0", ("self",), save_inputs=("self", "target", "reduction"),
            no_requires_grad=("target",))
def _soft_margin_loss(ctx, grads, needs):
    return (aten.soft_margin_loss_backward.default(grads[0], ctx.self, ctx.target, ctx.reduction),)


# --- activations ------------------------------------------------------------------------------------------------------


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


@derivative("hardsigmoid", "HardsigmoidBackward0", ("self",), save_inputs=("self",))
def _hardsigmoid(ctx, grads, needs):
    return (aten.hardsigmoid_backward.default(grads[0], ctx.self),)


@derivative("glu", "GluBackward0", ("self",), save_inputs=("self", "dim"))
def _glu(ctx, grads, needs):
    return (aten.glu_backward.default(grads[0], ctx.self, ctx.dim),)


@derivative("threshold", "ThresholdBackward0", ("self",), save_inputs=("self", "threshold"))
def _threshold(ctx, grads, needs):
    return (aten.threshold_backward.default(grads[0], ctx.self, ctx.threshold),)


inplace_of("hardsigmoid_", "hardsigmoid", clone_self_for=(0,))
inplace_of("threshold_", "threshold", clone_self_for=(0,), node_name="ThresholdBackward1")
inplace_of("clamp_min_", "clamp_min", clone_self_for=(0,))
inplace_of("clamp_min_.Tensor", "clamp_min.Tensor", clone_self_for=(0, 1))
inplace_of("add_.Scalar", "add.Scalar")


# --- the backward ops (double backward) ----------------------------------------------------------------------------------

@derivative("hardsigmoid_backward", "NotImplemented", ("grad_output", "self"))
def _hardsigmoid_backward(ctx, grads, needs):
    """PyTorch has no formula: its node fails when backward reaches it."""
    raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


@derivative("huber_loss_backward", "HuberLossBackwardBackward0", ("grad_output", "self", "target"),
            save_inputs=("grad_output", "self", "target", "reduction", "delta"))
def _huber_loss_backward(ctx, grads, needs):
    """grad_output: ``huber_loss_double_backward_grad_output`` (the backward op on grad when unreduced, else
    ``(huber_loss_backward(ones_like(grad_output), ...) * grad).sum()``); self: ``grad * grad_output *
    (|x - target| < delta)`` (/ numel for a mean); target: its negation."""
    g = grads[0]
    x, t, red, delta = ctx.self, ctx.target, ctx.reduction, ctx.delta
    g_out = None
    if needs[0]:
        if red == 0:
            g_out = aten.huber_loss_backward.default(g, x, t, red, delta)
        else:
            ones = aten.ones_like.default(ctx.grad_output)
            g_out = aten.sum.default(aten.mul.Tensor(aten.huber_loss_backward.default(ones, x, t, red, delta), g))
    return (g_out, _huber_double_backward(g, ctx.grad_output, x, t, red, delta) if needs[1] else None,
            aten.neg.default(_huber_double_backward(g, ctx.grad_output, x, t, red, delta)) if needs[2] else None)


def _huber_double_backward(g: Any, grad_output: Any, x: Any, t: Any, reduction: int, delta: float) -> Any:
    """FunctionsManual's huber_loss_double_backward(grad * grad_output, ...): ``* (|x - t| < delta)``, / numel."""
    gg = aten.mul.Tensor(g, grad_output)
    out = aten.mul.Tensor(gg, aten.lt.Scalar(aten.abs.default(aten.sub.Tensor(x, t)), delta))
    if reduction == _MEAN:
        out = aten.div_.Scalar(out, x.numel())
    return out



def _one_minus(x: Any) -> Any:
    """C++'s ``1 - x`` (operator-(Scalar, Tensor)): ``empty_like(x).fill_(1).sub_(x)``."""
    return aten.sub_.Tensor(aten.fill_.Scalar(aten.empty_like.default(x, memory_format=preserve_format), 1), x)


def _no_grad_clamp_min_(t: Any, value: float) -> Any:
    """``{ at::NoGradGuard guard; t.clamp_min_(value); }`` (a C++ guard: never recorded)."""
    from ..tls import per_thread

    grad_enabled = per_thread.s.grad_enabled
    per_thread.s.grad_enabled = False
    try:
        return aten.clamp_min_.default(t, value)
    finally:
        per_thread.s.grad_enabled = grad_enabled


@derivative("binary_cross_entropy_backward", "BinaryCrossEntropyBackwardBackward0",
            ("grad_output", "self", "target"),
            save_inputs=("grad_output", "self", "target", "weight", "reduction"), no_requires_grad=("weight",))
def _binary_cross_entropy_backward(ctx, grads, needs):
    """FunctionsManual's binary_cross_entropy_double_backward_grad_output / _double_backward / _target."""
    g, go, x, t, w, red = grads[0], ctx.grad_output, ctx.self, ctx.target, ctx.weight, ctx.reduction
    eps = 1e-12
    g_out = g_x = g_t = None
    if needs[0]:
        denom = aten.add.Scalar(_one_minus(x), eps)
        denom = aten.mul.Tensor(aten.add.Scalar(x, eps), denom)
        g_out = aten.mul.Tensor(aten.div.Tensor(aten.sub.Tensor(x, t), denom), g)
        if w is not None:
            g_out = aten.mul.Tensor(g_out, w)
        if red == _MEAN:
            g_out = aten.div.Scalar(g_out, x.numel())
    if needs[1]:
        inp_pl_eps = aten.add.Scalar(x, eps)
        one_m_inp_pl_eps = aten.add.Scalar(_one_minus(x), eps)
        den = aten.pow.Tensor_Scalar(one_m_inp_pl_eps, 2)
        den = aten.mul.Tensor(aten.pow.Tensor_Scalar(inp_pl_eps, 2), den)
        two_x_t = aten.mul.Tensor(aten.mul.Scalar(x, 2), t)
        num = aten.add.Tensor(aten.sub.Tensor(aten.mul.Tensor(x, x), two_x_t), t)
        g_x = aten.div.Tensor(num, den)
        g_x = aten.mul.Tensor(g_x, aten.mul.Tensor(g, go))
        if w is not None:
            g_x = aten.mul.Tensor(g_x, w)
        if red == _MEAN:
            g_x = aten.div.Scalar(g_x, x.numel())
    if needs[2]:
        res = aten.mul.Tensor(aten.neg.default(g), go)
        if w is not None:
            res = aten.mul.Tensor(res, w) if _subclass_like(w) else aten.mul_.Tensor(res, w)
        neg_self = _one_minus(x)
        denom = aten.mul.Tensor(neg_self, x) if _subclass_like(x) else aten.mul_.Tensor(neg_self, x)
        denom = _no_grad_clamp_min_(denom, eps)
        res = aten.div.Tensor(res, denom) if _subclass_like(denom) else aten.div_.Tensor(res, denom)
        if red == _MEAN:
            res = aten.div_.Scalar(res, t.numel())
        g_t = res
    return (g_out, g_x, g_t)


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


@derivative("soft_margin_loss_backward", "SoftMarginLossBackwardBackward0", ("grad_output", "self"),
            save_inputs=("grad_output", "self", "target", "reduction"), no_requires_grad=("target",))
def _soft_margin_loss_backward(ctx, grads, needs):
    """grad_output: ``soft_margin_loss_double_backward_grad_output``; self: ``soft_margin_loss_double_backward(grad
    * grad_output, ...)`` = ``gg * target^2 * z / (z + 1)^2`` with ``z = exp(self * -target)`` (/ numel)."""
    g, go, x, t, red = grads[0], ctx.grad_output, ctx.self, ctx.target, ctx.reduction
    g_out = g_x = None
    if needs[0]:
        if red == 0:
            g_out = aten.soft_margin_loss_backward.default(g, x, t, red)
        else:
            r = aten.soft_margin_loss_backward.default(aten.ones_like.default(go), x, t, red)
            g_out = aten.sum.default(aten.mul.Tensor(r, g))
    if needs[1]:
        gg = aten.mul.Tensor(g, go)
        z = aten.exp.default(aten.mul.Tensor(x, aten.neg.default(t)))
        zplus1 = aten.add.Scalar(z, 1)
        denom = aten.mul.Tensor(zplus1, zplus1)
        g_x = aten.div.Tensor(aten.mul.Tensor(aten.mul.Tensor(gg, aten.mul.Tensor(t, t)), z), denom)
        if red == _MEAN:
            g_x = aten.div_.Scalar(g_x, x.numel())
    return (g_out, g_x)
