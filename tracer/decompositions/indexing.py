"""Core-aten decompositions of the indexing ops: ``masked_fill``, ``index_add``, ``index_copy``, ``index_fill`` and
their in-place forms.

Corresponds to the entries of torch/_decomp/decompositions.py and torch/_refs/__init__.py PyTorch 2.13's
``core_aten_decompositions()`` uses:

* ``masked_fill``: ``where(mask, value, self)`` made contiguous (the value converted to self's dtype);
  ``masked_fill_`` copies that into self;
* ``index_add`` / ``index_copy`` (``_index_add`` / ``_index_copy``): ``index_put`` (``index_put_`` in place) with
  the index at ``dim`` (``accumulate=True`` for ``index_add``, the source scaled by ``alpha``), 0-d tensors
  unsqueezed first;
* ``index_fill`` (the references' ``_index_fill``): the value (a ``scalar_tensor`` for a number) expanded to the
  indexed shape, then ``index_copy``.
"""

from __future__ import annotations

from typing import Any

from dispatcher.memory_format import strided
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .dims import _canonicalize_dim
from .registry import register_decomposition
from .type_promotion import _python_type_of

aten = namespace("aten")


def _masked_value(self: Tensor, value: Any) -> Any:
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"only supports a 0-dimensional value tensor, but got tensor with {value.dim()} "
                               "dimension")
        return value.to(self.dtype)
    return _python_type_of(self.dtype)(value)


@register_decomposition([aten.masked_fill.Scalar, aten.masked_fill.Tensor])
def masked_fill(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    r = aten.where(mask, _masked_value(self, value), self)
    return r.contiguous()


@register_decomposition([aten.masked_fill_.Scalar, aten.masked_fill_.Tensor])
def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    return self.copy_(masked_fill(self, mask, value))


# --- index_add --------------------------------------------------------------------------------------------------------


def _index_add(x: Tensor, dim: int, index: Tensor, source: Tensor, *, inplace: bool, alpha: Any) -> Tensor:
    ndim = x.dim()
    dim = dim % max(ndim, 1)
    if index.dim() > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, got {index.dim()}-d")
    index_size = index.shape[0] if index.dim() == 1 else 1
    source_size = source.shape[dim] if source.dim() > 0 else 1
    if source_size != index_size:
        raise RuntimeError(f"Number of indices ({index_size}) should be equal to tensor.size(dim) ({source_size}), "
                           f"for dim={dim}")
    if alpha != 1:
        source = source * alpha
    zero_dim = ndim == 0
    x1 = x.unsqueeze(0) if zero_dim else x
    indices = [None] * dim + [index]
    put = aten.index_put_.default if inplace else aten.index_put.default
    out = put(x1, indices, source, True)
    if inplace:
        return x
    return out.squeeze(0) if zero_dim else out.contiguous()


@register_decomposition(aten.index_add.default)
def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return _index_add(self, dim, index, source, inplace=False, alpha=alpha)


@register_decomposition(aten.index_add_.default)
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return _index_add(self, dim, index, source, inplace=True, alpha=alpha)


# --- index_copy, index_fill: index_put along dim (torch/_decomp ``_index_copy``, torch/_refs ``_index_fill``) ---------


def _sizes(shape: Any) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _index_copy(x: Tensor, dim: int, index: Tensor, tensor: Tensor, *, inplace: bool) -> Tensor:
    dim = _canonicalize_dim(max(x.dim(), 1), dim)
    if index.dim() > 1:
        raise RuntimeError(f"Index should have dimension 1 or 0 (got {index.dim()})")
    num_indices = index.numel()
    if tensor.dim() == 0:
        if num_indices != 1:
            raise RuntimeError(f"index_copy_(): When source is scalar, index should have one element (got "
                               f"{num_indices})")
    elif x.dim() != 0 and tensor.dim() != x.dim():
        raise RuntimeError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                           f"match. Source dimensionality ({tensor.dim()}), destination dimensionality ({x.dim()})")
    x_sliced = tuple(x.shape[:dim]) + tuple(x.shape[dim + 1:]) if x.dim() > 0 else ()
    t_sliced = tuple(tensor.shape[:dim]) + tuple(tensor.shape[dim + 1:]) if tensor.dim() > 0 else ()
    if x_sliced != t_sliced:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {_sizes(x_sliced)} at dimension {dim} and source slice shape: {_sizes(t_sliced)} "
                           "at dimension 0.")
    if tensor.dim() != 0 and num_indices != tensor.shape[dim]:
        raise RuntimeError(f"index_copy_(): Number of indices ({num_indices}) should be equal to source.size(dim) "
                           f"({tensor.shape[dim]})")
    zero_dim = x.dim() == 0
    x1 = aten.unsqueeze.default(x, 0) if zero_dim else x
    if index.dim() == 0:
        index = aten.unsqueeze.default(index, 0)
    indices = [None] * dim + [index]
    put = aten.index_put_.default if inplace else aten.index_put.default
    out = put(x1, indices, tensor)
    if inplace:
        return x
    return aten.squeeze.dim(out, 0) if zero_dim else aten.contiguous.default(out)


@register_decomposition(aten.index_copy_.default)
def index_copy_(x: Tensor, dim: int, index: Tensor, tensor: Tensor) -> Tensor:
    return _index_copy(x, dim, index, tensor, inplace=True)


@register_decomposition(aten.index_copy.default)
def index_copy(x: Tensor, dim: int, index: Tensor, tensor: Tensor) -> Tensor:
    return _index_copy(x, dim, index, tensor, inplace=False)


def _index_fill(x: Tensor, dim: int, index: Tensor, value: Any, *, inplace: bool) -> Tensor:
    if index.dim() > 1:
        raise RuntimeError(f"Index should have dimension 1 or 0 (got {index.dim()})")
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"Only supports 0-dimensional value tensor. Got a tensor with {value.dim()} "
                               "dimensions.")
    else:
        value = aten.scalar_tensor.default(value, dtype=x.dtype, layout=strided, device=x.device, pin_memory=False)
    zero_dim = x.dim() == 0
    y = aten.unsqueeze.default(x, 0) if zero_dim else x
    shape = list(y.shape)
    shape[dim] = index.numel()
    value = aten.expand.default(value, shape)
    out = (aten.index_copy_.default if inplace else aten.index_copy.default)(y, dim, index, value)
    if inplace:
        return x
    if zero_dim:
        out = aten.clone.default(aten.squeeze.dim(out, 0))
    # PyTorch then restores a non-contiguous dense input's strides with prims.copy_strided, an op this library
    # does not have: for such inputs the decomposed graph returns a contiguous tensor (same values).
    return out


@register_decomposition([aten.index_fill.int_Scalar, aten.index_fill.int_Tensor])
def index_fill(x: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _index_fill(x, dim, index, value, inplace=False)


@register_decomposition([aten.index_fill_.int_Scalar, aten.index_fill_.int_Tensor])
def index_fill_(x: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _index_fill(x, dim, index, value, inplace=True)
