"""Derivative formulas of ``convolution`` and ``convolution_backward`` (double backward), ``im2col`` / ``col2im``.

Corresponds to their entries in tools/autograd/derivatives.yaml: one ``convolution_backward`` call for input,
weight and bias (``bias_sizes`` from the bias's sizes, saved as geometry; ``output_mask`` = which of them need
a gradient), and aten/src/ATen/native/Convolution.cpp's ``_convolution_double_backward``, op for op (a transposed
convolution's input gradient there is the plain convolution of gO with ggW). ``im2col``'s gradient is ``col2im`` to
the input's last two sizes and ``col2im``'s is ``im2col``.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative

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
        if transposed:  # the transposed convolution's gradient is a convolution
            return ggO, conv(gO, ggW, None, stride, padding, dilation, False, output_padding, groups), gW
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


@derivative("im2col", "Im2ColBackward0", ("self",), save_meta=("self",))
def _im2col(ctx, grads, needs):
    size = list(ctx.self._shape[-2:])
    return (aten.col2im.default(grads[0], size, ctx.kernel_size, ctx.dilation, ctx.padding, ctx.stride),)


@derivative("col2im", "Col2ImBackward0", ("self",))
def _col2im(ctx, grads, needs):
    return (aten.im2col.default(grads[0], ctx.kernel_size, ctx.dilation, ctx.padding, ctx.stride),)
