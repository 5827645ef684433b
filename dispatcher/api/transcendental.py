"""Transcendental functions: exp / log and their variants, trigonometric and hyperbolic functions and their
inverses, erf / erfinv, sigmoid / tanh, sqrt / rsqrt, logit, xlogy, atan2, hypot, logaddexp: torch-level
functions and Tensor methods, with their in-place forms.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops. A unary op
is ``aten.<name>.default(input)``; ``xlogy`` picks ``.Tensor`` / ``.Scalar_Other`` / ``.Scalar_Self`` by the
operands' types; ``logit`` passes ``eps`` only when given.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor, _no_out
from .bindings import (
    _binary_function,
    _inplace_unary_function,
    _self_binary_method,
    _tensor_function,
    _tensor_method,
    _unary_function,
    _unary_method,
)

aten = namespace("aten")

#: unary ops: ``torch.<name>(input, *, out=None)`` and ``Tensor.<name>()``
_UNARY = ("exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt", "rsqrt", "erf", "log1p", "expm1", "log2", "sinh",
          "cosh", "tan", "asin", "acos", "atan", "log10", "exp2", "erfinv", "asinh", "acosh", "atanh", "arctan",
          "tan_", "asin_", "acos_", "atan_", "log10_", "exp2_", "erfinv_", "asinh_", "acosh_", "atanh_", "sinh_",
          "cosh_")

#: in-place unary ops: ``torch.<name>(input)`` (no ``out=``) and ``Tensor.<name>()``
_INPLACE_UNARY = ("exp_", "log_", "sigmoid_", "tanh_", "sqrt_", "sin_", "cos_")

#: binary ops taking two tensors: ``torch.<name>(input, other, *, out=None)`` and ``Tensor.<name>(other)``
_BINARY = ("atan2", "arctan2", "hypot", "logaddexp")

__all__ = ["xlogy_", *_UNARY, *_INPLACE_UNARY, *_BINARY, "xlogy", "logit", "logit_"]

for _name in _UNARY:
    globals()[_name] = _unary_function(_name)
for _name in _INPLACE_UNARY:
    globals()[_name] = _inplace_unary_function(_name)
for _name in _BINARY:
    globals()[_name] = _tensor_function(_name)
del _name

xlogy = _binary_function("xlogy", "Tensor", "Scalar_Other", "Scalar_Self")


def _eps_call(op: Any, input: Tensor, eps: float | None) -> Tensor:  # noqa: A002
    return op(input) if eps is None else op(input, eps)


def logit(input: Tensor, eps: float | None = None, *, out: Any = None) -> Tensor:  # noqa: A002
    """``aten.logit.default``, ``eps`` passed only when given."""
    _no_out(out, "logit")
    _check_tensor("logit", input)
    return _eps_call(aten.logit.default, input, eps)


def logit_(input: Tensor, eps: float | None = None) -> Tensor:  # noqa: A002
    _check_tensor("logit_", input)
    return _eps_call(aten.logit_.default, input, eps)


# --- Tensor methods --------------------------------------------------------------------------------------------------
def _logit_method(self: Tensor, eps: float | None = None) -> Tensor:
    return _eps_call(aten.logit.default, self, eps)


def _logit__method(self: Tensor, eps: float | None = None) -> Tensor:
    return _eps_call(aten.logit_.default, self, eps)


def _xlogy__method(self: Tensor, other: Any) -> Tensor:
    return _self_binary_method("xlogy_", "Tensor", "Scalar_Other")(self, other)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the transcendental Tensor methods (called by ``tensor_methods.install``)."""
    for name in (*_UNARY, *_INPLACE_UNARY):
        setattr(T, name, _unary_method(name))
    for name in (*_BINARY, "atan2_", "hypot_"):
        setattr(T, name, _tensor_method(name))
    T.xlogy = _self_binary_method("xlogy", "Tensor", "Scalar_Other")
    T.xlogy_ = _xlogy__method
    T.logit = _logit_method
    T.logit_ = _logit__method


def xlogy_(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    """``torch.xlogy_``: ``xlogy_.Tensor`` for a Tensor ``other``, else ``xlogy_.Scalar_Other``."""
    if isinstance(other, Tensor):
        return aten.xlogy_.Tensor(input, other)
    return aten.xlogy_.Scalar_Other(input, other)
