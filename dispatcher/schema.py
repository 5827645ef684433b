"""Operator schemas: parsing, canonical printing, and binding Python calls to a schema.

A schema string such as ``aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor``
says what an operator takes and returns. This module parses it into a `FunctionSchema`
(argument names, types, defaults, keyword-only markers, alias annotations), prints it back
exactly as PyTorch's ``str(torch._C.parse_schema(s))`` does, and *binds* a Python call
``op(*args, **kwargs)`` to the schema: it checks and converts every value, fills defaults, and
returns the normalized ``(args, kwargs)`` that boxed kernels, fallbacks and
``__torch_dispatch__`` receive (SEMANTICS.md sections 3.3 and 3.5).

Corresponds to torch/csrc/jit/frontend/function_schema_parser.cpp and schema_type_parser.cpp
(the grammar), aten/src/ATen/core/function_schema.h / .cpp and alias_info.h (the data model and
printing), torch/csrc/jit/python/pybind_utils.h ``createStackForSchema`` / ``toIValue`` (binding
a Python call) and torch/csrc/utils/python_arg_parser.cpp ``parseIValuesToPyArgsKwargs`` (turning
the bound stack back into args/kwargs). The grammar, as accepted by PyTorch 2.13::

    schema   := name ['.' overload] '(' [arg {',' arg}] ')' '->' returns
    name     := [ident '::'] ident
    arg      := '*' | '...' | type [ '[' N ']' [alias] ['?'] ] ident ['=' default]
    type     := 'Tensor' [alias] | base [alias] | '(' type {',' type} ')' | 'Dict(' type ',' type ')' [alias]
              | 'Union(' type {',' type} ')' [alias] | ('Future'|'Await'|'RRef') '(' type ')'
              | '__torch__.torch.classes.' ns '.' Name
              then any sequence of '[]' [alias] and '?'
    alias    := '(' set {'|' set} ['!'] ['->' set {'|' set}] ')' | '!'      (set := ident | '*')
    returns  := '...' | '(' [ret {',' ret}] ')' | ret       (ret := type [ident]; '...' may end a list)
    default  := None | True | False | number | '-' number | string | ident (enum-like) | '[' ... ']'

Where we knowingly differ from PyTorch (each spot is marked "NB" below):

- binding errors are `SchemaArgumentError` (a ``RuntimeError`` as PyTorch's operator call raises, and a
  ``TypeError`` as its torch-level functions raise) with PyTorch's wording, minus the pybind11 "Cast error
  details";
- ScalarType / Device values are passed through as given (PyTorch turns them into ``torch.dtype``
  / ``torch.device`` objects; MemoryFormat and Layout codes do become our ``memory_format`` /
  ``layout`` objects, as in PyTorch), names as strings (``"float32"``) are accepted too, and a
  default filled in for them stays the parsed code (``ScalarType dt=float`` is 6);
- a tensor given for a list argument is refused (PyTorch iterates over it);
- schemas that PyTorch's parser only rejects through an internal assert or a bare C++
  exception raise a SchemaError here; an error at the end of the input is marked with a caret;
  unregistered ``__torch__.torch.classes`` types are accepted.
"""

from __future__ import annotations

import math
import numbers
import operator
import re
from collections.abc import Callable, Iterable
from typing import Any

from dispatcher.dtypes import _BY_NAME as _DTYPE_NAMES
from dispatcher.errors import SchemaArgumentError, SchemaError, UndefinedTensorError
from dispatcher.memory_format import _FORMATS as _MEMORY_FORMATS
from dispatcher.memory_format import _LAYOUTS, layout, memory_format
from dispatcher.protocol import is_tensor_like

__all__ = [
    "AliasInfo",
    "Argument",
    "AwaitType",
    "BaseType",
    "ClassType",
    "DictType",
    "FunctionSchema",
    "FutureType",
    "ListType",
    "OptionalType",
    "RRefType",
    "TupleType",
    "Type",
    "UnionType",
    "VarType",
    "parse_schema",
    "UNDEFINED_TENSOR",
]


# --------------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------------

# Base type names as written in schemas. Some spellings are synonyms that PyTorch resolves to
# another type when parsing (and then prints under the resolved name).
_BASE_TYPE_SPELLINGS = {
    "Tensor": "Tensor", "int": "int", "SymInt": "SymInt", "float": "float", "bool": "bool",
    "SymBool": "SymBool", "str": "str", "complex": "complex", "Scalar": "Scalar",
    "ScalarType": "ScalarType", "Layout": "Layout", "MemoryFormat": "MemoryFormat",
    "Device": "Device", "Generator": "Generator", "Storage": "Storage", "Stream": "Stream",
    "QScheme": "QScheme", "Quantizer": "Quantizer", "Capsule": "Capsule", "Any": "Any",
    "AnyClassType": "AnyClassType", "AnyEnumType": "AnyEnumType", "NoneType": "NoneType",
    "None": "NoneType", "ConstQuantizerPtr": "int", "DeviceIndex": "int",
}

# Types that PyTorch represents as a plain int in the "fake" type (the one Python sees).
_INT_LIKE = frozenset({"int", "SymInt", "ScalarType", "Layout", "MemoryFormat"})

# How Python (``str(arg.type)``) spells a base type: the annotation of the fake type.
_ANNOTATION = {"Scalar": "number", "SymBool": "bool", "SymInt": "int", "ScalarType": "int",
               "Layout": "int", "MemoryFormat": "int"}

# The order of c10::TypeKind, used to sort the members of a Union as PyTorch does.
_KIND_ORDER = {name: i for i, name in enumerate([
    "Any", "Enum", "AnyEnumType", "Tensor", "Storage", "Tuple", "List", "Dict", "Scalar", "float",
    "complex", "Future", "Await", "RRef", "int", "NoneType", "str", "Generator", "Quantizer",
    "bool", "Optional", "Var", "Device", "Stream", "Function", "Class", "PyObject", "Capsule",
    "Interface", "QScheme", "ScalarType", "Layout", "MemoryFormat", "AnyList", "AnyTuple",
    "AnyClassType", "SymInt", "SymFloat", "SymBool", "Union"])}


