"""Shared shape, dtype and layout logic for kernels: what Meta kernels compute and CPU kernels reuse.

Corresponds to the parts of ATen every structured kernel shares: broadcasting
(ExpandUtils), TensorIterator's choice of output strides, dim wrapping, and the
allocation of outputs. A CPU kernel here is "the meta function + a NumPy
computation placed into an output allocated with the meta layout", so Meta and
CPU kernels agree on shape, dtype and strides by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, as_device, contiguous_strides


class TensorMeta(NamedTuple):
    """What a meta function returns for one output."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: _dt.dtype


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def wrap_dim(dim: int, ndim: int) -> int:
    """Normalize a dim with PyTorch's IndexError ("Dimension out of range ...")."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim + max(ndim, 1) if dim < 0 else dim  # a 0-dim tensor wraps as if it had one dim


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """Broadcast shapes right-aligned, with PyTorch's error for a mismatch."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for i in range(1, ndim + 1):
        size = 1
        for k, s in enumerate(shapes):
            if i > len(s):
                continue
            d = s[-i]
            if d == 1:
                continue
            if size == 1:
                size = d
            elif d != size:
                a, b = ("a", "b") if k == 1 else ("b", "a")
                raise RuntimeError(
                    f"The size of tensor {a} ({size if a == 'a' else d}) must match the size of tensor {b} "
                    f"({d if a == 'a' else size}) at non-singleton dimension {ndim - i}"
                )
        out[-i] = size
    return tuple(out)


def _broadcast_strides(t: Tensor, shape: tuple[int, ...]) -> tuple[int, ...]:
    """t's strides as TensorIterator sees them in ``shape``: 0 for padded and broadcast (size 1 -> n) dims."""
    pad = len(shape) - len(t._shape)
    strides = [0] * pad
    for i, (size, stride) in enumerate(zip(t._shape, t._stride)):
        strides.append(0 if size == 1 and shape[pad + i] != 1 else stride)
    return tuple(strides)


