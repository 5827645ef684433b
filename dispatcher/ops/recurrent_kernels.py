"""Recurrent kernels: oneDNN's LSTM layer ``mkldnn_rnn_layer`` and its ``mkldnn_rnn_layer_backward``, and the packed
sequence ops ``_pack_padded_sequence`` / ``_pack_padded_sequence_backward`` / ``_pad_packed_sequence`` /
``pad_sequence``.

Corresponds to aten/src/ATen/native/mkldnn/RNN.cpp (the layer as one kernel: PyTorch hands it to oneDNN; here
NumPy runs the LSTM recurrence in float64 and rounds to the input's dtype; the meta functions are
torch/_meta_registrations.py's) and aten/src/ATen/native/PackedSequence.cpp. NB: oneDNN's ``workspace`` output is
an opaque byte buffer whose size depends on the machine; here it is empty (the size PyTorch's meta function gives),
and the backward recomputes the gates from the saved input and states.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .composite import _STRIDED, _op
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize


def _meta(shape: tuple[int, ...], dtype: _dt.dtype) -> TensorMeta:
    shape = tuple(int(s) for s in shape)
    return TensorMeta(shape, contiguous_strides(shape), dtype)


def _lstm_forward(*args: Any, **kwargs: Any) -> tuple[Any, ...]:
    with np.errstate(invalid="ignore", over="ignore"):  # inf / nan inputs give nan, as oneDNN's do, silently
        return _lstm_forward_steps(*args, **kwargs)


def _lstm_forward_steps(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, bias: np.ndarray | None, h0: np.ndarray,
                  c0: np.ndarray, reverse: bool, keep: bool = False) -> tuple[Any, ...]:
    """One LSTM layer over a (seq, batch, input) sequence: outputs, final states and (``keep``) per step the
    activated gates and the cell states (for the backward)."""
    seq, hidden = x.shape[0], h0.shape[-1]
    xw = x @ w_ih.T
    if bias is not None:
        xw += bias
    out = np.empty((seq, *h0.shape), np.float64)
    gates = np.empty((seq, *h0.shape[:-1], 4 * hidden), np.float64) if keep else None
    cells = np.empty((seq, *h0.shape), np.float64) if keep else None
    h, c = h0, c0
    w_hh_t = w_hh.T
    for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
        g = xw[t] + h @ w_hh_t
        act = np.tanh(g * 0.5)  # sigmoid(g) = (1 + tanh(g / 2)) / 2, without exp's overflow
        act += 1.0
        act *= 0.5
        act[..., 2 * hidden:3 * hidden] = np.tanh(g[..., 2 * hidden:3 * hidden])
        i, f = act[..., :hidden], act[..., hidden:2 * hidden]
        gg, o = act[..., 2 * hidden:3 * hidden], act[..., 3 * hidden:]
        c = f * c + i * gg
        h = o * np.tanh(c)
        out[t] = h
        if keep:
            gates[t], cells[t] = act, c
    return out, h, c, gates, cells


@impl("mkldnn_rnn_layer", "CPU", "Meta")
def mkldnn_rnn_layer(input: Tensor, weight0: Tensor, weight1: Tensor, weight2: Tensor, weight3: Tensor,  # noqa: A002
                     hx_: Tensor, cx_: Tensor, reverse: bool, batch_sizes: list[int], mode: int, hidden_size: int,
                     num_layers: int, has_biases: bool, bidirectional: bool, batch_first: bool,
                     train: bool) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    if input.dim() != 3:
        raise RuntimeError(f"mkldnn_rnn_layer: expected a 3-D input, got {input.dim()}-D")
    if mode != 2:
        raise NotImplementedError("mkldnn_rnn_layer: only the LSTM mode (2) is implemented")
    d = input._dtype
    if d not in (_dt.float32, _dt.float16):  # (and bfloat16 in PyTorch, a dtype not defined here)
        raise RuntimeError("get_mkldnn_dtype: unsupported data type")
    metas = (_meta((*input._shape[:2], hidden_size), d), _meta(hx_._shape, hx_._dtype), _meta(cx_._shape, cx_._dtype),
             _meta((0,), _dt.uint8))
    if input._device.type == "meta":
        return tuple(materialize(m, None, input) for m in metas)  # type: ignore[return-value]
    if input.numel() == 0 or hx_.numel() == 0 or cx_.numel() == 0:
        raise RuntimeError("could not execute a primitive")  # oneDNN refuses an empty memory descriptor
    batch, features = input._shape[1], input._shape[2]
    # PyTorch hands the weights to oneDNN unchecked (reading past a smaller one); ours checks their sizes
    expected = ((weight0, (4 * hidden_size, features), "weight0"), (weight1, (4 * hidden_size, hidden_size), "weight1"),
                (hx_, (batch, hidden_size), "hx_"), (cx_, (batch, hidden_size), "cx_"))
    for t, shape, name in expected:
        if t.numel() != shape[0] * shape[1] or (t is weight0 or t is weight1) and tuple(t._shape) != shape:
            raise RuntimeError(f"mkldnn_rnn_layer: expected {name} of size {list(shape)}, but got {list(t._shape)}")
    if has_biases:
        a, b = weight2._shape, weight3._shape
        for i in range(1, max(len(a), len(b)) + 1):
            sa, sb = (a[-i] if i <= len(a) else 1), (b[-i] if i <= len(b) else 1)
            if sa != sb and sa != 1 and sb != 1:
                raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                                   f"non-singleton dimension {max(len(a), len(b)) - i}")
    f64 = np.float64
    bias = (weight2._data.astype(f64) + weight3._data.astype(f64)) if has_biases else None  # hx_ / cx_ are (batch, hidden), or (1, batch, hidden) from torch/_decomp's caller
    out, h, c, _, _ = _lstm_forward(input._data.astype(f64), weight0._data.astype(f64), weight1._data.astype(f64),
                                    bias, hx_._data.astype(f64).reshape(batch, -1),
                                    cx_._data.astype(f64).reshape(batch, -1), reverse)
    return (materialize(metas[0], out, input), materialize(metas[1], h.reshape(hx_._shape), input),
            materialize(metas[2], c.reshape(cx_._shape), input), materialize(metas[3], np.empty(0, np.uint8), input))


@impl("mkldnn_rnn_layer_backward", "CPU", "Meta")
def mkldnn_rnn_layer_backward(input: Tensor, weight1: Tensor, weight2: Tensor, weight3: Tensor,  # noqa: A002
                              weight4: Tensor, hx_: Tensor, cx_tmp: Tensor, output: Tensor, hy_: Tensor, cy_: Tensor,
                              grad_output: Tensor | None, grad_hy: Tensor | None, grad_cy: Tensor | None,
                              reverse: bool, mode: int, hidden_size: int, num_layers: int, has_biases: bool,
                              train: bool, bidirectional: bool, batch_sizes: list[int], batch_first: bool,
                              workspace: Tensor) -> tuple[Tensor, ...]:
    f32 = _dt.float32
    metas = (_meta(input._shape, f32), _meta(weight1._shape, f32), _meta(weight2._shape, f32),
             _meta((weight3._shape[0],), f32), _meta((weight3._shape[0],), f32), _meta(hx_._shape, f32),
             _meta(cx_tmp._shape, f32))
    if input._device.type == "meta":  # torch/_meta_registrations.py returns one tensor for both bias gradients
        out = [materialize(m, None, input) for m in metas]
        out[4] = out[3]
        return tuple(out)
    f64 = np.float64
    x, w_ih, w_hh = input._data.astype(f64), weight1._data.astype(f64), weight2._data.astype(f64)
    batch = input._shape[1]
    h0, c0 = hx_._data.astype(f64).reshape(batch, -1), cx_tmp._data.astype(f64).reshape(batch, -1)
    bias = (weight3._data.astype(f64) + weight4._data.astype(f64)) if has_biases else None
    out, _, _, gates, cells = _lstm_forward(x, w_ih, w_hh, bias, h0, c0, reverse, keep=True)
    seq, hidden = x.shape[0], h0.shape[-1]
    g_out = np.zeros_like(out) if grad_output is None else grad_output._data.astype(f64)
    dh = np.zeros_like(h0) if grad_hy is None else grad_hy._data.astype(f64).reshape(h0.shape)
    dc = np.zeros_like(c0) if grad_cy is None else grad_cy._data.astype(f64).reshape(c0.shape)
    dx, dw_ih, dw_hh = np.zeros_like(x), np.zeros_like(w_ih), np.zeros_like(w_hh)
    db = np.zeros(w_ih.shape[0], f64)
    steps = range(seq) if reverse else range(seq - 1, -1, -1)  # the forward's order, backwards
    order = list(steps)
    for k, t in enumerate(order):
        prev = order[k + 1] if k + 1 < len(order) else None  # the step that ran before t in the forward
        h_prev = h0 if prev is None else out[prev]
        c_prev = c0 if prev is None else cells[prev]
        i, f = gates[t][..., :hidden], gates[t][..., hidden:2 * hidden]
        gg, o = gates[t][..., 2 * hidden:3 * hidden], gates[t][..., 3 * hidden:]
        dh = dh + g_out[t]
        tc = np.tanh(cells[t])
        dc = dc + dh * o * (1 - tc * tc)
        da = np.concatenate([dc * gg * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - gg * gg),
                             dh * tc * o * (1 - o)], -1)
        dx[t] = da @ w_ih
        dw_ih += da.T @ x[t]
        dw_hh += da.T @ h_prev
        db += da.sum(0)
        dh, dc = da @ w_hh, dc * f
    values = (dx, dw_ih, dw_hh, db, db.copy(), dh.reshape(hx_._shape), dc.reshape(cx_tmp._shape))
    return tuple(materialize(m, v, input) for m, v in zip(metas, values))


# --- packed sequences (PackedSequence.cpp) -------------------------------------------------------------------------


def _check_long_tensor(t: Tensor) -> None:
    if t.dim() != 1 or t._device.type != "cpu" or t._dtype is not _dt.int64:
        from .meta_utils import scalar_type_name

        name = scalar_type_name(t._dtype)
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {t.dim()}D "
                           f"{t._device.type} {name} tensor")


@impl("_pack_padded_sequence", "CompositeExplicitAutograd")
def _pack_padded_sequence(input: Tensor, lengths: Tensor, batch_first: bool) -> tuple[Tensor, Tensor]:  # noqa: A002
    x = _op("transpose.int")(input, 0, 1) if batch_first else input
    lengths_t = _op("contiguous")(lengths)
    _check_long_tensor(lengths_t)
    batch_size = x._shape[1]
    values = [int(v) for v in lengths_t._data.reshape(-1)]
    if input.numel() <= 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(values) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(values)} "
                           f"(batch_size={batch_size})")
    if values[batch_size - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    for i in range(batch_size - 1):
        if values[batch_size - 1 - i] > values[batch_size - 2 - i]:
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                               "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
    steps, batch_sizes, prev = [], [], 0
    step_shape = [-1, *x._shape[2:]]
    for i in range(batch_size):
        length = values[batch_size - 1 - i]
        if length > prev:
            current = batch_size - i
            piece = _op("slice.Tensor")(_op("slice.Tensor")(x, 0, prev, length), 1, 0, current)
            steps.append(_op("view")(_op("contiguous")(piece), step_shape))
            batch_sizes += [current] * (length - prev)
            prev = length
    sizes = Tensor._wrap_contiguous(np.asarray(batch_sizes, np.int64), _dt.int64)
    return _op("cat")(steps), sizes


@impl("_pack_padded_sequence_backward", "CompositeImplicitAutograd")
def _pack_padded_sequence_backward(grad: Tensor, input_size: list[int], batch_sizes: Tensor,
                                   batch_first: bool) -> Tensor:
    size = list(input_size)
    if batch_first:
        size[0], size[1] = size[1], size[0]
    grad_input = _op("zeros")(size, dtype=grad._dtype, layout=_STRIDED, device=grad._device)
    batch_sizes_t = _op("contiguous")(batch_sizes)
    _check_long_tensor(batch_sizes_t)
    offset = 0
    for i, b in enumerate(int(v) for v in batch_sizes_t._data.reshape(-1)):
        dst = _op("slice.Tensor")(_op("select.int")(grad_input, 0, i), 0, 0, b)
        _op("copy_")(dst, _op("slice.Tensor")(grad, 0, offset, offset + b))
        offset += b
    if batch_first:
        grad_input = _op("transpose.int")(grad_input, 0, 1)
    return grad_input


@impl("_pad_packed_sequence", "CompositeImplicitAutograd")
def _pad_packed_sequence(data: Tensor, batch_sizes: Tensor, batch_first: bool, padding_value: float,
                         total_length: int) -> tuple[Tensor, Tensor]:
    batch_sizes_t = _op("contiguous")(batch_sizes)
    _check_long_tensor(batch_sizes_t)
    sizes = [int(v) for v in batch_sizes_t._data.reshape(-1)]
    max_batch_size, max_real_seq_length = sizes[0], len(sizes)
    max_seq_length = max_real_seq_length
    if total_length > 0:
        if total_length < max_seq_length:
            raise RuntimeError(f"Expected total_length to be at least the length of the longest sequence in input, "
                               f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    output_size = [max_seq_length, max_batch_size, *data._shape[1:]]
    output = _op("full")(output_size, padding_value, dtype=data._dtype, layout=_STRIDED, device=data._device)
    lengths_t = _op("empty.memory_format")([max_batch_size], dtype=batch_sizes_t._dtype, layout=_STRIDED,
                                          device=batch_sizes_t._device)
    lengths = lengths_t._data  # filled through its data pointer, as PackedSequence.cpp does
    pos = max_batch_size - 1
    offset, prev_batch_size, prev_i = 0, max_batch_size, 0
    for i in range(max_real_seq_length + 1):
        batch_size = sizes[i] if i != max_real_seq_length else 0
        if batch_size != prev_batch_size:
            n = prev_batch_size * (i - prev_i)
            tmp = _op("slice.Tensor")(data, 0, offset, offset + n)
            dst = _op("slice.Tensor")(_op("slice.Tensor")(output, 0, prev_i, i), 1, 0, prev_batch_size)
            _op("copy_")(dst, _op("view")(tmp, [i - prev_i, prev_batch_size, *data._shape[1:]]))
            offset += n
            prev_i = i
        for _ in range(prev_batch_size - batch_size):
            if lengths is not None:
                lengths[pos] = i
            pos -= 1
        prev_batch_size = batch_size
    if batch_first:
        output = _op("transpose.int")(output, 0, 1)
    return output, lengths_t


@impl("pad_sequence", "CompositeImplicitAutograd")
def pad_sequence(sequences: list[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = list(sequences[0]._shape[1:])
    max_len = max(s._shape[0] for s in sequences)
    n = len(sequences)
    out_dims = ([n, max_len] if batch_first else [max_len, n]) + trailing
    first = sequences[0]
    out = _op("full")(out_dims, padding_value, dtype=first._dtype, layout=_STRIDED, device=first._device)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    for i, seq in enumerate(sequences):
        length = seq._shape[0]
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            dst = _op("narrow")(_op("select.int")(out, 0, i), 0, start, length)
        else:
            dst = _op("select.int")(_op("narrow")(out, 0, start, length), 1, i)
        _op("copy_")(dst, seq)
    return out
