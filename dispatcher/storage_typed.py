"""``torch.TypedStorage`` (an UntypedStorage seen as elements of one dtype, deprecated in torch with a
UserWarning given once), the legacy ``FloatStorage``-style classes (calling one makes a TypedStorage of its dtype;
``isinstance`` checks the dtype) and torch's warning helpers.

Corresponds to torch/storage.py (``TypedStorage``, ``_LegacyStorage``, ``_warn_typed_storage_removal``) and the
legacy classes torch/__init__.py defines. The untyped storage and the tensor -> storage registry are in
dispatcher/storage.py.
"""

from __future__ import annotations

import copy
import os
import sys
import warnings
from typing import Any

import numpy as np

from . import dtypes as _dt


def _typename(obj: Any) -> str:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _check_index(idx: int, n: int) -> int:
    i = idx + n if idx < 0 else idx
    if i < 0 or i >= n:
        raise IndexError(f"index {idx if idx >= 0 else i} out of range for storage of size {n}")
    return i


def _untyped() -> Any:
    """dispatcher.storage.UntypedStorage (imported on use: that module imports this one)."""
    from .storage import UntypedStorage

    return UntypedStorage


# --- TypedStorage and the legacy classes -------------------------------------------------------------------------

_always_warn_typed_storage_removal = False
_has_warned = [False]


def _get_always_warn_typed_storage_removal() -> bool:
    return _always_warn_typed_storage_removal


def _set_always_warn_typed_storage_removal(always_warn: bool) -> None:
    global _always_warn_typed_storage_removal
    _always_warn_typed_storage_removal = bool(always_warn)


def _reset_warn_typed_storage_removal() -> None:
    _has_warned[0] = False


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _outside_stacklevel() -> int:
    """The ``stacklevel`` (for a ``warnings.warn`` in the caller) of the first frame outside this package: the user's
    line, however many of our wrappers (``__torch_function__`` handling, methods) sit in between."""
    frame = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def _warn_typed_storage_removal() -> None:
    """torch's deprecation warning, given once (or always, after ``_set_always_warn_typed_storage_removal``),
    pointing at the user's line."""
    if _always_warn_typed_storage_removal or not _has_warned[0]:
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=_outside_stacklevel())
        _has_warned[0] = True


