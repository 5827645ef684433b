"""Saving a GraphModule as a graph file: ``to_dict`` (the JSON document and the constants' arrays), ``dumps``, ``save``.

Every node becomes one JSON object (name, op, target as a string, arguments as tagged values, ``meta["val"]`` as
tensor metadata, ``stack_trace``); a target that is neither a registered operator nor an allowed Python function,
a value of another type, or a constant that is not a plain tensor is refused with a ``SerializationError``.
The format is described in serialize.py; its vocabulary is serialize_format.py.

PyTorch counterpart: ``GraphModuleSerializer`` / ``serialize`` of torch/_export/serde/serialize.py.
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

import numpy as np

from dispatcher.dtypes import dtype as _DType
from dispatcher.memory_format import layout as _Layout
from dispatcher.memory_format import memory_format as _MemoryFormat
from dispatcher.nn.parameter import Parameter
from dispatcher.op_overload import OpOverload
from dispatcher.tensor import Tensor
from dispatcher.tensor import device as _Device
from tracer.graph_module import GraphModule
from tracer.node import Node

from ._fake_meta import tensor_meta
from .serialize_format import (
    ALLOWED_FUNCTIONS,
    FORMAT,
    FUNCTION_NAMES,
    INT_MAX,
    INT_MIN,
    MAX_DEPTH,
    SPEC_TYPES,
    VERSION,
    SerializationError,
    is_dense,
    npz_path,
    resolve_operator,
)

__all__ = ["dumps", "save", "to_dict"]


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
        if resolve_operator(name) is not target:
            raise SerializationError(f"cannot save node {node.name}: operator {name} is not in the registry")
        return name
    name = FUNCTION_NAMES.get(id(target))
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
        if not INT_MIN <= value <= INT_MAX:
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
    type_name = next((n for n, t in SPEC_TYPES.items() if spec.type is t), None)
    if type_name is None:
        raise SerializationError(f"cannot save the graph's {what}: pytree node type {spec.type!r} is not one of "
                                 f"{sorted(SPEC_TYPES)}")
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
    if not is_dense(record["shape"], record["stride"]):  # e.g. an expanded tensor: saved (and loaded) contiguous
        record["stride"] = list(_contiguous_strides(record["shape"]))
    record["storage_offset"] = 0
    return record, array


def _contiguous_strides(shape: list[int]) -> tuple[int, ...]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))



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
        with open(npz_path(path), "wb") as fh:
            np.savez(fh, **arrays)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
