"""``replace_pattern(gm, pattern, replacement)``: subgraph rewriting, like torch.fx.subgraph_rewriter.

Corresponds to torch/fx/subgraph_rewriter.py (``replace_pattern``, ``Match``) and the matcher of
torch/fx/passes/utils/matcher_utils.py (``SubgraphMatcher``). The pattern and the replacement are
GraphModules, or functions traced here with ``make_fx`` on ``example_inputs`` (at the same level
as the graph: ``pre_dispatch=True`` for pre-dispatch graphs, since a post-dispatch pattern holds
``t`` + ``addmm`` where a pre-dispatch graph holds ``linear``).

Matching works backwards from the pattern's returned nodes (the *anchors*): a pattern node matches a
graph node with the same op and target whose arguments match pairwise — pattern placeholders are
wildcards that bind any graph node (the same placeholder must always bind the same node), nested
lists / tuples / dicts are matched element by element, and anything else must be equal (with the
same type: ``2`` does not match ``2.0``). A match is rejected when one of its internal nodes (a
matched node that the pattern does not return) is used outside the match, since removing it would
break those users. Matches are searched in graph order and never overlap: a candidate sharing a
node with an accepted match is dropped. Each accepted match is replaced by a copy of the
replacement graph (its placeholders bound, in order, to what the pattern's placeholders bound),
inserted before the first anchor; the anchors' users are redirected to the replacement's outputs
and the matched nodes are erased. New nodes get ``meta["val"]`` computed on the graph's fake
values and the anchor's stack trace. Returns the list of ``Match``es.

NB: torch's ``replace_pattern`` traces functions with ``torch.fx.symbolic_trace`` (no inputs
needed); here patterns are aten graphs, so functions need example inputs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from dispatcher.fake import FakeTensorMode
from dispatcher.op_overload import OpOverload
from dispatcher.tensor import Tensor
from tracer.graph import Graph
from tracer.graph_module import GraphModule
from tracer.node import Node, map_arg
from tracer.proxy_tensor import make_fx

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    """One replaced occurrence: the graph node matched by the pattern's (first) returned node, and
    the pattern node -> graph node map (placeholders map to the bound inputs)."""

    anchor: Node
    nodes_map: dict[Node, Node]


def _as_graph_module(fn: Any, example_inputs: Sequence[Any] | None, pre_dispatch: bool, what: str) -> GraphModule:
    if isinstance(fn, GraphModule):
        return fn
    if not callable(fn):
        raise TypeError(f"replace_pattern: the {what} must be a GraphModule or a function, got {type(fn).__name__}")
    if example_inputs is None:
        raise ValueError(f"replace_pattern: the {what} is a function; pass example_inputs=(...) to trace it with "
                         "make_fx (or pass a GraphModule)")
    return make_fx(fn, pre_dispatch=pre_dispatch, tracing_mode="fake")(*example_inputs)


def _returned_nodes(graph: Graph, what: str) -> list[Node]:
    result = graph.output_node().args[0]
    flat: list[Any] = []
    map_arg(result, flat.append)
    leaves = result if isinstance(result, (list, tuple)) else [result]
    if any(type(leaf) is not Node for leaf in leaves) or len(flat) != len(leaves):
        raise ValueError(f"replace_pattern: the {what} must return a node or a flat tuple of nodes, got {result!r}")
    return list(leaves)


class _Matcher:
    """Finds where a pattern graph occurs in a graph (see the module docstring)."""

    def __init__(self, pattern: Graph) -> None:
        self.pattern = pattern
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]
        self.used: set[Node] = set()  # graph nodes inside accepted matches (find fills it)
        self.anchors = _returned_nodes(pattern, "pattern")
        for n in pattern.nodes:
            if n.op in ("get_attr", "call_module"):
                raise ValueError(f"replace_pattern: pattern node {n.name} is a {n.op}; patterns may only hold "
                                 "placeholders and calls (make constants inputs of the pattern)")
        if any(a.op == "placeholder" for a in self.anchors):
            raise ValueError("replace_pattern: the pattern returns one of its inputs; it must return computed nodes")

    def match_node(self, pn: Node, gn: Node, nodes_map: dict[Node, Node], taken: set[Node]) -> bool:
        """Extend ``nodes_map`` with pn -> gn and everything below it; undo on failure."""
        if pn in nodes_map:
            return nodes_map[pn] is gn
        if pn.op == "placeholder":
            nodes_map[pn] = gn
            return True
        if gn in taken or gn in self.used or pn.op != gn.op or pn.target != gn.target or len(pn.args) != len(gn.args) \
                or set(pn.kwargs) != set(gn.kwargs):
            return False
        if gn.op == "output":
            return False
        nodes_map[pn] = gn
        taken.add(gn)
        snapshot = dict(nodes_map), set(taken)
        ok = self.match_arg(pn.args, gn.args, nodes_map, taken) and all(
            self.match_arg(pn.kwargs[k], gn.kwargs[k], nodes_map, taken) for k in pn.kwargs)
        if not ok:
            nodes_map.clear()
            nodes_map.update(snapshot[0])
            taken.clear()
            taken.update(snapshot[1])
            del nodes_map[pn]
            taken.discard(gn)
        return ok

    def match_arg(self, pa: Any, ga: Any, nodes_map: dict[Node, Node], taken: set[Node]) -> bool:
        if type(pa) is Node:
            return type(ga) is Node and self.match_node(pa, ga, nodes_map, taken)
        if isinstance(pa, (list, tuple)):
            return (isinstance(ga, (list, tuple)) and isinstance(pa, list) == isinstance(ga, list)
                    and len(pa) == len(ga) and all(self.match_arg(a, b, nodes_map, taken) for a, b in zip(pa, ga)))
        if isinstance(pa, dict):
            return (isinstance(ga, dict) and pa.keys() == ga.keys()
                    and all(self.match_arg(pa[k], ga[k], nodes_map, taken) for k in pa))
        return type(pa) is type(ga) and (pa == ga or (pa != pa and ga != ga))  # nan matches nan

    def find(self, graph: Graph) -> list[dict[Node, Node]]:
        """All non-overlapping matches, in graph order of their first anchor."""
        found: list[dict[Node, Node]] = []
        used = self.used
        used.clear()
        first = self.anchors[0]
        candidates = graph.find_nodes(op=first.op, target=first.target) if first.op == "call_function" \
            else [n for n in graph.nodes if n.op == first.op and n.target == first.target]
        for gn in candidates:
            if gn in used:
                continue
            match = self.match_anchors(graph, 0, {}, set(), gn)
            if match is None:
                continue
            body = {g for p, g in match.items() if p.op != "placeholder"}
            found.append(match)
            used |= body
        return found

    def match_anchors(self, graph: Graph, i: int, nodes_map: dict[Node, Node], taken: set[Node],
                      gn: Node | None = None) -> dict[Node, Node] | None:
        """Match anchors i, i+1, ... (backtracking over the candidates of the later anchors)."""
        if i == len(self.anchors):
            return dict(nodes_map) if self.self_contained(nodes_map) else None
        anchor = self.anchors[i]
        options = [gn] if gn is not None else graph.find_nodes(op=anchor.op, target=anchor.target)
        for cand in options:
            trial_map, trial_taken = dict(nodes_map), set(taken)
            if self.match_node(anchor, cand, trial_map, trial_taken):
                result = self.match_anchors(graph, i + 1, trial_map, trial_taken)
                if result is not None:
                    return result
        return None

    def self_contained(self, nodes_map: dict[Node, Node]) -> bool:
        """No internal node of the match is used outside it (the anchors may be used anywhere)."""
        body = {g for p, g in nodes_map.items() if p.op != "placeholder"}
        anchors = {nodes_map[a] for a in self.anchors}
        for node in body - anchors:
            if any(user not in body for user in node.users):
                return False
        return True


def _fake_mode_of(vals: list[Any]) -> Any:
    for v in vals:
        mode = getattr(v, "fake_mode", None)
        if mode is not None:
            return mode
    return None


def _compute_val(node: Node) -> Any:
    """meta["val"] for a new node, run on its arguments' values (in their fake mode)."""
    if node.op != "call_function":
        return None
    vals = map_arg((node.args, node.kwargs), lambda n: n.meta.get("val"))
    flat: list[Any] = []
    map_arg((node.args, node.kwargs), lambda n: flat.append(n.meta.get("val")))
    target = node.target
    if target is operator.getitem:
        return operator.getitem(*vals[0])
    if not isinstance(target, OpOverload):
        return None
    mode = _fake_mode_of([v for v in flat if isinstance(v, Tensor)]) or FakeTensorMode(allow_non_fake_inputs=True)
    with mode:
        return target(*vals[0], **vals[1])


