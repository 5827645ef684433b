"""Derivative formulas of the reductions: ``sum`` / ``mean`` / ``nansum``, ``amax`` / ``amin`` / ``aminmax``,
``max`` / ``min`` (full and along a dim), ``var`` / ``std`` / ``var_mean`` / ``std_mean``, ``logsumexp``,
``cumsum`` / ``cumprod`` / ``prod``, ``linalg_vector_norm``.

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call, kept here as they are used only by reductions: ``unsqueeze_multiple``, ``sum_backward``,
``mean_backward``, ``_safe_size``, ``scale_grad_by_count``, ``evenly_distribute_backward``, ``var_backward``,
``std_backward``, ``var_mean_backward``, ``std_mean_backward``, ``logsumexp_backward``, ``cumsum_backward``,
``prod_backward``, ``norm_backward``.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from ...op_overload import namespace
from ..function import derivative
from ..grad_mode import is_grad_enabled
from .cpp_idioms import _options, _subclass_like

aten = namespace("aten")
_STRIDED = 0  # Layout code of torch.strided
_CONTIGUOUS_FORMAT = 0  # MemoryFormat code of LEGACY_CONTIGUOUS_MEMORY_FORMAT


# --- helpers --------------------------------------------------------------------------------------

def unsqueeze_multiple(grad: Any, dims: Any, ndim: int) -> Any:
    """FunctionsManual's ``unsqueeze_multiple``: one dim as given, several wrapped and in increasing order."""
    if dims is not None and len(dims) == 0:
        return grad
    if dims is not None and len(dims) == 1:
        return aten.unsqueeze.default(grad, dims[0])
    wrapped = set(range(ndim)) if dims is None else {d + ndim if d < 0 else d for d in dims}
    for d in range(ndim):
        if d in wrapped:
            grad = aten.unsqueeze.default(grad, d)
    return grad


def sum_backward(grad: Any, sizes: tuple[int, ...], dims: Any, keepdim: bool) -> Any:
    """FunctionsManual's ``sum_backward``: put reduced dims back (unless kept), then expand to ``sizes``."""
    if not keepdim and len(sizes) > 0 and dims is not None and len(dims) > 0:
        grad = unsqueeze_multiple(grad, dims, len(sizes))
    return aten.expand.default(grad, list(sizes))


def _safe_size(sizes: tuple[int, ...], dims: Any) -> int:
    """``_safe_size``: the number of elements a reduction over ``dims`` combines (1 for a 0-dim input)."""
    if not sizes:
        return 1
    n = 1
    for d in dims:
        n *= sizes[d + len(sizes) if d < 0 else d]
    return n


def mean_backward(grad: Any, sizes: tuple[int, ...], dim: Any, numel: int, keepdim: bool) -> Any:
    """``sum_backward(grad, ...) / n``: n is the reduced element count (all elements for an all-reduce)."""
    all_reduce = dim is None or len(dim) == 0
    n = numel if all_reduce else _safe_size(sizes, dim)
    return aten.div.Scalar(sum_backward(grad, sizes, [] if dim is None else dim, keepdim), n)


def _restore_reduced_dims(output: Any, dims: Any, keepdim: bool) -> Any:
    """Put the reduced dims back as size-1 dims (``reshape``) unless they were kept."""
    if keepdim:
        return output
    total = len(output._shape) + len(dims)
    target = [0] * total
    for d in dims:
        target[d + total if d < 0 else d] = 1
    sizes = iter(output._shape)
    target = [t if t == 1 else next(sizes) for t in target]
    return aten.reshape.default(output, target)


def _double_div(a: float, b: float) -> float:
    """C++ double division: dividing by zero gives inf / -inf / nan instead of raising."""
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


# --- sum, mean, nansum ----------------------------------------------------------------------------

@derivative("sum", "SumBackward0", ("self",), save_meta=("self",))
def _sum(ctx, grads, needs):
    return (aten.expand.default(grads[0], list(ctx.self._shape)),)


@derivative("sum.dim_IntList", "SumBackward1", ("self",), save_inputs=("dim", "keepdim"), save_meta=("self",))
def _sum_dim(ctx, grads, needs):
    return (sum_backward(grads[0], ctx.self._shape, ctx.dim, ctx.keepdim),)


@derivative("mean", "MeanBackward0", ("self",), save_meta=("self",))
def _mean(ctx, grads, needs):
    self = ctx.self
    return (aten.div.Scalar(aten.expand.default(grads[0], list(self._shape)), self.numel()),)


