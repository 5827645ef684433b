"""A graph segment: the FX graph ``tracer.compile`` is capturing between two graph breaks.

A ``Segment`` holds the graph, the FakeTensorMode its values are computed in, the real tensors it reads (one
placeholder each, in first-read order, named after the compiled function's parameters), the fakes made for
them, and the lazy tensors (compile_lazy.py) that stand for its nodes' results. Its methods are the graph
building the capture session (compile_capture.py) does for each torch-level call: fakes for the arguments
(``to_fake``), node arguments for them (``node_args``, placeholders made on first use), one node per call
(``record``, with ``_set_grad_enabled`` nodes where grad mode changed and the user's line as ``stack_trace``)
and lazy tensors for its tensor results (``attach_outputs``, ``getitem`` nodes for results inside tuples).
The session flushes it (ends it with an output node, compiles and runs it) and starts a new one.

PyTorch counterpart: torch/_dynamo/output_graph.py (``OutputGraph``: the FX graph being built, its graph
inputs, the fake mode, ``create_proxy``) together with the placeholder / ``wrap_fx_proxy`` parts of
torch/_dynamo/variables/builder.py.
"""

from __future__ import annotations

import operator
import weakref
from typing import Any

from dispatcher.autograd import grad_mode as _grad_mode
from dispatcher.fake import FakeTensorMode
from dispatcher.tensor import Tensor

from . import pytree
from .compile_call_sites import _location, format_location
from .compile_lazy import LazyTensor, _make_lazy
from .graph import Graph, Node

__all__ = ["Segment"]


