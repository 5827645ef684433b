"""Names for graph nodes and generated code: the Namespace that makes ``add``, ``add_1``, ``sum_1``.

Corresponds to torch/fx/graph.py's ``_Namespace`` and ``_illegal_names``. A name is O(1) to
make: each base remembers the last suffix it handed out, so no scan over existing names.
"""

from __future__ import annotations

import builtins
import keyword
import re
from typing import Any

from dispatcher.op_overload import OpOverload

__all__ = ["CODEGEN_GLOBALS", "Namespace", "escape_surrogates", "is_valid_name", "target_to_name"]

# ---------------------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------------------

#: names the generated code uses for its own globals; node names never take them
CODEGEN_GLOBALS = ("inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree")

# name -> the object the name legitimately stands for; a candidate equal to one of these
# names is only allowed for that very object (so a global for ``max`` may be called "max",
# a node may not). Keywords map to fresh objects, so they are never allowed.
_RESERVED: dict[str, object] = {name: obj for name, obj in builtins.__dict__.items() if name != "_"}
# keywords last: builtins.__dict__ maps "None"/"True"/"False" to their values, which would let a
# node (whose object is None) be called "None". ("_" is the REPL's last result, not a builtin.)
_RESERVED.update({kw: object() for kw in keyword.kwlist})
_RESERVED.update({name: object() for name in CODEGEN_GLOBALS})
_RESERVED["self"] = object()  # the generated forward's first parameter

_NAME_RE = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")  # base, optional numeric suffix
_ILLEGAL_CHARS_RE = re.compile(r"[^0-9a-zA-Z_]+")
_SNAKE_RE = re.compile(r"(?<=[a-z])([A-Z])")

# candidate -> (sanitized candidate, base, suffix or None); bounded so user names cannot grow it forever
_PARSED: dict[str, tuple[str, str, int | None]] = {}
_PARSED_LIMIT = 8192


def _parse_candidate(candidate: str) -> tuple[str, str, int | None]:
    hit = _PARSED.get(candidate)
    if hit is not None:
        return hit
    text = candidate if isinstance(candidate, str) else str(candidate)
    match = _NAME_RE.match(text)
    if match is None:
        text = _ILLEGAL_CHARS_RE.sub("_", text) or "_unnamed"
        if text[0].isdigit():
            text = "_" + text
        match = _NAME_RE.match(text)
    base, num = match.group(1, 2)
    parsed = (text, base, None if num is None else int(num))
    if len(_PARSED) < _PARSED_LIMIT and type(candidate) is str:
        _PARSED[candidate] = parsed
    return parsed


def is_valid_name(name: object) -> bool:
    """True for a string usable as a variable in generated code (identifier, not a keyword)."""
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


class Namespace:
    """Gives out unique, readable Python identifiers: ``add``, ``add_1``, ``sum_1``, ``_0foo``.

    FX's rules: illegal characters become ``_``, a leading digit gets a ``_`` prefix, a name
    that is a keyword, a builtin or one of the generated code's globals gets a ``_<n>``
    suffix, and a taken name gets the next free suffix of its base. O(1) per name: each base
    remembers the last suffix it handed out.
    """

    __slots__ = ("_used", "_base_count", "_obj_to_name")

    def __init__(self) -> None:
        self._used: set[str] = set()  #: every name handed out
        self._base_count: dict[str, int] = {}  #: base -> last suffix used with it
        self._obj_to_name: dict[int, str] = {}  #: id(obj) -> name, for objects named through create_name

    def create_name(self, candidate: str, obj: object = None) -> str:
        """A fresh unique name based on ``candidate`` (the same name again for the same ``obj``)."""
        if obj is not None:
            known = self._obj_to_name.get(id(obj))
            if known is not None:
                return known
        parsed = _PARSED.get(candidate)  # (_parse_candidate's cache, read here first: this runs for every node)
        text, base, num = parsed if parsed is not None else _parse_candidate(candidate)
        used = self._used
        if num is None or text in used:
            num = self._base_count.get(base, 0)
            if _RESERVED.get(text, obj) is not obj:
                num += 1
                text = f"{base}_{num}"
        while text in used:
            num += 1
            text = f"{base}_{num}"
        used.add(text)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = text
        return text

    def reserve(self, name: str) -> None:
        """Mark ``name`` as taken (it must already be valid)."""
        self._used.add(name)


_SNAKE: dict[str, str] = {}  #: _snake_case's results (bounded like _PARSED)


def _snake_case(text: str) -> str:
    known = _SNAKE.get(text)
    if known is None:
        known = _SNAKE_RE.sub(r"_\1", text).lower()
        if len(_SNAKE) < _PARSED_LIMIT and type(text) is str:
            _SNAKE[text] = known
    return known


_OVERLOAD_NAMES: dict[OpOverload, str] = {}  # OpOverload -> its node-name candidate (operators are long-lived)


def target_to_name(target: Any) -> str:
    """The default name candidate for a node calling ``target`` (before uniquing).

    An OpOverload is named after its packet (``aten.add.Tensor`` -> ``add``), a callable
    after ``__name__`` in snake case, a string target after itself without dunder
    underscores (``__add__`` -> ``add``).
    """
    if isinstance(target, OpOverload):
        name = _OVERLOAD_NAMES.get(target)
        if name is None:
            name = _snake_case(target.overloadpacket.__name__)
            if _is_dunder(name) and len(name) > 4:  # aten.__lshift__.Scalar -> lshift, as torch.fx names it
                name = name[2:-2]
            _OVERLOAD_NAMES[target] = name
        return name
    if callable(target):
        name = getattr(target, "__name__", None) or type(target).__name__
    else:
        name = str(target)
        if name.startswith("__") and name.endswith("__") and len(name) > 4:
            name = name[2:-2]
    return _snake_case(name)


def _is_dunder(part: str) -> bool:
    return part.startswith("__") and part.endswith("__")


def escape_surrogates(text: str) -> str:
    """``text`` with lone surrogates (``"\\udc80"``: an undecodable byte of a file name, or a stored stack trace)
    written as ``\\udc80`` escapes, so generated code, printouts and files encode as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
