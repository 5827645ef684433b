"""The pickler ``save`` uses: our tensors, sizes, dtypes and devices written under PyTorch's names.

Corresponds to the saving half of torch/serialization.py (``_save``'s ``persistent_id``) and the
``__reduce_ex__`` of ``torch.Tensor`` / ``nn.Parameter`` / ``torch.Size`` / ``torch.device``
(PyTorch 2.13), so what we write is what PyTorch writes:

* a tensor -> ``torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
  OrderedDict())``; a Parameter -> ``torch._utils._rebuild_parameter(data, requires_grad, OrderedDict())``;
* a storage -> the persistent id ``("storage", torch.FloatStorage, "<key>", "cpu", numel)``: keys
  ``"0"``, ``"1"`` ... in order of first use; tensors sharing memory (views) share one storage, written
  once, so they share it again after loading;
* ``torch.Size`` / ``torch.device`` -> their constructor with a tuple / a string; a dtype -> ``GLOBAL
  torch.float32``; everything else as pickle does (protocol 2).

It is pickle's pure-Python ``_Pickler`` with a ``reducer_override`` and one extra dispatch entry
(``TorchGlobal``: write a ``GLOBAL`` without importing the module).
"""

from __future__ import annotations

import collections
import pickle
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Size, Tensor, device
from .rebuild import STORAGE_NAMES, TorchGlobal, storage_name

__all__ = ["CheckpointPickler"]

_REBUILD_TENSOR = TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_REBUILD_TENSOR_V3 = TorchGlobal("torch._utils", "_rebuild_tensor_v3")
_UNTYPED_STORAGE = TorchGlobal("torch.storage", "UntypedStorage")
_REBUILD_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter")
_SIZE = TorchGlobal("torch", "Size")
_REBUILD_FROM_TYPE = TorchGlobal("torch._tensor", "_rebuild_from_type_v2")
_REBUILD_WRAPPER = TorchGlobal("torch._utils", "_rebuild_wrapper_subclass")
_DEVICE = TorchGlobal("torch", "device")


class _StorageRef:
    """A tensor's storage as the pickler meets it (turned into a persistent id): its elements, their dtype, and the
    StorageImpl it is (dispatcher/storage.py: tensors sharing memory share it, and it is written once)."""

    __slots__ = ("flat", "dtype", "impl")

    def __init__(self, flat: np.ndarray, dtype: Any, impl: Any = None) -> None:
        self.flat, self.dtype, self.impl = flat, dtype, impl


