"""Indexing kernels: ``index.Tensor`` / ``index_put`` / ``_index_put_impl_``, ``index_select`` (and its backward),
``nonzero``, ``masked_fill`` / ``masked_select`` / ``masked_scatter`` (and its backward).

Corresponds to aten/src/ATen/native/TensorAdvancedIndexing.cpp and the ``index`` meta function's TensorIterator
(boolean masks expanded to their ``nonzero`` indices, index shapes broadcast, the indexed dims restrided), with
PyTorch's checks in its order. Data-dependent outputs (``nonzero``, ``masked_select``) cannot be shaped on Meta:
their Meta kernels raise PyTorch's messages. ``masked_fill`` (out of place) expands ``self`` and the mask, clones
and fills, as PyTorch's CompositeExplicitAutograd kernel does. Gather / scatter and the ``index_*`` ops that write
rows are in indexing_scatter.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides, device
from .composite import _op, is_tensor_subclass_like
from .kernel_registry import impl
from .meta_utils import (
    TensorMeta,
    broadcast_shapes,
    check_inplace,
    checked_scalar,
    is_non_overlapping_and_dense,
    materialize,
    scalar_type_name,
    strides_in_operand_order,
    wrap_dim,
)
from .tensor_iterator import _C_TYPE_NAMES, _bool, _run
from .views import compute_view_strides, infer_expand_geometry

_META = device("meta")
aten = namespace("aten")

NONZERO_META_MESSAGE = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
    "data-independent implementation does not exist. This implementation returns a fake value, assuming all "
    "elements of the tensor are non-zero. To enable this registration, please set "
    "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True."
)


# --- index_select / index.Tensor / nonzero / index_put (TensorAdvancedIndexing.cpp) --------------------


def _output_device(*tensors: Any) -> device:
    """Meta if any tensor is meta (the Meta kernel runs), else cpu."""
    for t in tensors:
        if isinstance(t, Tensor) and t._data is None:
            return _META
    return tensors[0]._device


@impl("index_select", "CPU", "Meta")
def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    if index._dtype.name not in ("int32", "int64"):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if len(index._shape) > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    ndim = len(self._shape)
    dim = wrap_dim(dim, ndim)
    n = index.numel()
    if ndim == 0 and n != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {n} value(s)")
    shape = self._shape[:dim] + (n,) + self._shape[dim + 1:] if ndim else ()
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)
    out_device = _output_device(self, index)

    def compute() -> np.ndarray:
        idx = index._data.reshape(-1).astype(np.int64, copy=False)
        _check_index_select_range(self, dim, idx)
        if ndim == 0:
            return self._data.copy()
        return np.take(self._data, idx, axis=dim)

    return materialize(meta, compute, out_device)


def _check_index_select_range(self: Tensor, dim: int, idx: np.ndarray) -> None:
    """PyTorch's CPU kernel checks indices on two paths with two messages; reproduce both."""
    if not idx.size:
        return
    ndim = len(self._shape)
    size = self._shape[dim] if ndim else 1
    if ndim > 1 and (dim == 1 or self.numel() == 0):
        # the batched path (dim 1, or an empty self): negative indices are out of bounds here too
        if self.numel() == 0 and size == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(idx[bad][0])} axis_dim={size}")
        return
    if idx.min() < 0 or idx.max() >= size:
        raise IndexError("index out of range in self")


def _expand_bool_masks(self: Tensor, indices: list[Any]) -> list[Any]:
    """Replace each bool/uint8 mask by the long index tensors of its nonzero positions (ATen expandTensors)."""
    out: list[Any] = []
    for idx in indices:
        if idx is None or idx._dtype.name not in ("bool", "uint8"):
            out.append(idx)
            continue
        start = len(out)
        for k, size in enumerate(idx._shape):
            if start + k >= len(self._shape) or size != self._shape[start + k]:
                raise IndexError(
                    f"The shape of the mask {list(idx._shape)} at index {k} does not match the shape of the indexed "
                    f"tensor {list(self._shape)} at index {start + k}"
                )
        if idx._data is None:
            raise NotImplementedError(NONZERO_META_MESSAGE)
        for positions in np.nonzero(idx._data):
            out.append(Tensor._from_numpy(positions.astype(np.int64), _dt.int64))
    return out


