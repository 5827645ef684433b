"""``decompose(gm, table)``: re-trace a graph with make_fx, replacing the ops found in a decomposition table.

What torch users write as ``make_fx(Interpreter(gm).run, decomposition_table=table)(*args)``: the graph
is interpreted under make_fx, so each op listed in ``table`` runs its decomposition (traced, so the
new graph holds the ops it calls, recursively decomposed through the table) and every other op is
recorded as it is.

The graph is always re-traced pre-dispatch, which records every op exactly as the interpreter calls
it, so the capture level is kept: in a pre-dispatch graph (one with ``_set_grad_enabled`` nodes or
CompositeImplicitAutograd ops such as ``linear``) ops the table does not name stay whole and
grad-mode nodes stay; for a post-dispatch graph, CompositeImplicitAutograd ops that a decomposition
produces are decomposed further (their CIA kernels are added to the table), as a post-dispatch
make_fx would do. ``pre_dispatch=`` overrides the guess of the graph's level.
(Re-tracing a post-dispatch graph post-dispatch would lose ops that never reach the Python key when
nothing requires grad, e.g. a recorded ``detach_``.)

A post-dispatch graph already holds autograd's work, so example inputs are detached before tracing (as
``replay`` does). Without example inputs the graph is traced on fake tensors made from its placeholders'
``meta["val"]`` (nothing is computed; the module's tensor constants are read as constants).
Each new node takes the ``meta["stack_trace"]`` of the node it came from, and the placeholder names
and nested input / output structure are kept.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from dispatcher.fake import FakeTensorMode
from dispatcher.keys import DispatchKey
from dispatcher.modes.dispatch_mode import (
    TorchDispatchModeKey,
    _get_current_dispatch_mode_stack_pre_dispatch,
    _get_dispatch_mode,
)
from dispatcher.op_overload import OpOverload
from dispatcher.tensor import Tensor
from tracer import GraphModule, Node, ProxyTorchDispatchMode, make_fx, pytree

from .interpreter import Interpreter
from .replay import looks_pre_dispatch
from .shape_prop import fresh_fake

__all__ = ["DecompositionInterpreter", "decompose"]


class _RetraceInterpreter(Interpreter):
    """Interprets the old graph under make_fx; new nodes made while running a node take its stack trace."""

    def __init__(self, gm: GraphModule) -> None:
        super().__init__(gm)
        self._new_graph: Any = None

    def _graph_being_traced(self) -> Any:
        mode = _get_dispatch_mode(TorchDispatchModeKey.PROXY)
        if mode is None:
            mode = next((m for m in _get_current_dispatch_mode_stack_pre_dispatch()
                         if isinstance(m, ProxyTorchDispatchMode)), None)
        return mode.tracer.graph if mode is not None else None

    def run_node(self, n: Node) -> Any:
        if self._new_graph is None:
            self._new_graph = self._graph_being_traced()
        graph = self._new_graph
        last = _last_node(graph)
        value = super().run_node(n)
        if graph is not None and n.op not in ("placeholder", "output"):
            where = {key: n.meta.get(key) for key in ("stack_trace", "nn_module_stack", "user_fn")}
            cur = last._next
            while cur is not graph._root:
                for key, meta_value in where.items():
                    if meta_value is None:
                        cur.meta.pop(key, None)
                    else:
                        cur.meta[key] = meta_value
                cur = cur._next
        return value


def _last_node(graph: Any) -> Any:
    return graph._root._prev if graph is not None else None


def _signature_function(gm: GraphModule) -> Callable[..., Any]:
    """A function running ``gm`` whose parameters make make_fx name the placeholders as ``gm`` did."""
    info = gm.graph.pytree_info
    if info is not None and info.in_spec is not None:
        names = list(info.orig_args)
    else:
        names = []
        for p in gm.graph.find_nodes(op="placeholder"):
            name = p.name[:-2] if p.name.endswith("_1") else p.name
            names.append(name)

    def run(*args: Any) -> Any:
        return _RetraceInterpreter(gm).run(*args)

    params = []
    for name in names:
        if not name.isidentifier() or name in {p.name for p in params}:
            return run  # unusual names: make_fx falls back to its own
        params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD))
    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__name__ = gm._class_name
    return run


class _WithCompositeImplicit(dict):
    """A decomposition table that also decomposes every CompositeImplicitAutograd op (post-dispatch graphs)."""

    def get(self, op: Any, default: Any = None) -> Any:
        found = super().get(op)
        if found is not None:
            return found
        if isinstance(op, OpOverload) and op.name() not in _NO_DECOMPOSE and (
                DispatchKey.CompositeImplicitAutograd in op.kernels
                or DispatchKey.CompositeImplicitAutograd in op.py_kernels):
            return op.decompose
        return default

    def __bool__(self) -> bool:
        return True


_NO_DECOMPOSE = frozenset({"aten::size", "aten::stride", "aten::storage_offset"})


def decompose(gm: GraphModule, decomposition_table: dict, *args: Any, pre_dispatch: bool | None = None) -> GraphModule:
    """A new GraphModule: ``gm`` re-traced through ``decomposition_table`` (module docstring)."""
    if not isinstance(gm, GraphModule):
        raise TypeError(f"decompose: expected a GraphModule, got {type(gm).__name__}")
    if not isinstance(decomposition_table, dict):
        raise TypeError("decompose: decomposition_table must be a dict mapping OpOverloads to functions, got "
                        f"{type(decomposition_table).__name__}")
    if pre_dispatch is None:
        pre_dispatch = looks_pre_dispatch(gm)
    fn = _signature_function(gm)
    table = decomposition_table if pre_dispatch else _WithCompositeImplicit(decomposition_table)
    if args:
        if not pre_dispatch:  # the graph already holds autograd's work: trace it without autograd, as replay runs it
            args = tuple(pytree.tree_map(lambda a: a.detach() if isinstance(a, Tensor) else a, list(args)))
        return make_fx(fn, table, pre_dispatch=True)(*args)
    placeholders = gm.graph.find_nodes(op="placeholder")
    missing = [p.name for p in placeholders if "val" not in p.meta]
    if missing:
        raise ValueError(f"decompose: no example inputs given and placeholders {missing} have no meta[\"val\"]; "
                         "pass example inputs or run shape_propagation first")
    fake_mode = FakeTensorMode(allow_non_fake_inputs=True, static_shapes=True)
    flat = [fresh_fake(v, fake_mode) if hasattr(v, "_shape") else v for v in (p.meta["val"] for p in placeholders)]
    info = gm.graph.pytree_info
    fake_args = pytree.tree_unflatten(flat, info.in_spec) if info is not None and info.in_spec is not None else flat
    return make_fx(fn, table, tracing_mode="fake", pre_dispatch=True)(*fake_args)


class DecompositionInterpreter(Interpreter):
    """Run a graph and write it anew into ``new_graph``, each op listed in ``decomposition_table`` replaced by its
    traced decomposition (torch.fx.experimental.proxy_tensor.DecompositionInterpreter).

    The graph runs for real on the inputs given to ``run``; a proxy mode (post-dispatch, with the table) records
    what each node's op does into ``new_graph``: placeholders and get_attr nodes are copied, call nodes are traced
    by the mode, the output is written last. ``GraphModule(gm, new_graph)`` makes the result a module.
    """

    def __init__(self, module: GraphModule, new_graph: Any, decomposition_table: dict | None = None,
                 **kwargs: Any) -> None:
        from tracer.proxy_tracker import _Tracer

        super().__init__(module, **kwargs)
        self.new_graph = new_graph
        self.tracer = _Tracer(record_stack_traces=False)
        self.tracer.graph = new_graph
        self.decomposition_table = decomposition_table or {}
        self.mode = ProxyTorchDispatchMode(self.tracer, self.decomposition_table)

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Any:
        out = super().placeholder(target, args, kwargs)
        self._track(out, self.new_graph.placeholder(target))
        return out

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        out = super().get_attr(target, args, kwargs)
        self._track(out, self.new_graph.get_attr(target))
        return out

    def _track(self, out: Any, node: Node) -> None:
        if isinstance(out, Tensor):
            self.tracer.track(out, node)
        else:
            node.meta["val"] = out

    def output(self, target: str, args: tuple, kwargs: dict) -> Any:
        out = super().output(target, args, kwargs)
        self.new_graph.output(pytree.tree_map(self.tracer.to_arg, out))
        return out

    def run(self, *args: Any, **kwargs: Any) -> Any:
        with self.mode:
            return super().run(*args, **kwargs)
