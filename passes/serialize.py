"""Safe serialization of GraphModules: ``save(gm, path)`` / ``load(path)`` to versioned JSON.

Corresponds in purpose to torch.export's serializer (torch/_export/serde/serialize.py), not to
pickling a GraphModule: the file is *data*. Loading never runs anything the file says: no
pickle (constants are read with ``np.load(allow_pickle=False)`` or from base64 bytes), no
``eval`` / ``exec`` / ``import`` of file text. A call target is a string that must name either
an operator registered with the dispatcher (``"aten.add.Tensor"``, looked up in the registry,
never imported) or one of the few Python functions of ``ALLOWED_FUNCTIONS``
(``"operator.getitem"``, the grad-mode setter ``"torch._C._set_grad_enabled"``, ...). Anything
else — unknown targets, wrong versions, malformed values, undefined node references, invalid
or duplicate names, constants whose data does not match their recorded shape / dtype, nesting
deeper than ``MAX_DEPTH`` — is refused with a ``SerializationError`` naming the node and what
was expected.

The format (``FORMAT``, ``VERSION``)::

    {"format": "dispatchkit.graph", "version": 1, "class_name": ..., "traced": true,
     "pytree": null | {"orig_args": [...], "in_spec": spec | null, "out_spec": spec | null},
     "constants_storage": "npz" | "embedded",
     "constants": {"_tensor_constant0": {"shape": [2], "stride": [1], "dtype": "float32",
                                          "requires_grad": false, "data": "<base64>" (embedded only)}},
     "nodes": [{"name": "add", "op": "call_function", "target": "aten.add.Tensor",
                "args": [{"node": "x_1"}, 1], "kwargs": {}, "meta": {"val": ..., "stack_trace": ...}}]}

Values carry explicit type tags: JSON ``null`` / ``true`` / ``false`` / strings / integers stand
for themselves; everything else is a one-key object: ``{"node": name}``, ``{"float": "inf"}``
(repr text, so inf / nan / -0.0 survive), ``{"complex": [re, im]}``, ``{"tuple": [...]}``,
``{"list": [...]}``, ``{"dict": [[key, value], ...]}``, ``{"slice": [start, stop, step]}``,
``{"ellipsis": null}``, ``{"dtype": "float32"}``, ``{"device": "cpu"}``,
``{"memory_format": "contiguous_format"}``, ``{"layout": "strided"}``, ``{"op": "aten.add.Tensor"}``;
a ``meta["val"]`` tensor is ``{"tensor": {"shape", "stride", "storage_offset", "dtype", "device",
"requires_grad"}}`` and comes back as a FakeTensor with that metadata. With ``constants="npz"``
the tensors are stored in ``<path without .json>.npz`` next to the JSON (the name is derived
from the path, never read from the file).
"""

from __future__ import annotations

import base64
import builtins
import json
import math
import operator
import os
import re
import zipfile
from collections import OrderedDict
from typing import Any

import numpy as np

import dispatcher
from dispatcher.autograd import grad_mode
from dispatcher.dtypes import dtype as _DType
from dispatcher.fake import FakeTensorMode
from dispatcher.memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    preserve_format,
    sparse_coo,
    strided,
)
from dispatcher.memory_format import layout as _Layout
from dispatcher.memory_format import memory_format as _MemoryFormat
from dispatcher.nn.parameter import Parameter
from dispatcher.op_overload import OpOverload
from dispatcher.registry import REGISTRY
from dispatcher.tensor import Tensor
from dispatcher.tensor import device as _Device
from tracer import pytree
from tracer.graph import Graph, GraphLintError, PyTreeInfo
from tracer.graph_module import GraphModule
from tracer.names import CODEGEN_GLOBALS, is_valid_name
from tracer.node import Node

from ._fake_meta import DTYPES_BY_NAME, fake_from_meta, tensor_meta

__all__ = ["ALLOWED_FUNCTIONS", "FORMAT", "MAX_DEPTH", "VERSION", "SerializationError", "dumps", "from_dict", "load", "loads",
           "save", "to_dict"]

