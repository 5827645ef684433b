"""Derivative formulas of the view ops: ``view`` / ``_unsafe_view`` / ``alias``, ``t`` / ``transpose`` /
``permute``, ``expand``, ``unsqueeze`` / ``squeeze``, ``select`` / ``slice`` / ``diagonal`` and their backward
and scatter ops, ``unbind`` / ``split``, ``as_strided``, and the in-place views (``t_``, ``transpose_``,
``unsqueeze_``, ``squeeze_``: the formulas of their out-of-place views, under nodes of their own).

Corresponds to these ops' entries in tools/autograd/derivatives.yaml (``diagonal_copy`` gets ``diagonal``'s
formula, as torchgen derives view_copy entries) and the FunctionsManual.cpp helpers they call
(``unsqueeze_to``, ``split_with_sizes_backward``, ``slice_backward_wrapper``, ``as_strided_backward``). How
autograd treats a view (its base, CopySlices, regenerated ``AsStridedBackward0`` nodes) is in
autograd/views.py.
"""

from __future__ import annotations

from typing import Any

from ...memory_format import strided
from ...op_overload import namespace
from ..function import derivative
from .cpp_idioms import _strided_options as _options
from .cpp_idioms import _wrap

aten = namespace("aten")

_CONTIGUOUS_FORMAT = 0  # MemoryFormat code of LEGACY_CONTIGUOUS_MEMORY_FORMAT


#: slice's "to the end" (``INT64_MAX``), what slice_backward_wrapper passes for ``end=None``
INT64_MAX = (1 << 63) - 1


# --- view, alias, t, transpose, permute, expand ---------------------------------------------------

@derivative("view", "ViewBackward0", ("self",), save_meta=("self",))
def _view(ctx, grads, needs):
    # grad.reshape(self.sizes()): a view when the grad's strides allow it, else clone + _unsafe_view
    return (aten.reshape.default(grads[0], list(ctx.self._shape)),)


@derivative("_unsafe_view", "UnsafeViewBackward0", ("self",), save_meta=("self",))
def _unsafe_view(ctx, grads, needs):
    return (aten.reshape.default(grads[0], list(ctx.self._shape)),)


@derivative("alias", "AliasBackward0", ("self",))
def _alias(ctx, grads, needs):
    return (grads[0],)


@derivative("t", "TBackward0", ("self",))
def _t(ctx, grads, needs):
    return (aten.t.default(grads[0]),)


@derivative("t_", "TBackward1", ("self",))
def _t_(ctx, grads, needs):
    return (aten.t.default(grads[0]),)


@derivative("transpose.int", "TransposeBackward0", ("self",), save_inputs=("dim0", "dim1"))
def _transpose(ctx, grads, needs):
    return (aten.transpose.int(grads[0], ctx.dim0, ctx.dim1),)


@derivative("transpose_", "TransposeBackward1", ("self",), save_inputs=("dim0", "dim1"))
def _transpose_(ctx, grads, needs):
    return (aten.transpose.int(grads[0], ctx.dim0, ctx.dim1),)


@derivative("permute", "PermuteBackward0", ("self",), save_inputs=("dims",))
def _permute(ctx, grads, needs):
    fwd = list(ctx.dims)
    inverse = [0] * len(fwd)
    for i, d in enumerate(fwd):
        inverse[_wrap(d, len(fwd))] = i
    return (aten.permute.default(grads[0], inverse),)


@derivative("expand", "ExpandBackward0", ("self",), save_meta=("self",))
def _expand(ctx, grads, needs):
    from ..engine import sum_to

    return (sum_to(grads[0], tuple(ctx.self._shape)),)


# --- unsqueeze, squeeze ---------------------------------------------------------------------------

@derivative("unsqueeze", "UnsqueezeBackward0", ("self",), save_inputs=("dim",))
def _unsqueeze(ctx, grads, needs):
    return (aten.squeeze.dim(grads[0], ctx.dim),)


@derivative("unsqueeze_", "UnsqueezeBackward1", ("self",), save_inputs=("dim",))
def _unsqueeze_(ctx, grads, needs):
    return (aten.squeeze.dim(grads[0], ctx.dim),)


def _unsqueeze_to(grad: Any, sizes: tuple[int, ...], dims: list[int] | None = None) -> Any:
    """Put back the size-1 dims a squeeze removed (all of them, or those of ``dims``)."""
    ndim = len(sizes)
    chosen = set(range(ndim)) if dims is None else {_wrap(d, ndim) for d in dims}
    for d in range(ndim):
        if d in chosen and sizes[d] == 1:
            grad = aten.unsqueeze.default(grad, d)
    return grad


