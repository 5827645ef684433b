"""What a graph node does besides computing its value: mutation, aliasing, randomness, side effects.

The shared classification behind dead-code elimination, CSE and functionalization. Everything is read
from the operator's schema and tags, as PyTorch does (torch/_library/utils.py ``is_impure``,
torch/fx/node.py ``Node.is_impure`` and ``_side_effectful_functions``, the alias annotations of
aten/src/ATen/core/alias_info.h):

* ``mutated_arguments(op)``: the schema arguments the op writes (``Tensor(a!) self``, ``out``);
  ``is_mutable(op)`` is true when there is one (in-place and ``out=`` ops).
* ``returned_aliases(op)``: for each return, the argument whose memory it shares (``view``,
  ``transpose``, ``split``'s list, ``add_``'s ``self``), or None for a fresh tensor.
* ``is_random(op)``: the op draws from the random generator (tag ``nondeterministic_seeded``).
* ``has_side_effects(fn)``: a call that changes state outside the tensors it returns
  (``_set_grad_enabled``, ``operator.setitem``, asserts); ``register_side_effect(fn)`` adds one
  (torch.fx's ``has_side_effect``).
* ``is_impure(node, impure_random=True)``: ``Node.is_impure`` of torch 2.13: placeholders, outputs,
  mutable ops, side-effecting calls and (by default) random ops.
* ``node_arguments(node)``: the node's args and kwargs bound to schema argument names.
* ``alias_roots(graph)``: for every node, the node whose fresh value it is a view of (itself when it
  produced new memory), computed in one pass over the graph.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from dispatcher.autograd.grad_mode import _set_grad_enabled
from dispatcher.op_overload import OpOverload
from tracer import Graph, Node

__all__ = [
    "alias_roots",
    "has_side_effects",
    "is_impure",
    "is_mutable",
    "is_random",
    "mutated_arguments",
    "node_arguments",
    "register_side_effect",
    "returned_aliases",
]

#: calls that change state other than their outputs (torch.fx.node._side_effectful_functions, the part
#: that exists here); extended with register_side_effect
_SIDE_EFFECTFUL: set[Any] = {_set_grad_enabled, operator.setitem}
#: aten ops PyTorch lists as side-effectful (asserts, metadata checks); added when this build defines them
_SIDE_EFFECTFUL_ATEN = ("_assert_async.msg", "_assert_async.default", "_assert_scalar.default",
                        "_assert_tensor_metadata.default", "sym_constrain_range.default",
                        "sym_constrain_range_for_size.default")


def _add_aten_side_effects() -> None:
    from dispatcher.op_overload import namespace

    aten = namespace("aten")
    for qualified in _SIDE_EFFECTFUL_ATEN:
        name, overload = qualified.split(".")
        try:
            op = getattr(getattr(aten, name), overload)
        except (AttributeError, RuntimeError):
            continue
        if op._schema is not None:
            _SIDE_EFFECTFUL.add(op)


_add_aten_side_effects()


def register_side_effect(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``fn`` as side-effecting (DCE keeps it, CSE never merges it); usable as a decorator."""
    _SIDE_EFFECTFUL.add(fn)
    return fn


def has_side_effects(fn: Any) -> bool:
    """Does calling ``fn`` change state beyond its results (grad mode, asserts, ``setitem``)?"""
    try:
        return fn in _SIDE_EFFECTFUL
    except TypeError:  # unhashable callable
        return False


# --- schema-derived facts (cached per operator) ---------------------------------------------------------------

_SCHEMA_FACTS: dict[OpOverload, tuple[tuple[str, ...], tuple[str | None, ...]]] = {}


def _facts(op: OpOverload) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    """(names of written arguments, per return the name of the argument it aliases or None)."""
    facts = _SCHEMA_FACTS.get(op)
    if facts is None:
        schema = op._schema
        if schema is None:
            raise RuntimeError(f"{op}: the operator has no schema (it was never defined), so its effects are unknown")
        written = tuple(a.name for a in schema.arguments if _writes(a.alias_info))
        aliases: list[str | None] = []
        for ret in schema.returns:
            sets = _alias_sets(ret.alias_info)
            source = None
            if sets:
                for a in schema.arguments:
                    if sets & _alias_sets(a.alias_info):
                        source = a.name
                        break
            aliases.append(source)
        facts = _SCHEMA_FACTS[op] = (written, tuple(aliases))
    return facts