FORMAT = "dispatchkit.graph"
VERSION = 1
#: deepest nesting of containers accepted in a value (deeper files are refused, never a RecursionError)
MAX_DEPTH = 64
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1  # int64, plus the uint64 range some masks use
_FLOAT_RE = re.compile(r"^-?(inf|nan|\d+(\.\d*)?([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$")


def _encode_module_stack(stack: Any) -> list[list[str]] | None:
    """``meta["nn_module_stack"]`` as [[key, fqn, class], ...] (class as ``module.qualname`` text), or None."""
    if not isinstance(stack, dict) or not stack:
        return None
    out = []
    for key, value in stack.items():
        if not (isinstance(key, str) and isinstance(value, (tuple, list)) and len(value) == 2):
            return None
        fqn, cls = value
        cls_name = f"{cls.__module__}.{cls.__qualname__}" if isinstance(cls, type) else str(cls)
        out.append([key, str(fqn), cls_name])
    return out


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
_FUNCTION_NAMES = {id(fn): name for name, fn in ALLOWED_FUNCTIONS.items()}

_MEMORY_FORMATS = {m.name: m for m in (contiguous_format, preserve_format, channels_last, channels_last_3d)}
_LAYOUTS = {strided.name: strided, sparse_coo.name: sparse_coo}
_RESERVED_NAMES = frozenset(CODEGEN_GLOBALS) | frozenset(builtins.__dict__) | {"self"}
_SPEC_TYPES: dict[str, type] = {"tuple": tuple, "list": list, "dict": dict, "OrderedDict": OrderedDict}


# ---------------------------------------------------------------------------------------
# Saving
# ---------------------------------------------------------------------------------------


def _op_name(op: OpOverload) -> str:
    return str(op)  # "aten.add.Tensor", "aten.clone.default"


def _target_to_str(node: Node) -> str:
    target = node.target
    if node.op != "call_function":
        if not isinstance(target, str):
            raise SerializationError(f"cannot save node {node.name}: a {node.op} target must be a str, got {target!r}")
        return target
    if isinstance(target, OpOverload):
        name = _op_name(target)
        if _resolve_operator(name) is not target:
            raise SerializationError(f"cannot save node {node.name}: operator {name} is not in the registry")
        return name
    name = _FUNCTION_NAMES.get(id(target))
    if name is None:
        raise SerializationError(
            f"cannot save node {node.name}: target {target!r} is neither a registered operator nor one of the "
            f"allowed Python functions ({', '.join(sorted(ALLOWED_FUNCTIONS))})")
    return name