class Type:
    """A schema type. ``str()`` gives the schema spelling (``int[2]?``); `annotation_str` gives
    the Python spelling PyTorch shows for ``arg.type`` (``Optional[List[int]]``)."""

    __slots__ = ()

    def _key(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._key() == self._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def annotation_str(self) -> str:
        """The Python-style name PyTorch prints for this type (``str(torch_arg.type)``)."""
        raise NotImplementedError

    def _kind(self) -> str:
        """This type's c10::TypeKind name (used for sorting Union members)."""
        raise NotImplementedError

    # Predicates used by the dispatcher and the binder.
    def is_tensor(self) -> bool:
        """``Tensor`` exactly."""
        return False

    def is_optional(self) -> bool:
        return False

    def is_list(self) -> bool:
        return False

    def is_optional_tensor(self) -> bool:
        """``Tensor?``."""
        return False

    def is_tensor_list(self) -> bool:
        """``Tensor[]`` or ``Tensor[N]``."""
        return False

    def is_optional_tensor_list(self) -> bool:
        """``Tensor?[]``."""
        return False


class BaseType(Type):
    """A named built-in type: ``Tensor``, ``int``, ``SymInt``, ``Scalar``, ``ScalarType``, ..."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def _key(self) -> tuple:
        return (self.name,)

    def __str__(self) -> str:
        return self.name

    def annotation_str(self) -> str:
        return _ANNOTATION.get(self.name, self.name)

    def _kind(self) -> str:
        return self.name

    def is_tensor(self) -> bool:
        return self.name == "Tensor"


class VarType(Type):
    """A type variable: any lower-case identifier that is not a known type (``t``, ``tVal``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def _key(self) -> tuple:
        return (self.name,)

    def __str__(self) -> str:
        return self.name

    def annotation_str(self) -> str:
        return self.name

    def _kind(self) -> str:
        return "Var"


class ClassType(Type):
    """A TorchScript custom class, ``__torch__.torch.classes.<ns>.<Name>``.

    NB: PyTorch rejects classes that are not registered; we accept any such name."""

    __slots__ = ("qualified_name",)

    def __init__(self, qualified_name: str) -> None:
        self.qualified_name = qualified_name

    def _key(self) -> tuple:
        return (self.qualified_name,)

    def __str__(self) -> str:
        return self.qualified_name

    def annotation_str(self) -> str:
        return self.qualified_name

    def _kind(self) -> str:
        return "Class"


class OptionalType(Type):
    """``T?``: a value of type T or None."""

    __slots__ = ("elem",)

    def __init__(self, elem: Type) -> None:
        self.elem = elem

    def _key(self) -> tuple:
        return (self.elem,)

    def __str__(self) -> str:
        return f"{self.elem}?"

    def annotation_str(self) -> str:
        return f"Optional[{self.elem.annotation_str()}]"

    def _kind(self) -> str:
        return "Optional"

    def is_optional(self) -> bool:
        return True

    def is_optional_tensor(self) -> bool:
        return self.elem.is_tensor()


class ListType(Type):
    """``T[]``, or ``T[N]`` with a fixed size. NB: in PyTorch the size lives on the Argument only
    (``Argument.N``); we also keep it on the type so that ``str(type)`` reads ``int[2]``."""

    __slots__ = ("elem", "size")

    def __init__(self, elem: Type, size: int | None = None) -> None:
        self.elem = elem
        self.size = size

    def _key(self) -> tuple:
        return (self.elem, self.size)

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"

    def annotation_str(self) -> str:
        return f"List[{self.elem.annotation_str()}]"

    def _kind(self) -> str:
        return "List"

    def is_list(self) -> bool:
        return True

    def is_tensor_list(self) -> bool:
        return self.elem.is_tensor()

    def is_optional_tensor_list(self) -> bool:
        return self.elem.is_optional_tensor()


class TupleType(Type):
    """``(T1, T2, ...)``."""

    __slots__ = ("elems",)

    def __init__(self, elems: Iterable[Type]) -> None:
        self.elems = tuple(elems)

    def _key(self) -> tuple:
        return self.elems

    def __str__(self) -> str:
        return "(" + ", ".join(str(e) for e in self.elems) + ")"

    def annotation_str(self) -> str:
        return "Tuple[" + ", ".join(e.annotation_str() for e in self.elems) + "]"

    def _kind(self) -> str:
        return "Tuple"


class DictType(Type):
    """``Dict(K, V)``."""

    __slots__ = ("key", "value")

    def __init__(self, key: Type, value: Type) -> None:
        self.key = key
        self.value = value

    def _key(self) -> tuple:
        return (self.key, self.value)

    def __str__(self) -> str:
        return f"Dict({self.key}, {self.value})"

    def annotation_str(self) -> str:
        return f"Dict[{self.key.annotation_str()}, {self.value.annotation_str()}]"

    def _kind(self) -> str:
        return "Dict"


class _WrapperType(Type):
    """A type constructor with one parameter, ``Future(T)`` and friends."""

    __slots__ = ("elem",)
    wrapper = ""

    def __init__(self, elem: Type) -> None:
        self.elem = elem

    def _key(self) -> tuple:
        return (self.elem,)

    def __str__(self) -> str:
        return f"{self.wrapper}({self.elem})"

    def annotation_str(self) -> str:
        return f"{self.wrapper}[{self.elem.annotation_str()}]"

    def _kind(self) -> str:
        return self.wrapper


class FutureType(_WrapperType):
    """``Future(T)``."""

    __slots__ = ()
    wrapper = "Future"


class AwaitType(_WrapperType):
    """``Await(T)``."""

    __slots__ = ()
    wrapper = "Await"


class RRefType(_WrapperType):
    """``RRef(T)``."""

    __slots__ = ()
    wrapper = "RRef"


class UnionType(Type):
    """``Union(T1, T2, ...)``, canonicalized like PyTorch: nested unions and optionals flattened,
    duplicates removed, members sorted by type kind. NB: PyTorch also merges members that are
    subtypes of one another; we do not."""

    __slots__ = ("elems",)

    def __init__(self, elems: Iterable[Type]) -> None:
        self.elems = tuple(elems)

    def _key(self) -> tuple:
        return self.elems

    def __str__(self) -> str:
        return "Union(" + ", ".join(str(e) for e in self.elems) + ")"

    def annotation_str(self) -> str:
        return "Union[" + ", ".join(e.annotation_str() for e in self.elems) + "]"

    def _kind(self) -> str:
        return "Union"


_TENSOR = BaseType("Tensor")
_NONE_TYPE = BaseType("NoneType")


def _fake(t: Type) -> Type:
    """PyTorch's "fake" type: SymInt, ScalarType, Layout and MemoryFormat become int. Members of
    tuples, dicts, unions and futures are stored in this form."""
    if isinstance(t, BaseType):
        return BaseType("int") if t.name in _INT_LIKE else t
    if isinstance(t, OptionalType):
        return OptionalType(_fake(t.elem))
    if isinstance(t, ListType):
        return ListType(_fake(t.elem), t.size)
    return t


def _canonical_union(members: list[Type]) -> list[Type]:
    flat: list[Type] = []

    def add(t: Type) -> None:
        if isinstance(t, UnionType):
            for m in t.elems:
                add(m)
        elif isinstance(t, OptionalType):
            add(t.elem)
            add(_NONE_TYPE)
        elif t not in flat:
            flat.append(t)

    for m in members:
        add(m)
    flat.sort(key=lambda t: _KIND_ORDER.get(t._kind(), len(_KIND_ORDER)))
    return flat


# --------------------------------------------------------------------------------------------
# AliasInfo, Argument
# --------------------------------------------------------------------------------------------

WILDCARD = "*"


class AliasInfo:
    """An alias annotation: ``(a)`` read-only alias, ``(a!)`` written alias, ``(a -> *)`` alias
    that escapes into the wildcard set, ``(a|b)`` member of several sets.

    ``before_set``/``after_set`` are the alias sets before and after the call, ``is_write``
    whether the op writes to the value. For lists (``Tensor(a!)[]``) the annotation of the
    elements is in ``contained`` and the list's own annotation may have empty sets.
    """

    __slots__ = ("before_set", "after_set", "is_write", "contained", "_before_order", "_after_order")

    def __init__(self, before_set: Iterable[str] = (), after_set: Iterable[str] = (),
                 is_write: bool = False, contained: Iterable[AliasInfo] = ()) -> None:
        # The *_order tuples remember the order in which PyTorch prints the members: PyTorch
        # keeps them in an unordered_set, which iterates (for small sets) in reverse insertion
        # order. Sets given as unordered collections print sorted.
        if isinstance(before_set, (set, frozenset)):
            before = tuple(sorted(before_set))
        else:
            before = tuple(reversed(_unique(before_set)))
        if isinstance(after_set, (set, frozenset)):
            after = tuple(sorted(after_set))
        else:
            after = tuple(reversed(_unique(after_set)))
        self._before_order = before
        self._after_order = after
        self.before_set: frozenset[str] = frozenset(before)
        self.after_set: frozenset[str] = frozenset(after)
        self.is_write = bool(is_write)
        self.contained: tuple[AliasInfo, ...] = tuple(contained)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, AliasInfo) and self.before_set == other.before_set
                and self.after_set == other.after_set and self.is_write == other.is_write
                and self.contained == other.contained)

    def __hash__(self) -> int:
        return hash((self.before_set, self.after_set, self.is_write, self.contained))

    def __repr__(self) -> str:
        return (f"AliasInfo(before_set={set(self._before_order)!r}, after_set={set(self._after_order)!r}, "
                f"is_write={self.is_write})")

    def __str__(self) -> str:
        text = "(" + "|".join(self._before_order)
        if self.is_write:
            text += "!"
        if self.before_set != self.after_set:
            text += " -> " + "|".join(self._after_order)
        return text + ")"

    @property
    def is_wildcard_before(self) -> bool:
        return WILDCARD in self.before_set

    @property
    def is_wildcard_after(self) -> bool:
        return WILDCARD in self.after_set


def _unique(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


_KIND_OTHER = "other"


class Argument:
    """One argument (or return) of a schema.

    Fields, as in c10::Argument: ``name`` ("" for unnamed returns), ``type`` (the schema type,
    e.g. ``ScalarType?``), ``N`` (the fixed size of ``int[2]``-style lists, else None),
    ``default`` / ``has_default`` (the parsed default value; ``None`` with ``has_default`` True
    is a default of None), ``kwarg_only`` (declared after ``*``), ``alias_info`` (AliasInfo or
    None). Precomputed: ``kind``, one of "tensor", "optional_tensor", "tensor_list",
    "optional_tensor_list", "other", which tells the dispatcher whether the argument carries
    dispatch keys.
    """

    __slots__ = ("name", "type", "N", "default", "has_default", "kwarg_only", "alias_info", "kind")

    def __init__(self, name: str, type: Type, *, N: int | None = None, default: Any = None,
                 has_default: bool = False, kwarg_only: bool = False,
                 alias_info: AliasInfo | None = None) -> None:
        self.name = name
        self.type = type
        self.N = N
        self.default = default
        self.has_default = has_default
        self.kwarg_only = kwarg_only
        self.alias_info = alias_info
        if type.is_tensor():
            self.kind = "tensor"
        elif type.is_optional_tensor():
            self.kind = "optional_tensor"
        elif type.is_tensor_list():
            self.kind = "tensor_list"
        elif type.is_optional_tensor_list():
            self.kind = "optional_tensor_list"
        else:
            self.kind = _KIND_OTHER

    @property
    def is_write(self) -> bool:
        """The op writes to this argument (``Tensor(a!)``)."""
        return self.alias_info is not None and self.alias_info.is_write

    @property
    def is_out(self) -> bool:
        """A keyword-only written argument, i.e. an ``out=`` tensor."""
        return self.kwarg_only and self.is_write

    def __repr__(self) -> str:
        return f"Argument({str(self)!r}{', kwarg_only' if self.kwarg_only else ''})"

    def __str__(self) -> str:
        t = self.type
        unopt = t.elem if isinstance(t, OptionalType) else t
        alias = self.alias_info
        if isinstance(unopt, ListType):
            text = str(unopt.elem)
            if alias is not None and alias.contained:
                text += str(alias.contained[0])
            text += f"[{'' if self.N is None else self.N}]"
        else:
            text = str(unopt)
        if alias is not None and alias.before_set:
            text += str(alias)
        if unopt is not t:
            text += "?"
        if self.name:
            text += " " + self.name
        if self.has_default:
            text += "=" + _format_default(self)
        return text


# --------------------------------------------------------------------------------------------
# Printing values the way c10::IValue prints them
# --------------------------------------------------------------------------------------------

_INT64_MIN = -(2**63)
_DBL_MIN = 2.2250738585072014e-308


def _format_float(d: float) -> str:
    """A double as PyTorch prints it: integral values as ``1.``, otherwise 17 significant
    digits (``1.0000000000000001e-05``)."""
    if math.isfinite(d) and (d == 0.0 or abs(d) >= _DBL_MIN) and _INT64_MIN <= d < 2.0**63:
        i = int(d)
        if i == d:
            return f"{i}."
    return f"{d:.17g}"


def _format_value(v: Any) -> str:
    if v is None:
        return "None"
    if v is True:
        return "True"
    if v is False:
        return "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _format_float(v)
    if isinstance(v, complex):
        sign = "+" if v.imag >= 0 else "-"
        return f"{_format_float(v.real)}{sign}{_format_float(abs(v.imag))}j"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_format_value(e) for e in v) + "]"
    return str(v)


_QUOTE_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f",
                  "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _quote(s: str) -> str:
    """Double-quote a string like c10::printQuotedString: C escapes, and every other byte that
    is not printable ASCII as a three-digit octal escape computed on a *signed* char (so UTF-8
    bytes come out as PyTorch prints them, e.g. ``é`` -> ``\\0)+\\/.)``)."""
    out = ['"']
    for byte in s.encode("utf-8", "surrogateescape"):
        ch = chr(byte)
        if ch in _QUOTE_ESCAPES:
            out.append(_QUOTE_ESCAPES[ch])
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            c = byte - 256 if byte >= 128 else byte  # C++ char is signed
            low = c - 8 * int(c / 8)                   # C++ % and / truncate toward zero
            c = int(c / 8)
            mid = c - 8 * int(c / 8)
            high = int(c / 8)
            out.append("\\" + chr(48 + high) + chr(48 + mid) + chr(48 + low))
    out.append('"')
    return "".join(out)


def _format_default(arg: Argument) -> str:
    t = arg.type
    unopt = t.elem if isinstance(t, OptionalType) else t
    d = arg.default
    if isinstance(unopt, BaseType) and unopt.name == "str" and isinstance(d, str):
        return _quote(d)
    if (isinstance(t, ListType) and isinstance(t.elem, BaseType) and t.elem.name == "int"
            and isinstance(d, list) and len(d) > 1 and all(e == d[0] for e in d)):
        # Like native_functions.yaml: `int[2] stride=1` rather than `int[2] stride=[1, 1]`.
        return _format_value(d[0])
    return _format_value(d)


# --------------------------------------------------------------------------------------------
# Lexer
# --------------------------------------------------------------------------------------------

# Words the TorchScript lexer turns into keyword tokens; they cannot be names.
_KEYWORDS = frozenset({
    "False", "None", "True", "NoneType", "Ellipsis", "and", "as", "assert", "break", "class",
    "continue", "def", "del", "elif", "else", "for", "global", "if", "import", "in", "is", "not",
    "or", "pass", "raise", "return", "while", "with"})

# Multi-character operator tokens and the name PyTorch's lexer gives them in messages.
_OPERATOR_NAMES = {"->": "arrow", "...": "dots", "**": "pow operator", "==": "eq", "!=": "ne",
                   "<=": "le", ">=": "ge", "//": "floordiv"}

_TOKEN_RE = re.compile(r"""
    (?P<skip>[ \t\r\n\f\v]+|\#[^\n]*)
  | (?P<number>(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?
               |(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)j?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:[^"\\\n]|\\[\s\S])*"|'(?:[^'\\\n]|\\[\s\S])*')
  | (?P<op>\*\*=|<<=|>>=|->|\.\.\.|\*\*|==|!=|<=|>=|//|<<|>>|[-+*/%&|^]=|[-+*/%&|^~<>=!@()\[\]{}:,.?])
""", re.VERBOSE)


class _Token:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind: str, text: str, start: int, end: int) -> None:
        self.kind = kind    # "ident", "number", "string_literal", "eof", a keyword, or the operator text
        self.text = text
        self.start = start
        self.end = end

    def kind_name(self) -> str:
        return _OPERATOR_NAMES.get(self.kind, self.kind)


def _highlight(text: str, start: int, end: int) -> str:
    """Quote the source around ``start`` and underline ``start:end`` the way PyTorch's
    SourceRange::highlight does: the offending line with up to two lines before it, a line of
    ``~`` ending in ``<--- HERE``, then up to two lines after it.
    NB: for errors at the end of input PyTorch prints no marker; we point at the end."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    if line_end == -1:
        line_end = len(text)
    context_start = line_start
    for _ in range(2):
        if context_start == 0:
            break
        context_start = text.rfind("\n", 0, context_start - 1) + 1
    width = max(1, min(end, line_end) - start)
    out = text[context_start:line_end] + "\n" + " " * (start - line_start) + "~" * width + " <--- HERE\n"
    after = text[line_end + 1:].split("\n")[:2] if line_end < len(text) else []
    for line in after:
        out += line + "\n"
    return out


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    n = len(text)
    match = _TOKEN_RE.match
    while pos < n:
        m = match(text, pos)
        if m is None:
            raise SchemaError(f"expected a valid token but found '{text[pos]}' here:\n"
                              + _highlight(text, pos, pos + 1))
        group = m.lastgroup
        tok_text = m.group()
        if group == "ident":
            tokens.append(_Token(tok_text if tok_text in _KEYWORDS else "ident", tok_text, pos, m.end()))
        elif group == "number":
            tokens.append(_Token("number", tok_text, pos, m.end()))
        elif group == "string":
            tokens.append(_Token("string_literal", tok_text, pos, m.end()))
        elif group == "op":
            tokens.append(_Token(tok_text, tok_text, pos, m.end()))
        pos = m.end()
    tokens.append(_Token("eof", "", n, n))
    return tokens


# --------------------------------------------------------------------------------------------
# Number and string literals (C++ stoll / stod / parseStringLiteral semantics)
# --------------------------------------------------------------------------------------------

_STOLL_RE = re.compile(r"\s*([+-]?[0-9]+)")
_STOD_RE = re.compile(r"\s*([+-]?)(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
                      r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")


def _stoll(s: str) -> int | None:
    """The leading integer of ``s`` as std::stoll reads it, or None if it has none / overflows."""
    m = _STOLL_RE.match(s)
    if m is None:
        return None
    v = int(m.group(1))
    return v if -(2**63) <= v < 2**63 else None


def _stod(s: str) -> float | None:
    """The leading double of ``s`` as std::stod reads it, or None (no number, or out of range,
    which for glibc includes overflow, underflow and subnormal results)."""
    m = _STOD_RE.match(s)
    if m is None:
        return None
    body = m.group(2)
    is_hex = body[:2] in ("0x", "0X")
    try:
        v = float.fromhex(body) if is_hex else float(body)
    except (OverflowError, ValueError):
        return None
    mantissa = re.split("[pP]" if is_hex else "[eE]", body[2:] if is_hex else body)[0]
    if math.isinf(v) or (v == 0.0 and mantissa.strip("0.") != "") or (v != 0.0 and abs(v) < _DBL_MIN):
        return None
    return -v if m.group(1) == "-" else v


def _parse_string_literal(text: str, tok: _Token, source: str) -> str:
    quote_len = 3 if text[:3] in ('"""', "'''") else 1
    s = text[quote_len:len(text) - quote_len]
    pos = s.find("\\")
    while pos != -1:
        c = s[pos + 1]
        erase = 2
        if c in "\\'\"\n":
            ch = c
        elif c in "abfnvt":
            ch = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "v": "\v", "t": "\t"}[c]
        elif c == "x":
            raise _error_report(source, tok, "unsupported hex specifier")
        elif c in "uU":
            raise _error_report(source, tok, "unsupported unicode specifier")
        else:
            digits = s[pos + 1:pos + 4]
            if len(digits) == 3 and all(d in "01234567" for d in digits) and int(digits, 8) < 256:
                # A raw byte; bytes >= 0x80 are kept as surrogate escapes so that printing
                # writes the byte back unchanged.
                value = int(digits, 8)
                ch = chr(value) if value < 0x80 else chr(0xDC00 + value)
                erase = 4
            else:
                raise _error_report(source, tok, " ill formed octal specifier")
        s = s[:pos] + ch + s[pos + erase:]
        pos = s.find("\\", pos + 1)
    return s


