"""Gather / scatter kernels and the ops writing rows along a dim: ``gather`` (and its backward), ``scatter`` /
``scatter_add`` (in place too), ``index_add``, ``index_copy``, ``index_fill``.

Corresponds to aten/src/ATen/native/TensorAdvancedIndexing.cpp and ScatterGatherChecks.h: PyTorch's checks in its
order (index rank and dtype, the sizes of index / src against self, bounds when the data is read), then NumPy.
A 0-dim ``self`` behaves as a 1-element vector. The out-of-place forms write into a clone of ``self`` (``index_fill``
keeps self's layout, ``index_copy`` writes into a new contiguous tensor); Meta kernels run the same checks and only
shape the result. ``gather_backward`` is CompositeImplicitAutograd (zeros + ``scatter_add``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .composite import _op, is_tensor_subclass_like
from .indexing import _output_device
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, scalar_type_name, wrap_dim
from .tensor_iterator import inplace_from

# --- gather / scatter (TensorAdvancedIndexing.cpp, ScatterGatherChecks.h) ------------------------------


def _nonempty_size(t: Tensor, d: int) -> int:
    """``ensure_nonempty_size``: 1 for a 0-dim tensor, else ``size(d)`` (which wraps and range-checks d)."""
    return 1 if not t._shape else t._shape[wrap_dim(d, len(t._shape))]


def _check_index_dtype(method: str, index: Tensor) -> None:
    if index.numel() != 0 and index._dtype.name not in ("int32", "int64"):
        raise RuntimeError(f"{method}(): Expected dtype int32/int64 for index")


def _scatter_checks(self: Tensor, dim: int, index: Tensor, src: Tensor | None) -> int:
    """scatter's meta checks (``scatter_gather_dtype_check``, ``scatter_shape_check``); returns the wrapped dim."""
    dim = wrap_dim(dim, len(self._shape))
    _check_index_dtype("scatter", index)
    if src is not None and self._dtype is not src._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    self_dims = max(len(self._shape), 1)
    if self_dims != max(len(index._shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(d != dim and _nonempty_size(index, d) > _nonempty_size(self, d) for d in range(self_dims))
    if src is None:
        if wrong:
            raise RuntimeError(f"Expected index {list(index._shape)} to be no larger than self {list(self._shape)} "
                               f"apart from dimension {dim}")
        return dim
    if not wrong:
        wrong = any(_nonempty_size(index, d) > _nonempty_size(src, d) for d in range(self_dims))
    if max(len(src._shape), 1) != max(len(index._shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        raise RuntimeError(
            f"Expected index {list(index._shape)} to be no larger than self {list(self._shape)} apart from "
            f"dimension {dim} and to be no larger size than src {list(src._shape)}"
        )
    return dim


def _index_targets(index: Tensor, dim: int, size: int) -> tuple[tuple, tuple]:
    """For each position of ``index`` (C order): its own coordinates, and the ones with ``dim`` replaced by the index.

    PyTorch's CPU kernels check every index against ``size`` (the indexed tensor's size along ``dim``).
    """
    idx = np.asarray(index._data).astype(np.int64).reshape(index._shape or (1,))
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        raise RuntimeError(f"index {int(idx[bad][0])} is out of bounds for dimension {dim} with size {size}")
    positions = np.indices(idx.shape).reshape(idx.ndim, -1)
    targets = positions.copy()
    targets[dim] = idx.reshape(-1)
    return tuple(positions), tuple(targets)


def _scatter_into(out: np.ndarray, dim: int, index: Tensor, src: Any, accumulate: bool = False) -> None:
    """``out[..., index[i], ...] = src[i]`` (or ``+=``) over index's positions, in C order (the last write wins)."""
    if index.numel() == 0:
        return
    positions, targets = _index_targets(index, dim, out.shape[dim] if out.ndim else 1)
    view = out.reshape(out.shape or (1,))
    if isinstance(src, Tensor):
        values = np.asarray(src._data).reshape(src._shape or (1,))[positions]
    else:
        values = src
    if accumulate:
        np.add.at(view, targets, values)
    else:
        view[targets] = values


def _scatter_out(self: Tensor, dim: int, index: Tensor, src: Any, accumulate: bool = False) -> Tensor:
    """The out-of-place scatters: a contiguous copy of self, then scattered into."""
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), self._dtype)

    def compute() -> np.ndarray:
        out = np.array(self._data, order="C")
        _scatter_into(out, dim, index, src, accumulate)
        return out

    tensors = (self, index) + ((src,) if isinstance(src, Tensor) else ())
    return materialize(meta, compute, _output_device(*tensors))


def _scatter_inplace(self: Tensor, dim: int, index: Tensor, src: Any, accumulate: bool = False) -> Tensor:
    if self._data is not None and index._data is not None and getattr(src, "_data", 0) is not None:
        _scatter_into(self._data, dim, index, src, accumulate)
    return self


def _scalar_as(value: Any, dt: _dt.dtype) -> Any:
    """A Scalar converted to the tensor's dtype as a C++ static_cast would (2.5 -> 2 for an integer tensor)."""
    with np.errstate(all="ignore"):
        return np.array(value).astype(dt.np_dtype)


@impl("scatter.src", "CPU", "Meta")
def scatter_src(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_out(self, _scatter_checks(self, dim, index, src), index, src)


@impl("scatter_.src", "CPU", "Meta")
def scatter__src(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_inplace(self, _scatter_checks(self, dim, index, src), index, src)


@impl("scatter.value", "CPU", "Meta")
def scatter_value(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _scatter_out(self, _scatter_checks(self, dim, index, None), index, _scalar_as(value, self._dtype))


@impl("scatter_add", "CPU", "Meta")
def scatter_add(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_out(self, _scatter_checks(self, dim, index, src), index, src, accumulate=True)


@impl("scatter_add_", "CPU", "Meta")
def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_inplace(self, _scatter_checks(self, dim, index, src), index, src, accumulate=True)


@impl("gather", "CPU", "Meta")
def gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i] = self[..., index[i], ...]``: index's shape, contiguous."""
    dim = wrap_dim(dim, len(self._shape))
    _check_index_dtype("gather", index)
    self_dims = max(len(self._shape), 1)
    if self_dims != max(len(index._shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(self_dims):
        if d != dim and _nonempty_size(index, d) > _nonempty_size(self, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index._shape)} to be no "
                               f"larger than self {list(self._shape)} apart from dimension {dim}")
    meta = TensorMeta(index._shape, contiguous_strides(index._shape), self._dtype)

    def compute() -> np.ndarray:
        out = np.zeros(index._shape, self._dtype.np_dtype)
        if index.numel():
            positions, targets = _index_targets(index, dim, self._shape[dim] if self._shape else 1)
            out.reshape(index._shape or (1,))[positions] = np.asarray(self._data).reshape(self._shape or (1,))[targets]
        return out

    return materialize(meta, compute, _output_device(self, index))


scatter__value = impl("scatter_.value", "CPU", "Meta")(inplace_from(scatter_value, "scatter_"))


@impl("gather_backward", "CompositeImplicitAutograd")
def gather_backward(grad: Tensor, self: Tensor, dim: int, index: Tensor, sparse_grad: bool) -> Tensor:
    """gather's gradient: ``grad`` scattered (added) into zeros shaped like ``self`` at the gathered positions;
    out of place when ``index`` or ``grad`` is subclass-like (TensorAdvancedIndexing.cpp)."""
    if sparse_grad:
        raise NotImplementedError("gather_backward with sparse_grad=True (sparse gradients) is not supported")
    result = _op("new_zeros")(grad, list(self.shape))
    if is_tensor_subclass_like(index) or is_tensor_subclass_like(grad):
        return _op("scatter_add")(result, dim, index, grad)
    _op("scatter_add_")(result, dim, index, grad)
    return result


# --- index_add (TensorAdvancedIndexing.cpp): checks in PyTorch's order ---------------------------------------


def _index_add_checks(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    dim = wrap_dim(dim, max(len(self._shape), 1))
    if len(index._shape) > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {len(index._shape)} with type: "
            f"{scalar_type_name(index._dtype)} and size: {list(index._shape)}"
        )
    if index._dtype.name not in ("int32", "int64"):
        raise RuntimeError(
            f"index_add_(): Expected dtype int32/int64 for index but got: {scalar_type_name(index._dtype)}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"index_add_(): self ({scalar_type_name(self._dtype)}) and source ({scalar_type_name(source._dtype)}) "
            "must have the same scalar type"
        )
    source_size = source._shape[dim] if source._shape and dim < len(source._shape) else 1
    if index.numel() != source_size:
        raise RuntimeError(
            f"index_add_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
            f"({source_size}), for dim: {dim}"
        )
    same = len(self._shape) == len(source._shape) and all(
        a == b for d, (a, b) in enumerate(zip(self._shape, source._shape)) if d != dim
    )
    if not same and not (self._shape == () and source._shape == ()):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape "
            f"= {list(self._shape)} source.shape = {list(source._shape)}"
        )
    return dim


def _index_add_into(out: np.ndarray, dim: int, index: Tensor, source: Tensor, alpha: Any, dtype: Any) -> None:
    idx = index._data.reshape(-1).astype(np.int64)
    size = out.shape[dim] if out.ndim else 1
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        raise RuntimeError(f"index {int(idx[bad][0])} is out of bounds for dimension {dim} with size {size}")
    src = source._data
    if alpha != 1:
        a = alpha if dtype.is_floating_point or dtype.is_complex else int(alpha)
        src = (src * a).astype(dtype.np_dtype) if dtype is not _dt.bool else np.logical_and(src, bool(a))
    if out.ndim == 0:
        out[...] = np.logical_or(out, src) if dtype is _dt.bool else out + src
        return
    view = np.moveaxis(out, dim, 0)
    if dtype is _dt.bool:
        np.logical_or.at(view, idx, np.moveaxis(src, dim, 0))
    else:
        np.add.at(view, idx, np.moveaxis(src, dim, 0))


@impl("index_add", "CPU", "Meta")
def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    dim = _index_add_checks(self, dim, index, source)
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), self._dtype)

    def compute() -> np.ndarray:
        out = np.array(self._data, order="C")
        _index_add_into(out, dim, index, source, alpha, self._dtype)
        return out

    return materialize(meta, compute, _output_device(self, index, source))


@impl("index_add_", "CPU", "Meta")
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    dim = _index_add_checks(self, dim, index, source)
    if self._data is not None and index._data is not None and source._data is not None:
        _index_add_into(self._data, dim, index, source, alpha, self._dtype)
    return self


# --- index_copy ----------------------------------------------------------------------------------------


_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
               "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "uint16": "UInt16",
               "uint32": "UInt32", "uint64": "UInt64"}


def _type_name(t: Tensor) -> str:
    return _TYPE_NAMES.get(t._dtype.name, t._dtype.name)


def _sizes(shape: tuple[int, ...]) -> str:
    return " ".join(str(s) for s in shape)


def _check_index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    dim = wrap_dim(dim, len(self._shape))
    if index.dim() >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    n = index.numel()
    if source.dim() == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.dim() != self.dim() and source.dim() != 0 and self.dim() != 0:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source "
            f"dimensionality ({source.dim()}), destination dimensionality ({self.dim()})"
        )
    if index._dtype.name != "int64":
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_type_name(index)}")
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"index_copy_(): self and source expected to have the same dtype, but got (self) {_type_name(self)} "
            f"and (source) {_type_name(source)}"
        )
    self_slice = self._shape[:dim] + self._shape[dim + 1:] if self._shape else ()
    source_slice = source._shape[:dim] + source._shape[dim + 1:] if source._shape else ()
    if self_slice != source_slice:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
            f"{_sizes(self_slice)} at dimension {dim} and source slice shape: {_sizes(source_slice)} at dimension 0."
        )
    if source.dim() and n != source._shape[dim]:
        raise IndexError(
            f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({source._shape[dim]})"
        )
    return dim


