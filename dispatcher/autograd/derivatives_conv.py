"""Derivative formulas of the conv batch: convolution, pooling, batch norm and group norm.

Corresponds to their entries in tools/autograd/derivatives.yaml:

* ``convolution``: one ``convolution_backward`` call for input, weight and bias (``bias_sizes`` from the
  bias's sizes, saved as geometry; ``output_mask`` = which of them need a gradient);
* ``max_pool2d_with_indices``: ``max_pool2d_with_indices_backward`` reading the saved indices (output 1,
  not differentiable); ``avg_pool2d``: ``avg_pool2d_backward``; ``_adaptive_avg_pool2d``:
  ``_adaptive_avg_pool2d_backward``;
* ``native_batch_norm``: ``native_batch_norm_backward`` with the saved input, weight, running statistics
  and the batch mean / inverse std (outputs 1, 2); ``native_group_norm``: ``native_group_norm_backward`` (the
  first-order path PyTorch takes when the backward runs without grad mode, ``create_graph=False``).

The backward ops' own derivatives (double backward) are not written: they raise.
"""

from __future__ import annotations

from ..op_overload import namespace
from .derivatives_nn import _not_implemented, _options
from .function import derivative

aten = namespace("aten")


@derivative("convolution", "ConvolutionBackward0", ("input", "weight", "bias"), save_inputs=("input", "weight"),
            save_meta=("bias",))
def _convolution(ctx, grads, needs):
    grad = grads[0]
    if grad is None:
        return (None, None, None)
    if ctx.bias is not None:
        bias_sizes = list(ctx.bias._shape)
    else:  # [0] when conv1d / conv2d passed an undefined bias (ops/conv.py), None when called without one
        bias_sizes = ctx.node.saved.get("undefined_bias_sizes")
    return aten.convolution_backward.default(grad, ctx.input, ctx.weight, bias_sizes, ctx.stride, ctx.padding,
                                             ctx.dilation, ctx.transposed, ctx.output_padding, ctx.groups,
                                             list(needs))


@derivative("convolution_backward", "ConvolutionBackwardBackward0", ("grad_output", "input", "weight"),
            save_inputs=("grad_output", "input", "weight"))
def _convolution_backward(ctx, grads, needs):
    ggO, gI, gW = _convolution_double_backward(  # noqa: N806
        grads[0], grads[1], grads[2], ctx.grad_output, ctx.weight, ctx.input, ctx.stride, ctx.padding, ctx.dilation,
        ctx.transposed, ctx.output_padding, ctx.groups)
    return (ggO if needs[0] else None, gI if needs[1] else None, gW if needs[2] else None)


def _expand(value, dim: int) -> list:  # noqa: ANN001
    value = list(value)
    return value * dim if len(value) == 1 else value


def _convolution_double_backward(ggI, ggW, ggb, gO, weight, input, stride, padding, dilation,  # noqa: A002, ANN001, ANN202, N803
                                 transposed, output_padding, groups):
    """Convolution.cpp's ``_convolution_double_backward``, op for op (returns ggO, gI, gW).

    ggO = conv(ggI, w) + conv(input, ggW) + ggb; gW = conv(ggI^T, gO^T)^T (stride and dilation swapped, one
    convolution per group, narrowed to the kernel); gI = the transposed convolution of gO with ggW (its
    output_padding recovering the input's size).
    """
    conv = aten.convolution.default
    dim = weight.dim() - 2
    stride, padding, dilation = _expand(stride, dim), _expand(padding, dim), _expand(dilation, dim)
    output_padding = _expand(output_padding, dim)
    ggO = None  # noqa: N806
    if input.numel() != 0:
        if ggI is not None:
            ggO = conv(ggI, weight, None, stride, padding, dilation, transposed, output_padding, groups)  # noqa: N806
        if ggW is not None:
            term = conv(input, ggW, None, stride, padding, dilation, transposed, output_padding, groups)
            ggO = aten.add.Tensor(ggO, term) if ggO is not None else term  # noqa: N806
    if ggb is not None:
        new_size = [1] * gO.dim()
        new_size[1] = ggb._shape[0]
        expanded = aten.expand.default(aten.view.default(aten.contiguous.default(ggb), new_size), list(gO._shape))
        ggO = aten.add.Tensor(ggO, expanded) if ggO is not None else expanded  # noqa: N806

    gW = None  # noqa: N806
    if ggI is not None:
        gOt = aten.transpose.int(gO, 0, 1)  # noqa: N806
        ggIt = aten.transpose.int(ggI, 0, 1)  # noqa: N806
        if input.numel() != 0:
            # groups handled one by one; stride and dilation swap roles
            args = (None, dilation, padding, stride, False, output_padding, 1)

            def one(a, b):  # noqa: ANN001, ANN202
                return conv(b, a, *args) if transposed else conv(a, b, *args)

            if groups == 1:
                gWt = one(ggIt, gOt)  # noqa: N806
            else:
                parts = []
                for g in range(groups):
                    parts.append(one(_subvariable(ggIt, groups, g), _subvariable(gOt, groups, g)))
                gWt = aten.cat.default(parts, 1)  # noqa: N806
            gW = aten.transpose.int(gWt, 0, 1)  # noqa: N806
            for i in range(2, gW.dim()):
                if gW._shape[i] > weight._shape[i]:
                    gW = aten.slice.Tensor(gW, i, 0, weight._shape[i])  # noqa: N806 - narrow

    gI = None  # noqa: N806
    if input.numel() != 0 and ggW is not None:
        if transposed:
            raise NotImplementedError("dispatchkit: double backward of a transposed convolution is not implemented")
        gi_output_padding = list(output_padding)
        for i, k in enumerate(weight._shape[2:]):
            expected = ((k - 1) * dilation[i] - 2 * padding[i] + (gO._shape[i + 2] - 1) * stride[i] + 1)
            if expected != input._shape[i + 2]:
                gi_output_padding[i] = input._shape[i + 2] - expected
        gI = conv(gO, ggW, None, stride, padding, dilation, True, gi_output_padding, groups)  # noqa: N806
    return ggO, gI, gW