class TypedStorage:
    """``torch.TypedStorage``: an UntypedStorage seen as elements of one dtype (deprecated in torch)."""

    is_sparse = False

    def __init__(self, *args: Any, device: Any = None, dtype: Any = None, wrap_storage: Any = None,
                 _internal: bool = False) -> None:
        if not _internal:
            _warn_typed_storage_removal()
        self.dtype = _dt.get_default_dtype() if dtype is None else _dt.from_code(dtype)
        if wrap_storage is not None:
            if args or device is not None:
                raise RuntimeError("TypedStorage.__init__ received an invalid combination of arguments. "
                                   "No positional arguments or 'device' should be given when using 'wrap_storage'")
            if not isinstance(wrap_storage, _untyped()):
                raise TypeError(f"Argument 'wrap_storage' must be UntypedStorage, but got {type(wrap_storage)}")
            self._untyped_storage = wrap_storage
            return
        item = self.dtype.itemsize
        if not args:
            self._untyped_storage = _untyped()(0, device=device)
        elif isinstance(args[0], int) and not isinstance(args[0], bool) and len(args) == 1:
            self._untyped_storage = _untyped()(args[0] * item, device=device)
        elif len(args) == 1 and hasattr(args[0], "__len__"):
            values = np.asarray(list(args[0]), dtype=self.dtype.np_dtype).reshape(-1)
            self._untyped_storage = _untyped()(values.size * item, device=device)
            if self._untyped_storage._bytes is not None:
                self._untyped_storage._bytes[...] = values.view(np.uint8)
        else:
            raise TypeError(f"TypedStorage.__init__ received an invalid combination of arguments. Expected one of:\n"
                            f" * (int size)\n * (Sequence data)\nArgument type not recognized: {type(args[0])}")

    @classmethod
    def _wrap(cls, untyped: Any, dtype: Any) -> TypedStorage:
        return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)

    @property
    def device(self) -> Any:
        return self._untyped_storage.device

    @property
    def _cdata(self) -> int:
        return self._untyped_storage._cdata

    @property
    def is_cuda(self) -> bool:
        return False

    def _size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def size(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def __len__(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def nbytes(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        _warn_typed_storage_removal()
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.data_ptr()

    def untyped(self) -> Any:
        _warn_typed_storage_removal()
        return self._untyped_storage

    def is_shared(self) -> bool:
        _warn_typed_storage_removal()
        return False

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:  # noqa: A003
        _warn_typed_storage_removal()
        if dtype is None:
            from .serialization.rebuild import storage_name

            return f"torch.{storage_name(self.dtype)}"
        raise NotImplementedError("TypedStorage.type(dtype) is not supported by dispatchkit")

    def _values(self) -> np.ndarray:
        data = self._untyped_storage._data()
        n = self._size() * self.dtype.itemsize
        return data[:n].view(self.dtype.np_dtype)

    def __getitem__(self, idx: Any) -> Any:
        _warn_typed_storage_removal()
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise RuntimeError(f"can't index a {_typename(self)} with {type(idx).__name__}")
        values = self._values()
        return values[_check_index(idx, values.size)].item()

    def __setitem__(self, idx: Any, value: Any) -> None:
        _warn_typed_storage_removal()
        values = self._values()
        if isinstance(idx, slice):
            values[idx] = value
            return
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise RuntimeError(f"can't index a {_typename(self)} with {type(idx).__name__}")
        values[_check_index(idx, values.size)] = value

    def __iter__(self) -> Any:
        _warn_typed_storage_removal()
        return iter(self[i] for i in range(self._size()))

    def tolist(self) -> list:
        _warn_typed_storage_removal()
        return self._values().tolist()

    def fill_(self, value: Any) -> TypedStorage:
        _warn_typed_storage_removal()
        self._values()[...] = value
        return self

    def copy_(self, source: Any, non_blocking: Any = None) -> TypedStorage:
        _warn_typed_storage_removal()
        if isinstance(source, TypedStorage):
            if source._size() != self._size():
                raise RuntimeError(f"size does not match, self was {self._untyped_storage.nbytes()} bytes but src "
                                   f"was {source._untyped_storage.nbytes()} bytes")
            self._values()[...] = source._values()
        else:
            self._untyped_storage.copy_(source)
        return self

    def clone(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return TypedStorage._wrap(self._untyped_storage.clone(), self.dtype)

    def cpu(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return self if self.device.type == "cpu" else TypedStorage._wrap(self._untyped_storage.cpu(), self.dtype)

    def resize_(self, size: int) -> None:
        _warn_typed_storage_removal()
        self._untyped_storage.resize_(int(size) * self.dtype.itemsize)

    def __copy__(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return TypedStorage._wrap(copy.copy(self._untyped_storage), self.dtype)

    def __deepcopy__(self, memo: dict) -> TypedStorage:
        _warn_typed_storage_removal()
        return TypedStorage._wrap(copy.deepcopy(self._untyped_storage, memo), self.dtype)

    def __str__(self) -> str:
        _warn_typed_storage_removal()
        info = f"[{_typename(self)}(dtype={self.dtype}, device={self.device}) of size {self._size()}]"
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(v) for v in self._values().tolist()) + "\n" + info

    def __repr__(self) -> str:
        _warn_typed_storage_removal()
        return str(self)


class _LegacyStorageMeta(type):
    """``isinstance(s, FloatStorage)``: a TypedStorage of that class's dtype (and device)."""

    _dtype: Any

    def __instancecheck__(cls, instance: Any) -> bool:
        if type(instance) is TypedStorage:
            return cls is not _LegacyStorage and instance.device.type == "cpu" and instance.dtype == cls._dtype
        return False

    @property
    def dtype(cls) -> Any:
        _warn_typed_storage_removal()
        return cls._dtype


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """Base of ``torch.FloatStorage`` ...: calling one makes a TypedStorage of its dtype."""

    def __new__(cls, *args: Any, wrap_storage: Any = None, dtype: Any = None, device: Any = None,
                _internal: bool = False) -> Any:
        if not _internal:
            _warn_typed_storage_removal()
        if cls is _LegacyStorage:
            raise RuntimeError("Only child classes of _LegacyStorage can be instantiated")
        head = (f"{cls}.__new__ received an invalid combination of arguments. Expected one of:\n * no arguments\n"
                " * (int size)\n * (Sequence data)\n * (*, UntypedStorage wrap_storage)")
        if device is not None:
            raise RuntimeError(head + "\nKeyword argument 'device' cannot be specified")
        if dtype is not None:
            raise RuntimeError(head + "\nKeyword argument 'dtype' cannot be specified")
        if wrap_storage is None:
            if len(args) > 1:
                raise RuntimeError(head + "\nToo many positional arguments")
            if len(args) == 1 and not isinstance(args[0], int) and not hasattr(args[0], "__len__"):
                raise TypeError(head + f"\nArgument type not recognized: {type(args[0])}")
            return TypedStorage(*args, dtype=cls._dtype, _internal=True)
        if args:
            raise RuntimeError(head + "\nNo positional arguments should be given when using 'wrap_storage'")
        if not isinstance(wrap_storage, _untyped()):
            raise TypeError(head + f"\nArgument 'wrap_storage' must be UntypedStorage, but got {type(wrap_storage)}")
        return TypedStorage(wrap_storage=wrap_storage, dtype=cls._dtype, _internal=True)


def _legacy_classes() -> dict[str, type]:
    from .serialization.rebuild import STORAGE_NAMES

    out = {}
    for dtype_name, class_name in STORAGE_NAMES.items():
        if dtype_name not in _dt._BY_NAME:  # (bfloat16: no such dtype here)
            continue
        cls = _LegacyStorageMeta(class_name, (_LegacyStorage,), {"_dtype": _dt.from_code(dtype_name),
                                                                  "__module__": "dispatcher"})
        out[class_name] = cls
    return out


LEGACY_STORAGE_CLASSES = _legacy_classes()

TypedStorage.__module__ = "dispatcher.storage"  # (torch.storage.TypedStorage: where torch's lives)
