"""Derivative formulas of the ops_b batch: ``tril`` / ``triu``, ``std`` / ``var_mean`` / ``std_mean``, ``logsumexp``,
``flip``, ``cumsum``, ``prod``, ``linalg_vector_norm`` (and ``pow_.Scalar``, which its formula calls).

Corresponds to their entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp
helpers they call (``std_backward``, ``var_mean_backward``, ``std_mean_backward``,
``mean_backward``, ``logsumexp_backward``, ``cumsum_backward``, ``prod_backward``, ``norm_backward``). Same conventions as derivatives_math.py: each
formula calls the aten ops PyTorch's calls, in the same order, so make_fx records PyTorch's
backward graph.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from ..op_overload import namespace
from . import derivatives_inplace  # noqa: F401 - pow.Tensor_Scalar's entry, used by pow_.Scalar below
from .derivatives import sum_backward, unsqueeze_multiple
from .derivatives_inplace import inplace_of
from .derivatives_math import _safe_size, _subclass_like, _var
from .function import derivative
from .grad_mode import is_grad_enabled

aten = namespace("aten")
_STRIDED = 0  # Layout code of torch.strided
_CONTIGUOUS_FORMAT = 0  # MemoryFormat code of LEGACY_CONTIGUOUS_MEMORY_FORMAT


def var_backward(grad: Any, self: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    """FunctionsManual's ``var_backward`` (the formula of ``var.correction``)."""
    ctx = SimpleNamespace(self=self, dim=dim, correction=correction, keepdim=keepdim)
    return _var(ctx, (grad,), (True,))[0]


