"""What a checkpoint's pickle may name, on both sides: PyTorch's globals for saving, our objects for loading.

Corresponds to the rebuild functions of torch/_utils.py (``_rebuild_tensor_v2``, ``_rebuild_parameter``,
``_rebuild_parameter_with_state``), torch/_tensor.py's ``_rebuild_from_type_v2``, the legacy storage
classes (``torch.FloatStorage`` ...) that name a storage's dtype in a persistent id, and the allow-list
of torch/_weights_only_unpickler.py (``_get_allowed_globals``), PyTorch 2.13.

Saving writes PyTorch's names (``TorchGlobal("torch._utils", "_rebuild_tensor_v2")`` is pickled as
``GLOBAL 'torch._utils _rebuild_tensor_v2'``) without importing torch; loading maps the same names to
the functions below, which build our tensors, and checks every geometry against its storage first.
"""

from __future__ import annotations

import collections
import pickle
from codecs import encode as _codecs_encode
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Size, Tensor, device

__all__ = ["LoadedStorage", "STORAGE_NAMES", "TorchGlobal", "allowed_globals", "storage_name"]


class TorchGlobal:
    """A reference to PyTorch's ``module.name``, pickled as ``GLOBAL`` (see pickler.py); one per name."""

    _cache: dict[tuple[str, str], TorchGlobal] = {}

    def __new__(cls, module: str, name: str) -> TorchGlobal:
        key = (module, name)
        obj = cls._cache.get(key)
        if obj is None:
            obj = cls._cache[key] = super().__new__(cls)
            obj.module, obj.name = module, name
        return obj

    def __repr__(self) -> str:
        return f"{self.module}.{self.name}"

    def __call__(self, *args: Any) -> Any:  # (pickle wants the reduce function to be callable; never called)
        raise TypeError(f"{self!r} is PyTorch's; it is only written into checkpoints")


#: our dtype name -> PyTorch's legacy storage class name (``TypedStorage._pickle_storage_type``)
STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage", "bfloat16": "BFloat16Storage",
    "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage", "int8": "CharStorage",
    "uint8": "ByteStorage", "bool": "BoolStorage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}


def storage_name(dtype: Any) -> str:
    name = STORAGE_NAMES.get(dtype.name)
    if name is None:
        raise pickle.PicklingError(f"torch.save: no storage type for dtype {dtype}")
    return name


class StorageType:
    """What ``GLOBAL torch.FloatStorage`` loads as: only the dtype it names (PyTorch's ``StorageType``)."""

    def __init__(self, name: str, dtype: Any) -> None:
        self._name, self.dtype = name, dtype

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


def LoadedStorage(array: np.ndarray, dtype: Any) -> Any:  # noqa: N802 - it stands for a storage class
    """A storage read from a checkpoint: a ``TypedStorage`` (dispatcher/storage.py) over ``array`` (``numel``
    elements of ``dtype``), as torch.load gives it; tensors rebuilt over it share its StorageImpl."""
    from ..storage import TypedStorage, _for_buffer
    from ..tensor import device as _device

    storage = TypedStorage(wrap_storage=_for_buffer(array, _device("cpu")), dtype=dtype, _internal=True)
    storage.array = array
    return storage


def _is_loaded(storage: Any) -> bool:
    from ..storage import TypedStorage

    return isinstance(storage, TypedStorage) and isinstance(getattr(storage, "array", None), np.ndarray)


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, (tuple, list)) or not all(type(v) is int for v in value):
        raise pickle.UnpicklingError(f"_rebuild_tensor_v2: {what} must be a tuple of ints, got {value!r:.80}")
    return tuple(value)


def _rebuild_tensor_v2(storage: Any, storage_offset: Any, size: Any, stride: Any, requires_grad: Any,
                       backward_hooks: Any, metadata: Any = None) -> Tensor:
    """A tensor over a loaded storage, after checking that its geometry stays inside the storage."""
    if not _is_loaded(storage):
        raise pickle.UnpicklingError(f"_rebuild_tensor_v2: expected a storage, got {type(storage).__name__}")
    shape, strides = _ints(size, "size"), _ints(stride, "stride")
    if type(storage_offset) is not int or storage_offset < 0 or len(shape) != len(strides) or \
            any(s < 0 for s in shape) or any(s < 0 for s in strides):
        raise pickle.UnpicklingError(f"_rebuild_tensor_v2: invalid geometry (offset {storage_offset!r}, size "
                                     f"{shape}, stride {strides})")
    numel = storage.array.size
    if 0 not in shape:
        last = storage_offset + sum((n - 1) * s for n, s in zip(shape, strides))
        if last >= numel:
            raise pickle.UnpicklingError(
                f"_rebuild_tensor_v2: size {list(shape)} with stride {list(strides)} at offset {storage_offset} "
                f"reaches element {last} of a storage of {numel} elements")
    t = Tensor._from_storage(storage.array, shape, strides, storage_offset, storage.dtype, device("cpu"))
    if requires_grad is True:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage: Any, storage_offset: Any, size: Any, stride: Any, requires_grad: Any,
                       backward_hooks: Any, dtype: Any, metadata: Any = None) -> Tensor:
    """A tensor of ``dtype`` over an untyped (byte) storage: how torch saves the dtypes without a legacy storage
    class (uint16 / uint32 / uint64)."""
    if not _is_loaded(storage) or not isinstance(dtype, _dt.dtype):
        raise pickle.UnpicklingError(f"_rebuild_tensor_v3: expected a storage and a dtype, got "
                                     f"{type(storage).__name__} and {type(dtype).__name__}")
    if storage.dtype is not dtype:
        raw = storage.array
        if raw.size % dtype.itemsize:
            raise pickle.UnpicklingError(f"_rebuild_tensor_v3: a storage of {raw.size} bytes does not hold "
                                         f"{dtype} elements")
        storage = LoadedStorage(raw.view(dtype.np_dtype), dtype)
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata)


