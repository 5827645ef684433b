"""``functionalize(gm)``: rewrite in-place and view-mutation ops into out-of-place ops, so a graph is pure.

Corresponds to ``make_fx(torch.func.functionalize(f, remove="mutations"))``
(torch/_subclasses/functional_tensor.py, aten/src/ATen/FunctionalTensorWrapper.cpp), done as a pass
over a captured graph instead of a re-trace. The bookkeeping is the one PyTorch's functionalization
keeps per tensor:

* every tensor value belongs to a *storage* (the memory it was created in: a graph input, a constant,
  or the output of an op that returns fresh memory) and is that storage seen through a *view chain*
  (the view ops applied since, e.g. ``[select(0, 0), slice(0, 1, None)]``);
* a storage knows its *current* value (a node of the new graph) and a version, bumped by every
  mutation;
* an in-place op ``x.op_(...)`` becomes its out-of-place form ``op(x, ...)`` and the result is written
  back into x's storage by walking the view chain backwards: every view step is undone with its
  inverse — ``view`` by a view back to the base's shape, ``t`` / ``transpose`` / ``permute`` by the
  inverse permutation, ``alias`` / ``detach`` by nothing, and any other view (``select``, ``slice``,
  ``diagonal``, ``expand``, ``as_strided``, the pieces of ``split`` / ``unbind``) by an
  ``index_put`` of the new values at the positions the view covers;
* a view whose storage was mutated after the view was made is regenerated from the storage's current
  value (replaying its view chain) where it is next used;
* a mutated graph input gets a final ``aten.copy_.default(input, new_value)``, as PyTorch emits.

Differences from PyTorch: this listing has no ``*_scatter`` ops, so where PyTorch emits
``select_scatter(base, src, 0, 0)`` / ``slice_scatter(...)`` the graph holds
``index_put(base, [<index constants>], src)`` reading int64 index tensors that are stored on the
GraphModule as ``_functional_index<N>`` attributes (same values, different op); ``copy_`` becomes
``_to_copy`` / ``expand`` of the source (PyTorch: ``aten.copy``), ``fill_`` ``full_like`` or an
``expand`` (PyTorch: ``aten.fill``), ``zero_`` ``zeros_like``; views are regenerated only where used,
so the dead duplicate views PyTorch's graphs contain are not emitted. ``remove="mutations_and_views"``
is refused: the ``*_copy`` view ops do not exist here. Metadata mutations of inputs (``squeeze_`` on
an input) are not written back; mutations of ``get_attr`` constants stay inside the graph (the
module's constant is not updated). Random in-place ops (``bernoulli_``) are refused.
"""

from __future__ import annotations

import operator
from typing import Any

import dispatcher
from dispatcher.autograd.grad_mode import _set_grad_enabled
from dispatcher.fake import FakeTensorMode
from dispatcher.op_overload import OpOverload
from dispatcher.registry import REGISTRY
from dispatcher.tensor import Tensor
from tracer.graph import Graph
from tracer.graph_module import GraphModule
from tracer.node import Node, map_arg

from ._fake_meta import fake_from_meta, tensor_meta
from .side_effects import mutated_arguments, returned_aliases

__all__ = ["FunctionalizationError", "functionalize"]

aten = dispatcher.ops.aten


class FunctionalizationError(NotImplementedError):
    """A node this pass cannot turn into a pure form (names the node and the op)."""


# view ops whose inverse needs no op at all
_IDENTITY_VIEWS = {"alias", "detach", "lift_fresh"}
# view ops that only reshape a contiguous tensor (undone with a view back to the base's shape)
_RESHAPE_VIEWS = {"view", "unsqueeze", "squeeze", "flatten", "view_as", "_reshape_alias", "reshape", "contiguous"}


class _Storage:
    """One piece of memory of the original program, seen through the new graph."""

    __slots__ = ("current", "version", "input_node", "written_without_grad")

    def __init__(self, current: Node, input_node: Node | None = None) -> None:
        self.current = current  #: the new-graph node holding the memory's latest value
        self.version = 0  #: bumped by every mutation
        self.input_node = input_node  #: the placeholder this memory came in through, if any
        #: the last write happened where the graph had disabled grad (pre-dispatch no_grad regions)
        self.written_without_grad = False


