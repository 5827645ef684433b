"""Compiler backends for tracer.compile: callables ``backend(gm, example_inputs) -> callable`` (PyTorch: torch/_dynamo/backends/).

``lookup_backend(name_or_callable)`` resolves what ``tracer.compile(fn, backend=...)`` was given, as
``torch._dynamo.lookup_backend`` does. Built in:

* ``"eager"``: run the captured torch-level GraphModule as it is (``gm.forward``);
* ``"aot_eager"``: lower the graph to aten ops with ``make_fx`` on the segment's example inputs (fake tensors),
  then run that aten GraphModule. NB: PyTorch's aot_eager traces a joint forward+backward graph with
  AOTAutograd; we have no AOTAutograd, so when an input requires grad (or the graph switches grad mode) the
  lowering is *pre-dispatch* (aten ops before autograd, ``_set_grad_enabled`` kept) and eager autograd
  differentiates the replay; otherwise it is post-dispatch (decomposed, as PyTorch's forward graph);
* ``"numpy"``: tracer/backends/numpy_backend.py (straight-line NumPy code), imported on first use;
* any callable ``backend(gm, example_inputs) -> callable``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["aot_eager", "eager", "list_backends", "lookup_backend", "register_backend"]

Backend = Callable[[Any, list], Callable[..., Any]]


def eager(gm: Any, example_inputs: list) -> Callable[..., Any]:
    """Run the captured torch-level graph as it is."""
    return gm.forward


def _has_grad_mode_nodes(gm: Any) -> bool:
    return any(n.op == "call_function" and getattr(n.target, "__name__", "") == "_set_grad_enabled"
               for n in gm.graph.nodes)


def aot_eager(gm: Any, example_inputs: list) -> Callable[..., Any]:
    """Lower to aten with make_fx (post-dispatch, or pre-dispatch when autograd must see the replay), then run it."""
    from dispatcher.autograd import is_grad_enabled
    from dispatcher.tensor import Tensor

    from ..proxy_tensor import make_fx

    needs_autograd = is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad for t in example_inputs)
    pre = needs_autograd or _has_grad_mode_nodes(gm)
    aten_gm = make_fx(gm.forward, tracing_mode="fake", pre_dispatch=pre, record_stack_traces=False)(*example_inputs)
    forward = aten_gm.forward
    forward.__self__.aot_pre_dispatch = pre  # type: ignore[attr-defined]  (tests and explain read it)
    return forward


def _numpy(gm: Any, example_inputs: list) -> Callable[..., Any]:
    try:
        from .numpy_backend import numpy_backend
    except ImportError as e:
        raise RuntimeError("tracer.compile(backend='numpy'): the NumPy backend (tracer/backends/numpy_backend.py, "
                           f"function numpy_backend) could not be imported: {e}") from e
    return numpy_backend(gm, example_inputs)


_BACKENDS: dict[str, Backend] = {"eager": eager, "aot_eager": aot_eager, "numpy": _numpy}


def register_backend(name: str, fn: Backend) -> Backend:
    """Make ``fn`` available as ``tracer.compile(..., backend=name)``."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"register_backend: the name must be a non-empty str, got {name!r}")
    if not callable(fn):
        raise TypeError(f"register_backend({name!r}): expected a callable backend(gm, example_inputs), got "
                        f"{type(fn).__name__}")
    _BACKENDS[name] = fn
    return fn


def list_backends() -> list[str]:
    """The registered backend names."""
    return sorted(_BACKENDS)


def lookup_backend(backend: str | Backend) -> Backend:
    """The backend callable for a name or a callable (``torch._dynamo.lookup_backend``)."""
    if callable(backend):
        return backend
    if isinstance(backend, str):
        fn = _BACKENDS.get(backend)
        if fn is None:
            raise ValueError(f"Invalid backend: {backend!r}, see `tracer.backends.list_backends()` for available "
                             f"backends: {list_backends()}")
        return fn
    raise TypeError(f"tracer.compile: backend must be a name or a callable backend(gm, example_inputs), got "
                    f"{type(backend).__name__}")
