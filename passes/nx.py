"""networkx views of a captured graph, and the analyses built on them.

``to_networkx(graph)`` turns a Graph (or GraphModule) into a ``networkx.DiGraph`` keyed by node name, one
edge per producer -> consumer pair, with node attributes ``op``, ``target`` (the printable target),
``kind``, ``shape``, ``dtype``, ``flops``, ``bytes`` (estimates from passes/costs.py) and ``node`` (the
Node itself), and edge attributes ``shape`` / ``dtype`` / ``label`` of the value on the edge. The analyses
are networkx algorithms on that view, not hand-written graph walks:

* ``topological_generations`` / ``parallelism_profile``: nodes that could run at the same time;
* ``critical_path``: the most expensive dependency chain (``nx.dag_longest_path`` with node costs on edges);
* ``dominators``: immediate dominators from the inputs (``nx.immediate_dominators`` from a virtual source
  that feeds every node without inputs);
* ``liveness``: when each storage is allocated and freed, and the peak of live bytes (views share their
  base's storage; a storage is freed after the last use of any tensor on it);
* ``op_histogram``: how many nodes per op.

No torch counterpart: torch.fx has ``passes/graph_drawer.py`` and ``passes/graph_manipulation.py``, but
these views are dispatchkit's.
"""

from __future__ import annotations

import collections
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import networkx as nx

from dispatcher.op_overload import OpOverload
from dispatcher.tensor import Tensor
from tracer.graph import Graph
from tracer.node import Node

from .costs import (
    UNTRACKED_VIEWS,
    NodeCost,
    dtype_name,
    node_cost,
    node_kind,
    short_target,
    tensor_meta,
    tensors_of,
    value_bytes,
    value_summary,
)

__all__ = ["Liveness", "critical_path", "dominators", "liveness", "op_histogram", "parallelism_profile",
           "to_networkx", "topological_generations"]

#: the virtual node analyses add in front of the graph's inputs (never a valid node name)
SOURCE = "<source>"


def _graph_of(graph: Any) -> Graph:
    g = getattr(graph, "graph", graph)
    if not isinstance(g, Graph):
        raise TypeError(f"expected a Graph or a GraphModule, got {type(graph).__name__}")
    return g


def _shape_dtype(value: Any) -> tuple[Any, Any]:
    if isinstance(value, Tensor):
        shape, dtype = tensor_meta(value)
        return tuple(shape), dtype_name(dtype)
    metas = [tensor_meta(t) for t in tensors_of(value)]
    if not metas:
        return None, None
    return tuple(tuple(m[0]) for m in metas), tuple(dtype_name(m[1]) for m in metas)


_NO_COST = NodeCost(0, 0, 0)


def to_networkx(graph: Any, costs: bool = True) -> nx.DiGraph:
    """A DiGraph of ``graph`` (a Graph or GraphModule): nodes keyed by name, edges producer -> consumer.

    (A graph whose names repeat, which ``Graph.lint`` refuses, gets ``name#index`` keys for the repeats.)

    Node attributes: ``op``, ``target`` (str), ``kind``, ``shape`` / ``dtype`` (of ``meta["val"]``; tuples of
    them for multi-output nodes; None for non-tensors), ``label`` (``f32[2, 3]``), ``flops``, ``bytes``,
    ``bytes_written``, ``index`` (position in the graph) and ``node`` (the Node). Edge attributes: ``shape``,
    ``dtype`` and ``label`` of the producer's value. ``costs=False`` skips the estimates (all 0).
    """
    return _build(graph, costs=costs, edge_attrs=True)


