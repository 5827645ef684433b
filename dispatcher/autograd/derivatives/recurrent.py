"""Derivative formulas of the recurrent ops: oneDNN's LSTM layer ``mkldnn_rnn_layer`` and ``_pack_padded_sequence``.

Corresponds to their entries in tools/autograd/derivatives.yaml. The RNN ops themselves (``lstm``, ``gru``, the
cells, ...) are CompositeImplicitAutograd: their gradients come from the ops they decompose into.
``mkldnn_rnn_layer``'s formula calls ``mkldnn_rnn_layer_backward`` with the saved inputs and outputs when the backward
runs without grad mode (``create_graph=False``), and under grad mode mkldnn/RNN.cpp's
``mkldnn_rnn_layer_differentiable_backward``: the layer recomputed step by step and differentiated by hand, in
ops (so a double backward goes through them). C++ evaluation order is kept: the operands of a binary operator
right to left, ``scalar - tensor`` as ``empty_like(...).fill_(scalar).sub_(tensor)``.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative
from ..grad_mode import is_grad_enabled
from .cpp_idioms import _one_minus
from .cpp_idioms import _strided_options as _options

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
        return _differentiable_backward(ctx, grads)
    return aten.mkldnn_rnn_layer_backward.default(
        ctx.input, ctx.weight0, ctx.weight1, ctx.weight2, ctx.weight3, ctx.hx_, ctx.cx_, ctx.result0, ctx.result1,
        ctx.result2, grads[0], grads[1], grads[2], ctx.reverse, ctx.mode, ctx.hidden_size, ctx.num_layers,
        ctx.has_biases, ctx.train, ctx.bidirectional, list(ctx.batch_sizes), ctx.batch_first, ctx.result3)


def _differentiable_backward(ctx, grads):  # noqa: ANN001, ANN202 - a formula
    """mkldnn/RNN.cpp ``mkldnn_rnn_layer_differentiable_backward``, op for op."""
    x, w0, w1, hx_, cx_ = ctx.input, ctx.weight0, ctx.weight1, ctx.hx_, ctx.cx_
    output = ctx.result0
    ctx.result1, ctx.result2  # noqa: B018 - the formula's arguments: each saved output is unpacked (a detach)
    grad_output = aten.contiguous.default(grads[0]) if grads[0] is not None else aten.zeros_like.default(output)
    grad_hy = aten.contiguous.default(grads[1]) if grads[1] is not None else aten.zeros_like.default(hx_)
    grad_cy = aten.contiguous.default(grads[2]) if grads[2] is not None else aten.zeros_like.default(cx_)
    if ctx.has_biases:
        bias_ih, bias_hh = ctx.weight2, ctx.weight3
    else:
        bias_ih = aten.zeros.default([4 * ctx.hidden_size], **_options(w0))
        bias_hh = aten.zeros.default([4 * ctx.hidden_size], **_options(w0))
    seq_length = x._shape[0]
    reverse = ctx.reverse
    gates: list = [None] * seq_length
    states: list = [None] * (seq_length + 1)
    states[0] = (hx_, cx_)
    hx_prev, cx_prev = hx_, cx_
    for seq in range(1, seq_length + 1):
        hx, cx = hx_prev, cx_prev
        t = seq_length - seq if reverse else seq - 1
        gate = aten.add_.Tensor(aten.linear.default(aten.select.int(x, 0, t), w0, bias_ih),
                                aten.linear.default(hx, w1, bias_hh))
        chunked = aten.unsafe_chunk.default(gate, 4, 1)
        i = aten.sigmoid_.default(chunked[0])
        f = aten.sigmoid_.default(chunked[1])
        g = aten.tanh_.default(chunked[2])
        o = aten.sigmoid_.default(chunked[3])
        gates[t] = (i, f, g, o)
        ig = aten.mul.Tensor(i, g)
        cy = aten.add.Tensor(aten.mul.Tensor(f, cx), ig)
        hy = aten.mul.Tensor(o, aten.tanh.default(cy))
        states[seq] = (hy, cy)
        hx_prev, cx_prev = hy, cy
    layer_dx: list = [None] * seq_length
    db = dwx = dwh = dprev_h = dprev_c = None
    for seq in range(seq_length - 1, -1, -1):
        t = seq_length - seq - 1 if reverse else seq
        i, f, g, o = gates[t]
        _, cy = states[seq + 1]
        hx, cx = states[seq]
        new_grad_hy = aten.add.Tensor(aten.select.int(grad_output, 0, t), grad_hy)
        one_minus_tanh_sq = _one_minus(aten.mul.Tensor(aten.tanh.default(cy), aten.tanh.default(cy)))
        d1 = aten.add.Tensor(grad_cy, aten.mul.Tensor(aten.mul.Tensor(new_grad_hy, o), one_minus_tanh_sq))
        dgp = aten.mul.Tensor(d1, i)
        dip = aten.mul.Tensor(d1, g)
        dprev_c = aten.mul.Tensor(d1, f)
        dfp = aten.mul.Tensor(d1, cx)
        dop = aten.mul.Tensor(new_grad_hy, aten.tanh.default(cy))
        one_minus_o = _one_minus(o)
        do_ = aten.mul.Tensor(aten.mul.Tensor(dop, o), one_minus_o)
        one_minus_gg = _one_minus(aten.mul.Tensor(g, g))
        dg = aten.mul.Tensor(dgp, one_minus_gg)
        one_minus_f = _one_minus(f)
        df = aten.mul.Tensor(aten.mul.Tensor(dfp, f), one_minus_f)
        one_minus_i = _one_minus(i)
        di = aten.mul.Tensor(aten.mul.Tensor(dip, i), one_minus_i)
        da = aten.cat.default([di, df, dg, do_], 1)
        db_ = aten.sum.dim_IntList(da, [0])
        dx = aten.unsqueeze.default(aten.matmul.default(da, w0), 0)
        dprev_h = aten.matmul.default(da, w1)
        x_t = aten.select.int(x, 0, t)  # (the arguments of a call: right to left)
        dwx_ = aten.matmul.default(aten.transpose.int(da, 0, 1), x_t)
        dwh_ = aten.matmul.default(aten.transpose.int(da, 0, 1), hx)
        if seq == seq_length - 1:
            db, dwx, dwh = db_, dwx_, dwh_
        else:
            db = aten.add_.Tensor(db, db_)
            dwx = aten.add_.Tensor(dwx, dwx_)
            dwh = aten.add_.Tensor(dwh, dwh_)
        layer_dx[t] = dx
        grad_hy, grad_cy = dprev_h, dprev_c
    return (aten.cat.default(layer_dx, 0), dwx, dwh, db, db, dprev_h, dprev_c)


@derivative("_pack_padded_sequence", "PackPaddedSequenceBackward0", ("input",),
            save_inputs=("batch_first",), save_outputs=(1,), save_meta=("input",), non_differentiable_outputs=(1,))
def _pack_padded_sequence(ctx, grads, needs):
    if grads[0] is None:
        return (None,)
    return (aten._pack_padded_sequence_backward.default(grads[0], list(ctx.input._shape), ctx.result1,
                                                        ctx.batch_first),)