@derivative("squeeze", "SqueezeBackward0", ("self",), save_meta=("self",))
def _squeeze(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape),)


@derivative("squeeze_", "SqueezeBackward3", ("self",), save_meta=("self",))
def _squeeze_(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape),)


@derivative("squeeze.dim", "SqueezeBackward1", ("self",), save_inputs=("dim",), save_meta=("self",))
def _squeeze_dim(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape, [ctx.dim]),)


@derivative("squeeze_.dim", "SqueezeBackward4", ("self",), save_inputs=("dim",), save_meta=("self",))
def _squeeze_dim_(ctx, grads, needs):
    """unsqueeze_to(grad, dim, self.sizes()): the squeezed dim comes back if it had size 1."""
    sizes = ctx.self._shape
    dim = ctx.dim % len(sizes) if sizes else 0
    if not sizes or sizes[dim] == 1:
        return (aten.unsqueeze.default(grads[0], dim),)
    return (grads[0],)


@derivative("squeeze.dims", "SqueezeBackward2", ("self",), save_inputs=("dim",), save_meta=("self",))
def _squeeze_dims(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape, list(ctx.dim)),)


@derivative("squeeze_.dims", "SqueezeBackward5", ("self",), save_inputs=("dim",), save_meta=("self",))
def _squeeze_dims_(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape, list(ctx.dim)),)


# --- unbind, split --------------------------------------------------------------------------------

@derivative("unbind.int", "UnbindBackward0", ("self",), save_inputs=("dim",))
def _unbind(ctx, grads, needs):
    defined = next(g for g in grads if g is not None)  # the engine skips a node with no gradient at all
    filled = [
        g if g is not None else aten.expand.default(aten.zeros.default([], **_options(defined)), list(defined._shape))
        for g in grads
    ]
    return (aten.stack.default(filled, ctx.dim),)


def _split_with_sizes_backward(grads: list[Any], split_sizes: list[int], dim: int, self_meta: Any) -> Any:
    sizes = self_meta._shape
    dim = _wrap(dim, len(sizes))
    filled = []
    for g, length in zip(grads, split_sizes):
        if g is not None:
            filled.append(g)
        else:
            shape = list(sizes)
            shape[dim] = length
            filled.append(aten.zeros.default(shape, **_options(self_meta)))
    return aten.cat.default(filled, dim)


@derivative("split.Tensor", "SplitBackward0", ("self",), save_inputs=("split_size", "dim"), save_meta=("self",))
def _split(ctx, grads, needs):
    sizes = ctx.self._shape
    dim = _wrap(ctx.dim, len(sizes))
    n, split_size = len(grads), ctx.split_size
    split_sizes = [split_size] * n
    split_sizes[-1] = split_size - (split_size * n - sizes[dim])
    return (_split_with_sizes_backward(grads, split_sizes, dim, ctx.self),)


@derivative("split_with_sizes", "SplitWithSizesBackward0", ("self",), save_inputs=("split_sizes", "dim"),
            save_meta=("self",))
def _split_with_sizes(ctx, grads, needs):
    return (_split_with_sizes_backward(grads, list(ctx.split_sizes), ctx.dim, ctx.self),)


# --- select, slice, diagonal ----------------------------------------------------------------------

@derivative("select.int", "SelectBackward0", ("self",), save_inputs=("dim", "index"), save_meta=("self",))
def _select(ctx, grads, needs):
    return (aten.select_backward.default(grads[0], list(ctx.self._shape), ctx.dim, ctx.index),)


@derivative("select_backward", "SelectBackwardBackward0", ("grad_output",), save_inputs=("dim", "index"))
def _select_backward(ctx, grads, needs):
    return (aten.select.int(grads[0], ctx.dim, ctx.index),)


@derivative("slice.Tensor", "SliceBackward0", ("self",), save_inputs=("dim", "start", "end", "step"),
            save_meta=("self",))
def _slice(ctx, grads, needs):
    start = 0 if ctx.start is None else ctx.start  # slice_backward_wrapper
    end = INT64_MAX if ctx.end is None else ctx.end
    return (aten.slice_backward.default(grads[0], list(ctx.self._shape), ctx.dim, start, end, ctx.step),)


@derivative("slice_backward", "SliceBackwardBackward0", ("grad_output",),
            save_inputs=("dim", "start", "end", "step"))
def _slice_backward(ctx, grads, needs):
    return (aten.slice.Tensor(grads[0], ctx.dim, ctx.start, ctx.end, ctx.step),)


@derivative("slice_scatter", "SliceScatterBackward0", ("self", "src"),
            save_inputs=("dim", "start", "end", "step"), save_meta=("src",))
