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
    return dim + ndim if dim < 0 else dim


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
    """t's strides as seen when expanded to ``shape`` (0 for broadcast dims)."""
    pad = len(shape) - t.dim()
    strides = [0] * pad
    for size, stride in zip(t._shape, t._stride):
        strides.append(0 if size == 1 else stride)
    return tuple(strides)


def elementwise_strides(shape: tuple[int, ...], operands: Sequence[Any]) -> tuple[int, ...]:
    """Output strides TensorIterator picks: follow the inputs' memory order, densely.

    Dims are ordered fastest-first by the strides of the first operand that tells two
    dims apart (broadcast dims are ambiguous); ties keep the natural order. The
    output is then dense in that order. Contiguous inputs give contiguous output.
    """
    ndim = len(shape)
    tensors = [t for t in operands if isinstance(t, Tensor) and t._shape]
    if ndim <= 1 or not tensors:
        return contiguous_strides(shape)
    if all(t._contiguous for t in tensors):
        return contiguous_strides(shape)
    strides = [_broadcast_strides(t, shape) for t in tensors]

    def should_swap(dim0: int, dim1: int) -> int:
        for st in strides:
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

    perm = list(range(ndim - 1, -1, -1))  # fastest first
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            c = should_swap(perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= max(shape[d], 1)
    return tuple(out)


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
        and arr.shape == meta.shape
        and (meta.stride is contiguous_strides(meta.shape) or meta.stride == contiguous_strides(meta.shape))
    ):
        return Tensor._wrap_contiguous(arr, meta.dtype)
    out = Tensor._empty(meta.shape, meta.dtype, device, meta.stride)
    if out._data.size:
        out._data[...] = arr.astype(meta.dtype.np_dtype, copy=False)
    return out


def np_operand(x: Any, dtype: _dt.dtype) -> Any:
    """A tensor's values (or a Python number) as NumPy data of ``dtype`` for computing."""
    if isinstance(x, Tensor):
        data = x._data
        return data if data.dtype == dtype.np_dtype else data.astype(dtype.np_dtype)
    return dtype.np_dtype.type(x)


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
