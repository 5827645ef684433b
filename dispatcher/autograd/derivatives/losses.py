"""Derivative formulas of the losses: ``mse_loss``, ``nll_loss`` / ``nll_loss2d``, ``smooth_l1_loss``,
``huber_loss``, ``binary_cross_entropy`` (with and without logits), ``soft_margin_loss``, and their backward
ops (double backward).

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call (``binary_cross_entropy_target_backward``, ``binary_cross_entropy_with_logits_backward`` /
``_target_backward``, ``binary_cross_entropy_double_backward`` ..., ``huber_loss_double_backward``,
``soft_margin_loss_double_backward``, ``smooth_l1_loss_double_backward``). Those helpers are FunctionsManual
functions, not ops: their ops are recorded one by one, in place when nothing is subclass-like and grad mode is
off, as PyTorch's.
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ...schema import UNDEFINED_TENSOR
from ..function import derivative
from .cpp_idioms import _one_minus, _options, _subclass_like, _type_as

aten = namespace("aten")


_REDUCTION_MEAN = 1
_MEAN = 1


def _grad_enabled() -> bool:
    from ..grad_mode import is_grad_enabled

    return is_grad_enabled()


# --- mse_loss -------------------------------------------------------------------------------------

@derivative("mse_loss", "MseLossBackward0", ("self", "target"), save_inputs=("self", "target", "reduction"))
def _mse_loss(ctx, grads, needs):
    g = grads[0]
    return (
        aten.mse_loss_backward.default(g, ctx.self, ctx.target, ctx.reduction) if needs[0] else None,
        aten.mse_loss_backward.default(g, ctx.target, ctx.self, ctx.reduction) if needs[1] else None,
    )


def _mse_loss_double_backward(grad: Any, input: Any, reduction: int) -> Any:  # noqa: A002 - PyTorch's name
    """2 * grad (divided in place by the element count for a mean)."""
    out = aten.mul.Scalar(grad, 2)
    if reduction == _REDUCTION_MEAN:
        aten.div_.Scalar(out, input.numel())
    return out


@derivative("mse_loss_backward", "MseLossBackwardBackward0", ("grad_output", "self", "target"),
            save_inputs=("grad_output", "self", "target", "reduction"))
def _mse_loss_backward(ctx, grads, needs):
    g, reduction = grads[0], ctx.reduction
    g_out = aten.mse_loss_backward.default(g, ctx.self, ctx.target, reduction) if needs[0] else None
    g_self = None
    if needs[1]:
        g_self = _mse_loss_double_backward(aten.mul.Tensor(g, ctx.grad_output), ctx.self, reduction)
    g_target = None
    if needs[2]:
        g_target = aten.neg.default(
            _mse_loss_double_backward(aten.mul.Tensor(g, ctx.grad_output), ctx.target, reduction))
    return (g_out, g_self, g_target)


# --- nll_loss, nll_loss2d -------------------------------------------------------------------------

@derivative("nll_loss_forward", "NllLossBackward0", ("self",),
            save_inputs=("self", "target", "weight", "reduction", "ignore_index"), save_outputs=(1,),
            non_differentiable_outputs=(1,), no_requires_grad=("weight",))
def _nll_loss_forward(ctx, grads, needs):
    return (aten.nll_loss_backward.default(grads[0], ctx.self, ctx.target, ctx.weight, ctx.reduction,
                                           ctx.ignore_index, ctx.result1),)


@derivative("nll_loss2d_forward", "NllLoss2DBackward0", ("self",),
            save_inputs=("self", "target", "weight", "reduction", "ignore_index"), save_outputs=(1,),
            non_differentiable_outputs=(1,), no_requires_grad=("weight",))
def _nll_loss2d_forward(ctx, grads, needs):
    return (aten.nll_loss2d_backward.default(grads[0], ctx.self, ctx.target, ctx.weight, ctx.reduction,
                                             ctx.ignore_index, ctx.result1),)


@derivative("nll_loss_backward", "NllLossBackwardBackward0", ("grad_output", "self"),
            save_inputs=("target", "weight", "reduction", "ignore_index"),
            no_requires_grad=("weight", "total_weight"))
def _nll_loss_backward(ctx, grads, needs):
    grad = grads[0]
    return (
        aten.nll_loss.default(grad, ctx.target, ctx.weight, ctx.reduction, ctx.ignore_index) if needs[0] else None,
        aten.zeros_like.default(grad) if needs[1] else None,
    )


@derivative("nll_loss2d_backward", "NllLoss2DBackwardBackward0", ("grad_output", "self"),
            save_inputs=("target", "weight", "reduction", "ignore_index"),
            no_requires_grad=("weight", "total_weight"))
def _nll_loss2d_backward(ctx, grads, needs):
    grad = grads[0]
    gg = None
    if needs[0]:  # nll_loss2d (CompositeImplicitAutograd): the first output of nll_loss2d_forward
        gg = aten.nll_loss2d_forward.default(grad, ctx.target, ctx.weight, ctx.reduction, ctx.ignore_index)[0]
    return (gg, aten.zeros_like.default(grad) if needs[1] else None)


# --- smooth_l1_loss, huber_loss -------------------------------------------------------------------

@derivative("smooth_l1_loss", "SmoothL1LossBackward0", ("self", "target"),
            save_inputs=("self", "target", "reduction", "beta"))
def _smooth_l1_loss(ctx, grads, needs):
    g = grads[0]
    return (
        aten.smooth_l1_loss_backward.default(g, ctx.self, ctx.target, ctx.reduction, ctx.beta) if needs[0] else None,
        aten.smooth_l1_loss_backward.default(g, ctx.target, ctx.self, ctx.reduction, ctx.beta) if needs[1] else None,
    )


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


@derivative("huber_loss", "HuberLossBackward0", ("self", "target"),
            save_inputs=("self", "target", "reduction", "delta"))
def _huber_loss(ctx, grads, needs):
    g = grads[0]
    return (
        aten.huber_loss_backward.default(g, ctx.self, ctx.target, ctx.reduction, ctx.delta) if needs[0] else None,
        aten.huber_loss_backward.default(g, ctx.target, ctx.self, ctx.reduction, ctx.delta) if needs[1] else None,
    )


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


# --- binary cross entropy -------------------------------------------------------------------------

def _logit(x: Any) -> Any:
    """``at::logit(x)``; ``log(x) - log1p(-x)`` where ``aten::logit`` is not in the listing."""
    from ...ops.native_functions import NATIVE_FUNCTIONS

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


def _no_grad_clamp_min_(t: Any, value: float) -> Any:
    """``{ at::NoGradGuard guard; t.clamp_min_(value); }`` (a C++ guard: never recorded)."""
    from ...tls import per_thread

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


# --- soft_margin_loss -----------------------------------------------------------------------------

@derivative("soft_margin_loss", "SoftMarginLossBackward0", ("self",), save_inputs=("self", "target", "reduction"),
            no_requires_grad=("target",))
def _soft_margin_loss(ctx, grads, needs):
    return (aten.soft_margin_loss_backward.default(grads[0], ctx.self, ctx.target, ctx.reduction),)


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
