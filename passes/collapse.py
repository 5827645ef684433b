"""The drawing graph: one box per node, or, past a node budget, boxes that stand for groups of nodes.

``drawing_graph(G, node_budget, cluster)`` takes the networkx view of a captured graph (passes/nx.py) and
returns the ``networkx.DiGraph`` that passes/dot.py writes out. Up to ``node_budget`` nodes every node
gets its own box. Beyond it the graph is collapsed in steps, each applied only while the drawing is still
over budget:

1. *elementwise groups*: an elementwise op whose only user is another elementwise op joins that op's
   box ("12 elementwise ops: add, mul, relu"), i.e. chains and in-trees of pointwise ops, what a fusing
   compiler would turn into one kernel;
2. *single-user chains*: any call whose only user is another call joins that call's box (view -> mm ->
   add chains become one box);
3. *blocks*: consecutive boxes in graph order are merged into at most ``node_budget`` blocks (graphs
   with more than ``DIRECT_BLOCKS * node_budget`` nodes go straight to blocks of consecutive nodes).

Every step keeps the drawing acyclic: a merged node's only edge out of its group leaves from the group's
last node, so ordering groups by their last node is a topological order. When the graph was collapsed
(or ``cluster=True``) boxes are grouped into Graphviz clusters by the user function that issued them
(the innermost frame of ``meta["stack_trace"]``), if there is more than one such function.
"""

from __future__ import annotations

import collections
import math
import operator
import os
from typing import Any

import networkx as nx

from tracer.node import Node, _format_arg

from .costs import user_frame
from .dot import sanitize

__all__ = ["DIRECT_BLOCKS", "drawing_graph", "prune_hubs"]

#: beyond this many times the node budget, the graph is cut into blocks directly (steps 1 and 2 would not
#: bring it under budget anyway, and skipping them keeps 100,000-node graphs within the time budget)
DIRECT_BLOCKS = 50


class _Groups:
    """Union-find over node names (path compression); ``find`` gives a group's representative."""

    def __init__(self, names: list[str]) -> None:
        self.parent = {n: n for n in names}

    def find(self, n: str) -> str:
        parent = self.parent
        root = n
        while parent[root] != root:
            root = parent[root]
        while parent[n] != root:
            parent[n], n = root, parent[n]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def count(self) -> int:
        return len({self.find(n) for n in self.parent})


_CALL = ("call_function", "call_method", "call_module")


def _merge_single_users(A: dict[str, dict[str, Any]], succ: dict[str, dict], groups: _Groups,
                        only_kind: str | None) -> None:
    for u, users in succ.items():
        if len(users) != 1:
            continue
        a = A[u]
        if a["op"] not in _CALL or (only_kind is not None and a["kind"] != only_kind):
            continue
        (v,) = users
        b = A[v]
        if b["op"] in _CALL and (only_kind is None or b["kind"] == only_kind):
            groups.union(u, v)


def _short(target: str) -> str:
    return target[:-8] if target.endswith(".default") else target


def _node_lines(a: dict[str, Any]) -> list[str]:
    node = a["node"]
    if a["op"] == "placeholder":
        lines = [node.name]
    elif a["op"] == "output":
        lines = ["output"]
    elif a["op"] == "get_attr":
        lines = [node.name, f"get_attr {sanitize(node.target)}"]
    else:
        target = a["target"]
        lines = [_short(target)]
        if node.name != target.split(".")[0]:
            lines.append(node.name)
        consts = _constant_args(node)
        if consts:
            lines.append(consts)
    if a["label"]:
        lines.append(a["label"])
    return lines


def _constant_args(node: Any) -> str:
    """The non-node arguments of a call: ``dim=[1], keepdim=True`` for an aten op (named after its schema;
    tensors are the edges), else FX's format of all arguments (``%x, 'ij->ji', dim=0``)."""
    if node.target is operator.getitem and len(node.args) == 2 and not node.kwargs:
        return f"[{_format_arg(node.args[1])}]"
    schema = getattr(node.target, "_schema", None)
    if schema is not None and len(node.args) <= len(schema.arguments):
        try:
            named = [(a.name, v) for a, v in zip(schema.arguments, node.args)] + list(node.kwargs.items())
            return ", ".join(f"{sanitize(k)}={_format_arg(v)}" for k, v in named
                             if not isinstance(v, Node) and not _all_nodes(v))
        except Exception as e:  # noqa: BLE001 - see below
            return f"<arguments not printable: {type(e).__name__}>"
    parts = []
    has_const = False
    try:
        for arg in node.args:
            if not isinstance(arg, Node):
                has_const = True
            parts.append(_format_arg(arg))
        for key, value in node.kwargs.items():
            has_const = True
            parts.append(f"{sanitize(key)}={_format_arg(value)}")
    except Exception as e:  # noqa: BLE001 - a constant whose __str__ raises must not break the drawing
        return f"<arguments not printable: {type(e).__name__}>"
    return ", ".join(parts) if has_const else ""


def _all_nodes(value: Any) -> bool:
    """A non-empty list/tuple of nodes only (``cat``'s tensors): drawn as edges, not as text."""
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, Node) for v in value)


def _tooltip(a: dict[str, Any]) -> str:
    node = a["node"]
    frame = user_frame(node)
    try:
        text = node.format_node() if a["op"] != "output" else "output"
    except Exception as e:  # noqa: BLE001 - as in _constant_args
        text = f"{a['target']} (arguments not printable: {type(e).__name__})"
    if frame is not None:
        text += f"\n{os.path.basename(frame[0])}:{frame[1]} in {frame[2]}"
    return text