def _subvariable(t, groups: int, g: int):  # noqa: ANN001, ANN202
    """``subvariable``: group ``g`` of ``groups`` along dim 0 (``narrow``, recorded as ``slice``)."""
    n = t._shape[0] // groups
    return aten.slice.Tensor(t, 0, g * n, g * n + n)


@derivative("max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0", ("self",), save_inputs=("self",),
            save_outputs=(1,), non_differentiable_outputs=(1,))
def _max_pool2d_with_indices(ctx, grads, needs):
    return (aten.max_pool2d_with_indices_backward.default(grads[0], ctx.self, ctx.kernel_size, ctx.stride,
                                                          ctx.padding, ctx.dilation, ctx.ceil_mode, ctx.result1),)


def _max_pool_double_backward(grad, indices, dim: int):  # noqa: ANN001, ANN202
    """``max_pool_double_backward``: the incoming gradient read at the saved indices (per plane)."""
    if indices.numel() == 0:
        return aten.empty_like.default(indices, dtype=grad._dtype)
    size = [*indices._shape[: indices.dim() - dim], -1]
    indices_view = aten.view.default(indices, size)
    flat = aten.view.default(aten.contiguous.default(grad), size)
    return aten.view.default(aten.gather.default(flat, -1, indices_view), list(indices._shape))


@derivative("max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0", ("grad_output", "self"),
            save_inputs=("indices",), save_meta=("self",))
def _max_pool2d_with_indices_backward(ctx, grads, needs):
    g_grad = _max_pool_double_backward(grads[0], ctx.indices, 2) if needs[0] else None
    g_self = _zeros_like(ctx.self) if needs[1] else None
    return (g_grad, g_self)


def _zeros_like(geometry):  # noqa: ANN001, ANN202
    """``zeros_like(self)`` of a tensor saved as geometry only: ``zeros`` of its sizes and options."""
    return aten.zeros.default(list(geometry._shape), **_options(geometry))


@derivative("avg_pool2d", "AvgPool2DBackward0", ("self",), save_inputs=("self",))
def _avg_pool2d(ctx, grads, needs):
    return (aten.avg_pool2d_backward.default(grads[0], ctx.self, ctx.kernel_size, ctx.stride, ctx.padding,
                                             ctx.ceil_mode, ctx.count_include_pad, ctx.divisor_override),)


@derivative("avg_pool2d_backward", "AvgPool2DBackwardBackward0", ("grad_output", "self"), save_meta=("self",))
def _avg_pool2d_backward(ctx, grads, needs):
    g_grad = g_self = None
    if needs[0]:
        g_grad = aten.avg_pool2d.default(grads[0], ctx.kernel_size, ctx.stride, ctx.padding, ctx.ceil_mode,
                                         ctx.count_include_pad, ctx.divisor_override)
    if needs[1]:
        g_self = _zeros_like(ctx.self)
    return (g_grad, g_self)


@derivative("_adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", ("self",), save_inputs=("self",))
def _adaptive_avg_pool2d(ctx, grads, needs):
    return (aten._adaptive_avg_pool2d_backward.default(grads[0], ctx.self),)


@derivative("_adaptive_avg_pool2d_backward", "AdaptiveAvgPool2DBackwardBackward0", ("grad_output", "self"),
            save_meta=("grad_output", "self"))
def _adaptive_avg_pool2d_backward(ctx, grads, needs):
    g_grad = g_self = None
    if needs[0]:
        g_grad = aten._adaptive_avg_pool2d.default(grads[0], list(ctx.grad_output._shape[-2:]))
    if needs[1]:
        g_self = _zeros_like(ctx.self)
    return (g_grad, g_self)


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
