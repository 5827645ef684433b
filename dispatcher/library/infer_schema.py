"""Schema inference from type hints for ``custom_op``: ``torch.library.infer_schema``.

Corresponds to torch/_library/infer_schema.py: each parameter's annotation gives a schema type
(``Tensor``, ``Tensor?``, ``Tensor[]``, ``int``, ``float``, ``bool``, ``str``, ``SymInt``, ``Scalar`` ...);
keyword-only parameters come after ``*``; defaults are printed as the schema spells them; a parameter named in
``mutates_args`` is written ``Tensor(aN!)``; the return annotation gives the returns (a tuple: several).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Sequence
from typing import Any, Union

from ..tensor import Tensor

_SCALARS: dict[Any, str] = {int: "SymInt", float: "float", bool: "bool", str: "str"}


def _type_name(annotation: Any, where: str) -> str:
    if annotation is Tensor:
        return "Tensor"
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Union and len(args) == 2 and type(None) in args:
        inner = args[0] if args[1] is type(None) else args[1]
        return _type_name(inner, where) + "?"
    if origin in (list, Sequence, typing.Sequence, __import__("collections.abc").abc.Sequence) and len(args) == 1:
        return _type_name(args[0], where) + "[]"
    name = getattr(annotation, "__name__", str(annotation))
    if name == "dtype":
        return "ScalarType"
    if name == "device":
        return "Device"
    raise ValueError(f"infer_schema(func): Parameter {where} has unsupported type {annotation}. ")


def _default_text(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def infer_schema(prototype_function: Callable[..., Any], /, *, mutates_args: Any, op_name: str | None = None) -> str:
    """The schema ``(Tensor x, *, float alpha=1.0) -> Tensor`` of a type-annotated function."""
    sig = inspect.signature(prototype_function)
    hints = typing.get_type_hints(prototype_function)
    params: list[str] = []
    seen_kwarg_only = False
    names = list(sig.parameters)
    mutated = set(names) if mutates_args == "unknown" else set(mutates_args)
    for name in mutated:
        if name not in names:
            raise ValueError(f"{mutates_args} in mutates_args were not found in the custom op's signature. "
                             "mutates_args should contain the names of all args that the custom op mutates, or "
                             'just the string "unknown" if you don\'t know.')
    alias_index = 0
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError("infer_schema(func): Parameter *args / **kwargs are not supported")
        if name not in hints:
            raise ValueError(f"infer_schema(func): Parameter {name} must have a type annotation.")
        text = _type_name(hints[name], name)
        if name in mutated:
            if not text.startswith("Tensor"):
                raise ValueError(f"infer_schema(func): Parameter {name} is in mutable_args but only Tensors or "
                                 "collections of Tensors can be mutated")
            text = text.replace("Tensor", f"Tensor(a{alias_index}!)", 1)
            alias_index += 1
        if p.kind == p.KEYWORD_ONLY and not seen_kwarg_only:
            params.append("*")
            seen_kwarg_only = True
        params.append(f"{text} {name}" + ("" if p.default is p.empty else f"={_default_text(p.default)}"))
    ret = hints.get("return", inspect.Signature.empty)
    if ret is None or ret is type(None):
        returns = "()"
    elif typing.get_origin(ret) is tuple:
        returns = "(" + ", ".join(_type_name(a, "return") for a in typing.get_args(ret)) + ")"
    elif ret is inspect.Signature.empty:
        raise ValueError("infer_schema(func): No return type annotation was provided. Please add one.")
    else:
        returns = _type_name(ret, "return")
    return f"{op_name or ''}({', '.join(params)}) -> {returns}"
