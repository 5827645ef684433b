"""The graph IR: ``Graph``, a doubly linked list of ``Node``s, and its grammar.

Corresponds to torch/fx/graph.py (code generation lives in graph_module.py, ``Node`` in
node.py, names in names.py, the checker in lint.py; all re-exported here). Node creation is
the hot path of make_fx, so a node is a ``__slots__`` object, naming is O(1) (a per-base
counter, no scans), append and erase are O(1) pointer updates and ``find_nodes`` reads an
index kept up to date on insert / erase / retarget.

The IR grammar, checked by ``Graph.lint()`` (each rule has an id used in lint's messages):

    graph     := placeholder* body* output
    node      := name = op[target](args, kwargs)      with op one of OPCODES
    placeholder  target: str (the input's name); args: () or (default,)
    get_attr     target: dotted attribute path on the owning module ("_tensor_constant0", "lin.weight")
    call_function target: a callable (an OpOverload such as aten.add.Tensor, operator.getitem, ...)
    call_method  target: a method name, args[0] is the object it is called on
    call_module  target: dotted path of a callable attribute of the owning module
    output       target: "output"; args == (result,), result a pytree of nodes and constants

    [owner]   every node in the list, and every node its args refer to, belongs to this graph
    [links]   the list is well formed (n.next.prev is n) and len(graph.nodes) counts it
    [op]      op is one of OPCODES and target has the type the op needs
    [names]   names are unique, valid Python identifiers, not keywords
    [topo]    every node an argument refers to comes earlier in the list (def before use)
    [users]   a.users holds b exactly when b's args refer to a
    [output]  exactly one output node, and it is the last node
    [inputs]  placeholders come before every other node
    [attrs]   get_attr / call_module targets exist on the owning module (when there is one)
    [consts]  no Tensor objects inline in args (they must be read with get_attr)
    [meta]    (traced graphs) every call_function node, and every used placeholder / get_attr, has meta["val"]

Differences from FX: ``inserting_after(n)`` keeps several new nodes in creation order (FX
inserts each one directly after ``n``, reversing them); an OpOverload target is named
after its packet (``add``, not ``add_tensor``), which is what make_fx asks FX for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from .lint import GraphLintError, lint_graph
from .names import Namespace, target_to_name
from .node import _EMPTY_KWARGS, OPCODES, Node, _key_between, map_aggregate, map_arg

__all__ = [
    "OPCODES",
    "Graph",
    "GraphLintError",
    "Namespace",
    "Node",
    "PyTreeInfo",
    "map_aggregate",
    "map_arg",
]


# ---------------------------------------------------------------------------------------
# Graph
# ---------------------------------------------------------------------------------------


class PyTreeInfo(NamedTuple):
    """How a graph's flat placeholders / output relate to the traced function's nested signature.

    With ``in_spec`` the generated ``forward`` takes ``orig_args`` and flattens them with
    ``fx_pytree.tree_flatten_spec``; with ``out_spec`` the output node holds the flat list
    of leaves and ``forward`` returns ``pytree.tree_unflatten(leaves, self._out_spec)``.
    """

    orig_args: list[str]  #: the traced function's parameter names
    in_spec: Any  #: TreeSpec of the (args) tuple, or None
    out_spec: Any  #: TreeSpec of the result, or None (the output node holds the structure itself)


class _NodeList:
    """``graph.nodes``: a live view; len() is O(1), iteration skips nodes erased meanwhile."""

    __slots__ = ("_graph", "_reverse")

    def __init__(self, graph: Graph, reverse: bool = False) -> None:
        self._graph = graph
        self._reverse = reverse

    def __len__(self) -> int:
        return self._graph._len

    def __iter__(self) -> Iterator[Node]:
        root = self._graph._root
        if self._reverse:
            cur = root._prev
            while cur is not root:
                if not cur._erased:
                    yield cur
                cur = cur._prev
        else:
            cur = root._next
            while cur is not root:
                if not cur._erased:
                    yield cur
                cur = cur._next

    def __reversed__(self) -> _NodeList:
        return _NodeList(self._graph, not self._reverse)

    def __bool__(self) -> bool:
        return self._graph._len > 0

    def __repr__(self) -> str:
        return f"<{len(self)} nodes: {', '.join(n.name for n in self)}>" if len(self) <= 20 else f"<{len(self)} nodes>"


_ANY = object()
_NO_DEFAULT = object()


class Graph:
    """A function as a list of Nodes (placeholders, operations, one output).

    The list is doubly linked around a root sentinel: appending, inserting and erasing are
    O(1), and iterating ``graph.nodes`` while erasing or inserting is safe (erased nodes
    are skipped, nodes inserted after the current position are visited).
    """

    def __init__(self) -> None:
        #: the sentinel closing the circular list (op "root"; never yielded by `nodes`)
        self._root = Node(self, "", "root", "", (), {})
        self._len = 0  #: number of live nodes
        self._namespace = Namespace()  #: hands out node names
        # where create_node puts new nodes: before `_insert_anchor`, or (`_insert_after`) after it
        self._insert_anchor: Node = self._root
        self._insert_after = False
        # find_nodes indexes: op -> nodes, (op, target) -> nodes (insertion-ordered dicts)
        self._by_op: dict[str, dict[Node, None]] = {op: {} for op in OPCODES}
        self._by_target: dict[tuple[str, Any], dict[Node, None]] = {}
        #: the GraphModule holding this graph's attributes (set by GraphModule), or None
        self.owning_module: Any = None
        #: nested-signature information for code generation (set by make_fx), or None
        self.pytree_info: PyTreeInfo | None = None
        #: True when the graph was traced: lint() then requires meta["val"] (see [meta])
        self.traced = False

    # --- the list ------------------------------------------------------------------------
    @property
    def nodes(self) -> _NodeList:
        """All live nodes in order (``reversed(graph.nodes)`` walks backwards)."""
        return _NodeList(self)

    def __len__(self) -> int:
        return self._len

    def _link_before(self, x: Node, anchor: Node) -> None:
        """Put ``x`` before ``anchor``; unlink it first when it is already in the list."""
        if x.graph is not self or anchor.graph is not self:
            raise RuntimeError(f"cannot move node {x.name} next to {anchor.name}: they belong to different graphs")
        if x is anchor:
            return
        if x._erased:
            raise RuntimeError(f"node {x.name} was erased from the graph; create a new node instead")
        if x._prev is not x:  # already linked: unlink (it stays in the indexes and the count)
            x._prev._next = x._next
            x._next._prev = x._prev
        prev = anchor._prev
        x._prev, x._next = prev, anchor
        prev._next = x
        anchor._prev = x
        x._sort_key = _key_between(prev._sort_key, anchor._sort_key)

    def _index(self, node: Node) -> None:
        self._by_op[node.op][node] = None
        try:
            bucket = self._by_target.get((node.op, node._target))
        except TypeError:
            raise TypeError(f"node {node.name}: target {node._target!r} is not hashable") from None
        if bucket is None:
            self._by_target[(node.op, node._target)] = {node: None}
        else:
            bucket[node] = None

    def _unindex(self, node: Node) -> None:
        self._by_op[node.op].pop(node, None)
        bucket = self._by_target.get((node.op, node._target))
        if bucket is not None:
            bucket.pop(node, None)
            if not bucket:
                del self._by_target[(node.op, node._target)]

    # --- creating nodes ------------------------------------------------------------------
    def create_node(self, op: str, target: Any, args: tuple | None = None, kwargs: dict | None = None,
                    name: str | None = None) -> Node:
        """Create a node at the current insert point (the end, unless inside inserting_before/after).

        ``name`` is a candidate: the node gets a unique valid identifier based on it (or on
        the target, see ``target_to_name``).
        """
        if op not in OPCODES:
            raise ValueError(f"create_node: op must be one of {sorted(OPCODES)}, got {op!r}")
        if args is not None and not isinstance(args, tuple):
            raise TypeError(f"create_node: args must be a tuple, got {type(args).__name__}")
        if kwargs is not None and not isinstance(kwargs, dict):
            raise TypeError(f"create_node: kwargs must be a dict, got {type(kwargs).__name__}")
        node_name = self._namespace.create_name(target_to_name(target) if name is None else name)
        node = Node(self, node_name, op, target, args or (), kwargs or _EMPTY_KWARGS)
        try:
            self._index(node)
        except TypeError:
            node._set_args_kwargs((), {})  # detach from its inputs' users again
            raise
        # _link_before(node, anchor) written out: a new node of this graph needs none of its checks
        anchor = self._insert_anchor
        if self._insert_after:
            self._insert_anchor = node
            anchor = anchor._next
        prev = anchor._prev
        node._prev, node._next = prev, anchor
        prev._next = node
        anchor._prev = node
        node._sort_key = _key_between(prev._sort_key, anchor._sort_key)
        self._len += 1
        return node

    def placeholder(self, name: str, default_value: Any = _NO_DEFAULT) -> Node:
        """An input of the function, named ``name`` (made unique and valid); optional default."""
        if not isinstance(name, str):
            raise TypeError(f"placeholder: the name must be a str, got {name!r}")
        args = () if default_value is _NO_DEFAULT else (default_value,)
        return self.create_node("placeholder", name, args, None, name=name)

    def get_attr(self, qualified_name: str, name: str | None = None) -> Node:
        """Read the owning module's attribute at dotted path ``qualified_name``."""
        if not isinstance(qualified_name, str):
            raise TypeError(f"get_attr: the target must be a dotted attribute path (str), got {qualified_name!r}")
        return self.create_node("get_attr", qualified_name, None, None, name=qualified_name if name is None else name)

    def call_function(self, the_function: Callable[..., Any], args: tuple | None = None,
                      kwargs: dict | None = None, name: str | None = None) -> Node:
        """Call ``the_function(*args, **kwargs)`` (an OpOverload, an operator function, ...)."""
        if not callable(the_function):
            raise TypeError(f"call_function: the target must be callable, got {the_function!r}")
        return self.create_node("call_function", the_function, args, kwargs, name)

    def call_method(self, method_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    name: str | None = None) -> Node:
        """Call ``args[0].<method_name>(*args[1:], **kwargs)``."""
        return self.create_node("call_method", method_name, args, kwargs, name)

    def call_module(self, module_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    name: str | None = None) -> Node:
        """Call the owning module's callable attribute at dotted path ``module_name``."""
        return self.create_node("call_module", module_name, args, kwargs, name)

    def output(self, result: Any) -> Node:
        """The function's result (a node, a constant or a pytree of them)."""
        return self.create_node("output", "output", (result,), None, name="output")

    def output_node(self) -> Node:
        """The output node (the last node)."""
        last = self._root._prev
        while last is not self._root and last._erased:
            last = last._prev
        if last is self._root or last.op != "output":
            raise RuntimeError("this graph has no output node at its end; add one with graph.output(result)")
        return last

    # --- insert point ---------------------------------------------------------------------
    @contextmanager
    def _insert_point(self, anchor: Node, after: bool) -> Iterator[None]:
        saved = self._insert_anchor, self._insert_after
        self._insert_anchor, self._insert_after = anchor, after
        try:
            yield
        finally:
            self._insert_anchor, self._insert_after = saved

    def inserting_before(self, node: Node | None = None) -> Any:
        """``with graph.inserting_before(n):`` new nodes go right before ``n`` (None: the start)."""
        if node is None:
            return self._insert_point(self._root, True)
        self._check_own(node, "inserting_before")
        return self._insert_point(node, False)

    def inserting_after(self, node: Node | None = None) -> Any:
        """``with graph.inserting_after(n):`` new nodes follow ``n``, in creation order (None: the end)."""
        if node is None:
            return self._insert_point(self._root, False)
        self._check_own(node, "inserting_after")
        return self._insert_point(node, True)

    def _check_own(self, node: Node, what: str) -> None:
        if node.graph is not self or node._erased:
            raise RuntimeError(f"{what}: node {node.name} is not a live node of this graph")

    # --- queries ----------------------------------------------------------------------------
    def find_nodes(self, *, op: str, target: Any = _ANY, sort: bool = True) -> list[Node]:
        """The nodes with this ``op`` (and ``target``), from an index: O(matches), in graph order."""
        if target is _ANY:
            found = list(self._by_op.get(op, ()))
        else:
            found = list(self._by_target.get((op, target), ()))
        if sort:
            found.sort(key=_sort_key_of)
        return found

    # --- erasing ----------------------------------------------------------------------------
    def erase_node(self, to_erase: Node) -> None:
        """Remove a node that nothing uses any more (O(1))."""
        if to_erase.graph is not self:
            raise RuntimeError(f"erase_node: node {to_erase.name} belongs to another graph")
        if to_erase._erased:
            raise RuntimeError(f"erase_node: node {to_erase.name} was already erased")
        if to_erase.users:
            users = ", ".join(u.name for u in to_erase.users)
            raise RuntimeError(
                f"Tried to erase Node {to_erase.name} but it still had {len(to_erase.users)} users in the "
                f"graph: {users}. Replace its uses first (e.g. {to_erase.name}.replace_all_uses_with(other)) "
                "or erase those users before it."
            )
        to_erase._set_args_kwargs((), {})
        self._unindex(to_erase)
        to_erase._prev._next = to_erase._next
        to_erase._next._prev = to_erase._prev
        to_erase._erased = True  # keeps its _next/_prev, so an iterator standing on it can move on
        self._len -= 1
        if self._insert_anchor is to_erase:
            self._insert_anchor = to_erase._prev if self._insert_after else to_erase._next

    # --- copying ----------------------------------------------------------------------------
    def node_copy(self, node: Node, arg_transform: Callable[[Node], Any] = lambda x: x) -> Node:
        """Copy ``node`` (from any graph) into this one; ``arg_transform`` maps the Nodes in its args.

        The copy gets a name based on the original's and a shallow copy of its meta.
        """
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        copy = self.create_node(node.op, node.target, args, kwargs, name=node.name)
        copy.meta = dict(node.meta)
        return copy

    def graph_copy(self, g: Graph, val_map: dict[Node, Any], return_output_node: bool = False) -> Any:
        """Copy ``g``'s nodes (except its output) into this graph.

        ``val_map`` maps g's nodes to values in this graph: pre-filled entries are used instead
        of copying (e.g. placeholders bound to existing nodes); new copies are added. Returns
        what g's output refers to, mapped (or the copied output node with return_output_node).
        """
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                result = map_arg(node.args[0], lambda n: val_map[n])
                if return_output_node:
                    return self.output(result)
                return result
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo: dict) -> Graph:
        """A copy with new nodes (same names, shallow-copied meta), pytree info and traced flag."""
        new = Graph()
        memo[id(self)] = new
        val_map: dict[Node, Any] = {}
        for node in self.nodes:
            val_map[node] = new.node_copy(node, lambda n: val_map[n])
        new.pytree_info = self.pytree_info
        new.traced = self.traced
        return new

    # --- printing ---------------------------------------------------------------------------
    def __str__(self) -> str:
        lines = ["graph():"]
        lines.extend("    " + node.format_node() for node in self.nodes)
        return "\n".join(lines)

    # --- lint -------------------------------------------------------------------------------
    def lint(self, *, check_meta: bool | None = None) -> None:
        """Check every invariant of the module docstring's grammar; raise GraphLintError explaining
        the first one broken. ``check_meta`` (default: ``self.traced``) enables the [meta] rule."""
        lint_graph(self, self.traced if check_meta is None else check_meta)


def _sort_key_of(node: Node) -> tuple:
    return node._sort_key
