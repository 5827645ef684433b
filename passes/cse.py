"""``common_subexpression_elimination(gm)``: compute each pure expression once.

Corresponds to torch/_functorch/compile_utils.py ``fx_graph_cse`` (and its mutation regions from
torch/_inductor/pattern_matcher.py), adapted to graphs that still hold in-place ops. Two
``call_function`` nodes are merged when they call the same target on the same arguments: nodes by
identity (after earlier merges), constants by type and value (``1``, ``1.0`` and ``True`` differ, so
do ``0.0`` and ``-0.0``), lists / tuples / dicts structurally, kwargs by name. Never merged:

* ops that write to an argument and side-effecting calls; each one also starts a new *mutation
  region*, and only nodes of the same region merge (a value read before ``x.add_(1)`` is not the
  value read after it; a ``_set_grad_enabled`` changes what autograd records);
* random ops (``nondeterministic_seeded``) and ops returning uninitialized memory (``empty``...);
* nodes whose memory is written later by an in-place op (merging ``a = x.clone()`` with
  ``b = x.clone()`` would let ``a.add_(1)`` change ``b``), and nodes whose memory the graph returns
  (the caller gets separate tensors, as eager code gave it; torch's rule);
* targets other than OpOverloads and ``operator.getitem`` (their purity is unknown), and nodes with
  unhashable constants.

Works in place and in one pass (a dict lookup per node).
"""

from __future__ import annotations

import operator
from typing import Any

from dispatcher.op_overload import OpOverload
from tracer import GraphModule, Node

from .side_effects import alias_roots, has_side_effects, is_mutable, is_random, mutated_arguments, node_arguments

__all__ = ["common_subexpression_elimination"]

_UNINITIALIZED = frozenset({"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty",
                            "aten::new_empty_strided"})


class _Unhashable(Exception):
    pass


_PLAIN = frozenset({int, bool, str, bytes, type(None)})


def _key(arg: Any) -> Any:
    """A hashable key equal for structurally equal arguments (types included)."""
    cls = type(arg)
    if cls is tuple:  # the usual args tuple: flat nodes and scalars
        parts = []
        for a in arg:
            c = type(a)
            if c is Node:
                parts.append(a)
            elif c in _PLAIN:
                parts.append((c, a))
            else:
                parts.append(_key(a))
        return (tuple, tuple(parts))
    if cls is Node:
        return arg
    if cls is float or cls is complex:
        return (cls, repr(arg))  # repr tells -0.0 from 0.0 and keeps nan equal to itself
    if cls in _PLAIN:
        return (cls, arg)
    if isinstance(arg, (list, tuple)):
        return (list if isinstance(arg, list) else cls, tuple(_key(a) for a in arg))
    if isinstance(arg, dict):
        return (dict, tuple(sorted(((k, _key(v)) for k, v in arg.items()), key=lambda kv: repr(kv[0]))))
    if cls is slice:
        return (slice, _key(arg.start), _key(arg.stop), _key(arg.step))
    try:
        hash(arg)
    except TypeError:
        raise _Unhashable from None
    return (cls, arg)


_BARRIER, _MERGEABLE, _SKIP = 0, 1, 2


def _classify(target: Any) -> int:
    """_BARRIER: writes or has side effects (starts a new region); _MERGEABLE; _SKIP: never merged."""
    if is_mutable(target) or has_side_effects(target):
        return _BARRIER
    if target is operator.getitem:
        return _MERGEABLE
    if isinstance(target, OpOverload) and not is_random(target) and target.name() not in _UNINITIALIZED:
        return _MERGEABLE
    return _SKIP


def common_subexpression_elimination(gm: GraphModule) -> GraphModule:
    """Merge duplicate pure computations of ``gm`` in place (module docstring), recompile, return ``gm``."""
    if not isinstance(gm, GraphModule):
        raise TypeError(f"common_subexpression_elimination: expected a GraphModule, got {type(gm).__name__}")
    graph = gm.graph
    roots = alias_roots(graph)
    # memory that must keep its own identity: written later by an in-place op, or returned
    pinned: set[Node] = {roots[n] for n in graph.output_node().all_input_nodes}
    for node in graph.find_nodes(op="call_function", sort=False):
        if is_mutable(node.target):
            bound = node_arguments(node)
            for name in mutated_arguments(node.target):
                value = bound.get(name)
                for n in (value if isinstance(value, (list, tuple)) else (value,)):
                    if type(n) is Node:
                        pinned.add(roots[n])

    region = 0
    seen: dict[Any, Node] = {}
    changed = False
    kinds: dict[Any, int] = {}  # target -> _BARRIER / _MERGEABLE / _SKIP (classified once per target)
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        target = node.target
        kind = kinds.get(target)
        if kind is None:
            kind = kinds[target] = _classify(target)
        if kind == _BARRIER:
            region += 1
            continue
        if kind == _SKIP or roots[node] in pinned:
            continue
        if any(u.target is operator.getitem and roots[u] in pinned for u in node.users):
            continue  # an element of its result is pinned
        try:
            kwargs = node.kwargs
            key = (target, region, _key(node.args), _key(dict(kwargs)) if kwargs else None)
        except _Unhashable:
            continue
        kept = seen.get(key)
        if kept is None:
            seen[key] = node
            continue
        node.replace_all_uses_with(kept)
        graph.erase_node(node)
        changed = True
    if changed:
        gm.graph = gm.graph  # the code is regenerated on first use (GraphModule recompiles lazily)
    return gm