def _broadcast_index_shapes(indices: list[Tensor]) -> tuple[int, ...]:
    try:
        return broadcast_shapes(*[t._shape for t in indices])
    except RuntimeError:
        shapes = ", ".join(str(list(t._shape)) for t in indices)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}") from None


def _restride_index(idx: Tensor, bshape: tuple[int, ...], lead: int, trail: int) -> tuple[tuple, tuple]:
    """An index tensor as ATen's AdvancedIndex sees it: expanded to ``bshape``, then viewed with size-1 dims
    for the dims before and after the indexed ones."""
    shape, stride = idx._shape, idx._stride
    if shape != bshape:
        shape, stride = infer_expand_geometry(shape, stride, list(bshape))
    new_shape = (1,) * lead + shape + (1,) * trail
    return new_shape, compute_view_strides(shape, stride, list(new_shape))


def _is_contiguous_geometry(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """c10's is_contiguous: any empty tensor is contiguous; otherwise row-major, ignoring size-1 dims."""
    if 0 in shape:
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride)):
        if size != 1:
            if st != expected:
                return False
            expected *= size
    return True


def iterator_output_strides(shape: tuple[int, ...], operands: list[tuple[tuple, tuple]]) -> tuple[int, ...]:
    """The strides TensorIterator gives a new output of ``shape`` for inputs given as (shape, stride).

    An input dim of size 1 counts as broadcast (stride 0) only where the output's size is not 1; the dims
    are sorted fastest-first by the first input that tells two apart; a natural order gives a contiguous
    output, any other order dense strides built from the raw sizes (so dims after a size-0 dim get 0).
    """
    ndim = len(shape)
    if ndim <= 1:
        return contiguous_strides(shape)
    if all(op_shape == shape for op_shape, _ in operands):  # TensorIterator's fast setup
        if all(_is_contiguous_geometry(op_shape, op_stride) for op_shape, op_stride in operands):
            return contiguous_strides(shape)
        first = operands[0][1]
        if all(op_stride == first for _, op_stride in operands) and is_non_overlapping_and_dense(shape, first):
            return tuple(first)
    strides = [
        [0 if op_shape[i] == 1 and shape[i] != 1 else op_stride[i] for i in range(ndim)]
        for op_shape, op_stride in operands
    ]
    return strides_in_operand_order(shape, strides)


def _index_meta(self: Tensor, indices: list[Any]) -> tuple[TensorMeta, list[int], tuple[int, ...]]:
    """Output metadata of advanced indexing: shape as NumPy, strides as TensorIterator over the restrided input."""
    ndim = len(self._shape)
    entries = indices + [None] * (ndim - len(indices))
    positions = [d for d, idx in enumerate(entries) if idx is not None]
    index_tensors = [entries[d] for d in positions]
    bshape = _broadcast_index_shapes(index_tensors)
    adjacent = positions[-1] - positions[0] + 1 == len(positions)
    rest = [d for d in range(ndim) if entries[d] is None]
    if adjacent:
        before = [d for d in rest if d < positions[0]]
        after = [d for d in rest if d > positions[-1]]
    else:  # the indexed dims move to the front (ATen transposeToFront), as NumPy does
        before, after = [], rest
    shape = tuple(self._shape[d] for d in before) + bshape + tuple(self._shape[d] for d in after)
    src_stride = (
        tuple(self._stride[d] for d in before) + (0,) * len(bshape) + tuple(self._stride[d] for d in after)
    )
    operands = [(shape, src_stride)]
    operands += [_restride_index(idx, bshape, len(before), len(after)) for idx in index_tensors]
    stride = iterator_output_strides(shape, operands)
    return TensorMeta(shape, stride, self._dtype), positions, bshape


