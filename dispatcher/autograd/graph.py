"""The autograd graph: ``Node`` (a tensor's ``grad_fn``), ``AccumulateGrad`` and saved tensors.

Corresponds to torch/csrc/autograd/function.h (Node, edges, sequence numbers),
accumulate_grad.h and saved_variable.h. A node knows the edges to the nodes of
its inputs (``next_functions``: (node, input_nr) pairs, None for inputs that
need no gradient) and how to turn the gradients of its outputs into gradients
of its inputs (``apply``). Leaves that require grad end in an ``AccumulateGrad``
node, which adds into ``.grad``. Saved tensors remember the version counter at
save time, so an in-place change before backward is an error, as in PyTorch.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

_MAX_SEQUENCE_NR = (1 << 64) - 1


class _SequenceTLS(threading.local):
    def __init__(self) -> None:
        self.counter = itertools.count()


_sequence = _SequenceTLS()


def next_sequence_nr() -> int:
    """Per-thread increasing numbers: later nodes run first among ready ones (as in PyTorch)."""
    return next(_sequence.counter)


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved."""

    __slots__ = ("_tensor", "_version", "_released", "_node_name", "_output_nr", "_is_output")

    def __init__(self, tensor: Any, node_name: str = "", output_nr: int = 0, is_output: bool = False) -> None:
        self._tensor = tensor
        self._version = tensor._version_counter.version if tensor is not None else 0
        self._released = False
        self._node_name = node_name
        self._output_nr = output_nr
        self._is_output = is_output

    def unpack(self) -> Any:
        if self._released:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward."
            )
        t = self._tensor
        if t is not None and t._version_counter.version != self._version:
            kind = _type_string(t)
            shape = list(t._shape)
            where = f", which is output {self._output_nr} of {self._node_name}," if self._node_name else ""
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{kind} {shape}]{where} is at version {t._version_counter.version}; expected version "
                f"{self._version} instead. Hint: enable anomaly detection to find the operation that failed to "
                "compute its gradient, with torch.autograd.set_detect_anomaly(True)."
            )
        return t

    def release(self) -> None:
        self._released = True
        self._tensor = None


def _type_string(t: Any) -> str:
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "int64": "LongTensor",
             "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
             "bool": "BoolTensor"}
    base = names.get(t._dtype.name, "Tensor")
    return f"torch.{base}" if t._device.type == "cpu" else f"torch.{t._device.type}.{base}"


class Node:
    """A backward function: the ``grad_fn`` of a tensor produced by a differentiable op."""

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
        #: name -> SavedTensor (or a plain value), what the formula needs
        self.saved: dict[str, Any] = {}
        #: metadata of each forward output (shape, dtype, device), to make zero gradients
        self.output_meta: list[Any] = []
        self._pre_hooks: list[Callable[..., Any]] = []
        self._hooks: list[Callable[..., Any]] = []

    def name(self) -> str:
        return type(self).__name__

    def sequence_nr(self) -> int:
        return self._sequence_nr

    def apply(self, grad_outputs: list[Any]) -> Sequence[Any]:
        """Gradients of the inputs (one per ``next_functions`` entry) from the outputs' gradients."""
        if self._backward is None:
            raise RuntimeError(f"{self.name()} has no backward formula")
        return self._backward(self, grad_outputs)

    def save(self, name: str, tensor: Any, is_output: bool = False, output_nr: int = 0) -> None:
        self.saved[name] = SavedTensor(tensor, self.name(), output_nr, is_output) if tensor is not None else None

    def unpack(self, name: str) -> Any:
        value = self.saved[name]
        return value.unpack() if isinstance(value, SavedTensor) else value

    def release_saved(self) -> None:
        for value in self.saved.values():
            if isinstance(value, SavedTensor):
                value.release()

    def register_hook(self, fn: Callable[..., Any]) -> None:
        """``fn(grad_inputs, grad_outputs)`` after this node ran (may return new grad_inputs)."""
        self._hooks.append(fn)

    def register_prehook(self, fn: Callable[..., Any]) -> None:
        """``fn(grad_outputs)`` before this node runs (may return new grad_outputs)."""
        self._pre_hooks.append(fn)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"


_NODE_CLASSES: dict[str, type[Node]] = {}


def node_class(name: str) -> type[Node]:
    """A Node subclass with PyTorch's name (``AddBackward0``), so ``type(t.grad_fn).__name__`` reads right."""
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        cls = _NODE_CLASSES[name] = type(name, (Node,), {"__module__": "dispatcher.autograd.graph"})
    return cls


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds incoming gradients into ``variable.grad``."""

    def __init__(self, variable: Any) -> None:
        super().__init__((), None, 1, sequence_nr=_MAX_SEQUENCE_NR)
        self.variable = variable

    def apply(self, grad_outputs: list[Any]) -> Sequence[Any]:
        from .accumulate import accumulate_grad

        accumulate_grad(self.variable, grad_outputs[0])
        return ()


def gradient_edge(tensor: Any) -> tuple[Node | None, int]:
    """Where a gradient for ``tensor`` flows: its grad_fn, or its AccumulateGrad for a leaf that requires grad."""
    if tensor.grad_fn is not None:
        return tensor.grad_fn, getattr(tensor, "_output_nr", 0)
    if tensor.requires_grad:
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
