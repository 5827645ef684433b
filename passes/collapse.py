"""The drawing graph: one box per node, or, past a node budget, boxes that stand for groups of nodes.

``drawing_graph(G, node_budget, cluster)`` takes the networkx view of a captured graph (passes/nx.py) and
returns the ``networkx.DiGraph`` that passes/dot.py writes out. Up to ``node_budget`` nodes every node
gets its own box. Beyond it the graph is collapsed in steps, each applied only while the drawing is still
over budget:

0. *modules*: when make_fx recorded ``nn_module_stack`` (tracer/module_stack.py), module calls are shown
   closed, one box each named by its path ("layers.3.attn", "Attention: 41 ops"), the biggest calls opened
   first as long as the drawing stays within budget (passes/module_groups.py);
1. *elementwise groups*: an elementwise op whose only user is another elementwise op joins that op's
   box ("12 elementwise ops: add, mul, relu"), i.e. chains and in-trees of pointwise ops, what a fusing
   compiler would turn into one kernel;
2. *single-user chains*: any call whose only user is another call joins that call's box (view -> mm ->
   add chains become one box);
3. *blocks*: consecutive boxes in graph order are merged into at most ``node_budget`` blocks (graphs
   with more than ``DIRECT_BLOCKS * node_budget`` nodes go straight to blocks of consecutive nodes).

Every step keeps the drawing acyclic: a module call is a graph-order interval (contracting disjoint
intervals of a topological order leaves a DAG), steps 1 and 2 merge only nodes outside closed calls, and
a merged node's only edge out of its group leaves from the group's last node, so ordering groups by their
last node is a topological order. Boxes are grouped into Graphviz clusters: by module call (nested: a
cluster per opened call, "layers.3 (Block)") when the graph has module stacks, else, when the graph was
collapsed (or ``cluster=True``), by the user function that issued them (the innermost frame of
``meta["stack_trace"]``), if there is more than one such function. A constant read by several boxes (a
parameter or buffer: ``get_attr``) is drawn next to each box that uses it, in that box's cluster, instead of
as one box whose edges run across the drawing.
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
from .module_groups import Scope, choose_expanded, module_scopes

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
                        only_kind: str | None, frozen: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    for u, users in succ.items():
        if len(users) != 1 or u in frozen:
            continue
        a = A[u]
        if a["op"] not in _CALL or (only_kind is not None and a["kind"] != only_kind):
            continue
        (v,) = users
        b = A[v]
        if v not in frozen and b["op"] in _CALL and (only_kind is None or b["kind"] == only_kind):
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


def drawing_graph(G: nx.DiGraph, node_budget: int = 300, cluster: bool | None = None,
                  params_at_use: bool = True) -> tuple[nx.DiGraph, str]:
    """The drawing graph of networkx view ``G`` and which collapse step was needed
    (``"none"``, ``"modules"``, ``"elementwise"``, ``"chains"`` or ``"blocks"``).

    ``params_at_use``: a constant read by several boxes (a parameter or buffer, ``get_attr``) is drawn once next
    to each box that uses it rather than as one box with long edges.
    """
    if node_budget < 1:
        raise ValueError(f"draw(node_budget=): expected a positive number of boxes, got {node_budget}")
    A: dict[str, dict[str, Any]] = dict(G.nodes(data=True))  # plain dicts: this loops over every node
    names = sorted(A, key=lambda n: A[n]["index"])
    top, owner_list = module_scopes([A[n]["node"] for n in names], names)
    owner = dict(zip(names, owner_list)) if top else {}
    level = "none"
    closed: dict[str, Scope] = {}  # a closed module call's group representative -> the call
    groups_list: list[list[str]]
    if not top and len(names) > DIRECT_BLOCKS * node_budget:
        # far over budget: merging groups first would still end in blocks; cut the graph order directly
        level = "blocks"
        size = math.ceil(len(names) / node_budget)
        groups_list = [names[i:i + size] for i in range(0, len(names), size)]
        expanded: set[Scope] = set()
    else:
        groups = _Groups(names)
        frozen: set[str] = set()
        if top and len(names) > node_budget:
            level = "modules"
            expanded = choose_expanded(top, sum(1 for n in names if owner[n] is None), node_budget)
            for scope in (s for t in top for s in t.walk()):
                if scope not in expanded and (scope.parent is None or scope.parent in expanded):
                    members = names[scope.start:scope.end + 1]
                    for n in members[1:]:
                        groups.union(n, members[0])
                    frozen.update(members)
                    closed[groups.find(members[0])] = scope
        else:
            expanded = {s for t in top for s in t.walk()}
        if groups.count() > node_budget:
            succ = dict(G.adjacency())
            if groups.count() <= DIRECT_BLOCKS * node_budget:
                level = "elementwise"
                _merge_single_users(A, succ, groups, "elementwise", frozen)
                if groups.count() > node_budget:
                    level = "chains"
                    _merge_single_users(A, succ, groups, None, frozen)
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
        members_of: dict[str, list[str]] = collections.defaultdict(list)
        for n in names:
            members_of[groups.find(n)].append(n)
        closed = {members_of[groups.find(r)][-1]: scope for r, scope in closed.items()
                  if len(members_of[groups.find(r)]) == scope.end - scope.start + 1}  # (not merged into a block)
        groups_list = list(members_of.values())
    do_cluster = cluster if cluster is not None else (bool(top) or level != "none")
    succ_of = G.successors
    H = nx.DiGraph()
    box_of: dict[str, str] = {}
    titles: dict[str, str | None] = {}
    paths: dict[str, list[tuple[str, str]]] = {}
    for group in groups_list:
        last_node = group[-1]
        for n in group:
            box_of[n] = last_node
        a = A[last_node]
        titles[last_node] = _cluster_title(user_frame(a["node"]))
        scope = closed.get(last_node)
        if top:
            inner = scope.parent if scope is not None else owner.get(last_node)
            path = []
            while inner is not None:
                if inner in expanded and (inner.fqn or len(top) > 1):  # (no cluster around the whole model)
                    path.append((inner.key, inner.title))
                inner = inner.parent
            paths[last_node] = path[::-1]
        if len(group) == 1:
            H.add_node(last_node, lines=_node_lines(a), kind=a["kind"], tooltip=_tooltip(a),
                       mutates=_mutates(a["node"]))
            continue
        ops = collections.Counter(_short(A[n]["target"]) if A[n]["op"] in _CALL else A[n]["op"] for n in group
                                  if scope is None or A[n]["op"] in _CALL)
        kinds = {A[n]["kind"] for n in group}
        listing = ", ".join(op for op, _ in ops.most_common(4)) + (", ..." if len(ops) > 4 else "")
        calls = sum(1 for n in group if A[n]["op"] in _CALL)
        if scope is not None:
            lines = [sanitize((scope.fqn or "(root)") + scope.call_suffix), sanitize(f"{scope.cls}: {calls} ops"),
                     listing]
            kind = "module"
        else:
            if len(kinds) == 1 and next(iter(kinds)) in ("elementwise", "view", "reduction", "matmul", "backward"):
                what = f"{next(iter(kinds))} ops"
            else:
                what = "ops" if all(A[n]["op"] in _CALL for n in group) else "nodes"
            lines = [f"{len(group)} {what}: {listing}", f"{group[0]} ... {last_node}"]
            kind = next(iter(kinds)) if len(kinds) == 1 else "group"
        label = a["label"]
        if scope is not None:  # what leaves the module: the values used outside it
            inside = set(group)
            outs = list(dict.fromkeys(A[n]["label"] for n in group if A[n]["label"]
                                      and any(v not in inside for v in succ_of(n))))
            label = ", ".join(outs[:2]) + (", ..." if len(outs) > 2 else "")
        if label:
            lines.append(label)
        H.add_node(last_node, lines=lines, kind=kind, group=True, tooltip="\n".join(group[:50]),
                   mutates=any(_mutates(A[n]["node"]) for n in group))
    if do_cluster and top:
        for box, path in paths.items():
            if path:
                H.nodes[box]["clusters"] = path
    elif do_cluster and len({t for t in titles.values() if t is not None}) > 1:
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
    if params_at_use:
        _constants_at_use(H, A, min(node_budget, COPIES_LIMIT), inputs=level in ("none", "modules"))
    return H, level


#: an input feeding more boxes than this is a shared weight: drawn at each use (or, past the budget, its edges
#: are dropped: see prune_hubs)
HUB_FANOUT = 8
#: copies of shared inputs are drawn only while the drawing has at most this many boxes (passes/drawing.py's LARGE:
#: larger drawings drop the edges of such inputs instead)
COPIES_LIMIT = 150


def _constants_at_use(H: nx.DiGraph, A: dict[str, dict[str, Any]], node_budget: int, inputs: bool = True) -> None:
    """Draw shared constants and weights at their uses: a get_attr box feeding several boxes, and an input feeding
    more than ``HUB_FANOUT`` boxes (a weight every layer reads), become one copy per user, in the user's cluster,
    as long as the drawing stays within ``node_budget`` boxes (inputs: only when nothing but modules was collapsed). (make_fx reads a parameter with a new get_attr
    node at each use, so parameters of traced modules are drawn at their use already.)"""
    for box in [b for b in H.nodes if b in A and A[b]["op"] in ("get_attr", "placeholder")
                and not H.nodes[b].get("group")]:
        users = list(H.successors(box))
        if len(users) < 2 or (A[box]["op"] == "placeholder" and (not inputs or len(users) <= HUB_FANOUT)):
            continue
        if H.number_of_nodes() - 1 + len(users) > node_budget:
            continue
        attrs = H.nodes[box]
        for v in users:
            stub = f"{box}@{v}"
            copy = {k: val for k, val in attrs.items() if k not in ("cluster", "clusters")}
            for key in ("cluster", "clusters"):
                if key in H.nodes[v]:
                    copy[key] = H.nodes[v][key]
            H.add_node(stub, **copy)
            H.add_edge(stub, v, **H.edges[box, v])
        H.remove_node(box)


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
