"""What the numpy backend's code generator reads off graph nodes.

``flat_nodes`` (the Nodes an argument tree holds, in order), ``attr_of`` (the object a ``get_attr`` target names)
and ``mutates`` (whether a node's op writes into an argument, by its schema's ``(a!)`` annotations). Used by the
code generator (numpy_codegen.py), its check run (numpy_check.py) and its buffer planning (numpy_buffers.py).

PyTorch counterpart: ``torch.fx.node.map_arg`` / ``Node.all_input_nodes``, ``GraphModule.get_submodule`` /
``fetch_attr`` and ``torch._inductor``'s mutation checks on the schema (``Argument.alias_info.is_write``).
"""

from __future__ import annotations

from typing import Any

from ..node import Node

__all__ = ["attr_of", "flat_nodes", "mutates"]


def mutates(node: Node) -> bool:
    """Does the node's op write into one of its arguments (an ``(a!)`` annotation in its schema)?"""
    schema = getattr(node.target, "_schema", None)
    return schema is not None and any(getattr(a, "is_write", False) for a in schema.arguments)


def flat_nodes(tree: Any) -> list[Node]:
    """The Nodes in ``tree`` (lists, tuples, dict values), depth first."""
    out: list[Node] = []

    def walk(x: Any) -> None:
        if isinstance(x, Node):
            out.append(x)
        elif isinstance(x, (list, tuple)):
            for e in x:
                walk(e)
        elif isinstance(x, dict):
            for e in x.values():
                walk(e)

    walk(tree)
    return out


def attr_of(gm: Any, target: str) -> Any:
    """The object ``gm.<target>`` (a dotted path) names."""
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj

