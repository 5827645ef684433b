"""``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU`` and the cells ``nn.RNNCell`` / ``nn.LSTMCell`` / ``nn.GRUCell``
(torch/nn/modules/rnn.py).

PyTorch's parameter names (``weight_ih_l0``, ``bias_hh_l1_reverse``, ``weight_hr_l0`` for LSTM projections), the
``_flat_weights`` list the modules hand to the aten op, initialisation U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))
for every parameter, ``extra_repr``, unbatched (2-D) inputs, PackedSequence inputs, and the same argument checks
with the same messages. ``forward`` calls the aten op PyTorch's ``_VF`` calls (``lstm.input`` / ``lstm.data``, ...),
so a pre-dispatch graph keeps it whole and a post-dispatch graph holds what it decomposes into.
``flatten_parameters()`` is a no-op, as in PyTorch on CPU.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from ...op_overload import namespace
from ...tensor import Tensor
from .. import init
from ..module import Module
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .linear import _empty

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

aten = namespace("aten")


def _zeros(*size: int, dtype: Any, device: Any) -> Tensor:
    from ...api.factories import zeros

    return zeros(*size, dtype=dtype, device=device)


def _apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    return tensor.index_select(dim, permutation)


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters, their flat list, the checks of the inputs."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gate_sizes = {"LSTM": 4 * hidden_size, "GRU": 3 * hidden_size, "RNN_TANH": hidden_size,
                      "RNN_RELU": hidden_size}
        if mode not in gate_sizes:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = gate_sizes[mode]
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        kw = {"device": device, "dtype": dtype}
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                w_ih = Parameter(_empty(gate_size, layer_input_size, **kw))
                w_hh = Parameter(_empty(gate_size, real_hidden_size, **kw))
                b_ih = Parameter(_empty(gate_size, **kw))
                b_hh = Parameter(_empty(gate_size, **kw))
                layer_params: tuple[Tensor, ...] = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                if proj_size > 0:
                    layer_params += (Parameter(_empty(proj_size, hidden_size, **kw)),)
                suffix = "_reverse" if direction == 1 else ""
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    names += ["weight_hr_l{}{}"]
                names = [n.format(layer, suffix) for n in names]
                for name, param in zip(names, layer_params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self) -> None:
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]
        self.flatten_parameters()

    def __setattr__(self, attr: str, value: Any) -> None:
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self) -> None:
        """A no-op: PyTorch flattens the weights into one cuDNN buffer, only on CUDA."""

    def _update_flat_weights(self) -> None:
        """The flat list follows parameters replaced since (``_weights_have_changed`` + ``_init_flat_weights``)."""
        for i, name in enumerate(self._flat_weights_names):
            current = getattr(self, name, None)
            if current is not self._flat_weights[i]:
                self._init_flat_weights()
                return

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:  # noqa: A002
        w_dtype = self._flat_weights[0].dtype
        if input.dtype != w_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w_dtype}). Convert input: "
                             f"input.to({w_dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Tensor | None) -> tuple[int, int, int]:  # noqa: A002
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Tensor | None) -> None:  # noqa: A002
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Tensor | None) -> Tensor:
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _one_hidden_forward(self, name: str, input: Any, hx: Tensor | None) -> tuple[Any, Tensor]:  # noqa: A002
        """RNN.forward / GRU.forward (the same code in PyTorch, one aten op apart)."""
        self._update_flat_weights()
        num_directions = 2 if self.bidirectional else 1
        orig_input = input
        label = "RNN" if name.startswith("rnn") else "GRU"
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = _zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size, dtype=input.dtype,
                            device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                what = f"{input.dim()}D tensor instead" if label == "RNN" else f"{input.dim()}D instead"
                raise ValueError(f"{label}: Expected input to be 2D or 3D, got {what}")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D "
                                           "tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = unsorted_indices = None
            if hx is None:
                hx = _zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size, dtype=input.dtype,
                            device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        packet = getattr(aten, name)
        if batch_sizes is None:
            result = packet.input(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                                  self.training, self.bidirectional, self.batch_first)
        else:
            result = packet.data(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers,
                                 self.dropout, self.training, self.bidirectional)
        output, hidden = result[0], result[1]
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:  # noqa: A002
        return self._one_hidden_forward("rnn_tanh" if self.mode == "RNN_TANH" else "rnn_relu", input, hx)


class GRU(RNNBase):
    """Gated recurrent unit (gates r, z, n in that order in the weights)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:  # noqa: A002
        return self._one_hidden_forward("gru", input, hx)


class LSTM(RNNBase):
    """Long short-term memory (gates i, f, g, o in that order in the weights), optional projections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Tensor | None) -> tuple[int, int, int]:  # noqa: A002
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Tensor | None) -> None:  # noqa: A002
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        if permutation is None:
            return hx
        return (_apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation))

    def forward(self, input: Any, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Any, tuple[Tensor, Tensor]]:  # noqa: A002
        self._update_flat_weights()
        orig_input = input
        batch_sizes = None
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                h_zeros = _zeros(self.num_layers * num_directions, max_batch_size, real_hidden_size,
                                 dtype=input.dtype, device=input.device)
                c_zeros = _zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                                 dtype=input.dtype, device=input.device)
                hx = (h_zeros, c_zeros)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = unsorted_indices = None
            if hx is None:
                h_zeros = _zeros(self.num_layers * num_directions, max_batch_size, real_hidden_size,
                                 dtype=input.dtype, device=input.device)
                c_zeros = _zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                                 dtype=input.dtype, device=input.device)
                hx = (h_zeros, c_zeros)
                self.check_forward_args(input, hx, batch_sizes)
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
                self.check_forward_args(input, hx, batch_sizes)
                hx = self.permute_hidden(hx, sorted_indices)
        if batch_sizes is None:
            result = aten.lstm.input(input, list(hx), self._flat_weights, self.bias, self.num_layers, self.dropout,
                                     self.training, self.bidirectional, self.batch_first)
        else:
            result = aten.lstm.data(input, batch_sizes, list(hx), self._flat_weights, self.bias, self.num_layers,
                                    self.dropout, self.training, self.bidirectional)
        output, hidden = result[0], tuple(result[1:])
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNNCellBase(Module):
    """What the cells share: ``weight_ih`` / ``weight_hh`` (+ biases), initialisation, ``extra_repr``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_empty(num_chunks * hidden_size, input_size, **kw))
        self.weight_hh = Parameter(_empty(num_chunks * hidden_size, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(_empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(_empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, name: str, input: Tensor, hx: Tensor | None) -> tuple[Tensor, Tensor | None, bool]:  # noqa: A002
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        return input, hx, is_batched


class RNNCell(RNNCellBase):
    """One step of the Elman RNN."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        input, hx, is_batched = self._prepare("RNNCell", input, hx)
        if self.nonlinearity == "tanh":
            ret = aten.rnn_tanh_cell.default(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = aten.rnn_relu_cell.default(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns ``(h_1, c_1)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        ret = aten.lstm_cell.default(input, list(hx), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        input, hx, is_batched = self._prepare("GRUCell", input, hx)
        ret = aten.gru_cell.default(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