def _error_report(source: str, tok: _Token, message: str) -> SchemaError:
    """A PyTorch ErrorReport: the message, then the highlighted source."""
    return SchemaError(f"\n{message}:\n" + _highlight(source, tok.start, tok.end))


# Enum-like identifiers accepted as default values, and the ScalarType names (PyTorch's
# getStringToDtypeMap) accepted where the argument is a ScalarType.
_ENUM_DEFAULTS = {"float": 6, "complex": 9, "long": 4, "strided": 0, "Mean": 1, "contiguous_format": 0}
_SCALAR_TYPE_CODES = {
    "uint8": 0, "int8": 1, "int16": 2, "short": 2, "int32": 3, "int": 3, "int64": 4, "long": 4,
    "float16": 5, "half": 5, "float32": 6, "float": 6, "float64": 7, "double": 7, "complex32": 8,
    "chalf": 8, "complex64": 9, "cfloat": 9, "complex128": 10, "cdouble": 10, "bool": 11,
    "qint8": 12, "quint8": 13, "qint32": 14, "bfloat16": 15, "quint4x2": 16, "quint2x4": 17,
    "bits1x8": 18, "bits2x4": 19, "bits4x2": 20, "bits8": 21, "bits16": 22, "float8_e5m2": 23,
    "float8_e4m3fn": 24, "float8_e5m2fnuz": 25, "float8_e4m3fnuz": 26, "uint16": 27, "uint32": 28,
    "uint64": 29, "uint1": 30, "bit": 30, "uint2": 31, "uint3": 32, "uint4": 33, "uint5": 34,
    "uint6": 35, "uint7": 36, "int1": 37, "int2": 38, "int3": 39, "int4": 40, "int5": 41,
    "int6": 42, "int7": 43, "float8_e8m0fnu": 44, "float4_e2m1fn_x2": 45,
}
_LAYOUT_CODES = {"strided": 0, "sparse_coo": 1, "sparse_csr": 2, "sparse_csc": 3, "sparse_bsr": 4,
                 "sparse_bsc": 5, "_mkldnn": 6, "jagged": 7}
_MEMORY_FORMAT_CODES = {"contiguous_format": 0, "preserve_format": 1, "channels_last": 2,
                        "channels_last_3d": 3}
_ENUM_CODES = {"ScalarType": _SCALAR_TYPE_CODES, "Layout": _LAYOUT_CODES, "MemoryFormat": _MEMORY_FORMAT_CODES}

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEVICE_RE = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")


def _check_device_string(text: str) -> None:
    """Raise SchemaError unless `text` names a device the way c10::Device parses it."""
    if not text:
        raise SchemaError("Device string must not be empty")
    m = _DEVICE_RE.fullmatch(text)
    if m is None:
        raise SchemaError(f"Invalid device string: '{text}'")
    if m.group(1) not in _DEVICE_TYPES:
        raise SchemaError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of "
                          f"device string: {text}")


def _default_kind(t: Type) -> str:
    """What kind of default value a type takes (PyTorch switches on the fake type's kind)."""
    if isinstance(t, OptionalType):
        return "optional"
    if isinstance(t, ListType):
        return "list"
    if isinstance(t, BaseType):
        name = t.name
        if name in ("Tensor", "Generator", "Quantizer"):
            return "none_only"
        if name in _INT_LIKE:
            return "int"
        return {"str": "str", "Scalar": "number", "bool": "bool", "float": "float",
                "complex": "complex", "Device": "device"}.get(name, "unsupported")
    return "unsupported"


def _is_scalar_type(t: Type) -> bool:
    if isinstance(t, OptionalType):
        t = t.elem
    return isinstance(t, BaseType) and t.name == "ScalarType"


# --------------------------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------------------------

