"""What one graph node is and what it costs: its kind, output shape/dtype, FLOP and byte estimates.

Shared by the drawing (colours, labels), the networkx views (node attributes, critical path, liveness)
and ``op_stats``. Everything is read from the node: its target (an OpOverload's schema and PyTorch tags)
and ``meta["val"]`` (the fake/real value make_fx recorded). No op is run.

Kinds (the drawing colours them): ``placeholder``, ``get_attr``, ``output``, ``view`` (the op's schema
makes an output alias an input and writes nothing, e.g. ``view``, ``t``, ``expand``; PyTorch's
``OpOverload.is_view``), ``matmul`` (``mm``, ``addmm``, ``bmm``, ``baddbmm``, ``mv``, ``dot`` and the
undecomposed ``matmul`` / ``linear``), ``backward`` (ops named ``*_backward*``, e.g. ``threshold_backward``),
``elementwise`` (tagged ``pointwise``), ``reduction`` (tagged ``reduction``), ``other``.

Estimates (a model for comparing graphs, not a measurement):

* FLOPs: the matrix products with ``FlopCounterMode``'s formulas (torch's: ``2*m*n*k``; ``mv`` and
  ``dot`` with its vector-product formulas), and ``matmul`` / ``linear`` (whole in pre-dispatch graphs)
  with the FLOPs of the products they decompose into; elementwise ops one FLOP per output element;
  reductions one per input element; every other op 0 (unknown). The formulas are the ones in
  ``dispatcher/modes/flop_counter.py`` (torch/utils/flop_counter.py's counterpart).
* bytes: memory traffic, the bytes of the tensors an op reads plus those it writes. Views, ``getitem``
  (picking an element of a multi-output result), placeholders, constants and the output move nothing: 0.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from dispatcher.modes.flop_counter import flop_registry, vector_product_registry
from dispatcher.op_overload import OpOverload, namespace
from dispatcher.tensor import Tensor
from tracer.graph_module import dtype_abbrs
from tracer.node import Node, map_aggregate, pretty_target

__all__ = ["KINDS", "NodeCost", "dtype_name", "node_cost", "node_kind", "short_target", "tensor_meta", "tensors_of",
           "user_frame", "value_bytes", "value_summary"]

#: every kind node_kind returns, in legend order
KINDS = ("placeholder", "get_attr", "view", "elementwise", "reduction", "matmul", "backward", "other", "output")

_MATMUL_OPS = frozenset({"mm", "addmm", "bmm", "baddbmm", "mv", "dot", "matmul", "linear", "addmv", "addbmm"})
_FLOP_FORMULAS = {**flop_registry, **vector_product_registry}
_LINEAR = namespace("aten").linear
#: CompositeImplicitAutograd products seen whole in pre-dispatch graphs (counted through their decomposition)
_COMPOSITE_PRODUCTS = frozenset({namespace("aten").matmul, _LINEAR})
#: ops whose output is a view of their first input although the schema does not say so (``_unsafe_view``
#: is PyTorch's view that autograd does not track)
UNTRACKED_VIEWS = frozenset({"_unsafe_view"})


#: OpOverload -> (kind, is a view): schemas and tags of defined ops do not change, so look them up once
_OP_INFO: dict[OpOverload, tuple[str, bool]] = {}


def _op_info(target: OpOverload) -> tuple[str, bool]:
    info = _OP_INFO.get(target)
    if info is None:
        base = target.name_without_overload().split("::")[-1]
        is_view = target.is_view or base in UNTRACKED_VIEWS
        if base in _MATMUL_OPS:
            kind = "matmul"
        elif "backward" in base:
            kind = "backward"
        elif is_view:
            kind = "view"
        elif "pointwise" in target.tags:
            kind = "elementwise"
        elif "reduction" in target.tags:
            kind = "reduction"
        else:
            kind = "other"
        info = _OP_INFO[target] = (kind, is_view)
    return info


def _is_view_op(target: OpOverload) -> bool:
    return _op_info(target)[1]


class NodeCost(NamedTuple):
    """Estimated work of one node: FLOPs, bytes read, bytes written (``bytes`` = read + written)."""

    flops: int
    bytes_read: int
    bytes_written: int

    @property
    def bytes(self) -> int:
        return self.bytes_read + self.bytes_written


def tensors_of(value: Any) -> Iterator[Tensor]:
    """The tensors inside a (possibly nested list/tuple/dict) value, in order."""
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from tensors_of(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from tensors_of(v)


def tensor_meta(t: Tensor) -> tuple[tuple[int, ...], Any]:
    """``(shape, dtype)`` of a tensor, read from its fields (no ``__torch_function__`` round trip: these
    passes read every node of graphs with 100,000 nodes)."""
    shape = getattr(t, "_shape", None)
    dtype = getattr(t, "_dtype", None)
    if shape is None or dtype is None:
        return tuple(t.shape), t.dtype
    return shape, dtype


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def tensor_bytes(t: Tensor) -> int:
    shape, dtype = tensor_meta(t)
    itemsize = getattr(dtype, "itemsize", None)
    return _numel(shape) * (itemsize if isinstance(itemsize, int) else t.element_size())


def value_bytes(value: Any) -> int:
    """Bytes of the tensor data in ``value`` (numel * element size, summed)."""
    if isinstance(value, Tensor):
        return tensor_bytes(value)
    return sum(tensor_bytes(t) for t in tensors_of(value))


def dtype_name(dtype: Any) -> str:
    """``float32`` for ``torch.float32``."""
    return getattr(dtype, "name", None) or str(dtype).rsplit(".", 1)[-1]


def _describe(t: Tensor) -> str:
    shape, dtype = tensor_meta(t)
    name = dtype_name(dtype)
    return f"{dtype_abbrs.get(name, name)}[{', '.join(str(s) for s in shape)}]"


def value_summary(value: Any) -> str:
    """``f32[2, 3]`` for a tensor (FX's annotation format), ``(f32[2], i64[2])`` for several, else ``''``."""
    if isinstance(value, Tensor):
        return _describe(value)
    parts = [_describe(t) for t in tensors_of(value)]
    if not parts:
        return ""
    return "(" + ", ".join(parts) + ")" if len(parts) > 1 else parts[0]


def short_target(node: Node) -> str:
    """The op as people say it: ``add.Tensor`` (aten ops without the namespace), ``getitem``, a function name."""
    target = node.target
    if isinstance(target, OpOverload):
        text = str(target)
        return text[5:] if text.startswith("aten.") else text
    if node.op in ("placeholder", "get_attr", "output"):
        return str(target)
    if node.op == "call_function":
        name = getattr(target, "__name__", None)
        return name if isinstance(name, str) else pretty_target(target)
    return str(target)


def node_kind(node: Node) -> str:
    """The node's kind, one of KINDS (see the module docstring)."""
    if node.op in ("placeholder", "get_attr", "output"):
        return node.op
    target = node.target
    if isinstance(target, OpOverload):
        return _op_info(target)[0]
    return "other"


def _is_free(node: Node) -> bool:
    """Nodes that move no data: views, getitem, placeholders, constants, the output."""
    if node.op != "call_function":
        return True
    target = node.target
    return target is operator.getitem or (isinstance(target, OpOverload) and _is_view_op(target))


def _vals(arg: Any) -> Any:
    return map_aggregate(arg, lambda a: a.meta.get("val") if isinstance(a, Node) else a)


def _shape_of(arg: Any) -> tuple[int, ...] | None:
    val = arg.meta.get("val") if isinstance(arg, Node) else None
    return tuple(tensor_meta(val)[0]) if isinstance(val, Tensor) else None


def matmul_flops(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """FLOPs of ``a @ b`` with matmul's rules: 2 per multiply-add over the broadcast batch."""
    if not a or not b:
        return 0
    k = a[-1]
    n = a[-2] if len(a) > 1 else 1
    m = b[-1] if len(b) > 1 else 1
    batch_a, batch_b = a[:-2], b[:-2]
    batch = 1
    for i in range(1, max(len(batch_a), len(batch_b)) + 1):
        da = batch_a[-i] if i <= len(batch_a) else 1
        db = batch_b[-i] if i <= len(batch_b) else 1
        batch *= max(da, db)
    return 2 * batch * n * m * k


def _composite_product_flops(target: OpOverload, node: Node) -> int:
    """``matmul`` and ``linear`` as they appear in pre-dispatch graphs: the FLOPs of the ``mm`` / ``bmm`` /
    ``addmm`` they decompose into (the bias add of ``linear`` is not counted, as for ``addmm``)."""
    args = node.args
    a = _shape_of(args[0]) if args else None
    b = _shape_of(args[1]) if len(args) > 1 else None
    if a is None or b is None:
        return 0
    if target.overloadpacket is _LINEAR:
        b = b[::-1] if len(b) == 2 else b  # weight is (out, in): x @ w.t()
    return matmul_flops(a, b)


def node_cost(node: Node, out_bytes: dict[Node, int] | None = None) -> NodeCost:
    """Estimated FLOPs and bytes of ``node`` from its target and the ``meta["val"]`` of it and its inputs.

    ``out_bytes`` optionally caches ``value_bytes`` of nodes' values (filled as a side effect).
    """
    if _is_free(node):
        return NodeCost(0, 0, 0)
    if out_bytes is None:
        out_bytes = {}
    out = node.meta.get("val")
    written = out_bytes[node] if node in out_bytes else out_bytes.setdefault(node, value_bytes(out))
    read = 0
    for n in node.all_input_nodes:
        b = out_bytes.get(n)
        if b is None:
            b = out_bytes[n] = value_bytes(n.meta.get("val"))
        read += b
    flops = 0
    target = node.target
    if isinstance(target, OpOverload):
        formula = _FLOP_FORMULAS.get(target.overloadpacket)
        if formula is not None:
            try:
                flops = int(formula(*_vals(node.args), out_val=out, **_vals(node.kwargs)))
            except Exception:  # noqa: BLE001 - a value missing from meta: no estimate rather than a crash
                flops = 0
        elif target.overloadpacket in _COMPOSITE_PRODUCTS:
            flops = _composite_product_flops(target, node)
        elif "pointwise" in target.tags:
            flops = sum(_numel(tensor_meta(t)[0]) for t in tensors_of(out))
        elif "reduction" in target.tags:
            first = next((t for a in node.all_input_nodes for t in tensors_of(a.meta.get("val"))), None)
            flops = _numel(tensor_meta(first)[0]) if first is not None else 0
    return NodeCost(flops, read, written)


_FRAME = re.compile(r'^\s*File "(?P<file>.*)", line (?P<line>\d+), in (?P<func>.*)$', re.MULTILINE)


def user_frame(node: Node) -> tuple[str, int, str] | None:
    """``(file, line, function)`` of the innermost frame of ``meta["stack_trace"]``, or None."""
    trace = node.meta.get("stack_trace")
    if not isinstance(trace, str):
        return None
    last = None
    for last in _FRAME.finditer(trace):  # noqa: B007 - we want the last match
        pass
    if last is None:
        return None
    return last.group("file"), int(last.group("line")), last.group("func")
