"""Derivative formulas of the normalization ops: ``native_layer_norm``, ``native_batch_norm``,
``native_group_norm`` and their backward ops (double backward).

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call: ``native_layer_norm_backward`` / ``native_batch_norm_backward`` / ``native_group_norm_backward`` with the
saved input, weight, (running) statistics and the saved mean / inverse std outputs, and
``layer_norm_double_backward`` / ``batchnorm_double_backward`` op for op. ``native_group_norm`` takes the
first-order path PyTorch takes when the backward runs without grad mode (``create_graph=False``); its backward
op has no formula.
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ..function import derivative
from ..grad_mode import is_grad_enabled
from .cpp_idioms import _strided_options as _options
from .not_implemented import _not_implemented, register_not_implemented

aten = namespace("aten")


# --- layer norm -----------------------------------------------------------------------------------

@derivative("native_layer_norm", "NativeLayerNormBackward0", ("input", "weight", "bias"),
            save_inputs=("input", "normalized_shape", "weight", "bias"), save_outputs=(1, 2),
            non_differentiable_outputs=(1, 2))
def _native_layer_norm(ctx, grads, needs):
    grad = grads[0]
    if grad is None:
        return (None, None, None)
    return aten.native_layer_norm_backward.default(
        grad, ctx.input, ctx.normalized_shape, ctx.result1, ctx.result2, ctx.weight, ctx.bias, list(needs)
    )


@derivative("native_layer_norm_backward", "NativeLayerNormBackwardBackward0",
            ("grad_out", "input", "mean", "rstd", "weight", "bias"),
            save_inputs=("grad_out", "input", "normalized_shape", "mean", "rstd", "weight"))
def _native_layer_norm_backward(ctx, grads, needs):
    # one call computes (input, weight, grad_out); bias gets no gradient; mean / rstd have no derivative
    if needs[2]:
        raise _not_implemented("native_layer_norm_backward mean")
    if needs[3]:
        raise _not_implemented("native_layer_norm_backward rstd")
    mask = [needs[1], needs[4], needs[0]]
    g_input, g_weight, g_grad_out = _layer_norm_double_backward(
        ctx.input, ctx.weight, grads[0], grads[1], grads[2], ctx.grad_out, ctx.mean, ctx.rstd,
        ctx.normalized_shape, mask,
    )
    return (g_grad_out, g_input, None, None, g_weight, None)


def _layer_norm_double_backward(input_t, gamma, ggI, ggG, ggB, gO_t, save_mean_t, save_invstd_t,
                                normalized_shape, output_mask):
    """FunctionsManual's layer_norm_double_backward, op for op.

    Evaluation order as PyTorch's build runs it: ``a.f(x)`` evaluates ``a`` first, but both operands of a
    binary operator (and the arguments of a call) are evaluated right to left.
    """
    input_shape = input_t._shape
    axis = len(input_shape) - len(normalized_shape)
    M = 1
    for s in input_shape[:axis]:
        M *= s
    N = 1
    for s in input_shape[axis:]:
        N *= s
    reshape = aten.reshape.default
    mul, sub, div = aten.mul.Tensor, aten.sub.Tensor, aten.div.Scalar
    input = reshape(input_t, [M, N])  # noqa: A001
    gO = reshape(gO_t, [M, N])
    save_mean = reshape(save_mean_t, [M, 1])
    save_invstd = reshape(save_invstd_t, [M, 1])
    affine = gamma is not None
    ggG_expanded = ggB_expanded = None
    if affine:
        gamma_expanded = reshape(gamma, [1, N])
        if ggG is not None:
            ggG_expanded = reshape(ggG, [1, N])
        if ggB is not None:
            ggB_expanded = reshape(ggB, [1, N])
    else:
        gamma_expanded = aten.ones.default([1], **_options(input))
    ggI_expanded = reshape(ggI, [M, N]) if ggI is not None else None
    mu = _type_as_dtype(save_mean, input)
    input_sub_mu = sub(input, mu)
    sigma2_eps_neg_1_2 = _type_as_dtype(save_invstd, input)
    sigma2_eps_neg_1 = aten.pow.Tensor_Scalar(sigma2_eps_neg_1_2, 2)
    sigma2_eps_neg_3_2 = aten.pow.Tensor_Scalar(sigma2_eps_neg_1_2, 3)

    def sum1(t: Any) -> Any:
        return aten.sum.dim_IntList(t, [1], True)

    gI = None
    input_mu_sigma2_neg_3_2 = mul(input_sub_mu, sigma2_eps_neg_3_2)
    if ggI is not None:
        gxhat = mul(gO, gamma_expanded)
        gxhat_mu_sum = sum1(mul(gxhat, input_sub_mu))
        gxhat_sum = sum1(gxhat)
        ggI_sum = sum1(ggI_expanded)
        ggI_mu_sum = sum1(mul(ggI_expanded, input_sub_mu))
        all_sub = aten.div_.Scalar(mul(ggI_sum, gxhat_sum), N)
        aten.sub_.Tensor(all_sub, sum1(mul(ggI_expanded, gxhat)))
        third = mul(mul(sigma2_eps_neg_1, gxhat_mu_sum), ggI_mu_sum)
        aten.add_.Tensor(all_sub, aten.mul_.Scalar(third, 3.0 / N))
        gI_0t = aten.div_.Scalar(mul(input_mu_sigma2_neg_3_2, all_sub), N)
        right = sub(div(gxhat_sum, N), gxhat)
        gI_1t = mul(aten.div_.Scalar(mul(ggI_mu_sum, sigma2_eps_neg_3_2), N), right)
        right = sub(div(ggI_sum, N), ggI_expanded)
        gI_2t = mul(aten.div_.Scalar(mul(gxhat_mu_sum, sigma2_eps_neg_3_2), N), right)
        gI = aten.add_.Tensor(aten.add_.Tensor(gI_0t, gI_1t), gI_2t)
    if affine and ggG is not None:
        t0 = mul(mul(gO, ggG_expanded), sigma2_eps_neg_1_2)
        t1 = aten.div_.Scalar(mul(sigma2_eps_neg_1_2, sum1(mul(gO, ggG_expanded))), -N)
        t2 = aten.div_.Scalar(mul(input_mu_sigma2_neg_3_2, sum1(mul(mul(gO, ggG_expanded), input_sub_mu))), -N)
        gI_G_term = aten.add_.Tensor(aten.add_.Tensor(t0, t1), t2)
        gI = aten.add_.Tensor(gI, gI_G_term) if gI is not None else gI_G_term
    if gI is not None:
        gI = reshape(gI, list(input_t._shape))  # reshape_as(input_t)

    def first_bwd_fn_grad_input(gO_local: Any, gamma_local: Any) -> Any:
        h0 = aten.div_.Scalar(mul(gamma_local, sigma2_eps_neg_1_2), N)
        h1 = aten.mul.Scalar(gO_local, N)
        aten.sub_.Tensor(h1, sum1(gO_local))
        right = sum1(mul(gO_local, input_sub_mu))
        aten.sub_.Tensor(h1, mul(mul(input_sub_mu, sigma2_eps_neg_1), right))
        return mul(h0, h1)

    gG = None
    if affine and ggI is not None:
        gG = first_bwd_fn_grad_input(ggI_expanded, aten.ones.default([], **_options(sigma2_eps_neg_1_2)))
        gG = aten.sum.dim_IntList(mul(gO, gG), [0])
        gG = reshape(gG, list(gamma._shape))
    ggO = None
    if ggI is not None:
        ggO = first_bwd_fn_grad_input(ggI_expanded, gamma_expanded)
    if ggG is not None:
        ggO_G_term = mul(mul(ggG_expanded, input_sub_mu), sigma2_eps_neg_1_2)
        ggO = aten.add_.Tensor(ggO, ggO_G_term) if ggO is not None else ggO_G_term
    if ggB is not None:
        ggO = aten.add_.Tensor(ggO, ggB_expanded) if ggO is not None else ggB_expanded
    if ggO is not None:
        ggO = reshape(aten.expand.default(ggO, [M, N]), list(input_t._shape))
    return gI, gG, ggO


def _type_as_dtype(t: Any, like: Any) -> Any:
    """``t.to(like.scalar_type())`` (``to.dtype``: a no-op when the dtype already matches)."""
    return aten.to.dtype(t, like._dtype)


# --- batch norm -----------------------------------------------------------------------------------

@derivative("native_batch_norm", "NativeBatchNormBackward0", ("input", "weight", "bias"),
            save_inputs=("input", "weight", "running_mean", "running_var"), save_outputs=(1, 2),
            non_differentiable_outputs=(1, 2), no_requires_grad=("running_mean", "running_var"))
def _native_batch_norm(ctx, grads, needs):
    grad = grads[0]
    if grad is None:
        return (None, None, None)
    return aten.native_batch_norm_backward.default(grad, ctx.input, ctx.weight, ctx.running_mean, ctx.running_var,
                                                   ctx.result1, ctx.result2, ctx.training, ctx.eps, list(needs))


@derivative("native_batch_norm_backward", "NativeBatchNormBackwardBackward0",
            ("grad_out", "input", "weight", "save_mean", "save_invstd"),
            save_inputs=("grad_out", "input", "weight", "running_mean", "running_var", "save_mean", "save_invstd"),
            no_requires_grad=("running_mean", "running_var"))
def _native_batch_norm_backward(ctx, grads, needs):
    # save_mean / save_invstd have no formula; input, weight and grad_out get batchnorm_double_backward
    if needs[4]:
        raise _not_implemented("native_batch_norm_backward save_invstd")
    if needs[3]:
        raise _not_implemented("native_batch_norm_backward save_mean")
    g_input, g_weight, g_grad_out = _batchnorm_double_backward(
        ctx.input, ctx.weight, grads[0], grads[1], grads[2], ctx.grad_out, ctx.running_mean, ctx.running_var,
        ctx.train, ctx.eps, ctx.save_mean, ctx.save_invstd)
    return (g_grad_out if needs[0] else None, g_input if needs[1] else None, g_weight if needs[2] else None, None,
            None)


def _sum_exclude_dim1(t, keepdim: bool = True):  # noqa: ANN001, ANN202
    """Sum over every dim but 1 (dim 0 first, then the last ones down to dim 2)."""
    r = aten.sum.dim_IntList(t, [0], keepdim)
    for dim in range(r.dim() - 1, 1 if keepdim else 0, -1):
        r = aten.sum.dim_IntList(r, [dim], keepdim)
    return r


def _unsqueeze_dim1(src, target):  # noqa: ANN001, ANN202
    """A per-channel vector shaped like a keepdim reduction of ``target`` over every dim but 1."""
    while src.dim() < target.dim() - 1:
        src = aten.unsqueeze.default(src, 1)
    if src.dim() == target.dim() - 1:
        src = aten.unsqueeze.default(src, 0)
    return src


def _expand_as_dim1(src, target):  # noqa: ANN001, ANN202
    while src.dim() < target.dim() - 1:
        src = aten.unsqueeze.default(src, 1)
    return aten.expand.default(src, list(target._shape))


def _batchnorm_double_backward(input, gamma, ggI, ggG, ggB, gO, running_mean, running_var,  # noqa: A002, ANN001, ANN202, N803
                               training, eps, save_mean, save_invstd):
    """FunctionsManual's batchnorm_double_backward, op for op (returns gI, gG, ggO).

    C++ evaluation order as PyTorch's build runs it: ``a.f(x)`` evaluates ``a`` first, both operands of a binary
    operator are evaluated right to left.
    """
    mul, sub, div_s = aten.mul.Tensor, aten.sub.Tensor, aten.div.Scalar
    affine = gamma is not None
    ggG_expanded = ggB_expanded = None  # noqa: N806
    if affine:
        gamma_expanded = _expand_as_dim1(gamma, input)
        if ggG is not None:
            ggG_expanded = _expand_as_dim1(ggG, input)  # noqa: N806
        if ggB is not None:
            ggB_expanded = _expand_as_dim1(ggB, input)  # noqa: N806
    else:
        gamma_expanded = aten.ones.default([], **_options(input))
    M = input._shape[0]  # noqa: N806
    for s in input._shape[2:]:
        M *= s  # noqa: N806
    to = aten.to.dtype
    mu = _unsqueeze_dim1(to(save_mean, input._dtype) if training else running_mean, input)
    input_sub_mu = sub(input, mu)
    if training:
        invstd = to(save_invstd, input._dtype)
    else:
        invstd = aten.pow.Tensor_Scalar(aten.add.Scalar(running_var, eps), -0.5)
    sigma2_eps_neg_1_2 = _unsqueeze_dim1(invstd, input)
    sigma2_eps_neg_1 = aten.pow.Tensor_Scalar(sigma2_eps_neg_1_2, 2)
    sigma2_eps_neg_3_2 = aten.pow.Tensor_Scalar(sigma2_eps_neg_1_2, 3)
    input_mu_sigma2_neg_3_2 = mul(input_sub_mu, sigma2_eps_neg_3_2)
    gOinmu_sum = _sum_exclude_dim1(mul(gO, input_sub_mu))  # noqa: N806
    gO_sum = _sum_exclude_dim1(gO)  # noqa: N806

    gI = None  # noqa: N806
    if ggI is not None and training:
        ggI_sum = _sum_exclude_dim1(ggI)  # noqa: N806
        ggIinmu_sum = _sum_exclude_dim1(mul(ggI, input_sub_mu))  # noqa: N806
        all_sub = aten.div_.Scalar(mul(ggI_sum, gO_sum), M)
        all_sub = aten.sub_.Tensor(all_sub, _sum_exclude_dim1(mul(gO, ggI)))
        all_sub = aten.add_.Tensor(all_sub, aten.mul_.Scalar(mul(mul(sigma2_eps_neg_1, gOinmu_sum), ggIinmu_sum),
                                                             3.0 / M))
        gI_0t = aten.div_.Scalar(mul(input_mu_sigma2_neg_3_2, all_sub), M)  # noqa: N806
        right = sub(div_s(gO_sum, M), gO)
        gI_1t = mul(aten.div_.Scalar(mul(ggIinmu_sum, sigma2_eps_neg_3_2), M), right)  # noqa: N806
        right = sub(div_s(ggI_sum, M), ggI)
        gI_2t = mul(aten.div_.Scalar(mul(gOinmu_sum, sigma2_eps_neg_3_2), M), right)  # noqa: N806
        gI = mul(gamma_expanded, aten.add_.Tensor(aten.add_.Tensor(gI_0t, gI_1t), gI_2t))  # noqa: N806

    if affine and ggG is not None:
        if training:
            t0 = mul(gO, sigma2_eps_neg_1_2)
            t1 = aten.div_.Scalar(mul(sigma2_eps_neg_1_2, gO_sum), -M)
            right = _sum_exclude_dim1(mul(gO, input_sub_mu))
            t2 = aten.div_.Scalar(mul(input_mu_sigma2_neg_3_2, right), -M)
            gI_G_term = mul(ggG_expanded, aten.add_.Tensor(aten.add_.Tensor(t0, t1), t2))  # noqa: N806
        else:
            gI_G_term = mul(mul(ggG_expanded, sigma2_eps_neg_1_2), gO)  # noqa: N806
        gI = aten.add_.Tensor(gI, gI_G_term) if gI is not None else gI_G_term  # noqa: N806

    def first_back_grad_input(g, gam):  # noqa: ANN001, ANN202
        h0 = aten.div_.Scalar(mul(gam, sigma2_eps_neg_1_2), M)
        h1 = aten.sub_.Tensor(aten.mul.Scalar(g, M), _sum_exclude_dim1(g))
        right = _sum_exclude_dim1(mul(g, input_sub_mu))
        h1 = aten.sub_.Tensor(h1, mul(mul(input_sub_mu, sigma2_eps_neg_1), right))
        return mul(h0, h1)

    gG = None  # noqa: N806
    if affine and ggI is not None:
        if training:
            ones = aten.ones.default([], **_options(sigma2_eps_neg_1_2))
            gG = _sum_exclude_dim1(mul(ggI, first_back_grad_input(gO, ones)), False)  # noqa: N806
        else:
            gG = _sum_exclude_dim1(mul(mul(ggI, gO), sigma2_eps_neg_1_2), False)  # noqa: N806

    ggO = None  # noqa: N806
    if ggI is not None:
        if training:
            ggO = first_back_grad_input(ggI, gamma_expanded)  # noqa: N806
        else:
            ggO = mul(mul(ggI, sigma2_eps_neg_1_2), gamma_expanded)  # noqa: N806
    if ggG is not None and ggG_expanded is not None:
        term = mul(mul(ggG_expanded, input_sub_mu), sigma2_eps_neg_1_2)
        ggO = aten.add_.Tensor(ggO, term) if ggO is not None else term  # noqa: N806
    if ggB is not None and ggB_expanded is not None:
        ggO = aten.add_.Tensor(ggO, ggB_expanded) if ggO is not None else ggB_expanded  # noqa: N806
    return gI, gG, ggO


# --- group norm -----------------------------------------------------------------------------------

@derivative("native_group_norm", "NativeGroupNormBackward0", ("input", "weight", "bias"),
            save_inputs=("input", "weight"), save_outputs=(1, 2))
def _native_group_norm(ctx, grads, needs):
    grad = grads[0]
    if grads[1] is not None or grads[2] is not None:
        # PyTorch then runs infinitely_differentiable_native_group_norm_backward (not written here)
        raise _not_implemented("native_group_norm with gradients for mean / rstd")
    if grad is None:
        return (None, None, None)
    grad = grad if grad.is_contiguous() else aten.contiguous.default(grad)
    x = ctx.input if ctx.input.is_contiguous() else aten.contiguous.default(ctx.input)
    return aten.native_group_norm_backward.default(grad, x, ctx.result1, ctx.result2, ctx.weight, ctx.N, ctx.C,
                                                   ctx.HxW, ctx.group, list(needs))


@derivative("native_group_norm_backward", "NotImplemented", ("grad_out", "input", "mean", "rstd", "weight"))
def _native_group_norm_backward(ctx, grads, needs):
    """PyTorch has no formula for native_group_norm_backward: its node is ``NotImplemented``."""
    raise RuntimeError("derivative for aten::native_group_norm_backward is not implemented")


# --- weight norm (issue 20) ---------------------------------------------------------------------------------------

@derivative("_weight_norm_interface", "WeightNormInterfaceBackward0", ("v", "g"),
            save_inputs=("v", "g", "dim"), save_outputs=(1,), non_differentiable_outputs=(1,))
def _weight_norm_interface_formula(ctx, grads, needs):
    """``_weight_norm_interface_backward(grad.contiguous(), v, g, result1, dim)``, or while building a graph
    (create_graph) ``_weight_norm_differentiable_backward``: the same formula in differentiable ops."""
    grad = grads[0]
    if grad is None:
        return (None, None)
    grad = grad.contiguous()
    if is_grad_enabled():
        return _weight_norm_differentiable_backward(grad, ctx.v, ctx.g, ctx.result1, ctx.dim)
    return aten._weight_norm_interface_backward.default(grad, ctx.v, ctx.g, ctx.result1, ctx.dim)


def _weight_norm_differentiable_backward(grad_w: Any, v: Any, g: Any, norms: Any, dim: int) -> tuple[Any, Any]:
    """FunctionsManual's ``_weight_norm_differentiable_backward``: sums of ``grad_w * v`` over every dim but ``dim``
    (the first or the last), then ``grad_v = (g / norms) * (grad_w - v * (sums / (norms * norms)))`` and
    ``grad_g = sums / norms``."""
    last_dim = v.dim() - 1
    if dim != 0 and dim != last_dim:
        raise RuntimeError("Expected dim to be the first or last dimension")
    bcast_size = [1] * v.dim()
    prod = aten.mul.Tensor(grad_w, v)
    if dim == 0:
        bcast_size[0] = v.size(0)
        sums = aten.sum.dim_IntList(aten.view.default(prod, [v.size(0), -1]), [1])
    else:
        bcast_size[last_dim] = v.size(last_dim)
        sums = aten.sum.dim_IntList(aten.view.default(prod, [-1, v.size(last_dim)]), [0])
    sums = aten.view.default(sums, bcast_size)
    grad_v = aten.mul.Tensor(aten.div.Tensor(g, norms), aten.sub.Tensor(
        grad_w, aten.mul.Tensor(v, aten.div.Tensor(sums, aten.mul.Tensor(norms, norms)))))
    return (grad_v, aten.div.Tensor(sums, norms))


# no entry in derivatives.yaml: torchgen's kernel records a NotImplemented node over the four tensors
register_not_implemented("_weight_norm_interface_backward", ("grad_w", "saved_v", "saved_g", "saved_norms"),
                         "_weight_norm_interface_backward")