@impl("index.Tensor", "CPU", "Meta")
def index_tensor(self: Tensor, indices: list[Any]) -> Tensor:
    if len(indices) == 0:
        raise IndexError("at least one index must be provided")
    for idx in indices:
        if idx is not None and idx._dtype.name not in ("int64", "int32", "uint8", "bool"):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    ndim = len(self._shape)
    if len(indices) > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {len(indices)})")
    expanded = _expand_bool_masks(self, list(indices))
    if all(idx is None for idx in expanded):
        return aten.clone.default(self)
    meta, positions, _ = _index_meta(self, expanded)
    out_device = _output_device(self, *[i for i in expanded if i is not None])

    def compute() -> np.ndarray:
        key: list[Any] = [slice(None)] * ndim
        for k, d in enumerate(positions):
            idx = expanded[d]._data.astype(np.int64, copy=False)
            size = self._shape[d]
            bad = (idx < -size) | (idx >= size)
            if bad.any():
                raise IndexError(f"index {int(idx[bad].flat[0])} is out of bounds for dimension {k} with size {size}")
            key[d] = idx
        return self._data[tuple(key)]

    return materialize(meta, compute, out_device)


@impl("nonzero", "CPU")
def nonzero(self: Tensor) -> Tensor:
    """int64 [n, ndim] with strides (1, n), as PyTorch allocates it (transposed)."""
    coords = np.argwhere(self._data) if self._shape else np.zeros((int(bool(self._data)), 0), dtype=np.int64)
    n = coords.shape[0]
    out = Tensor._empty((n, len(self._shape)), _dt.int64, self._device, (1, n))
    if out._data.size:
        out._data[...] = coords
    return out


@impl("nonzero", "Meta")
def nonzero_meta(self: Tensor) -> Tensor:
    raise NotImplementedError(NONZERO_META_MESSAGE)


def _check_values_broadcast(self: Tensor, expanded: list[Any], values: Tensor) -> None:
    """index_put's values must broadcast to the indexing result (ATen's index_put_with_sort / TensorIterator)."""
    if all(i is None for i in expanded):
        result: tuple[int, ...] = tuple(self._shape)
    else:
        result = tuple(_index_meta(self, expanded)[0].shape)
    v = tuple(values._shape)
    if len(v) > len(result) or any(a != b and a != 1 for a, b in zip(reversed(v), reversed(result))):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(v)} cannot be broadcast to indexing result "
                           f"of shape {list(result)}")


@impl("_index_put_impl_", "CPU", "Meta")
def index_put_impl_(
    self: Tensor, indices: list[Any], values: Tensor, accumulate: bool = False, unsafe: bool = False
) -> Tensor:
    """``self[indices] = values`` (or ``+=`` with accumulate) with NumPy's advanced indexing, as ATen's index_put."""
    if values._dtype is not self._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{scalar_type_name(self._dtype)} for the destination and {scalar_type_name(values._dtype)} for the source."
        )
    expanded = _expand_bool_masks(self, list(indices))
    if len(expanded) > len(self._shape):
        raise IndexError(f"too many indices for tensor of dimension {len(self._shape)} (got {len(expanded)})")
    _check_values_broadcast(self, expanded, values)
    if self._data is None:
        return self
    key = tuple(slice(None) if i is None else i._data.astype(np.int64, copy=False) for i in expanded)
    for axis, i in enumerate(key):
        if isinstance(i, np.ndarray) and i.size:
            size = self._shape[axis]
            bad = i[(i >= size) | (i < -size)]
            if bad.size:
                raise IndexError(f"index {int(bad.flat[0])} is out of bounds for dimension {axis} with size {size}")
    vals = values._data
    if accumulate:
        np.add.at(self._data, key, vals)
    else:
        self._data[key] = vals
    return self


@impl("index_put_", "CompositeExplicitAutograd")
def index_put_(self: Tensor, indices: list[Any], values: Tensor, accumulate: bool = False) -> Tensor:
    return aten._index_put_impl_.default(self, indices, values, accumulate, False)


