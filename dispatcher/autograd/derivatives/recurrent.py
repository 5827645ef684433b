"""Derivative formulas of the recurrent ops: oneDNN's LSTM layer ``mkldnn_rnn_layer`` and ``_pack_padded_sequence``.

Corresponds to their entries in tools/autograd/derivatives.yaml. The RNN ops themselves (``lstm``, ``gru``, the
cells, ...) are CompositeImplicitAutograd: their gradients come from the ops they decompose into.
``mkldnn_rnn_layer``'s formula calls ``mkldnn_rnn_layer_backward`` with the saved inputs and outputs, as PyTorch does
when the backward runs without grad mode (``create_graph=False``); the differentiable form PyTorch takes under grad
mode (``mkldnn_rnn_layer_differentiable_backward``, a C++ function of ops) is not written here.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative
from ..grad_mode import is_grad_enabled
from .not_implemented import _not_implemented

aten = namespace("aten")


@derivative("mkldnn_rnn_layer", "MkldnnRnnLayerBackward0",
            ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"),
            save_inputs=("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_", "reverse", "batch_sizes",
                         "mode", "hidden_size", "num_layers", "has_biases", "bidirectional", "batch_first", "train"),
            save_outputs=(0, 1, 2, 3), non_differentiable_outputs=(3,))
def _mkldnn_rnn_layer(ctx, grads, needs):
    if all(g is None for g in grads[:3]):
        return (None,) * 7
    if is_grad_enabled():
        raise _not_implemented("mkldnn_rnn_layer_differentiable_backward (a double backward through an LSTM layer)")
    return aten.mkldnn_rnn_layer_backward.default(
        ctx.input, ctx.weight0, ctx.weight1, ctx.weight2, ctx.weight3, ctx.hx_, ctx.cx_, ctx.result0, ctx.result1,
        ctx.result2, grads[0], grads[1], grads[2], ctx.reverse, ctx.mode, ctx.hidden_size, ctx.num_layers,
        ctx.has_biases, ctx.train, ctx.bidirectional, list(ctx.batch_sizes), ctx.batch_first, ctx.result3)


@derivative("_pack_padded_sequence", "PackPaddedSequenceBackward0", ("input",),
            save_inputs=("batch_first",), save_outputs=(1,), save_meta=("input",), non_differentiable_outputs=(1,))
def _pack_padded_sequence(ctx, grads, needs):
    if grads[0] is None:
        return (None,)
    return (aten._pack_padded_sequence_backward.default(grads[0], list(ctx.input._shape), ctx.result1,
                                                        ctx.batch_first),)
