"""Factory kernels: ops with no tensor arguments (``empty``, ``zeros``, ``arange``, ``randn``, ...).

Corresponds to aten/src/ATen/native/TensorFactories.cpp and the generated
BackendSelect kernels. A factory call has no tensors to dispatch on, so its key
set is the TLS one, {BackendSelect}; the BackendSelect kernel reads ``device=``
and redispatches to exactly that backend's key (SEMANTICS §1.8).
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..keys import DispatchKey
from ..keyset import DispatchKeySet
from ..tensor import Tensor, as_device, contiguous_strides
from .kernel_registry import impl

_BACKEND_KEY_SETS = {"cpu": DispatchKeySet(DispatchKey.CPU), "meta": DispatchKeySet(DispatchKey.Meta)}


def factory_dtype(dtype: Any, default: _dt.dtype | None = None) -> _dt.dtype:
    """``dtype=`` of a factory (a dtype, a ScalarType code, or None for the default float)."""
    if dtype is None:
        return default or _dt.get_default_dtype()
    return _dt.from_code(dtype)


def backend_select(op_name: str):
    """The BackendSelect kernel of a factory op: redispatch to the backend ``device=`` names."""

    def kernel(ks: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        from ..op_overload import namespace

        device = as_device(kwargs.get("device"))
        base, _, overload = op_name.partition(".")
        op = getattr(getattr(namespace("aten"), base), overload or "default")
        return op.redispatch(_BACKEND_KEY_SETS[device.type], *args, **kwargs)

    kernel.__name__ = kernel.__qualname__ = f"{op_name}_backend_select"
    return kernel


def register_backend_select(*names: str) -> None:
    for name in names:
        impl(name, "BackendSelect")(backend_select(name))


@impl("empty.memory_format", "CPU", "Meta")
def empty_memory_format(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    shape = tuple(size)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return Tensor._empty(shape, factory_dtype(dtype), as_device(device), contiguous_strides(shape))


register_backend_select("empty.memory_format")