def std_backward(result: Any, grad: Any, self: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    """``(grad / (result * 2)).masked_fill_(result == 0, 0)`` passed through ``var_backward``."""
    grad_var = aten.div.Tensor(grad, aten.mul.Scalar(result, 2))
    grad_var = aten.masked_fill_.Scalar(grad_var, aten.eq.Scalar(result, 0), 0)
    return var_backward(grad_var, self, dim, correction, keepdim)


def mean_backward(grad: Any, sizes: tuple[int, ...], dim: Any, numel: int, keepdim: bool) -> Any:
    """``sum_backward(grad, ...) / n``: n is the reduced element count (all elements for an all-reduce)."""
    all_reduce = dim is None or len(dim) == 0
    n = numel if all_reduce else _safe_size(sizes, dim)
    return aten.div.Scalar(sum_backward(grad, sizes, [] if dim is None else dim, keepdim), n)


def _add_mean_grad(gself: Any, gmean: Any, self: Any, dim: Any, keepdim: bool) -> Any:
    if gmean is None:
        return gself
    aux = mean_backward(gmean, tuple(self._shape), dim, self.numel(), keepdim)
    return aux if gself is None else aten.add.Tensor(gself, aux)


@derivative("tril", "TrilBackward0", ("self",), save_inputs=("diagonal",))
def _tril(ctx, grads, needs):
    return (aten.tril.default(grads[0], ctx.diagonal),)


@derivative("triu", "TriuBackward0", ("self",), save_inputs=("diagonal",))
def _triu(ctx, grads, needs):
    return (aten.triu.default(grads[0], ctx.diagonal),)


@derivative("std.correction", "StdBackward0", ("self",), save_inputs=("self", "dim", "correction", "keepdim"),
            save_outputs=(0,))
def _std(ctx, grads, needs):
    return (std_backward(ctx.result, grads[0], ctx.self, ctx.dim, ctx.correction, ctx.keepdim),)


@derivative("var_mean.correction", "VarMeanBackward0", ("self",), save_inputs=("self", "dim", "correction", "keepdim"))
def _var_mean(ctx, grads, needs):
    gvar, gmean = grads
    gself = None if gvar is None else var_backward(gvar, ctx.self, ctx.dim, ctx.correction, ctx.keepdim)
    return (_add_mean_grad(gself, gmean, ctx.self, ctx.dim, ctx.keepdim),)


@derivative("std_mean.correction", "StdMeanBackward0", ("self",),
            save_inputs=("self", "dim", "correction", "keepdim"), save_outputs=(0,))
def _std_mean(ctx, grads, needs):
    gstd, gmean = grads
    gself = None if gstd is None else std_backward(ctx.result0, gstd, ctx.self, ctx.dim, ctx.correction, ctx.keepdim)
    return (_add_mean_grad(gself, gmean, ctx.self, ctx.dim, ctx.keepdim),)


@derivative("logsumexp", "LogsumexpBackward0", ("self",), save_inputs=("self", "dim", "keepdim"), save_outputs=(0,))
def _logsumexp(ctx, grads, needs):
    grad, result, self = grads[0], ctx.result, ctx.self
    if not ctx.keepdim and self.dim() != 0:
        grad = unsqueeze_multiple(grad, ctx.dim, self.dim())
        result = unsqueeze_multiple(result, ctx.dim, self.dim())
    return (aten.mul.Tensor(grad, aten.exp.default(aten.sub.Tensor(self, result))),)


# --- flip / cumsum / prod -------------------------------------------------------------------------------------


@derivative("flip", "FlipBackward0", ("self",), save_inputs=("dims",))
def _flip(ctx, grads, needs):
    return (aten.flip.default(grads[0], list(ctx.dims)),)


def _reversed_cumsum(w: Any, dim: int) -> Any:
    return aten.flip.default(aten.cumsum.default(aten.flip.default(w, [dim]), dim), [dim])


@derivative("cumsum", "CumsumBackward0", ("self",), save_inputs=("dim",), save_meta=("self",))
def _cumsum(ctx, grads, needs):
    """``cumsum_backward(grad.to(self.scalar_type()), dim)``: the cumulative sum taken from the end."""
    grad = aten.to.dtype(grads[0], ctx.self._dtype)  # (a node of its own before dispatch, a no-op when equal)
    if grad.numel() <= 1 or grad._shape[ctx.dim] == 1:
        return (grad,)
    return (_reversed_cumsum(grad, ctx.dim),)


def _prod_safe_zeros_backward(grad: Any, inp: Any, dim: int) -> Any:
    """The product of all other elements along ``dim``: exclusive cumulative products from both ends."""
    if inp.numel() == 0:
        return aten.expand.default(grad, list(inp._shape))
    if inp._shape[dim] == 1:
        return grad
    ones_size = list(inp._shape)
    ones_size[dim] = 1
    ones = aten.ones.default(ones_size, dtype=grad._dtype, layout=_STRIDED, device=grad._device)
    n = inp._shape[dim]
    exclusive_normal = aten.cumprod.default(aten.cat.default([ones, aten.slice.Tensor(inp, dim, 0, n - 1)], dim), dim)
    narrow_reverse = aten.flip.default(aten.slice.Tensor(inp, dim, 1, n), [dim])
    exclusive_reverse = aten.flip.default(aten.cumprod.default(aten.cat.default([ones, narrow_reverse], dim), dim),
                                          [dim])
    return aten.mul.Tensor(grad, aten.mul.Tensor(exclusive_normal, exclusive_reverse))


def _as_dtype(t: Any, like: Any) -> Any:
    """``t.to(like.scalar_type())``: ``to.dtype`` (seen before dispatch; a no-op below it when the dtype is equal)."""
    return aten.to.dtype(t, like._dtype)


@derivative("prod", "ProdBackward0", ("self",), save_inputs=("self",), save_outputs=(0,))
def _prod(ctx, grads, needs):
    grad, result = grads[0], ctx.result
    inp = _as_dtype(ctx.self, grad)
    if inp.dim() == 0:
        return (grad,)
    if _subclass_like(inp) or inp._device.type == "meta":  # the safe path, always taken under a mode
        flat = aten.view.default(aten.contiguous.default(inp), [-1])
        return (aten.view.default(_prod_safe_zeros_backward(grad, flat, 0), list(inp._shape)),)
    zero_idx = aten.nonzero.default(aten.eq.Scalar(inp, 0))
    if zero_idx.numel() == 0:
        return (aten.mul.Tensor(grad, aten.div.Tensor(result, inp)),)
    if not is_grad_enabled() and zero_idx._shape[0] > 1:
        return (aten.zeros_like.default(inp, memory_format=_CONTIGUOUS_FORMAT),)
    flat = aten.view.default(aten.contiguous.default(inp), [-1])
    return (aten.view.default(_prod_safe_zeros_backward(grad, flat, 0), list(inp._shape)),)


@derivative("prod.dim_int", "ProdBackward1", ("self",), save_inputs=("self", "dim", "keepdim"), save_outputs=(0,))
def _prod_dim(ctx, grads, needs):
    grad, result = grads[0], ctx.result
    inp = _as_dtype(ctx.self, grad)
    if inp.dim() == 0:
        return (grad,)
    dim = ctx.dim + inp.dim() if ctx.dim < 0 else ctx.dim
    if not ctx.keepdim:
        grad = aten.unsqueeze.default(grad, dim)
        result = aten.unsqueeze.default(result, dim)
    if _subclass_like(inp) or inp._device.type == "meta":
        return (_prod_safe_zeros_backward(grad, inp, dim),)
    zero_mask = aten.eq.Scalar(inp, 0)
    slice_zero_count = aten.sum.dim_IntList(zero_mask, [dim], True)
    total_zeros = aten._local_scalar_dense.default(aten.sum.default(slice_zero_count))
    if total_zeros == 0:
        return (aten.mul.Tensor(grad, aten.div.Tensor(result, inp)),)
    return (_prod_safe_zeros_backward(grad, inp, dim),)


@derivative("cumprod", "CumprodBackward0", ("self",), save_inputs=("self", "dim"), save_outputs=(0,))
def _cumprod(ctx, grads, needs):
    """``cumprod_backward(grad.to(self.scalar_type()), self, dim, result)``: an op of its own (CompositeImplicit)."""
    inp, output = ctx.self, ctx.result  # unpacked before the call, as the generated code does
    return (aten.cumprod_backward.default(_as_dtype(grads[0], inp), inp, ctx.dim, output),)


# --- linalg_vector_norm ---------------------------------------------------------------------------------------


@derivative("linalg_vector_norm", "LinalgVectorNormBackward0", ("self",),
            save_inputs=("self", "ord", "dim", "keepdim"), save_outputs=(0,))
def _linalg_vector_norm(ctx, grads, needs):
    """``norm_backward``: one formula per order (0: no gradient; 1: sgn; 2: self / norm; inf: the max positions)."""
    grad, self, norm = grads[0], ctx.self, ctx.result
    p = float(ctx.ord)
    dim = [] if ctx.dim is None else list(ctx.dim)
    if not ctx.keepdim and self.dim() != 0:
        grad = unsqueeze_multiple(grad, dim, self.dim())
        norm = unsqueeze_multiple(norm, dim, self.dim())
    if p == 0.0:
        return (None,)
    if p == 1.0:
        return (aten.mul.Tensor(aten.sgn.default(self), grad),)
    if p == 2.0:
        scaled = aten.masked_fill_.Scalar(aten.div.Tensor(self, norm), aten.eq.Scalar(norm, 0), 0)
        return (aten.mul.Tensor(grad, scaled),)
    if math.isinf(p):
        self_abs = aten.abs.default(self)
        mask = aten.logical_or.default(aten.eq.Tensor(self_abs, norm), aten.isnan.default(self_abs))
        share = aten.mul.Tensor(aten.div.Tensor(grad, aten.sum.dim_IntList(mask, dim, True)), mask)
        return (aten.mul.Tensor(aten.sgn.default(self), share),)  # (C++ evaluates the right operand first)
    if p < 1.0:
        powed = aten.masked_fill_.Scalar(aten.pow_.Scalar(aten.abs.default(self), p - 1), aten.eq.Scalar(self, 0), 0)
        self_scaled = aten.mul.Tensor(aten.sgn.default(self), powed)
        norm_pow = aten.pow.Tensor_Scalar(norm, 1 - p)
        return (aten.mul.Tensor(aten.mul.Tensor(self_scaled, grad), norm_pow),)
    if p < 2.0:
        powed = aten.pow_.Scalar(aten.abs.default(self), p - 1)
        self_scaled = aten.mul.Tensor(aten.sgn.default(self), powed)
    else:
        self_scaled = aten.mul.Tensor(self, aten.pow_.Scalar(aten.abs.default(self), p - 2))
    scale_v = aten.div.Tensor(grad, aten.pow.Tensor_Scalar(norm, p - 1))
    scale_v = aten.masked_fill_.Scalar(scale_v, aten.eq.Scalar(norm, 0), 0)
    return (aten.mul.Tensor(self_scaled, scale_v),)


inplace_of("pow_.Scalar", "pow.Tensor_Scalar", clone_self_for=(0,))
inplace_of("scatter_.value", "scatter.value")


# --- roll / repeat / sort / topk -------------------------------------------------------------------------------


@derivative("roll", "RollBackward0", ("self",), save_inputs=("shifts", "dims"))
def _roll(ctx, grads, needs):
    """``grad.roll(-reversed(shifts), reversed(dims))``."""
    shifts = [-s for s in reversed(list(ctx.shifts))]
    dims = list(reversed(list(ctx.dims)))
    return (aten.roll.default(grads[0], shifts, dims) if dims else aten.roll.default(grads[0], shifts),)


@derivative("repeat", "RepeatBackward0", ("self",), save_inputs=("repeats",), save_meta=("self",))
def _repeat(ctx, grads, needs):
    """``repeat_backward``: sum the copies; one reshape to (repeat, size) pairs, one sum over the repeat dims."""
    grad, repeats, input_shape = grads[0], list(ctx.repeats), list(ctx.self._shape)
    if 0 in repeats:
        return (aten.zeros.default(input_shape, dtype=grad._dtype, layout=_STRIDED, device=grad._device),)
    unsqueezed = grad.dim() - len(input_shape)
    for _ in range(unsqueezed):
        grad = aten.sum.dim_IntList(grad, [0])
    grad_size: list[int] = []
    sum_dims: list[int] = []
    for d, size in enumerate(input_shape):
        r = repeats[d + unsqueezed]
        if r != 1:
            grad_size.append(r)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(size)
    if sum_dims:
        grad = aten.sum.dim_IntList(aten.reshape.default(grad, grad_size), sum_dims)
    return (grad,)


def _selected_backward(ctx: Any, grads: Any) -> Any:
    """``value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim=True)``."""
    return (aten.value_selecting_reduction_backward.default(grads[0], ctx.dim, ctx.result1, list(ctx.self._shape),
                                                            True),)


for _op, _node in (("sort", "SortBackward0"), ("sort.stable", "SortBackward1"), ("topk", "TopkBackward0")):
    derivative(_op, _node, ("self",), save_inputs=("dim",), save_meta=("self",), save_outputs=(1,),
               non_differentiable_outputs=(1,))(lambda ctx, grads, needs: _selected_backward(ctx, grads))
del _op, _node


@derivative("constant_pad_nd", "ConstantPadNdBackward0", ("self",), save_inputs=("pad",))
def _constant_pad_nd(ctx, grads, needs):
    """``constant_pad_nd_backward``: the gradient cropped by the negated padding."""
    return (aten.constant_pad_nd.default(grads[0], [-p for p in ctx.pad]),)
