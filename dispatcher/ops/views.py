"""View kernels: ops whose output shares the input's storage (``view``, ``t``, ``transpose``, ``permute``,
``select``, ``slice``, ``expand``, ``diagonal``, ``unbind`` / ``split`` ...) and the in-place view ops (``t_``,
``squeeze_`` ...).

Corresponds to aten/src/ATen/native/TensorShape.cpp. Each view op only computes new geometry (shape, strides,
storage offset) and returns ``self._view(...)``, which works the same for CPU and Meta tensors, so one kernel serves
both. ``view`` and ``as_strided`` are backend ops in PyTorch (CPU and Meta kernels); the others are
CompositeExplicitAutograd. In PyTorch most of those call ``as_strided`` or ``alias_with_sizes_and_strides``
internally; that call runs below any mode, so here they build the view directly. ``t`` keeps PyTorch's composition
(it calls ``transpose``). ``detach`` and ``_unsafe_view`` share storage but are not views to autograd (their
``_base`` is None), as in PyTorch. An in-place view op gives ``self`` the geometry of the matching view. The
backward / scatter ops of views are in views_scatter.py, the CompositeImplicitAutograd ones in views_composite.py.
"""

from __future__ import annotations

import numpy as np

from ..math_bits import copy_bits
from ..op_overload import namespace
from ..storage import share_dataless
from ..tensor import Tensor, contiguous_strides
from .kernel_dtypes import legacy_type_name
from .kernel_registry import impl
from .meta_utils import wrap_dim as _wrap_dim

aten = namespace("aten")


def wrap_dim(dim: int, ndim: int) -> int:
    """ATen maybe_wrap_dim: a 0-dim tensor accepts dims -1 and 0, which both mean 0."""
    if ndim:
        return _wrap_dim(dim, ndim)
    _wrap_dim(dim, 0)  # range check only
    return 0


# --- view / _unsafe_view -------------------------------------------------------------------------


def infer_size(shape: list[int], numel: int) -> list[int]:
    """Resolve one -1 in a view/reshape size, with PyTorch's errors (ATen infer_size)."""
    shape = list(shape)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape}")
        else:
            known *= s
    if infer is not None:
        if known == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {shape} because the unspecified dimension "
                    "size -1 can be any value and is ambiguous"
                )
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        if numel % known != 0:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[infer] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return shape


def compute_view_strides(
    old_shape: tuple[int, ...], old_stride: tuple[int, ...], new_shape: list[int]
) -> tuple[int, ...] | None:
    """Strides for viewing (old_shape, old_stride) as new_shape without copying, or None (ATen computeStride)."""
    if not old_shape:
        return tuple([1] * len(new_shape))
    numel = 1
    for s in old_shape:
        numel *= s
    if numel == 0:
        if list(old_shape) == list(new_shape):
            return tuple(old_stride)
        return contiguous_strides(tuple(new_shape))
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1 and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def _view_geometry(self: Tensor, size: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    shape = infer_size(size, self.numel())
    if self._contiguous and 0 not in self._shape and self._stride == contiguous_strides(self._shape):
        shape_t = tuple(shape)
        return shape_t, contiguous_strides(shape_t)
    stride = compute_view_strides(self._shape, self._stride, shape)
    if stride is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead."
        )
    return tuple(shape), stride


@impl("view", "CPU", "Meta", "ZeroTensor")  # ZeroTensor: the view of a zero tensor is one (zero_tensor.py)
def view(self: Tensor, size: list[int]) -> Tensor:
    shape, stride = _view_geometry(self, size)
    return self._view(shape, stride, self._storage_offset)


@impl("_unsafe_view", "CompositeExplicitAutograd")
def _unsafe_view(self: Tensor, size: list[int]) -> Tensor:
    """Like ``view``, but the result is not a view to autograd (no ``_base``, its own version counter)."""
    shape, stride = _view_geometry(self, size)
    out = Tensor._from_storage(self._storage, shape, stride, self._storage_offset, self._dtype, self._device)
    return copy_bits(out, self)


# --- adding / removing / reordering dims ------------------------------------------------------------


@impl("unsqueeze", "CompositeExplicitAutograd")
def unsqueeze(self: Tensor, dim: int) -> Tensor:
    ndim = len(self._shape)
    dim = wrap_dim(dim, ndim + 1)
    new_stride = self._shape[dim] * self._stride[dim] if dim < ndim else 1
    shape = self._shape[:dim] + (1,) + self._shape[dim:]
    stride = self._stride[:dim] + (new_stride,) + self._stride[dim:]
    return self._view(shape, stride, self._storage_offset)