@impl("index_put", "CompositeExplicitAutograd")
def index_put(self: Tensor, indices: list[Any], values: Tensor, accumulate: bool = False) -> Tensor:
    """The out-of-place index_put: a clone of ``self`` (preserve format) written by ``index_put_``."""
    return aten.index_put_.default(aten.clone.default(self), indices, values, accumulate)


# --- index_select_backward (CompositeImplicitAutograd) -------------------------------------------------


@impl("index_select_backward", "CompositeImplicitAutograd")
def index_select_backward(grad: Tensor, self_sizes: Any, dim: int, index: Tensor) -> Tensor:
    """index_select's gradient: ``grad`` added into zeros of ``self_sizes`` along ``dim`` at ``index``; out of
    place when ``index`` is subclass-like."""
    zeros = _op("new_zeros")(grad, list(self_sizes), dtype=grad.dtype, layout=grad.layout, device=grad.device)
    if is_tensor_subclass_like(index):
        return _op("index_add")(zeros, dim, index, grad)
    return _op("index_add_")(zeros, dim, index, grad)


# --- masked_fill ---------------------------------------------------------------------------------------


def _check_mask(mask: Tensor) -> None:
    if mask._dtype is not _bool:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {_C_TYPE_NAMES[mask._dtype.name]}"
        )


def _fill_value(value: Any, dtype: _dt.dtype) -> Any:
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.dim()} dimension(s)."
            )
        return None if value._data is None else value._data[()].item()
    return value