def replace_pattern(gm: GraphModule, pattern: GraphModule | Callable[..., Any],
                    replacement: GraphModule | Callable[..., Any], *, example_inputs: Sequence[Any] | None = None,
                    replacement_inputs: Sequence[Any] | None = None, pre_dispatch: bool = False) -> list[Match]:
    """Replace every non-overlapping occurrence of ``pattern`` in ``gm`` (in place) by ``replacement``.

    ``example_inputs`` trace function patterns (and the replacement, unless ``replacement_inputs``
    is given). The replacement takes the pattern's inputs, in the same order, and returns as many
    values as the pattern. Returns the matches made; ``gm`` is recompiled.
    """
    if not isinstance(gm, GraphModule):
        raise TypeError(f"replace_pattern expects a GraphModule, got {type(gm).__name__}")
    pattern_gm = _as_graph_module(pattern, example_inputs, pre_dispatch, "pattern")
    replacement_gm = _as_graph_module(replacement, replacement_inputs if replacement_inputs is not None
                                      else example_inputs, pre_dispatch, "replacement")
    matcher = _Matcher(pattern_gm.graph)
    rep_graph = replacement_gm.graph
    rep_inputs = [n for n in rep_graph.nodes if n.op == "placeholder"]
    rep_outputs = _returned_nodes(rep_graph, "replacement")
    if len(rep_inputs) != len(matcher.placeholders):
        raise ValueError(f"replace_pattern: the replacement takes {len(rep_inputs)} inputs, the pattern "
                         f"{len(matcher.placeholders)}; they must take the same inputs")
    if len(rep_outputs) != len(matcher.anchors):
        raise ValueError(f"replace_pattern: the replacement returns {len(rep_outputs)} values, the pattern "
                         f"{len(matcher.anchors)}")
    graph = gm.graph
    matches: list[Match] = []
    replaced: dict[Node, Node] = {}  # anchors of earlier matches -> what replaced them
    for nodes_map in matcher.find(graph):
        anchors = [nodes_map[a] for a in matcher.anchors]
        first = min(anchors, key=lambda n: n._sort_key)
        bound = [nodes_map.get(p) for p in matcher.placeholders]
        if any(b is None for b in bound):
            raise ValueError("replace_pattern: a pattern input is unused; every pattern input must be used")
        bound = [replaced.get(b, b) for b in bound]  # an input may be the output of an earlier replacement
        if any(b._sort_key >= first._sort_key for b in bound):
            continue  # an input is defined after the insertion point: this match cannot be rewritten in place
        outs = _rewrite(graph, nodes_map, anchors, first, dict(zip(rep_inputs, bound)), replacement_gm,
                        rep_outputs, gm)
        replaced.update(zip(anchors, outs))
        matches.append(Match(anchors[0], nodes_map))
    if matches:
        gm.recompile()
        graph.lint()
    return matches


