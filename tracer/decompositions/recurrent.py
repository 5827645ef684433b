"""Decompositions of the recurrent ops ``lstm.input`` / ``gru.input`` / ``rnn_tanh.input`` / ``rnn_relu.input``, also
Python-dispatcher kernels (``py_impl``) at CompositeImplicitAutograd and Autograd.

Corresponds to the RNN part of torch/_decomp/decompositions.py (``_rnn_helper``, ``one_layer_rnn``,
``one_layer_lstm``, ``mkldnn_one_layer_lstm``, ``select_one_layer_lstm_function``, the Python cells). PyTorch stacks
``register_decomposition`` and ``py_impl`` on them, so they run wherever the Python dispatcher is on: in a
pre-dispatch ``make_fx``, below the ``lstm.input`` node it records, so a traced ``backward`` differentiates *these*
ops (out-of-place cells, ``chunk``, ``cat`` of unsqueezed steps, ``flip`` for the reverse direction; for packed
``.data`` inputs ``split`` by ``batch_sizes`` and ``narrow`` / ``cat`` of the hidden states), not the C++ kernel's. In a post-dispatch trace the op decomposes in dispatcher/ops/recurrent.py before any table is consulted,
as in PyTorch. Kept as PyTorch has them, including that ``_rnn_helper`` computes its dropout probability as
``dropout if (train and num_layers < i - 1) else 0`` (zero for every layer) and that the oneDNN layer is taken only
for inputs that do not require grad, with ``train=False``.
"""

from __future__ import annotations

from typing import Any

from dispatcher.keys import DispatchKey
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition

aten = namespace("aten")


def _gather_params(params: list[Tensor], has_biases: bool, has_projections: bool) -> list[tuple]:
    size = 2 + (2 if has_biases else 0) + (1 if has_projections else 0)
    if len(params) % size:
        raise AssertionError(f"len(params)={len(params)} is not divisible by group_size={size}")
    return [tuple(params[i:i + size]) for i in range(0, len(params), size)]


def _linear(x: Tensor, w: Tensor, b: Tensor | None) -> Tensor:
    return aten.linear.default(x, w, b)


def _rnn_cell(nonlinearity: Any) -> Any:
    def cell(i: Tensor, hidden: Tensor, ih_weight: Tensor, ih_bias: Any, hh_weight: Tensor, hh_bias: Any) -> Tensor:
        return nonlinearity(aten.add.Tensor(_linear(hidden, hh_weight, hh_bias), i))
    return cell


def _gru_cell(inp: Tensor, hidden: Tensor, ih_weight: Tensor, ih_bias: Any, hh_weight: Tensor, hh_bias: Any) -> Tensor:
    igates = aten.chunk.default(inp, 3, 1)
    hgates = aten.chunk.default(_linear(hidden, hh_weight, hh_bias), 3, 2)
    reset_gate = aten.sigmoid.default(aten.add.Tensor(hgates[0], igates[0]))
    input_gate = aten.sigmoid.default(aten.add.Tensor(hgates[1], igates[1]))
    new_gate = aten.tanh.default(aten.add.Tensor(igates[2], aten.mul.Tensor(hgates[2], reset_gate)))
    return aten.add.Tensor(aten.mul.Tensor(aten.sub.Tensor(hidden, new_gate), input_gate), new_gate)


def _one_layer_rnn(cell: Any) -> Any:
    def layer(inp: Tensor, hidden: Tensor, params: tuple, has_biases: bool, reverse: bool = False) -> tuple:
        ih_weight, hh_weight = params[0], params[1]
        ih_bias, hh_bias = (params[2], params[3]) if has_biases else (None, None)
        pre = _linear(inp, ih_weight, ih_bias)
        pre = aten.flip.default(pre, [0]) if reverse else pre
        cur = aten.unsqueeze.default(hidden, 0)
        steps = []
        for i in aten.unbind.int(pre, 0):
            cur = cell(i, cur, ih_weight, ih_bias, hh_weight, hh_bias)
            steps.append(cur)
        if reverse:
            steps.reverse()
        return aten.cat.default(steps, 0), aten.squeeze.dim(cur, 0)
    return layer


