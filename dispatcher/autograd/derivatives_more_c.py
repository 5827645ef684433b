"""Derivative formulas of the ops_c batch: ``diagonal`` and its relatives, in-place views, ``index_*``, random ops.

Corresponds to their entries in tools/autograd/derivatives.yaml (``diagonal``, ``diagonal_backward``,
``diagonal_scatter``, ``diag_embed``; ``diagonal_copy`` gets ``diagonal``'s formula, as torchgen
derives view_copy entries). Same conventions as derivatives.py: each formula calls the aten ops
PyTorch's calls, in the same order, so make_fx records PyTorch's backward graph.
"""

from __future__ import annotations

from ..op_overload import namespace
from .derivatives import sum_backward
from .derivatives_math import _restore_reduced_dims
from .derivatives_nn import _not_implemented, _options, _unsqueeze_to
from .function import derivative

aten = namespace("aten")


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


@derivative("diag_embed", "DiagEmbedBackward0", ("self",), save_inputs=("offset", "dim1", "dim2"))
def _diag_embed(ctx, grads, needs):
    return (aten.diagonal.default(grads[0], ctx.offset, ctx.dim1, ctx.dim2),)


# --- in-place view ops: the formulas of their out-of-place views, under nodes of their own ------------------------


@derivative("t_", "TBackward1", ("self",))
def _t_(ctx, grads, needs):
    return (aten.t.default(grads[0]),)


@derivative("transpose_", "TransposeBackward1", ("self",), save_inputs=("dim0", "dim1"))
def _transpose_(ctx, grads, needs):
    return (aten.transpose.int(grads[0], ctx.dim0, ctx.dim1),)


@derivative("unsqueeze_", "UnsqueezeBackward1", ("self",), save_inputs=("dim",))
def _unsqueeze_(ctx, grads, needs):
    return (aten.squeeze.dim(grads[0], ctx.dim),)


@derivative("squeeze_", "SqueezeBackward3", ("self",), save_meta=("self",))
def _squeeze_(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape),)


@derivative("squeeze_.dims", "SqueezeBackward5", ("self",), save_inputs=("dim",), save_meta=("self",))
def _squeeze_dims_(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape, list(ctx.dim)),)


# --- index_copy / index_fill ---------------------------------------------------------------------------------


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


@derivative("_unique", "UniqueBackward0", ("self",), non_differentiable_outputs=(1,))
def _unique(ctx, grads, needs):
    raise _not_implemented("_unique")


def _register_inplace() -> None:
    from .derivatives_inplace import inplace_of

    inplace_of("index_copy_", "index_copy")
    inplace_of("index_fill_.int_Scalar", "index_fill.int_Scalar")
    inplace_of("index_fill_.int_Tensor", "index_fill.int_Tensor")


_register_inplace()


# --- nansum / aminmax --------------------------------------------------------------------------------------------


@derivative("nansum", "NansumBackward0", ("self",), save_inputs=("self", "dim", "keepdim"))
def _nansum(ctx, grads, needs):
    """``nansum_backward(grad.to(self.scalar_type()), self, dim, keepdim)``: the sum's backward, zero at NaNs."""
    self = ctx.self
    grad = aten.to.dtype(grads[0], self._dtype)  # (a no-op for the same dtype; pre-dispatch traces record it)
    dims = [] if ctx.dim is None else list(ctx.dim)
    keep = aten.logical_not.default(aten.isnan.default(self))  # (PyTorch's build evaluates this operand first)
    return (aten.mul.Tensor(sum_backward(grad, tuple(self._shape), dims, ctx.keepdim), keep),)


def _scale_grad_by_count(grad, result, self, dims, keepdim):  # noqa: ANN001, ANN202
    """The gradient shared evenly among the positions of ``self`` equal to the (restored) result."""
    g = _restore_reduced_dims(grad, dims, keepdim)
    mask = aten.eq.Tensor(self, _restore_reduced_dims(result, dims, keepdim))
    return aten.mul.Tensor(aten.div.Tensor(g, aten.sum.dim_IntList(mask, list(dims), True)), mask)


@derivative("aminmax", "AminmaxBackward0", ("self",), save_inputs=("self", "dim", "keepdim"), save_outputs=(1, 0))
def _aminmax(ctx, grads, needs):
    self = ctx.self
    result_max, result_min = ctx.result1, ctx.result0  # (both unpacked, max first, as PyTorch's node does)
    dims = list(range(self.dim())) if ctx.dim is None else [ctx.dim]
    grad_min, grad_max = grads
    g_min = None if grad_min is None else _scale_grad_by_count(grad_min, result_min, self, dims, ctx.keepdim)
    g_max = None if grad_max is None else _scale_grad_by_count(grad_max, result_max, self, dims, ctx.keepdim)
    if g_min is None or g_max is None:
        return (g_min if g_max is None else g_max,)
    return (aten.add.Tensor(g_min, g_max),)


# --- random ops: their results do not depend on their inputs' values differentiably -----------------------------


@derivative("uniform_", "UniformBackward0", ("self",))
def _uniform_(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("normal_", "NormalBackward0", ("self",))
def _normal_(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("bernoulli", "BernoulliBackward0", ("self",))
def _bernoulli(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("bernoulli.p", "NotImplemented", ("self",))
def _bernoulli_p(ctx, grads, needs):
    """PyTorch has no formula for ``bernoulli.p``: its node is ``NotImplemented``, which fails when reached."""
    raise RuntimeError("derivative for aten::bernoulli is not implemented")
