"""``Interpreter`` and ``Transformer``: run a graph node by node, or rebuild it node by node.

Corresponds to torch/fx/interpreter.py. ``Interpreter(gm).run(*args)`` executes each node by calling
one method per opcode (``placeholder``, ``get_attr``, ``call_function``, ``call_method``,
``call_module``, ``output``) from ``run_node(n)``; a subclass overrides one of them to count, log or
swap ops. Every ``call_function`` calls its target, so OpOverloads go through the dispatcher: dispatch
modes, autograd and fake tensors all see the replay as they would see eager code. Inputs are taken as
the traced function took them (nested lists / dicts are flattened with the graph's ``PyTreeInfo``) and
the result is returned in the traced function's structure. With ``garbage_collect_values`` (default)
a value is dropped from ``env`` right after its last use, as the generated code's ``x = None`` does.

``Transformer(gm).transform()`` runs the same methods on the nodes of a new graph instead of on values
and returns a new GraphModule: override ``call_function`` to rewrite ops. Each new node takes the meta
of the node it was made from (so stack traces survive); when a rewrite changes a node's target, its
``meta["val"]`` is recomputed from the arguments' fake values.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dispatcher.autograd.grad_mode import _set_grad_enabled, is_grad_enabled
from dispatcher.tensor import Tensor
from tracer import Graph, GraphModule, Node, map_arg, pytree

__all__ = ["Interpreter", "Transformer"]

_ATOMS = frozenset({int, float, bool, str, type(None), complex})


class Interpreter:
    """Executes a GraphModule's graph one node at a time (see the module docstring).

    ``env`` maps each node already run to its value. ``garbage_collect_values`` frees values after
    their last use (``user_to_last_uses``: node -> the nodes whose last use it is). ``graph`` runs a
    different graph against ``module``'s attributes.
    """

    def __init__(self, module: GraphModule, garbage_collect_values: bool = True, graph: Graph | None = None) -> None:
        if not isinstance(module, GraphModule):
            raise TypeError(f"Interpreter: expected a GraphModule, got {type(module).__name__}")
        self.module = module
        self.graph: Graph = graph if graph is not None else module.graph
        self.env: dict[Node, Any] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        #: add a note naming the node (and its user source line) to exceptions raised while running it
        self.extra_traceback = True
        #: the node being run (for subclasses' methods, which receive only target, args, kwargs)
        self.current_node: Node | None = None
        self.args_iter: Iterator[Any] = iter(())
        self.user_to_last_uses: dict[Node, list[Node]] = {}
        if garbage_collect_values:
            seen: set[Node] = set()
            for node in reversed(self.graph.nodes):
                for inp in node.all_input_nodes:
                    if inp not in seen:
                        seen.add(inp)
                        self.user_to_last_uses.setdefault(node, []).append(inp)

    # --- running -------------------------------------------------------------------------------
    def run(self, *args: Any, initial_env: dict[Node, Any] | None = None, enable_io_processing: bool = True) -> Any:
        """Run the graph on ``args`` and return its result.

        ``initial_env`` pre-binds nodes to values (they are not run). With ``enable_io_processing``
        the arguments are flattened and the result unflattened as the graph's PyTreeInfo says.
        """
        self.env = dict(initial_env) if initial_env is not None else {}
        if enable_io_processing:
            args = self._process_inputs(args)
        self.args_iter = iter(args)
        last_uses = self.user_to_last_uses if self.garbage_collect_values else {}
        env = self.env
        grad_enabled = is_grad_enabled()  # a pre-dispatch graph switches grad mode: restored if it raises
        for node in self.graph.nodes:
            if node in env:
                continue
            try:
                env[node] = self.run_node(node)
            except Exception as e:
                _set_grad_enabled(grad_enabled)
                if self.extra_traceback:
                    _add_node_note(e, node)
                raise
            for dead in last_uses.get(node, ()):
                env.pop(dead, None)
            if node.op == "output":
                out = env[node]
                return self._process_outputs(out) if enable_io_processing else out
        raise RuntimeError(f"{self.name}: the graph has no output node; add one with graph.output(result)")

    def boxed_run(self, args_list: list[Any]) -> Any:
        """Run on the arguments in ``args_list`` and clear the list (callers give up their references)."""
        args = list(args_list)
        args_list.clear()
        return self.run(*args)

    def _process_inputs(self, args: tuple) -> list[Any] | tuple:
        info = self.graph.pytree_info
        if info is not None and info.in_spec is not None:
            return pytree.tree_flatten_spec(list(args), info.in_spec)
        return args

    def _process_outputs(self, out: Any) -> Any:
        info = self.graph.pytree_info
        if info is not None and info.out_spec is not None:
            return pytree.tree_unflatten(list(out), info.out_spec)
        return out

    @contextmanager
    def _set_current_node(self, node: Node) -> Iterator[None]:
        saved = self.current_node
        self.current_node = node
        try:
            yield
        finally:
            self.current_node = saved

    def run_node(self, n: Node) -> Any:
        """Run one node: fetch its arguments' values and call the method named by its opcode."""
        with self._set_current_node(n):
            args, kwargs = self.fetch_args_kwargs_from_env(n)
            return getattr(self, n.op)(n.target, args, kwargs)

    # --- one method per opcode ----------------------------------------------------------------------
    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The next input (a ``*name`` placeholder takes all that remain; ``args[0]`` is the default)."""
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one was not passed in!") \
                from si

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The module's attribute at dotted path ``target``."""
        return self.fetch_attr(target)

    def call_function(self, target: Any, args: tuple, kwargs: dict) -> Any:
        """``target(*args, **kwargs)`` (an OpOverload dispatches)."""
        return target(*args, **kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Any:
        """``args[0].<target>(*args[1:], **kwargs)``."""
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        """Call the module's callable attribute at ``target``."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The graph's result (a pytree of values, in plain lists and dicts)."""
        return _plain(args[0])

    # --- helpers -------------------------------------------------------------------------------------
    def fetch_attr(self, target: str) -> Any:
        """The value at dotted path ``target`` on the module."""
        value: Any = self.module
        atoms = target.split(".")
        for i, atom in enumerate(atoms):
            if atom.startswith("__") or not hasattr(value, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[:i + 1])}")
            value = getattr(value, atom)
        return value

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        """``n``'s args and kwargs with every Node replaced by its value in ``env``."""
        kwargs = n.kwargs
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(kwargs, n) if kwargs else {}

    def map_nodes_to_values(self, args: Any, n: Node) -> Any:
        """``args`` with every Node replaced by its value (RuntimeError when one has no value)."""
        env = self.env
        if type(args) is tuple:  # the common case, a flat tuple of nodes and scalars: no recursion
            values = []
            for a in args:
                cls = type(a)
                if cls is Node:
                    if a not in env:
                        break
                    values.append(env[a])
                elif cls in _ATOMS:
                    values.append(a)
                else:
                    break
            else:
                return tuple(values)

        def load_arg(arg: Node) -> Any:
            try:
                return env[arg]
            except KeyError:
                raise RuntimeError(f"Node {n} referenced nonexistent value {arg}! Run Graph.lint() to diagnose "
                                   "such issues") from None

        return map_arg(args, load_arg)