def _encode(value: Any, where: str, depth: int = 0) -> Any:
    """``value`` as tagged JSON data (see the module docstring)."""
    if depth > MAX_DEPTH:
        raise SerializationError(f"{where}: values nested deeper than {MAX_DEPTH} levels")
    cls = type(value)
    if value is None or cls is bool or cls is str:
        return value
    if cls is int:
        if not _INT_MIN <= value <= _INT_MAX:
            raise SerializationError(f"{where}: integer {value} does not fit in 64 bits")
        return value
    if cls is float:
        return {"float": float.__repr__(value)}
    if cls is complex:
        return {"complex": [float.__repr__(value.real), float.__repr__(value.imag)]}
    if cls is Node:
        return {"node": value.name}
    if cls is slice:
        return {"slice": [_encode(v, where, depth + 1) for v in (value.start, value.stop, value.step)]}
    if value is Ellipsis:
        return {"ellipsis": None}
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {"tuple": [_encode(v, where, depth + 1) for v in value]}
    if isinstance(value, list):
        return {"list": [_encode(v, where, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[_encode(k, where, depth + 1), _encode(v, where, depth + 1)] for k, v in value.items()]}
    if isinstance(value, _DType):
        return {"dtype": value.name}
    if isinstance(value, _Device):
        return {"device": str(value)}
    if isinstance(value, _MemoryFormat):
        return {"memory_format": value.name}
    if isinstance(value, _Layout):
        return {"layout": value.name}
    if isinstance(value, OpOverload):
        return {"op": _op_name(value)}
    if isinstance(value, np.generic) and isinstance(value.item(), (bool, int, float, complex)):
        return _encode(value.item(), where, depth)
    raise SerializationError(f"{where}: cannot save a value of type {type(value).__name__} ({value!r:.80})")


def _encode_val(val: Any, depth: int = 0) -> Any:
    """A ``meta["val"]`` as data, or ``_NO_VAL`` when it has a type we do not record."""
    if isinstance(val, Tensor):
        return {"tensor": tensor_meta(val)}
    if isinstance(val, (list, tuple)) and depth < MAX_DEPTH:
        items = [_encode_val(v, depth + 1) for v in val]
        if any(i is _NO_VAL for i in items):
            return _NO_VAL
        return {"tuple" if isinstance(val, tuple) else "list": items}
    if val is None or type(val) in (bool, int, float):
        return _encode(val, "meta")
    return _NO_VAL


_NO_VAL = object()


def _encode_spec(spec: Any, what: str) -> Any:
    if spec is None:
        return None
    if spec.is_leaf():
        return {"leaf": None}
    type_name = next((n for n, t in _SPEC_TYPES.items() if spec.type is t), None)
    if type_name is None:
        raise SerializationError(f"cannot save the graph's {what}: pytree node type {spec.type!r} is not one of "
                                 f"{sorted(_SPEC_TYPES)}")
    return {"type": type_name, "context": _encode(spec.context, what),
            "children": [_encode_spec(c, what) for c in spec.children()]}


def _constant_record(name: str, value: Any) -> tuple[dict[str, Any], np.ndarray]:
    if isinstance(value, Parameter):  # a module's parameter (make_fx of a module): saved as its data
        value = value.detach()
    if not isinstance(value, Tensor) or type(value) is not Tensor:
        raise SerializationError(f"cannot save constant {name!r}: only plain tensors are saved, "
                                 f"got {type(value).__name__}")
    record = tensor_meta(value)
    array = np.array(value.detach().numpy(), order="C", copy=True)
    if not _dense(record["shape"], record["stride"]):  # e.g. an expanded tensor: saved (and loaded) contiguous
        record["stride"] = list(_contiguous_strides(record["shape"]))
    record["storage_offset"] = 0
    return record, array


def _contiguous_strides(shape: list[int]) -> tuple[int, ...]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def _dense(shape: list[int], stride: list[int]) -> bool:
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


def to_dict(gm: GraphModule, *, constants: str = "embedded") -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The JSON document for ``gm`` and its constants' arrays (``constants``: "embedded" or "npz")."""
    if constants not in ("embedded", "npz"):
        raise ValueError(f"save: constants must be 'embedded' or 'npz', got {constants!r}")
    graph = gm.graph
    nodes = []
    const_records: dict[str, Any] = {}
    arrays: dict[str, np.ndarray] = {}
    for node in graph.nodes:
        if node.op == "call_module":
            raise SerializationError(f"cannot save node {node.name}: call_module nodes are not supported")
        where = f"node {node.name}"
        entry: dict[str, Any] = {"name": node.name, "op": node.op, "target": _target_to_str(node),
                                 "args": [_encode(a, where) for a in node.args],
                                 "kwargs": {str(k): _encode(v, where) for k, v in node.kwargs.items()}}
        meta: dict[str, Any] = {}
        if "val" in node.meta:
            val = _encode_val(node.meta["val"])
            if val is not _NO_VAL:
                meta["val"] = val
        trace = node.meta.get("stack_trace")
        if isinstance(trace, str):
            meta["stack_trace"] = trace
        stack = _encode_module_stack(node.meta.get("nn_module_stack"))
        if stack is not None:
            meta["nn_module_stack"] = stack  # [[key, fqn, class], ...] (torch.export's serializer: a dict)
        if isinstance(node.meta.get("user_fn"), str):
            meta["user_fn"] = node.meta["user_fn"]
        entry["meta"] = meta
        nodes.append(entry)
        if node.op == "get_attr" and node.target not in const_records:
            record, array = _constant_record(node.target, gm.fetch_attr(node.target))
            if constants == "embedded":
                record["data"] = base64.b64encode(array.tobytes()).decode("ascii")
            else:
                record["key"] = f"c{len(arrays)}"
                arrays[record["key"]] = array
            const_records[node.target] = record
    info = graph.pytree_info
    doc = {
        "format": FORMAT, "version": VERSION, "class_name": gm._class_name, "traced": bool(graph.traced),
        "pytree": None if info is None else {"orig_args": list(info.orig_args),
                                             "in_spec": _encode_spec(info.in_spec, "input spec"),
                                             "out_spec": _encode_spec(info.out_spec, "output spec")},
        "constants_storage": constants, "constants": const_records, "nodes": nodes,
    }
    return doc, arrays


def _npz_path(path: str | os.PathLike) -> str:
    text = os.fspath(path)
    root, ext = os.path.splitext(text)
    return (root if ext == ".json" else text) + ".npz"


def dumps(gm: GraphModule) -> str:
    """The JSON text for ``gm`` with its constants embedded (base64)."""
    doc, _ = to_dict(gm, constants="embedded")
    return json.dumps(doc, allow_nan=False)


def save(gm: GraphModule, path: str | os.PathLike, *, constants: str = "npz") -> None:
    """Write ``gm`` to ``path`` (JSON); constants go to ``<path>.npz`` beside it, or into the JSON
    (``constants="embedded"``, base64)."""
    doc, arrays = to_dict(gm, constants=constants)
    # one node per line: readable and diffable, and json's fast C encoder (indent= would use the slow one)
    nodes = doc.pop("nodes")
    head = json.dumps(doc, allow_nan=False)
    text = head[:-1] + ', "nodes": [\n' + ",\n".join(json.dumps(n, allow_nan=False) for n in nodes) + "\n]}\n"
    if constants == "npz" and arrays:
        with open(_npz_path(path), "wb") as fh:
            np.savez(fh, **arrays)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


# ---------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------


_RESOLVED: dict[str, OpOverload] = {}  # name -> operator, for names already resolved (checked again on use)


def _resolve_operator(name: str) -> OpOverload | None:
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


class _Loader:
    """Builds a GraphModule from a parsed document, checking everything it reads."""

    def __init__(self, doc: Any, arrays: Any) -> None:
        self.doc = doc
        self.arrays = arrays  # an NpzFile (or dict) of constants, or None
        self.env: dict[str, Node] = {}
        self.mode = FakeTensorMode()

    # --- small checks ---------------------------------------------------------------
    @staticmethod
    def fail(where: str, message: str) -> SerializationError:
        return SerializationError(f"{where}: {message}")

    def module_stack(self, data: Any, where: str, shared: dict[tuple, dict]) -> dict[str, tuple[str, str]]:
        """An nn_module_stack: a list of [key, fqn, class] string triples (equal stacks share one dict)."""
        if not isinstance(data, list) or len(data) > MAX_DEPTH or not all(
                isinstance(e, list) and len(e) == 3 and all(isinstance(x, str) for x in e) for e in data):
            raise self.fail(where, "nn_module_stack must be a list of [key, fqn, class] strings")
        key = tuple(tuple(e) for e in data)
        stack = shared.get(key)
        if stack is None:
            stack = shared[key] = {k: (fqn, cls) for k, fqn, cls in data}
        return stack

    def field(self, obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
        if not isinstance(obj, dict) or key not in obj:
            raise self.fail(where, f"missing field {key!r}")
        value = obj[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.fail(where, f"field {key!r} must be {names}, got {type(value).__name__}")
        return value

    # --- values -----------------------------------------------------------------------
    def value(self, data: Any, where: str, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(where, f"values nested deeper than {MAX_DEPTH} levels are refused")
        if data is None or isinstance(data, (bool, str)):
            return data
        if isinstance(data, int):
            if not _INT_MIN <= data <= _INT_MAX:
                raise self.fail(where, f"integer {str(data)[:40]}... does not fit in 64 bits")
            return data
        if isinstance(data, float):
            raise self.fail(where, "a bare JSON float; floats are tagged as {\"float\": \"<repr>\"}")
        if not isinstance(data, dict) or len(data) != 1:
            raise self.fail(where, f"expected a value or a one-key tagged object, got {str(data)[:80]}")
        ((tag, body),) = data.items()
        if tag == "node":
            if not isinstance(body, str) or body not in self.env:
                raise self.fail(where, f"refers to node {str(body)[:80]!r}, which is not defined before it")
            return self.env[body]
        if tag == "float":
            return self.float_(body, where)
        if tag == "complex":
            if not isinstance(body, list) or len(body) != 2:
                raise self.fail(where, "complex must be [real, imag]")
            return complex(self.float_(body[0], where), self.float_(body[1], where))
        if tag in ("tuple", "list", "slice"):
            if not isinstance(body, list):
                raise self.fail(where, f"{tag} must hold a JSON list")
            items = [self.value(v, where, depth + 1) for v in body]
            if tag == "slice":
                if len(items) != 3:
                    raise self.fail(where, "slice must be [start, stop, step]")
                return slice(*items)
            return tuple(items) if tag == "tuple" else items
        if tag == "dict":
            if not isinstance(body, list) or not all(isinstance(p, list) and len(p) == 2 for p in body):
                raise self.fail(where, "dict must be a list of [key, value] pairs")
            out = {}
            for k, v in body:
                key = self.value(k, where, depth + 1)
                if not isinstance(key, (str, int)):
                    raise self.fail(where, f"dict keys must be str or int, got {type(key).__name__}")
                out[key] = self.value(v, where, depth + 1)
            return out
        if tag == "ellipsis":
            return Ellipsis
        if tag == "dtype":
            return self.lookup(DTYPES_BY_NAME, body, "dtype", where)
        if tag == "memory_format":
            return self.lookup(_MEMORY_FORMATS, body, "memory_format", where)
        if tag == "layout":
            return self.lookup(_LAYOUTS, body, "layout", where)
        if tag == "device":
            if not isinstance(body, str) or not re.fullmatch(r"(cpu|meta)(:\d{1,4})?", body):
                raise self.fail(where, f"unknown device {str(body)[:80]!r} (expected cpu or meta)")
            return _Device(body)
        if tag == "op":
            op = _resolve_operator(body) if isinstance(body, str) else None
            if op is None:
                raise self.fail(where, f"unknown operator {str(body)[:80]!r}")
            return op
        raise self.fail(where, f"unknown value tag {tag[:40]!r}")

    def lookup(self, table: dict[str, Any], name: Any, what: str, where: str) -> Any:
        if not isinstance(name, str) or name not in table:
            raise self.fail(where, f"unknown {what} {str(name)[:80]!r} (expected one of {sorted(table)})")
        return table[name]

    def float_(self, text: Any, where: str) -> float:
        if not isinstance(text, str) or len(text) > 40 or not _FLOAT_RE.match(text):
            raise self.fail(where, f"malformed float {str(text)[:80]!r}")
        return float(text)

    def val(self, data: Any, where: str, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(where, f"meta nested deeper than {MAX_DEPTH} levels")
        if isinstance(data, dict) and set(data) == {"tensor"}:
            return fake_from_meta(self.mode, self.tensor_record(data["tensor"], where))
        if isinstance(data, dict) and len(data) == 1 and next(iter(data)) in ("tuple", "list"):
            ((tag, body),) = data.items()
            if not isinstance(body, list):
                raise self.fail(where, f"meta {tag} must hold a list")
            items = [self.val(v, where, depth + 1) for v in body]
            return tuple(items) if tag == "tuple" else items
        return self.value(data, where, depth)

    def tensor_record(self, rec: Any, where: str) -> dict[str, Any]:
        """Check a tensor's recorded metadata; returns it normalized."""
        shape = self.field(rec, "shape", list, where)
        stride = self.field(rec, "stride", list, where)
        if len(shape) > 16 or len(stride) != len(shape):
            raise self.fail(where, f"shape {shape} / stride {stride}: at most 16 dims, one stride per dim")
        for s in shape + stride:
            if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < 2**40:
                raise self.fail(where, f"shape {shape} / stride {stride}: sizes must be ints in [0, 2**40)")
        dtype = self.field(rec, "dtype", str, where)
        if dtype not in DTYPES_BY_NAME:
            raise self.fail(where, f"unknown dtype {dtype[:40]!r}")
        device = rec.get("device", "cpu")
        if not isinstance(device, str) or not re.fullmatch(r"(cpu|meta)(:\d{1,4})?", device):
            raise self.fail(where, f"unknown device {str(device)[:40]!r}")
        offset = rec.get("storage_offset", 0)
        if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset < 2**40:
            raise self.fail(where, "storage_offset must be an int in [0, 2**40)")
        return {"shape": shape, "stride": stride, "storage_offset": offset, "dtype": dtype, "device": device,
                "requires_grad": bool(rec.get("requires_grad", False))}

    # --- constants ----------------------------------------------------------------------
    def constant(self, name: str, rec: Any) -> Tensor:
        where = f"constant {name!r}"
        meta = self.tensor_record(rec, where)
        np_dtype = DTYPES_BY_NAME[meta["dtype"]].np_dtype
        shape = tuple(meta["shape"])
        numel = math.prod(shape)
        if "data" in rec:
            data = rec["data"]
            if not isinstance(data, str):
                raise self.fail(where, "data must be a base64 string")
            try:
                raw = base64.b64decode(data.encode("ascii"), validate=True)
            except (ValueError, UnicodeEncodeError) as e:
                raise self.fail(where, f"data is not valid base64 ({e})") from None
            if len(raw) != numel * np.dtype(np_dtype).itemsize:
                raise self.fail(where, f"data has {len(raw)} bytes; shape {list(shape)} of {meta['dtype']} needs "
                                       f"{numel * np.dtype(np_dtype).itemsize}")
            array = np.frombuffer(raw, dtype=np_dtype).reshape(shape).copy()
        else:
            key = rec.get("key")
            if self.arrays is None:
                raise self.fail(where, "the constants file (.npz) is missing")
            if not isinstance(key, str) or key not in self.arrays:
                raise self.fail(where, f"key {str(key)[:40]!r} is not in the constants file")
            try:
                array = self.arrays[key]
            except ValueError as e:  # e.g. an object array, which would need pickle
                raise self.fail(where, f"cannot read the array safely ({e})") from None
            if array.shape != shape:
                raise self.fail(where, f"the stored array has shape {list(array.shape)}, the file records "
                                       f"{list(shape)}")
            if array.dtype != np.dtype(np_dtype):
                raise self.fail(where, f"the stored array has dtype {array.dtype}, the file records {meta['dtype']}")
        if not _dense(meta["shape"], meta["stride"]):
            raise self.fail(where, f"strides {meta['stride']} for shape {list(shape)} do not describe a dense "
                                   "tensor (constants are stored dense)")
        t = dispatcher.from_numpy(np.array(array, order="C", copy=True))
        if list(t.stride()) != meta["stride"] and numel > 0:
            strided = dispatcher.ops.aten.empty_strided.default(list(shape), meta["stride"],
                                                                 dtype=DTYPES_BY_NAME[meta["dtype"]])
            strided.copy_(t)
            t = strided
        if meta["requires_grad"]:
            t.requires_grad_(True)
        return t

    # --- pytree specs -------------------------------------------------------------------
    def spec(self, data: Any, where: str, depth: int = 0) -> Any:
        if data is None:
            return None
        if depth > MAX_DEPTH:
            raise self.fail(where, f"spec nested deeper than {MAX_DEPTH} levels")
        if data == {"leaf": None}:
            return pytree.LeafSpec()
        type_name = self.field(data, "type", str, where)
        if type_name not in _SPEC_TYPES:
            raise self.fail(where, f"unknown pytree type {type_name[:40]!r} (expected one of {sorted(_SPEC_TYPES)})")
        children = [self.spec(c, where, depth + 1) or pytree.LeafSpec()
                    for c in self.field(data, "children", list, where)]
        context = self.value(data.get("context"), where)
        if type_name in ("dict", "OrderedDict"):
            if not isinstance(context, list) or len(context) != len(children):
                raise self.fail(where, "a dict spec's context must list one key per child")
        elif context is not None:
            raise self.fail(where, f"a {type_name} spec has no context")
        return pytree.TreeSpec(_SPEC_TYPES[type_name], context, children)

    # --- nodes ------------------------------------------------------------------------------
    def target(self, op: str, target: Any, where: str) -> Any:
        if not isinstance(target, str):
            raise self.fail(where, f"target must be a string, got {type(target).__name__}")
        if op == "call_function":
            fn = ALLOWED_FUNCTIONS.get(target) or _resolve_operator(target)
            if fn is None:
                raise self.fail(where, f"target {target[:120]!r} is not a registered operator (ns.op.overload) "
                                       "or an allowed Python function; refusing to load it")
            return fn
        if op == "get_attr":
            parts = target.split(".")
            if not all(is_valid_name(p) and not p.startswith("__") for p in parts):
                raise self.fail(where, f"get_attr target {target[:120]!r} is not a dotted path of plain identifiers")
            return target
        if op == "call_method":
            if not is_valid_name(target) or target.startswith("_") or not callable(getattr(Tensor, target, None)):
                raise self.fail(where, f"call_method target {target[:120]!r} is not a public Tensor method")
            return target
        if op == "output":
            if target != "output":
                raise self.fail(where, "the output node's target must be 'output'")
            return target
        if op == "placeholder":
            return target
        raise self.fail(where, f"op {op[:40]!r} is not supported (placeholder, get_attr, call_function, "
                               "call_method, output)")

    def build(self) -> GraphModule:
        doc = self.doc
        if not isinstance(doc, dict):
            raise SerializationError("not a dispatchkit graph file: the top level is not a JSON object")
        if doc.get("format") != FORMAT:
            raise SerializationError(f"not a dispatchkit graph file: format is {str(doc.get('format'))[:40]!r}, "
                                     f"expected {FORMAT!r}")
        version = doc.get("version")
        if version != VERSION or isinstance(version, bool):
            raise SerializationError(f"unsupported format version {str(version)[:20]}; this loader reads "
                                     f"version {VERSION}")
        graph = Graph()
        graph.traced = bool(self.field(doc, "traced", bool, "file"))
        consts = self.field(doc, "constants", dict, "file")
        attrs: dict[str, Tensor] = {}
        for name, rec in consts.items():
            parts = name.split(".")
            if not all(is_valid_name(p) and not p.startswith("__") for p in parts):
                raise self.fail(f"constant {name[:80]!r}", "the name is not a dotted path of plain identifiers")
            attrs[name] = self.constant(name, rec)
        nodes = self.field(doc, "nodes", list, "file")
        stacks: dict[tuple, dict] = {}
        for i, entry in enumerate(nodes):
            where = f"node #{i}"
            name = self.field(entry, "name", str, where)
            where = f"node #{i} ({name[:80]!r})"
            if not is_valid_name(name) or name in _RESERVED_NAMES:
                raise self.fail(where, "the name is not a valid identifier (or is a keyword / reserved name)")
            if name in self.env:
                raise self.fail(where, "duplicate node name")
            op = self.field(entry, "op", str, where)
            target = self.target(op, entry.get("target"), where)
            if op == "get_attr" and target not in attrs:
                raise self.fail(where, f"get_attr reads {target!r}, which is not among the file's constants")
            args = tuple(self.value(a, where) for a in self.field(entry, "args", list, where))
            raw_kwargs = self.field(entry, "kwargs", dict, where)
            kwargs = {k: self.value(v, where) for k, v in raw_kwargs.items()}
            if op == "output" and (len(args) != 1 or kwargs):
                raise self.fail(where, "the output node takes exactly one argument")
            node = graph.create_node(op, target, args, kwargs, name=name)
            if node.name != name:
                raise self.fail(where, f"the name would be renamed to {node.name!r}; not a name a graph can hold")
            meta = entry.get("meta", {})
            if not isinstance(meta, dict):
                raise self.fail(where, "meta must be an object")
            if "val" in meta:
                node.meta["val"] = self.val(meta["val"], where)
            if "stack_trace" in meta:
                node.meta["stack_trace"] = self.field(meta, "stack_trace", str, where)
            if "nn_module_stack" in meta:
                node.meta["nn_module_stack"] = self.module_stack(meta["nn_module_stack"], where, stacks)
            if "user_fn" in meta:
                node.meta["user_fn"] = self.field(meta, "user_fn", str, where)
            self.env[name] = node
        info = doc.get("pytree")
        if info is not None:
            orig = self.field(info, "orig_args", list, "pytree")
            if not all(isinstance(a, str) for a in orig):
                raise self.fail("pytree", "orig_args must be strings")
            graph.pytree_info = PyTreeInfo(orig, self.spec(info.get("in_spec"), "pytree in_spec"),
                                           self.spec(info.get("out_spec"), "pytree out_spec"))
        class_name = doc.get("class_name", "GraphModule")
        if not isinstance(class_name, str):
            raise self.fail("file", "class_name must be a string")
        try:
            graph.lint()
            gm = GraphModule(attrs, graph, class_name[:200])
        except (GraphLintError, ValueError, TypeError, AttributeError, KeyError) as e:
            raise SerializationError(f"the file does not describe a valid graph: {e}") from None
        return gm


def from_dict(doc: Any, arrays: Any = None) -> GraphModule:
    """Build a GraphModule from a parsed document (``arrays``: the .npz contents, if any)."""
    try:
        return _Loader(doc, arrays).build()
    except SerializationError:
        raise
    except (RecursionError, KeyError, IndexError, TypeError, AttributeError, ValueError, OverflowError,
            RuntimeError, MemoryError) as e:
        # a malformed file must fail cleanly; every check above should already have caught it
        raise SerializationError(f"malformed graph file ({type(e).__name__}: {str(e)[:200]})") from None


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise SerializationError(f"the JSON nests deeper than Python can parse (limit {MAX_DEPTH} levels)") from None
    except ValueError as e:  # JSONDecodeError, or an integer with too many digits
        raise SerializationError(f"not valid JSON: {e}") from None


def loads(text: str) -> GraphModule:
    """Load a graph from JSON text (constants must be embedded)."""
    return from_dict(_parse(text))


def load(path: str | os.PathLike) -> GraphModule:
    """Load a graph saved with ``save``; refuses anything that is not a plain graph (see the module docstring)."""
    with open(path, encoding="utf-8") as fh:
        try:
            text = fh.read()
        except UnicodeDecodeError as e:
            raise SerializationError(f"{os.fspath(path)}: not UTF-8 text ({e})") from None
    doc = _parse(text)
    npz = _npz_path(path)
    if isinstance(doc, dict) and doc.get("constants_storage") == "npz" and os.path.exists(npz):
        try:
            with np.load(npz, allow_pickle=False) as arrays:
                return from_dict(doc, arrays)
        except SerializationError:
            raise
        except (OSError, EOFError, zipfile.BadZipFile, ValueError) as e:
            raise SerializationError(f"{npz}: cannot read the constants file ({e})") from None
    return from_dict(doc)
