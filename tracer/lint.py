"""``Graph.lint()``: every invariant of the graph IR, checked in one pass and explained.

In the spirit of autodidax's ``typecheck_jaxpr``: the rules are stated once (``LINT_RULES``,
the grammar in graph.py's docstring) and a broken one raises ``GraphLintError`` naming the
rule, the node, the fix, and printing the graph with the node marked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dispatcher.tensor import Tensor

from .names import _is_dunder, is_valid_name
from .node import _ATOMS, OPCODES, Node

if TYPE_CHECKING:  # annotations only: graph.py imports this module
    from .graph import Graph

__all__ = ["GraphLintError", "LINT_RULES", "lint_graph"]


class GraphLintError(RuntimeError):
    """``Graph.lint()`` found a broken invariant; the message names the rule, the node, the fix."""


# ---------------------------------------------------------------------------------------
# lint
# ---------------------------------------------------------------------------------------

#: rule id -> the invariant, stated once (quoted in every lint error for that rule)
LINT_RULES = {
    "owner": "every node in the list, and every node its args refer to, belongs to this graph and is not erased",
    "links": "the node list is well formed: n.next.prev is n, positions increase, len(graph.nodes) counts it "
             "and the find_nodes index lists exactly the live nodes",
    "op": "op is one of placeholder, get_attr, call_function, call_method, call_module, output, and the "
          "target has the type that op needs",
    "names": "node names are unique, valid Python identifiers and not keywords",
    "topo": "every node an argument refers to comes earlier in the graph (define before use)",
    "users": "a.users holds b exactly when b's args or kwargs refer to a",
    "output": "there is exactly one output node, it is the last node, and its args are (result,)",
    "inputs": "placeholders come before every other node",
    "attrs": "get_attr and call_module targets exist on the owning module",
    "consts": "args hold no Tensor objects inline (a tensor constant must be a module attribute read by get_attr)",
    "meta": 'in a traced graph every call_function node, and every placeholder or get_attr node that is used, '
            'has meta["val"] (a placeholder for a Python scalar baked into the ops may lack it, as in PyTorch)',
}

_WINDOW = 12  # graph lines shown on each side of the offending node in large graphs


def _scan_args(arg: Any, found: dict[Node, None]) -> bool:
    """Record the Nodes inside ``arg`` in ``found``; True if a Tensor object sits inline."""
    cls = type(arg)
    if cls is Node:
        found[arg] = None
        return False
    if cls in _ATOMS:
        return False
    if isinstance(arg, (tuple, list)):
        has_tensor = False
        for a in arg:
            c = type(a)
            if c is Node:
                found[a] = None
            elif c not in _ATOMS and _scan_args(a, found):
                has_tensor = True
        return has_tensor
    if isinstance(arg, dict):
        has_tensor = False
        for v in arg.values():
            if _scan_args(v, found):
                has_tensor = True
        return has_tensor
    if cls is slice:
        return any([_scan_args(arg.start, found), _scan_args(arg.stop, found), _scan_args(arg.step, found)])
    return isinstance(arg, Tensor)


def _safe_format(node: Node) -> str:
    try:
        return node.format_node()
    except Exception as exc:  # a node broken enough not to print still gets reported
        return f"%{node.name!s} : <unprintable: {type(exc).__name__}: {exc}>"


class _Linter:
    """One pass over the graph checking LINT_RULES; ``fail`` builds the explanation."""

    def __init__(self, graph: Graph, check_meta: bool) -> None:
        self.graph = graph
        self.check_meta = check_meta
        self.position: dict[Node, int] = {}  # live node -> index in the list

    def fail(self, rule: str, node: Node | None, problem: str, fix: str) -> None:
        lines = [f"Graph.lint: rule [{rule}] is broken" + (f" at node `{node.name}`:" if node is not None else ":"),
                 f"  problem: {problem}",
                 f"  rule:    {LINT_RULES[rule]}",
                 f"  fix:     {fix}"]
        if node is not None:
            lines.append(f"  node:    {_safe_format(node)}")
        lines.append("graph (>>> marks the node):" if node is not None else "graph:")
        lines.extend(self._graph_excerpt(node))
        raise GraphLintError("\n".join(lines))

    def _graph_excerpt(self, marked: Node | None) -> list[str]:
        root = self.graph._root
        out: list[str] = []
        cur, steps, limit = root._next, 0, self.graph._len + 2
        mark_at = None
        while cur is not root and steps < limit:
            if cur is marked:
                mark_at = len(out)
            out.append((">>>     " if cur is marked else "        ") + _safe_format(cur))
            cur, steps = cur._next, steps + 1
        if len(out) > 2 * _WINDOW + 1:
            center = mark_at if mark_at is not None else len(out) - 1
            lo, hi = max(0, center - _WINDOW), min(len(out), center + _WINDOW + 1)
            out = ([f"        ... {lo} nodes above ..."] if lo else []) + out[lo:hi] + \
                  ([f"        ... {len(out) - hi} nodes below ..."] if hi < len(out) else [])
        return ["    graph():"] + out

    def run(self) -> None:
        graph, root = self.graph, self.graph._root
        names: dict[str, Node] = {}
        prev, cur, count = root, root._next, 0
        output_seen: Node | None = None
        body_seen: Node | None = None
        while cur is not root:
            count += 1
            if count > graph._len + 1:
                self.fail("links", None, f"walking the list visits more than the {graph._len} nodes the graph "
                          "counts (a cycle, or nodes linked in without create_node)",
                          "create and move nodes only with Graph.create_node / node.prepend / node.append")
            if cur._prev is not prev:
                self.fail("links", cur, f"`{cur.name}`.prev is not the node before it", "do not assign _prev/_next "
                          "directly; move nodes with node.prepend(x) / node.append(x)")
            if cur.graph is not graph:
                self.fail("owner", cur, f"`{cur.name}` belongs to another graph",
                          "copy nodes between graphs with graph.node_copy(node, arg_transform)")
            if cur._erased:
                self.fail("owner", cur, f"`{cur.name}` was erased but is still linked into the list",
                          "erase nodes only with graph.erase_node(node)")
            if prev is not root and not prev._sort_key < cur._sort_key:
                self.fail("links", cur, "position keys do not increase along the list",
                          "move nodes only with node.prepend(x) / node.append(x)")
            if output_seen is not None:
                self.fail("output", cur, f"`{cur.name}` comes after the output node `{output_seen.name}`",
                          "erase it, or move it before the output (output_node.prepend(node)); create new nodes "
                          "inside graph.inserting_before(graph.output_node())")
            self._check_node(cur, names)
            if cur.op == "placeholder":
                if body_seen is not None:
                    self.fail("inputs", cur, f"placeholder `{cur.name}` comes after `{body_seen.name}`",
                              "create placeholders first, or move it: first_node.prepend(placeholder)")
            elif body_seen is None:
                body_seen = cur
            if cur.op == "output":
                output_seen = cur
            self.position[cur] = count
            prev, cur = cur, cur._next
        if count != graph._len:
            self.fail("links", None, f"the list holds {count} nodes but the graph counts {graph._len}",
                      "add and remove nodes only with create_node / erase_node")
        indexed = sum(len(bucket) for bucket in graph._by_op.values())
        if indexed != count:
            self.fail("links", None, f"the find_nodes index lists {indexed} nodes, the graph holds {count}",
                      "change a node's op only by creating a new node and replacing the old one")
        if output_seen is None:
            self.fail("output", None, "the graph has no output node",
                      "finish the graph with graph.output(result)")
        # users entries pointing at nodes that are gone (checked after positions are known)
        for node in self.position:
            for user in node.users:
                if user not in self.position:
                    self.fail("users", node, f"`{node.name}`.users lists `{user.name}`, which is not a live "
                              "node of this graph", "erase nodes only with graph.erase_node, which updates users")

    def _check_node(self, node: Node, names: dict[str, Node]) -> None:
        graph = self.graph
        op, target, name = node.op, node._target, node.name
        # [op]
        if op not in OPCODES:
            self.fail("op", node, f"unknown op {op!r}", f"use one of {sorted(OPCODES)}")
        if op == "call_function":
            if not callable(target):
                self.fail("op", node, f"call_function target {target!r} is not callable",
                          "call_function targets are callables such as aten.add.Tensor or operator.getitem")
        elif op == "output":
            if target != "output" or len(node._args) != 1 or node._kwargs:
                self.fail("output", node, "the output node must be output[target='output'] with args == (result,)",
                          "create it with graph.output(result)")
        elif not isinstance(target, str) or not target:
            self.fail("op", node, f"{op} target {target!r} must be a non-empty str",
                      "placeholders take the input's name, get_attr/call_module a dotted attribute path, "
                      "call_method the method name")
        elif op in ("get_attr", "call_module") and not all(is_valid_name(p) and not _is_dunder(p)
                                                          for p in target.split(".")):
            self.fail("op", node, f"{op} target {target!r} is not a dotted path of identifiers",
                      "name attributes with identifiers (no spaces, quotes, keywords or __dunder__ parts)")
        if op == "call_method" and not node._args:
            self.fail("op", node, "call_method needs the object as args[0]", "pass the object as the first arg")
        # [names]
        if not is_valid_name(name):
            self.fail("names", node, f"{name!r} is not a valid Python identifier",
                      "rename with node._rename(candidate), which sanitizes and uniquifies the name")
        other = names.get(name)
        if other is not None:
            self.fail("names", node, f"the name `{name}` is also used by an earlier node",
                      "rename with node._rename(candidate) instead of assigning node.name")
        names[name] = node
        # [users] and [topo]: args against the recorded inputs
        found: dict[Node, None] = {}
        has_tensor = _scan_args(node._args, found)
        if node._kwargs and _scan_args(node._kwargs, found):
            has_tensor = True
        inputs = node._input_nodes
        if len(found) != len(inputs) or not all(n in found for n in inputs):
            self.fail("users", node, f"args/kwargs refer to {sorted(n.name for n in found)} but the node records "
                      f"inputs {sorted(n.name for n in node._input_nodes)} (args were changed in place?)",
                      "assign new args (node.args = ..., node.update_arg, node.update_kwarg); never mutate them")
        for inp in node._input_nodes:
            if inp.graph is not graph or inp._erased:
                where = "was erased" if inp._erased else "belongs to another graph"
                self.fail("owner", node, f"`{name}` uses `{inp.name}`, which {where}",
                          "replace the use first: old.replace_all_uses_with(new), then erase `old`; copy nodes "
                          "across graphs with node_copy/graph_copy")
            if inp not in self.position:
                if inp is node:
                    problem = f"`{name}` uses itself"
                    fix = ("if this came from x.replace_all_uses_with(y) where y uses x, pass "
                           "delete_user_cb=lambda user: user is not y")
                else:
                    problem = f"`{name}` uses `{inp.name}`, which is defined later in the graph"
                    fix = (f"move `{inp.name}` earlier ({name}.prepend({inp.name})) or create new nodes inside "
                           f"graph.inserting_before({name})")
                self.fail("topo", node, problem, fix)
            if node not in inp.users:
                self.fail("users", node, f"`{name}` uses `{inp.name}` but is missing from {inp.name}.users",
                          "set args through node.args / update_arg / replace_input_with, which keep users right")
        for user in node.users:
            if node not in user._input_nodes:
                self.fail("users", node, f"`{name}`.users lists `{user.name}`, whose args do not refer to `{name}`",
                          "change args only through node.args / update_arg / replace_input_with")
        # [consts]
        if has_tensor:
            self.fail("consts", node, f"`{name}` holds a Tensor object inline in its args",
                      "store the tensor on the module (GraphModule.set_attr('_tensor_constant0', t)) and read it "
                      "with graph.get_attr('_tensor_constant0')")
        # [attrs]
        module = graph.owning_module
        if module is not None and op in ("get_attr", "call_module"):
            value = module
            for part in target.split("."):
                if not hasattr(value, part):
                    self.fail("attrs", node, f"the owning module has no attribute {target!r}",
                              f"set it first: gm.set_attr({target!r}, value)")
                value = getattr(value, part)
            if op == "call_module" and not callable(value):
                self.fail("attrs", node, f"call_module target {target!r} is not callable", "point it at a callable")
        # [meta]
        if (self.check_meta and "val" not in node.meta
                and (op == "call_function" or (op in ("placeholder", "get_attr") and node.users))):
            self.fail("meta", node, f'`{name}` has no meta["val"]',
                      'record the value when creating the node (node.meta["val"] = fake_or_real_value), or lint '
                      "with check_meta=False for a graph that was not traced")
        # [links] index
        if node not in graph._by_op.get(op, ()) or node not in graph._by_target.get((op, target), ()):
            self.fail("links", node, f"`{name}` is missing from the find_nodes index",
                      "change op/target only through node.target (which reindexes), never by assigning slots")


def lint_graph(graph: Any, check_meta: bool) -> None:
    """Check ``graph`` against LINT_RULES; raise GraphLintError explaining the first rule broken."""
    _Linter(graph, check_meta).run()
