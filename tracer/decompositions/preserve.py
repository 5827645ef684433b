"""``make_fx(..., preserve=[ops])``: keep chosen CompositeImplicitAutograd ops whole in a post-dispatch trace.

No direct PyTorch counterpart for make_fx (``torch.export``'s ``run_decompositions`` preserves CIA ops
with ``py_impl`` overrides under the Python dispatcher, torch/export/decomp_utils.py and
torch/_export/utils.py ``_override_composite_implicit_decomp``). Here, for the duration of one trace:

* a kernel is registered directly on AutogradCPU and AutogradMeta for each preserved op (a direct
  registration wins over the CIA kernel that normally fills those keys). On the tracing thread it
  redispatches *below autograd*, so the op itself reaches the Python key, where the proxy mode records
  it as one node; on other threads it runs the CIA decomposition as before;
* the proxy mode, seeing a preserved op, skips its decomposition table and its CIA step, records one
  ``call_function`` node and computes the value by running the op below autograd with the mode popped
  (the CIA decomposition then runs unrecorded);
* autograd: the op's decomposition never ran under autograd, so an output that needs a gradient gets a
  ``NotImplemented`` grad_fn that raises when a backward pass reaches it (the forward graph is fine;
  a backward through a preserved op cannot be traced: trace without preserving it).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from dispatcher.keys import DispatchKey
from dispatcher.keyset import full_after_bits
from dispatcher.library import Library
from dispatcher.op_overload import OpOverload, OpOverloadPacket
from dispatcher.tensor import Tensor
from dispatcher.tls import per_thread

__all__ = ["PreservedOpBackwardError", "preserving", "resolve_preserved"]

_BELOW_AUTOGRAD = full_after_bits(DispatchKey.AutogradOther)
_AUTOGRAD_KEYS = (DispatchKey.AutogradCPU, DispatchKey.AutogradMeta)


class PreservedOpBackwardError(RuntimeError):
    """A backward pass reached the output of an op that make_fx(preserve=...) kept whole."""


def _is_cia(op: OpOverload) -> bool:
    cia = DispatchKey.CompositeImplicitAutograd
    return bool(op.kernels.get(cia)) or cia in op.py_kernels


def resolve_preserved(ops: Iterable[Any] | None) -> frozenset[OpOverload]:
    """The OpOverloads named by ``ops`` (a packet stands for its CompositeImplicitAutograd overloads).

    Raises ValueError for an op without a CompositeImplicitAutograd kernel (those already reach the
    tracing mode whole) and TypeError for something that is not an op.
    """
    out: set[OpOverload] = set()
    for op in ops or ():
        if isinstance(op, OpOverloadPacket):
            overloads = [getattr(op, name) for name in op.overloads()]
            cia = [o for o in overloads if _is_cia(o)]
            if not cia:
                raise ValueError(f"make_fx(preserve=...): {op} has no CompositeImplicitAutograd overload; only "
                                 "CompositeImplicitAutograd ops can be preserved (other ops reach the tracer whole)")
            out.update(cia)
        elif isinstance(op, OpOverload):
            if not _is_cia(op):
                raise ValueError(f"make_fx(preserve=...): {op} is not a CompositeImplicitAutograd op; only "
                                 "CompositeImplicitAutograd ops can be preserved (other ops reach the tracer whole)")
            out.add(op)
        else:
            raise TypeError(f"make_fx(preserve=...) expects OpOverloads or OpOverloadPackets (e.g. "
                            f"aten.linear.default), got {type(op).__name__}: {op!r}")
    return frozenset(out)


class _Active(threading.local):
    def __init__(self) -> None:
        self.ops: dict[OpOverload, int] = {}  #: op -> how many traces on this thread preserve it


_active = _Active()


def _tensors(args: tuple, kwargs: dict) -> list[Tensor]:
    out = []
    for a in (*args, *kwargs.values()):
        for e in a if isinstance(a, (list, tuple)) else (a,):
            if isinstance(e, Tensor):
                out.append(e)
    return out


def _autograd_kernel(op: OpOverload) -> Any:
    def kernel(ks: Any, *args: Any, **kwargs: Any) -> Any:
        if not _active.ops.get(op):
            return op.decompose(*args, **kwargs)  # what the CIA kernel does on this key
        tensors = _tensors(args, kwargs)
        needs_grad = per_thread.s.grad_enabled and any(t.requires_grad for t in tensors)
        out = op.redispatch(ks.repr & _BELOW_AUTOGRAD, *args, **kwargs)
        if needs_grad:
            _set_not_implemented_history(op, tensors, out)
        return out

    return kernel


def _set_not_implemented_history(op: OpOverload, inputs: list[Tensor], out: Any) -> None:
    from dispatcher.autograd.graph import Node, gradient_edge
    from dispatcher.autograd.views import set_history

    def backward(node: Node, grads: list[Any]) -> list[Any]:
        raise PreservedOpBackwardError(
            f"{op} was kept whole by make_fx(preserve=...), so autograd cannot differentiate through it: its "
            "decomposition never ran under autograd. Trace without preserving it to capture the backward.")

    node = Node([gradient_edge(t) if t.requires_grad else (None, 0) for t in inputs], backward)
    outputs = [t for t in (out if isinstance(out, (tuple, list)) else (out,))
               if isinstance(t, Tensor) and (t.dtype.is_floating_point or t.dtype.is_complex)]
    for i, t in enumerate(outputs):
        set_history(t, node, i)
    node.output_meta = [(t._shape, t._dtype, t._device) for t in outputs]
    node.num_outputs = max(len(outputs), 1)


@contextlib.contextmanager
def preserving(ops: frozenset[OpOverload], pre_dispatch: bool) -> Iterator[None]:
    """For the body, on this thread, ``ops`` reach the Python key (and so the proxy mode) whole.

    Pre-dispatch tracing already sees CIA ops whole: nothing is registered then.
    """
    if not ops:
        yield
        return
    libraries: dict[str, Library] = {}
    try:
        if not pre_dispatch:
            for op in sorted(ops, key=str):
                ns = op.namespace
                lib = libraries.get(ns)
                if lib is None:
                    lib = libraries[ns] = Library(ns, "IMPL")
                for key in _AUTOGRAD_KEYS:
                    lib.impl(op, _autograd_kernel(op), key, with_keyset=True,
                             debug="registered by make_fx(preserve=...)")
        for op in ops:
            _active.ops[op] = _active.ops.get(op, 0) + 1
        try:
            yield
        finally:
            for op in ops:
                _active.ops[op] -= 1
                if not _active.ops[op]:
                    del _active.ops[op]
    finally:
        for lib in libraries.values():
            lib._destroy()
