"""The fallback on Autograd<Backend> keys for ops that have no autograd kernel (e.g. user ``Library`` ops).

Corresponds to ``basicAutogradNotImplementedFallback`` in
torch/csrc/autograd/autograd_not_implemented_fallback.cpp, in PyTorch 2.13's
default mode, "warn" (``torch._C._set_autograd_fallback_mode``):

* the op runs below autograd, but *without* excluding autograd for the calls its
  kernel makes: a Python kernel written with differentiable ops records its own
  graph, so gradients may still flow through it;
* when grad mode is on and a tensor argument requires grad, an output that came
  back requiring grad gets a tensor hook that warns when backward reaches it; an
  output that came back without history gets a ``WarnNotImplemented`` node, which
  warns and gives no gradient (a written input gets it through ``rebase_history``).

Mode "nothing" only redispatches. The warning is PyTorch's text, as a UserWarning.
"""

from __future__ import annotations

import warnings
from typing import Any

from .dispatch import redispatch_bound
from .keys import DispatchKey
from .keyset import full_after_bits
from .tls import per_thread

_AFTER_AUTOGRAD = full_after_bits(DispatchKey.AutogradOther)
_MODE = ["warn"]


def get_autograd_fallback_mode() -> str:
    """``torch._C._get_autograd_fallback_mode()``: "warn" (the default) or "nothing"."""
    return _MODE[0]


def set_autograd_fallback_mode(mode: str) -> None:
    """``torch._C._set_autograd_fallback_mode(mode)`` (process-wide, as in PyTorch)."""
    if mode == "error":
        raise RuntimeError("NYI: mode='error'")
    if mode not in ("nothing", "warn"):
        raise RuntimeError(f"Unsupported AutogradFallbackMode: {mode}")
    _MODE[0] = mode


def _tensors(op: Any, args: tuple, kwargs: dict) -> list[Any]:
    """Every tensor argument, Tensor[] members included, in schema order."""
    found = []
    positional = 0
    for arg in op._schema.arguments:
        if arg.kwarg_only:
            value = kwargs.get(arg.name)
        else:
            value = args[positional] if positional < len(args) else None
            positional += 1
        if arg.kind in ("tensor", "optional_tensor"):
            if value is not None:
                found.append(value)
        elif arg.kind != "other" and value is not None:
            found.extend(v for v in value if v is not None)
    return found


def autograd_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """Redispatch below autograd; in "warn" mode, mark outputs so that backward through them warns."""
    if _MODE[0] == "warn" and per_thread.s.grad_enabled:
        tensors = _tensors(op, args, kwargs)
        if any(getattr(t, "requires_grad", False) for t in tensors):
            return _warn_mode(op, ks, args, kwargs, tensors)
    return redispatch_bound(op, ks & _AFTER_AUTOGRAD, args, kwargs)


def warn_autograd_not_implemented(op_name: str) -> None:
    warnings.warn(
        f"{op_name}: an autograd kernel was not registered to the Autograd key(s) but we are trying to backprop "
        "through it. This may lead to silently incorrect behavior. This behavior is deprecated and will be removed "
        "in a future version of PyTorch. If your operator is differentiable, please ensure you have registered an "
        "autograd kernel to the correct Autograd key (e.g. DispatchKey::Autograd, "
        "DispatchKey::CompositeImplicitAutograd). If your operator is not differentiable, or to squash this warning "
        "and use the previous behavior, please register torch::CppFunction::makeFallthrough() to "
        "DispatchKey::Autograd.",
        UserWarning,
        stacklevel=2,
    )


def _warn_mode(op: Any, ks: int, args: tuple, kwargs: dict, tensors: list[Any]) -> Any:
    from .autograd.graph import Node, gradient_edge
    from .autograd.hooks import register_hook
    from .autograd.views import rebase_history, set_history

    op_name = op.name()
    node = _warn_node_class(Node)(op_name, [gradient_edge(t) for t in tensors])
    out = redispatch_bound(op, ks & _AFTER_AUTOGRAD, args, kwargs)

    def warn_hook(grad: Any) -> None:
        warn_autograd_not_implemented(op_name)

    results = out if isinstance(out, (tuple, list)) else (out,)
    returns = op._schema.returns
    metas: list[Any] = []
    for i, result in enumerate(results):
        ret = returns[i] if i < len(returns) else returns[-1]
        mutable = ret.alias_info is not None and ret.alias_info.is_write
        for t in (result if isinstance(result, (list, tuple)) else (result,)):
            if getattr(t, "_dtype", None) is None or not (t._dtype.is_floating_point or t._dtype.is_complex):
                continue
            if t.requires_grad:
                register_hook(t, warn_hook)
                if mutable and t._base is not None and t._base.requires_grad:
                    register_hook(t._base, warn_hook)
                continue
            if mutable:
                if t._base is not None:
                    raise RuntimeError(f"{op_name}: the autograd fallback cannot rebase the history of a view "
                                       "modified in place (this mutates a view and returns it)")
                rebase_history(t, node)
            else:
                set_history(t, node, len(metas))
            metas.append((t._shape, t._dtype, t._device))
    node.output_meta = metas
    node.num_outputs = max(len(metas), 1)
    return out


_WARN_NODE: list[Any] = []


def _warn_node_class(node_base: type) -> type:
    """``WarnNotImplemented``, made on first use (this module loads before the autograd package)."""
    if _WARN_NODE:
        return _WARN_NODE[0]

    class WarnNotImplemented(node_base):  # type: ignore[valid-type, misc]
        """Warns that the op has no autograd kernel, and gives no gradient to its inputs."""

        def __init__(self, op_name: str, edges: list[Any]) -> None:
            super().__init__(edges)
            self.op_name = op_name

        def name(self) -> str:
            return "torch::autograd::WarnNotImplemented"

        def apply(self, grad_outputs: list[Any]) -> list[Any]:
            warn_autograd_not_implemented(self.op_name)
            return [None] * len(self.next_functions)

    # NB: PyTorch's Python side shows C++-only nodes as ``CppFunction`` (name() gives the C++ name).
    WarnNotImplemented.__name__ = WarnNotImplemented.__qualname__ = "CppFunction"
    _WARN_NODE.append(WarnNotImplemented)
    return WarnNotImplemented
