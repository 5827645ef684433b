"""Derivative formulas of the pooling ops: ``max_pool2d_with_indices``, ``avg_pool2d``,
``_adaptive_avg_pool2d`` and their backward ops (double backward).

Corresponds to their entries in tools/autograd/derivatives.yaml: ``max_pool2d_with_indices_backward``
reading the saved indices (output 1, not differentiable), ``avg_pool2d_backward``,
``_adaptive_avg_pool2d_backward``; FunctionsManual.cpp's ``max_pool_double_backward`` reads the incoming
gradient at the saved indices.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative
from .cpp_idioms import _strided_options as _options

aten = namespace("aten")


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


# --- 3-d pooling, adaptive max pooling, max_unpool2d (issue 19) ------------------------------------------------------


@derivative("max_pool3d_with_indices", "MaxPool3DWithIndicesBackward0", ("self",), save_inputs=("self",),
            save_outputs=(1,), non_differentiable_outputs=(1,))
def _max_pool3d_with_indices(ctx, grads, needs):
    return (aten.max_pool3d_with_indices_backward.default(grads[0], ctx.self, ctx.kernel_size, ctx.stride,
                                                          ctx.padding, ctx.dilation, ctx.ceil_mode, ctx.result1),)


@derivative("max_pool3d_with_indices_backward", "MaxPool3DWithIndicesBackwardBackward0", ("grad_output", "self"),
            save_inputs=("indices",), save_meta=("self",))
def _max_pool3d_with_indices_backward(ctx, grads, needs):
    g_grad = _max_pool_double_backward(grads[0], ctx.indices, 3) if needs[0] else None
    g_self = _zeros_like(ctx.self) if needs[1] else None
    return (g_grad, g_self)


@derivative("avg_pool3d", "AvgPool3DBackward0", ("self",), save_inputs=("self",))
def _avg_pool3d(ctx, grads, needs):
    return (aten.avg_pool3d_backward.default(grads[0], ctx.self, ctx.kernel_size, ctx.stride, ctx.padding,
                                             ctx.ceil_mode, ctx.count_include_pad, ctx.divisor_override),)


@derivative("avg_pool3d_backward", "AvgPool3DBackwardBackward0", ("grad_output", "self"), save_meta=("self",))
def _avg_pool3d_backward(ctx, grads, needs):
    g_grad = g_self = None
    if needs[0]:
        g_grad = aten.avg_pool3d.default(grads[0], ctx.kernel_size, ctx.stride, ctx.padding, ctx.ceil_mode,
                                         ctx.count_include_pad, ctx.divisor_override)
    if needs[1]:
        g_self = _zeros_like(ctx.self)
    return (g_grad, g_self)


@derivative("_adaptive_avg_pool3d", "AdaptiveAvgPool3DBackward0", ("self",), save_inputs=("self",))
def _adaptive_avg_pool3d(ctx, grads, needs):
    return (aten._adaptive_avg_pool3d_backward.default(grads[0], ctx.self),)


@derivative("_adaptive_avg_pool3d_backward", "AdaptiveAvgPool3DBackwardBackward0", ("grad_output", "self"),
            save_meta=("grad_output", "self"))
def _adaptive_avg_pool3d_backward(ctx, grads, needs):
    g_grad = g_self = None
    if needs[0]:
        g_grad = aten._adaptive_avg_pool3d.default(grads[0], list(ctx.grad_output._shape[-3:]))
    if needs[1]:
        g_self = _zeros_like(ctx.self)
    return (g_grad, g_self)


@derivative("adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0", ("self",), save_inputs=("self",),
            save_outputs=(1,), non_differentiable_outputs=(1,))
def _adaptive_max_pool2d(ctx, grads, needs):
    return (aten.adaptive_max_pool2d_backward.default(grads[0], ctx.self, ctx.result1),)


@derivative("adaptive_max_pool2d_backward", "AdaptiveMaxPool2DBackwardBackward0", ("grad_output", "self"),
            save_inputs=("indices",), save_meta=("self",))
def _adaptive_max_pool2d_backward(ctx, grads, needs):
    g_grad = _max_pool_double_backward(grads[0], ctx.indices, 2) if needs[0] else None
    g_self = _zeros_like(ctx.self) if needs[1] else None
    return (g_grad, g_self)


@derivative("adaptive_max_pool3d", "AdaptiveMaxPool3DBackward0", ("self",), save_inputs=("self",),
            save_outputs=(1,), non_differentiable_outputs=(1,))
def _adaptive_max_pool3d(ctx, grads, needs):
    return (aten.adaptive_max_pool3d_backward.default(grads[0], ctx.self, ctx.result1),)


@derivative("adaptive_max_pool3d_backward", "AdaptiveMaxPool3DBackwardBackward0", ("grad_output", "self"),
            save_inputs=("indices",), save_meta=("self",))
def _adaptive_max_pool3d_backward(ctx, grads, needs):
    g_grad = _max_pool_double_backward(grads[0], ctx.indices, 3) if needs[0] else None
    g_self = _zeros_like(ctx.self) if needs[1] else None
    return (g_grad, g_self)


@derivative("max_unpool2d", "MaxUnpool2DBackward0", ("self",), save_inputs=("indices",))
def _max_unpool2d(ctx, grads, needs):
    return (_max_pool_double_backward(grads[0], ctx.indices, 2),)
