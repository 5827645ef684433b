"""Python surface of the ops_a listing batch: torch-level functions and Tensor methods.

Corresponds to the generated python_torch_functions.cpp / python_variable_methods.cpp
entries of these ops. Each function calls the aten overload PyTorch's binding
calls. ``functional.py`` re-exports ``__all__`` (so the package namespace and
``__torch_function__`` wrapping see them) and ``tensor_methods.install`` calls
``install`` here.
"""

from __future__ import annotations

from typing import Any

from .op_overload import namespace
from .tensor import Tensor

aten = namespace("aten")

_INPLACE_UNARY = ("exp_", "log_", "sigmoid_", "tanh_", "sqrt_", "abs_", "neg_", "sin_", "cos_")

#: unary ops called as ``aten.<name>.default(input)`` (functions with ``out=``, and Tensor methods)
_UNARY = ("floor", "ceil", "trunc", "log1p", "expm1", "log2", "sinh", "cosh", "square", "isnan", "isinf", "isfinite")

__all__ = [*_INPLACE_UNARY, "clamp_", "clip_", *_UNARY, "fix", "round", "clamp_min", "clamp_max", "fmod", "remainder",
           "logical_and", "logical_or", "addcmul", "addcdiv"]


def _check_tensor(name: str, x: Any, arg: str = "input", pos: int = 0) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos + 1}) must be Tensor, not {type(x).__name__}")


def _unary_function(name: str) -> Any:
    def fn(input: Tensor) -> Tensor:  # noqa: A002 - torch's argument name
        _check_tensor(name, input)
        return getattr(aten, name).default(input)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default(input)``"
    return fn


def _unary_method(name: str) -> Any:
    def method(self: Tensor) -> Tensor:
        return getattr(aten, name).default(self)

    method.__name__ = name
    method.__doc__ = f"``aten.{name}.default(self)``"
    return method


def _no_out(out: Any, name: str) -> None:
    if out is not None:
        raise NotImplementedError(f"{name}(out=...) is not supported by dispatchkit")


def _unary_out_function(name: str) -> Any:
    def fn(input: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002 - torch's argument name
        _no_out(out, name)
        _check_tensor(name, input)
        return getattr(aten, name).default(input)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default(input)``"
    return fn


for _name in _INPLACE_UNARY:
    globals()[_name] = _unary_function(_name)
for _name in _UNARY:
    globals()[_name] = _unary_out_function(_name)
del _name
fix = _unary_out_function("fix")


def round(input: Tensor, *, decimals: int | None = None, out: Any = None) -> Tensor:  # noqa: A001, A002
    """``round.decimals`` when ``decimals`` is given (even 0), else ``round.default`` (torch's two signatures)."""
    _no_out(out, "round")
    _check_tensor("round", input)
    if decimals is None:
        return aten.round.default(input)
    return aten.round.decimals(input, decimals=decimals)


def _round_method(self: Tensor, decimals: int | None = None) -> Tensor:
    if decimals is None:
        return aten.round.default(self)
    return aten.round.decimals(self, decimals=decimals)


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - torch's names
    """``clamp_.Tensor`` when a bound is a Tensor, else ``clamp_`` (as torch's parser picks)."""
    _check_tensor("clamp_", input)
    # the parser tries clamp(Tensor? min, Tensor? max) first, then the Scalar? one (0-dim tensors read as numbers)
    if (isinstance(min, Tensor) or isinstance(max, Tensor)) and not isinstance(min, (int, float, complex)) \
            and not isinstance(max, (int, float, complex)):
        return aten.clamp_.Tensor(input, min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return aten.clamp_.default(input, min, max)


clip_ = clamp_


def _clamp__method(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    # the parser tries clamp(Tensor? min, Tensor? max) first, then the Scalar? one (0-dim tensors read as numbers)
    if (isinstance(min, Tensor) or isinstance(max, Tensor)) and not isinstance(min, (int, float, complex)) \
            and not isinstance(max, (int, float, complex)):
        return aten.clamp_.Tensor(self, min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return aten.clamp_.default(self, min, max)


# --- binary / ternary -------------------------------------------------------------------------------------------------


def _bound_function(name: str, arg: str) -> Any:
    def fn(input: Tensor, bound: Any, *, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        op = getattr(aten, name)
        return op.Tensor(input, bound) if isinstance(bound, Tensor) else op.default(input, bound)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.Tensor`` for a Tensor {arg}, else ``aten.{name}.default``."
    return fn


clamp_min = _bound_function("clamp_min", "min")
clamp_max = _bound_function("clamp_max", "max")


def fmod(input: Tensor, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "fmod")
    _check_tensor("fmod", input)
    return aten.fmod.Tensor(input, other) if isinstance(other, Tensor) else aten.fmod.Scalar(input, other)


def remainder(input: Any, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    """``remainder.Tensor`` / ``.Scalar`` (a number divisor) / ``.Scalar_Tensor`` (a number dividend)."""
    _no_out(out, "remainder")
    if not isinstance(input, Tensor):
        _check_tensor("remainder", other, "other", 1)
        return aten.remainder.Scalar_Tensor(input, other)
    return aten.remainder.Tensor(input, other) if isinstance(other, Tensor) else aten.remainder.Scalar(input, other)


def _logical_function(name: str) -> Any:
    def fn(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        _check_tensor(name, other, "other", 1)
        return getattr(aten, name).default(input, other)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default(input, other)``"
    return fn


logical_and = _logical_function("logical_and")
logical_or = _logical_function("logical_or")


def _addc_function(name: str) -> Any:
    def fn(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = None, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        _check_tensor(name, tensor1, "tensor1", 1)
        _check_tensor(name, tensor2, "tensor2", 2)
        op = getattr(aten, name).default
        return op(input, tensor1, tensor2) if value is None else op(input, tensor1, tensor2, value=value)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default`` (``value=`` passed only when given, as torch's binding does)"
    return fn


addcmul = _addc_function("addcmul")
addcdiv = _addc_function("addcdiv")


def _method(fn: Any) -> Any:
    """A Tensor method calling ``fn`` with self first (a separate function: torch's method and function differ)."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _logical_inplace_method(name: str) -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        _check_tensor(name, other, "other", 0)
        return getattr(aten, name).default(self, other)

    method.__name__ = name
    return method


def _rmod(self: Tensor, other: Any) -> Tensor:
    return aten.remainder.Scalar_Tensor(other, self)


def _mod(self: Tensor, other: Any) -> Any:
    if not isinstance(other, (Tensor, int, float, bool)):
        return NotImplemented
    return aten.remainder.Tensor(self, other) if isinstance(other, Tensor) else aten.remainder.Scalar(self, other)


def install(tensor_cls: type) -> None:
    """Attach this batch's Tensor methods (called by ``tensor_methods.install``)."""
    for name in (*_INPLACE_UNARY, *_UNARY):
        setattr(tensor_cls, name, _unary_method(name))
    tensor_cls.fix = _unary_method("fix")
    tensor_cls.round = _round_method
    for fn in (clamp_min, clamp_max, fmod, remainder, logical_and, logical_or, addcmul, addcdiv):
        setattr(tensor_cls, fn.__name__, _method(fn))
    tensor_cls.logical_and_ = _logical_inplace_method("logical_and_")
    tensor_cls.logical_or_ = _logical_inplace_method("logical_or_")
    tensor_cls.__mod__ = _mod
    tensor_cls.__rmod__ = _rmod
    tensor_cls.clamp_ = _clamp__method
    tensor_cls.clip_ = _clamp__method
