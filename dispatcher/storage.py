"""Storage objects: ``UntypedStorage``, ``TypedStorage``, the legacy ``FloatStorage``-style classes, and which
storage a tensor sees.

Corresponds to torch/storage.py (the Python classes) and c10/core/StorageImpl.h (the object every tensor sharing
memory points at; its address is a storage's ``_cdata``).

Our tensors hold a flat NumPy array (``Tensor._flat``); the memory behind it is the storage. A storage's identity
(the StorageImpl) is kept in a registry keyed by the *root* NumPy buffer (the array that owns the memory, found by
following ``.base``) and the start address, held weakly (an entry goes when its buffer dies): views, ``detach``,
``.data``, ``_make_subclass`` and ``set_`` all reach the same ``_StorageImpl`` and so the same ``_cdata`` and
``data_ptr``. The Python object is kept as long as the StorageImpl is reachable from a live tensor that asked for it
(``x.untyped_storage() is x.untyped_storage()``), as torch's PyObject preservation keeps it. Writes through a
storage (``s[0] = 5``, ``fill_``, ``copy_``) go to the same memory, so tensors see them.

Tensors without data have a storage without data: meta tensors (``device=meta``, ``data_ptr() == 0``, reading it
raises torch's NotImplementedError), and wrapper subclasses (``_make_wrapper_subclass``: a CPU storage of the
wrapper's byte size whose data is "not allocated yet", as torch's). Differences (docs/modes.md, "Storages"): a
storage that grows (``resize_``, or ``set_`` past its end) gets new memory; the tensors whose storage was asked for
follow it, other views of the old memory keep it (in torch all tensors of the StorageImpl follow).
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import numpy as np

from . import dtypes as _dt
from .storage_typed import (  # TypedStorage, the legacy classes and torch's deprecation warning
    LEGACY_STORAGE_CLASSES,
    TypedStorage,
    _check_index,
    _get_always_warn_typed_storage_removal,
    _reset_warn_typed_storage_removal,
    _set_always_warn_typed_storage_removal,
    _typename,
    _warn_typed_storage_removal,
)
from .tensor import Tensor, as_device

__all__ = ["LEGACY_STORAGE_CLASSES", "TypedStorage", "UntypedStorage", "is_storage", "storage_of",
           "_get_always_warn_typed_storage_removal", "_reset_warn_typed_storage_removal",
           "_set_always_warn_typed_storage_removal", "_warn_typed_storage_removal"]

_NOT_ALLOCATED = (
    "The tensor has a non-zero number of elements, but its data is not allocated yet.\n"
    "If you're using torch.compile/export/fx, it is likely that we are erroneously tracing into a custom kernel. "
    "To fix this, please wrap the custom kernel into an opaque custom op. Please see the following for details: "
    "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html\n"
    "If you're using Caffe2, Caffe2 uses a lazy allocation, so you will need to call mutable_data() or "
    "raw_mutable_data() to actually allocate memory."
)


_FAKE_DATA_PTR = (
    "Accessing the data pointer of FakeTensor is deprecated and will error in PyTorch 2.5. This is almost definitely "
    "a bug in your code and will cause undefined behavior with subsystems like torch.compile. Please wrap calls to "
    "tensor.data_ptr() in an opaque custom op; If all else fails, you can guard accesses to tensor.data_ptr() on "
    "isinstance(tensor, FakeTensor). (Triggered internally at /__w/pytorch/pytorch/c10/core/StorageImpl.cpp:46.)"
)


class _StorageImpl:
    """c10::StorageImpl: byte size, device, and (weakly) the Python object that stands for it."""

    __slots__ = ("nbytes", "device", "py", "fake", "__weakref__")

    def __init__(self, nbytes: int, device: Any) -> None:
        self.nbytes = nbytes
        self.device = device
        self.py: Any = None  # weakref to the UntypedStorage object
        self.fake = False  # a FakeTensor's: reading its data pointer warns (torch's warn_deprecated_on_mutable_data_ptr)


_TENSOR_CLASS = (Tensor,)

#: (id(root buffer), start address) -> StorageImpl; entries leave when their root buffer is freed
_BY_BUFFER: dict[tuple[int, int], _StorageImpl] = {}
#: id(tensor) -> (storage, flat array it was found for): what a tensor without data points at (meta tensors,
#: wrapper subclasses, set_), and the cached answer for the others (kept while the tensor lives)
_BY_TENSOR: dict[int, tuple[Any, Any]] = {}


def _buffer_key(arr: np.ndarray) -> tuple[tuple[int, int], np.ndarray]:
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    return (id(root), arr.__array_interface__["data"][0]), root


def _register(arr: np.ndarray, impl: _StorageImpl) -> None:
    key, root = _buffer_key(arr)
    if key not in _BY_BUFFER:
        weakref.finalize(root, _BY_BUFFER.pop, key, None)
    _BY_BUFFER[key] = impl


def _python_object(impl: _StorageImpl, data: np.ndarray | None) -> UntypedStorage:
    obj = impl.py() if impl.py is not None else None
    if obj is None:
        obj = UntypedStorage.__new__(UntypedStorage)
        obj._impl = impl
        obj._bytes = data
        impl.py = weakref.ref(obj)
    return obj


def _for_buffer(flat: np.ndarray, device: Any) -> UntypedStorage:
    key, _ = _buffer_key(flat)
    impl = _BY_BUFFER.get(key)
    if impl is None:
        impl = _StorageImpl(flat.nbytes, device)
        _register(flat, impl)
    return _python_object(impl, flat.view(np.uint8) if flat.ndim == 1 else flat.reshape(-1).view(np.uint8))


def _geometry_nbytes(shape: Any, stride: Any, offset: int, itemsize: int) -> int:
    """computeStorageNbytes: the bytes a geometry reaches (0 for an empty tensor)."""
    if any(s == 0 for s in shape):
        return 0
    return itemsize * (offset + 1 + sum((s - 1) * st for s, st in zip(shape, stride)))


def _remember(t: Any, storage: UntypedStorage, flat: Any) -> None:
    key = id(t)
    if key not in _BY_TENSOR:
        weakref.finalize(t, _BY_TENSOR.pop, key, None)
    _BY_TENSOR[key] = (storage, flat, weakref.ref(t))


class _SameAs:
    """A data-less tensor's entry before anyone asked for its storage: it sees ``src``'s (``detach`` / ``.data`` of a
    meta tensor)."""

    __slots__ = ("src",)

    def __init__(self, src: Any) -> None:
        self.src = src


def share_dataless(out: Any, src: Any) -> None:
    """``out`` (made by ``detach`` / ``shallow_copy_and_detach`` of the plain meta tensor ``src``) sees ``src``'s
    storage, found when asked (nothing is made until then)."""
    if type(src) is not _TENSOR_CLASS[0] or src._data is not None:
        return
    key = id(out)
    if key not in _BY_TENSOR:
        weakref.finalize(out, _BY_TENSOR.pop, key, None)
    _BY_TENSOR[key] = (_SameAs(src), None, None)


def storage_of(t: Any) -> UntypedStorage:
    """``t.untyped_storage()``: the storage ``t`` sees (the same object for every tensor sharing its memory)."""
    entry = _BY_TENSOR.get(id(t))
    flat = t._storage
    if entry is not None and entry[1] is flat:
        if entry[0].__class__ is _SameAs:
            storage = storage_of(entry[0].src)
            _remember(t, storage, flat)
            return storage
        return entry[0]
    if flat is not None:
        storage = _for_buffer(flat, t._device)
    elif t._base is not None:
        storage = storage_of(t._base)
    else:  # meta tensor or wrapper subclass: a storage without data, the size of the tensor's geometry
        from .fake.fake_tensor import FakeTensor

        nbytes = _geometry_nbytes(t._shape, t._stride, t._storage_offset, t._dtype.itemsize)
        device = as_device("meta") if isinstance(t, FakeTensor) else t._device  # (a fake's memory is meta memory)
        impl = _StorageImpl(nbytes, device)
        impl.fake = isinstance(t, FakeTensor)
        storage = _python_object(impl, None)
    _remember(t, storage, flat)
    return storage


def _follow(storage: UntypedStorage, new: np.ndarray) -> None:
    """After ``storage`` got new memory: the tensors known to see it (those whose storage was asked for) now view
    the new memory with their geometry, as torch's tensors follow their StorageImpl's reallocation. (Tensors never
    asked about keep the old memory; so does a tensor whose geometry no longer fits.)"""
    for key, entry in list(_BY_TENSOR.items()):
        if entry[0] is not storage or entry[2] is None:
            continue
        t = entry[2]()
        if t is None or t._data is None:
            continue
        item = t._dtype.itemsize
        if _geometry_nbytes(t._shape, t._stride, t._storage_offset, item) > new.size:
            continue
        flat = new[: (new.size // item) * item].view(t._dtype.np_dtype)
        made = Tensor._from_storage(flat, t._shape, t._stride, t._storage_offset, t._dtype, t._device)
        t._flat, t._data = made._flat, made._data
        _BY_TENSOR[key] = (storage, t._flat, entry[2])


def dataless_storage(t: Any, nbytes: int) -> None:
    """A wrapper subclass made with ``storage_size=``: its storage (without data) has that many bytes."""
    _remember(t, _python_object(_StorageImpl(int(nbytes), t._device), None), None)


def point_at(t: Any, storage: UntypedStorage) -> None:
    """Record that ``t`` (whose geometry was just set over ``storage``'s memory) sees ``storage``."""
    _remember(t, storage, t._storage)


def alias_storage(ret: Any, arg: Any) -> None:
    """``torch._functionalize_unsafe_set(ret, arg)``: ``ret`` sees ``arg``'s storage; its own metadata is kept."""
    storage = storage_of(arg)
    _remember(ret, storage, ret._storage)


def expired_impl(impl: _StorageImpl) -> bool:
    """Whether nothing uses this StorageImpl any more: no live storage object and no live buffer registered for it."""
    if impl.py is not None and impl.py() is not None:
        return False
    return not any(v is impl for v in _BY_BUFFER.values()) and not any(
        getattr(entry[0], "_impl", None) is impl for entry in _BY_TENSOR.values())


def impl_of_cdata(cdata: int) -> _StorageImpl | None:
    """The StorageImpl whose ``_cdata`` this is, if it is still in use."""
    for impl in list(_BY_BUFFER.values()) + [getattr(e[0], "_impl", None) for e in _BY_TENSOR.values()]:
        if id(impl) == cdata:
            return impl
    return None


def is_storage(obj: Any) -> bool:
    """``torch.is_storage``."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


# --- UntypedStorage ----------------------------------------------------------------------------------------------


class UntypedStorage:
    """``torch.UntypedStorage``: bytes on a device. ``UntypedStorage()``, ``UntypedStorage(nbytes)``,
    ``UntypedStorage(sequence of ints)``, each with ``device=``."""

    _impl: _StorageImpl
    _bytes: np.ndarray | None  #: the memory as uint8 (None on meta and for a wrapper subclass's storage)

    def __new__(cls, *args: Any, device: Any = None, **kwargs: Any) -> UntypedStorage:
        if kwargs or len(args) > 1:
            got = ", ".join([type(a).__name__ for a in args] + [f"{k}={_kwarg_type(v)}" for k, v in kwargs.items()])
            raise TypeError(f"torch.UntypedStorage() received an invalid combination of arguments - got ({got}), "
                            "but expected one of:\n * (*, torch.device device = None)\n"
                            " * (int size, *, torch.device device = None)\n"
                            " * (Sequence data, *, torch.device device = None)")
        dev = as_device(device)
        if not args:
            data = np.zeros(0, np.uint8)
        elif isinstance(args[0], int) and not isinstance(args[0], bool):
            n = args[0]
            if n < 0:
                raise RuntimeError("[enforce fail at alloc_cpu.cpp:98] ((ptrdiff_t)nbytes) >= 0. alloc_cpu() seems "
                                   f"to have been called with negative number: {n % 2 ** 64}")
            data = np.zeros(n, np.uint8)
        else:
            seq = args[0]
            if not hasattr(seq, "__len__") or not hasattr(seq, "__getitem__"):
                raise TypeError(f"torch.UntypedStorage() received an invalid combination of arguments - got "
                                f"({type(seq).__name__}), but expected one of:")
            for item in seq:
                if not isinstance(item, int):
                    raise RuntimeError(f"torch.UntypedStorage(): tried to construct a storage from a sequence "
                                       f"({type(seq).__name__}), but one of the items was of type "
                                       f"{type(item).__name__} instead of int")
            data = np.array([i % 256 for i in seq], dtype=np.uint8)
        impl = _StorageImpl(data.size, dev)
        if dev.type == "meta":
            data = None
        else:
            _register(data, impl)
        obj = object.__new__(cls)
        obj._impl = impl
        obj._bytes = data
        impl.py = weakref.ref(obj)
        return obj

    # --- what it is ---------------------------------------------------------------------------------------
    @property
    def _cdata(self) -> int:
        """The StorageImpl's address (here: its id), the same for every tensor sharing this memory."""
        return id(self._impl)

    @property
    def device(self) -> Any:
        return self._impl.device

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_meta(self) -> bool:
        return self._impl.device.type == "meta"

    def nbytes(self) -> int:
        return self._impl.nbytes

    def size(self) -> int:
        return self._impl.nbytes

    def __len__(self) -> int:
        return self._impl.nbytes

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        if self._impl.device.type == "meta":
            if self._impl.fake:
                warnings.warn(_FAKE_DATA_PTR, UserWarning, stacklevel=2)
            return 0
        if self._bytes is None:
            raise RuntimeError("Attempted to access the data pointer on an invalid python storage.")
        return self._bytes.__array_interface__["data"][0]

    def untyped(self) -> UntypedStorage:
        return self

    def _weak_ref(self) -> int:
        """torch's weak handle on the StorageImpl: its address (see multiprocessing/reductions.py)."""
        return self._cdata

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:  # noqa: A003
        if dtype is None:
            return _typename(self)
        raise AttributeError(f"'{type(dtype).__name__}' object has no attribute 'is_sparse'")

    def is_shared(self) -> bool:
        return False

    def is_pinned(self, device: Any = "cuda") -> bool:
        return False

    def _data(self) -> np.ndarray:
        """The bytes, or torch's error for a storage without them."""
        if self._impl.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")
        if self._bytes is None:
            if self._impl.nbytes == 0:
                return np.zeros(0, np.uint8)
            raise RuntimeError(_NOT_ALLOCATED)
        return self._bytes

    # --- elements -----------------------------------------------------------------------------------------
    def __getitem__(self, idx: Any) -> Any:
        data = self._data()
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(data))
            if step != 1:
                raise RuntimeError("slices with step != 1 are not supported for storages")
            part = data[start:max(start, stop)]
            impl = _StorageImpl(part.size, self.device)  # a storage over part of this one's memory
            return _python_object(impl, part)
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise TypeError(f"can't index a torch.UntypedStorage with {type(idx).__name__}")
        return int(data[_check_index(idx, len(data))])

    def __setitem__(self, idx: Any, value: Any) -> None:
        data = self._data()
        if isinstance(idx, slice):
            data[idx] = int(value) % 256
            return
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise TypeError(f"can't index a torch.UntypedStorage with {type(idx).__name__}")
        data[_check_index(idx, len(data))] = int(value) % 256

    def __iter__(self) -> Any:
        return iter(self[i] for i in range(self.size()))

    def tolist(self) -> list[int]:
        return [int(v) for v in self._data()]

    def fill_(self, value: Any) -> UntypedStorage:
        self._data()[...] = int(value) % 256
        return self

    def copy_(self, source: Any, non_blocking: Any = None) -> UntypedStorage:
        if isinstance(source, TypedStorage):
            source = source._untyped_storage
        if self.nbytes() != source.nbytes():
            raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src was "
                               f"{source.nbytes()} bytes")
        if self.device.type != "meta":
            self._data()[...] = source._data()
        return self

    def clone(self) -> UntypedStorage:
        out = UntypedStorage(self.nbytes(), device=self.device)
        return out.copy_(self)

    def cpu(self) -> UntypedStorage:
        return self if self.device.type == "cpu" else UntypedStorage(self.nbytes()).copy_(self)

    def resize_(self, size: int) -> UntypedStorage:
        """New memory of ``size`` bytes holding the old bytes (tensors over the old memory keep it, see the module)."""
        self._grow_to(int(size), shrink=True)
        return self

    def _grow_to(self, nbytes: int, shrink: bool = False) -> None:
        impl = self._impl
        if nbytes == impl.nbytes or (nbytes < impl.nbytes and not shrink):
            return
        impl.nbytes = nbytes
        if self._bytes is None:
            return
        new = np.zeros(nbytes, np.uint8)
        keep = min(nbytes, self._bytes.size)
        new[:keep] = self._bytes[:keep]
        self._bytes = new
        _register(new, impl)
        _follow(self, new)

    def __copy__(self) -> UntypedStorage:
        return self.clone()

    def __deepcopy__(self, memo: dict) -> UntypedStorage:
        memo = memo.setdefault("torch", {})
        if self._cdata in memo:
            return memo[self._cdata]
        out = memo[self._cdata] = self.clone()
        return out

    def __repr__(self) -> str:
        info = f"[{_typename(self)}(device={self.device}) of size {len(self)}]"
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(self[i]) for i in range(self.size())) + "\n" + info

    __str__ = __repr__


def _kwarg_type(v: Any) -> str:
    return "torch.dtype" if isinstance(v, _dt.dtype) else type(v).__name__