class Segment:
    """The graph being captured, its inputs and fakes, and the lazy tensors of its results."""

    __slots__ = ("graph", "fake_mode", "inputs", "input_nodes", "fakes", "lazies", "n_calls", "grad0", "grad_now",
                 "first_body", "input_names")

    def __init__(self, input_names: dict[int, str]) -> None:
        self.graph = Graph()
        self.fake_mode = FakeTensorMode(allow_non_fake_inputs=False)
        self.inputs: list[Tensor] = []  # real tensors, in placeholder order
        self.input_nodes: dict[int, Node] = {}  # id(real) -> placeholder
        self.fakes: dict[int, tuple[Tensor, Any, int]] = {}  # id(real) -> (real, fake, version when made)
        self.lazies: list[tuple[Node, Any]] = []  # (node, weakref to its LazyTensor), creation order
        self.n_calls = 0
        self.grad0: bool = _grad_mode.is_grad_enabled()  # grad mode where the segment starts (Python resumes)
        self.grad_now: bool = self.grad0  # grad mode after the nodes recorded so far
        self.first_body: Node | None = None
        self.input_names = input_names

    # --- arguments -------------------------------------------------------------------------------------------------
    def needs_data(self, args: tuple, kwargs: dict) -> bool:
        """Does a call on these arguments need values: a lazy tensor, or a real tensor the graph writes to?"""
        for a in pytree.arg_tree_leaves(*args, **kwargs):
            if type(a) is LazyTensor:
                return True
            if isinstance(a, Tensor):
                hit = self.fakes.get(id(a))
                if hit is not None and hit[0] is a and hit[1]._version_counter.version != hit[2]:
                    return True  # a real tensor the pending graph writes to
        return False

    def to_fake(self, a: Any) -> Any:
        """The fake standing for ``a`` in this segment (lazy tensors carry theirs; real ones get one, once)."""
        if type(a) is LazyTensor:
            return a.__dict__["_lz_fake"]
        if isinstance(a, Tensor):
            hit = self.fakes.get(id(a))
            if hit is None or hit[0] is not a:
                fake = self.fake_mode.from_tensor(a)
                hit = self.fakes[id(a)] = (a, fake, fake._version_counter.version)
            return hit[1]
        return a

    # --- nodes -----------------------------------------------------------------------------------------------------
    def node_args(self, tree: Any) -> Any:
        """``tree`` with lazy tensors replaced by their nodes and real tensors by placeholders."""
        def to_node(a: Any) -> Any:
            if type(a) is LazyTensor:
                node = a.__dict__.get("_lz_node")
                if node is None:
                    raise RuntimeError("tracer.compile: a tensor made inside an allow_in_graph function was used "
                                       "outside it without being returned by it")
                return node
            if isinstance(a, Tensor):
                return self.placeholder(a)
            if isinstance(a, slice):
                return a
            return a

        return pytree.tree_map(to_node, tree)

    def placeholder(self, real: Tensor) -> Node:
        """The placeholder reading ``real`` (made on first use, before the first body node)."""
        node = self.input_nodes.get(id(real))
        if node is not None and self.inputs[node.meta["_index"]] is real:
            return node
        name = self.input_names.get(id(real), "input")
        graph = self.graph
        if self.first_body is None:
            node = graph.placeholder(name)
        else:
            with graph.inserting_before(self.first_body):
                node = graph.placeholder(name)
        node.meta["val"] = self.to_fake(real)
        node.meta["_index"] = len(self.inputs)
        self.inputs.append(real)
        self.input_nodes[id(real)] = node
        return node

    def record(self, op: str, target: Any, args: tuple, kwargs: dict, out: Any, frame: Any) -> Node:
        """One node for a call made at ``frame`` whose fake result is ``out``."""
        graph = self.graph
        grad = _grad_mode.is_grad_enabled()
        if grad != self.grad_now:  # Dynamo's graphs switch grad mode with `_set_grad_enabled` nodes too
            graph.create_node("call_function", _grad_mode._set_grad_enabled, (grad,)).meta["val"] = None
            self.grad_now = grad
        node = graph.create_node(op, target, args, kwargs)
        if self.first_body is None:
            self.first_body = node
        node.meta["val"] = out
        loc = _location(frame)
        if loc is not None:
            node.meta["stack_trace"] = f'  {format_location(loc)}\n'
        self.n_calls += 1
        return node

    # --- results ---------------------------------------------------------------------------------------------------
    def attach_outputs(self, node: Node, retval: Any, fake_out: Any, fake_to_arg: dict | None = None) -> Any:
        """Give ``node``'s tensor results their lazy tensors (getitem nodes for results inside containers)."""
        return self._attach(retval, fake_out, node, fake_to_arg)

    def _attach(self, value: Any, fake: Any, src: Node, fake_to_arg: dict | None) -> Any:
        # NB: a method, not a recursive closure: a closure referring to itself is a reference cycle that would
        # keep the arguments (lazy tensors) alive until the next gc, and alive lazy tensors become graph outputs.
        if isinstance(fake, Tensor):
            if fake_to_arg is not None:
                same = fake_to_arg.get(id(fake))
                if same is not None:
                    return same
            if type(value) is LazyTensor and value.__dict__.get("_lz_node") is not None:
                return value  # an input returned by an opaque function
            lz = value if type(value) is LazyTensor else _make_lazy(fake, src)
            lz.__dict__["_lz_node"] = src
            self.lazies.append((src, weakref.ref(lz)))
            return lz
        if isinstance(fake, (tuple, list)) and any(isinstance(x, Tensor) for x in pytree.tree_leaves(fake)):
            items = []
            for i, f in enumerate(fake):
                v = value[i] if value is not None else None
                if any(isinstance(x, Tensor) for x in pytree.tree_leaves(f)):
                    g = self.graph.create_node("call_function", operator.getitem, (src, i))
                    g.meta["val"] = f
                    items.append(self._attach(v, f, g, fake_to_arg))
                else:
                    items.append(f)
            if hasattr(fake, "_fields"):
                return type(fake)(*items)
            return type(fake)(items)
        return value if value is not None else fake


def opaque_result(fflat: list, flat: list, out: Any) -> Any:
    """The result of a call inside an ``allow_in_graph`` function: arguments returned as they are, new lazy
    tensors (no node: the opaque function's own node stands for them) for the rest."""
    fake_to_arg = {id(f): a for f, a in zip(fflat, flat, strict=True) if isinstance(f, Tensor)}

    def wrap(v: Any) -> Any:
        if isinstance(v, Tensor):
            same = fake_to_arg.get(id(v))
            return same if same is not None else _make_lazy(v, None)
        return v

    return pytree.tree_map(wrap, out)
