"""Derivative formulas of the masked indexing ops: ``masked_fill``, ``masked_select``, ``masked_scatter`` (and
its backward op, for double backward), and their in-place forms. The other indexing ops are in indexing.py.

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call (``masked_fill_backward``, ``masked_select_backward``, ``masked_scatter_backward``), including their
out-of-place branches when a tensor is subclass-like.
"""

from __future__ import annotations

from ...memory_format import preserve_format
from ...op_overload import namespace
from ...ops.meta_utils import broadcast_shapes
from ..function import derivative
from .cpp_idioms import _options, _subclass_like
from .inplace_formulas import inplace_of

aten = namespace("aten")


@derivative("masked_fill.Scalar", "MaskedFillBackward0", ("self",), save_inputs=("mask",))
def _masked_fill_scalar(ctx, grads, needs):
    return (aten.masked_fill.Scalar(grads[0], ctx.mask, 0),)


inplace_of("masked_fill_.Scalar", "masked_fill.Scalar")


@derivative("masked_fill.Tensor", "MaskedFillBackward1", ("self", "value"), save_inputs=("mask",))
def _masked_fill_tensor(ctx, grads, needs):
    g, mask = grads[0], ctx.mask
    self = aten.masked_fill.Scalar(g, mask, 0) if needs[0] else None
    value = None
    if needs[1]:  # masked_fill_backward: the sum of the gradients at the filled positions
        if _subclass_like(g, mask):
            value = aten.sum.default(aten.where.ScalarOther(mask, g, 0))
        else:
            value = aten.sum.default(aten.masked_select.default(g, mask))
    return (self, value)


inplace_of("masked_fill_.Tensor", "masked_fill.Tensor")


@derivative("masked_select", "MaskedSelectBackward0", ("self",), save_inputs=("self", "mask"))
def _masked_select(ctx, grads, needs):
    """``masked_select_backward``: the gradients scattered back into zeros shaped like self broadcast with mask."""
    g, x, mask = grads[0], ctx.self, ctx.mask
    zeros = aten.zeros_like.default(aten.expand.default(x, list(broadcast_shapes(x._shape, mask._shape))),
                                    memory_format=preserve_format)
    if _subclass_like(x, mask):
        return (aten.masked_scatter.default(zeros, mask, g),)
    aten.masked_scatter_.default(zeros, mask, g)
    return (zeros,)


@derivative("masked_scatter", "MaskedScatterBackward0", ("self", "source"), save_inputs=("mask",),
            save_meta=("source",))
def _masked_scatter(ctx, grads, needs):
    g, mask = grads[0], ctx.mask
    self = aten.masked_fill.Scalar(g, mask, 0) if needs[0] else None
    source = aten.masked_scatter_backward.default(g, mask, list(ctx.source._shape)) if needs[1] else None
    return (self, source)


inplace_of("masked_scatter_", "masked_scatter")


@derivative("masked_scatter_backward", "MaskedScatterBackwardBackward0", ("grad_output",), save_inputs=("mask",),
            save_meta=("grad_output",))
def _masked_scatter_backward(ctx, grads, needs):
    """``zeros_like(grad_output).masked_scatter(mask, grad)`` (``zeros_like`` of an input is ``at::zeros``)."""
    go = ctx.grad_output
    zeros = aten.zeros.default(list(go._shape), **_options(go))
    return (aten.masked_scatter.default(zeros, ctx.mask, grads[0]),)
