"""Derivative formulas of ``embedding`` and ``embedding_dense_backward`` (double backward).

Corresponds to their entries in tools/autograd/derivatives.yaml: ``embedding_backward`` with the weight's
row count (only its geometry is saved); the double backward reads the incoming gradient at the indices, with
the padding index's rows zeroed.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative

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
