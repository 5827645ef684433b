"""``Node``: one operation of a graph, and the helpers for its arguments.

Corresponds to torch/fx/node.py. A node is a ``__slots__`` object (node creation is make_fx's
hot path); its args and kwargs are copied into immutable containers so the graph's users lists
cannot go stale behind its back (``node.args = ...`` / ``update_arg`` keep them right).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dispatcher.op_overload import OpOverload

if TYPE_CHECKING:  # annotations only: graph.py imports this module
    from .graph import Graph

__all__ = ["OPCODES", "Node", "immutable_dict", "immutable_list", "map_aggregate", "map_arg", "pretty_target"]

#: the node kinds (FX's set)
OPCODES = frozenset({"placeholder", "get_attr", "call_function", "call_method", "call_module", "output"})


# ---------------------------------------------------------------------------------------
# Argument containers
# ---------------------------------------------------------------------------------------

_MUTATION_HINT = (
    "is immutable: a node's args and kwargs must not be changed in place, because the graph's "
    "users lists would silently go stale. Build new values and assign them instead: "
    "`node.args = new_args`, `node.update_arg(i, value)` or `node.update_kwarg(key, value)`."
)


class immutable_list(list):  # noqa: N801 - FX's name
    """A list inside a node's args; refuses in-place changes (see _MUTATION_HINT)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(f"'{type(self).__name__}' object {_MUTATION_HINT}")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))

    def __reduce__(self) -> Any:
        return (immutable_list, (list(self),))