@impl("masked_fill_.Scalar", "CPU", "Meta")
def masked_fill__scalar(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    _check_mask(mask)
    shape = broadcast_shapes(self._shape, mask._shape)
    check_inplace(self, shape, self._dtype, overlap=False)  # PyTorch: no overlap check (masked_fill_ on expanded)
    if self._data is not None and mask._data is not None:
        fill = checked_scalar(value, self._dtype)
        np.copyto(self._data, fill, where=np.broadcast_to(mask._data, shape))
    return self


@impl("masked_fill_.Tensor", "CPU", "Meta")
def masked_fill__tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    """Fill with a 0-dim tensor's value (PyTorch reads it with ``item()``, then fills as the Scalar overload)."""
    _check_mask(mask)
    fill = _fill_value(value, self._dtype)
    shape = broadcast_shapes(self._shape, mask._shape)
    check_inplace(self, shape, self._dtype, overlap=False)  # PyTorch: no overlap check (masked_fill_ on expanded)
    if self._data is not None and mask._data is not None:
        np.copyto(self._data, checked_scalar(fill, self._dtype), where=np.broadcast_to(mask._data, shape))
    return self


def _masked_fill(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """PyTorch: expand self and mask to a common shape, clone contiguous, then fill in place."""
    _check_mask(mask)
    shape = broadcast_shapes(mask._shape, self._shape)
    fill = _fill_value(value, self._dtype)
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)

    def compute() -> Any:
        out = np.array(np.broadcast_to(self._data, shape), dtype=self._dtype.np_dtype)
        v = checked_scalar(fill, self._dtype)
        np.copyto(out, v, where=np.broadcast_to(mask._data, shape))
        return out

    return _run(meta, self, compute)


@impl("masked_fill.Scalar", "CompositeExplicitAutograd")
def masked_fill_scalar(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    return _masked_fill(self, mask, value)


@impl("masked_fill.Tensor", "CompositeExplicitAutograd")
def masked_fill_tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    return _masked_fill(self, mask, value)


# --- masked_select / masked_scatter (TensorAdvancedIndexing.cpp) ---------------------------------------

MASKED_SELECT_META_MESSAGE = (
    "aten::masked_select: attempted to run this operator with Meta tensors, but there was no fake impl or Meta "
    "kernel registered. You may have run into this message while using an operator with PT2 compilation APIs "
    "(torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake impl. "
    "Please see the following for next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
)


def _check_bool_mask(mask: Tensor, message: str) -> None:
    if mask._dtype is not _dt.bool:
        raise RuntimeError(message)


@impl("masked_select", "CPU")
def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``self`` (broadcast with ``mask``) where ``mask`` is True, in row-major order, 1-D."""
    _check_bool_mask(mask, "masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask._shape, self._shape)
    values = np.broadcast_to(self._data, shape)[np.broadcast_to(mask._data, shape)]
    return materialize(TensorMeta(values.shape, contiguous_strides(values.shape), self._dtype), values, self)


@impl("masked_select", "Meta")
def masked_select_meta(self: Tensor, mask: Tensor) -> Tensor:
    raise NotImplementedError(MASKED_SELECT_META_MESSAGE)


def _masked_scatter_checks(self: Tensor, mask: Tensor, source: Tensor) -> None:
    _check_bool_mask(mask, f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{scalar_type_name(mask._dtype)}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{scalar_type_name(self._dtype)} and {scalar_type_name(source._dtype)}")


def _masked_scatter_into(out: np.ndarray, mask: np.ndarray, source: Tensor) -> None:
    """Write ``source``'s leading elements, in order, where ``mask`` (broadcast to ``out``) is True."""
    where = np.broadcast_to(mask, out.shape)
    count = int(where.sum())
    flat = np.asarray(source._data).reshape(-1)
    if flat.size < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out[where] = flat[:count]


@impl("masked_scatter_", "CPU", "Meta")
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    _masked_scatter_checks(self, mask, source)
    if len(mask._shape) > len(self._shape):  # mask.expand(self.sizes()) in C++, which names the type "CPUBoolType"
        backend = "Meta" if mask._device.type == "meta" else "CPU"
        raise RuntimeError(
            f"expand({backend}{scalar_type_name(mask._dtype)}Type{{{list(mask._shape)}}}, size={list(self._shape)}): "
            f"the number of sizes provided ({len(self._shape)}) must be greater or equal to the number of dimensions "
            f"in the tensor ({len(mask._shape)})"
        )
    infer_expand_geometry(mask._shape, mask._stride, list(self._shape))
    if self._data is not None and mask._data is not None and source._data is not None:
        _masked_scatter_into(self._data, mask._data, source)
    return self


@impl("masked_scatter", "CompositeExplicitAutograd")
def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Out of place: self and mask broadcast together, a contiguous copy, then filled as ``masked_scatter_``."""
    _masked_scatter_checks(self, mask, source)
    shape = broadcast_shapes(mask._shape, self._shape)
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)

    def compute() -> np.ndarray:
        out = np.array(np.broadcast_to(self._data, shape), order="C")
        _masked_scatter_into(out, mask._data, source)
        return out

    return materialize(meta, compute, _output_device(self, mask, source))


@impl("masked_scatter_backward", "CompositeExplicitAutograd")
def masked_scatter_backward(grad_output: Tensor, mask: Tensor, sizes: list[int]) -> Tensor:
    """``grad_output[mask]`` padded with zeros to ``prod(sizes)`` elements, viewed as ``sizes``."""
    _check_bool_mask(mask, "masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask._shape, grad_output._shape)
    numel = math.prod(sizes)
    sizes = [int(s) for s in sizes]
    if grad_output._data is None or mask._data is None:
        selected = None
        n = numel
    else:
        selected = np.broadcast_to(grad_output._data, shape)[np.broadcast_to(mask._data, shape)]
        n = max(numel, selected.size)
    if n != numel:
        raise RuntimeError(f"shape '{sizes}' is invalid for input of size {n}")
    meta = TensorMeta(tuple(sizes), contiguous_strides(tuple(sizes)), grad_output._dtype)
    if selected is None:
        return materialize(meta, None, _output_device(grad_output, mask))
    values = np.zeros(numel, grad_output._dtype.np_dtype)
    values[: selected.size] = selected
    return materialize(meta, values.reshape(sizes), grad_output)
