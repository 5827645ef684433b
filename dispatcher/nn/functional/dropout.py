"""``nn.functional.dropout``.

Corresponds to torch/nn/functional.py's ``dropout``: the probability checked in Python, then
``aten.dropout(input, p, training)``.
"""

from __future__ import annotations

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["dropout"]


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if inplace:
        raise NotImplementedError("dropout(inplace=True) is not supported by dispatchkit")
    return aten.dropout.default(input, p, training)
