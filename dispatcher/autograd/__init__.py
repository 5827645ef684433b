"""``dispatcher.autograd``: reverse-mode autograd as a dispatch key.

Corresponds to torch/autograd/. ``graph.py`` holds the nodes, ``engine.py`` runs
them, ``function.py`` is the generic Autograd kernel that records nodes for ops
with a derivative formula, ``grad_mode.py`` the thread-local switch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .engine import run_backward
from .function import DERIVATIVES, Derivative, autograd_kernel, derivative
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .graph import AccumulateGrad, Node, SavedTensor


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _seeds(outputs: tuple, grad_outputs: Any) -> list[Any]:
    grads = list(_as_tuple(grad_outputs)) or [None] * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs (got {len(grads)} gradients for "
                           f"{len(outputs)} tensors)")
    seeds = []
    for out, g in zip(outputs, grads):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            from ..op_overload import namespace

            g = namespace("aten").ones_like.default(out, pin_memory=False)
        seeds.append(g)
    return seeds


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Sequence[Any] | None = None,
) -> None:
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``)."""
    outputs = _as_tuple(tensors)
    retain = create_graph if retain_graph is None else retain_graph
    run_backward(outputs, _seeds(outputs, grad_tensors), retain, create_graph,
                 inputs=_as_tuple(inputs) or None, accumulate_grad=True)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[Any, ...]:
    """Gradients of ``outputs`` with respect to ``inputs`` (no ``.grad`` is touched)."""
    outs = _as_tuple(outputs)
    retain = create_graph if retain_graph is None else retain_graph
    result = run_backward(outs, _seeds(outs, grad_outputs), retain, create_graph,
                          inputs=_as_tuple(inputs), allow_unused=allow_unused, accumulate_grad=False)
    return result if result is not None else ()


def register_autograd_kernel(op: Any) -> None:
    """Install the generic autograd kernel on ``op``'s Autograd alias key (the op needs a derivative)."""
    from ..kernel import BOXED, KernelFunction
    from ..keys import DispatchKey
    from ..library import _register_kernel

    _register_kernel(op, DispatchKey.Autograd,
                     KernelFunction(autograd_kernel, BOXED, "registered at dispatcher/autograd/function.py"))


__all__ = [
    "AccumulateGrad", "DERIVATIVES", "Derivative", "Node", "SavedTensor", "autograd_kernel", "backward",
    "derivative", "enable_grad", "grad", "is_grad_enabled", "no_grad", "register_autograd_kernel",
    "set_grad_enabled",
]
