"""The ``set_`` family: a tensor re-pointed at a storage (``set_.source_Storage``,
``set_.source_Storage_storage_offset``), at another tensor's storage and geometry (``set_.source_Tensor``, and the
CompositeImplicitAutograd ``set_.source_Tensor_storage_offset``), or at a new empty storage (``set_``); and
``is_set_to``.

Corresponds to aten/src/ATen/native/TensorShape.cpp (``set_storage_cpu_``, ``set_tensor_``, ``set_cpu_``,
``set_storage_meta__symint``) and Resize.h (``checkSetStorage``, ``setStrided``): the storage grows when the
geometry reaches past its end (a new buffer here, see dispatcher/storage.py); the tensor takes the storage, offset,
sizes and strides (contiguous strides when none are given).
"""

from __future__ import annotations

from typing import Any

from ..storage import UntypedStorage, _geometry_nbytes, point_at, storage_of
from ..tensor import Tensor, contiguous_strides
from .devices import device_hint
from .kernel_registry import impl


def _check_set_storage(self: Tensor, source: Any, offset: int, size: list[int], stride: list[int] | None) -> None:
    """Resize.h ``checkSetStorage`` and ``setStrided``'s checks, with torch's messages."""
    if not isinstance(source, UntypedStorage):
        raise RuntimeError(f"set_(): expected a Storage, but got {type(source).__name__}")
    if source.device.type != self._device.type:
        raise RuntimeError(f'Attempted to set the storage of a tensor on device "{self._device}" to a storage on '
                           f'different device "{source.device}".  This is no longer allowed; the devices must match.')
    if stride is not None and len(stride) != len(size):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")


def _point(self: Tensor, source: UntypedStorage, offset: int, size: list[int], stride: list[int] | None) -> Tensor:
    """``self`` over ``source`` with this geometry; the storage grows if the geometry reaches past its end."""
    _check_set_storage(self, source, offset, size, stride)
    shape = tuple(int(s) for s in size)
    strides = contiguous_strides(shape) if stride is None else tuple(int(s) for s in stride)
    if any(st < 0 for st in strides):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and strides={list(strides)}")
    item = self._dtype.itemsize
    needed = _geometry_nbytes(shape, strides, offset, item)
    if self._shape == shape and self._stride == strides:  # "all done if the sizes and strides are the same"
        if needed > source.nbytes():
            raise RuntimeError(f"setStorage: sizes {list(shape)}, strides {list(strides)}, storage offset {offset}, "
                               f"and itemsize {item} requiring a storage size of {needed} are out of bounds for "
                               f"storage of size {source.nbytes()}")
    else:
        source._grow_to(needed)
    flat = None
    if source._bytes is not None:
        n = source.nbytes() // item
        flat = source._bytes[:n * item].view(self._dtype.np_dtype)
    made = Tensor._from_storage(flat, shape, strides, int(offset), self._dtype, self._device)
    self._flat, self._data = made._flat, made._data
    self._shape, self._stride, self._storage_offset = made._shape, made._stride, made._storage_offset
    self._contiguous = made._contiguous
    point_at(self, source)
    return self


@impl("set_.source_Storage_storage_offset", "CPU", "Meta")
def set_source_storage_offset(self: Tensor, source: Any, storage_offset: int, size: list[int],
                              stride: list[int] = ()) -> Tensor:
    return _point(self, source, int(storage_offset), list(size), list(stride) if len(stride) else None)


@impl("set_.source_Storage", "CPU", "Meta")
def set_source_storage(self: Tensor, source: Any) -> Tensor:
    if not isinstance(source, UntypedStorage):
        raise RuntimeError(f"set_(): expected a Storage, but got {type(source).__name__}")
    return _point(self, source, 0, [source.nbytes() // self._dtype.itemsize], None)


@impl("set_.source_Tensor", "CPU", "Meta")
def set_source_tensor(self: Tensor, source: Tensor) -> Tensor:
    """``set_tensor_``: source's storage and geometry. (The dtype check is the Python binding's, api/storage.py: the
    op itself takes the bytes.)"""
    if source is self:
        return self
    mine, theirs = device_hint(self), device_hint(source)
    if mine != theirs:  # (a cpu / meta mix reaches this Meta kernel with meta stand-ins of the CPU tensors)
        raise RuntimeError(f'Attempted to set the storage of a tensor on device "{mine}" to a storage on different '
                           f'device "{theirs}".  This is no longer allowed; the devices must match.')
    return _point(self, storage_of(source), source._storage_offset, list(source._shape), list(source._stride))


@impl("set_", "CPU", "Meta")
def set_empty(self: Tensor) -> Tensor:
    return _point(self, UntypedStorage(0, device=self._device), 0, [0], None)


@impl("set_.source_Tensor_storage_offset", "CompositeImplicitAutograd")
def set_source_tensor_storage_offset(self: Tensor, source: Tensor, storage_offset: int, size: list[int],
                                     stride: list[int] = ()) -> Tensor:
    from ..op_overload import namespace

    if source is None:
        raise NotImplementedError("Cannot access storage of UndefinedTensorImpl")
    return namespace("aten").set_.source_Storage_storage_offset(self, source.untyped_storage(), storage_offset,
                                                               list(size), list(stride))


@impl("is_set_to", "CPU")
def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Same storage, offset, sizes and strides (TensorShape.cpp ``is_set_to``)."""
    return bool(storage_of(self)._impl is storage_of(tensor)._impl and self._storage_offset == tensor._storage_offset
                and self._shape == tensor._shape and self._stride == tensor._stride)

