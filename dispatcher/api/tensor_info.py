"""Torch-level questions about a tensor that run no aten op: ``is_tensor``, ``is_floating_point``, ``numel``.

Corresponds to torch/__init__.py's ``is_tensor`` and the python_torch_functions.cpp bindings of
``is_floating_point`` and ``numel`` (``aten::is_floating_point`` is not listed: it returns a bool, computed here
without dispatching, which is also all its CompositeImplicitAutograd kernel does).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .arguments import _check_tensor

__all__ = ["is_tensor", "is_floating_point", "numel"]


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:  # noqa: A002
    """``torch.is_floating_point``: whether the dtype is a floating-point type. (``aten::is_floating_point`` is not
    listed: it returns a bool, computed here without dispatching, which is also all its CIA kernel does.)"""
    _check_tensor("is_floating_point", input)
    return input._dtype.is_floating_point


def numel(input: Tensor) -> int:  # noqa: A002
    return input.numel()