def _build(graph: Any, costs: bool, edge_attrs: bool) -> nx.DiGraph:
    """to_networkx's body; the drawing calls it without costs and edge attributes (it reads node labels)."""
    g = _graph_of(graph)
    G = nx.DiGraph()
    out_bytes: dict[Node, int] = {}
    key: dict[Node, str] = {}
    node_attrs: dict[str, dict[str, Any]] = {}
    edges: list[tuple[str, str]] = []
    by_target: dict[Any, tuple[str, str]] = {}  # call targets repeat: their printed name and kind, once
    described: dict[Any, tuple[Any, Any, str]] = {}  # (shape, dtype) -> (shape, dtype name, label)
    for i, node in enumerate(g.nodes):
        val = node.meta.get("val")
        if isinstance(val, Tensor):
            shape, dtype = tensor_meta(val)
            memo = described.get((shape, dtype))
            if memo is None:
                memo = described[(shape, dtype)] = (tuple(shape), dtype_name(dtype), value_summary(val))
            shape, dtype, label = memo
        else:
            shape, dtype = _shape_dtype(val)
            label = value_summary(val)
        cost = node_cost(node, out_bytes) if costs else _NO_COST
        if node.op == "call_function":
            try:
                info = by_target.get(node.target)
                if info is None:
                    info = by_target[node.target] = (short_target(node), node_kind(node))
            except TypeError:  # an unhashable target
                info = (short_target(node), node_kind(node))
            target, kind = info
        else:
            target, kind = short_target(node), node_kind(node)
        name = node.name
        if name in node_attrs or name == SOURCE:  # names not unique (Graph.lint refuses such graphs): never merge
            name = f"{name}#{i}"
        key[node] = name
        node_attrs[name] = {"op": node.op, "target": target, "kind": kind, "shape": shape, "dtype": dtype,
                            "label": label, "flops": cost.flops, "bytes": cost.bytes,
                            "bytes_written": cost.bytes_written, "index": i, "node": node}
        for inp in node.all_input_nodes:
            edges.append((key[inp], name))
    G.add_nodes_from(node_attrs.items())
    if edge_attrs:
        G.add_edges_from((u, v, {"shape": node_attrs[u]["shape"], "dtype": node_attrs[u]["dtype"],
                                 "label": node_attrs[u]["label"]}) for u, v in edges)
    else:
        G.add_edges_from(edges)
    return G


def _view(graph: Any) -> nx.DiGraph:
    return graph if isinstance(graph, nx.DiGraph) else to_networkx(graph)


def topological_generations(graph: Any) -> list[list[str]]:
    """Node names in generations: every node's inputs are in earlier generations (``nx.topological_generations``).

    Each generation is sorted in graph order. Its width is how many nodes could run at the same time.
    """
    G = _view(graph)
    return [sorted(gen, key=lambda n: G.nodes[n]["index"]) for gen in nx.topological_generations(G)]


def parallelism_profile(graph: Any) -> list[int]:
    """The width of each topological generation."""
    return [len(gen) for gen in topological_generations(graph)]


CostFn = Callable[[dict[str, Any]], float]

#: a nominal machine for ``cost="time"``: 100 GFLOP/s and 10 GB/s (only the ratio matters for the path)
NOMINAL_FLOPS_PER_S = 1e11
NOMINAL_BYTES_PER_S = 1e10


def _cost_fn(cost: str | CostFn) -> CostFn:
    if callable(cost):
        return cost
    if cost == "flops":
        return lambda a: a["flops"]
    if cost == "bytes":
        return lambda a: a["bytes"]
    if cost == "time":
        return lambda a: max(a["flops"] / NOMINAL_FLOPS_PER_S, a["bytes"] / NOMINAL_BYTES_PER_S)
    raise ValueError(f"critical_path(cost=): expected 'time', 'flops', 'bytes' or a function of a node's "
                     f"attributes, got {cost!r}")


