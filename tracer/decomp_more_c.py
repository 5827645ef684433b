"""Core-aten decompositions of the ops_c batch: ``diagonal_backward``, ``diagonal_copy``, ``diag_embed``, ...

Corresponds to the entries PyTorch 2.13's ``core_aten_decompositions()`` holds for these ops
(torch/_decomp/decompositions.py and torch/_refs):

* ``diagonal_backward``: ``new_zeros`` of the input's size, then ``diagonal_scatter`` of the gradient;
* ``diagonal_copy``: the ``diagonal`` view cloned contiguous (the refs' copy-from-view rule);
* ``diag_embed``: the input padded with zeros by ``|offset|`` along its last dim (``cat``), unsqueezed at
  ``dim1`` and its last dim moved to ``dim2``, then masked by ``where`` with a comparison of two ``arange``
  rows shaped to broadcast over ``dim1`` / ``dim2``, and made contiguous.

As in PyTorch, arguments equal to their trailing defaults are not passed (graphs print what the call gave).
"""

from __future__ import annotations

from typing import Any

from dispatcher import dtypes
from dispatcher.memory_format import contiguous_format, strided
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .decomp_registry import register_decomposition

aten = namespace("aten")


def _diagonal_args(offset: int, dim1: int, dim2: int) -> tuple[int, ...]:
    """``(offset, dim1, dim2)`` without the trailing ones equal to the schema's defaults (0, 0, 1)."""
    args = [offset, dim1, dim2]
    defaults = [0, 0, 1]
    while args and args[-1] == defaults[len(args) - 1]:
        args.pop()
    return tuple(args)


@register_decomposition(aten.diagonal_backward.default)
def diagonal_backward(grad_output: Tensor, input_sizes: list[int], offset: int, dim1: int, dim2: int) -> Tensor:
    grad_input = aten.new_zeros.default(grad_output, list(input_sizes))
    return aten.diagonal_scatter.default(grad_input, grad_output, *_diagonal_args(offset, dim1, dim2))


@register_decomposition(aten.diagonal_copy.default)
def diagonal_copy(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    view = aten.diagonal.default(self, *_diagonal_args(offset, dim1, dim2))
    return aten.clone.default(view, memory_format=contiguous_format)


def _canonicalize_dim(rank: int, idx: int) -> int:
    if idx < -rank or idx >= rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {idx})")
    return idx + rank if idx < 0 else idx


@register_decomposition(aten.diag_embed.default)
def diag_embed(t: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    rank = t.dim() + 1
    dim1 = _canonicalize_dim(rank, dim1)
    dim2 = _canonicalize_dim(rank, dim2)
    if dim1 > dim2:  # swapping the dims is the same as negating the offset
        dim1, dim2 = dim2, dim1
        offset = -offset
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    last_dim = t.shape[-1]
    if offset != 0:
        pad_shape = list(t.shape)
        pad_shape[-1] = abs(offset)
        z = aten.zeros.default(pad_shape, dtype=t.dtype, device=t.device)
        t = aten.cat.default([z, t] if offset > 0 else [t, z], -1)
        last_dim += abs(offset)
    t = aten.movedim.int(aten.unsqueeze.default(t, dim1), -1, dim2)
    a_range = aten.arange.default(last_dim, dtype=dtypes.int64, device=t.device)
    b_range = aten.arange.start(offset, last_dim + offset, dtype=dtypes.int64, device=t.device)
    cond = aten.eq.Tensor(a_range, aten.unsqueeze.default(b_range, -1))
    cond = aten.reshape.default(cond, [last_dim if i in (dim1, dim2) else 1 for i in range(t.dim())])
    if t.dtype is dtypes.bool:
        masked: Any = aten.logical_and.default(cond, t)
    else:
        masked = aten.where.ScalarOther(cond, t, 0)
    return aten.contiguous.default(masked)


# --- index_copy / index_fill: index_put along dim (torch/_decomp/decompositions.py ``_index_copy``, torch/_refs
# ``_index_fill``) ---------------------------------------------------------------------------------------------


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


# --- nansum / aminmax ------------------------------------------------------------------------------------------


@register_decomposition(aten.nansum.default)
def nansum(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``sum(where(isnan(self), 0, self), dim, keepdim, dtype=dtype)``."""
    zeroed = aten.where.ScalarSelf(aten.isnan.default(self), 0, self)
    args = [dim, True] if keepdim else [dim]
    return aten.sum.dim_IntList(zeroed, *args, dtype=dtype) if dtype is not None else (
        aten.sum.dim_IntList(zeroed, *args))


@register_decomposition(aten.aminmax.default)
def aminmax(self: Tensor, *, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """``(amin(self, dim, keepdim), amax(self, dim, keepdim))``, the dim passed as a list when given."""
    args: list[Any] = [] if dim is None else [[dim]]
    if keepdim:
        args = [args[0] if args else [], True]
    return aten.amin.default(self, *args), aten.amax.default(self, *args)


@register_decomposition(aten.bernoulli.default)
def bernoulli(self: Tensor, *, generator: Any = None) -> Tensor:
    """``(rand(self.shape, dtype=float32) < self).to(self.dtype)``."""
    kw: dict[str, Any] = {} if generator is None else {"generator": generator}
    raw_p = aten.rand.default(list(self.shape), **kw, dtype=dtypes.float32, device=self.device, pin_memory=False)
    return aten.to.dtype(aten.lt.Tensor(raw_p, self), self.dtype)