@derivative("mean.dim", "MeanBackward1", ("self",), save_inputs=("dim", "keepdim"), save_meta=("self",))
def _mean_dim(ctx, grads, needs):
    """``mean_backward``: the sum's backward divided by the number of elements averaged."""
    sizes, dims = ctx.self._shape, ctx.dim
    n = ctx.self.numel() if dims is None or len(dims) == 0 else _safe_size(sizes, dims)
    return (aten.div.Scalar(sum_backward(grads[0], sizes, dims, ctx.keepdim), n),)


@derivative("nansum", "NansumBackward0", ("self",), save_inputs=("self", "dim", "keepdim"))
def _nansum(ctx, grads, needs):
    """``nansum_backward(grad.to(self.scalar_type()), self, dim, keepdim)``: the sum's backward, zero at NaNs."""
    self = ctx.self
    grad = aten.to.dtype(grads[0], self._dtype)  # (a no-op for the same dtype; pre-dispatch traces record it)
    dims = [] if ctx.dim is None else list(ctx.dim)
    keep = aten.logical_not.default(aten.isnan.default(self))  # (PyTorch's build evaluates this operand first)
    return (aten.mul.Tensor(sum_backward(grad, tuple(self._shape), dims, ctx.keepdim), keep),)


# --- amax, amin, aminmax, max, min ----------------------------------------------------------------

def _amax_amin_backward(ctx: Any, grads: Any) -> Any:
    """``scale_grad_by_count``: the gradient is shared evenly among the positions equal to the result."""
    dims, keepdim = ctx.dim, ctx.keepdim
    mask = aten.eq.Tensor(_restore_reduced_dims(ctx.result, dims, keepdim), ctx.self)
    grad = _restore_reduced_dims(grads[0], dims, keepdim)
    return (aten.mul.Tensor(aten.div.Tensor(grad, aten.sum.dim_IntList(mask, list(dims), True)), mask),)


@derivative("amax", "AmaxBackward0", ("self",), save_inputs=("self", "dim", "keepdim"), save_outputs=(0,))
def _amax(ctx, grads, needs):
    return _amax_amin_backward(ctx, grads)


@derivative("amin", "AminBackward0", ("self",), save_inputs=("self", "dim", "keepdim"), save_outputs=(0,))
def _amin(ctx, grads, needs):
    return _amax_amin_backward(ctx, grads)


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


def _evenly_distribute_backward(grad: Any, input: Any, value: Any) -> Any:  # noqa: A002 - PyTorch's name
    """Full max / min: the gradient is shared evenly among the positions holding the value (NaN matches NaN)."""
    if _subclass_like(grad, input, value):
        both_nan = aten.logical_and.default(aten.isnan.default(input), aten.isnan.default(value))
        mask = aten.logical_or_.default(aten.eq.Tensor(input, value), both_nan)
        return aten.mul.Tensor(mask, aten.div.Tensor(grad, aten.sum.default(mask)))
    if aten._local_scalar_dense.default(aten.isnan.default(value)):
        mask = aten.isnan.default(input)
    else:
        mask = aten.eq.Tensor(input, value)
    zeros = aten.new_zeros.default(grad, list(input._shape), **_options(input))
    return aten.masked_fill_.Tensor(zeros, mask, aten.div.Tensor(grad, aten.sum.default(mask)))


@derivative("max", "MaxBackward1", ("self",), save_inputs=("self",), save_outputs=(0,))
def _max(ctx, grads, needs):
    return (_evenly_distribute_backward(grads[0], ctx.self, ctx.result),)


@derivative("min", "MinBackward1", ("self",), save_inputs=("self",), save_outputs=(0,))
def _min(ctx, grads, needs):
    return (_evenly_distribute_backward(grads[0], ctx.self, ctx.result),)


def _value_selecting(ctx: Any, grads: Any) -> Any:
    sizes = list(ctx.self._shape)
    return (aten.value_selecting_reduction_backward.default(grads[0], ctx.dim, ctx.result1, sizes, ctx.keepdim),)


@derivative("max.dim", "MaxBackward0", ("self",), save_inputs=("dim", "keepdim"), save_meta=("self",),
            save_outputs=(1,), non_differentiable_outputs=(1,))
def _max_dim(ctx, grads, needs):
    return _value_selecting(ctx, grads)