class _Alias:
    """A tensor of the original program: a storage seen through a view chain."""

    __slots__ = ("storage", "chain", "node", "version")

    def __init__(self, storage: _Storage, chain: tuple, node: Node, version: int) -> None:
        self.storage = storage
        #: the view steps from the storage to this tensor: (op, args after self, kwargs, list index or None)
        self.chain = chain
        self.node = node  #: the new-graph node that last computed this tensor's value
        self.version = version  #: the storage version that value reflects


class _ViewList:
    """The list result of a multi-output view op (``split``, ``unbind``); its items are views."""

    __slots__ = ("source", "step", "node", "version")

    def __init__(self, source: _Alias, step: tuple, node: Node, version: int) -> None:
        self.source = source  #: the tensor that was split
        self.step = step  #: (op, args after self, kwargs)
        self.node = node  #: the new-graph node holding the list
        self.version = version  #: the storage version that list reflects


class _Functionalizer:
    def __init__(self, gm: GraphModule) -> None:
        self.gm = gm
        self.graph = Graph()
        self.mode = FakeTensorMode(allow_non_fake_inputs=True)
        self.env: dict[Node, Any] = {}
        self.attrs: dict[str, Any] = {}
        self.storages: list[_Storage] = []
        self.current_old: Node | None = None  # the node being rewritten (its meta goes to new nodes)
        self.index_counter = 0
        #: grad mode as set by the graph's own _set_grad_enabled nodes so far (None: not set, the caller's)
        self.grad_state: bool | None = None

    # --- emitting nodes ------------------------------------------------------------------------
    def emit(self, target: Any, args: tuple, kwargs: dict | None = None) -> Node:
        """A new call_function node with meta["val"] computed on fake tensors."""
        node = self.graph.call_function(target, args, kwargs or {})
        vals = map_arg(args, lambda n: n.meta["val"])
        kvals = map_arg(kwargs or {}, lambda n: n.meta["val"])
        if isinstance(target, OpOverload):
            with self.mode:
                node.meta["val"] = target(*vals, **kvals)
        elif target is operator.getitem:
            node.meta["val"] = operator.getitem(*vals)
        else:
            node.meta["val"] = None
        old = self.current_old
        if old is not None:
            for key in ("stack_trace", "nn_module_stack", "user_fn"):
                if key in old.meta:
                    node.meta[key] = old.meta[key]
        return node

    def fresh(self, node: Node, input_node: Node | None = None) -> _Alias:
        storage = _Storage(node, input_node)
        self.storages.append(storage)
        return _Alias(storage, (), node, 0)

    def value(self, handle: Any) -> Any:
        """The new-graph value of an old node's handle (regenerating stale views)."""
        if isinstance(handle, _Alias):
            storage = handle.storage
            if handle.version != storage.version:
                node = storage.current
                for step in handle.chain:
                    node = self.apply_step(node, step)
                handle.node, handle.version = node, storage.version
            return handle.node
        if isinstance(handle, _ViewList):  # the list itself is used (e.g. by cat): regenerate it when stale
            if handle.version != handle.source.storage.version:
                op, rest, kwargs = handle.step
                handle.node = self.emit(op, (self.value(handle.source), *rest), kwargs)
                handle.version = handle.source.storage.version
            return handle.node
        return handle

    def arg(self, a: Any) -> Any:
        return map_arg(a, lambda n: self.value(self.env[n]))

    def apply_step(self, node: Node, step: tuple) -> Node:
        op, rest, kwargs, index = step
        out = self.emit(op, (node, *rest), kwargs)
        return out if index is None else self.emit(operator.getitem, (out, index))

    def where(self) -> str:
        old = self.current_old
        return f"node {old.name} ({old.target})" if old is not None else "functionalize"

    # --- writing back through views --------------------------------------------------------------
    def write(self, alias: _Alias, new_value: Node) -> None:
        """Make ``new_value`` the value of ``alias``: update its storage through the view chain."""
        storage = alias.storage
        bases = [storage.current]
        for step in alias.chain[:-1]:
            bases.append(self.apply_step(bases[-1], step))
        src = new_value
        if alias.chain:
            for base, step in zip(reversed(bases), reversed(alias.chain), strict=True):
                src = self.inverse(base, step, src)
        storage.current = src
        storage.version += 1
        storage.written_without_grad = self.grad_state is False
        if not alias.chain:
            alias.node, alias.version = new_value, storage.version
        # else: a mutated view is regenerated from its base where it is next used, as PyTorch does
        # (FunctionalTensorWrapper::regenerate_from_base), so later uses read the base's new value

    def inverse(self, base: Node, step: tuple, src: Node) -> Node:
        """The value of ``base`` after its view ``step(base)`` was replaced by ``src``."""
        op, rest, kwargs, index = step
        name = op._opname
        base_val, src_val = base.meta["val"], src.meta["val"]
        if name in _IDENTITY_VIEWS and index is None:
            return src
        if name in ("t", "transpose") and index is None:
            return self.emit(op, (src, *rest), kwargs)
        if name == "permute" and index is None:
            dims = [d % base_val.dim() for d in rest[0]]
            inverse = [dims.index(i) for i in range(len(dims))]
            return self.emit(op, (src, inverse))
        if name == "unsqueeze" and index is None:
            return self.emit(aten.squeeze.dim, (src, _bound(op, rest, kwargs)["dim"]))
        if name == "squeeze" and op._overload_name_raw == "dim" and index is None:
            return self.emit(aten.unsqueeze.default, (src, _bound(op, rest, kwargs)["dim"] % base_val.dim()))
        if (name in _RESHAPE_VIEWS and index is None and base_val.is_contiguous() and src_val.is_contiguous()
                and src_val.numel() == base_val.numel()):
            return self.emit(aten.view.default, (src, list(base_val.shape)))
        if name in ("select", "slice") and index is None:
            return self.scatter_along_dim(base, step, src)
        return self.scatter_by_index(base, step, src)

    def index_constant(self, value: Tensor) -> Node:
        """A get_attr node reading the int64 index tensor ``value`` (stored on the new module)."""
        attr = f"_functional_index{self.index_counter}"
        self.index_counter += 1
        self.attrs[attr] = value
        node = self.graph.get_attr(attr)
        node.meta["val"] = self.mode.from_tensor(value)
        return node

    def scatter_along_dim(self, base: Node, step: tuple, src: Node) -> Node:
        """select / slice undone by ``index_put(base, [None, ..., positions], src)`` (PyTorch: *_scatter)."""
        op, rest, kwargs, _ = step
        bound = _bound(op, rest, kwargs)
        shape = list(base.meta["val"].shape)
        dim = bound["dim"] % len(shape)
        size = shape[dim]
        if op._opname == "select":
            positions = dispatcher.tensor(bound["index"] % size, dtype=dispatcher.int64)
        else:
            start, end, stride = bound["start"], bound["end"], bound["step"]
            positions = dispatcher.arange(*slice(start, end, stride).indices(size), dtype=dispatcher.int64)
        return self.emit(aten.index_put.default, (base, [None] * dim + [self.index_constant(positions)], src))

    def scatter_by_index(self, base: Node, step: tuple, src: Node) -> Node:
        """``index_put(base, coordinates of the view's elements, src)``: undoes any view."""
        op, rest, kwargs, index = step
        if _has_node((rest, kwargs)):
            raise FunctionalizationError(f"{self.where()}: view {op} has graph values among its arguments")
        shape = list(base.meta["val"].shape)
        coords = []
        for dim, size in enumerate(shape):
            grid_shape = [1] * len(shape)
            grid_shape[dim] = size
            grid = dispatcher.arange(size, dtype=dispatcher.int64).view(grid_shape).expand(shape)
            viewed = op(grid, *rest, **kwargs)
            if index is not None:
                viewed = viewed[index]
            coords.append(aten.clone.default(viewed, memory_format=dispatcher.contiguous_format))
        nodes = [self.index_constant(c) for c in coords]
        return self.emit(aten.index_put.default, (base, nodes, src))

    # --- one node ------------------------------------------------------------------------------
    def run(self) -> GraphModule:
        for old in self.gm.graph.nodes:
            self.current_old = old
            if old.op == "placeholder":
                node = self.graph.create_node("placeholder", old.target, old.args, name=old.name)
                val = old.meta.get("val")
                if isinstance(val, Tensor):
                    node.meta["val"] = fake_from_meta(self.mode, tensor_meta(val))
                    self.env[old] = self.fresh(node, input_node=node)
                else:
                    if "val" in old.meta:
                        node.meta["val"] = val
                    self.env[old] = node
            elif old.op == "get_attr":
                const = self.gm.fetch_attr(old.target)
                self.attrs[old.target] = const
                node = self.graph.get_attr(old.target)
                node.meta["val"] = self.mode.from_tensor(const) if isinstance(const, Tensor) else const
                self.env[old] = self.fresh(node) if isinstance(const, Tensor) else node
            elif old.op == "call_function":
                self.env[old] = self.call_function(old)
            elif old.op == "output":
                self.epilogue()
                self.graph.output(self.arg(old.args[0]))
            else:
                raise FunctionalizationError(f"functionalize: {old.op} nodes are not supported ({old.name})")
        self.current_old = None
        self.graph.pytree_info = self.gm.graph.pytree_info
        self.graph.traced = True
        new = GraphModule(self.attrs, self.graph, self.gm._class_name)
        self.graph.lint()
        return new

    def epilogue(self) -> None:
        """Copy the final value of every mutated input back into it (PyTorch's trailing ``copy_``).

        An input last written inside a no_grad region of the graph (``_set_grad_enabled(False)``
        nodes of a pre-dispatch graph) is copied back with grad disabled too, as the program did,
        so a leaf that requires grad may be updated (an optimizer step); NB: PyTorch's
        functionalize emits the copy_ without the guard.
        """
        for storage in self.storages:
            if storage.input_node is not None and storage.current is not storage.input_node:
                guard = storage.written_without_grad and self.grad_state is not False
                if guard:
                    self.graph.call_function(_set_grad_enabled, (False,)).meta["val"] = None
                self.emit(aten.copy_.default, (storage.input_node, storage.current))
                if guard:
                    self.graph.call_function(_set_grad_enabled, (self.grad_state,)).meta["val"] = None

    def call_function(self, old: Node) -> Any:
        target = old.target
        if target is operator.getitem:
            source = self.env.get(old.args[0]) if type(old.args[0]) is Node else None
            if isinstance(source, _ViewList):
                op, rest, kwargs = source.step
                step = (op, rest, kwargs, old.args[1])
                parent = source.source
                node = self.apply_step(self.value(parent), step)
                return _Alias(parent.storage, parent.chain + (step,), node, parent.storage.version)
            node = self.emit(operator.getitem, self.arg(old.args))
            return self.fresh(node) if isinstance(node.meta["val"], Tensor) else node
        if not isinstance(target, OpOverload):  # _set_grad_enabled, operator functions on numbers
            if target is _set_grad_enabled and len(old.args) == 1 and isinstance(old.args[0], bool):
                self.grad_state = old.args[0]
            node = self.graph.call_function(target, self.arg(old.args), self.arg(old.kwargs))
            node.meta = dict(old.meta)
            node.meta.setdefault("val", None)
            return node
        mutated = mutated_arguments(target)
        if mutated:
            return self.inplace(old, mutated)
        aliases = returned_aliases(target)
        if aliases and aliases[0] == "self" and isinstance(self.env.get(old.args[0]), _Alias):
            return self.view(old)
        node = self.emit(target, self.arg(old.args), self.arg(old.kwargs))
        return self.fresh(node) if isinstance(node.meta["val"], Tensor) else node

    def view(self, old: Node) -> Any:
        source: _Alias = self.env[old.args[0]]
        rest, kwargs = tuple(old.args[1:]), dict(old.kwargs)
        node = self.emit(old.target, (self.value(source), *self.arg(rest)), self.arg(kwargs))
        op = old.target
        if op._opname in ("expand_as", "view_as") and len(rest) == 1 and type(rest[0]) is Node:
            # only the other tensor's shape matters: remember the step as expand / view to that shape
            op = aten.expand.default if op._opname == "expand_as" else aten.view.default
            rest = (list(rest[0].meta["val"].shape),)
        if _has_node((rest, kwargs)):
            raise FunctionalizationError(f"{self.where()}: view arguments computed in the graph are not supported")
        if isinstance(node.meta["val"], (list, tuple)):
            return _ViewList(source, (op, rest, kwargs), node, source.storage.version)
        step = (op, rest, kwargs, None)
        return _Alias(source.storage, source.chain + (step,), node, source.storage.version)

    def inplace(self, old: Node, mutated: tuple[str, ...]) -> Any:
        target: OpOverload = old.target
        if mutated != ("self",) or returned_aliases(target)[:1] != ("self",):
            raise FunctionalizationError(f"{self.where()}: only ops that write their `self` argument are supported "
                                         f"(this one writes {', '.join(mutated)})")
        if "nondeterministic_seeded" in target.tags:
            raise FunctionalizationError(f"{self.where()}: random in-place ops have no out-of-place form here")
        alias = self.env.get(old.args[0]) if type(old.args[0]) is Node else None
        if not isinstance(alias, _Alias):
            raise FunctionalizationError(f"{self.where()}: the mutated argument is not a tensor of the graph")
        name = target._opname
        if name == "detach_":
            return alias
        functional = _out_of_place(target)
        if functional is not None and functional.is_view:  # squeeze_ & co change metadata, not values
            node = self.emit(functional, (self.value(alias), *old.args[1:]), dict(old.kwargs))
            step = (functional, tuple(old.args[1:]), dict(old.kwargs), None)
            return _Alias(alias.storage, alias.chain + (step,), node, alias.storage.version)
        self_val = self.value(alias)
        args, kwargs = self.arg(tuple(old.args[1:])), self.arg(dict(old.kwargs))
        new_value = self.functional_call(target, functional, self_val, args, kwargs)
        self.write(alias, new_value)
        return alias

    def functional_call(self, target: OpOverload, functional: OpOverload | None, self_val: Node, args: tuple,
                        kwargs: dict) -> Node:
        name, meta = target._opname, self_val.meta["val"]
        if name == "copy_":
            src = args[0]
            if src.meta["val"].dtype != meta.dtype:
                src = self.emit(aten._to_copy.default, (src,), {"dtype": meta.dtype})
            if list(src.meta["val"].shape) != list(meta.shape):
                src = self.emit(aten.expand.default, (src, list(meta.shape)))
            return src
        if name == "fill_":
            value = args[0]
            if type(value) is not Node:
                return self.emit(aten.full_like.default, (self_val, value))
            if value.meta["val"].dtype != meta.dtype:
                value = self.emit(aten._to_copy.default, (value,), {"dtype": meta.dtype})
            return self.emit(aten.expand.default, (value, list(meta.shape)))
        if name == "zero_":
            return self.emit(aten.zeros_like.default, (self_val,))
        if name == "_index_put_impl_":
            indices, values = args[0], args[1]
            accumulate = args[2] if len(args) > 2 else kwargs.get("accumulate", False)
            return self.emit(aten.index_put.default, (self_val, indices, values, accumulate))
        if functional is None:
            raise FunctionalizationError(f"{self.where()}: no out-of-place form of {target} is registered")
        return self.emit(functional, (self_val, *args), kwargs)