def _slice_scatter(ctx, grads, needs):
    """self: the gradient with the written slice zeroed (``slice_scatter(grad, zeros_like(src), ...)``, where
    PyTorch saves only src's geometry, so the zeros come from ``zeros(src sizes, src options)``);
    src: that slice of the gradient."""
    g = grads[0]
    g_self = g_src = None
    if needs[0]:
        src = ctx.src
        zeros = aten.zeros.default(list(src._shape), dtype=src._dtype, layout=strided, device=src._device)
        g_self = aten.slice_scatter.default(g, zeros, ctx.dim, ctx.start, ctx.end, ctx.step)
    if needs[1]:
        g_src = aten.slice.Tensor(g, ctx.dim, ctx.start, ctx.end, ctx.step)
    return (g_self, g_src)


def _diagonal_backward(ctx, grads):  # noqa: ANN001, ANN202
    return aten.diagonal_backward.default(grads[0], list(ctx.self._shape), ctx.offset, ctx.dim1, ctx.dim2)


@derivative("diagonal", "DiagonalBackward0", ("self",), save_inputs=("offset", "dim1", "dim2"), save_meta=("self",))
def _diagonal(ctx, grads, needs):
    return (_diagonal_backward(ctx, grads),)


@derivative("diagonal_copy", "DiagonalBackward0_copy", ("self",), save_inputs=("offset", "dim1", "dim2"),
            save_meta=("self",))
def _diagonal_copy(ctx, grads, needs):
    return (_diagonal_backward(ctx, grads),)


@derivative("diagonal_backward", "DiagonalBackwardBackward0", ("grad_output",), save_inputs=("offset", "dim1", "dim2"))
def _diagonal_backward_backward(ctx, grads, needs):
    return (aten.diagonal.default(grads[0], ctx.offset, ctx.dim1, ctx.dim2),)


@derivative("diagonal_scatter", "DiagonalScatterBackward0", ("self", "src"),
            save_inputs=("offset", "dim1", "dim2"), save_meta=("src",))
def _diagonal_scatter(ctx, grads, needs):
    grad = grads[0]
    g_self = g_src = None
    if needs[0]:
        # zeros_like(src): PyTorch saves only src's sizes and options, and calls zeros
        zeros = aten.zeros.default(list(ctx.src._shape), **_options(ctx.src))
        g_self = aten.diagonal_scatter.default(grad, zeros, ctx.offset, ctx.dim1, ctx.dim2)
    if needs[1]:
        g_src = aten.diagonal.default(grad, ctx.offset, ctx.dim1, ctx.dim2)
    return (g_self, g_src)


# --- as_strided -----------------------------------------------------------------------------------

def _maybe_overlapping_memory(sizes: list[int], strides: list[int]) -> bool:
    """Could two indices of this geometry (size-1 dims already dropped) share a memory location?"""
    max_index_in_slice = 0
    for i in sorted(range(len(sizes)), key=lambda k: strides[k]):
        if strides[i] <= max_index_in_slice:
            return True
        max_index_in_slice += strides[i] * (sizes[i] - 1)
    return False


def _min_storage_size(sizes: list[int], strides: list[int], storage_offset: int) -> int:
    storage_size = storage_offset + 1
    for size, stride in zip(sizes, strides):
        if size == 0:
            return storage_offset
        storage_size += (size - 1) * stride
    return storage_size


@derivative("as_strided", "AsStridedBackward0", ("self",), save_inputs=("size", "stride", "storage_offset"),
            save_meta=("self",))
def _as_strided(ctx, grads, needs):
    return (_as_strided_backward(grads[0], ctx.self, list(ctx.size), list(ctx.stride), ctx.storage_offset),)


@derivative("as_strided_", "AsStridedBackward1", ("self",), save_inputs=("size", "stride", "storage_offset"),
            save_meta=("self",))
def _as_strided_(ctx, grads, needs):
    """The same formula over ``self``'s geometry before the op restrided it."""
    return (_as_strided_backward(grads[0], ctx.self, list(ctx.size), list(ctx.stride), ctx.storage_offset),)