def _write_rows(self: Tensor, dim: int, rows: np.ndarray, values: np.ndarray) -> None:
    """``self[..., rows, ...] = values`` along ``dim`` (a 0-dim self as one row), in self's storage."""
    data = self._data if self._shape else self._data.reshape(1)
    moved = np.moveaxis(data, dim, 0)
    moved[rows] = values


def _index_copy_into(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    if self._device.type == "meta":
        return self
    size = self._shape[dim] if self._shape else 1
    rows = np.asarray(index._data).reshape(-1)
    for i in rows:
        if i < 0 or i >= size:
            raise IndexError(f"index_copy_(): index {int(i)} is out of bounds for dimension {dim} with size {size}")
    src = np.asarray(source._data)
    src = src.reshape(1) if src.ndim == 0 else np.moveaxis(src, dim, 0)
    _write_rows(self, dim, rows, src)
    return self


@impl("index_copy_", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    dim = _check_index_copy(self, dim, index, source)
    return _index_copy_into(self, dim, index, source)


@impl("index_copy", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    from ..memory_format import contiguous_format

    dim = _check_index_copy(self, dim, index, source)
    out = _op("clone")(self, memory_format=contiguous_format)
    return _index_copy_into(out, dim, index, source)


# --- index_fill -------------------------------------------------------------------------------------------------


def _fill_value(value: Tensor) -> Any:
    if value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    return value


def _index_fill_into(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    if index._dtype.name != "int64":
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    dim = wrap_dim(dim, len(self._shape))
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if self._device.type == "meta":
        return self
    if isinstance(value, Tensor):
        value = np.asarray(value._data).item()
    size = self._shape[dim] if self._shape else 1
    rows = np.asarray(index._data).reshape(-1).astype(np.int64)
    for i in rows:
        if i < -size or i >= size:
            raise IndexError(f"index {int(i)} is out of bounds for dimension {dim} with size {size}")
    rows = np.where(rows < 0, rows + size, rows)
    fill = np.asarray(value).astype(self._dtype.np_dtype) if self._dtype.name != "bool" else np.asarray(bool(value))
    _write_rows(self, dim, rows, fill)
    return self


@impl("index_fill_.int_Scalar", "CPU", "Meta")
def index_fill__int_scalar(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _index_fill_into(self, dim, index, value)


@impl("index_fill_.int_Tensor", "CPU", "Meta")
def index_fill__int_tensor(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    return _index_fill_into(self, dim, index, _fill_value(value))


@impl("index_fill.int_Scalar", "CompositeExplicitAutograd", "Meta")
def index_fill_int_scalar(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    from ..memory_format import preserve_format

    return _index_fill_into(_op("clone")(self, memory_format=preserve_format), dim, index, value)


@impl("index_fill.int_Tensor", "CompositeExplicitAutograd", "Meta")
def index_fill_int_tensor(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    from ..memory_format import preserve_format

    _fill_value(value)
    return _index_fill_into(_op("clone")(self, memory_format=preserve_format), dim, index, value)