def _writes(info: Any) -> bool:
    return info is not None and (info.is_write or any(_writes(c) for c in info.contained))


def _alias_sets(info: Any) -> set[str]:
    """The alias set names of an annotation (a list's element annotation included), wildcards excluded."""
    if info is None:
        return set()
    names = {s for s in info.before_set if s != "*"}
    for inner in info.contained:
        names |= _alias_sets(inner)
    return names


def mutated_arguments(op: Any) -> tuple[str, ...]:
    """Names of the schema arguments ``op`` writes to (``("self",)`` for ``add_``, ``("out",)`` for out= ops)."""
    return _facts(op)[0] if isinstance(op, OpOverload) else ()


def is_mutable(op: Any) -> bool:
    """Does ``op`` write to one of its arguments (schema alias annotation with ``!``)?"""
    return bool(mutated_arguments(op))


def returned_aliases(op: Any) -> tuple[str | None, ...]:
    """Per return of ``op``: the name of the argument whose memory it shares, or None (fresh memory)."""
    return _facts(op)[1] if isinstance(op, OpOverload) else ()


def is_random(op: Any) -> bool:
    """Does ``op`` draw from the random number generator (tag ``nondeterministic_seeded``)?"""
    return isinstance(op, OpOverload) and "nondeterministic_seeded" in op.tags


def node_arguments(node: Node) -> dict[str, Any]:
    """The node's args and kwargs by schema argument name (OpOverload targets; others: ``{}``)."""
    op = node.target
    if node.op != "call_function" or not isinstance(op, OpOverload) or op._schema is None:
        return {}
    positional = [a.name for a in op._schema.arguments if not a.kwarg_only]
    bound = dict(zip(positional, node.args, strict=False))
    bound.update(node.kwargs)
    return bound


def is_impure(node: Node, impure_random: bool = True) -> bool:
    """torch 2.13's ``Node.is_impure``: may this node be removed when nothing uses its value?

    Placeholders and the output are impure; a ``call_function`` is impure when its target writes to an
    argument, has side effects, or (``impure_random``) draws random numbers. ``call_module`` nodes
    are impure when the module says so (``_is_impure``); other nodes are pure.
    """
    if node.op in ("placeholder", "output"):
        return True
    if node.op == "call_function":
        target = node.target
        return is_mutable(target) or has_side_effects(target) or (impure_random and is_random(target))
    if node.op == "call_module":
        owner = node.graph.owning_module
        return bool(getattr(owner.fetch_attr(node.target), "_is_impure", False)) if owner is not None else False
    return False


def alias_roots(graph: Graph) -> dict[Node, Node]:
    """For every node, the node that created the memory its value lives in (itself for fresh values).

    A view op's node (``view``, ``t``, ``split`` ...) and an in-place op's node (``add_`` returns its
    ``self``) share their root with the argument they alias; ``getitem`` of a list of views shares the
    list's root. Placeholders and get_attr nodes are roots. One pass in graph order.
    """
    roots: dict[Node, Node] = {}
    for node in graph.nodes:
        root = node
        if node.op == "call_function":
            target = node.target
            if target is operator.getitem:
                src = node.args[0] if node.args else None
                if type(src) is Node and roots.get(src, src) is not src:
                    root = roots[src]  # an element of a list of views
            else:
                aliases = returned_aliases(target)
                source = next((a for a in aliases if a is not None), None)
                if source is not None:
                    value = node_arguments(node).get(source)
                    if type(value) is Node:
                        root = roots.get(value, value)
                    elif isinstance(value, (list, tuple)):  # e.g. a Tensor(a!)[] argument: its first element
                        first = next((v for v in value if type(v) is Node), None)
                        if first is not None:
                            root = roots.get(first, first)
        roots[node] = root
    return roots
