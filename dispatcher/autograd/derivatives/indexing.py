"""Derivative formulas of the indexing ops: ``gather`` / ``scatter`` / ``scatter_add``, ``index_select``,
``index.Tensor``, ``index_add`` / ``index_put`` / ``index_copy`` / ``index_fill``, and their in-place forms
(``_index_put_impl_`` gets ``index_put``'s formula under a node of its own). The ``masked_*`` ops are in
indexing_masked.py.

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call (``index_backward``: ``index_put`` instead of ``_index_put_impl_`` when a tensor is subclass-like).
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative
from .cpp_idioms import _scaled, _subclass_like
from .cpp_idioms import _strided_options as _options
from .inplace_formulas import inplace_of

aten = namespace("aten")


# --- gather, scatter ------------------------------------------------------------------------------

@derivative("gather", "GatherBackward0", ("self",), save_inputs=("self", "dim", "index", "sparse_grad"))
def _gather(ctx, grads, needs):
    return (aten.gather_backward.default(grads[0], ctx.self, ctx.dim, ctx.index, ctx.sparse_grad),)


@derivative("scatter.src", "ScatterBackward0", ("self", "src"), save_inputs=("dim", "index"))
def _scatter_src(ctx, grads, needs):
    g = grads[0]
    self = aten.scatter.value(g, ctx.dim, ctx.index, 0) if needs[0] else None
    src = aten.gather.default(g, ctx.dim, ctx.index) if needs[1] else None
    return (self, src)


inplace_of("scatter_.src", "scatter.src")


@derivative("scatter.value", "ScatterBackward1", ("self",), save_inputs=("dim", "index"))
def _scatter_value(ctx, grads, needs):
    return (aten.scatter.value(grads[0], ctx.dim, ctx.index, 0),)


inplace_of("scatter_.value", "scatter.value")


@derivative("scatter_add", "ScatterAddBackward0", ("self", "src"), save_inputs=("dim", "index"))
def _scatter_add(ctx, grads, needs):
    g = grads[0]
    return (g if needs[0] else None, aten.gather.default(g, ctx.dim, ctx.index) if needs[1] else None)


inplace_of("scatter_add_", "scatter_add")


# --- index_select, index, index_add, index_put ----------------------------------------------------

@derivative("index_select", "IndexSelectBackward0", ("self",), save_inputs=("dim", "index"), save_meta=("self",))
def _index_select(ctx, grads, needs):
    return (aten.index_select_backward.default(grads[0], list(ctx.self._shape), ctx.dim, ctx.index),)


@derivative("index.Tensor", "IndexBackward0", ("self",), save_inputs=("indices",), save_meta=("self",))
def _index(ctx, grads, needs):
    grad, indices = grads[0], list(ctx.indices)
    zeros = aten.new_zeros.default(grad, list(ctx.self._shape), **_options(ctx.self))
    if _subclass_like(zeros, grad, *indices):  # index_backward
        return (aten.index_put.default(zeros, indices, grad, True),)
    return (aten._index_put_impl_.default(zeros, indices, grad, True, True),)


@derivative("index_add", "IndexAddBackward0", ("self", "source"), save_inputs=("dim", "index", "alpha"),
            save_meta=("source",))
def _index_add(ctx, grads, needs):
    grad, source = grads[0], ctx.source
    g_source = None
    if needs[1]:
        if source.dim() > 0:
            picked = aten.expand.default(aten.index_select.default(grad, ctx.dim, ctx.index), list(source._shape))
        else:
            picked = aten.index_select.default(grad, ctx.dim, aten.squeeze.dim(ctx.index, 0))
        g_source = _scaled(picked, ctx.alpha)
    return (grad if needs[0] else None, g_source)


inplace_of("index_add_", "index_add")


@derivative("index_put", "IndexPutBackward0", ("self", "values"), save_inputs=("indices", "accumulate"),
            save_meta=("values",))
def _index_put(ctx, grads, needs):
    grad, indices = grads[0], list(ctx.indices)
    g_self = None
    if needs[0]:
        if ctx.accumulate:
            g_self = grad
        else:  # zeros_like(values): PyTorch saves only values' sizes and options, and calls zeros
            zeros = aten.zeros.default(list(ctx.values._shape), **_options(ctx.values))
            g_self = aten.index_put.default(grad, indices, zeros, False)
    g_values = aten.index.Tensor(grad, indices) if needs[1] else None
    return (g_self, g_values)


inplace_of("index_put_", "index_put")
inplace_of("_index_put_impl_", "index_put", node_name="IndexPutImplBackward0")


# --- index_copy, index_fill -----------------------------------------------------------------------

@derivative("index_copy", "IndexCopyBackward0", ("self", "source"), save_inputs=("dim", "index"),
            save_meta=("source",))
def _index_copy(ctx, grads, needs):
    grad, source = grads[0], ctx.source
    g_self = aten.index_fill.int_Scalar(grad, ctx.dim, ctx.index, 0) if needs[0] else None
    g_source = None
    if needs[1]:
        if source.dim() > 0:
            g_source = aten.expand.default(aten.index_select.default(grad, ctx.dim, ctx.index), list(source._shape))
        else:
            g_source = aten.index_select.default(grad, ctx.dim, aten.squeeze.dim(ctx.index, 0))
    return (g_self, g_source)


@derivative("index_fill.int_Scalar", "IndexFillBackward0", ("self",), save_inputs=("dim", "index"))
def _index_fill_scalar(ctx, grads, needs):
    return (aten.index_fill.int_Scalar(grads[0], ctx.dim, ctx.index, 0),)


@derivative("index_fill.int_Tensor", "IndexFillBackward1", ("self", "value"), save_inputs=("dim", "index"))
def _index_fill_tensor(ctx, grads, needs):
    grad = grads[0]
    g_self = aten.index_fill.int_Scalar(grad, ctx.dim, ctx.index, 0) if needs[0] else None
    g_value = None
    if needs[1]:
        unique = aten._unique.default(ctx.index, False)[0]
        g_value = aten.sum.default(aten.index_select.default(grad, ctx.dim, unique))
    return (g_self, g_value)


inplace_of("index_copy_", "index_copy")
inplace_of("index_fill_.int_Scalar", "index_fill.int_Scalar")
inplace_of("index_fill_.int_Tensor", "index_fill.int_Tensor")