def _squeeze_dims(self: Tensor, dims: set[int]) -> Tensor:
    shape, stride = [], []
    for d, (size, st) in enumerate(zip(self._shape, self._stride)):
        if d in dims and size == 1:
            continue
        shape.append(size)
        stride.append(st)
    return self._view(tuple(shape), tuple(stride), self._storage_offset)


@impl("squeeze", "CompositeExplicitAutograd")
def squeeze(self: Tensor) -> Tensor:
    return _squeeze_dims(self, set(range(len(self._shape))))


@impl("squeeze.dim", "CompositeExplicitAutograd")
def squeeze_dim(self: Tensor, dim: int) -> Tensor:
    return _squeeze_dims(self, {wrap_dim(dim, len(self._shape))})


@impl("squeeze.dims", "CompositeExplicitAutograd")
def squeeze_dims(self: Tensor, dim: list[int]) -> Tensor:
    ndim = len(self._shape)
    seen: set[int] = set()
    for d in dim:
        w = wrap_dim(d, ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
    return _squeeze_dims(self, seen)


@impl("transpose.int", "CompositeExplicitAutograd")
def transpose_int(self: Tensor, dim0: int, dim1: int) -> Tensor:
    ndim = len(self._shape)
    dim0 = wrap_dim(dim0, ndim)
    dim1 = wrap_dim(dim1, ndim)
    if dim0 == dim1:
        return self._view(self._shape, self._stride, self._storage_offset)
    shape = list(self._shape)
    stride = list(self._stride)
    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    stride[dim0], stride[dim1] = stride[dim1], stride[dim0]
    return self._view(tuple(shape), tuple(stride), self._storage_offset)


@impl("t", "CompositeExplicitAutograd")
def t(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return aten.transpose.int(self, 0, 0 if ndim < 2 else 1)


@impl("permute", "CompositeExplicitAutograd")
def permute(self: Tensor, dims: list[int]) -> Tensor:
    ndim = len(self._shape)
    if len(dims) != ndim:
        # PyTorch 2.13 prints "sparse_coo" here for dense tensors too.
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
        )
    wrapped: list[int] = []
    for d in dims:
        w = wrap_dim(d, ndim)
        if w in wrapped:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        wrapped.append(w)
    shape = tuple(self._shape[d] for d in wrapped)
    stride = tuple(self._stride[d] for d in wrapped)
    return self._view(shape, stride, self._storage_offset)


def infer_expand_geometry(
    shape: tuple[int, ...], stride: tuple[int, ...], sizes: list[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shape and strides of ``expand(sizes)`` (ATen inferExpandGeometry): broadcast dims get stride 0."""
    ndim = len(sizes)
    tensor_dim = len(shape)
    if tensor_dim == 0:  # a 0-dim tensor expands to anything, with all strides 0
        _check_sizes(sizes)
        return tuple(sizes), (0,) * ndim
    out_shape = [0] * ndim
    out_stride = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        dim = tensor_dim - 1 - offset
        size = shape[dim] if dim >= 0 else 1
        st = stride[dim] if dim >= 0 else (out_shape[i + 1] * out_stride[i + 1] if i < ndim - 1 else 1)
        target = sizes[i]
        if target == -1:
            if dim < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size ({size}) at "
                    f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}"
                )
            st = 0
        out_shape[i] = target
        out_stride[i] = st
    _check_sizes(out_shape)
    return tuple(out_shape), tuple(out_stride)


def _check_sizes(sizes: list[int]) -> None:
    # PyTorch lets a size-1 dim "expand" to a negative size and then fails computing numel (it even
    # returns a tensor with a negative size when another size is 0); here a negative size always fails.
    for s in sizes:
        if s < 0:
            raise RuntimeError("numel: integer multiplication overflow")


@impl("expand", "CompositeExplicitAutograd")
def expand(self: Tensor, size: list[int], *, implicit: bool = False) -> Tensor:
    if len(size) < len(self._shape):
        raise RuntimeError(
            f"expand({legacy_type_name(self)}{{{list(self._shape)}}}, size={list(size)}): the number of sizes "
            f"provided ({len(size)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(self._shape)})"
        )
    shape, stride = infer_expand_geometry(self._shape, self._stride, list(size))
    return self._view(shape, stride, self._storage_offset)


# --- indexing views ---------------------------------------------------------------------------------


@impl("select.int", "CompositeExplicitAutograd")
def select_int(self: Tensor, dim: int, index: int) -> Tensor:
    ndim = len(self._shape)
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, ndim)
    size = self._shape[dim]
    if index < -size or index >= size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(self._shape)} at dimension {dim}"
        )
    if index < 0:
        index += size
    return self._view(
        self._shape[:dim] + self._shape[dim + 1:],
        self._stride[:dim] + self._stride[dim + 1:],
        self._storage_offset + index * self._stride[dim],
    )


def _narrow(self: Tensor, dim: int, start: int, length: int, step: int = 1) -> Tensor:
    """The view of ``length`` entries of ``dim`` from ``start`` every ``step`` (already validated)."""
    shape = list(self._shape)
    stride = list(self._stride)
    offset = self._storage_offset + start * stride[dim]
    shape[dim] = length
    stride[dim] *= step
    return self._view(tuple(shape), tuple(stride), offset)


@impl("slice.Tensor", "CompositeExplicitAutograd")
def slice_tensor(self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    ndim = len(self._shape)
    if ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = self._shape[dim]
    start = 0 if start is None else start
    end = size if end is None else end
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    length = (end - start + step - 1) // step
    return _narrow(self, dim, start, length, step)


@impl("as_strided", "CPU", "Meta", "ZeroTensor")
def as_strided(self: Tensor, size: list[int], stride: list[int], storage_offset: int | None = None) -> Tensor:
    offset = self._storage_offset if storage_offset is None else storage_offset
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for s in stride:
        if s < 0:
            raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    storage = self._storage
    if storage is not None:
        itemsize = self._dtype.itemsize
        needed = 0 if 0 in size else (1 + offset + sum((n - 1) * st for n, st in zip(size, stride))) * itemsize
        if needed > storage.size * itemsize:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
                f"{itemsize} requiring a storage size of {needed} are out of bounds for storage of size "
                f"{storage.size * itemsize}"
            )
    return self._view(tuple(size), tuple(stride), offset)


# --- aliases ----------------------------------------------------------------------------------------


@impl("alias", "CompositeExplicitAutograd")
def alias(self: Tensor) -> Tensor:
    return self._view(self._shape, self._stride, self._storage_offset)


@impl("detach_", "CompositeExplicitAutograd")
def detach_(self: Tensor) -> Tensor:
    """Nothing to do below autograd: the autograd kernel (autograd/tensor_api.py) does the work."""
    return self


@impl("detach", "CompositeExplicitAutograd")
def detach(self: Tensor) -> Tensor:
    """Same storage and version counter, but not an autograd view (``_base`` is None), as in PyTorch."""
    out = Tensor._from_storage(
        self._storage, self._shape, self._stride, self._storage_offset, self._dtype, self._device
    )
    out._version_counter = self._version_counter
    if self._data is None:  # a meta tensor: the same (data-less) storage, as torch's shared StorageImpl
        share_dataless(out, self)
    return copy_bits(out, self)


# --- multi-output views ------------------------------------------------------------------------------


@impl("unbind.int", "CompositeExplicitAutograd")
def unbind_int(self: Tensor, dim: int = 0) -> list[Tensor]:
    ndim = len(self._shape)
    if ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, ndim)
    shape = self._shape[:dim] + self._shape[dim + 1:]
    stride = self._stride[:dim] + self._stride[dim + 1:]
    step = self._stride[dim]
    base = self._storage_offset
    return [self._view(shape, stride, base + i * step) for i in range(self._shape[dim])]


@impl("split.Tensor", "CompositeExplicitAutograd")
def split_tensor(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    ndim = len(self._shape)
    if ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    dim = wrap_dim(dim, ndim)
    dim_size = self._shape[dim]
    if split_size == 0 and dim_size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}"
        )
    num_splits = 1 if split_size == 0 else max((dim_size + split_size - 1) // split_size, 1)
    last = split_size - (split_size * num_splits - dim_size)
    return [
        _narrow(self, dim, i * split_size, split_size if i < num_splits - 1 else last) for i in range(num_splits)
    ]


@impl("split_with_sizes", "CompositeExplicitAutograd")
def split_with_sizes(self: Tensor, split_sizes: list[int], dim: int = 0) -> list[Tensor]:
    ndim = len(self._shape)
    if ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, ndim)
    dim_size = self._shape[dim]
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={list(split_sizes)}"
        )
    if sum(split_sizes) != dim_size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's size at dimension "
            f"{dim}), but got split_sizes={list(split_sizes)}"
        )
    out = []
    start = 0
    for size in split_sizes:
        out.append(_narrow(self, dim, start, size))
        start += size
    return out


# --- diagonal and its relatives --------------------------------------------------------------------------------


def _diagonal_dims(ndim: int, dim1: int, dim2: int) -> tuple[int, int]:
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal_geometry(shape: tuple[int, ...], stride: tuple[int, ...], offset: int, dim1: int,
                      dim2: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(sizes, strides, storage-offset shift) of the diagonal view; dims already wrapped and distinct."""
    if offset >= 0:
        n = max(min(shape[dim1], shape[dim2] - offset), 0)
        shift = offset * stride[dim2] if n else 0
    else:
        n = max(min(shape[dim1] + offset, shape[dim2]), 0)
        shift = -offset * stride[dim1] if n else 0
    keep = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    return (tuple(shape[d] for d in keep) + (n,), tuple(stride[d] for d in keep) + (stride[dim1] + stride[dim2],),
            shift)


@impl("diagonal", "CompositeExplicitAutograd")
def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _diagonal_dims(len(self._shape), dim1, dim2)
    shape, stride, shift = diagonal_geometry(self._shape, self._stride, offset, d1, d2)
    return self._view(shape, stride, self._storage_offset + shift)


# --- in-place view ops: self takes the geometry of the matching view ---------------------------------------------


def _restride(self: Tensor, view: Tensor) -> Tensor:
    """Give ``self`` the shape and strides of ``view`` (a view of self's storage at the same offset)."""
    self._shape = view._shape
    self._stride = view._stride
    self._contiguous = view._contiguous
    if self._device.type != "meta":
        self._data = view._data
    return self


@impl("t_", "CompositeExplicitAutograd", "Meta")
def t_(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    if ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return _restride(self, transpose_int(self, 0, 0 if ndim < 2 else 1))


@impl("transpose_", "CompositeExplicitAutograd", "Meta")
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _restride(self, transpose_int(self, dim0, dim1))


@impl("unsqueeze_", "CompositeExplicitAutograd", "Meta")
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _restride(self, unsqueeze(self, dim))


@impl("squeeze_", "CompositeExplicitAutograd")
def squeeze_(self: Tensor) -> Tensor:
    return _restride(self, squeeze(self))


@impl("squeeze_.dims", "CompositeExplicitAutograd")
def squeeze__dims(self: Tensor, dim: list[int]) -> Tensor:
    return _restride(self, squeeze_dims(self, dim))


# --- squeeze_.dim: the in-place squeeze PyTorch's decompositions call ---------------------------------------


def squeeze__dim(self: Tensor, dim: int) -> Tensor:
    """aten::squeeze_.dim (CompositeExplicitAutograd in PyTorch): drop a size-1 dim of ``self`` in place."""
    from ..tensor import _is_contiguous

    d = wrap_dim(dim, max(self.dim(), 1))
    if self.dim() == 0 or self._shape[d] != 1:
        return self
    self._shape = self._shape[:d] + self._shape[d + 1 :]
    self._stride = self._stride[:d] + self._stride[d + 1 :]
    self._contiguous = _is_contiguous(self._shape, self._stride)
    if self._data is not None:
        self._data = self._data.reshape(self._shape) if self._data.ndim == 1 else np.squeeze(self._data, axis=d)
    return self


impl("squeeze_.dim", "CompositeExplicitAutograd")(squeeze__dim)


# --- unsafe_split (issue 19: the RNN cells split their gates with it) --------------------------------------------


@impl("unsafe_split.Tensor", "CompositeExplicitAutograd")
def unsafe_split_tensor(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    """``split``'s pieces over the same storage, but not views for autograd (TensorShape.cpp ``unsafe_split``: the
    pieces get their own version counters, so an in-place op on one is an ordinary in-place op)."""
    return [Tensor._from_storage(p._flat, p._shape, p._stride, p._storage_offset, p._dtype, p._device)
            for p in split_tensor(self, split_size, dim)]