def is_non_overlapping_and_dense(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense``: some permutation of the dims is contiguous."""
    if len(shape) == 1:
        return shape[0] < 2 or stride[0] == 1
    dims = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: stride[d])
    expected = 1
    for d in dims:
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True


def is_channels_last_contiguous(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """``is_contiguous(memory_format=torch.channels_last)`` for a 4-d tensor (False otherwise)."""
    from ..memory_format import is_channels_last_contiguous_2d

    return is_channels_last_contiguous_2d(shape, stride)


def channels_last_strides(shape: Sequence[int]) -> tuple[int, ...]:
    n, c, h, w = (max(s, 1) for s in shape)
    return (h * w * c, 1, w * c, c)


def preserve_format_strides(t: Tensor) -> tuple[int, ...]:
    """Strides of ``t.to(other_dtype)`` / ``empty_like(t)`` (memory_format=preserve).

    t's own strides when it is dense (PyTorch counts empty tensors as contiguous, hence dense),
    else dense strides in t's dim order (``infer_dense_strides``).
    """
    if t._contiguous or 0 in t._shape or is_non_overlapping_and_dense(t._shape, t._stride):
        return t._stride
    return infer_dense_strides(t._shape, t._stride)


def infer_dense_strides(shape: Sequence[int], stride: Sequence[int]) -> tuple[int, ...]:
    """Dense strides ordering the dims as ``stride`` does (ATen's ``infer_dense_strides``)."""
    ndim = len(shape)
    if ndim <= 1:
        return (1,) * ndim

    def should_swap(dim0: int, dim1: int) -> int:
        s0, s1 = stride[dim0], stride[dim1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[dim0] > shape[dim1] else 0

    perm = _insertion_sort(ndim, should_swap)
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        if shape[d] > 1:
            acc *= shape[d]
    return tuple(out)


def _insertion_sort(ndim: int, should_swap: Any) -> list[int]:
    """TensorIterator's dim order (fastest first): insertion sort that stops at the first decisive comparison."""
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            c = should_swap(perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    return perm


def elementwise_strides(shape: tuple[int, ...], operands: Sequence[Any]) -> tuple[int, ...]:
    """The output strides TensorIterator picks for inputs ``operands`` (Tensors or Python numbers), in order.

    As ``TensorIteratorBase::fast_set_up`` then ``reorder_dimensions`` / ``allocate_or_resize_outputs``:
    when every operand has the output's shape and all are contiguous (or all channels-last, or all
    dense with identical strides) the output takes that layout. Otherwise the dims are sorted
    fastest-first by the first operand whose strides tell two dims apart (broadcast dims do not
    count; equal strides put the smaller dim first) and the output is dense in that order;
    contiguous when the order is the natural one. Python numbers and 0-dim tensors are operands
    of shape ``()``.
    """
    ndim = len(shape)
    if ndim == 0:
        return ()
    tensors = [t for t in operands if isinstance(t, Tensor)]
    if len(tensors) == len(operands) and all(t._shape == shape for t in tensors):
        if all(t._contiguous for t in tensors) or 0 in shape:  # PyTorch: empty tensors are contiguous
            return contiguous_strides(shape)
        if ndim == 4 and all(is_channels_last_contiguous(shape, t._stride) for t in tensors):
            return channels_last_strides(shape)
        last = tensors[-1]._stride
        if all(t._stride == last for t in tensors) and is_non_overlapping_and_dense(shape, last):
            return tuple(last)
    if ndim == 1:
        return contiguous_strides(shape)
    return strides_in_operand_order(shape, [_broadcast_strides(t, shape) for t in tensors if t._shape])


def strides_in_operand_order(shape: tuple[int, ...], operand_strides: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """TensorIterator's ``reorder_dimensions`` + output allocation for broadcast operand strides.

    Dims are ordered fastest-first by the first operand whose strides tell two dims apart
    (0 strides, i.e. broadcast dims, do not count; equal strides put the smaller dim first);
    the output is dense in that order (contiguous when the order is the natural one).
    """
    ndim = len(shape)

    def should_swap(dim0: int, dim1: int) -> int:
        for st in operand_strides:
            s0, s1 = st[dim0], st[dim1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    perm = _insertion_sort(ndim, should_swap)  # fastest first
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]  # NB: not max(size, 1), as TensorIterator's compatible_stride
    return tuple(out)


_TORCH_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
    "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
}


def scalar_type_name(dt: _dt.dtype) -> str:
    """c10's ScalarType name ("Float", "Long"), as PyTorch's error messages print dtypes."""
    return _TORCH_NAMES[dt.name]


def can_cast(from_: _dt.dtype, to: _dt.dtype) -> bool:
    """``torch.can_cast``: no complex -> real, floating -> integral, or non-bool -> bool."""
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return not (from_ is not _dt.bool and to is _dt.bool)


def check_no_internal_overlap(self: Tensor) -> None:
    """ATen assert_no_internal_overlap: a dense (or empty) tensor is fine; a stride-0 dim of size > 1 is not."""
    if self._contiguous or 0 in self._shape:
        return
    for size, st in zip(self._shape, self._stride):
        if st == 0 and size > 1:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation."
            )


def check_inplace(self: Tensor, shape: tuple[int, ...], dtype: _dt.dtype, overlap: bool = True) -> None:
    """TensorIterator's checks for writing a result of ``shape`` / ``dtype`` into ``self``: memory overlap first
    (unless ``overlap`` is False, TensorIteratorConfig's ``set_check_mem_overlap(false)``), then shape and dtype."""
    if overlap and not self._contiguous:
        check_no_internal_overlap(self)
    if shape != self._shape:
        raise RuntimeError(
            f"output with shape {list(self._shape)} doesn't match the broadcast shape {list(shape)}"
        )
    if dtype is not self._dtype and not can_cast(dtype, self._dtype):
        raise RuntimeError(
            f"result type {scalar_type_name(dtype)} can't be cast to the desired output type "
            f"{scalar_type_name(self._dtype)}"
        )


def new_output(meta: TensorMeta, like: Any) -> Tensor:
    """Allocate an output on the device of ``like`` (a Tensor, a device, or None for cpu)."""
    device = like._device if isinstance(like, Tensor) else as_device(like)
    return Tensor._empty(meta.shape, meta.dtype, device, meta.stride)


def materialize(meta: TensorMeta, values: Any, device_of: Any) -> Tensor:
    """The output tensor for ``meta``: NumPy ``values`` on CPU, nothing computed on Meta.

    ``values`` may be a callable computing them (called only on CPU).
    """
    device = device_of._device if type(device_of) is Tensor else (
        device_of._device if isinstance(device_of, Tensor) else as_device(device_of)
    )
    if device.type == "meta":
        return Tensor._empty(meta.shape, meta.dtype, device, meta.stride)
    arr = values() if callable(values) else values
    if type(arr) is not np.ndarray:
        arr = np.asarray(arr)
    np_dtype = meta.dtype.np_dtype
    if (
        (arr.dtype is np_dtype or arr.dtype == np_dtype)
        and arr.flags.c_contiguous
        and arr.flags.writeable  # (np.broadcast_to's views are read-only: copied, so in-place ops work on them)
        and arr.shape == meta.shape
        and (meta.stride is contiguous_strides(meta.shape) or meta.stride == contiguous_strides(meta.shape))
    ):
        return Tensor._wrap_contiguous(arr, meta.dtype)
    if arr.dtype != np_dtype and arr.shape == meta.shape and arr.flags.c_contiguous and (
        meta.stride == contiguous_strides(meta.shape)
    ):
        with np.errstate(all="ignore"):
            return Tensor._wrap_contiguous(arr.astype(np_dtype), meta.dtype)
    out = Tensor._empty(meta.shape, meta.dtype, device, meta.stride)
    if out._data.size:
        if arr.dtype != np_dtype:
            with np.errstate(all="ignore"):  # e.g. float32 -> float16 rounding to inf, as torch does silently
                arr = arr.astype(np_dtype)
        out._data[...] = arr
    return out


def np_operand(x: Any, dtype: _dt.dtype) -> Any:
    """A tensor's values (or a Python number) as NumPy data of ``dtype`` for computing."""
    if isinstance(x, Tensor):
        data = x._data
        return data if data.dtype == dtype.np_dtype else data.astype(dtype.np_dtype)
    try:
        return dtype.np_dtype.type(x)
    except OverflowError:  # PyTorch converts out-of-range numbers with C casts (wrapping)
        return np.array(x).astype(dtype.np_dtype)[()]


_C_SCALAR_NAMES = {
    "bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
    "float16": "c10::Half", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
    "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
}


def checked_scalar(value: Any, dtype: _dt.dtype) -> Any:
    """A Python number as a NumPy scalar of ``dtype``, with PyTorch's overflow check (``Scalar::to<T>``).

    Integers may wrap into unsigned types down to ``-max`` (two's complement); floats must lie in
    the target's range (infinities are fine for floating targets, NaN is not for integral ones).
    """
    np_dtype = dtype.np_dtype
    if dtype is _dt.bool or isinstance(value, bool):
        return np_dtype.type(value)
    if isinstance(value, complex) and not dtype.is_complex:
        value = value.real
    kind = np_dtype.kind
    overflow = False
    if kind in "iu":
        info = np.iinfo(np_dtype)
        if isinstance(value, int):
            overflow = value > info.max or (value < -info.max if kind == "u" else value < info.min)
        else:
            overflow = not (info.min <= value <= info.max)  # False for NaN
    elif kind == "f" and not isinstance(value, complex):
        finfo = np.finfo(np_dtype)
        overflow = abs(value) > float(finfo.max) and value not in (float("inf"), float("-inf"))
    if overflow:
        raise RuntimeError(f"value cannot be converted to type {_C_SCALAR_NAMES[dtype.name]} without overflow")
    if kind in "iu" and not isinstance(value, int):
        value = int(value)
    if kind == "u" and value < 0:
        value += int(np.iinfo(np_dtype).max) + 1
    return np_dtype.type(value)


def check_same_device(op: str, *tensors: Any) -> None:
    devices = {t._device.type for t in tensors if isinstance(t, Tensor) and t.dim() > 0}
    if len(devices) > 1:
        raise RuntimeError(
            f"{op}: Expected all tensors to be on the same device, but found at least two devices, "
            f"{' and '.join(sorted(devices))}!"
        )


def device_of(*args: Any) -> Any:
    """The device of the first tensor argument (cpu if none)."""
    for a in args:
        if isinstance(a, Tensor):
            return a._device
    return as_device("cpu")
