"""Recurrent ops: the torch-level ``lstm`` / ``gru`` / ``rnn_tanh`` / ``rnn_relu`` and the cells ``lstm_cell`` /
``gru_cell`` / ``rnn_tanh_cell`` / ``rnn_relu_cell`` (what ``torch._VF`` calls from torch/nn/modules/rnn.py).

Corresponds to the python_torch_functions.cpp bindings of these ops. The RNN functions have two overloads, told
apart as PyTorch's parser does: a padded sequence (``input, hx, params, ...`` -> ``.input``) or a packed one
(``data, batch_sizes, hx, params, ...`` -> ``.data``, whose second argument is a Tensor).
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _rnn_function(name: str) -> Any:
    packet = getattr(aten, name)

    def fn(*args: Any) -> Any:
        if len(args) > 1 and isinstance(args[1], Tensor) and len(args) == 9 and isinstance(args[2], (Tensor, list,
                                                                                                      tuple)):
            if not isinstance(args[3], bool):  # (data, batch_sizes, hx, params, has_biases, ...)
                return packet.data(args[0], args[1], args[2], list(args[3]), *args[4:])
        if name == "lstm":
            return packet.input(args[0], list(args[1]), list(args[2]), *args[3:])
        return packet.input(args[0], args[1], list(args[2]), *args[3:])

    fn.__name__ = fn.__qualname__ = name
    return fn


lstm = _rnn_function("lstm")
gru = _rnn_function("gru")
rnn_tanh = _rnn_function("rnn_tanh")
rnn_relu = _rnn_function("rnn_relu")


def lstm_cell(input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,  # noqa: A002
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    return aten.lstm_cell.default(input, list(hx), w_ih, w_hh, b_ih, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,  # noqa: A002
             b_hh: Tensor | None = None) -> Tensor:
    return aten.gru_cell.default(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,  # noqa: A002
                  b_hh: Tensor | None = None) -> Tensor:
    return aten.rnn_tanh_cell.default(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,  # noqa: A002
                  b_hh: Tensor | None = None) -> Tensor:
    return aten.rnn_relu_cell.default(input, hx, w_ih, w_hh, b_ih, b_hh)