class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.pos = 0
        self.next_alias_id = 0

    # -- token helpers ---------------------------------------------------------------------
    @property
    def cur(self) -> _Token:
        return self.tokens[self.pos]

    def lookahead(self) -> _Token:
        return self.tokens[min(self.pos + 1, len(self.tokens) - 1)]

    def next(self) -> _Token:
        tok = self.tokens[self.pos]
        if tok.kind != "eof":
            self.pos += 1
        return tok

    def next_if(self, kind: str) -> bool:
        if self.cur.kind == kind:
            self.next()
            return True
        return False

    def expect(self, kind: str) -> _Token:
        tok = self.cur
        if tok.kind != kind:
            raise SchemaError(f"expected {_OPERATOR_NAMES.get(kind, kind)} but found '{tok.kind_name()}' here:\n"
                              + _highlight(self.text, tok.start, tok.end))
        return self.next()

    def error(self, tok: _Token, message: str) -> SchemaError:
        return _error_report(self.text, tok, message)

    def parse_list(self, begin: str | None, sep: str, end: str | None, item: Callable[[], None]) -> None:
        if begin is not None:
            self.expect(begin)
        if end is None or self.cur.kind != end:
            item()
            while self.next_if(sep):
                item()
        if end is not None:
            self.expect(end)

    # -- schema ----------------------------------------------------------------------------
    def parse_schema(self) -> FunctionSchema:
        name = self.expect("ident").text
        if self.next_if(":"):
            self.expect(":")
            name = name + "::" + self.expect("ident").text
        overload = ""
        if self.next_if("."):
            overload = self.expect("ident").text
        if overload == "default" or overload.startswith("__"):
            raise SchemaError(f"{overload} is not a legal overload name for aten operators")
        if self.cur.kind != "(":
            self.expect("eof")
            raise SchemaError("Tried to parse a function schema but only the operator name was given")

        arguments: list[Argument] = []
        returns: list[Argument] = []
        state = {"kwarg_only": False, "vararg": False, "varret": False}

        def argument() -> None:
            if state["vararg"]:
                raise self.error(self.cur, "... must be the last element of the argument list")
            if self.next_if("*"):
                state["kwarg_only"] = True
            elif self.next_if("..."):
                state["vararg"] = True
            else:
                arguments.append(self.parse_argument(False, state["kwarg_only"]))

        self.parse_list("(", ",", ")", argument)
        if state["vararg"] and any(a.has_default for a in arguments):
            raise self.error(self.cur, "schemas with vararg (...) can't have default value args")

        def ret() -> None:
            if state["varret"]:
                raise self.error(self.cur, "... must be the last element of the return list")
            if self.next_if("..."):
                state["varret"] = True
            else:
                returns.append(self.parse_argument(True, False))

        self.expect("->")
        if self.next_if("..."):
            state["varret"] = True
        elif self.cur.kind == "(":
            self.parse_list("(", ",", ")", ret)
        else:
            returns.append(self.parse_argument(True, False))
        self.expect("eof")
        return FunctionSchema(name, overload, arguments, returns,
                              is_vararg=state["vararg"], is_varret=state["varret"])

    def parse_argument(self, is_return: bool, kwarg_only: bool) -> Argument:
        t, alias = self.parse_type()
        n: int | None = None
        if self.next_if("["):
            num = self.expect("number")
            size = _stoll(num.text)
            if size is None:
                raise self.error(num, "invalid list size")
            n = (size + 2**31) % 2**32 - 2**31  # PyTorch keeps N in an int32
            self.expect("]")
            t = ListType(t, n)
            container = self.parse_alias_annotation()
            if alias is not None:
                if container is None:
                    container = AliasInfo(is_write=alias.is_write)
                container.contained += (alias,)
            alias = container
            if self.next_if("?"):
                t = OptionalType(t)
        has_default = False
        default = None
        if is_return:
            name = self.next().text if self.cur.kind == "ident" else ""
        else:
            name = self.expect("ident").text
            if self.next_if("="):
                default = self.parse_default(t, n)
                has_default = True
        return Argument(name, t, N=n, default=default, has_default=has_default,
                        kwarg_only=kwarg_only, alias_info=alias)

    # -- types -----------------------------------------------------------------------------
    def parse_type(self) -> tuple[Type, AliasInfo | None]:
        tok = self.cur
        alias: AliasInfo | None = None
        if tok.kind == "(":
            members: list[Type] = []
            self.parse_list("(", ",", ")", lambda: members.append(_fake(self.parse_type()[0])))
            t: Type = TupleType(members)
        elif tok.kind == "ident" and tok.text in ("Future", "Await", "RRef"):
            self.next()
            self.expect("(")
            elem = _fake(self.parse_type()[0])
            self.expect(")")
            t = {"Future": FutureType, "Await": AwaitType, "RRef": RRefType}[tok.text](elem)
        elif tok.kind == "ident" and tok.text == "Tensor":
            self.next()
            t = _TENSOR
            alias = self.parse_alias_annotation()
        elif tok.kind == "ident" and tok.text == "Dict":
            self.next()
            self.expect("(")
            key = _fake(self.parse_type()[0])
            self.expect(",")
            value = _fake(self.parse_type()[0])
            self.expect(")")
            alias = self.parse_alias_annotation()
            t = DictType(key, value)
        elif tok.kind == "ident" and tok.text == "Union":
            self.next()
            self.expect("(")
            members = [_fake(self.parse_type()[0])]
            while self.cur.kind != ")":
                self.expect(",")
                members.append(_fake(self.parse_type()[0]))
            self.expect(")")
            alias = self.parse_alias_annotation()
            canonical = _canonical_union(members)
            if len(canonical) == 1:
                raise SchemaError(f"The Union with the original types {{{', '.join(map(str, members))}}} "
                                  f"has the single type {canonical[0]} after unification; use that "
                                  "type instead of a Union")
            t = UnionType(canonical)
        elif tok.kind == "ident" and tok.text == "__torch__":
            t = self.parse_class_type()
        else:
            t = self.parse_base_type()
            alias = self.parse_alias_annotation()
        while True:
            if self.cur.kind == "[" and self.lookahead().kind == "]":
                self.next()
                self.next()
                t = ListType(t)
                container = self.parse_alias_annotation()
                if alias is not None:
                    if container is None:
                        container = AliasInfo(is_write=alias.is_write)
                    container.contained += (alias,)
                alias = container
            elif self.next_if("?"):
                t = OptionalType(t)
            else:
                return t, alias

    def parse_base_type(self) -> Type:
        tok = self.cur
        if not (self.next_if("None") or self.next_if("NoneType")):
            self.expect("ident")
        name = _BASE_TYPE_SPELLINGS.get(tok.text)
        if name is not None:
            return BaseType(name)
        if tok.text[:1].islower():
            return VarType(tok.text)
        raise self.error(tok, "unknown type specifier. Common valid schema types include Tensor, SymInt, "
                         "int, float, bool, Scalar; for a full list, please see "
                         "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func ")

    def parse_class_type(self) -> Type:
        self.next()  # __torch__
        self.expect(".")
        for expected in ("torch", "classes"):
            tok = self.expect("ident")
            if tok.text != expected:
                raise self.error(tok, f"Expected classes namespace but got {tok.text}")
            self.expect(".")
        ns = self.expect("ident").text
        self.expect(".")
        cls = self.expect("ident").text
        return ClassType(f"__torch__.torch.classes.{ns}.{cls}")

    def parse_alias_annotation(self) -> AliasInfo | None:
        if self.next_if("("):
            before: list[str] = []
            after: list[str] = []

            def alias_set(into: list[str]) -> Callable[[], None]:
                def item() -> None:
                    if self.next_if("*"):
                        into.append(WILDCARD)
                    elif WILDCARD not in into:  # after a wildcard, further names are ignored
                        into.append(self.expect("ident").text)
                return item

            self.parse_list(None, "|", None, alias_set(before))
            is_write = self.next_if("!")
            if self.next_if("->"):
                self.parse_list(None, "|", None, alias_set(after))
            else:
                after = list(before)
            self.expect(")")
            return AliasInfo(before, after, is_write)
        if self.next_if("!"):
            info = AliasInfo([f"${self.next_alias_id}"], [], True)
            self.next_alias_id += 1
            return info
        return None

    # -- default values --------------------------------------------------------------------
    def parse_default(self, t: Type, n: int | None) -> Any:
        tok = self.cur
        kind = _default_kind(t)
        if kind == "none_only":
            self.expect("None")
            return None
        if kind in ("str", "optional", "number", "int", "bool", "float", "complex"):
            return self.parse_single_constant(kind, t)
        if kind == "device":
            lit = self.expect("string_literal")
            text = _parse_string_literal(lit.text, lit, self.text)
            _check_device_string(text)
            return text
        if kind == "list":
            assert isinstance(t, ListType)
            elem_kind = _default_kind(t.elem)
            if tok.kind == "ident":
                self.expect("None")
            if n is not None and tok.kind != "[":
                value = self.parse_single_constant(elem_kind, t.elem)
                return self.convert_to_list(elem_kind, tok, [value] * n)
            start = self.expect("[")
            values: list[Any] = []
            if self.cur.kind != "]":
                values.append(self.parse_single_constant(elem_kind, t.elem))
                while self.next_if(","):
                    values.append(self.parse_single_constant(elem_kind, t.elem))
            self.expect("]")
            return self.convert_to_list(elem_kind, start, values)
        raise self.error(tok, "unexpected type, file a bug report")

    def parse_single_constant(self, kind: str, t: Type) -> Any:
        tok = self.cur
        if self.next_if("True"):
            return True
        if self.next_if("False"):
            return False
        if self.next_if("None"):
            return None
        if tok.kind == "string_literal":
            self.next()
            return _parse_string_literal(tok.text, tok, self.text)
        if tok.kind == "ident":
            self.next()
            if tok.text in _ENUM_DEFAULTS:
                return _ENUM_DEFAULTS[tok.text]
            if _is_scalar_type(t) and tok.text in _SCALAR_TYPE_CODES:
                return _SCALAR_TYPE_CODES[tok.text]
            raise self.error(self.cur, "invalid numeric default value")
        negative = self.next_if("-")
        num = self.expect("number")
        text = ("-" if negative else "") + num.text
        if kind == "complex" or "j" in text:
            imag = _stod(text[:-1])
            value: Any = None if imag is None else complex(0.0, imag)
        elif kind == "float" or "." in text or "e" in text:
            value = _stod(text)
        else:
            value = _stoll(text)
        if value is None:
            raise self.error(num, "invalid numeric default value")
        return value

    def convert_to_list(self, elem_kind: str, tok: _Token, values: list[Any]) -> list[Any]:
        accepted = {"complex": complex, "float": float, "int": int, "bool": bool}.get(elem_kind)
        if accepted is None:
            raise self.error(tok, "lists are only supported for float, int and complex types")
        for v in values:
            if type(v) is not accepted:
                raise self.error(tok, f"default value {_format_value(v)} does not have type {accepted.__name__}")
        return values


def parse_schema(text: str) -> FunctionSchema:
    """Parse a schema string (``[ns::]name[.overload](args) -> returns``) into a FunctionSchema.

    Raises SchemaError, quoting the schema and marking the offending token, if it is malformed.
    """
    return _Parser(text).parse_schema()


# --------------------------------------------------------------------------------------------
# Binding: from a Python call to the normalized (args, kwargs)
# --------------------------------------------------------------------------------------------

class _Mismatch(Exception):
    """Internal, cheap: a call does not fit the schema. `FunctionSchema.bind` turns it into a
    SchemaArgumentError with PyTorch's wording; `FunctionSchema.matches` just returns False."""


class _AnyType:
    """A stand-in for "every type" in the fast-path type sets."""

    def __contains__(self, item: object) -> bool:
        return True


_ALL_TYPES = _AnyType()
_NoneType = type(None)
_NUMBER_TYPES = frozenset({int, float, bool, complex})

