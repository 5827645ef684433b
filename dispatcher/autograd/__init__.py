"""``dispatcher.autograd``: reverse-mode autograd as a dispatch key.

Corresponds to torch/autograd/. ``graph.py`` holds the nodes, ``engine.py`` runs
them, ``function.py`` is the generic Autograd kernel that records nodes for ops
with a derivative formula, ``grad_mode.py`` the thread-local switch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .custom_function import Function, FunctionCtx, once_differentiable
from .engine import run_backward
from .function import DERIVATIVES, Derivative, autograd_kernel, derivative
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import AccumulateGrad, Node, SavedTensor
from .inference_mode import inference_mode, is_inference_mode_enabled


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _size(t: Any) -> str:
    return f"torch.Size([{', '.join(str(s) for s in t._shape)}])"


_DEPS: dict[str, Any] = {}  #: what _seeds needs from modules importing this package, imported on first use


def _tensor_class() -> Any:
    cls = _DEPS.get("Tensor")
    if cls is None:
        from ..tensor import Tensor

        cls = _DEPS["Tensor"] = Tensor
    return cls


def _ones_like_deps() -> tuple[Any, Any]:
    deps = _DEPS.get("ones_like")
    if deps is None:
        from ..memory_format import preserve_format
        from ..op_overload import namespace

        deps = _DEPS["ones_like"] = (namespace("aten"), preserve_format)
    return deps


def _seeds(outputs: tuple, grad_outputs: Any) -> list[Any]:
    """The gradients backward starts from (``torch.autograd._make_grads``): checked, or ones for scalars."""
    Tensor = _tensor_class()  # noqa: N806 - the class

    grads = (None,) * len(outputs) if grad_outputs is None else _as_tuple(grad_outputs)
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if isinstance(g, Tensor):
            if tuple(g._shape) != tuple(out._shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {_size(g)} and output[{i}] "
                                   f"has a shape of {_size(out)}.")
            if out._dtype.is_complex != g._dtype.is_complex:
                raise RuntimeError("For complex Tensors, both grad_output and output are required to have the same "
                                   f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g._dtype} and "
                                   f"output[{i}] has a dtype of {out._dtype}.")
        elif g is None:
            if getattr(out, "requires_grad", False):
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out._dtype.is_floating_point:
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                       f"{out._dtype}")
                aten, preserve_format = _ones_like_deps()
                g = aten.ones_like.default(out, pin_memory=False, memory_format=preserve_format)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        seeds.append(g)
    if len(seeds) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(seeds)} gradients")
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
    if inputs is not None and not _as_tuple(inputs):
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    for t in _as_tuple(inputs):
        t.retain_grad()  # as PyTorch's engine does: a non-leaf input gets its .grad filled
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
    from ..library.core import _register_kernel

    name = op.name().split("::", 1)[1]
    manual = MANUAL_AUTOGRAD_KERNELS.get(name)
    if manual is not None:
        _register_kernel(op, DispatchKey.Autograd, KernelFunction(manual, BOXED, f"registered at {manual.__module__}"))
        return
    _register_kernel(op, DispatchKey.Autograd,
                     KernelFunction(autograd_kernel, BOXED, "registered at dispatcher/autograd/function.py"))


def _detach__kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """detach_'s Autograd kernel (PyTorch's VariableTypeManual): all autograd, nothing dispatched below."""
    return _tensor_api().detach_(args[0] if args else kwargs["self"])


_TENSOR_API: Any = None


def _tensor_api() -> Any:
    """autograd/tensor_api.py (imported on first use, as it imports this package)."""
    global _TENSOR_API
    if _TENSOR_API is None:
        from . import tensor_api

        _TENSOR_API = tensor_api
    return _TENSOR_API


#: ops whose Autograd kernel is hand-written (PyTorch's VariableTypeManual.cpp); they get no ADInplaceOrView kernel
MANUAL_AUTOGRAD_KERNELS: dict[str, Any] = {"detach_": _detach__kernel}


__all__ = [
    "AccumulateGrad", "DERIVATIVES", "Derivative", "GradcheckError", "Node", "SavedTensor", "autograd_kernel",
    "backward", "derivative", "enable_grad", "grad", "gradcheck", "gradgradcheck", "is_grad_enabled", "no_grad",
    "register_autograd_kernel", "set_grad_enabled",
    "inference_mode", "is_inference_mode_enabled",
    "Function", "FunctionCtx", "once_differentiable",  # custom_function.py (torch/autograd/function.py)
]
