"""Tensor subclasses: ``_make_wrapper_subclass``, ``_make_subclass``, ``as_subclass`` and the Python key.

Corresponds to ``THPVariable_make_wrapper_subclass`` / ``THPVariable_make_subclass`` /
``THPVariable_as_subclass`` in torch/csrc/autograd/python_variable.cpp.

A subclass of ``Tensor`` that defines a ``__torch_dispatch__`` classmethod gets the Python
and PythonTLSSnapshot keys in its instances' key sets, so every op with such an argument
reaches the Python key, below autograd, where ``python_key.py`` calls the classmethod
(after the active modes). ``Tensor`` itself has the "disabled" ``__torch_dispatch__``
(``python_key.disabled_torch_dispatch_impl``); a subclass that does not override it is an
ordinary tensor as far as dispatch goes.

* ``Tensor._make_wrapper_subclass(cls, size, strides=None, ..., dtype=, device=, requires_grad=)``
  makes an instance with metadata only (no storage): the usual base of a *wrapper*
  subclass, whose ``__torch_dispatch__`` unwraps its inner tensors, runs the op on them
  and wraps the results. ``cls`` must define ``__torch_dispatch__``.
* ``Tensor._make_subclass(cls, data, require_grad=False)`` re-types a detached alias of
  ``data`` (same storage) as ``cls``; ``t.as_subclass(cls)`` does the same with an ``alias``
  that stays attached to the autograd graph. Both run with the dispatch modes stashed and the
  Python dispatcher off, so no mode sees those internal ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from ..keyset import BACKEND_MASK, DispatchKeySet
from ..python_key import disabled_torch_dispatch_impl
from ..tensor import _KEY_SETS, Tensor, as_device, contiguous_strides
from ..tls import PYTHON_MODE_KEYS_RAW, DisablePythonDispatcher, per_thread, pop_dispatch_mode, push_dispatch_mode
from .subclass_metadata import policy_bits

_NOT_A_TENSOR_SUBTYPE = (
    "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. Make sure your "
    "class inherits from Tensor."
)


def has_torch_dispatch(cls: type) -> bool:
    """True when ``cls`` defines its own ``__torch_dispatch__`` (instances then carry the Python key)."""
    handler = getattr(cls, "__torch_dispatch__", None)
    return handler is not None and handler is not disabled_torch_dispatch_impl


def _check_tensor_subtype(cls: Any) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(_NOT_A_TENSOR_SUBTYPE)


class _StashDispatchStack:
    """StashTorchDispatchStackGuard: the whole TorchDispatchMode stack is off for the body (not just popped)."""

    def __enter__(self) -> _StashDispatchStack:
        self._modes = [pop_dispatch_mode() for _ in range(len(per_thread.s.dispatch_mode_stack))]
        return self

    def __exit__(self, *exc: object) -> None:
        for mode in reversed(self._modes):
            push_dispatch_mode(mode)


def _retype(t: Tensor, cls: type) -> Tensor:
    """``t`` as an instance of ``cls`` (in place when the layouts allow it, else a field-by-field copy)."""
    if type(t) is cls:
        return t
    try:
        t.__class__ = cls
        return t
    except TypeError:
        out = object.__new__(cls)
        for name in Tensor.__slots__:
            if name in ("__dict__", "__weakref__"):
                continue
            if hasattr(t, name):
                setattr(out, name, getattr(t, name))
        out.__dict__.update(t.__dict__)
        return out


def _set_python_dispatch(t: Tensor, cls: type) -> None:
    if has_torch_dispatch(cls):
        t._key_set |= PYTHON_MODE_KEYS_RAW


def _check_requires_grad(t: Tensor, requires_grad: bool) -> None:
    if requires_grad and not (t._dtype.is_floating_point or t._dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def make_wrapper_subclass(
    cls: type,
    size: Sequence[int],
    strides: Sequence[int] | None = None,
    storage_offset: int | None = None,
    memory_format: Any = None,
    dtype: _dt.dtype | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
    dispatch_sizes_strides_policy: str | None = None,
    dispatch_device: bool = False,
    dispatch_layout: bool = False,
    _extra_dispatch_keys: DispatchKeySet | None = None,
    storage_size: int | None = None,
) -> Tensor:
    """``Tensor._make_wrapper_subclass``: a ``cls`` instance with this metadata, no storage, and the Python key."""
    _check_tensor_subtype(cls)
    if not has_torch_dispatch(cls):
        raise TypeError(f"{cls.__name__} must define __torch_dispatch__")
    policy = policy_bits(dispatch_sizes_strides_policy, dispatch_device, dispatch_layout)
    if layout is not None and "strided" not in str(layout) and layout != 0:
        raise NotImplementedError(f"_make_wrapper_subclass: only the strided layout exists here, got {layout}")
    shape = tuple(int(s) for s in size)
    if strides is None:
        if storage_offset is not None:
            raise RuntimeError("setting storage offset without stride not supported")
        stride = contiguous_strides(shape)
    else:
        stride = tuple(int(s) for s in strides)
    dt = _dt.get_default_dtype() if dtype is None else dtype
    t = cls._from_storage(None, shape, stride, int(storage_offset or 0), dt, as_device(device))
    t._key_set |= PYTHON_MODE_KEYS_RAW
    if _extra_dispatch_keys is not None:
        t._key_set |= _extra_dispatch_keys.repr
    if policy:
        t._python_policy = policy
    if storage_size is not None:
        from ..storage import dataless_storage

        dataless_storage(t, int(storage_size))  # (bytes, as torch counts it)
    _check_requires_grad(t, requires_grad)
    t.requires_grad = bool(requires_grad)
    return t


def make_subclass(
    cls: type,
    data: Tensor,
    require_grad: bool = False,
    dispatch_sizes_strides_policy: str | None = None,
    dispatch_device: bool = False,
    dispatch_layout: bool = False,
    device_for_backend_keys: Any = None,
    dispatch_strides: bool = False,
) -> Tensor:
    """``Tensor._make_subclass``: ``data.detach()`` re-typed as ``cls`` (same storage), a leaf.

    ``dispatch_sizes_strides_policy`` / ``dispatch_device`` / ``dispatch_layout``: those metadata queries are
    answered by ``cls.__torch_dispatch__`` (modes/subclass_metadata.py); ``dispatch_strides=True`` is the older
    spelling of ``dispatch_sizes_strides_policy="strides"``.
    """
    _check_tensor_subtype(cls)
    if not isinstance(data, Tensor):
        raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, not {type(data).__name__}")
    policy = policy_bits("strides" if dispatch_strides and dispatch_sizes_strides_policy is None
                         else dispatch_sizes_strides_policy, dispatch_device, dispatch_layout)
    from ..op_overload import namespace

    with _StashDispatchStack(), DisablePythonDispatcher():
        out = namespace("aten").detach.default(data)
    if type(out) is not Tensor:  # a subclass's __torch_dispatch__ answered with its own object
        _check_requires_grad(out, require_grad)
        out.requires_grad = bool(require_grad)
        return _existing_object(out, cls)
    out = _retype(out, cls)
    _check_requires_grad(out, require_grad)
    out.requires_grad = bool(require_grad)
    if device_for_backend_keys is not None:
        out._key_set = (out._key_set & ~_all_backend_key_sets()) | _KEY_SETS[as_device(device_for_backend_keys).type]
    _set_python_dispatch(out, cls)
    if policy:
        out._python_policy = policy
    return out


def _existing_object(out: Tensor, cls: type) -> Tensor:
    """``THPVariable_NewWithVar`` on a tensor that already has its Python object: that object when it is a ``cls``
    (no new one is made), else PyTorch's error. Here a tensor a subclass's ``__torch_dispatch__`` returned (an
    instance of its type) is such a tensor; a plain ``Tensor`` made by a kernel is not yet."""
    if issubclass(type(out), cls):
        return out
    raise RuntimeError(f"Creating a new Tensor subclass {cls.__name__} but the raw Tensor object is already associated "
                       f"to a python object of type {type(out).__name__} which is not a subclass of the requested "
                       "type")


def _all_backend_key_sets() -> int:
    bits = BACKEND_MASK
    for ks in _KEY_SETS.values():
        bits |= ks
    return bits


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """``t.as_subclass(cls)``: an ``alias`` of ``t`` (a view, still attached to autograd) typed as ``cls``."""
    _check_tensor_subtype(cls)
    from ..op_overload import namespace

    with _StashDispatchStack(), DisablePythonDispatcher():
        out = namespace("aten").alias.default(self)
    if type(out) is not Tensor:
        return _existing_object(out, cls)
    out = _retype(out, cls)
    _set_python_dispatch(out, cls)
    return out


__all__ = ["as_subclass", "has_torch_dispatch", "make_subclass", "make_wrapper_subclass"]