def _bound(op: OpOverload, rest: tuple, kwargs: dict) -> dict[str, Any]:
    """The arguments after ``self`` of a view step, by schema name (defaults filled in)."""
    args = op._schema.arguments[1:]
    bound = {a.name: a.default for a in args if a.has_default}
    bound.update(zip((a.name for a in args), rest))
    bound.update(kwargs)
    return bound


def _has_node(tree: Any) -> bool:
    found = []
    map_arg(tree, found.append)
    return bool(found)


def _out_of_place(op: OpOverload) -> OpOverload | None:
    """``add_.Tensor`` -> ``add.Tensor`` (the same overload of the name without the trailing underscore)."""
    name = op._opname
    if not name.endswith("_"):
        return None
    qualified = f"{op.namespace}::{name[:-1]}"
    raw = op._overload_name_raw
    found = REGISTRY.find(qualified, raw)
    return found if found is not None and found._schema is not None else None


def functionalize(gm: GraphModule, *, remove: str = "mutations") -> GraphModule:
    """A new GraphModule computing the same values as ``gm`` without in-place ops (see the module docstring).

    Mutated graph inputs are updated by ``aten.copy_.default`` nodes just before the output, so the
    new graph has the same effect on its inputs as ``gm``. ``gm`` itself is not changed.
    """
    if remove != "mutations":
        if remove == "mutations_and_views":
            raise NotImplementedError("functionalize(remove='mutations_and_views') needs the *_copy view ops "
                                      "(view_copy, select_copy, ...), which this op listing does not define; "
                                      "use remove='mutations'")
        raise ValueError(f"functionalize: remove must be 'mutations' or 'mutations_and_views', got {remove!r}")
    if not isinstance(gm, GraphModule):
        raise TypeError(f"functionalize expects a GraphModule, got {type(gm).__name__}")
    return _Functionalizer(gm).run()