# Sets of classes known to be tensor-like; they grow as new tensor classes are seen, and the
# fast path of every schema reads them.
_TENSOR_TYPES: set[type] = set()
_OPT_TENSOR_TYPES: set[type] = {_NoneType}
_TENSOR_OR_NUMBER_TYPES: set[type] = set(_NUMBER_TYPES)
_OPT_TENSOR_OR_NUMBER_TYPES: set[type] = set(_NUMBER_TYPES) | {_NoneType}


def _is_tensor(v: Any) -> bool:
    cls = type(v)
    if cls in _TENSOR_TYPES:
        return True
    if is_tensor_like(v):
        if hasattr(cls, "_key_set"):  # a class-level key set: every instance is tensor-like
            for s in (_TENSOR_TYPES, _OPT_TENSOR_TYPES, _TENSOR_OR_NUMBER_TYPES, _OPT_TENSOR_OR_NUMBER_TYPES):
                s.add(cls)
        return True
    return False


# aten operators that accept a Python number where the schema says Tensor (the number is kept
# as a number); every prims operator does too. [E: torch.ops.aten.X(1) on every aten op]
_NUMBERS_AS_TENSORS = frozenset({
    "add", "add_", "sub", "sub_", "subtract", "subtract_", "mul", "mul_", "multiply", "multiply_",
    "div", "div_", "divide", "divide_", "true_divide", "true_divide_", "floor_divide",
    "floor_divide_", "to", "_to_copy", "copy", "copy_", "_conj"})


def _allows_numbers_as_tensors(qualified_name: str) -> bool:
    ns, _, name = qualified_name.rpartition("::")
    return ns in ("prims", "nvprims") or (ns == "aten" and name in _NUMBERS_AS_TENSORS)


def _to_number(v: Any) -> Any:
    """A Python number in its plain form (bool stays bool; int/float/complex subclasses and
    numpy scalars become int/float/complex), or _Mismatch."""
    if isinstance(v, bool):
        return v
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return float(v)
    if isinstance(v, numbers.Complex):
        return complex(v)
    raise _Mismatch


def _conv_int(v: Any) -> int:
    if type(v) is int:
        return v
    if isinstance(v, (float, complex, str, bytes)) or v is None:
        raise _Mismatch
    if isinstance(v, int):
        return int(v)
    try:
        return operator.index(v)
    except Exception:
        raise _Mismatch from None


def _conv_float(v: Any) -> float:
    if type(v) is float:
        return v
    if isinstance(v, (str, bytes, complex)) or v is None:
        raise _Mismatch
    cls = type(v)
    if hasattr(cls, "__float__") or hasattr(cls, "__index__"):
        try:
            return float(v)
        except Exception:
            raise _Mismatch from None
    raise _Mismatch


def _conv_bool(v: Any) -> bool:
    # Like pybind11's bool caster: None means False, anything with __bool__ (numbers, 0-dim
    # tensors) is converted; strings and lists (truthy by length only) are refused.
    if v is True or v is False:
        return v
    if v is None:
        return False
    if isinstance(v, (str, bytes)) or not hasattr(type(v), "__bool__"):
        raise _Mismatch
    try:
        return bool(v)
    except Exception:
        raise _Mismatch from None


def _conv_complex(v: Any) -> complex:
    if type(v) is complex:
        return v
    if isinstance(v, numbers.Number):
        try:
            return complex(v)  # type: ignore[arg-type]
        except Exception:
            raise _Mismatch from None
    raise _Mismatch


def _conv_scalar(v: Any) -> Any:
    # Scalar (printed `number`): a Python int/float/complex (or subclass, e.g. numpy.float64);
    # the value keeps its kind. NB: numpy.int64 / numpy.float32 are refused, as in PyTorch.
    cls = type(v)
    if cls is int:
        if not -0x8000000000000000 <= v <= 0xFFFFFFFFFFFFFFFF:  # c10::Scalar holds an int64 or a uint64
            raise _int_overflow(v)
        return v
    if cls is float or cls is bool or cls is complex:
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, complex):
        return complex(v)
    raise _Mismatch


def _conv_str(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise _Mismatch


def _conv_enum(v: Any) -> Any:
    # ScalarType / Layout / MemoryFormat: PyTorch takes its enum objects or their int codes.
    # NB: we also accept names as strings ("float32"), since our dtypes are named by strings;
    # values are passed through unchanged (PyTorch turns codes into torch.dtype objects).
    if type(v) is int:
        return v
    if isinstance(v, bool):
        return int(v)
    if v is None or isinstance(v, (float, complex, list, tuple, dict)) or is_tensor_like(v):
        raise _Mismatch
    return v


def _conv_scalar_type(v: Any) -> Any:
    # a ScalarType given by name must name a dtype: any other string does not fit (torch: no str is a ScalarType)
    if isinstance(v, str) and v not in _DTYPE_NAMES:
        raise _Mismatch
    return _conv_enum(v)


def _conv_memory_format(v: Any) -> Any:
    # A MemoryFormat code becomes its object (torch.contiguous_format ...), as PyTorch's argument parser does,
    # so that modes and graphs see the object; kernels take either.
    if type(v) is int and v in _MEMORY_FORMATS:
        return _MEMORY_FORMATS[v]
    return _conv_enum(v)


def _conv_layout(v: Any) -> Any:
    # The same for Layout codes (torch.strided ...).
    if type(v) is int and v in _LAYOUTS:
        return _LAYOUTS[v]
    return _conv_enum(v)


def _conv_device(v: Any) -> Any:
    # A device: a string ("cpu", "meta", "cuda:0") or a device object; numbers are refused.
    if isinstance(v, str):
        return v
    if v is None or isinstance(v, (numbers.Number, list, tuple, dict)) or is_tensor_like(v):
        raise _Mismatch
    return v


def _conv_object(v: Any) -> Any:
    # Generator, Storage, Stream, ...: an object of its own kind; plain data is refused.
    if v is None or isinstance(v, (numbers.Number, str, list, tuple, dict)) or is_tensor_like(v):
        raise _Mismatch
    return v


def _conv_stream(v: Any) -> Any:
    # A Stream: only a torch.Stream. (torch's toIValue has no check here: it reads any object's memory as a
    # THPStream, undefined behaviour; ours refuses anything else with the usual mismatch error.)
    from .stream import Stream

    if isinstance(v, Stream):
        return v
    raise _Mismatch


def _conv_passthrough(v: Any) -> Any:
    return v


def _conv_tensor(v: Any) -> Any:
    # None is accepted for a Tensor: PyTorch binds it as an undefined tensor (many kernels then
    # reject it, with "Expected a proper Tensor but got None").
    if v is None or _is_tensor(v):
        return v
    raise _Mismatch


def _conv_tensor_or_number(v: Any) -> Any:
    if v is None or _is_tensor(v):
        return v
    if isinstance(v, (str, bytes)):
        raise _Mismatch
    if type(v) is int and not -0x8000000000000000 <= v <= 0xFFFFFFFFFFFFFFFF:
        raise _int_overflow(v)  # a wrapped number is an int64 or uint64 Scalar
    return _to_number(v)


def _int_overflow(v: int) -> OverflowError:
    """The binding's error for a Python int no c10::Scalar holds (below int64, above uint64)."""
    return OverflowError("can't convert negative int to unsigned" if v < 0 else "int too big to convert")


def _is_scalar_number(t: Any) -> bool:
    """``Scalar`` or ``Scalar?``."""
    elem = getattr(t, "elem", None)
    if elem is not None and type(t).__name__ == "OptionalType":
        t = elem
    return getattr(t, "name", None) == "Scalar"


def _has_big_int(args: Any, slots: tuple[int, ...]) -> bool:
    """A Python int beyond int64 / uint64 in one of the number slots ``slots``."""
    n = len(args)
    for i in slots:
        if i < n:
            v = args[i]
            if type(v) is int and not -0x8000000000000000 <= v <= 0xFFFFFFFFFFFFFFFF:
                return True
    return False


_BASE_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "int": _conv_int, "SymInt": _conv_int, "float": _conv_float, "bool": _conv_bool,
    "SymBool": _conv_bool, "complex": _conv_complex, "Scalar": _conv_scalar, "str": _conv_str,
    "ScalarType": _conv_scalar_type, "Layout": _conv_layout, "MemoryFormat": _conv_memory_format,
    "Device": _conv_device, "Generator": _conv_object, "Storage": _conv_object,
    "Stream": _conv_stream, "QScheme": _conv_enum, "Quantizer": _conv_object,
}

