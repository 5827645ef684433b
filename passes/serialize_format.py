"""The graph file format's vocabulary, shared by saving (serialize_save.py) and loading (serialize_load.py).

``FORMAT`` / ``VERSION`` / ``MAX_DEPTH``, ``SerializationError``, and what a file may name: the Python functions
of ``ALLOWED_FUNCTIONS`` (by the name the file uses), registered operators (``resolve_operator``: looked up in the
registry, never imported), memory formats, layouts, pytree node types; the names a node may not take; the
integer and float ranges a value may hold; the dense-layout test constants are checked with; where a file's
``.npz`` constants live. The format itself is described in serialize.py, the public entry point.

PyTorch counterpart: torch/_export/serde/schema.py (the versioned schema of torch.export's serialized programs)
and the operator lookup of torch/_export/serde/serialize.py (``deserialize_operator``).
"""

from __future__ import annotations

import builtins
import operator
import os
import re
from collections import OrderedDict
from typing import Any

from dispatcher.autograd import grad_mode
from dispatcher.memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    preserve_format,
    sparse_coo,
    strided,
)
from dispatcher.op_overload import OpOverload
from dispatcher.registry import REGISTRY
from tracer.names import CODEGEN_GLOBALS, is_valid_name

__all__ = ["ALLOWED_FUNCTIONS", "FLOAT_RE", "FORMAT", "FUNCTION_NAMES", "INT_MAX", "INT_MIN", "LAYOUTS", "MAX_DEPTH",
           "MEMORY_FORMATS", "RESERVED_NAMES", "SPEC_TYPES", "VERSION", "SerializationError", "is_dense", "npz_path",
           "MAX_ALLOC_BYTES", "max_alloc_bytes", "resolve_operator"]

FORMAT = "dispatchkit.graph"
VERSION = 1
#: deepest nesting of containers accepted in a value (deeper files are refused, never a RecursionError)
MAX_DEPTH = 64
INT_MIN, INT_MAX = -(2**63), 2**64 - 1  # int64, plus the uint64 range some masks use
#: the most memory one node of a loaded graph may allocate (default 1 GiB): the loader works out each node's
#: output size on fake tensors and refuses the file above it; raise it here, with the environment variable
#: ``DISPATCHKIT_MAX_ALLOC_BYTES``, or per call with ``load(..., max_alloc_bytes=)``
MAX_ALLOC_BYTES = 1 << 30


def max_alloc_bytes(given: int | None = None) -> int:
    """The allocation limit in force: ``given``, else the environment variable, else ``MAX_ALLOC_BYTES``."""
    if given is not None:
        return int(given)
    env = os.environ.get("DISPATCHKIT_MAX_ALLOC_BYTES")
    if env:
        try:
            return int(env)
        except ValueError:
            raise SerializationError(f"DISPATCHKIT_MAX_ALLOC_BYTES must be a number of bytes, got {env[:40]!r}") \
                from None
    return MAX_ALLOC_BYTES
FLOAT_RE = re.compile(r"^-?(inf|nan|\d+(\.\d*)?([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$")


class SerializationError(ValueError):
    """A graph cannot be saved, or a file is not a graph this loader accepts (nothing was executed)."""


#: the Python functions a file may call, by the name the file uses (nothing else is ever resolved)
ALLOWED_FUNCTIONS: dict[str, Any] = {
    f"operator.{name}": getattr(operator, name) for name in (
        "getitem", "setitem", "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "pos", "abs",
        "eq", "ne", "lt", "le", "gt", "ge", "and_", "or_", "xor", "invert", "not_", "matmul",
        "iadd", "isub", "imul", "itruediv", "ifloordiv")
}
ALLOWED_FUNCTIONS["torch._C._set_grad_enabled"] = grad_mode._set_grad_enabled
ALLOWED_FUNCTIONS.update({f"builtins.{name}": getattr(builtins, name) for name in ("abs", "max", "min")})
FUNCTION_NAMES = {id(fn): name for name, fn in ALLOWED_FUNCTIONS.items()}

MEMORY_FORMATS = {m.name: m for m in (contiguous_format, preserve_format, channels_last, channels_last_3d)}
LAYOUTS = {strided.name: strided, sparse_coo.name: sparse_coo}
RESERVED_NAMES = frozenset(CODEGEN_GLOBALS) | frozenset(builtins.__dict__) | {"self"}
SPEC_TYPES: dict[str, type] = {"tuple": tuple, "list": list, "dict": dict, "OrderedDict": OrderedDict}


_RESOLVED: dict[str, OpOverload] = {}  # name -> operator, for names already resolved (checked again on use)


def resolve_operator(name: str) -> OpOverload | None:
    """The registered OpOverload called ``ns.op.overload``, or None. Never imports anything."""
    hit = _RESOLVED.get(name)
    if hit is not None and hit._schema is not None:
        return hit
    parts = name.split(".")
    if len(parts) != 3 or not all(is_valid_name(p) and not p.startswith("__") for p in parts):
        return None
    ns, op_name, overload = parts
    qualified = f"{ns}::{op_name}"
    op = REGISTRY.find(qualified, "" if overload == "default" else overload)
    if op is None and overload == "default":
        op = REGISTRY.find(qualified, "default")
    if op is None or op._schema is None or str(op) != name:
        return None
    if len(_RESOLVED) < 100_000:
        _RESOLVED[name] = op
    return op


def is_dense(shape: list[int], stride: list[int]) -> bool:
    """Do ``shape`` / ``stride`` describe a dense, non-overlapping layout (a permuted contiguous tensor)?"""
    dims = sorted((st, sz) for sz, st in zip(shape, stride) if sz != 1)
    expected = 1
    for st, sz in dims:
        if sz == 0:
            return True
        if st != expected:
            return False
        expected *= sz
    return True


def npz_path(path: str | os.PathLike) -> str:
    """Where the constants of the graph file ``path`` are: ``<path without .json>.npz``."""
    text = os.fspath(path)
    root, ext = os.path.splitext(text)
    return (root if ext == ".json" else text) + ".npz"
