"""Kernels of ``index_copy`` / ``index_copy_`` and ``index_fill`` / ``index_fill_`` (the ops_c batch).

Corresponds to aten/src/ATen/native/TensorAdvancedIndexing.cpp of PyTorch 2.13:

* ``index_copy_`` (a backend op): rows ``index`` of ``self`` along ``dim`` replaced by the slices of ``source``,
  with PyTorch's checks in its order (index rank, source rank, index dtype, dtypes, slice shapes, index count,
  then bounds when the data is read); ``index_copy`` writes into a new contiguous tensor;
* ``index_fill_`` (a backend op): those rows set to a number (``int_Tensor``: a 0-dim tensor's value), negative
  indices counting from the end; ``index_fill`` (CompositeExplicitAutograd) fills a clone that keeps self's
  layout.

A 0-dim ``self`` behaves as a 1-element vector. Meta kernels run the same checks and only shape the result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from .kernel_registry import impl
from .views import wrap_dim

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
               "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _aten(name: str) -> Any:
    from ..op_overload import namespace

    base, _, overload = name.partition(".")
    return getattr(getattr(namespace("aten"), base), overload or "default")


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
    out = _aten("clone")(self, memory_format=contiguous_format)
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

    return _index_fill_into(_aten("clone")(self, memory_format=preserve_format), dim, index, value)


@impl("index_fill.int_Tensor", "CompositeExplicitAutograd", "Meta")
def index_fill_int_tensor(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    from ..memory_format import preserve_format

    _fill_value(value)
    return _index_fill_into(_aten("clone")(self, memory_format=preserve_format), dim, index, value)


# --- _unique (what index_fill.int_Tensor's derivative calls) -------------------------------------------------------

_UNIQUE_META_MESSAGE = (
    "aten::_unique: attempted to run this operator with Meta tensors, but there was no fake impl or Meta "
    "kernel registered. You may have run into this message while using an operator with PT2 compilation APIs "
    "(torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake impl. "
    "Please see the following for next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
)


@impl("_unique", "CPU")
def _unique(self: Tensor, sorted: bool = True, return_inverse: bool = False) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The distinct values of ``self`` (1-d; in increasing order here whatever ``sorted`` says, which PyTorch's CPU
    kernel leaves unspecified) and, with ``return_inverse``, each element's position among them (shaped as self)."""
    from .. import dtypes
    from ..ops.meta_utils import TensorMeta, materialize
    from ..tensor import contiguous_strides

    values, inverse = np.unique(np.asarray(self._data), return_inverse=True)
    inv = inverse.reshape(self._shape).astype(np.int64) if return_inverse else np.zeros((0,), np.int64)
    out = materialize(TensorMeta(values.shape, contiguous_strides(values.shape), self._dtype), values, self)
    idx = materialize(TensorMeta(inv.shape, contiguous_strides(inv.shape), dtypes.int64), inv, self)
    return out, idx


@impl("_unique", "Meta")
def _unique_meta(self: Tensor, sorted: bool = True, return_inverse: bool = False) -> tuple[Tensor, Tensor]:  # noqa: A002
    raise NotImplementedError(_UNIQUE_META_MESSAGE)
