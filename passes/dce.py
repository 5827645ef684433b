"""``dead_code_elimination(gm)``: remove nodes whose values nobody uses and whose call has no effect.

Corresponds to torch/fx/graph.py ``Graph.eliminate_dead_code`` with ``Node.is_impure`` (torch 2.13).
One walk from the output backwards: a node with no users that is pure is erased, which may leave its
inputs without users, and they are met later in the same walk. Kept (see side_effects.py):

* placeholders and the output;
* ops that write to an argument (``add_``, ``copy_``, ``out=`` ops: a ``!`` in the schema);
* side-effecting calls (``_set_grad_enabled``, ``operator.setitem``, asserts, ``register_side_effect``);
* random ops (tag ``nondeterministic_seeded``), as torch 2.13 does outside a compile context:
  removing one would change what every later random op draws. ``impure_random=False`` removes them;
* (beyond torch) ops whose output is an alias of a graph input (a view of an input, or an in-place
  op's result). ``keep_input_aliases=False`` removes unused ones, as torch does.

Linear in the graph size. ``is_impure_node`` replaces the built-in rule, as in torch.
"""

from __future__ import annotations

from collections.abc import Callable

from tracer import Graph, GraphModule, Node

from .side_effects import alias_roots, is_impure

__all__ = ["dead_code_elimination", "eliminate_dead_code"]


def eliminate_dead_code(graph: Graph, *, impure_random: bool = True, keep_input_aliases: bool = True,
                        is_impure_node: Callable[[Node], bool] | None = None) -> int:
    """Erase the dead nodes of ``graph`` in place; return how many were erased."""
    if is_impure_node is None:
        keep_alias: set[Node] = set()
        if keep_input_aliases:
            roots = alias_roots(graph)
            keep_alias = {n for n, r in roots.items() if r is not n and r.op == "placeholder"}

        def is_impure_node(node: Node) -> bool:
            return is_impure(node, impure_random) or node in keep_alias

    removed = 0
    for node in reversed(graph.nodes):
        if not node.users and not is_impure_node(node):
            graph.erase_node(node)
            removed += 1
    return removed


def dead_code_elimination(gm: GraphModule, *, impure_random: bool = True, keep_input_aliases: bool = True,
                          is_impure_node: Callable[[Node], bool] | None = None) -> GraphModule:
    """Remove ``gm``'s dead nodes in place (module docstring), recompile, and return ``gm``."""
    if not isinstance(gm, GraphModule):
        raise TypeError(f"dead_code_elimination: expected a GraphModule, got {type(gm).__name__}")
    if eliminate_dead_code(gm.graph, impure_random=impure_random, keep_input_aliases=keep_input_aliases,
                           is_impure_node=is_impure_node):
        gm.graph = gm.graph  # the code is regenerated on first use (GraphModule recompiles lazily)
    return gm
