"""Loading a graph file without running anything it says: ``from_dict``, ``loads``, ``load``.

``_Loader`` checks everything it reads (fields and their types, tagged values, node names and references,
targets against the registry and ``ALLOWED_FUNCTIONS``, tensor metadata, constants' bytes against their recorded
shape and dtype, pytree specs, nesting depth) and builds the GraphModule; anything else is refused with a
``SerializationError`` naming the node and what was expected. Constants come from base64 text or
``np.load(allow_pickle=False)``. The format is described in serialize.py; its vocabulary is serialize_format.py.

PyTorch counterpart: ``GraphModuleDeserializer`` / ``deserialize`` of torch/_export/serde/serialize.py.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import zipfile
from typing import Any

import numpy as np

import dispatcher
from dispatcher.fake import FakeTensorMode
from dispatcher.op_overload import OpOverload
from dispatcher.tensor import Tensor
from dispatcher.tensor import device as _Device
from tracer import pytree
from tracer.graph import Graph, GraphLintError, PyTreeInfo
from tracer.graph_module import GraphModule
from tracer.names import escape_surrogates, is_valid_name
from tracer.node import Node, map_aggregate

from ._fake_meta import DTYPES_BY_NAME, fake_from_meta
from .serialize_format import (
    ALLOWED_FUNCTIONS,
    FLOAT_RE,
    FORMAT,
    INT_MAX,
    INT_MIN,
    LAYOUTS,
    MAX_DEPTH,
    MEMORY_FORMATS,
    RESERVED_NAMES,
    SPEC_TYPES,
    VERSION,
    SerializationError,
    is_dense,
    max_alloc_bytes,
    npz_path,
    resolve_operator,
)

__all__ = ["from_dict", "load", "loads"]


class _Loader:
    """Builds a GraphModule from a parsed document, checking everything it reads."""

    def __init__(self, doc: Any, arrays: Any, limit: int | None = None) -> None:
        self.doc = doc
        self.limit = max_alloc_bytes(limit)
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
            stack = shared[key] = {escape_surrogates(k): (escape_surrogates(fqn), escape_surrogates(cls))
                                   for k, fqn, cls in data}
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
            if not INT_MIN <= data <= INT_MAX:
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
            return self.lookup(MEMORY_FORMATS, body, "memory_format", where)
        if tag == "layout":
            return self.lookup(LAYOUTS, body, "layout", where)
        if tag == "device":
            if not isinstance(body, str) or not re.fullmatch(r"(cpu|meta)(:\d{1,4})?", body):
                raise self.fail(where, f"unknown device {str(body)[:80]!r} (expected cpu or meta)")
            return _Device(body)
        if tag == "op":
            op = resolve_operator(body) if isinstance(body, str) else None
            if op is None:
                raise self.fail(where, f"unknown operator {str(body)[:80]!r}")
            return op
        raise self.fail(where, f"unknown value tag {tag[:40]!r}")

    def lookup(self, table: dict[str, Any], name: Any, what: str, where: str) -> Any:
        if not isinstance(name, str) or name not in table:
            raise self.fail(where, f"unknown {what} {str(name)[:80]!r} (expected one of {sorted(table)})")
        return table[name]

    def float_(self, text: Any, where: str) -> float:
        if not isinstance(text, str) or len(text) > 40 or not FLOAT_RE.match(text):
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
        if not is_dense(meta["shape"], meta["stride"]):
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
        if type_name not in SPEC_TYPES:
            raise self.fail(where, f"unknown pytree type {type_name[:40]!r} (expected one of {sorted(SPEC_TYPES)})")
        children = [self.spec(c, where, depth + 1) or pytree.LeafSpec()
                    for c in self.field(data, "children", list, where)]
        context = self.value(data.get("context"), where)
        if type_name in ("dict", "OrderedDict"):
            if not isinstance(context, list) or len(context) != len(children):
                raise self.fail(where, "a dict spec's context must list one key per child")
        elif context is not None:
            raise self.fail(where, f"a {type_name} spec has no context")
        return pytree.TreeSpec(SPEC_TYPES[type_name], context, children)

    # --- nodes ------------------------------------------------------------------------------
    def target(self, op: str, target: Any, where: str) -> Any:
        if not isinstance(target, str):
            raise self.fail(where, f"target must be a string, got {type(target).__name__}")
        if op == "call_function":
            fn = ALLOWED_FUNCTIONS.get(target) or resolve_operator(target)
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
            if not is_valid_name(name) or name in RESERVED_NAMES:
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
            if "stack_trace" in meta:  # (text for printouts: lone surrogates escaped)
                node.meta["stack_trace"] = escape_surrogates(self.field(meta, "stack_trace", str, where))
            if "nn_module_stack" in meta:
                node.meta["nn_module_stack"] = self.module_stack(meta["nn_module_stack"], where, stacks)
            if "user_fn" in meta:
                node.meta["user_fn"] = escape_surrogates(self.field(meta, "user_fn", str, where))
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
        except (GraphLintError, ValueError, TypeError, AttributeError, KeyError) as e:
            raise SerializationError(f"the file does not describe a valid graph: {e}") from None
        self.check_allocations(graph, attrs)
        try:
            gm = GraphModule(attrs, graph, escape_surrogates(class_name[:200]))
        except (GraphLintError, ValueError, TypeError, AttributeError, KeyError) as e:
            raise SerializationError(f"the file does not describe a valid graph: {e}") from None
        return gm

    def check_allocations(self, graph: Graph, attrs: dict[str, Tensor]) -> None:
        """Refuse the file if running a node would allocate more than the limit (``max_alloc_bytes``).

        The aten nodes run on fake tensors, in order: the recorded values of the placeholders, the constants, each
        node's own arguments, which are the file's (``ones([2**33])``'s size, a broadcast of two inputs,
        ``new_empty``'s size, ``expand`` then ``clone`` ...), and the values computed for earlier nodes. A node
        returning a fresh tensor (not a view) bigger than the limit refuses the file. Nodes that cannot be bigger
        than their inputs are not run (one tensor input, or several of one shape, no integer argument, inputs as
        recorded: ``mul(x, 1.5)``, ``sin``), as running every node would add ~1 ms per node to the load; they keep
        their recorded value. Nothing is allocated; a node the fake run cannot size (an error, an input without
        a recorded value) is left to run time."""
        limit = self.limit
        computed: dict[Node, Any] = {}  # fake values that differ in shape from the recorded ones
        for i, node in enumerate(graph.nodes):
            target = node.target
            if node.op != "call_function" or not isinstance(target, OpOverload):
                continue
            missing: list[Node] = []
            changed: list[Node] = []

            def fake(a: Any, missing: list[Node] = missing, changed: list[Node] = changed) -> Any:
                if not isinstance(a, Node):
                    return a
                if a in computed:
                    changed.append(a)
                    return computed[a]
                v = attrs.get(a.target) if a.op == "get_attr" else a.meta.get("val")
                if v is None:
                    missing.append(a)
                return v

            args, kwargs = map_aggregate(node.args, fake), map_aggregate(node.kwargs, fake)
            if missing or not (changed or _may_grow((args, kwargs))):
                continue
            try:
                with self.mode:
                    out = target(*args, **kwargs)
            except Exception:  # noqa: BLE001 - not sizable here: the op fails (or is sized) when it runs
                continue
            fresh = [r.alias_info is None for r in target._schema.returns]
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            recorded = node.meta.get("val")
            recorded = list(recorded) if isinstance(recorded, (tuple, list)) else [recorded]
            for k, t in enumerate(outs):
                ts = t if isinstance(t, list) else [t]
                for u in ts:
                    if not isinstance(u, Tensor):
                        continue
                    nbytes = u.numel() * u.element_size()
                    if (fresh[k] if k < len(fresh) else True) and nbytes > limit:
                        raise self.fail(
                            f"node #{i} ({node.name!r})",
                            f"{target} would allocate {_readable(nbytes)} (shape {list(u.shape)}, {u.dtype}), more "
                            f"than the loader's limit of {_readable(limit)}; nothing was allocated. To load it, "
                            "raise the limit: load(..., max_alloc_bytes=N), DISPATCHKIT_MAX_ALLOC_BYTES=N or "
                            "passes.serialize_format.MAX_ALLOC_BYTES")
            same = len(outs) == len(recorded) and all(
                isinstance(o, Tensor) and isinstance(r, Tensor) and tuple(o.shape) == tuple(r.shape)
                for o, r in zip(outs, recorded))
            if not same and not isinstance(out, (tuple, list)):
                computed[node] = out


def _may_grow(tree: Any) -> bool:
    """Could an op on these arguments return more elements than its largest tensor input? (No tensor input, an
    integer argument, or tensors of different shapes to broadcast.)"""
    shapes = set()
    stack = [tree]
    while stack:
        a = stack.pop()
        if isinstance(a, Tensor):
            shapes.add(tuple(a.shape))
        elif isinstance(a, (list, tuple)):
            stack.extend(a)
        elif isinstance(a, dict):
            stack.extend(a.values())
        elif isinstance(a, int) and not isinstance(a, bool):
            return True
    return len(shapes) != 1


def _readable(nbytes: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= size:
            return f"{nbytes / size:.1f} {unit}"
    return f"{nbytes} bytes"


def from_dict(doc: Any, arrays: Any = None, *, max_alloc_bytes: int | None = None) -> GraphModule:
    """Build a GraphModule from a parsed document (``arrays``: the .npz contents, if any). ``max_alloc_bytes``: the
    most one node may allocate (default ``serialize_format.max_alloc_bytes()``: 1 GiB unless raised)."""
    try:
        return _Loader(doc, arrays, max_alloc_bytes).build()
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


def loads(text: str, *, max_alloc_bytes: int | None = None) -> GraphModule:
    """Load a graph from JSON text (constants must be embedded)."""
    return from_dict(_parse(text), max_alloc_bytes=max_alloc_bytes)


def load(path: str | os.PathLike, *, max_alloc_bytes: int | None = None) -> GraphModule:
    """Load a graph saved with ``save``; refuses anything that is not a plain graph (see the module docstring)."""
    with open(path, encoding="utf-8") as fh:
        try:
            text = fh.read()
        except UnicodeDecodeError as e:
            raise SerializationError(f"{os.fspath(path)}: not UTF-8 text ({e})") from None
    doc = _parse(text)
    npz = npz_path(path)
    if isinstance(doc, dict) and doc.get("constants_storage") == "npz" and os.path.exists(npz):
        try:
            with np.load(npz, allow_pickle=False) as arrays:
                return from_dict(doc, arrays, max_alloc_bytes=max_alloc_bytes)
        except SerializationError:
            raise
        except (OSError, EOFError, zipfile.BadZipFile, ValueError) as e:
            raise SerializationError(f"{npz}: cannot read the constants file ({e})") from None
    return from_dict(doc, max_alloc_bytes=max_alloc_bytes)