@derivative("min.dim", "MinBackward0", ("self",), save_inputs=("dim", "keepdim"), save_meta=("self",),
            save_outputs=(1,), non_differentiable_outputs=(1,))
def _min_dim(ctx, grads, needs):
    return _value_selecting(ctx, grads)


# --- var, std, var_mean, std_mean, logsumexp ------------------------------------------------------

@derivative("var.correction", "VarBackward0", ("self",), save_inputs=("self", "dim", "correction", "keepdim"))
def _var(ctx, grads, needs):
    """``var_backward``: 2 / (n - correction) * grad * (self - mean)."""
    g, x, dims = grads[0], ctx.self, ctx.dim
    correction = 1.0 if ctx.correction is None else float(ctx.correction)
    if x.dim() == 0 or dims is None:
        dof = x.numel() - correction
        if dof <= 0:  # 2 / 0: inf, and nan where self equals its mean (inf * 0)
            mean = aten.mean.default(x)
            return (aten.mul.Tensor(g, aten.where.Scalar(aten.eq.Tensor(x, mean), math.nan, math.inf)),)
        centered = aten.sub.Tensor(x, aten.mean.default(x))
        return (aten.mul.Tensor(aten.mul.Scalar(g, _double_div(2.0, dof)), centered),)
    if not ctx.keepdim and x.dim() > 1:
        g = unsqueeze_multiple(g, dims, x.dim())
    rnumel = float(_safe_size(x._shape, dims))
    centered = aten.sub.Tensor(x, aten.mean.dim(x, list(dims), True))
    return (aten.mul.Tensor(aten.mul.Scalar(g, _double_div(2.0, rnumel - correction)), centered),)


def var_backward(grad: Any, self: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    """FunctionsManual's ``var_backward`` (the formula of ``var.correction``)."""
    ctx = SimpleNamespace(self=self, dim=dim, correction=correction, keepdim=keepdim)
    return _var(ctx, (grad,), (True,))[0]


def std_backward(result: Any, grad: Any, self: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    """``(grad / (result * 2)).masked_fill_(result == 0, 0)`` passed through ``var_backward``."""
    grad_var = aten.div.Tensor(grad, aten.mul.Scalar(result, 2))
    grad_var = aten.masked_fill_.Scalar(grad_var, aten.eq.Scalar(result, 0), 0)
    return var_backward(grad_var, self, dim, correction, keepdim)


def _add_mean_grad(gself: Any, gmean: Any, self: Any, dim: Any, keepdim: bool) -> Any:
    if gmean is None:
        return gself
    aux = mean_backward(gmean, tuple(self._shape), dim, self.numel(), keepdim)
    return aux if gself is None else aten.add.Tensor(gself, aux)


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


# --- cumsum, prod, cumprod ------------------------------------------------------------------------

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


# --- linalg_vector_norm ---------------------------------------------------------------------------

@derivative("linalg_vector_norm", "LinalgVectorNormBackward0", ("self",),
            save_inputs=("self", "ord", "dim", "keepdim"), save_outputs=(0,))
def _linalg_vector_norm(ctx, grads, needs):
    """``norm_backward``: one formula per order (0: no gradient; 1: sgn; 2: self / norm; inf: the max positions)."""
    return _norm_backward(grads[0], ctx.self, ctx.result, ctx.ord, ctx.dim, ctx.keepdim)


@derivative("norm.Scalar", "NormBackward0", ("self",), save_inputs=("self", "p"), save_outputs=(0,))
def _norm_scalar(ctx, grads, needs):
    """``norm_backward(grad, self, p, result)``."""
    return _norm_backward(grads[0], ctx.self, ctx.result, ctx.p, None, False)


@derivative("norm.ScalarOpt_dim", "NormBackward1", ("self",), save_inputs=("self", "p", "dim", "keepdim"),
            save_outputs=(0,))
def _norm_scalaropt_dim(ctx, grads, needs):
    """``norm_backward(grad, self, p, result, dim, keepdim)`` (``p`` None: 2)."""
    return _norm_backward(grads[0], ctx.self, ctx.result, 2 if ctx.p is None else ctx.p, ctx.dim, ctx.keepdim)


def _norm_backward(grad: Any, self: Any, norm: Any, ord: Any, dim: Any, keepdim: bool) -> tuple:  # noqa: A002
    """FunctionsManual's ``norm_backward``."""
    p = float(ord)
    dim = [] if dim is None else list(dim)
    if not keepdim and self.dim() != 0:
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
