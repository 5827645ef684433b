"""BackendSelect kernels of the factory ops: pick the backend from ``device=`` and redispatch to it.

Corresponds to PyTorch's generated RegisterBackendSelect.cpp. A factory call has no tensors to dispatch on, so its
key set is the TLS one, {BackendSelect}; the BackendSelect kernel reads ``device=`` and redispatches to exactly
that backend's key (SEMANTICS §1.8). ``register_backend_select(*names)`` gives each named op this kernel; the
family modules call it for their factory ops (factories.py, random.py, conversions.py).
"""

from __future__ import annotations

from typing import Any

from ..keys import DispatchKey
from ..keyset import DispatchKeySet, full_after_bits
from ..tensor import Tensor, as_device
from ..tls import per_thread
from .kernel_registry import KERNELS, impl

_BACKEND_KEY_SETS = {"cpu": DispatchKeySet(DispatchKey.CPU), "meta": DispatchKeySet(DispatchKey.Meta)}
_BACKEND_BITS = {name: ks.raw_repr() for name, ks in _BACKEND_KEY_SETS.items()}
_AFTER_BACKEND_SELECT = full_after_bits(DispatchKey.BackendSelect)


def backend_select(op_name: str):  # noqa: ANN201
    """The BackendSelect kernel of a factory op: redispatch to the backend ``device=`` names.

    With no tensor arguments the key set is just that backend's key (so autograd and
    ADInplaceOrView never run). With tensor arguments (``_to_copy``), their keys are
    added and TLS applied under FULL_AFTER(BackendSelect), like PyTorch's generated kernels.
    """
    op = None

    def kernel(*args: Any, **kwargs: Any) -> Any:
        nonlocal op
        if op is None:
            from ..op_overload import namespace

            base, _, overload = op_name.partition(".")
            op = getattr(getattr(namespace("aten"), base), overload or "default")
        ks = _BACKEND_BITS[as_device(kwargs.get("device")).type]
        tensor_keys = 0
        for a in args:
            if isinstance(a, Tensor):
                tensor_keys |= a._key_set
        if tensor_keys:
            t = per_thread.s
            ks = ((ks | tensor_keys | t.included) & t.exclude_mask) & _AFTER_BACKEND_SELECT
        return op.redispatch(ks, *args, **kwargs)

    kernel.__name__ = kernel.__qualname__ = f"{op_name}_backend_select"
    return kernel


def register_backend_select(*names: str) -> None:
    """Give each factory op its BackendSelect kernel (a name already given one is skipped)."""
    for name in names:
        if (name, "BackendSelect") not in KERNELS:
            impl(name, "BackendSelect")(backend_select(name))