class immutable_dict(dict):  # noqa: N801 - FX's name
    """A dict inside a node's args or its kwargs; refuses in-place changes."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(f"'{type(self).__name__}' object {_MUTATION_HINT}")

    __setitem__ = __delitem__ = __ior__ = _refuse  # type: ignore[assignment]
    pop = popitem = clear = update = setdefault = _refuse  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self.items()))

    def __reduce__(self) -> Any:
        return (immutable_dict, (dict(self),))


_EMPTY_KWARGS = immutable_dict()
# leaf types that can never hold a node (checked by exact type on the hot path)
_ATOMS = frozenset({int, float, bool, str, type(None), complex, bytes, type(Ellipsis)})


def _freeze(arg: Any, found: dict[Node, None]) -> Any:
    """Copy ``arg`` into immutable containers, recording every Node met in ``found``."""
    cls = type(arg)
    if cls is Node:
        found[arg] = None
        return arg
    if cls in _ATOMS:
        return arg
    if isinstance(arg, tuple):
        items = [_freeze(a, found) for a in arg]
        return type(arg)(*items) if hasattr(arg, "_fields") else tuple(items)
    if isinstance(arg, list):  # (sizes, dims: mostly ints, kept without a call each)
        return immutable_list([a if type(a) in _ATOMS else _freeze(a, found) for a in arg])
    if isinstance(arg, dict):
        return immutable_dict((k, _freeze(v, found)) for k, v in arg.items())
    if cls is slice:
        return slice(_freeze(arg.start, found), _freeze(arg.stop, found), _freeze(arg.step, found))
    return arg


def map_aggregate(arg: Any, fn: Callable[[Any], Any]) -> Any:
    """Apply ``fn`` to every leaf of ``arg`` (tuples, lists, dicts and slices are traversed)."""
    if isinstance(arg, tuple):
        items = [map_aggregate(a, fn) for a in arg]
        return type(arg)(*items) if hasattr(arg, "_fields") else tuple(items)
    if isinstance(arg, list):
        return immutable_list(map_aggregate(a, fn) for a in arg)
    if isinstance(arg, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in arg.items())
    if type(arg) is slice:
        return slice(map_aggregate(arg.start, fn), map_aggregate(arg.stop, fn), map_aggregate(arg.step, fn))
    return fn(arg)


def map_arg(arg: Any, fn: Callable[[Node], Any]) -> Any:
    """Apply ``fn`` to every Node inside ``arg``, keeping the rest."""
    return map_aggregate(arg, lambda a: fn(a) if type(a) is Node else a)


# ---------------------------------------------------------------------------------------
# Node
# ---------------------------------------------------------------------------------------


def _key_between(before: tuple, after: tuple) -> tuple:
    """An order key strictly between two neighbours' keys (``()`` stands for the list's ends).

    Keys are tuples of ints compared lexicographically. Appending gives ``(k + 1,)``; an
    insertion between two keys reuses the left key's length when it can, so keys stay short
    for the usual patterns (append, insert repeatedly before or after the same node).
    """
    if not after:  # appending
        return (before[0] + 1,) if before else (0,)
    if not before:  # prepending
        return (after[0] - 1,)
    n = len(before)
    if after[:n] == before:  # `before` is a prefix of `after`
        return before + (after[n] - 1,)
    i = 0
    while before[i] == after[i]:
        i += 1
    if n > i + 1:  # bump the last element of `before`: still above `before`, still below `after`
        return before[:-1] + (before[-1] + 1,)
    if before[i] + 1 < after[i]:
        return before[:i] + (before[i] + 1,)
    return before + (0,)


class Node:
    """One operation in a Graph: ``name = op[target](*args, **kwargs)``.

    Each field is documented where ``__init__`` sets it. Anything else about a node goes into
    ``meta``, never into a new field. Create nodes with Graph methods, not this constructor.
    """

    __slots__ = ("graph", "name", "op", "_target", "_args", "_kwargs", "_input_nodes", "users", "meta",
                 "_prev", "_next", "_erased", "_sort_key", "__weakref__")

    def __init__(self, graph: Graph, name: str, op: str, target: Any, args: tuple, kwargs: dict) -> None:
        #: the Graph this node belongs to
        self.graph = graph
        #: unique identifier within the graph; the variable holding the value in generated code
        self.name = name
        #: one of OPCODES: placeholder, get_attr, call_function, call_method, call_module, output
        self.op = op
        # what is called / read: see the `target` property
        self._target = target
        # positional arguments (a tuple; nested lists/dicts are immutable copies); see `args`
        self._args: tuple = ()
        # keyword arguments (an immutable dict); see `kwargs`
        self._kwargs: dict = _EMPTY_KWARGS
        # the distinct Nodes referred to by args/kwargs, in first-use order (a list once args are set)
        self._input_nodes: list[Node] | tuple[()] = ()
        #: the nodes whose args refer to this node (insertion-ordered dict used as a set)
        self.users: dict[Node, None] = {}
        #: free-form metadata: "val" (a fake/real tensor or value), "stack_trace" (user source), ...
        self.meta: dict[str, Any] = {}
        # neighbours in the graph's linked list (the graph's root sentinel at the ends)
        self._prev: Node = self
        self._next: Node = self
        # set by Graph.erase_node; iteration skips erased nodes
        self._erased = False
        # position key: a < b in the list iff a._sort_key < b._sort_key (see _key_between)
        self._sort_key: tuple = ()
        if args or kwargs:
            self._set_args_kwargs(args, kwargs)

    # --- the fields behind properties --------------------------------------------------
    @property
    def target(self) -> Any:
        """What the node calls or names: a callable (call_function), a method name
        (call_method), an attribute path (get_attr, call_module), the input's name
        (placeholder), or "output"."""
        return self._target

    @target.setter
    def target(self, value: Any) -> None:
        graph = self.graph
        if not self._erased and graph is not None:
            graph._unindex(self)
            self._target = value
            graph._index(self)
        else:
            self._target = value

    @property
    def args(self) -> tuple:
        """The positional arguments: a tuple that may hold Nodes, constants and containers."""
        return self._args

    @args.setter
    def args(self, value: tuple) -> None:
        self._set_args_kwargs(tuple(value), self._kwargs)

    @property
    def kwargs(self) -> dict:
        """The keyword arguments (immutable dict, insertion-ordered)."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value: dict) -> None:
        self._set_args_kwargs(self._args, value)

    @property
    def next(self) -> Node:
        """The following node (the graph's root sentinel, op "root", after the last one)."""
        return self._next

    @property
    def prev(self) -> Node:
        """The preceding node (the root sentinel before the first one)."""
        return self._prev

    @property
    def all_input_nodes(self) -> list[Node]:
        """The distinct Nodes this node's args and kwargs refer to, in first-use order."""
        return list(self._input_nodes)

    @property
    def stack_trace(self) -> str | None:
        """``meta["stack_trace"]``: the user source lines that produced this node, innermost last."""
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, value: str | None) -> None:
        self.meta["stack_trace"] = value

    # --- argument updates ---------------------------------------------------------------
    def _set_args_kwargs(self, args: tuple, kwargs: dict) -> None:
        for old in self._input_nodes:
            old.users.pop(self, None)
        inputs: list[Node] = []
        if args:
            # fast path (make_fx's common case): a plain tuple of nodes and scalars is kept as is
            for a in args:
                cls = type(a)
                if cls is Node:
                    if a not in inputs:
                        inputs.append(a)
                elif cls not in _ATOMS:
                    break
            else:
                if type(args) is not tuple:
                    args = tuple(args)
                self._args = args
                args = None
            if args is not None:
                found: dict[Node, None] = {}
                self._args = tuple([a if type(a) in _ATOMS else _freeze(a, found) for a in args])
                inputs = list(found)
        else:
            self._args = ()
        if kwargs:
            found = dict.fromkeys(inputs)
            self._kwargs = immutable_dict((k, _freeze(v, found)) for k, v in kwargs.items())
            if len(found) != len(inputs):
                inputs = list(found)
        else:
            self._kwargs = _EMPTY_KWARGS
        self._input_nodes = inputs  # private; the list is never handed out (all_input_nodes copies it)
        for node in inputs:
            node.users[self] = None

    def update_arg(self, idx: int, arg: Any) -> None:
        """Set ``args[idx]`` (users lists follow)."""
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg: Any) -> None:
        """Set ``kwargs[key]`` (users lists follow)."""
        self.kwargs = {**self._kwargs, key: arg}

    def replace_input_with(self, old_input: Node, new_input: Any) -> None:
        """Make every reference to ``old_input`` in this node's args/kwargs refer to ``new_input``."""
        def swap(n: Node) -> Any:
            return new_input if n is old_input else n

        self._set_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_all_uses_with(self, replace_with: Node, delete_user_cb: Callable[[Node], bool] | None = None,
                              *, propagate_meta: bool = False) -> list[Node]:
        """Make every user of this node use ``replace_with`` instead; returns the users changed.

        ``delete_user_cb(user)`` returning False keeps that user on this node (the usual
        guard when ``replace_with`` itself uses this node). ``propagate_meta`` copies this
        node's meta entries onto ``replace_with``.
        """
        if propagate_meta:
            if replace_with.meta:
                raise RuntimeError(
                    f"replace_all_uses_with({replace_with.name}, propagate_meta=True): the replacement "
                    "already has meta; propagate_meta only fills an empty meta"
                )
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if delete_user_cb is not None and not delete_user_cb(user):
                continue
            user.replace_input_with(self, replace_with)
            changed.append(user)
        return changed

    # --- moving --------------------------------------------------------------------------
    def prepend(self, x: Node) -> None:
        """Put ``x`` (new or already in this graph) right before this node."""
        self.graph._link_before(x, self)

    def append(self, x: Node) -> None:
        """Put ``x`` (new or already in this graph) right after this node."""
        self.graph._link_before(x, self._next)

    def _rename(self, candidate: str) -> None:
        """Rename through the graph's namespace (the result is unique and valid)."""
        if candidate == self.name:
            return
        self.name = self.graph._namespace.create_name(candidate, None)

    # --- printing ------------------------------------------------------------------------
    def __repr__(self) -> str:
        return self.name

    def format_node(self) -> str:
        """One line in FX's ``Graph.__str__`` format, e.g.
        ``%add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%x_1, 1), kwargs = {})``."""
        users = f"[num_users={len(self.users)}]"
        if self.op == "placeholder":
            default = f"(default={self._args[0]})" if self._args else ""
            return f"%{self.name} : {users} = placeholder[target={self._target}]{default}"
        if self.op == "get_attr":
            return f"%{self.name} : {users} = get_attr[target={self._target}]"
        if self.op == "output":
            return f"return {self._args[0] if self._args else None}"
        return (f"%{self.name} : {users} = {self.op}[target={pretty_target(self._target)}]"
                f"(args = {_format_arg(self._args)}, kwargs = {_format_arg(self._kwargs)})")


def _format_arg(arg: Any) -> str:
    """FX's debugging format of an argument: nodes as ``%name``, dict keys unquoted."""
    if type(arg) is Node:
        return "%" + arg.name
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, tuple):
        inner = ", ".join(_format_arg(a) for a in arg)
        return f"({inner},)" if len(arg) == 1 else f"({inner})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    return str(arg)


def pretty_target(target: Any) -> str:
    """How FX's graph printout names a target: ``torch.ops.aten.add.Tensor``, ``operator.getitem``,
    ``builtins.max``, ``module.function`` (our ``dispatcher`` package is printed as ``torch``)."""
    if isinstance(target, str):
        return target
    if isinstance(target, OpOverload):
        return f"torch.ops.{target}"
    module = getattr(target, "__module__", None)
    name = getattr(target, "__name__", None) or type(target).__name__
    if module == "builtins":
        return f"builtins.{name}"
    if module == "_operator":
        return f"operator.{name}"
    if module == "dispatcher" or (module or "").startswith("dispatcher."):
        module = "torch" + module[len("dispatcher"):]
    return f"{module}.{name}" if module else name