# Values of these exact types are already in schema form (the fast path skips conversion).
_BASE_FAST_TYPES: dict[str, Any] = {
    "int": frozenset({int}), "SymInt": frozenset({int}), "float": frozenset({float}),
    "bool": frozenset({bool}), "SymBool": frozenset({bool}), "complex": frozenset({complex}),
    "Scalar": _NUMBER_TYPES, "str": frozenset({str}), "ScalarType": frozenset({int}),
    "Layout": frozenset({layout, str}), "MemoryFormat": frozenset({memory_format, str}),
    "Device": frozenset({str}), "QScheme": frozenset({int}),
}


def _converter(t: Type, n: int | None, numbers_ok: bool) -> tuple[Callable[[Any], Any], Any, Any]:
    """(convert, fast_types, fast_elems) for a value of type `t`."""
    if isinstance(t, OptionalType):
        inner, inner_fast, inner_elems = _converter(t.elem, n, numbers_ok)

        def convert_optional(v: Any) -> Any:
            return None if v is None else inner(v)

        if inner_fast is _TENSOR_TYPES:
            fast: Any = _OPT_TENSOR_TYPES
        elif inner_fast is _TENSOR_OR_NUMBER_TYPES:
            fast = _OPT_TENSOR_OR_NUMBER_TYPES
        elif inner_fast is _ALL_TYPES:
            fast = _ALL_TYPES
        else:
            fast = frozenset(inner_fast) | {_NoneType}
        return convert_optional, fast, inner_elems
    if isinstance(t, ListType):
        return _list_converter(t, n)
    if isinstance(t, BaseType):
        if t.name == "Tensor":
            if numbers_ok:
                return _conv_tensor_or_number, _TENSOR_OR_NUMBER_TYPES, None
            return _conv_tensor, _TENSOR_TYPES, None
        conv = _BASE_CONVERTERS.get(t.name)
        if conv is not None:
            return conv, _BASE_FAST_TYPES.get(t.name, frozenset()), None
    # Any, type variables, tuples, dicts, unions, classes, NoneType ...: taken as given.
    return _conv_passthrough, _ALL_TYPES, None


def _list_converter(t: ListType, n: int | None) -> tuple[Callable[[Any], Any], Any, Any]:
    elem = t.elem
    if elem.is_tensor() or elem.is_optional_tensor():
        optional = elem.is_optional_tensor()

        def convert_tensors(v: Any) -> list[Any]:
            if not isinstance(v, (list, tuple)):
                raise _Mismatch
            for e in v:
                if not ((optional and e is None) or _is_tensor(e)):
                    raise _Mismatch
            return v if type(v) is list else list(v)

        return convert_tensors, frozenset(), (_OPT_TENSOR_TYPES if optional else _TENSOR_TYPES)

    elem_conv, elem_fast, _ = _converter(elem, None, False)
    # A single int (for int[N], not SymInt[N]) or float (for float[N]) is repeated N times.
    broadcast = None
    if n is not None and isinstance(elem, BaseType):
        if elem.name == "int":
            broadcast = int
        elif elem.name == "float":
            broadcast = float

    def convert_list(v: Any) -> list[Any]:
        if broadcast is not None and isinstance(v, broadcast):
            return [broadcast(v)] * n  # type: ignore[operator]
        if isinstance(v, (str, bytes)) or is_tensor_like(v):
            raise _Mismatch
        try:
            items = iter(v)
        except TypeError:
            raise _Mismatch from None
        return [elem_conv(e) for e in items]

    return convert_list, frozenset(), elem_fast


def _same_value(a: Any, b: Any) -> bool:
    """c10::IValue equality: values of different kinds are never equal (1 != 1.0 != True)."""
    if b is None:
        return a is None
    if type(a) is not type(b):
        return False
    if type(a) is list or type(a) is tuple:
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return a == b


def _never(v: Any) -> bool:
    return False


def _is_none(v: Any) -> bool:
    return v is None


class _UndefinedTensor:
    """An undefined ``at::Tensor`` passed to a ``Tensor?`` argument (keyword-only or positional).

    C++ code that unpacks a saved optional tensor (a generated backward passing ``attn_mask``) boxes an undefined
    tensor, not ``None``: the argument reaches ``__torch_dispatch__`` (and graphs) as ``attn_mask=None`` instead of
    being left out like a default. Passing this marker reproduces that: ``bind`` keeps the argument, as ``None``
    (a positional one with the positional values before it, defaults or not).
    """

    _instance: _UndefinedTensor | None = None

    def __new__(cls) -> _UndefinedTensor:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED_TENSOR"


UNDEFINED_TENSOR = _UndefinedTensor()


def _default_matcher(arg: Argument) -> Callable[[Any], bool]:
    """A predicate telling whether a bound value equals the argument's default (so that the
    value is left out of the normalized call), specialized for speed."""
    if not arg.has_default:
        return _never
    default = arg.default
    if default is None:
        return _is_none
    t = arg.type.elem if isinstance(arg.type, OptionalType) else arg.type
    if isinstance(t, BaseType) and t.name in _ENUM_CODES and type(default) is int:
        codes = _ENUM_CODES[t.name]

        def same_enum(v: Any) -> bool:
            if type(v) is int:
                return v == default
            if v is None or isinstance(v, (bool, float, complex)):
                return False
            return codes.get(str(v).rpartition(".")[2], -1) == default

        return same_enum
    kind = type(default)
    if kind is list:
        elem = t.elem if isinstance(t, ListType) else None
        if isinstance(elem, BaseType) and elem.name in ("int", "SymInt", "float", "bool", "complex"):
            # Bound values of a typed list are lists of exactly that element type.
            return lambda v: type(v) is list and v == default
        return lambda v: _same_value(v, default)
    return lambda v: type(v) is kind and v == default