class _PlainData:
    """A Parameter's data: pickled as a plain tensor over the same storage that does not require grad."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor


class CheckpointPickler(pickle._Pickler):  # type: ignore[name-defined]
    """Pickle ``obj`` for ``torch.save``; ``storages`` collects (key, bytes) of every storage met."""

    dispatch = pickle._Pickler.dispatch.copy()  # type: ignore[attr-defined]

    def __init__(self, file: Any, protocol: int = 2) -> None:
        super().__init__(file, protocol)
        self.storages: list[tuple[str, bytes]] = []
        self._keys: dict[int, str] = {}  # id of the StorageImpl -> record key
        self._dtypes: dict[int, Any] = {}  # id of the StorageImpl -> the dtype it is written as
        self._alive: list[Any] = []  # the flat arrays keyed by id, kept alive while pickling

    def _save_torch_global(self, obj: TorchGlobal) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    dispatch[TorchGlobal] = _save_torch_global

    def _save_dtype(self, obj: Any) -> None:
        self.write(pickle.GLOBAL + f"torch\n{obj.name}\n".encode())
        self.memoize(obj)

    dispatch[_dt.dtype] = _save_dtype

    def persistent_id(self, obj: Any) -> Any:
        if obj.__class__ is not _StorageRef:
            return self._storage_object(obj)
        flat = obj.flat
        ident = id(obj.impl) if obj.impl is not None else id(flat)
        key = self._keys.get(ident)
        if key is not None and self._dtypes[ident] is not obj.dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        if key is None:
            key = self._keys[ident] = str(len(self._keys))
            self._dtypes[ident] = obj.dtype
            self._alive.append((flat, obj.impl))
            data = np.ascontiguousarray(flat)
            if data.dtype.byteorder == ">":
                data = data.astype(data.dtype.newbyteorder("<"))
            self.storages.append((key, data.tobytes()))
        if obj.dtype.name not in STORAGE_NAMES:  # a dtype without a legacy storage class: untyped bytes
            return ("storage", _UNTYPED_STORAGE, key, "cpu", int(flat.size) * obj.dtype.itemsize)
        return ("storage", TorchGlobal("torch", storage_name(obj.dtype)), key, "cpu", int(flat.size))

    def _storage_object(self, obj: Any) -> Any:
        """A storage saved as itself (``torch.save(x.untyped_storage())``): torch's persistent id, the untyped one
        written as bytes under ``torch.storage.UntypedStorage``."""
        from ..storage import TypedStorage, UntypedStorage

        if isinstance(obj, TypedStorage):
            untyped, dtype, name = obj._untyped_storage, obj.dtype, None
        elif isinstance(obj, UntypedStorage):
            untyped, dtype, name = obj, _dt.uint8, TorchGlobal("torch.storage", "UntypedStorage")
        else:
            return None
        if untyped._bytes is None:
            raise pickle.PicklingError(f"torch.save: cannot save a storage on the {untyped.device.type} device (it "
                                       "has no data); dispatchkit saves CPU storages")
        item = dtype.itemsize
        flat = untyped._bytes[: (untyped._bytes.size // item) * item].view(dtype.np_dtype)
        pid = self.persistent_id(_StorageRef(flat, dtype, untyped._impl))
        return pid if name is None else (pid[0], name, *pid[2:4], untyped.nbytes())

    def reducer_override(self, obj: Any) -> Any:
        cls = obj.__class__
        if cls is _PlainData:
            return self._tensor_reduce(obj.tensor, requires_grad=False)
        if isinstance(obj, Tensor):
            from ..nn.parameter import Parameter

            if isinstance(obj, Parameter):
                return _REBUILD_PARAMETER, (_PlainData(obj), obj.requires_grad, collections.OrderedDict())
            from ..modes.subclass_copy import _obj_state, is_wrapper_subclass

            if is_wrapper_subclass(obj):  # Tensor.__reduce_ex__'s wrapper-subclass form, under torch's names
                args = (type(obj), obj.dtype, tuple(obj.size()), tuple(obj.stride()), obj.storage_offset(),
                        TorchGlobal("torch", obj.layout.name), obj.device, obj.requires_grad)
                return _REBUILD_FROM_TYPE, (_REBUILD_WRAPPER, type(obj), args, _obj_state(obj))
            return self._tensor_reduce(obj, obj.requires_grad)
        if cls is Size:
            return _SIZE, (tuple(obj),)
        if cls is device:
            return _DEVICE, (str(obj),)
        return NotImplemented

    def _tensor_reduce(self, t: Tensor, requires_grad: bool) -> Any:
        if t._device.type != "cpu" or t._storage is None:
            raise pickle.PicklingError(f"torch.save: cannot save a tensor on the {t._device.type} device (it has "
                                       "no data); dispatchkit saves CPU tensors")
        from ..storage import storage_of

        untyped = storage_of(t)
        flat = t._storage
        if untyped._bytes is not None and untyped._bytes.size >= flat.nbytes:  # the whole storage, as torch writes it
            item = t._dtype.itemsize
            flat = untyped._bytes[: (untyped._bytes.size // item) * item].view(t._dtype.np_dtype)
        storage = _StorageRef(flat, t._dtype, untyped._impl)
        if t._dtype.name not in STORAGE_NAMES:  # torch's _rebuild_tensor_v3: the dtype travels with the tensor
            return _REBUILD_TENSOR_V3, (storage, t._storage_offset, tuple(t._shape), tuple(t._stride),
                                        bool(requires_grad), collections.OrderedDict(), t._dtype)
        return _REBUILD_TENSOR, (storage, t._storage_offset, tuple(t._shape), tuple(t._stride), bool(requires_grad),
                                 collections.OrderedDict())
