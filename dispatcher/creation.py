"""``dispatcher.tensor(data)``, ``as_tensor`` and ``from_numpy``: tensors from Python data.

Corresponds to torch/csrc/utils/tensor_new.cpp. The values are converted in
Python (NumPy), then the result goes through ``aten.lift_fresh`` as in PyTorch,
so modes and tracers see where a literal tensor entered the program.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from .tensor import Tensor, as_device


def _infer_dtype(data: Any) -> _dt.dtype:
    """bool < int64 < default float < complex, over every scalar in nested sequences."""
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
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")
        if best is None or _dt.category(d) > _dt.category(best):
            best = d
    return best if best is not None else _dt.get_default_dtype()


def _check_rectangular(data: Any, dim: int = 0) -> list[int]:
    if not isinstance(data, (list, tuple)):
        return []
    if not data:
        return [0]
    shapes = [_check_rectangular(x, dim + 1) for x in data]
    first = shapes[0]
    for item, s in zip(data, shapes):
        if isinstance(item, (list, tuple)) != isinstance(data[0], (list, tuple)) or s != first:
            got = len(item) if isinstance(item, (list, tuple)) else "a scalar"
            raise ValueError(f"expected sequence of length {first[0] if first else 0} at dim {dim + 1} (got {got})")
    return [len(data)] + first


def _to_numpy(data: Any, dt: _dt.dtype) -> np.ndarray:
    if isinstance(data, Tensor):
        return np.array(data._data, dtype=dt.np_dtype)
    if isinstance(data, (list, tuple)):
        _check_rectangular(data)
        data = [x.tolist() if isinstance(x, Tensor) else x for x in data]
    return np.array(data, dtype=dt.np_dtype)


def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested lists, numbers, NumPy arrays, tensors)."""
    from .ops import aten  # noqa: F401 - resolved lazily: ops are defined at import end

    dt = _dt.from_code(dtype) if dtype is not None else _infer_dtype(data)
    arr = _to_numpy(data, dt)
    t = Tensor._from_numpy(arr, dt)
    if as_device(device).type == "meta":
        t = Tensor._empty(t._shape, dt, as_device("meta"))
    from .op_overload import namespace

    t = namespace("aten").lift_fresh.default(t)
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array / tensor of the right dtype."""
    if isinstance(data, Tensor) and (dtype is None or _dt.from_code(dtype) is data.dtype):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or _dt.from_code(dtype).np_dtype == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (which must be C-contiguous or a strided view PyTorch accepts)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dt = _dt.from_numpy_dtype(array.dtype)
    if any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) "
        )
    if array.flags.c_contiguous:
        return Tensor._from_numpy(array, dt)
    base = array
    while isinstance(base.base, np.ndarray):
        base = base.base
    storage = base.reshape(-1) if base.flags.c_contiguous else np.ascontiguousarray(array).reshape(-1)
    if storage is not base.reshape(-1) and not base.flags.c_contiguous:
        return Tensor._from_numpy(np.ascontiguousarray(array), dt)
    offset = (array.__array_interface__["data"][0] - storage.__array_interface__["data"][0]) // array.itemsize
    stride = tuple(s // array.itemsize for s in array.strides)
    return Tensor._from_storage(storage, tuple(array.shape), stride, offset, dt, as_device("cpu"))
