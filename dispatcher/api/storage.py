"""Tensor's storage methods: ``untyped_storage``, ``storage`` (deprecated, a TypedStorage), ``_typed_storage``,
``set_`` (its four overloads chosen from the arguments, as the Python binding does) and ``is_set_to``; and the
private ``torch._C`` helpers ``_is_alias_of``, ``_storage_address`` and ``torch._functionalize_unsafe_set``.

Corresponds to torch/_tensor.py (``storage``, ``_typed_storage``), python_variable_methods.cpp (``set_`` and its
TypedStorage dtype check) and TensorImpl's ``storage()``. The storage objects are in dispatcher/storage.py.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..storage import TypedStorage, UntypedStorage, _warn_typed_storage_removal, alias_storage, storage_of
from ..tensor import Tensor

aten = namespace("aten")

_SET_SIGNATURES = (
    "set_() received an invalid combination of arguments - got ({got}), but expected one of:\n"
    " * ()\n * (torch.Storage source)\n * (torch.Storage source, int storage_offset, tuple of ints size, "
    "tuple of ints stride = None)\n * (Tensor source)\n * (Tensor source, int storage_offset, tuple of ints size, "
    "tuple of ints stride = None)"
)


def untyped_storage(self: Tensor) -> UntypedStorage:
    """The storage this tensor sees: one object per StorageImpl (see dispatcher/storage.py)."""
    return storage_of(self)


def _typed_storage(self: Tensor) -> TypedStorage:
    return TypedStorage(wrap_storage=storage_of(self), dtype=self._dtype, _internal=True)


def storage(self: Tensor) -> TypedStorage:
    """``Tensor.storage()``: the TypedStorage (deprecated in torch: the warning says so)."""
    _warn_typed_storage_removal()
    return _typed_storage(self)


def _untyped_source(self: Tensor, source: Any) -> UntypedStorage:
    """A TypedStorage must have ``self``'s dtype; the op takes its untyped storage (python_variable_methods.cpp)."""
    if isinstance(source, TypedStorage):
        if source.dtype is not self._dtype:
            from ..serialization.rebuild import storage_name

            want = storage_name(self._dtype).replace("Storage", "").lower()
            got = storage_name(source.dtype).replace("Storage", "")
            raise RuntimeError(f"Expected a Storage of type {_cpp_type(want)} or an UntypedStorage, but got type "
                               f"{got} for argument 1 'storage'")
        return source._untyped_storage
    return source


_CPP_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _cpp_name(dtype: Any) -> str:
    return _CPP_NAMES.get(dtype.name, dtype.name)


def _cpp_type(name: str) -> str:
    return {"float": "float", "double": "double", "long": "long", "int": "int"}.get(name, name)


def set_(self: Tensor, source: Any = None, storage_offset: Any = None, size: Any = None, stride: Any = None) -> Tensor:
    """``Tensor.set_()``, ``set_(storage)``, ``set_(storage, offset, size, stride=None)``, ``set_(tensor)``,
    ``set_(tensor, offset, size, stride=None)``."""
    if source is None and storage_offset is None:
        return aten.set_.default(self)
    positional = [a for a in (source, storage_offset, size, stride) if a is not None]
    if isinstance(source, (UntypedStorage, TypedStorage)):
        untyped = _untyped_source(self, source)
        if storage_offset is None and size is None:
            return aten.set_.source_Storage(self, untyped)
        if size is not None:
            return aten.set_.source_Storage_storage_offset(self, untyped, int(storage_offset), list(size),
                                                            list(stride) if stride is not None else [])
    elif isinstance(source, Tensor):
        if source._dtype is not self._dtype:
            raise RuntimeError(f"Could not set tensor of type {_cpp_name(source._dtype)} to a tensor of type "
                               f"{_cpp_name(self._dtype)}")
        if storage_offset is None and size is None:
            return aten.set_.source_Tensor(self, source)
        if size is not None:
            return aten.set_.source_Tensor_storage_offset(self, source, int(storage_offset), list(size),
                                                           list(stride) if stride is not None else [])
    raise TypeError(_SET_SIGNATURES.format(got=", ".join(type(a).__name__ for a in positional)))


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    return aten.is_set_to.default(self, tensor)


def _is_alias_of(a: Tensor, b: Tensor) -> bool:
    """``torch._C._is_alias_of(a, b)``: the two tensors see the same storage."""
    return storage_of(a)._impl is storage_of(b)._impl


def _storage_address(t: Tensor) -> int:
    """``torch._C._storage_address(t)``: the StorageImpl's address (its ``_cdata``)."""
    return storage_of(t)._cdata


def _functionalize_unsafe_set(dst: Tensor, src: Tensor) -> None:
    """``torch._functionalize_unsafe_set``: ``dst`` now sees ``src``'s storage, its own metadata unchanged
    (``return_and_correct_aliasing`` uses it for the outputs of view ops)."""
    alias_storage(dst, src)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the storage methods (called by ``tensor_methods.install``)."""
    for name, fn in (("untyped_storage", untyped_storage), ("storage", storage), ("_typed_storage", _typed_storage),
                     ("set_", set_), ("is_set_to", is_set_to)):
        setattr(T, name, fn)