def critical_path(graph: Any, cost: str | CostFn = "time") -> tuple[list[str], float]:
    """The dependency chain with the largest total cost, and that cost.

    ``cost`` is ``"time"`` (default: a roofline estimate, max(FLOPs / 100 GFLOP/s, bytes / 10 GB/s)),
    ``"flops"``, ``"bytes"`` or a function of a node's attribute dict. Each edge u -> v weighs cost(v) and a
    virtual source feeds every node without inputs with weight cost(node), so ``nx.dag_longest_path``
    maximises the sum of node costs.
    """
    G = _view(graph)
    fn = _cost_fn(cost)
    costs = {n: float(fn(a)) for n, a in G.nodes(data=True)}
    if any(c < 0 for c in costs.values()):
        raise ValueError("critical_path: node costs must be non-negative")
    W = nx.DiGraph()
    W.add_nodes_from(G.nodes)
    W.add_weighted_edges_from((u, v, costs[v]) for u, v in G.edges)
    W.add_weighted_edges_from((SOURCE, n, costs[n]) for n in G.nodes if G.in_degree(n) == 0)
    path = [n for n in nx.dag_longest_path(W, weight="weight", default_weight=0) if n != SOURCE]
    return path, sum(costs[n] for n in path)


def dominators(graph: Any) -> dict[str, str | None]:
    """Immediate dominator of each node, from the inputs (``nx.immediate_dominators``).

    A virtual source feeds every node without inputs (placeholders, constants, factory ops); a node whose
    immediate dominator is that source maps to None. ``d`` dominates ``n`` when every path from the inputs
    to ``n`` passes through ``d``.
    """
    G = _view(graph)
    D = nx.DiGraph(G.edges)
    D.add_nodes_from(G.nodes)
    D.add_edges_from((SOURCE, n) for n in G.nodes if G.in_degree(n) == 0)
    idom = nx.immediate_dominators(D, SOURCE)
    return {n: (None if idom[n] == SOURCE else idom[n]) for n in G.nodes}


class Liveness(NamedTuple):
    """Result of ``liveness``: the peak of live bytes, where it happens, and the timeline.

    ``live_bytes[i]`` is the bytes live while node ``order[i]`` runs (its new outputs included);
    ``freed_after[name]`` lists the storages (named by the node that allocated them) freed after that node.
    """

    peak_bytes: int
    peak_node: str | None
    order: list[str]
    live_bytes: list[int]
    freed_after: dict[str, list[str]]

    def __repr__(self) -> str:
        # (the fields hold one entry per node: the default NamedTuple repr ran to thousands of characters)
        from .stats import readable_bytes

        return (f"Liveness(peak_bytes={self.peak_bytes} ({readable_bytes(self.peak_bytes)}), "
                f"peak_node={self.peak_node!r}, nodes={len(self.order)})")

    def plot_svg(self, width: int | None = None, height: int = 220) -> str:
        """Live bytes per node as an SVG step plot, the peak marked (passes/plots.py)."""
        from .plots import liveness_svg

        return liveness_svg(self, width, height)

    def _repr_html_(self) -> str:
        from .inline import picture_html

        return picture_html(self.plot_svg(), caption=repr(self))


def _aliased_input(node: Node) -> Node | None:
    """The input whose storage the output shares: the first argument with an alias annotation (``Tensor(a)``)."""
    target = node.target
    if not isinstance(target, OpOverload) or target._schema is None:
        return None
    if target.name_without_overload().split("::")[-1] in UNTRACKED_VIEWS:
        first = node.args[0] if node.args else None
        return first if isinstance(first, Node) else None
    for i, arg in enumerate(target._schema.arguments):
        if arg.alias_info is not None:
            value = node.args[i] if i < len(node.args) else node.kwargs.get(arg.name)
            return value if isinstance(value, Node) else None
    return None


def _is_multi(s: Any) -> bool:
    """A multi-output node's storage entry: a tuple of (name, index) keys."""
    return isinstance(s, tuple) and bool(s) and isinstance(s[0], tuple)


def _storage_name(key: tuple[str, int], storage: dict[str, Any]) -> str:
    name, index = key
    return f"{name}[{index}]" if _is_multi(storage.get(name)) else name