def _as_strided_backward(grad: Any, geometry: Any, sizes: list[int], strides: list[int],
                         storage_offset: int | None) -> Any:
    """FunctionsManual's as_strided_backward: scatter the gradient into a flat storage through the output's
    geometry (``index_add_`` where the output overlaps itself), divide by the input's multiplicity where the
    input overlaps itself, and read it back through the input's geometry."""
    offset = geometry._storage_offset if storage_offset is None else storage_offset
    out_sizes: list[int] = []
    out_strides: list[int] = []
    for i in range(grad.dim() - 1, -1, -1):  # drop size-1 dims, sum expanded (stride 0) dims
        size_i, stride_i = sizes[i], strides[i]
        if size_i == 0:
            return aten.zeros.default(list(geometry._shape), **_options(grad))
        if size_i == 1:
            grad = aten.squeeze.dim(grad, i)
        elif stride_i == 0:
            grad = aten.sum.dim_IntList(grad, [i], False)
        else:
            out_sizes.insert(0, size_i)
            out_strides.insert(0, stride_i)
    out_maybe_overlap = _maybe_overlapping_memory(out_sizes, out_strides)
    inp_sizes: list[int] = []
    inp_strides: list[int] = []
    for size_i, stride_i in zip(reversed(geometry._shape), reversed(geometry._stride)):
        if size_i == 0:
            return aten.zeros.default(list(geometry._shape), **_options(grad))
        if size_i != 1:
            inp_sizes.insert(0, size_i)
            inp_strides.insert(0, stride_i)
    inp_maybe_overlap = _maybe_overlapping_memory(inp_sizes, inp_strides)

    shared_offset = min(geometry._storage_offset, offset)
    inp_effective_offset = geometry._storage_offset - shared_offset
    out_effective_offset = offset - shared_offset
    base_size = max(_min_storage_size(inp_sizes, inp_strides, inp_effective_offset),
                    _min_storage_size(out_sizes, out_strides, out_effective_offset))
    storage = aten.new_zeros.default(grad, [base_size])
    flat_indices = None
    if inp_maybe_overlap or out_maybe_overlap:
        flat_indices = aten.arange.start(0, base_size, dtype=_int64(), layout=strided, device=grad._device)
    if out_maybe_overlap:
        out_indices = aten.as_strided.default(flat_indices, out_sizes, out_strides, out_effective_offset)
        flat_grad = aten.reshape.default(grad, [-1])  # C++ evaluates the call's arguments right to left
        aten.index_add_.default(storage, 0, aten.reshape.default(out_indices, [-1]), flat_grad)
    else:
        aten.copy_.default(aten.as_strided.default(storage, out_sizes, out_strides, out_effective_offset), grad)
    if inp_maybe_overlap:
        count = aten.zeros_like.default(storage, memory_format=_CONTIGUOUS_FORMAT)
        inp_indices = aten.reshape.default(
            aten.as_strided.default(flat_indices, inp_sizes, inp_strides, inp_effective_offset), [-1]
        )
        ones = aten.expand.default(aten.ones.default([1], **_options(grad)), list(inp_indices._shape))
        aten.index_add_.default(count, 0, inp_indices, ones)
        aten.div_.Tensor(storage, count)  # NaN outside the input's visible range
    return aten.as_strided.default(storage, list(geometry._shape), list(geometry._stride), inp_effective_offset)


def _int64() -> Any:
    from ... import dtypes

    return dtypes.int64


# --- issue 20: as_strided_scatter ----------------------------------------------------------------------------------

@derivative("as_strided_scatter", "AsStridedScatterBackward0", ("self", "src"), save_meta=("self", "src"),
            save_inputs=("size", "stride", "storage_offset"))
def _as_strided_scatter(ctx, grads, needs):
    """self: ``as_strided_scatter_backward`` (FunctionsManual: zeros of self's geometry with the grad's strided slice
    copied into the same slice); src: ``grad.contiguous().as_strided(size, stride, storage_offset)``."""
    grad = grads[0]
    size, stride, offset = list(ctx.size), list(ctx.stride), ctx.storage_offset
    g_self = g_src = None
    if needs[0]:
        grad_ = grad.contiguous()
        grad_slice = aten.as_strided.default(grad_, size, stride, offset)
        result_buffer = aten.new_zeros.default(grad_, list(ctx.self._shape))
        result = aten.as_strided.default(result_buffer, list(ctx.self._shape), list(ctx.self._stride))
        result_slice = aten.as_strided.default(result, size, stride, offset)
        aten.copy_.default(result_slice, grad_slice)
        g_self = result
    if needs[1]:
        g_src = aten.as_strided.default(grad.contiguous(), size, stride, offset)
    return (g_self, g_src)


@derivative("unsafe_split.Tensor", "UnsafeSplitBackward0", ("self",), save_inputs=("split_size", "dim"),
            save_meta=("self",))
def _unsafe_split(ctx, grads, needs):
    return _split(ctx, grads, needs)


# wt-storage: view.dtype (derivatives.yaml: ``output_differentiability: [False]``): the result never requires grad
@derivative("view.dtype", "ViewBackward1", ("self",), non_differentiable_outputs=(0,))
def _view_dtype(ctx, grads, needs):
    return (None,)
