"""Dropout: ``torch.dropout`` (the torch-level function; ``nn.functional.dropout`` is in dispatcher/nn/functional).

Corresponds to the python_torch_functions.cpp binding of ``aten::dropout`` (CompositeImplicitAutograd), which takes
``(input, p, train)`` positionally, all required.
"""

from __future__ import annotations

from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["native_dropout", "dropout"]


def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.dropout``: ``aten.dropout`` (kept whole before dispatch)."""
    return aten.dropout.default(input, p, train)


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:  # noqa: A002
    return tuple(aten.native_dropout.default(input, p, train))
