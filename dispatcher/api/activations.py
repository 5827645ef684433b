"""Activations: relu / relu_, silu, gelu, softmax / log_softmax: torch-level functions and Tensor methods.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops (the
``nn.functional`` versions, with their ``inplace=`` and implicit-dim handling, are in
``dispatcher/nn/functional/activations.py``). ``softmax(x, dim, dtype)`` calls ``softmax.int``, passing the
dtype only when given; ``gelu`` passes ``approximate`` only when not "none".
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor
from .bindings import _unary_function, _unary_method

aten = namespace("aten")

__all__ = ["relu_", "celu", "celu_", "threshold", "threshold_", "relu", "silu", "gelu", "softmax", "log_softmax", "selu", "selu_"]

relu = _unary_function("relu")
silu = _unary_function("silu")


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    if approximate == "none":
        return aten.gelu.default(input)
    return aten.gelu.default(input, approximate=approximate)


def _softmax_like(name: str) -> Any:
    def method(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
        op = getattr(aten, name).int
        if dtype is None:
            return op(self, dim)
        return op(self, dim, _dt.from_code(dtype))

    method.__name__ = name
    return method


def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002
    return _softmax_like("softmax")(input, dim, dtype)


def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002
    return _softmax_like("log_softmax")(input, dim, dtype)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the activation Tensor methods (called by ``tensor_methods.install``)."""
    T.relu = _unary_method("relu")
    T.silu = _unary_method("silu")
    T.relu_ = lambda self: aten.relu_.default(self)
    T.softmax = _softmax_like("softmax")
    T.log_softmax = _softmax_like("log_softmax")


def selu(input: Tensor) -> Tensor:  # noqa: A002
    """``torch.selu``: ``aten.selu`` (CompositeImplicitAutograd: ``elu`` with SELU's constants)."""
    return aten.selu.default(input)


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    """``torch.selu_``: ``aten.selu_`` (CompositeImplicitAutograd: ``elu_``)."""
    return aten.selu_.default(input)


def relu_(input: Tensor) -> Tensor:  # noqa: A002
    """``torch.relu_``: ``aten.relu_``."""
    return aten.relu_.default(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """``torch.celu``: ``aten.celu`` (alpha passed only when not 1.0, as torch's binding)."""
    return aten.celu.default(input) if alpha == 1.0 else aten.celu.default(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return aten.celu_.default(input) if alpha == 1.0 else aten.celu_.default(input, alpha)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    """``torch.threshold``: ``aten.threshold`` (``nn.functional.threshold`` is in dispatcher/nn/functional)."""
    return aten.threshold.default(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    return aten.threshold_.default(input, threshold, value)
