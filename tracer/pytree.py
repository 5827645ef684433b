"""A small pytree library: nested tuples / lists / dicts / namedtuples with leaves.

Corresponds to torch/utils/_pytree.py (``tree_flatten``, ``tree_unflatten``, ``TreeSpec``)
and torch/fx/_pytree.py (``tree_flatten_spec``). make_fx flattens a function's inputs and
outputs with it, and code generated for graphs with nested inputs or outputs calls
``fx_pytree.tree_flatten_spec`` / ``pytree.tree_unflatten``; both names refer to this module.

A *node* is a container whose exact type is registered (tuple, list, dict, OrderedDict,
defaultdict) or a namedtuple (a tuple subclass with ``_fields``); everything else,
including ``None`` and subclasses such as ``Size``, is a *leaf*, as in PyTorch 2.13.
Dicts keep their insertion order, so ``{'a': 1, 'b': 2}`` and ``{'b': 2, 'a': 1}`` have
different specs (PyTorch's rule too).
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

__all__ = [
    "LeafSpec",
    "TreeSpec",
    "arg_tree_leaves",
    "register_pytree_node",
    "tree_flatten",
    "tree_flatten_spec",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
]


class _NodeDef(NamedTuple):
    """How one container type splits into (children, context) and is rebuilt from them."""

    flatten: Callable[[Any], tuple[list[Any], Any]]
    unflatten: Callable[[list[Any], Any], Any]
    type_name: str  #: what the spec's repr calls this type ("tuple", "dict", ...)


def _flatten_dict(d: dict) -> tuple[list[Any], Any]:
    return list(d.values()), list(d.keys())


def _flatten_defaultdict(d: defaultdict) -> tuple[list[Any], Any]:
    return list(d.values()), [d.default_factory, list(d.keys())]


def _unflatten_defaultdict(values: list[Any], context: Any) -> defaultdict:
    factory, keys = context
    return defaultdict(factory, zip(keys, values))


#: exact type -> how to flatten it. Extended with ``register_pytree_node``.
_NODE_TYPES: dict[type, _NodeDef] = {
    tuple: _NodeDef(lambda t: (list(t), None), lambda values, _ctx: tuple(values), "tuple"),
    list: _NodeDef(lambda v: (list(v), None), lambda values, _ctx: list(values), "list"),
    dict: _NodeDef(_flatten_dict, lambda values, keys: dict(zip(keys, values)), "dict"),
    OrderedDict: _NodeDef(_flatten_dict, lambda values, keys: OrderedDict(zip(keys, values)), "OrderedDict"),
    defaultdict: _NodeDef(_flatten_defaultdict, _unflatten_defaultdict, "defaultdict"),
}

_NAMEDTUPLE = _NodeDef(lambda t: (list(t), type(t)), lambda values, cls: cls(*values), "namedtuple")


def _is_namedtuple_type(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def _node_def(obj: Any) -> _NodeDef | None:
    """The node definition for ``obj``'s type, or None when ``obj`` is a leaf."""
    cls = type(obj)
    node_def = _NODE_TYPES.get(cls)
    if node_def is None and _is_namedtuple_type(cls):
        return _NAMEDTUPLE
    return node_def


def register_pytree_node(cls: type, flatten_fn: Callable[[Any], tuple[list[Any], Any]],
                         unflatten_fn: Callable[[Iterable[Any], Any], Any], *, type_name: str | None = None) -> None:
    """Make ``cls`` a pytree node: ``flatten_fn(x) -> (children, context)``, ``unflatten_fn(children, context)``."""
    if cls in _NODE_TYPES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _NODE_TYPES[cls] = _NodeDef(flatten_fn, lambda values, ctx: unflatten_fn(values, ctx), type_name or cls.__name__)


class TreeSpec:
    """The structure of a pytree: container type, context (dict keys, namedtuple class) and child specs.

    A leaf's spec is ``LeafSpec()`` (printed ``*``). ``num_leaves`` counts the leaves below.
    """

    __slots__ = ("type", "context", "_children", "num_leaves", "_node_def")

    def __init__(self, type: type | None, context: Any, children_specs: list[TreeSpec]) -> None:  # noqa: A002
        self.type = type  #: the container type (None for a leaf)
        self.context = context  #: dict keys, the namedtuple class, ... (None for tuple/list)
        self._children = list(children_specs)  #: one spec per child, in flattening order
        self.num_leaves = 1 if type is None else sum(c.num_leaves for c in self._children)
        self._node_def: _NodeDef | None = None
        if type is not None:
            self._node_def = _NODE_TYPES.get(type) or (_NAMEDTUPLE if _is_namedtuple_type(type) else None)
            if self._node_def is None:
                raise TypeError(f"{type} is not a registered pytree node type")

    # --- queries -------------------------------------------------------------------
    def is_leaf(self) -> bool:
        return self.type is None

    @property
    def num_children(self) -> int:
        return len(self._children)

    @property
    def num_nodes(self) -> int:
        return 1 + sum(c.num_nodes for c in self._children)

    def children(self) -> list[TreeSpec]:
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type is other.type and self.context == other.context
                and self._children == other._children)

    def __hash__(self) -> int:
        return hash((self.type, repr(self.context), tuple(self._children)))

    # --- unflatten -----------------------------------------------------------------
    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Rebuild the tree with ``leaves`` in place of this spec's leaves."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
                f"pytree that holds {self.num_leaves} items ({self})."
            )
        return self._build(iter(leaves))

    def _build(self, leaves: Any) -> Any:
        if self.type is None:
            return next(leaves)
        return self._node_def.unflatten([c._build(leaves) for c in self._children], self.context)

    # --- printing (PyTorch's layout: one child per line, two spaces per level) ------
    def __repr__(self) -> str:
        return self._repr(0)

    def _repr(self, indent: int) -> str:
        if self.type is None:
            return "*"
        type_name = self._node_def.type_name
        inner = indent + 2
        parts = [c._repr(inner) for c in self._children]
        children = (",\n" + " " * inner).join(parts)
        return f"TreeSpec({type_name}, {self.context!r}, [{children}])"