def _plain(tree: Any) -> Any:
    """``tree`` with the graph's immutable lists / dicts turned back into plain ones (what user code returned)."""
    if isinstance(tree, list):
        return [_plain(v) for v in tree]
    if isinstance(tree, dict):
        return {k: _plain(v) for k, v in tree.items()}
    if type(tree) is tuple:
        return tuple(_plain(v) for v in tree)
    return tree


def _add_node_note(e: BaseException, node: Node) -> None:
    """Say which node (and which user line) was running, without changing the exception."""
    if getattr(e, "_dispatchkit_node_noted", False):
        return
    note = f"While executing {node.format_node()}"
    trace = node.meta.get("stack_trace")
    if isinstance(trace, str) and trace:
        note += f"\nOriginal traceback:\n{trace.rstrip()}"
    try:
        e.add_note(note)
        e._dispatchkit_node_noted = True  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        pass


# ---------------------------------------------------------------------------------------------------------
# Transformer
# ---------------------------------------------------------------------------------------------------------


class Transformer(Interpreter):
    """Rebuilds the graph node by node into ``new_graph``; ``transform()`` returns the new GraphModule.

    In the opcode methods, values are nodes of the new graph: ``super().call_function(other_op, args,
    kwargs)`` emits a call to ``other_op`` instead; returning an existing new node (e.g. ``args[0]``)
    drops the node.
    """

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.name = "Transformer"
        self.new_graph = Graph()
        self.new_graph.pytree_info = self.graph.pytree_info
        self.new_graph.traced = self.graph.traced

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Node:
        node = self.new_graph.placeholder(target, *args[:1])
        self._copy_meta(node)
        return node

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Node:
        node = self.new_graph.get_attr(target)
        self._copy_meta(node)
        return node

    def call_function(self, target: Any, args: tuple, kwargs: dict) -> Node:
        return self._emit("call_function", target, args, kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Node:
        return self._emit("call_method", target, args, kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Node:
        return self._emit("call_module", target, args, kwargs)

    def _emit(self, op: str, target: Any, args: tuple, kwargs: dict) -> Node:
        cur = self.current_node
        same = cur is not None and cur.op == op and cur.target is target
        node = self.new_graph.create_node(op, target, args, kwargs, name=cur.name if same else None)
        if same:
            self._copy_meta(node)
        else:
            if cur is not None:  # where the node came from: the node it replaces
                for key in ("stack_trace", "nn_module_stack", "user_fn"):
                    if key in cur.meta:
                        node.meta[key] = cur.meta[key]
            if op == "call_function":
                val = _infer_val(target, node.args, node.kwargs)
                if val is not _NO_VAL:
                    node.meta["val"] = val
        return node

    def _copy_meta(self, node: Node) -> None:
        if self.current_node is not None:
            node.meta.update(self.current_node.meta)

    def transform(self) -> GraphModule:
        """The new GraphModule (same attributes, same class name), with the output node's meta kept."""
        result = super().run(enable_io_processing=False)
        out = self.new_graph.output(result)
        out.meta.update(self.graph.output_node().meta)
        return GraphModule(self.module, self.new_graph, class_name=self.module._class_name)


_NO_VAL = object()


def _infer_val(target: Any, args: tuple, kwargs: dict) -> Any:
    """The fake value of ``target`` applied to the arguments' ``meta["val"]`` (``_NO_VAL`` if unknown)."""
    from dispatcher.fake import FakeTensor

    missing = False
    modes = []

    def val_of(n: Node) -> Any:
        nonlocal missing
        if "val" not in n.meta:
            missing = True
            return None
        v = n.meta["val"]
        if isinstance(v, FakeTensor):
            modes.append(v.fake_mode)
        elif isinstance(v, Tensor):
            missing = True  # a real value: computing on it would run the op for real
        return v

    fargs, fkwargs = map_arg(args, val_of), map_arg(kwargs, val_of)
    if missing or not modes:
        return _NO_VAL
    try:
        with modes[0]:
            return target(*fargs, **fkwargs)
    except Exception:  # noqa: BLE001 - an op the fake mode cannot run: leave the value unknown
        return _NO_VAL