class FunctionSchema:
    """A parsed operator schema (c10::FunctionSchema).

    Fields: ``name`` ("aten::add"), ``overload_name`` ("Tensor", "" if none), ``arguments`` and
    ``returns`` (lists of Argument), ``is_vararg`` / ``is_varret`` (``...`` in the argument /
    return list), ``is_mutable`` (some argument is written). ``str()`` prints the canonical
    form, identical to ``str(torch._C.parse_schema(s))``. `bind` normalizes a call.
    """

    def __init__(self, name: str, overload_name: str, arguments: list[Argument],
                 returns: list[Argument], *, is_vararg: bool = False, is_varret: bool = False,
                 allow_numbers_as_tensors: bool | None = None) -> None:
        self.name = name
        self.overload_name = overload_name
        self.arguments = list(arguments)
        self.returns = list(returns)
        self.is_vararg = is_vararg
        self.is_varret = is_varret
        self.is_mutable = any(a.is_write for a in self.arguments)
        self._str: str | None = None
        seen_default = False
        for arg in self.arguments:
            if arg.kwarg_only:
                continue
            if arg.has_default:
                seen_default = True
            elif seen_default:
                raise SchemaError("Non-default positional argument follows default argument. "
                                  f"Parameter {arg.name} in {self}")
        if allow_numbers_as_tensors is None:
            allow_numbers_as_tensors = _allows_numbers_as_tensors(name)
        self._build_plan(allow_numbers_as_tensors)

    # -- identity and printing -------------------------------------------------------------
    @property
    def namespace(self) -> str:
        return self.name.rpartition("::")[0]

    @property
    def qualified_name(self) -> str:
        """``aten::add.Tensor`` (the name followed by the overload, if any)."""
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    def __str__(self) -> str:
        if self._str is None:
            self._str = self._render()
        return self._str

    def __repr__(self) -> str:
        return f"FunctionSchema({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FunctionSchema) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def _render(self) -> str:
        parts = []
        seen_kwarg_only = False
        for arg in self.arguments:
            text = str(arg)
            if arg.kwarg_only and not seen_kwarg_only:
                text = "*, " + text
                seen_kwarg_only = True
            parts.append(text)
        if self.is_vararg:
            parts.append("...")
        head = self.qualified_name + "(" + ", ".join(parts) + ") -> "
        rets = [str(r) for r in self.returns]
        if self.is_varret:
            rets.append("...")
        single = len(self.returns) == 1 and not self.is_varret
        # Parenthesize unless there is exactly one return (or only "..."), and also for a single
        # tuple or list-of-tuples return, which would otherwise read back as several returns.
        need_paren = not (single or (not self.returns and self.is_varret))
        if single:
            t = self.returns[0].type
            if isinstance(t, TupleType) or (isinstance(t, ListType) and isinstance(t.elem, TupleType)):
                need_paren = True
        body = ", ".join(rets)
        return head + (f"({body})" if need_paren else body)

    def argument_index(self, name: str) -> int | None:
        """The position of the argument called `name`, or None."""
        return self._index.get(name)

    # -- binding ---------------------------------------------------------------------------
    def _build_plan(self, numbers_ok: bool) -> None:
        """Precompute, per argument, how to check and convert a value and how to recognize its
        default, so that `bind` only runs table lookups. (The schema is treated as immutable.)"""
        args = self.arguments
        converters = [_converter(a.type, a.N, numbers_ok) for a in args]
        self._converts = tuple(c[0] for c in converters)    # value -> schema form, or _Mismatch
        self._fast_types = tuple(c[1] for c in converters)  # exact types already in schema form
        self._fast_elems = tuple(c[2] for c in converters)  # for lists: exact element types
        # number slots taking a Python int: one beyond int64 / uint64 goes to the slow path's OverflowError
        self._int_slots = tuple(i for i, (a, c) in enumerate(zip(args, converters, strict=True))
                                if c[1] and int in c[1] and (c[0] is _conv_tensor_or_number or _is_scalar_number(a.type)))
        self._same = tuple(_default_matcher(a) for a in args)
        self._default_values = tuple(a.default for a in args)
        self._has_default = tuple(a.has_default for a in args)
        self._names = tuple(a.name for a in args)
        self._index: dict[str, int] = {}
        for i, a in enumerate(args):
            self._index.setdefault(a.name, i)
        self._n_args = len(args)
        n_pos = 0
        while n_pos < len(args) and not args[n_pos].kwarg_only:
            n_pos += 1
        self._n_pos = n_pos
        n_required = 0
        while n_required < n_pos and not args[n_required].has_default:
            n_required += 1
        self._n_required = n_required
        # The fast path takes positional-only calls when every keyword-only argument has a default.
        kwarg_defaults = all(a.has_default for a in args[n_pos:])
        self._fast_min = n_required if (kwarg_defaults and not self.is_vararg) else 1 << 30
        self._fast_max = n_pos
        # Tensor arguments that are not optional: None binds (an undefined tensor) but an aten operator's call
        # refuses it (set by OpOverload for the aten namespace; a schema alone accepts it, as torch's parser)
        self._refuse_undefined = False
        self._proper_tensors = tuple(i for i, a in enumerate(args)
                                     if isinstance(a.type, BaseType) and a.type.name == "Tensor")

    def bind(self, args: tuple, kwargs: dict | None = None) -> tuple[tuple, dict]:
        """Bind a Python call to this schema, returning what a boxed Python kernel, fallback or
        ``__torch_dispatch__`` receives (SEMANTICS 3.5): positional schema arguments positionally
        and keyword-only ones by name, values in schema form, trailing positional arguments and
        keyword-only arguments equal to their default left out.

        Raises SchemaArgumentError (PyTorch's wording) when the call does not fit.
        """
        if not kwargs:
            n = len(args)
            if self._fast_min <= n <= self._fast_max:
                fast_types = self._fast_types
                for i, v in enumerate(args):
                    if type(v) not in fast_types[i]:
                        elems = self._fast_elems[i]
                        if elems is None or type(v) is not list:
                            break
                        for e in v:
                            if type(e) not in elems:
                                break
                        else:
                            continue
                        break
                else:
                    if not (self._int_slots and _has_big_int(args, self._int_slots)):
                        n_required = self._n_required
                        if n > n_required:
                            same = self._same
                            while n > n_required and same[n - 1](args[n - 1]):
                                n -= 1
                            if n < len(args):
                                return tuple(args[:n]), {}
                        return (args if type(args) is tuple else tuple(args)), {}
        try:
            bound, bound_kwargs = self._bind(args, kwargs)
        except _Mismatch as m:
            raise SchemaArgumentError(self._mismatch_message(m, args, kwargs)) from None
        if self._refuse_undefined and self._proper_tensors and not self.is_vararg:
            self._check_proper_tensors(bound, bound_kwargs)
        return bound, bound_kwargs

    def _check_proper_tensors(self, bound: tuple, bound_kwargs: dict) -> None:
        """None bound to a (non-optional) Tensor argument: the call fits the schema (None is an undefined tensor,
        so overload selection accepts it) but no kernel takes it, PyTorch's unboxing check."""
        n = len(bound)
        for i in self._proper_tensors:
            if (bound[i] if i < n else bound_kwargs.get(self._names[i], 0)) is None:
                raise UndefinedTensorError(
                    "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument "
                    f"#{i} '{self._names[i]}'")

    def matches(self, args: tuple, kwargs: dict | None = None) -> bool:
        """True when `bind` would succeed (used to pick an overload)."""
        try:
            self._bind(args, kwargs)
        except _Mismatch:
            return False
        return True

    def _bind(self, args: tuple, kwargs: dict | None) -> tuple[tuple, dict]:
        """The general path of `bind`; raises _Mismatch. Checks run in the order PyTorch's
        createStackForSchema runs them, so the same problem is reported first."""
        if self.is_vararg:
            return tuple(args), dict(kwargs or {})
        if kwargs is None:
            kwargs = {}
        n = len(args)
        n_pos = self._n_pos
        if n + len(kwargs) > self._n_args:
            raise _Mismatch("too_many")
        converts = self._converts
        values = []
        keep = 0  # positional values up to here are kept even when equal to their defaults (UNDEFINED_TENSOR)
        for i in range(min(n, n_pos)):
            if args[i] is UNDEFINED_TENSOR:
                values.append(None)
                keep = i + 1
                continue
            try:
                values.append(converts[i](args[i]))
            except _Mismatch:
                raise _Mismatch("type", i, args[i]) from None
        if n > n_pos:
            raise _Mismatch("positional", n_pos)
        names = self._names
        defaults = self._default_values
        consumed = 0
        defaulted = False
        for i in range(n, n_pos):
            name = names[i]
            if name in kwargs:
                v = kwargs[name]
                if v is UNDEFINED_TENSOR:
                    values.append(None)
                    keep = i + 1
                else:
                    try:
                        values.append(converts[i](v))
                    except _Mismatch:
                        raise _Mismatch("type", i, v) from None
                consumed += 1
            elif self._has_default[i]:
                values.append(defaults[i])
                defaulted = True
            else:
                raise _Mismatch("missing", i)
        same = self._same
        out_kwargs = {}
        for i in range(n_pos, self._n_args):
            name = names[i]
            if name in kwargs:
                v = kwargs[name]
                if v is UNDEFINED_TENSOR:  # kept, as None (see UNDEFINED_TENSOR)
                    out_kwargs[name] = None
                    consumed += 1
                    continue
                try:
                    v = converts[i](v)
                except _Mismatch:
                    raise _Mismatch("type", i, v) from None
                consumed += 1
                if not same[i](v):
                    out_kwargs[name] = v
            elif not self._has_default[i]:
                raise _Mismatch("missing", i)
        if consumed != len(kwargs):
            raise _Mismatch("kwargs")
        end = n_pos
        n_required = self._n_required
        while end > n_required and end > keep and same[end - 1](values[end - 1]):
            end -= 1
        if defaulted:
            # Kernels may mutate what they receive: never hand out the schema's own lists.
            for i in range(n, end):
                if type(values[i]) is list and values[i] is defaults[i]:
                    values[i] = list(values[i])
        return tuple(values[:end]), out_kwargs

    def _mismatch_message(self, m: _Mismatch, args: tuple, kwargs: dict | None) -> str:
        """PyTorch's message for a call that does not fit (createStackForSchema's wording)."""
        what = m.args[0]
        op = f"{self.name}()"
        n_given = len(args) + len(kwargs or {})
        if what == "too_many":
            return (f"{op} expected at most {self._n_args} argument(s) but received {n_given} "
                    f"argument(s). Declaration: {self}")
        if what == "positional":
            return (f"{op} takes {m.args[1]} positional argument(s) but {len(args)} was/were given.  "
                    f"Declaration: {self}")
        if what == "missing":
            return f"{op} is missing value for argument '{self._names[m.args[1]]}'. Declaration: {self}"
        if what == "kwargs":
            for key in kwargs or {}:
                if key not in self._index:
                    return f"Unknown keyword argument '{key}' for operator '{self.name}'. Schema: {self}"
            for name in self._names:
                if name in (kwargs or {}):
                    return (f"Argument '{name}' specified both as positional and keyword argument. "
                            f"Schema: {self}")
            return f"{op} got unexpected keyword arguments. Schema: {self}"
        index, value = m.args[1], m.args[2]
        arg = self.arguments[index]
        return (f"{op} Expected a value of type '{_fake(arg.type).annotation_str()}' for argument "
                f"'{arg.name}' but instead found type '{type(value).__name__}'.\n"
                f"Position: {index}\nValue: {value!r}\nDeclaration: {self}")
