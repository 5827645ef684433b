"""``dispatcher.tensor(data)``, ``as_tensor`` and ``from_numpy``: tensors from Python data.

Corresponds to torch/csrc/utils/tensor_new.cpp. The values are converted in
Python (NumPy), then the result goes through ``aten.lift_fresh`` as in PyTorch,
so modes and tracers see where a literal tensor entered the program.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..aten_namespace import aten as _aten
from ..tensor import Tensor, as_device, contiguous_strides

__all__ = ["tensor", "as_tensor", "from_numpy"]


def _infer_dtype(data: Any) -> _dt.dtype:
    """bool < int64 < default float < complex, over every scalar in nested sequences (PyTorch's errors)."""
    if isinstance(data, np.ndarray):
        return _dt.from_numpy_dtype(data.dtype)
    if isinstance(data, Tensor):
        return data.dtype
    best = None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, Tensor):
            d = x.dtype
        elif isinstance(x, np.generic):
            d = _dt.from_numpy_dtype(x.dtype)
        elif isinstance(x, (bool, int, float, complex)):
            d = _dt.scalar_dtype(x)
        elif isinstance(x, str):
            raise TypeError("new(): invalid data type 'str'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
        if best is None or _dt.category(d) > _dt.category(best):
            best = d
    return best if best is not None else _dt.get_default_dtype()


def _sizes(data: Any) -> list[int]:
    """PyTorch's ``compute_sizes``: follow the first element of each level."""
    sizes = []
    x = data
    while isinstance(x, (list, tuple, str)):
        if isinstance(x, str):
            raise ValueError("too many dimensions 'str'")
        sizes.append(len(x))
        if not x:
            break
        x = x[0]
    return sizes


def _check_rectangular(data: Any, dt: _dt.dtype | None = None) -> list[int]:
    """The sizes, after checking every level against them as PyTorch's ``recursive_store`` does."""
    sizes = _sizes(data)

    def check(x: Any, dim: int) -> None:
        if dim == len(sizes):
            if isinstance(x, (list, tuple)):
                kind = type(x).__name__
                if dt is not None and dt.is_floating_point:
                    raise TypeError(f"must be real number, not {kind}")
                raise TypeError(f"'{kind}' object cannot be interpreted as an integer")
            return
        if not isinstance(x, (list, tuple)):
            raise TypeError("not a sequence")
        if len(x) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(x)})")
        for item in x:
            check(item, dim + 1)

    check(data, 0)
    return sizes


def _to_numpy(data: Any, dt: _dt.dtype) -> np.ndarray:
    if isinstance(data, Tensor):
        return np.array(data._data, dtype=dt.np_dtype)
    if isinstance(data, (list, tuple)):
        _check_rectangular(data, dt)
        data = [x.tolist() if isinstance(x, Tensor) else x for x in data]
    try:
        return np.array(data, dtype=dt.np_dtype)
    except OverflowError:
        if dt.is_floating_point or dt.is_complex or dt is _dt.bool:
            raise
        return _wrapped_ints(data, dt)


def _wrapped_ints(data: Any, dt: _dt.dtype) -> np.ndarray:
    """Python ints NumPy refuses for an integral dtype, converted as PyTorch's tensor constructor does: read as
    int64 (uint64: as uint64), then checked like c10's ``checked_convert`` (negative values wrap into an unsigned
    type when their magnitude fits)."""
    values = np.array(data, dtype=object)
    info = np.iinfo(dt.np_dtype)
    for v in values.reshape(-1):
        v = int(v)
        if dt is _dt.uint64:
            if v < 0:
                raise OverflowError("can't convert negative int to unsigned")
            if v >= 1 << 64:
                raise OverflowError("int too big to convert")
        elif not -(1 << 63) <= v < (1 << 63):
            raise ValueError("Overflow when unpacking long long")
        elif v > info.max or (v < 0 and -v > (info.max if info.min == 0 else -info.min)):
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
    return np.array([int(v) % (1 << (8 * dt.itemsize)) for v in values.reshape(-1)],
                    dtype=np.uint64).astype(dt.np_dtype).reshape(values.shape)


def _copy_to(t: Tensor, dt: _dt.dtype, device: Any, copy: bool = True) -> Tensor:
    """``aten.to.device(t, device, dtype, False, copy)``: how PyTorch's ``internal_new_from_data`` converts a
    wrapped array / tensor (a copy for ``tensor``; ``as_tensor`` passes ``copy=False``). Below autograd this
    is ``_to_copy(t, dtype=, device=)``."""
    return _aten().to.device(t, as_device(device), dt, False, copy)


