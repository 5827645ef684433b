"""The binding makers many ops share: a unary op's torch-level function and Tensor method, a binary op's
choice among its ``.Tensor`` / ``.Scalar`` / ``.Scalar_Tensor`` overloads, an operator that returns
NotImplemented for operands it does not take.

Corresponds to the templates tools/autograd/gen_python_functions.py fills from native_functions.yaml to
generate python_torch_functions.cpp and python_variable_methods.cpp: the same parsing for every op of one
shape. The family modules make their bindings with these.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor, _invalid, _no_out, _number

aten = namespace("aten")


# --- torch-level functions ------------------------------------------------------------------------------------------


def _unary_function(name: str) -> Any:
    def fn(input: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        return getattr(aten, name).default(input)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default(input)``"
    return fn


# ``torch.exp_(input)``: an in-place unary function without ``out=``
def _inplace_unary_function(name: str) -> Any:
    def fn(input: Tensor) -> Tensor:  # noqa: A002 - torch's argument name
        _check_tensor(name, input)
        return getattr(aten, name).default(input)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default(input)``"
    return fn


def _binary_function(name: str, tensor: str, scalar: str, scalar_tensor: str) -> Any:
    """``torch.<name>(input, other)``: the Tensor / Scalar / Scalar_Tensor overload by the operands' types."""

    def fn(input: Any, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002 - torch's argument name
        _no_out(out, name)
        packet = getattr(aten, name)
        if not isinstance(input, Tensor):
            if _number(input) is None or not isinstance(other, Tensor):
                raise _invalid(name, (input, other))
            return getattr(packet, scalar_tensor)(_number(input), other)
        if isinstance(other, Tensor):
            return getattr(packet, tensor)(input, other)
        if _number(other) is None:
            raise _invalid(name, (input, other))
        return getattr(packet, scalar)(input, _number(other))

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.{tensor}`` / ``.{scalar}`` / ``.{scalar_tensor}``"
    return fn


def _tensor_function(name: str, arg: str = "other") -> Any:
    def fn(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        _check_tensor(name, other, arg, 1)
        return getattr(aten, name).default(input, other)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default(input, {arg})``"
    return fn


# --- Tensor methods and operators -----------------------------------------------------------------------------------


def _unary_method(name: str) -> Any:
    def method(self: Tensor) -> Tensor:
        return getattr(aten, name).default(self)

    method.__name__ = name
    method.__doc__ = f"``aten.{name}.default(self)``"
    return method


def _binary_tensor(op_name: str, arg: str = "other") -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError(f"{op_name}(): argument '{arg}' (position 1) must be Tensor, not {type(other).__name__}")
        return getattr(aten, op_name).default(self, other)

    method.__name__ = op_name
    return method


def _method(fn: Any) -> Any:
    """A Tensor method calling ``fn`` with self first (a separate function: torch's method and function differ)."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _self_binary_method(name: str, tensor: str, scalar: str) -> Any:
    """``self.<name>(other)``: the Tensor or the Scalar overload."""

    def method(self: Tensor, other: Any) -> Tensor:
        packet = getattr(aten, name)
        if isinstance(other, Tensor):
            return getattr(packet, tensor)(self, other)
        if _number(other) is None:
            raise _invalid(name, (other,))
        return getattr(packet, scalar)(self, _number(other))

    method.__name__ = name
    return method


def _tensor_method(name: str, arg: str = "other") -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        _check_tensor(name, other, arg, 0)
        return getattr(aten, name).default(self, other)

    method.__name__ = name
    return method


def _operator(name: str, tensor: str, scalar: str, dunder: str) -> Any:
    """A binary operator: NotImplemented for operands that are neither Tensors nor numbers."""
    method = _self_binary_method(name, tensor, scalar)

    def operator(self: Tensor, other: Any) -> Any:
        if not isinstance(other, Tensor) and _number(other) is None:
            return NotImplemented
        return method(self, other)

    operator.__name__ = dunder
    return operator