def liveness(graph: Any, include_inputs: bool = True) -> Liveness:
    """Peak live memory if values are freed right after their last use.

    Walks the nodes in graph order. A node allocates one storage per output tensor, except views and
    in-place ops (their output aliases an input: no new storage) and ``getitem`` (it names an element of its
    producer's result). A storage is freed after the last node that uses any tensor on it; storages reaching
    the output live to the end. ``include_inputs``: count the graph's inputs and constants (held by the
    caller) as live from the start.
    """
    G = _view(graph)
    order = sorted(G.nodes, key=lambda n: G.nodes[n]["index"])
    key_of = {a["node"]: n for n, a in G.nodes(data=True)}
    storage: dict[str, Any] = {}  # node key -> storage key (or a tuple of keys for a multi-output node)
    size: dict[Any, int] = {}
    for name in order:
        node: Node = G.nodes[name]["node"]
        if node.op == "output":
            continue
        base = _aliased_input(node)
        if node.op == "call_function" and node.target is operator.getitem and node.args \
                and isinstance(node.args[0], Node):
            parent = storage.get(key_of.get(node.args[0]))
            index = node.args[1] if len(node.args) > 1 else None
            if _is_multi(parent) and isinstance(index, int) and -len(parent) <= index < len(parent):
                storage[name] = parent[index]
            else:
                storage[name] = parent
        elif base is not None and key_of.get(base) in storage:
            storage[name] = storage[key_of[base]]
        else:
            val = node.meta.get("val")
            if isinstance(val, (list, tuple)):
                keys = tuple((name, i) for i in range(len(val)))
                for key, v in zip(keys, val):
                    size[key] = value_bytes(v)
                storage[name] = keys
            else:
                size[(name, 0)] = value_bytes(val)
                storage[name] = (name, 0)

    def keys_of(name: str) -> list[Any]:
        s = storage.get(name)
        if s is None:
            return []
        return list(s) if _is_multi(s) else [s]

    position = {n: i for i, n in enumerate(order)}
    end = len(order)
    last_use: dict[Any, int] = {}
    for name in order:
        for key in keys_of(name):
            last_use[key] = max(last_use.get(key, -1), position[name])
        node = G.nodes[name]["node"]
        for user in G.successors(name):
            when = end if G.nodes[user]["op"] == "output" else position[user]
            for key in keys_of(name):
                last_use[key] = max(last_use[key], when)
        if node.op in ("placeholder", "get_attr") and include_inputs:
            for key in keys_of(name):
                last_use[key] = end
    born = {}
    for name in order:
        for key in keys_of(name):
            born.setdefault(key, position[name])
    if not include_inputs:
        for name in order:
            if G.nodes[name]["op"] in ("placeholder", "get_attr"):
                for key in keys_of(name):
                    size[key] = 0
    frees: dict[int, list[Any]] = collections.defaultdict(list)
    for key, t in last_use.items():
        frees[t].append(key)
    live = 0
    timeline: list[int] = []
    freed_after: dict[str, list[str]] = {}
    allocated = set()
    for i, name in enumerate(order):
        for key in keys_of(name):
            if born[key] == i and key not in allocated:
                allocated.add(key)
                live += size.get(key, 0)
        timeline.append(live)
        gone = frees.get(i, [])
        for key in gone:
            live -= size.get(key, 0)
        if gone:
            freed_after[name] = [_storage_name(k, storage) for k in gone]
    peak = max(timeline, default=0)
    peak_node = order[timeline.index(peak)] if timeline else None
    return Liveness(peak, peak_node, order, timeline, freed_after)


def op_histogram(graph: Any, by: str = "target") -> collections.Counter:
    """How many nodes per op (``by="target"``: ``add.Tensor``) or per kind (``by="kind"``), call nodes only."""
    if by not in ("target", "kind"):
        raise ValueError(f"op_histogram(by=): expected 'target' or 'kind', got {by!r}")
    G = _view(graph)
    return collections.Counter(a[by] for _, a in G.nodes(data=True) if a["op"] not in ("placeholder", "get_attr",
                                                                                      "output"))
