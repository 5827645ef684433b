"""Argument parsing helpers shared by the torch-level functions and Tensor methods.

Corresponds to torch/csrc/utils/python_arg_parser.cpp (IntArrayRef parsing, ``int[N]`` expansion, the
"must be Tensor" and "invalid combination of arguments" errors) and torch/return_types (named tuples with
PyTorch's repr). Bindings leave out trailing arguments equal to their defaults, as PyTorch's do, so the
aten calls recorded by modes and tracers match.
"""

from __future__ import annotations

import collections
import numbers
from typing import Any

import numpy as np

from ..tensor import Size, Tensor

#: default of an argument whose absence is not the same as any value (``prod(x)`` vs ``prod(x, None)``)
_ABSENT = object()

_NUMBER = (bool, int, float, complex)


def _return_type(name: str) -> type:
    """``torch.return_types.<name>``: a (values, indices) named tuple with PyTorch's repr."""
    base = collections.namedtuple(name, ["values", "indices"])

    def __repr__(self: Any) -> str:  # noqa: N807
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "torch.return_types"})


def _size_args(args: tuple, what: str = "size") -> list[int]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the list [2, 3] (PyTorch's IntArrayRef parsing)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    out = []
    for a in args:
        if isinstance(a, Tensor):
            a = a.item()
        if not isinstance(a, numbers.Integral) or isinstance(a, bool):
            raise TypeError(f"{what}(): argument '{what}' must be tuple of ints, but found element of type "
                            f"{type(a).__name__}")
        out.append(int(a))
    return out


def _dim_list(dim: Any) -> list[int] | None:
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        return list(dim)
    return [dim]


def _number(x: Any) -> Any:
    """A Python number (a NumPy scalar counts as its Python value), else None."""
    if isinstance(x, np.generic):
        return x.item()
    return x if isinstance(x, _NUMBER) else None


def _check_tensor(name: str, x: Any, arg: str = "input", pos: int = 0) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos + 1}) must be Tensor, not {type(x).__name__}")


def _check_int(name: str, value: Any, arg: str, pos: int) -> int:
    """``value`` as the binding reads an int argument (a 0-dim integral tensor too), or its TypeError."""
    from ..arg_parser import int_arg

    return int_arg(value, name, arg, pos)


def _no_out(out: Any, name: str) -> None:
    if out is not None:
        raise NotImplementedError(f"{name}(out=...) is not supported by dispatchkit")


def _invalid(name: str, args: tuple) -> TypeError:
    """The parser's error when no signature of an overloaded binding fits (first line of torch's message)."""
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:")


def _strip(args: list[Any], defaults: list[Any]) -> list[Any]:
    """``args`` without the trailing ones equal to their defaults (``defaults`` aligned with ``args``' tail)."""
    args = list(args)
    offset = len(args) - len(defaults)
    while len(args) > offset and args[-1] == defaults[len(args) - 1 - offset] and type(args[-1]) is not bool:
        args.pop()
    return args


def expand_ints(value: Any, n: int) -> Any:
    """An ``int[n]`` argument as PyTorch's parser takes it: one int is repeated ``n`` times, a tuple is a list."""
    if isinstance(value, bool) or not isinstance(value, int):
        return list(value) if isinstance(value, tuple) else value
    return [value] * n


def check_tensor(name: str, position: int, arg: str, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")