def _rewrite(graph: Graph, nodes_map: dict[Node, Node], anchors: list[Node], first: Node, val_map: dict[Node, Any],
             replacement_gm: GraphModule, rep_outputs: list[Node], gm: GraphModule) -> list[Any]:
    """Insert the replacement before ``first``, reroute the anchors' users, erase the matched nodes."""
    trace = first.meta.get("stack_trace")
    with graph.inserting_before(first):
        for node in replacement_gm.graph.nodes:
            if node.op in ("placeholder", "output"):
                continue
            if node.op == "get_attr":
                attr = f"_replacement_constant{len(graph.find_nodes(op='get_attr'))}"
                while hasattr(gm, attr):
                    attr += "_"
                gm.set_attr(attr, replacement_gm.fetch_attr(node.target))
                new = graph.get_attr(attr)
                new.meta = dict(node.meta)
            else:
                new = graph.node_copy(node, lambda n: val_map[n])
                new.meta = {}
                if graph.traced:
                    new.meta["val"] = _compute_val(new)
            if trace is not None:
                new.meta["stack_trace"] = trace
            for key in ("nn_module_stack", "user_fn"):  # the replacement sits where the match was
                if key in first.meta:
                    new.meta[key] = first.meta[key]
            val_map[node] = new
    outs = [val_map[out] for out in rep_outputs]
    for anchor, out in zip(anchors, outs, strict=True):
        anchor.replace_all_uses_with(out)
    body = sorted({g for p, g in nodes_map.items() if p.op != "placeholder"}, key=lambda n: n._sort_key, reverse=True)
    for node in body:
        if not node.users:
            graph.erase_node(node)
    return outs
