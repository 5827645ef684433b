"""Tensor methods and Python operators, each a call of an aten op through the dispatcher.

Corresponds to the generated python_variable_methods.cpp and torch/_tensor.py:
``x + 1`` calls ``aten.add.Tensor(x, 1)`` (the number stays a number),
``1.0 - x`` calls ``aten.rsub.Scalar(x, 1.0)``, and so on, exactly the ops
PyTorch's own bindings pick, so modes and tracers see the same calls.
"""

from __future__ import annotations

from typing import Any

from .op_overload import namespace
from .tensor import Tensor

aten = namespace("aten")


def _add(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if alpha == 1:
        return aten.add.Tensor(self, other)
    return aten.add.Tensor(self, other, alpha=alpha)


def _item(self: Tensor) -> Any:
    return aten._local_scalar_dense.default(self)


def install() -> None:
    """Attach the methods to Tensor (called once at import)."""
    Tensor.add = _add
    Tensor.__add__ = _add
    Tensor.__radd__ = lambda self, other: aten.add.Tensor(self, other)
    Tensor.item = _item