class LeafSpec(TreeSpec):
    """The spec of a leaf (``*``)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(None, None, [])


_LEAF = LeafSpec()


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    """``(leaves, spec)``: the leaves in depth-first, left-to-right order and the structure."""
    leaves: list[Any] = []
    spec = _flatten_into(tree, leaves)
    return leaves, spec


def _flatten_into(tree: Any, leaves: list[Any]) -> TreeSpec:
    node_def = _node_def(tree)
    if node_def is None:
        leaves.append(tree)
        return _LEAF
    children, context = node_def.flatten(tree)
    return TreeSpec(type(tree), context, [_flatten_into(c, leaves) for c in children])


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> Any:
    """The inverse of ``tree_flatten``."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got "
            f"item of type {type(treespec)}."
        )
    return treespec.unflatten(leaves)


def tree_leaves(tree: Any) -> list[Any]:
    return tree_flatten(tree)[0]


def tree_structure(tree: Any) -> TreeSpec:
    return tree_flatten(tree)[1]


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    """Apply ``fn`` to every leaf, keeping the structure."""
    leaves, spec = tree_flatten(tree)
    return spec.unflatten([fn(leaf) for leaf in leaves])


def arg_tree_leaves(*args: Any, **kwargs: Any) -> list[Any]:
    """The leaves of ``(args, kwargs)`` (kwargs in their order)."""
    leaves = tree_leaves(list(args))
    if kwargs:
        leaves += tree_leaves(kwargs)
    return leaves


def tree_flatten_spec(tree: Any, spec: TreeSpec) -> list[Any]:
    """The leaves of ``tree`` read *through* ``spec`` (used by generated code).

    Unlike ``tree_flatten``, the spec drives: dict children are looked up by the spec's keys
    (extra keys are ignored, key order does not matter) and a list may stand for a tuple,
    so ``forward(self, x, d)`` can pass ``[x, d]`` for an input spec recorded as a tuple.
    Raises TypeError / ValueError naming the path when the structure does not fit.
    """
    out: list[Any] = []
    _read_through(tree, spec, out, "inputs")
    return out


def _read_through(tree: Any, spec: TreeSpec, out: list[Any], path: str) -> None:
    if spec.type is None:
        out.append(tree)
        return
    node_def = spec._node_def
    if node_def.type_name in ("dict", "OrderedDict", "defaultdict"):
        keys = spec.context if node_def.type_name != "defaultdict" else spec.context[1]
        if not isinstance(tree, dict):
            raise TypeError(f"{path}: expected a dict with keys {list(keys)}, got {type(tree).__name__}")
        for key, child in zip(keys, spec._children):
            if key not in tree:
                raise ValueError(f"{path}: missing key {key!r} (expected keys {list(keys)})")
            _read_through(tree[key], child, out, f"{path}[{key!r}]")
        return
    if node_def.type_name in ("tuple", "list", "namedtuple"):
        if not isinstance(tree, (tuple, list)):
            raise TypeError(f"{path}: expected a {node_def.type_name} of {spec.num_children} items, "
                            f"got {type(tree).__name__}")
        if len(tree) != spec.num_children:
            raise ValueError(f"{path}: expected {spec.num_children} items, got {len(tree)}")
        for i, (item, child) in enumerate(zip(tree, spec._children)):
            _read_through(item, child, out, f"{path}[{i}]")
        return
    # a user-registered node type: flatten it and check the structure matches
    if type(tree) is not spec.type:
        raise TypeError(f"{path}: expected {spec.type.__name__}, got {type(tree).__name__}")
    children, context = node_def.flatten(tree)
    if context != spec.context or len(children) != spec.num_children:
        raise ValueError(f"{path}: structure of {spec.type.__name__} does not match the spec")
    for i, (item, child) in enumerate(zip(children, spec._children)):
        _read_through(item, child, out, f"{path}[{i}]")
