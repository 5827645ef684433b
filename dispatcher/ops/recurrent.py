"""Recurrent ops: ``lstm`` / ``gru`` / ``rnn_tanh`` / ``rnn_relu`` (``.input`` and packed ``.data``) and the cells
``lstm_cell`` / ``gru_cell`` / ``rnn_tanh_cell`` / ``rnn_relu_cell``, all CompositeImplicitAutograd.

Corresponds to aten/src/ATen/native/RNN.cpp (CPU path) and the oneDNN dispatch of ``lstm`` in
aten/src/ATen/native/mkldnn/RNN.cpp. Everything here decomposes, as in PyTorch, so autograd and post-dispatch
tracing see the ops the cells call:

* a cell is ``linear`` of the hidden state ``add_``-ed to the (precomputed) input projection, the gates cut with
  ``unsafe_chunk`` and squashed in place (``sigmoid_`` / ``tanh_``), the GRU's blend written with ``mul_`` / ``add_``;
* a layer projects the whole sequence once (``linear`` of the 3-D input), ``unbind``s it into steps and ``stack``s
  the step outputs; the reverse direction walks the steps backwards, a bidirectional layer ``cat``s both;
* layers stack with ``dropout`` between them when training; final hidden states are ``stack``ed;
* packed sequences (``.data``) walk ``batch_sizes``: ``narrow`` steps, the hidden state shrunk with ``narrow`` as
  sequences end and re-assembled with ``cat``;
* ``lstm.input`` on float32 CPU tensors without projections takes PyTorch's oneDNN path: one ``mkldnn_rnn_layer``
  per layer and direction (kernel in recurrent_kernels.py), as ``torch.nn.LSTM`` on CPU records it.

C++ evaluation order is kept: ``a.f(x)`` evaluates ``a`` first (so the hidden projection precedes the input's);
the arguments of one call are evaluated right to left (the two ``zeros`` biases of a bias-less oneDNN layer).
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as _dt
from ..tensor import Tensor
from .composite import _STRIDED, _op
from .kernel_registry import impl

_MKLDNN_LSTM = 2  # ideep::rnn_kind::LSTM, the ``mode`` argument of mkldnn_rnn_layer
_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """TORCH_WARN_ONCE."""
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


class _CellParams:
    """RNN.cpp's ``CellParams``: one layer-direction's weights (``b_ih`` / ``b_hh`` / ``w_hr`` may be None)."""

    __slots__ = ("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")

    def __init__(self, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None, b_hh: Tensor | None,
                 w_hr: Tensor | None) -> None:
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, x: Tensor) -> Tensor:
        return _op("linear")(x, self.w_ih, self.b_ih)

    def linear_hh(self, h: Tensor) -> Tensor:
        return _op("linear")(h, self.w_hh, self.b_hh)

    def matmul_hr(self, h: Tensor) -> Tensor:
        return h if self.w_hr is None else _op("matmul")(h, _op("t")(self.w_hr))


def _gather_params(params: list[Tensor], has_biases: bool, has_projections: bool = False) -> list[_CellParams]:
    """RNN.cpp ``gather_params``: the flat weight list cut into one CellParams per layer and direction."""
    n = (4 if has_biases else 2) + (1 if has_projections else 0)
    if len(params) % n:
        raise RuntimeError("got an incorrect number of RNN parameters")
    out = []
    for i in range(0, len(params), n):
        p = params[i:i + n]
        w_hr = p[n - 1] if has_projections else None
        out.append(_CellParams(p[0], p[1], p[2] if has_biases else None, p[3] if has_biases else None, w_hr))
    return out


# --- cells ---------------------------------------------------------------------------------------------------------


def _simple_cell(nonlinearity: str) -> Any:
    def cell(x: Tensor, hidden: Tensor, p: _CellParams, pre: bool = False) -> Tensor:
        gates = _op("add_.Tensor")(p.linear_hh(hidden), x if pre else p.linear_ih(x))
        return _op(nonlinearity)(gates)

    return cell


def _lstm_cell(x: Tensor, hidden: tuple[Tensor, Tensor], p: _CellParams, pre: bool = False) -> tuple[Tensor, Tensor]:
    hx, cx = hidden
    gates = _op("add_.Tensor")(p.linear_hh(hx), x if pre else p.linear_ih(x))
    chunked = _op("unsafe_chunk")(gates, 4, 1)
    ingate = _op("sigmoid_")(chunked[0])
    forgetgate = _op("sigmoid_")(chunked[1])
    cellgate = _op("tanh_")(chunked[2])
    outgate = _op("sigmoid_")(chunked[3])
    cy = _op("add_.Tensor")(_op("mul.Tensor")(forgetgate, cx), _op("mul.Tensor")(ingate, cellgate))
    hy = _op("mul.Tensor")(outgate, _op("tanh")(cy))
    return p.matmul_hr(hy), cy


def _gru_cell(x: Tensor, hidden: Tensor, p: _CellParams, pre: bool = False) -> Tensor:
    chunked_i = _op("unsafe_chunk")(x if pre else p.linear_ih(x), 3, 1)
    chunked_h = _op("unsafe_chunk")(p.linear_hh(hidden), 3, 1)
    reset_gate = _op("sigmoid_")(_op("add_.Tensor")(chunked_h[0], chunked_i[0]))
    input_gate = _op("sigmoid_")(_op("add_.Tensor")(chunked_h[1], chunked_i[1]))
    new_gate = _op("tanh_")(_op("add.Tensor")(chunked_i[2], _op("mul_.Tensor")(chunked_h[2], reset_gate)))
    return _op("add_.Tensor")(_op("mul_.Tensor")(_op("sub.Tensor")(hidden, new_gate), input_gate), new_gate)


_CELLS = {"rnn_tanh": _simple_cell("tanh"), "rnn_relu": _simple_cell("relu"), "gru": _gru_cell, "lstm": _lstm_cell}


def _output_of(hidden: Any) -> Tensor:  # hidden_as_output
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _hidden_slice(hidden: Any, start: int, end: int) -> Any:
    if isinstance(hidden, tuple):  # std::make_tuple(slice(hx), slice(cx)): the arguments right to left
        c = _op("narrow")(hidden[1], 0, start, end - start)
        return _op("narrow")(hidden[0], 0, start, end - start), c
    return _op("narrow")(hidden, 0, start, end - start)


def _hidden_concat(hiddens: list[Any]) -> Any:
    if isinstance(hiddens[0], tuple):  # (the cells' states first, as above)
        c = _op("cat")([h[1] for h in hiddens], 0)
        return _op("cat")([h[0] for h in hiddens], 0), c
    return _op("cat")(hiddens, 0)


# --- layers (FullLayer, FullBidirectionalLayer, PackedLayer, ReversedPackedLayer, PackedBidirectionalLayer) --------


def _run_steps(cell: Any, steps: list[Tensor], hidden: Any, p: _CellParams) -> tuple[list[Tensor], Any]:
    outputs = []
    for x in steps:
        hidden = cell(x, hidden, p, True)
        outputs.append(_output_of(hidden))
    return outputs, hidden


def _full_layer(cell: Any, inputs: Tensor, hidden: Any, p: _CellParams) -> tuple[Tensor, Any]:
    outputs, hidden = _run_steps(cell, _op("unbind.int")(p.linear_ih(inputs), 0), hidden, p)
    if not outputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    return _op("stack")(outputs, 0), hidden


def _full_bidirectional_layer(cell: Any, inputs: Tensor, hidden: tuple, p: tuple) -> tuple[Tensor, tuple]:
    fw_outputs, fw_hidden = _run_steps(cell, _op("unbind.int")(p[0].linear_ih(inputs), 0), hidden[0], p[0])
    if not fw_outputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    fw_output = _op("stack")(fw_outputs, 0)
    steps = _op("unbind.int")(p[1].linear_ih(inputs), 0)
    rev_outputs, rev_hidden = _run_steps(cell, steps[::-1], hidden[1], p[1])
    rev_output = _op("stack")(rev_outputs[::-1], 0)
    return _op("cat")([fw_output, rev_output], fw_output.dim() - 1), (fw_hidden, rev_hidden)


def _packed_layer(cell: Any, packed: tuple[Tensor, list[int]], hidden: Any, p: _CellParams) -> tuple[tuple, Any]:
    data, batch_sizes = packed
    input_w = p.linear_ih(data)
    outputs, hiddens = [], []
    offset, last = 0, batch_sizes[0]
    for batch_size in batch_sizes:
        step = _op("narrow")(input_w, 0, offset, batch_size)
        offset += batch_size
        dec = last - batch_size
        if dec > 0:
            hiddens.append(_hidden_slice(hidden, last - dec, last))
            hidden = _hidden_slice(hidden, 0, last - dec)
        last = batch_size
        hidden = cell(step, hidden, p, True)
        outputs.append(_output_of(hidden))
    hiddens.append(hidden)
    return (_op("cat")(outputs, 0), batch_sizes), _hidden_concat(hiddens[::-1])


def _reversed_packed_layer(cell: Any, packed: tuple[Tensor, list[int]], input_hidden: Any,
                           p: _CellParams) -> tuple[tuple, Any]:
    data, batch_sizes = packed
    input_w = p.linear_ih(data)
    outputs = []
    offset, last = data._shape[0], batch_sizes[-1]
    hidden = _hidden_slice(input_hidden, 0, batch_sizes[-1])
    for batch_size in batch_sizes[::-1]:
        if batch_size - last > 0:
            hidden = _hidden_concat([hidden, _hidden_slice(input_hidden, last, batch_size)])
        step = _op("narrow")(input_w, 0, offset - batch_size, batch_size)
        offset -= batch_size
        last = batch_size
        hidden = cell(step, hidden, p, True)
        outputs.append(_output_of(hidden))
    return (_op("cat")(outputs[::-1], 0), batch_sizes), hidden


def _packed_bidirectional_layer(cell: Any, packed: tuple, hidden: tuple, p: tuple) -> tuple[tuple, tuple]:
    (fw_data, _), fw_hidden = _packed_layer(cell, packed, hidden[0], p[0])
    (rev_data, _), rev_hidden = _reversed_packed_layer(cell, packed, hidden[1], p[1])
    return (_op("cat")([fw_data, rev_data], -1), packed[1]), (fw_hidden, rev_hidden)


def _pairs(values: list) -> list[tuple]:
    if len(values) % 2:
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    return [(values[i], values[i + 1]) for i in range(0, len(values), 2)]


def _rnn_impl(kind: str, packed: bool, inputs: Any, params: list[_CellParams], hiddens: list, num_layers: int,
              dropout_p: float, train: bool, bidirectional: bool) -> tuple[Any, list]:
    """``_rnn_impl`` + ``apply_layer_stack``: the layers one after the other, dropout between them."""
    cell = _CELLS[kind]
    if bidirectional:
        layer = _packed_bidirectional_layer if packed else _full_bidirectional_layer
        hiddens, params = _pairs(hiddens), _pairs(params)
    else:
        layer = _packed_layer if packed else _full_layer
    if num_layers != len(hiddens):
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if num_layers != len(params):
        raise RuntimeError("Expected more weights in stacked_rnn")
    layer_input, final_hiddens = inputs, []
    for i in range(num_layers):
        layer_input, final_hidden = layer(cell, layer_input, hiddens[i], params[i])
        final_hiddens.append(final_hidden)
        if dropout_p != 0 and train and i < num_layers - 1:
            if packed:
                layer_input = (_op("dropout")(layer_input[0], dropout_p, True), layer_input[1])
            else:
                layer_input = _op("dropout")(layer_input, dropout_p, True)
    if bidirectional:
        final_hiddens = [h for pair in final_hiddens for h in pair]
    return layer_input, final_hiddens


def _batch_sizes_list(batch_sizes: Tensor) -> list[int]:
    if batch_sizes.dim() != 1 or batch_sizes._device.type != "cpu" or batch_sizes._dtype is not _dt.int64:
        raise RuntimeError("batch_sizes must be a 1-D CPU int64 tensor")
    return [int(v) for v in batch_sizes._data.reshape(-1)]


# --- rnn_tanh / rnn_relu / gru (ONE_HIDDEN_RNN) -------------------------------------------------------------------


def _one_hidden_input(kind: str) -> Any:
    def fn(input: Tensor, hx: Tensor, params: list[Tensor], has_biases: bool, num_layers: int,  # noqa: A002
           dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
        x = _op("transpose.int")(input, 0, 1) if batch_first else input
        cell_params = _gather_params(list(params), has_biases)
        output, final = _rnn_impl(kind, False, x, cell_params, list(_op("unbind.int")(hx, 0)), num_layers,
                                  dropout, train, bidirectional)
        hy = _op("stack")(final, 0)
        if batch_first:
            _op("transpose_")(output, 0, 1)
        return output, hy

    fn.__name__ = f"{kind}_input"
    return fn


def _one_hidden_data(kind: str) -> Any:
    def fn(data: Tensor, batch_sizes: Tensor, hx: Tensor, params: list[Tensor], has_biases: bool, num_layers: int,
           dropout: float, train: bool, bidirectional: bool) -> tuple[Tensor, Tensor]:
        cell_params = _gather_params(list(params), has_biases)
        (output, _), final = _rnn_impl(kind, True, (data, _batch_sizes_list(batch_sizes)), cell_params,
                                       list(_op("unbind.int")(hx, 0)), num_layers, dropout, train, bidirectional)
        return output, _op("stack")(final, 0)

    fn.__name__ = f"{kind}_data"
    return fn


for _kind in ("rnn_tanh", "rnn_relu", "gru"):
    impl(f"{_kind}.input", "CompositeImplicitAutograd")(_one_hidden_input(_kind))
    impl(f"{_kind}.data", "CompositeImplicitAutograd")(_one_hidden_data(_kind))


# --- lstm ------------------------------------------------------------------------------------------------------------


def _use_mkldnn(input: Tensor, params: list[Tensor], hx: list[Tensor]) -> bool:  # noqa: A002
    """RNN.cpp ``use_mkldnn``: CPU tensors (fake CPU tensors too), float32 input, not empty. NB: PyTorch also takes it
    for bfloat16 / float16 on CPUs with those instructions; here only float32 does."""
    return (input._device.type == "cpu" and all(t._device.type == "cpu" for t in (*params, *hx))
            and input._dtype is _dt.float32 and input.numel() != 0)


def _lstm_impl(packed: bool, inputs: Any, params: list[_CellParams], hx: Tensor, cx: Tensor, num_layers: int,
               dropout_p: float, train: bool, bidirectional: bool) -> tuple[Any, Tensor, Tensor]:
    layer_hx, layer_cx = _op("unbind.int")(hx, 0), _op("unbind.int")(cx, 0)
    hiddens = list(zip(layer_hx, layer_cx))
    output, final = _rnn_impl("lstm", packed, inputs, params, hiddens, num_layers, dropout_p, train, bidirectional)
    cy = _op("stack")([h[1] for h in final], 0)  # std::make_tuple(outputs, stack(hy), stack(cy)): right to left
    return output, _op("stack")([h[0] for h in final], 0), cy


def _mkldnn_lstm(input: Tensor, hx: list[Tensor], params: list[Tensor], has_biases: bool,  # noqa: A002
                 num_layers: int, dropout_p: float, train: bool, bidirectional: bool,
                 batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    """mkldnn/RNN.cpp ``mkldnn_rnn``: one ``mkldnn_rnn_layer`` per layer and direction."""
    hidden_size = hx[0].size(2)
    x = _op("transpose.int")(input, 0, 1) if batch_first else input
    x.size(2)  # mkldnn_rnn's input_size (an IndexError for a 2-D input)
    x = _op("contiguous")(x)
    h, c = _op("contiguous")(hx[0]), _op("contiguous")(hx[1])
    stride = 4 if has_biases else 2
    directions = 2 if bidirectional else 1
    layer_input, hys, cys = x, [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            if (index + 1) * stride > len(params):  # c10::ArrayRef::slice
                raise RuntimeError(f"ArrayRef: invalid slice, N = {index * stride}; M = {stride}; "
                                   f"size = {len(params)}")
            w = params[index * stride:(index + 1) * stride]
            layer_hx, layer_cx = _op("select.int")(h, 0, index), _op("select.int")(c, 0, index)
            if has_biases:
                b_ih, b_hh = w[2], w[3]
            else:  # at::zeros(weight.sizes(), weight.options()), the later argument first
                b_hh = _op("zeros")(list(w[1]._shape), dtype=w[1]._dtype, layout=_STRIDED, device=w[1]._device)
                b_ih = _op("zeros")(list(w[0]._shape), dtype=w[0]._dtype, layout=_STRIDED, device=w[0]._device)
            out = _op("mkldnn_rnn_layer")(layer_input, w[0], w[1], b_ih, b_hh, layer_hx, layer_cx, direction > 0, [],
                                          _MKLDNN_LSTM, hidden_size, num_layers, has_biases, bidirectional,
                                          batch_first, train)
            outputs.append(out[0])
            hys.append(out[1])
            cys.append(out[2])
        layer_input = outputs[0] if directions == 1 else _op("cat")(outputs, -1)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = _op("dropout")(layer_input, dropout_p, True)
    output = layer_input
    hy, cy = _op("stack")(hys, 0), _op("stack")(cys, 0)
    if batch_first:
        output = _op("transpose.int")(output, 0, 1)
    return output, hy, cy


@impl("lstm.input", "CompositeImplicitAutograd")
def lstm_input(input: Tensor, hx: list[Tensor], params: list[Tensor], has_biases: bool, num_layers: int,  # noqa: A002
               dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    has_projections = hx[0].size(2) != hx[1].size(2)
    if _use_mkldnn(input, params, hx):
        if not has_projections:
            return _mkldnn_lstm(input, hx, list(params), has_biases, num_layers, dropout, train, bidirectional,
                                batch_first)
        _warn_once("LSTM with projections is not supported with oneDNN. Using default implementation.")
    x = _op("transpose.int")(input, 0, 1) if batch_first else input
    cell_params = _gather_params(list(params), has_biases, has_projections)
    output, hy, cy = _lstm_impl(False, x, cell_params, hx[0], hx[1], num_layers, dropout, train, bidirectional)
    if batch_first:
        output = _op("transpose.int")(output, 0, 1)
    return output, hy, cy


@impl("lstm.data", "CompositeImplicitAutograd")
def lstm_data(data: Tensor, batch_sizes: Tensor, hx: list[Tensor], params: list[Tensor], has_biases: bool,
              num_layers: int, dropout: float, train: bool, bidirectional: bool) -> tuple[Tensor, Tensor, Tensor]:
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    has_projections = hx[0].size(2) != hx[1].size(2)
    cell_params = _gather_params(list(params), has_biases, has_projections)
    (output, _), hy, cy = _lstm_impl(True, (data, _batch_sizes_list(batch_sizes)), cell_params, hx[0], hx[1],
                                     num_layers, dropout, train, bidirectional)
    return output, hy, cy


# --- the cells as ops ----------------------------------------------------------------------------------------------


def _check_cell_input(input: Tensor, input_size: int) -> None:  # noqa: A002
    if input._shape[1] != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input._shape[1]} expected {input_size}")


def _check_cell_hidden(input: Tensor, hx: Tensor, hidden_size: int, label: int) -> None:  # noqa: A002
    if input._shape[0] != hx._shape[0]:
        raise RuntimeError(f"Input batch size {input._shape[0]} doesn't match hidden{label} batch size {hx._shape[0]}")
    if hx._shape[1] != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx._shape[1]}, expected {hidden_size}")


def _check_cell_weights(w_ih: Tensor, w_hh: Tensor, hidden_size: int, gates: int) -> None:
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w._shape[0] != gates * hidden_size:
            raise RuntimeError(f"{name} first dim must be {gates} * hidden_size = {gates * hidden_size}, "
                               f"but got {w._shape[0]}")


@impl("lstm_cell", "CompositeImplicitAutograd")
def lstm_cell(input: Tensor, hx: list[Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,  # noqa: A002
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    hidden_size = w_hh._shape[1]
    _check_cell_input(input, w_ih._shape[1])
    _check_cell_weights(w_ih, w_hh, hidden_size, 4)
    _check_cell_hidden(input, hx[0], hidden_size, 0)
    _check_cell_hidden(input, hx[1], hidden_size, 1)
    return _lstm_cell(input, (hx[0], hx[1]), _CellParams(w_ih, w_hh, b_ih, b_hh, None))


@impl("gru_cell", "CompositeImplicitAutograd")
def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,  # noqa: A002
             b_hh: Tensor | None = None) -> Tensor:
    _check_cell_input(input, w_ih._shape[1])
    _check_cell_hidden(input, hx, w_hh._shape[1], 0)
    _check_cell_weights(w_ih, w_hh, w_hh._shape[1], 3)
    return _gru_cell(input, hx, _CellParams(w_ih, w_hh, b_ih, b_hh, None))


def _simple_cell_op(kind: str) -> Any:
    cell = _CELLS[kind]

    def fn(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,  # noqa: A002
           b_hh: Tensor | None = None) -> Tensor:
        _check_cell_weights(w_ih, w_hh, w_hh._shape[1], 1)
        _check_cell_input(input, w_ih._shape[1])
        _check_cell_hidden(input, hx, w_hh._shape[1], 0)
        return cell(input, hx, _CellParams(w_ih, w_hh, b_ih, b_hh, None))

    fn.__name__ = f"{kind}_cell"
    return fn


impl("rnn_tanh_cell", "CompositeImplicitAutograd")(_simple_cell_op("rnn_tanh"))
impl("rnn_relu_cell", "CompositeImplicitAutograd")(_simple_cell_op("rnn_relu"))