def _cluster_title(frame: tuple[str, int, str] | None) -> str | None:
    if frame is None:
        return None
    return f"{frame[2]} ({os.path.basename(frame[0])})"


def drawing_graph(G: nx.DiGraph, node_budget: int = 300, cluster: bool | None = None) -> tuple[nx.DiGraph, str]:
    """The drawing graph of networkx view ``G`` and which collapse step was needed
    (``"none"``, ``"elementwise"``, ``"chains"`` or ``"blocks"``)."""
    if node_budget < 1:
        raise ValueError(f"draw(node_budget=): expected a positive number of boxes, got {node_budget}")
    A: dict[str, dict[str, Any]] = dict(G.nodes(data=True))  # plain dicts: this loops over every node
    names = sorted(A, key=lambda n: A[n]["index"])
    level = "none"
    groups_list: list[list[str]]
    if len(names) > DIRECT_BLOCKS * node_budget:
        # far over budget: merging groups first would still end in blocks; cut the graph order directly
        level = "blocks"
        size = math.ceil(len(names) / node_budget)
        groups_list = [names[i:i + size] for i in range(0, len(names), size)]
    else:
        groups = _Groups(names)
        if len(names) > node_budget:
            succ = dict(G.adjacency())
            level = "elementwise"
            _merge_single_users(A, succ, groups, "elementwise")
            if groups.count() > node_budget:
                level = "chains"
                _merge_single_users(A, succ, groups, None)
            if groups.count() > node_budget:
                level = "blocks"
                last: dict[str, int] = {}
                for n in names:
                    r = groups.find(n)
                    last[r] = max(last.get(r, -1), A[n]["index"])
                order = sorted(last, key=last.__getitem__)
                size = math.ceil(len(order) / node_budget)
                for i in range(0, len(order), size):
                    for r in order[i + 1:i + size]:
                        groups.union(r, order[i])
        members: dict[str, list[str]] = collections.defaultdict(list)
        for n in names:
            members[groups.find(n)].append(n)
        groups_list = list(members.values())
    do_cluster = cluster if cluster is not None else level != "none"
    H = nx.DiGraph()
    box_of: dict[str, str] = {}
    titles: dict[str, str | None] = {}
    for group in groups_list:
        last_node = group[-1]
        for n in group:
            box_of[n] = last_node
        a = A[last_node]
        titles[last_node] = _cluster_title(user_frame(a["node"]))
        if len(group) == 1:
            H.add_node(last_node, lines=_node_lines(a), kind=a["kind"], tooltip=_tooltip(a),
                       mutates=_mutates(a["node"]))
            continue
        ops = collections.Counter(_short(A[n]["target"]) if A[n]["op"] in _CALL else A[n]["op"] for n in group)
        kinds = {A[n]["kind"] for n in group}
        if len(kinds) == 1 and next(iter(kinds)) in ("elementwise", "view", "reduction", "matmul", "backward"):
            what = f"{next(iter(kinds))} ops"
        else:
            what = "ops" if all(A[n]["op"] in _CALL for n in group) else "nodes"
        listing = ", ".join(op for op, _ in ops.most_common(4)) + (", ..." if len(ops) > 4 else "")
        lines = [f"{len(group)} {what}: {listing}", f"{group[0]} ... {last_node}"]
        if a["label"]:
            lines.append(a["label"])
        H.add_node(last_node, lines=lines, kind=next(iter(kinds)) if len(kinds) == 1 else "group", group=True,
                   tooltip="\n".join(group[:50]),
                   mutates=any(_mutates(A[n]["node"]) for n in group))
    if do_cluster and len({t for t in titles.values() if t is not None}) > 1:
        # one cluster per run of consecutive boxes from the same function (one call of it, usually)
        run = 0
        previous = None
        for box in sorted(titles, key=lambda b: A[b]["index"]):
            title = titles[box]
            if title is None:
                previous = None
                continue
            if title != previous:
                run += 1
                previous = title
            H.nodes[box]["cluster"] = (run, title)
    for u, users in G.adjacency():
        bu = box_of[u]
        for v in users:
            bv = box_of[v]
            if bu != bv and not H.has_edge(bu, bv):
                # an edge into getitem carries one element of a multi-output value: label it with that element
                H.add_edge(bu, bv, label=A[v if A[v]["node"].target is operator.getitem else u]["label"])
    return H, level


def _mutates(node: Any) -> bool:
    schema = getattr(node.target, "_schema", None)
    return bool(getattr(schema, "is_mutable", False))


def prune_hubs(H: nx.DiGraph, max_fanout: int) -> int:
    """Drop the out-edges of boxes that feed more than ``max_fanout`` boxes, noting it in their label.

    For large drawings: an input used by every layer (a shared weight) would otherwise draw one edge down
    the whole height of the graph per use, and ``dot`` spends its time routing them (hundreds of long edges
    become tens of thousands of virtual nodes). Returns how many edges were dropped.
    """
    dropped = 0
    for n in list(H.nodes):
        fanout = H.out_degree(n)
        if fanout > max_fanout:
            H.remove_edges_from(list(H.out_edges(n)))
            H.nodes[n]["lines"] = [*H.nodes[n]["lines"], f"feeds {fanout} boxes (edges not drawn)"]
            dropped += fanout
    return dropped
