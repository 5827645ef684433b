"""``tensor[index]`` and ``tensor[index] = value``: basic and advanced indexing as aten calls.

Corresponds to torch/csrc/autograd/python_variable_indexing.cpp and
aten/src/ATen/TensorIndexing.h. The calls recorded are PyTorch's:

* an int selects (``select.int(x, dim, i)``; the index is bounds-checked here,
  negative indices are passed as given), ``None`` unsqueezes, ``...`` skips dims;
* a slice records ``slice.Tensor(x, dim, start, stop[, step])`` with a missing
  start as 0 and a missing stop as INT64_MAX; inside a tuple a slice that changes
  nothing (start 0, step 1, stop at or past the dim's end: ``:``, ``0:n``) records
  nothing, and an index that changes nothing (``x[:, :]``, ``x[:, 0:4]``, ``x[...]``)
  records ``alias``; a lone ``x[:]`` does record its slice;
* tensor (and list) indices are gathered, with None for the dims between them,
  into one ``index.Tensor`` call after the basic indexing; a 0-dim integer tensor
  counts as an int (via ``_local_scalar_dense``).

Assignment converts a number to a 0-dim tensor of the destination's dtype
(``lift_fresh``), applies the basic indexing, then ``copy_`` (same shape),
``fill_.Tensor`` (0-dim value) or ``copy_`` of the expanded value; tensor
indices use ``index_put_``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

INT64_MAX = 9223372036854775807

_BAD_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})"
)


def _is_int_index(obj: Any) -> bool:
    return isinstance(obj, (int, np.integer)) and not isinstance(obj, (bool, np.bool_))


def _as_index_tensor(obj: Any) -> Tensor:
    from .from_data import internal_new_from_data

    return internal_new_from_data(obj)


def _normalize(obj: Any) -> Any:
    """Turn a 0-dim integer tensor into an int and a list into an index tensor (as PyTorch's parser does)."""
    if isinstance(obj, Tensor):
        if obj.dim() == 0 and _is_integral(obj.dtype) and obj.dtype is not _dt.bool:
            return int(aten._local_scalar_dense.default(obj))
        return obj
    if isinstance(obj, (list, np.ndarray)):
        return _as_index_tensor(obj)
    return obj


def _is_integral(dt: _dt.dtype) -> bool:
    return not dt.is_floating_point and not dt.is_complex


def _check_index_type(obj: Any) -> None:
    if obj is None or obj is Ellipsis or isinstance(obj, (slice, Tensor, bool)) or _is_int_index(obj):
        return
    raise IndexError(_BAD_INDEX.format(type(obj).__name__))


def _count_specified_dims(index: tuple) -> int:
    count = 0
    for obj in index:
        if isinstance(obj, Tensor):
            count += obj.dim() if obj.dtype is _dt.bool or obj.dtype is _dt.uint8 else 1
        elif isinstance(obj, slice) or _is_int_index(obj):
            count += 1
    return count


def _select(result: Tensor, dim: int, index: int, real_dim: int) -> Tensor:
    size = result._shape[dim]
    if index < -size or index >= size:
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    return aten.select.int(result, dim, int(index))


def _slice_args(s: slice) -> tuple[int, int, int]:
    def as_int(v: Any, default: int) -> int:
        if v is None:
            return default
        if isinstance(v, Tensor):
            return int(v.item())
        if not _is_int_index(v):
            raise TypeError("slice indices must be integers or None or have an __index__ method")
        return int(v)

    step = as_int(s.step, 1)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    return as_int(s.start, 0), as_int(s.stop, INT64_MAX), step


def _slice(result: Tensor, dim: int, s: slice) -> Tensor:
    start, stop, step = _slice_args(s)
    if result.dim() == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    if step == 1:
        return aten.slice.Tensor(result, dim, start, stop)
    return aten.slice.Tensor(result, dim, start, stop, step)


def _apply_single(self: Tensor, obj: Any) -> tuple[Tensor, list[Any]]:
    """The fast paths PyTorch takes for a non-tuple index (a lone ``:`` records its slice)."""
    if obj is None:
        return aten.unsqueeze.default(self, 0), []
    if obj is Ellipsis:
        return aten.alias.default(self), []
    if _is_int_index(obj):
        if self.dim() == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        return _select(self, 0, obj, 0), []
    if isinstance(obj, slice):
        return _slice(self, 0, obj), []
    return _apply_tuple(self, (obj,))


def _apply_tuple(self: Tensor, index: tuple) -> tuple[Tensor, list[Any]]:
    """Basic indexing left to right; returns the view and the gathered tensor indices (None-padded)."""
    index = tuple(_normalize(obj) for obj in index)
    for obj in index:
        _check_index_type(obj)
    ndim = self.dim()
    specified = _count_specified_dims(index)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result = self
    dim = 0  # the next dim of ``result`` the index applies to
    tensors: list[Any] = []
    for position, obj in enumerate(index):
        if _is_int_index(obj):
            # NB: PyTorch's message names the index's position in the tuple ("real_dim"), not a tensor dim
            result = _select(result, dim, obj, position)
        elif isinstance(obj, slice):
            start, stop, step = _slice_args(obj)
            # applySlice: a slice from 0 with step 1 reaching the end of the dim (`:`, `0:n`) changes nothing
            if not (start == 0 and step == 1 and result.dim() > dim and stop >= result.shape[dim]):
                result = _slice(result, dim, obj)
            dim += 1
        elif obj is Ellipsis:
            dim += ndim - specified
        elif obj is None:
            result = aten.unsqueeze.default(result, dim)
            dim += 1
        elif isinstance(obj, bool):
            raise NotImplementedError("indexing with a Python bool is not supported by dispatchkit")
        else:  # a Tensor
            tensors.extend([None] * (dim - len(tensors)))
            tensors.append(obj)
            consumed = obj.dim() if obj.dtype is _dt.bool or obj.dtype is _dt.uint8 else 1
            dim += consumed
    return result, tensors


def getitem(self: Tensor, index: Any) -> Tensor:
    """``self[index]``."""
    if isinstance(index, tuple):
        result, tensors = _apply_tuple(self, index)
    else:
        obj = _normalize(index)
        _check_index_type(obj)
        result, tensors = _apply_single(self, obj)
    if tensors:
        return aten.index.Tensor(result, tensors)
    if result is self:
        return aten.alias.default(self)
    return result


def _value_tensor(self: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (numbers.Number, np.generic)):
        from .from_data import internal_new_from_data

        return internal_new_from_data(value, dtype=self.dtype, device=self.device)
    raise TypeError(f"can't assign a {type(value).__name__} to a torch.{_type_name(self.dtype)}")


def _type_name(dt: _dt.dtype) -> str:
    names = {
        "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "int64": "LongTensor",
        "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
        "bool": "BoolTensor",
    }
    return names.get(getattr(dt, "name", ""), "Tensor")


def copy_to(dst: Tensor, src: Tensor) -> None:
    """PyTorch's ``copy_to``: copy_ when shapes match, fill_ from a 0-dim value, else copy_ of the expanded value."""
    if dst._shape == src._shape:
        aten.copy_.default(dst, src)
        return
    if src.dim() == 0:
        fill_tensor(dst, src)
        return
    shape = src._shape
    lead = 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    if lead:
        src = aten.view.default(src, list(shape[lead:]))
    if src._shape != dst._shape:
        from ..ops.meta_utils import broadcast_shapes

        try:
            broadcast_shapes(dst._shape, src._shape)
        except RuntimeError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape [{', '.join(map(str, shape))}] cannot be broadcast to "
                f"indexing result of shape [{', '.join(map(str, dst._shape))}]"
            ) from None
        src = aten.expand.default(src, list(dst._shape))
    aten.copy_.default(dst, src)


