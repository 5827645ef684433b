"""``torch._foobar``: the torch-level binding of ATen's test op ``aten::_foobar``.

Corresponds to the ``_foobar`` entry python_torch_functions.cpp generates from native_functions.yaml
(``_foobar(Tensor input, bool arg1=True, bool arg2=True, *, bool arg3=True)``), with its argument checks.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor

aten = namespace("aten")

__all__ = ["_foobar"]


def _check_bool(value: Any, arg: str, pos: int | None) -> None:
    if type(value) is not bool:
        where = f" (position {pos + 1})" if pos is not None else ""
        raise TypeError(f"_foobar(): argument '{arg}'{where} must be bool, not {type(value).__name__}")


def _foobar(input: Tensor, *args: Any, arg3: bool = True) -> Tensor:  # noqa: A002 - torch's name
    """``aten._foobar``: ``input`` itself (an op for testing how arguments reach the dispatcher)."""
    if len(args) > 2:
        raise TypeError(f"_foobar() takes from 1 to 3 positional arguments but {len(args) + 1} were given")
    _check_tensor("_foobar", input)
    flags = list(args) + [True] * (2 - len(args))
    for i, (name, value) in enumerate(zip(("arg1", "arg2"), flags, strict=True)):
        _check_bool(value, name, i + 1)
    _check_bool(arg3, "arg3", None)
    return aten._foobar.default(input, flags[0], flags[1], arg3=arg3)
