"""Derivative formulas of ``embedding`` and ``embedding_dense_backward`` (double backward), and ``_embedding_bag``.

Corresponds to their entries in tools/autograd/derivatives.yaml: ``embedding_backward`` with the weight's
row count (only its geometry is saved); the double backward reads the incoming gradient at the indices, with
the padding index's rows zeroed.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative
from .not_implemented import _not_implemented, register_not_implemented

aten = namespace("aten")


@derivative("embedding", "EmbeddingBackward0", ("weight",),
            save_inputs=("indices", "padding_idx", "scale_grad_by_freq", "sparse"), save_meta=("weight",))
def _embedding(ctx, grads, needs):
    return (aten.embedding_backward.default(grads[0], ctx.indices, ctx.weight._shape[0], ctx.padding_idx,
                                            ctx.scale_grad_by_freq, ctx.sparse),)


@derivative("embedding_dense_backward", "EmbeddingDenseBackwardBackward0", ("grad_output",),
            save_inputs=("indices", "padding_idx"))
def _embedding_dense_backward(ctx, grads, needs):
    grad, indices, padding_idx = grads[0], ctx.indices, ctx.padding_idx
    gg_weight = aten.index_select.default(grad, 0, aten.reshape.default(indices, [-1]))
    size = list(indices._shape) + [-1]
    if padding_idx >= 0:
        mask = aten.reshape.default(aten.eq.Scalar(indices, padding_idx), [-1, 1])
        aten.masked_fill_.Scalar(gg_weight, mask, 0)
    return (aten.view.default(gg_weight, size),)


@derivative("_embedding_bag", "EmbeddingBagBackward0", ("weight", "per_sample_weights"),
            save_inputs=("weight", "indices", "offsets", "scale_grad_by_freq", "mode", "sparse", "per_sample_weights",
                         "padding_idx"),
            save_outputs=(1, 2, 3), non_differentiable_outputs=(1, 2, 3))
def _embedding_bag(ctx, grads, needs):
    """weight: ``_embedding_bag_backward`` (with offset2bag, bag_size, max_indices); per_sample_weights:
    ``_embedding_bag_per_sample_weights_backward``."""
    grad = grads[0]
    psw = None
    if needs[1]:
        psw = aten._embedding_bag_per_sample_weights_backward.default(grad, ctx.weight, ctx.indices, ctx.offsets,
                                                                       ctx.result1, ctx.mode, ctx.padding_idx)
    gw = None
    if needs[0]:
        gw = aten._embedding_bag_backward.default(grad, ctx.indices, ctx.offsets, ctx.result1, ctx.result2,
                                                  ctx.result3, ctx.weight._shape[0], ctx.scale_grad_by_freq, ctx.mode,
                                                  ctx.sparse, ctx.per_sample_weights, ctx.padding_idx)
    return (gw, psw)


@derivative("_embedding_bag_backward", "EmbeddingBagBackwardBackward0", ("grad", "per_sample_weights"))
def _embedding_bag_backward(ctx, grads, needs):
    """derivatives.yaml: ``grad: not_implemented("_embedding_bag_backward")`` (no double backward)."""
    raise _not_implemented("_embedding_bag_backward")


# no formula in derivatives.yaml: a NotImplemented node
register_not_implemented("_embedding_bag_per_sample_weights_backward", ("grad", "weight"),
                         "_embedding_bag_per_sample_weights_backward")