def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested lists, numbers, NumPy arrays, tensors).

    The calls are PyTorch's: a list or number is converted in Python and enters through
    ``lift_fresh``; a NumPy array is wrapped (``lift_fresh``) then copied with ``to.device(...,
    copy=True)``; a tensor is ``detach``-ed then copied the same way (with PyTorch's warning). The
    result goes through ``detach_`` (seen only above autograd, e.g. by a pre-dispatch trace).
    """
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            stacklevel=2,
        )
    t = internal_new_from_data(data, dtype, device)
    # tensor_ctor ends with ``detach_()`` through the dispatcher: its Autograd kernel does not dispatch below, so
    # only what runs above autograd (a pre-dispatch mode) sees it
    t = _aten().detach_.default(t)
    if requires_grad:
        from .autograd_methods import _factory_requires_grad

        _factory_requires_grad(t)
    return t


def internal_new_from_data(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``tensor(data)`` without its final ``detach_`` (PyTorch's ``internal_new_from_data``, which indexing uses
    for list indices and assigned values)."""
    if isinstance(data, Tensor):
        dt = _dt.from_code(dtype) if dtype is not None else data.dtype
        return _copy_to(_aten().detach.default(data), dt, device if device is not None else data.device)
    if isinstance(data, np.ndarray):
        dt = _dt.from_code(dtype) if dtype is not None else _dt.from_numpy_dtype(data.dtype)
        return _copy_to(from_numpy(data), dt, device)
    return _from_python_data(data, dtype, device)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array / tensor when no conversion is needed."""
    if isinstance(data, Tensor):
        if (dtype is None or _dt.from_code(dtype) is data.dtype) and (device is None or as_device(device) == data.device):
            return data
        return _copy_to(data, _dt.from_code(dtype) if dtype is not None else data.dtype,
                        device if device is not None else data.device, copy=False)
    if isinstance(data, np.ndarray):
        t = from_numpy(data)
        if (dtype is None or _dt.from_code(dtype) is t.dtype) and as_device(device).type == "cpu":
            return t
        return _copy_to(t, _dt.from_code(dtype) if dtype is not None else t.dtype, device, copy=False)
    return _from_python_data(data, dtype, device)


def _from_python_data(data: Any, dtype: Any, device: Any) -> Tensor:
    """Nested lists / numbers converted in Python, entering the program through ``lift_fresh``."""
    _sizes(data)
    dt = _dt.from_code(dtype) if dtype is not None else _infer_dtype(data)
    t = Tensor._from_numpy(_to_numpy(data, dt), dt)
    if as_device(device).type == "meta":
        t = Tensor._empty(t._shape, dt, as_device("meta"))
    return _aten().lift_fresh.default(t)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array``; enters the program through ``lift_fresh`` as in PyTorch."""
    return _aten().lift_fresh.default(_wrap_numpy(array))


_NOT_WRITABLE_WARNED: list[bool] = []


def _warn_not_writable() -> None:
    """PyTorch's TORCH_WARN_ONCE for a read-only array (once per process)."""
    if not _NOT_WRITABLE_WARNED:
        _NOT_WRITABLE_WARNED.append(True)
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This "
                      "means writing to this tensor will result in undefined behavior. You may want to copy the array "
                      "to protect its data or make it writable before converting it to a tensor. This type of warning "
                      "will be suppressed for the rest of this program.", UserWarning, stacklevel=3)


def _wrap_numpy(array: np.ndarray) -> Tensor:
    """The CPU tensor over ``array``'s memory (PyTorch's ``tensor_from_numpy``)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dt = _dt.from_numpy_dtype(array.dtype)
    if any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) "
        )
    if not array.flags.writeable:
        _warn_not_writable()
    if array.size == 0:
        # PyTorch keeps NumPy's strides (0 for a freshly made empty array)
        stride = tuple(s // array.itemsize for s in array.strides)
        return Tensor._from_storage(np.empty(0, dtype=dt.np_dtype), tuple(array.shape), stride, 0, dt, as_device("cpu"))
    if array.flags.c_contiguous and array.strides == tuple(s * array.itemsize for s in contiguous_strides(array.shape)):
        return Tensor._from_numpy(array, dt)
    # Otherwise keep NumPy's strides, as torch.from_numpy does (NumPy calls a (2, 1) array with strides
    # (4, 8) C-contiguous too, but its size-1 dim's stride still decides TensorIterator's output layout).
    base = array
    while isinstance(base.base, np.ndarray):
        base = base.base
    if base.flags.c_contiguous or base.flags.f_contiguous:  # the memory in order: a flat view of it (shared)
        storage = base.reshape(-1, order="C" if base.flags.c_contiguous else "F")
    else:
        return Tensor._from_numpy(np.ascontiguousarray(array), dt)
    offset = (array.__array_interface__["data"][0] - storage.__array_interface__["data"][0]) // array.itemsize
    stride = tuple(s // array.itemsize for s in array.strides)
    return Tensor._from_storage(storage, tuple(array.shape), stride, offset, dt, as_device("cpu"))
