"""The autograd graph: ``Node`` (a tensor's ``grad_fn``), ``AccumulateGrad`` and saved tensors.

Corresponds to torch/csrc/autograd/function.h (Node, edges, sequence numbers),
accumulate_grad.h and saved_variable.{h,cpp}. A node knows the edges to the
nodes of its inputs (``next_functions``: (node, input_nr) pairs, (None, 0) for
inputs that need no gradient) and how to turn the gradients of its outputs into
gradients of its inputs (``apply``). Leaves that require grad end in an
``AccumulateGrad`` node, which adds into ``.grad``.

Saved tensors follow SavedVariable: an *input* (or a leaf) is kept as is; an
*output* of the node is kept as a detached shallow copy (``shallow_copy_and_detach``,
which a dispatch mode sees as ``aten.detach``) so the graph holds no cycle, and is
re-attached to the node when unpacked (another shallow copy). Both remember the
version counter at save time: an in-place change before backward is PyTorch's
"modified by an inplace operation" error.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import types
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .accumulate import accumulate_grad, engine_holds_only

_MAX_SEQUENCE_NR = (1 << 64) - 1

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward."
)


class _SequenceTLS(threading.local):
    def __init__(self) -> None:
        self.counter = itertools.count()


_sequence = _SequenceTLS()


def next_sequence_nr() -> int:
    """Per-thread increasing numbers: later nodes run first among ready ones (as in PyTorch)."""
    return next(_sequence.counter)


class _GraphTaskTLS(threading.local):
    #: the nodes the running backward pass executes (None: all): its ``exec_info``
    needed: set[Any] | None = None


_graph_task = _GraphTaskTLS()


@contextlib.contextmanager
def graph_task_exec_info(needed: set[Any] | None) -> Iterator[None]:
    """Set by the engine for one backward pass: which nodes it will run (``inputs=`` restricts them)."""
    previous = _graph_task.needed
    _graph_task.needed = needed
    try:
        yield
    finally:
        _graph_task.needed = previous


def task_should_compute_output(node: Node, index: int) -> bool:
    """Does the running backward pass need the gradient ``node`` sends along its edge ``index``?"""
    nxt = node.next_functions[index][0]
    if nxt is None:
        return False
    needed = _graph_task.needed
    return needed is None or nxt in needed


def forward_op_name(node_name: str) -> str:
    """The name error messages use for a node (PyTorch 2.13's ``Node::forward_op_name``).

    ``MulBackward0`` -> ``Mul``, ``AddBackward1`` -> ``Add1``; a name without a
    ``Backward<digits>`` suffix (``CopySlices``, ``CopyBackwards``) is kept whole.
    """
    pos = node_name.rfind("Backward")
    if pos < 0:
        return node_name
    suffix = node_name[pos + 8:]
    if suffix and not suffix.isdigit():
        return node_name
    return node_name[:pos] + ("" if suffix in ("", "0") else suffix)


def _shallow_copy_and_detach(t: Any) -> Any:
    global _shallow_copy
    if _shallow_copy is None:
        from ..python_key import shallow_copy_and_detach as _shallow_copy
    return _shallow_copy(t)


_shallow_copy: Any = None  #: python_key.shallow_copy_and_detach, imported on first use (avoiding an import cycle)


class SavedTensor:
    """A tensor saved for backward (PyTorch's ``SavedVariable``), with the version it had when saved."""

    __slots__ = ("_data", "_version", "_released", "_is_leaf", "_saved_original", "_output_nr", "_weak_grad_fn")

    def __init__(self, tensor: Any, is_output: bool = False, is_inplace_on_view: bool = False) -> None:
        self._version = tensor._version_counter.version
        self._released = False
        self._is_leaf = tensor.is_leaf
        self._output_nr = 0
        # An in-place op on a view saves the view's (regenerated) grad_fn, for the error message only.
        self._weak_grad_fn = weakref.ref(tensor.grad_fn) if is_inplace_on_view else None
        if not is_output or self._is_leaf:
            # An input's grad_fn is some other, finished node: keeping the tensor makes no cycle.
            self._saved_original = True
            self._data = tensor
        else:
            self._saved_original = False
            self._output_nr = tensor._output_nr
            self._data = _shallow_copy_and_detach(tensor)

    def unpack(self, saved_for: Node | None = None) -> Any:
        """The saved value; ``saved_for`` is the node that owns it (the grad_fn of an unpacked output)."""
        if self._released:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        data = self._data
        if self._weak_grad_fn is not None:
            grad_fn = self._weak_grad_fn()
        else:
            grad_fn = data.grad_fn if self._saved_original else None
        if not self._is_leaf and grad_fn is None:
            if saved_for is None:
                raise RuntimeError(
                    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is "
                    "not supported, please use out-of-place `.detach()` instead"
                )
            grad_fn = saved_for
        current = data._version_counter.version
        if current != self._version:
            where = f", which is output {self._output_nr} of {forward_op_name(grad_fn.name())}," if grad_fn else ""
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{_type_string(data)} [{', '.join(str(s) for s in data._shape)}]]{where} is at version {current}; "
                f"expected version {self._version} instead. Hint: enable anomaly detection to find the operation "
                "that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
            )
        if self._saved_original:
            return data
        # make_variable(data, Edge(grad_fn, output_nr)): a fresh shallow copy attached to the node.
        var = _shallow_copy_and_detach(data)
        var._grad_fn = grad_fn
        var._output_nr = self._output_nr
        var._requires_grad = True
        return var

    def release(self) -> None:
        self._released = True
        self._data = None