def _rebuild_parameter(data: Any, requires_grad: Any, backward_hooks: Any) -> Any:
    from ..nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError(f"_rebuild_parameter: expected a tensor, got {type(data).__name__}")
    return Parameter(data, bool(requires_grad))


def _plain_state(state: Any, where: str) -> dict[str, Any]:
    if state is None:
        return {}
    if not isinstance(state, dict) or not all(isinstance(k, str) and not k.startswith("_") for k in state):
        raise pickle.UnpicklingError(f"{where}: only public attributes can be restored, got {state!r:.80}")
    return state


def _rebuild_parameter_with_state(data: Any, requires_grad: Any, backward_hooks: Any, state: Any) -> Any:
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    for k, v in _plain_state(state, "_rebuild_parameter_with_state").items():
        setattr(param, k, v)
    return param


def _rebuild_from_type_v2(func: Any, new_type: Any, args: Any, state: Any) -> Any:
    """A tensor (or Parameter) with Python attributes: rebuilt by an allow-listed function, then the attributes."""
    from ..modes.subclass_copy import _rebuild_wrapper_subclass, _set_obj_state
    from ..nn.parameter import Parameter

    if func is _rebuild_wrapper_subclass:  # a wrapper subclass (its class was allowed to get here)
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)) or not isinstance(args, tuple):
            raise pickle.UnpicklingError(f"_rebuild_from_type_v2: cannot rebuild {new_type} with {func}")
        ret = func(*args)
        if type(ret) is not new_type:
            ret = ret.as_subclass(new_type)
        return _set_obj_state(ret, state)
    if func not in (_rebuild_tensor_v2, _rebuild_parameter, _rebuild_parameter_with_state) or \
            new_type not in (Tensor, Parameter) or not isinstance(args, tuple):
        raise pickle.UnpicklingError(f"_rebuild_from_type_v2: cannot rebuild {new_type} with {func}")
    ret = func(*args)
    if new_type is Parameter and not isinstance(ret, Parameter):
        ret = Parameter(ret, ret.requires_grad)
    for k, v in _plain_state(state, "_rebuild_from_type_v2").items():
        setattr(ret, k, v)
    return ret


def _size(dims: Any = ()) -> Size:
    return Size(_ints(dims, "torch.Size"))


def _device(kind: Any, index: Any = None) -> Any:
    if not isinstance(kind, str) or (index is not None and type(index) is not int):
        raise pickle.UnpicklingError(f"torch.device: invalid arguments {kind!r:.40}, {index!r:.20}")
    return device(kind if index is None else f"{kind}:{index}")


def allowed_globals() -> dict[str, Any]:
    """``"module.name"`` -> object, for the weights-only unpickler (PyTorch's default allow-list, our objects)."""
    from ..nn.parameter import Parameter

    allowed: dict[str, Any] = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.Size": _size,
        "torch.Tensor": Tensor,
        "torch.device": _device,
        "_codecs.encode": _codecs_encode,  # bytes, as protocol 2 writes them
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch.storage.UntypedStorage": StorageType("UntypedStorage", _dt.uint8),
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    }
    from .. import memory_format as _mf
    from ..modes.subclass_copy import _rebuild_wrapper_subclass

    allowed["torch._utils._rebuild_wrapper_subclass"] = _rebuild_wrapper_subclass
    for code in range(8):
        lay = _mf.as_layout(code)
        allowed[f"torch.{lay.name}"] = lay
    for name, storage in STORAGE_NAMES.items():
        dt = getattr(_dt, name, None)
        if dt is not None:
            allowed[f"torch.{storage}"] = StorageType(storage, dt)
    allowed["torch.storage.UntypedStorage"] = StorageType("UntypedStorage", _dt.uint8)  # (bytes: read as uint8)
    for name in dir(_dt):
        value = getattr(_dt, name)
        if isinstance(value, _dt.dtype):
            allowed[f"torch.{value.name}"] = value
    return allowed
