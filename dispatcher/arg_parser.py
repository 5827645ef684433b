"""Number arguments of the torch-level functions and Tensor methods accept 0-dim tensors.

Corresponds to torch/csrc/utils/python_arg_parser.cpp (``FunctionParameter::check`` for ``Scalar``, ``double`` and
``int64_t`` parameters, and ``PythonArgs::scalar_slow`` / ``toDouble`` / ``toInt64``). PyTorch's Python bindings
(``torch.full``, ``Tensor.add``, ``torch.nn.functional.leaky_relu`` ...) take a 0-dim tensor that does not require
grad where a number is expected and read it with ``item()``, a dispatched op (so a trace sees
``_local_scalar_dense``: folded for a constant, a data-dependent error for a traced value). ``int`` parameters want
an integral (not bool) tensor. Anything else is the binding's TypeError "argument 'x' must be Number, not Tensor".
An operator called directly (``torch.ops.aten.full.default``) does not: its schema wants a number.

Here the public functions call the aten operators with what they were given, so the conversion happens when such
a call does not fit the operator's schema because a tensor sits in a number slot, and the call was made by the
library's own torch-level code (the frame calling the operator is in the ``dispatcher`` package), not by user code
calling the operator. Only that error path pays for it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_DISPATCH_FILES = frozenset(os.path.join(_PACKAGE_DIR, f) for f in ("dispatch.py", "arg_parser.py", "op_overload.py"))

#: schema type -> the name PyTorch's binding error uses for it
_NUMBER_TYPES = {"Scalar": "Number", "float": "float", "int": "int", "SymInt": "int"}


def _number_type(arg: Any) -> str | None:
    """'Scalar' / 'float' / 'int' for a (possibly optional) number argument of a schema, else None."""
    t = arg.type
    elem = getattr(t, "elem", None)
    if elem is not None and type(t).__name__ == "OptionalType":
        t = elem
    name = getattr(t, "name", None)
    return name if name in _NUMBER_TYPES else None


def _public_caller() -> Any:
    """The frame that called the operator, when it is the library's torch-level code; None for user code."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename in _DISPATCH_FILES:
        f = f.f_back
    if f is None or not f.f_code.co_filename.startswith(_PACKAGE_DIR):
        return None
    return f


def _position(frame: Any, name: str) -> str:
    """`` (position N)`` when ``name`` is a positional parameter of the public function (self not counted)."""
    code = frame.f_code
    params = list(code.co_varnames[: code.co_argcount])
    if params and params[0] == "self":
        params = params[1:]
    return f" (position {params.index(name) + 1})" if name in params else ""


def numbers_from_tensors(op: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict] | None:
    """``args`` / ``kwargs`` with each 0-dim tensor in a number argument read as a number (``item()``), when the
    call comes from the library's torch-level code; None when there is nothing to convert (the caller re-raises
    the schema's error). A tensor that cannot be a number there is PyTorch's TypeError."""
    schema = op._schema
    if schema is None:
        return None
    positional = [a for a in schema.arguments if not a.kwarg_only]
    slots: list[tuple[Any, Any, str | int]] = []  # (argument, value, position or keyword)
    for i, v in enumerate(args):
        if i < len(positional):
            slots.append((positional[i], v, i))
    by_name = {a.name: a for a in schema.arguments}
    for k, v in kwargs.items():
        if k in by_name:
            slots.append((by_name[k], v, k))
    wanted = [(a, v, where, _number_type(a)) for a, v, where in slots
              if getattr(v, "_key_set", None) is not None and _number_type(a) is not None]
    if not wanted:
        return None
    frame = _public_caller()
    if frame is None:
        return None
    new_args, new_kwargs = list(args), dict(kwargs)
    for arg, t, where, kind in wanted:
        ok = t.dim() == 0 and not t.requires_grad
        if kind in ("int", "SymInt"):
            ok = ok and _integral(t)
        if not ok:
            name = op._schema.name.split("::")[-1]
            raise TypeError(f"{name}(): argument '{arg.name}'{_position(frame, arg.name)} must be "
                            f"{_NUMBER_TYPES[kind]}, not {type(t).__name__}")
        value = t.item()
        if isinstance(where, int):
            new_args[where] = value
        else:
            new_kwargs[where] = value
    del frame
    return tuple(new_args), new_kwargs


def _integral(t: Any) -> bool:
    dt = t.dtype
    return not dt.is_floating_point and not dt.is_complex and dt.name != "bool"


def int_arg(value: Any, func: str, arg: str, position: int | None = None) -> int:
    """An ``int64_t`` parameter of a torch-level function, as the binding reads it: an int (not a bool), or a 0-dim
    integral tensor that does not require grad (``item()``); else its TypeError. For the public functions that
    check their arguments themselves before calling an operator."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if getattr(value, "_key_set", None) is not None and value.dim() == 0 and not value.requires_grad \
            and _integral(value):
        return value.item()
    where = "" if position is None else f" (position {position})"
    raise TypeError(f"{func}(): argument '{arg}'{where} must be int, not {type(value).__name__}")