def _lstm_cell(inp: Tensor, hx: Tensor, cx: Tensor, hh_weight: Tensor, hh_bias: Any, hr_weight: Any,
               chunk_dim: int) -> tuple[Tensor, Tensor]:
    gates = aten.add.Tensor(_linear(hx, hh_weight, hh_bias), inp)
    chunked = aten.chunk.default(gates, 4, chunk_dim)
    in_gate = aten.sigmoid.default(chunked[0])
    forget_gate = aten.sigmoid.default(chunked[1])
    cell_gate = aten.tanh.default(chunked[2])
    out_gate = aten.sigmoid.default(chunked[3])
    cy = aten.add.Tensor(aten.mul.Tensor(forget_gate, cx), aten.mul.Tensor(in_gate, cell_gate))
    hy = aten.mul.Tensor(out_gate, aten.tanh.default(cy))
    return (hy if hr_weight is None else _linear(hy, hr_weight, None)), cy


def _one_layer_lstm(inp: Tensor, hidden: tuple, params: tuple, has_biases: bool, reverse: bool = False) -> tuple:
    ih_weight, hh_weight = params[0], params[1]
    ih_bias, hh_bias = (params[2], params[3]) if has_biases else (None, None)
    hr_weight = params[4] if len(params) == 5 else params[2] if len(params) == 3 else None
    hx, cx = aten.unsqueeze.default(hidden[0], 0), aten.unsqueeze.default(hidden[1], 0)
    pre = _linear(inp, ih_weight, ih_bias)
    pre = aten.flip.default(pre, [0]) if reverse else pre
    steps = []
    for x in aten.unbind.int(pre, 0):
        hx, cx = _lstm_cell(x, hx, cx, hh_weight, hh_bias, hr_weight, 2)
        steps.append(hx)
    if reverse:
        steps.reverse()
    return aten.cat.default(steps, 0), (aten.squeeze.dim(hx, 0), aten.squeeze.dim(cx, 0))


def _mkldnn_one_layer_lstm(inp: Tensor, hidden: tuple, params: tuple, has_biases: bool,
                           reverse: bool = False) -> tuple:
    w0, w1 = params[0], params[1]
    if has_biases:
        w2, w3 = params[2], params[3]
    else:
        w2 = aten.zeros.default(list(w0.shape))
        w3 = aten.zeros.default(list(w1.shape))
    hx, cx = aten.unsqueeze.default(hidden[0], 0), aten.unsqueeze.default(hidden[1], 0)
    hidden_size = hx.size(2)
    inp, hx, cx = inp.contiguous(), hx.contiguous(), cx.contiguous()
    out = aten.mkldnn_rnn_layer.default(inp, w0, w1, w2, w3, hx, cx, reverse, [], 2, hidden_size, 1, has_biases, False,
                                        False, False)
    return out[0], (aten.squeeze.dim(out[1], 0), aten.squeeze.dim(out[2], 0))


def _select_one_layer_lstm(input: Tensor, hx: list, params: list[tuple]) -> Any:  # noqa: A002
    tensors = [input, *hx, *(t for group in params for t in group)]
    if len({t.device.type for t in tensors}) != 1 or tensors[0].device.type != "cpu":
        return _one_layer_lstm
    if any(t.dtype.name != "float32" for t in tensors) or input.requires_grad or hx[0].size(2) != hx[1].size(2):
        return _one_layer_lstm
    return _mkldnn_one_layer_lstm


def _rnn_helper(input: Tensor, hidden: list, params: list, has_biases: bool, num_layers: int,  # noqa: A002
                dropout: float, train: bool, bidirectional: bool, batch_first: bool, layer_fn: Any) -> tuple:
    x = aten.transpose.int(input, 0, 1) if batch_first else input
    final = []
    for i in range(num_layers):
        if bidirectional:
            cur_params, cur_hidden = params[2 * i], hidden[2 * i]
            bidir_params, bidir_hidden = params[2 * i + 1], hidden[2 * i + 1]
        else:
            cur_params, cur_hidden = params[i], hidden[i]
        dropout = dropout if (train and num_layers < i - 1) else 0.0  # (sic: PyTorch's condition)
        fwd, fwd_hidden = layer_fn(x, cur_hidden, cur_params, has_biases)
        final.append(fwd_hidden)
        if bidirectional:
            bwd, bwd_hidden = layer_fn(x, bidir_hidden, bidir_params, has_biases, reverse=True)
            final.append(bwd_hidden)
            x = aten.cat.default([fwd, bwd], fwd.dim() - 1)
        else:
            x = fwd
        if dropout != 0 and train and i < num_layers - 1:
            x = aten.dropout.default(x, dropout, True)
    return (aten.transpose.int(x, 0, 1) if batch_first else x), final


