"""Clamping: ``torch.clamp`` / ``clip`` / ``clamp_`` / ``clip_`` / ``clamp_min`` / ``clamp_max`` / ``clamp_min_`` and
the Tensor methods of these names (the arithmetic family's clamping aspect, as dispatcher/ops/arithmetic_clamp.py).

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of clamp and its aliases: a
Tensor bound picks ``clamp.Tensor`` (the parser tries the ``Tensor?`` signature first; 0-dim tensors beside a number
read as numbers), ``clip`` / ``clip_`` are the CompositeImplicitAutograd aliases torch's bindings call.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor, _no_out
from .bindings import _method

aten = namespace("aten")

__all__ = ["clamp", "clip", "clamp_", "clip_", "clamp_min", "clamp_max", "clamp_min_"]


# --- clamp -----------------------------------------------------------------------------------------------------------
def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Any = None) -> Tensor:  # noqa: A001, A002
    _no_out(out, "clamp")
    return _clamp_method(input, min, max)


def clip(input: Tensor, min: Any = None, max: Any = None, *, out: Any = None) -> Tensor:  # noqa: A001, A002
    """``aten.clip`` / ``clip.Tensor`` (CompositeImplicitAutograd aliases of clamp's overloads)."""
    _no_out(out, "clip")
    return _clip_method(input, min, max)


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


def clip_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - torch's names
    _check_tensor("clip_", input)
    return _clip__method(input, min, max)


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


def clamp_min_(input: Tensor, min: Any) -> Tensor:  # noqa: A002 - torch's names
    """``torch.clamp_min_``: ``clamp_min_.Tensor`` for a Tensor bound, else ``clamp_min_.default``."""
    return _clamp_min__method(input, min)


# --- Tensor methods -----------------------------------------------------------------------------------------------
def _clamp_min__method(self: Tensor, min: Any) -> Tensor:  # noqa: A002 - torch's name
    """``Tensor.clamp_min_``: ``clamp_min_.Tensor`` for a Tensor bound, else ``clamp_min_.default``."""
    return aten.clamp_min_.Tensor(self, min) if isinstance(min, Tensor) else aten.clamp_min_.default(self, min)


def _clamp_method(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    # the parser tries clamp(Tensor? min, Tensor? max) first, then the Scalar? one (0-dim tensors read as numbers)
    if (isinstance(min, Tensor) or isinstance(max, Tensor)) and not isinstance(min, (int, float, complex)) \
            and not isinstance(max, (int, float, complex)):
        return aten.clamp.Tensor(self, min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return aten.clamp.default(self, min, max)


def _clamp__method(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    # the parser tries clamp(Tensor? min, Tensor? max) first, then the Scalar? one (0-dim tensors read as numbers)
    if (isinstance(min, Tensor) or isinstance(max, Tensor)) and not isinstance(min, (int, float, complex)) \
            and not isinstance(max, (int, float, complex)):
        return aten.clamp_.Tensor(self, min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return aten.clamp_.default(self, min, max)


def _clip_method(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    # the parser tries clip(Tensor? min, Tensor? max) first, then the Scalar? one (0-dim tensors read as numbers)
    if (isinstance(min, Tensor) or isinstance(max, Tensor)) and not isinstance(min, (int, float, complex)) \
            and not isinstance(max, (int, float, complex)):
        return aten.clip.Tensor(self, min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return aten.clip.default(self, min, max)


def _clip__method(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    # the parser tries clip(Tensor? min, Tensor? max) first, then the Scalar? one (0-dim tensors read as numbers)
    if (isinstance(min, Tensor) or isinstance(max, Tensor)) and not isinstance(min, (int, float, complex)) \
            and not isinstance(max, (int, float, complex)):
        return aten.clip_.Tensor(self, min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return aten.clip_.default(self, min, max)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the clamping Tensor methods (called by ``tensor_methods.install``)."""
    for fn in (clamp_min, clamp_max):
        setattr(T, fn.__name__, _method(fn))
    T.clamp, T.clip, T.clamp_, T.clip_ = _clamp_method, _clip_method, _clamp__method, _clip__method
    T.clamp_min_ = _clamp_min__method