def fill_tensor(dst: Tensor, value: Tensor) -> Tensor:
    """``dst.fill_(value)`` for a 0-dim tensor value (``fill_.Tensor``; ``fill_.Scalar`` while that is unlisted)."""
    packet = aten.fill_
    try:
        op = packet.Tensor
    except AttributeError:
        return packet.Scalar(dst, aten._local_scalar_dense.default(value))
    return op(dst, value)


def setitem(self: Tensor, index: Any, value: Any) -> None:
    """``self[index] = value``."""
    value_t = _value_tensor(self, value)
    if isinstance(index, tuple):
        result, tensors = _apply_tuple(self, index)
    else:
        obj = _normalize(index)
        _check_index_type(obj)
        if obj is Ellipsis or (isinstance(obj, slice) and obj.start is None and obj.stop is None
                               and obj.step in (None, 1)):
            result, tensors = self, []
        else:
            result, tensors = _apply_single(self, obj)
    if tensors:
        try:
            index_put_ = aten.index_put_.default
        except AttributeError:
            raise NotImplementedError(
                "assigning through tensor indices needs aten::index_put_, which is not in the op listing yet"
            ) from None
        index_put_(result, tensors, value_t)
        return
    copy_to(result, value_t)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach ``Tensor.__getitem__`` / ``__setitem__`` (called by ``tensor_methods.install``)."""
    T.__getitem__ = getitem
    T.__setitem__ = setitem