@register_decomposition(aten.lstm.input)
@aten.lstm.input.py_impl(DispatchKey.CompositeImplicitAutograd)
@aten.lstm.input.py_impl(DispatchKey.Autograd)
def lstm_input(input: Tensor, hx: list, params: list, has_biases: bool, num_layers: int,  # noqa: A002
               dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple:
    if len(hx) != 2:
        raise AssertionError(f"lstm expects two hidden states, got {len(hx)}")
    grouped = _gather_params(params, has_biases, hx[0].size(2) != hx[1].size(2))
    hidden = list(zip(aten.unbind.int(hx[0], 0), aten.unbind.int(hx[1], 0)))
    layer_fn = _select_one_layer_lstm(input, hx, grouped)
    out, final = _rnn_helper(input, hidden, grouped, has_biases, num_layers, dropout, train, bidirectional,
                             batch_first, layer_fn)
    hs, cs = list(zip(*final))
    return out, aten.stack.default(list(hs), 0), aten.stack.default(list(cs), 0)


def _one_hidden(cell: Any) -> Any:
    def impl(input: Tensor, hx: Tensor, params: list, has_biases: bool, num_layers: int,  # noqa: A002
             dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple:
        hidden = aten.unbind.int(hx, 0)
        grouped = _gather_params(params, has_biases, False)
        out, final = _rnn_helper(input, hidden, grouped, has_biases, num_layers, dropout, train, bidirectional,
                                 batch_first, _one_layer_rnn(cell))
        return out, aten.stack.default(final, 0)
    return impl


gru_input = _one_hidden(_gru_cell)
rnn_tanh_input = _one_hidden(_rnn_cell(aten.tanh.default))
rnn_relu_input = _one_hidden(_rnn_cell(aten.relu.default))
for _op, _fn in ((aten.gru.input, gru_input), (aten.rnn_tanh.input, rnn_tanh_input),
                 (aten.rnn_relu.input, rnn_relu_input)):
    register_decomposition(_op)(_fn)
    _op.py_impl(DispatchKey.CompositeImplicitAutograd)(_fn)
    _op.py_impl(DispatchKey.Autograd)(_fn)


# --- packed sequences (the ``.data`` overloads) -----------------------------------------------------------------------


def _sizes(batch_sizes: Tensor) -> list[int]:
    """``list(batch_sizes)`` as Python numbers (PyTorch iterates the tensor: ``unbind`` + ``int``)."""
    return [int(b) for b in aten.unbind.int(batch_sizes, 0)]


def _one_layer_rnn_data(cell: Any, batch_sizes: Tensor) -> Any:
    def layer(inp: Tensor, hidden: Tensor, params: tuple, has_biases: bool, reverse: bool = False) -> tuple:
        ih_weight, hh_weight = params[0], params[1]
        ih_bias, hh_bias = (params[2], params[3]) if has_biases else (None, None)
        sizes = _sizes(batch_sizes)
        steps, hiddens = [], []
        last = sizes[-1] if reverse else sizes[0]
        cur = aten.narrow.default(hidden, 0, 0, last)
        pieces = list(aten.split_with_sizes.default(inp, sizes))
        if reverse:
            pieces = pieces[::-1]
        for x in pieces:
            i = x.shape[0]
            if last == i:
                pass
            elif reverse:  # update_hidden_for_packed_reverse
                cur = aten.cat.default([cur, aten.narrow.default(hidden, 0, last, i - last)])
            else:  # update_hidden_for_packed
                hiddens.append(aten.narrow.default(cur, 0, i, last - i))
                cur = aten.narrow.default(cur, 0, 0, i)
            cur = cell(x, cur, ih_weight, ih_bias, hh_weight, hh_bias)
            last = i
            steps.append(cur)
        if reverse:
            steps.reverse()
        else:
            hiddens.append(cur)
            hiddens.reverse()
        out = aten.cat.default(steps, 0)
        return out, (cur if reverse else aten.cat.default(hiddens, 0))
    return layer


def _rnn_cell_data(nonlinearity: Any) -> Any:
    def cell(i: Tensor, hidden: Tensor, ih_weight: Tensor, ih_bias: Any, hh_weight: Tensor, hh_bias: Any) -> Tensor:
        i = _linear(i, ih_weight, ih_bias)
        return nonlinearity(aten.add.Tensor(_linear(hidden, hh_weight, hh_bias), i))
    return cell


def _gru_cell_data(inp: Tensor, hidden: Tensor, ih_weight: Tensor, ih_bias: Any, hh_weight: Tensor,
                   hh_bias: Any) -> Tensor:
    igates = aten.chunk.default(_linear(inp, ih_weight, ih_bias), 3, 1)
    hgates = aten.chunk.default(_linear(hidden, hh_weight, hh_bias), 3, 1)
    reset_gate = aten.sigmoid.default(aten.add.Tensor(hgates[0], igates[0]))
    input_gate = aten.sigmoid.default(aten.add.Tensor(hgates[1], igates[1]))
    new_gate = aten.tanh.default(aten.add.Tensor(igates[2], aten.mul.Tensor(hgates[2], reset_gate)))
    return aten.add.Tensor(aten.mul.Tensor(aten.sub.Tensor(hidden, new_gate), input_gate), new_gate)


def _one_layer_lstm_data(batch_sizes: Tensor) -> Any:
    def layer(inp: Tensor, hidden: tuple, params: tuple, has_biases: bool, reverse: bool = False) -> tuple:
        ih_weight, hh_weight = params[0], params[1]
        ih_bias, hh_bias = (params[2], params[3]) if has_biases else (None, None)
        hr_weight = params[4] if len(params) == 5 else params[2] if len(params) == 3 else None
        sizes = _sizes(batch_sizes)
        steps, hiddens = [], []
        last = sizes[-1] if reverse else sizes[0]
        pieces = list(aten.split_with_sizes.default(inp, sizes))
        if reverse:
            pieces = pieces[::-1]
        orig_hx, orig_cx = hidden
        hx, cx = aten.narrow.default(orig_hx, 0, 0, last), aten.narrow.default(orig_cx, 0, 0, last)
        for x in pieces:
            i = x.shape[0]
            x = _linear(x, ih_weight, ih_bias)
            if i < last:
                hiddens.append((aten.narrow.default(hx, 0, i, last - i), aten.narrow.default(cx, 0, i, last - i)))
                hx, cx = aten.narrow.default(hx, 0, 0, i), aten.narrow.default(cx, 0, 0, i)
            if i > last:
                hx = aten.cat.default([hx, aten.narrow.default(orig_hx, 0, last, i - last)], 0)
                cx = aten.cat.default([cx, aten.narrow.default(orig_cx, 0, last, i - last)], 0)
            hx, cx = _lstm_cell(x, hx, cx, hh_weight, hh_bias, hr_weight, 1)
            last = i
            steps.append(hx)
        if reverse:
            steps.reverse()
            hidden_out = (hx, cx)
        else:
            hiddens.append((hx, cx))
            hiddens.reverse()
            h0s, c0s = zip(*hiddens)
            hidden_out = (aten.cat.default(list(h0s), 0), aten.cat.default(list(c0s), 0))
        return aten.cat.default(steps, 0), hidden_out
    return layer


@register_decomposition(aten.lstm.data)
@aten.lstm.data.py_impl(DispatchKey.CompositeImplicitAutograd)
@aten.lstm.data.py_impl(DispatchKey.Autograd)
def lstm_data(data: Tensor, batch_sizes: Tensor, hx: list, params: list, has_biases: bool, num_layers: int,
              dropout: float, train: bool, bidirectional: bool) -> tuple:
    if len(hx) != 2:
        raise AssertionError(f"lstm expects two hidden states, got {len(hx)}")
    grouped = _gather_params(params, has_biases, hx[0].size(2) != hx[1].size(2))
    hidden = list(zip(aten.unbind.int(hx[0], 0), aten.unbind.int(hx[1], 0)))
    out, final = _rnn_helper(data, hidden, grouped, has_biases, num_layers, dropout, train, bidirectional, False,
                             _one_layer_lstm_data(batch_sizes))
    hs, cs = list(zip(*final))
    return out, aten.stack.default(list(hs), 0), aten.stack.default(list(cs), 0)


def _one_hidden_data(cell: Any) -> Any:
    def impl(data: Tensor, batch_sizes: Tensor, hx: Tensor, params: list, has_biases: bool, num_layers: int,
             dropout: float, train: bool, bidirectional: bool) -> tuple:
        hidden = aten.unbind.int(hx, 0)
        grouped = _gather_params(params, has_biases, False)
        out, final = _rnn_helper(data, hidden, grouped, has_biases, num_layers, dropout, train, bidirectional, False,
                                 _one_layer_rnn_data(cell, batch_sizes))
        return out, aten.stack.default(final, 0)
    return impl


gru_data = _one_hidden_data(_gru_cell_data)
rnn_tanh_data = _one_hidden_data(_rnn_cell_data(aten.tanh.default))
rnn_relu_data = _one_hidden_data(_rnn_cell_data(aten.relu.default))
for _op, _fn in ((aten.gru.data, gru_data), (aten.rnn_tanh.data, rnn_tanh_data), (aten.rnn_relu.data, rnn_relu_data)):
    register_decomposition(_op)(_fn)
    _op.py_impl(DispatchKey.CompositeImplicitAutograd)(_fn)
    _op.py_impl(DispatchKey.Autograd)(_fn)