def _type_string(t: Any) -> str:
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "int64": "LongTensor",
             "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
             "bool": "BoolTensor", "bfloat16": "BFloat16Tensor", "complex64": "ComplexFloatTensor",
             "complex128": "ComplexDoubleTensor", "uint16": "UInt16Tensor", "uint32": "UInt32Tensor",
             "uint64": "UInt64Tensor"}
    base = names.get(t._dtype.name, "Tensor")
    return f"torch.{base}" if t._device.type == "cpu" else f"torch.{t._device.type}.{base}"


class _ListHandle:
    """What ``Node.register_hook`` / ``register_prehook`` return: ``remove()`` takes the hook out again."""

    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks: list[Any], fn: Any) -> None:
        self._hooks = hooks
        self._fn = fn

    def remove(self) -> None:
        for i, h in enumerate(self._hooks):
            if h is self._fn:
                del self._hooks[i]
                return

    def __enter__(self) -> _ListHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class Node:
    """A backward function: the ``grad_fn`` of a tensor produced by a differentiable op."""

    #: output_nr -> [hook dicts of tensors]: the tensors' ``register_hook`` hooks (see hooks.py)
    _tensor_hooks: dict[int, list[Any]] | None = None
    #: output_nr -> the retain_grad hook of the tensor that is that output
    _retains_grad_hooks: dict[int, Any] | None = None
    #: called by the engine with the incoming gradients before ``apply`` (tensor hooks come first);
    #: ``fn(grad_inputs, grad_outputs)`` after it. Empty tuples until a hook is registered (a list then).
    _pre_hooks: Any = ()
    _hooks: Any = ()

    def __init__(
        self,
        next_functions: Sequence[tuple[Node | None, int]] = (),
        backward: Callable[[Node, list[Any]], Sequence[Any]] | None = None,
        num_outputs: int = 1,
        sequence_nr: int | None = None,
    ) -> None:
        #: (node, input_nr) for each differentiable input, (None, 0) where no gradient is needed
        self.next_functions: tuple[tuple[Node | None, int], ...] = tuple(next_functions)
        #: later nodes run first among the ready ones
        self._sequence_nr = next_sequence_nr() if sequence_nr is None else sequence_nr
        #: how many outputs (= how many incoming gradients) this node has
        self.num_outputs = num_outputs
        self._backward = backward
        #: name -> SavedTensor (a list of them for a Tensor[]), or a plain value: what the formula needs
        self.saved: dict[str, Any] = {}
        #: metadata of each forward output (shape, dtype, device), to make zero gradients
        self.output_meta: list[Any] = []

    def name(self) -> str:
        name = type(self).__name__
        # torchgen's nodes for ops without a formula are the C++ class torch::autograd::NotImplemented
        return "torch::autograd::NotImplemented" if name == "NotImplemented" else name

    def sequence_nr(self) -> int:
        return self._sequence_nr

    def apply(self, grad_outputs: list[Any]) -> Sequence[Any]:
        """Gradients of the inputs (one per ``next_functions`` entry) from the outputs' gradients."""
        if self._backward is None:
            raise RuntimeError(f"{self.name()} has no backward formula")
        return self._backward(self, grad_outputs)

    def __call__(self, *grad_outputs: Any) -> Any:
        """``grad_fn(grad)``: apply the node directly (PyTorch allows it for debugging)."""
        result = tuple(self.apply(list(grad_outputs)))
        return result[0] if len(result) == 1 else result

    def save(self, name: str, tensor: Any, is_output: bool = False, output_nr: int = 0) -> None:
        """Save ``tensor`` (a Tensor, None, or a list of them) under ``name`` for the formula."""
        if isinstance(tensor, (list, tuple)):
            self.saved[name] = [SavedTensor(t, is_output) if t is not None else None for t in tensor]
        else:
            self.saved[name] = SavedTensor(tensor, is_output) if tensor is not None else None

    def unpack(self, name: str) -> Any:
        value = self.saved[name]
        if isinstance(value, SavedTensor):
            return value.unpack(self)
        if isinstance(value, list) and any(isinstance(v, SavedTensor) for v in value):
            return [v.unpack(self) if isinstance(v, SavedTensor) else v for v in value]
        return value

    def release_saved(self) -> None:
        for value in self.saved.values():
            if isinstance(value, SavedTensor):
                value.release()
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, SavedTensor):
                        v.release()

    def register_hook(self, fn: Callable[..., Any]) -> _ListHandle:
        """``fn(grad_inputs, grad_outputs)`` after this node ran (may return new grad_inputs)."""
        if self._hooks.__class__ is tuple:
            self._hooks = list(self._hooks)
        self._hooks.append(fn)
        return _ListHandle(self._hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> _ListHandle:
        """``fn(grad_outputs)`` before this node runs (may return new grad_outputs)."""
        hooks = self.own_pre_hooks()
        hooks.append(fn)
        return _ListHandle(hooks, fn)

    def own_pre_hooks(self) -> list[Callable[..., Any]]:
        """This node's pre-hook list, made on first use."""
        if self._pre_hooks.__class__ is tuple:
            self._pre_hooks = list(self._pre_hooks)
        return self._pre_hooks

    def _register_hook_dict(self, tensor: Any) -> None:
        """Attach ``tensor._backward_hooks`` as a tensor pre-hook of this node (PyTorch's internal of the same name)."""
        from .hooks import add_tensor_hooks

        add_tensor_hooks(self, tensor._output_nr, tensor._backward_hooks)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"


_NODE_CLASSES: dict[str, type[Node]] = {}


def node_class(name: str, python_class: str | None = None) -> type[Node]:
    """A Node subclass with PyTorch's name (``AddBackward0``), so ``type(t.grad_fn).__name__`` reads right.

    ``python_class`` names the class otherwise: torch's nodes without a Python binding show as ``CppFunction``
    (their ``name()`` is still ``name``)."""
    key = name if python_class is None or python_class == name else f"{python_class}:{name}"
    cls = _NODE_CLASSES.get(key)
    if cls is None:
        attrs: dict[str, Any] = {"__module__": "dispatcher.autograd.graph"}
        if key != name:
            attrs["name"] = lambda self: name
        cls = _NODE_CLASSES[key] = type(python_class or name, (Node,), attrs)
    return cls


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds incoming gradients into ``variable.grad``.

    The leaf's own ``register_hook`` hooks are this node's tensor pre-hooks (they live on
    the tensor, so they are read when the node runs, as ``AccumulateGrad::tensor_pre_hooks``).
    """

    #: never saves anything (a read-only empty mapping shared by all)
    saved = types.MappingProxyType({})
    _user_pre_hooks: Any = ()

    def __init__(self, variable: Any) -> None:
        # Node.__init__ written out: one of these is made per leaf per graph, so it is kept minimal.
        self.next_functions = ()
        self._sequence_nr = _MAX_SEQUENCE_NR
        self.num_outputs = 1
        self._backward = None
        self.variable = variable

    @property
    def output_meta(self) -> list[Any]:  # type: ignore[override]
        v = self.variable
        return [(v._shape, v._dtype, v._device)]

    @property
    def _pre_hooks(self) -> Any:  # type: ignore[override]
        if self.variable._backward_hooks:
            from .hooks import leaf_hooks_runner

            return [leaf_hooks_runner(self.variable), *self._user_pre_hooks]
        return self._user_pre_hooks

    def own_pre_hooks(self) -> list[Callable[..., Any]]:
        if self._user_pre_hooks.__class__ is tuple:
            self._user_pre_hooks = list(self._user_pre_hooks)
        return self._user_pre_hooks

    def release_saved(self) -> None:
        pass

    def apply(self, grad_outputs: list[Any]) -> Sequence[Any]:
        new_grad = grad_outputs[0]
        grad_outputs[0] = None  # take it out of the engine's buffer, as C++ moves it
        if new_grad is None:
            return ()
        variable = self.variable
        if variable.grad_fn is not None:
            raise RuntimeError("leaf variable has been moved into the graph interior")
        if not variable.requires_grad:
            return ()
        stealable = engine_holds_only(new_grad)
        accumulate_grad(variable, new_grad, stealable)
        hooks = variable.__dict__.get("_post_accumulate_grad_hooks")
        if hooks:
            from .hooks import check_hook_result

            for hook in list(hooks.values()):
                result = hook(variable)
                if result is not None and result is not variable:  # returning the tensor itself is tolerated
                    check_hook_result(variable, result, hook)
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return ()


def gradient_edge(tensor: Any) -> tuple[Node | None, int]:
    """Where a gradient for ``tensor`` flows: its grad_fn, or its AccumulateGrad for a leaf that requires grad."""
    fn = tensor.grad_fn
    if fn is not None:
        return fn, tensor._output_nr
    if tensor._requires_grad:  # the tensor's own flag: a view that only inherits its base's gets no edge
        return grad_accumulator(tensor), 0
    return None, 0


def grad_accumulator(tensor: Any) -> AccumulateGrad:
    """The (cached, weakly held) AccumulateGrad of a leaf."""
    meta = tensor._autograd_meta
    acc = meta() if isinstance(meta, weakref.ref) else None
    if acc is None:
        acc = AccumulateGrad(tensor)
        tensor._autograd_meta = weakref.ref(acc)
    return acc
