"""Derivative formulas for pointwise math, reductions and matrix products (the rest of the listing's math ops).

Corresponds to the entries of tools/autograd/derivatives.yaml for ``sqrt``, ``pow``,
``maximum``, ``where``, ``clamp``, ``amax``, ``max.dim``, ``var``, ``baddbmm`` ... and the
FunctionsManual.cpp helpers they call (``pow_backward_exponent``, ``clamp_backward``,
``evenly_distribute_backward``, ``var_backward``, ...). Same conventions as
derivatives.py: every formula is written with aten ops and calls the ops PyTorch's
formula calls, in the same order and with the same arguments, so a dispatch mode (or
make_fx) sees PyTorch's backward graph. Two C++ facts decide that order:

* the generated backward function computes the input gradients in the alphabetical
  order of the input names ("exponent" before "self", "min, max" before "self");
* GCC evaluates the operands of a C++ operator or function call right to left, so in
  ``grad * (exponent * self.pow(exponent - 1))`` the ``sub`` and ``pow`` run first
  (the object of a method call, ``a`` in ``a.f(b)``, still comes before ``b``).

C++ ``tensor * scalar`` is ``mul.Scalar``, ``scalar * tensor`` is ``tensor.mul(scalar)``,
``scalar - tensor`` is ``empty_like(t).fill_(scalar).sub_(t)`` (ATen's TensorOperators.h).
Where PyTorch branches on ``areAnyTensorSubclassLike`` (true while a dispatch mode is
active), the formulas branch the same way (``decompositions.is_tensor_subclass_like``).
The last section holds the double-backward formulas of backward ops PyTorch
differentiates (``tanh_backward``, ``gelu_backward``, ``_softmax_backward_data``, ...).
"""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes as _dt
from ..memory_format import preserve_format
from ..op_overload import namespace
from ..ops import composite as _decomp
from ..ops.meta_utils import broadcast_shapes
from .derivatives import _scaled, sum_backward, unsqueeze_multiple
from .function import derivative
from .grad_mode import is_grad_enabled

aten = namespace("aten")
_STRIDED = 0  # Layout code of torch.strided
_REDUCTION_MEAN = 1


def _subclass_like(*tensors: Any) -> bool:
    """``areAnyTensorSubclassLike``: a dispatch mode is active or a tensor carries the Python key."""
    return any(_decomp.is_tensor_subclass_like(t) for t in tensors if t is not None)


def _options(t: Any, dtype: Any = None) -> dict[str, Any]:
    """``t.options()`` as factory keyword arguments (``.dtype(...)`` replaces the dtype)."""
    return {"dtype": t._dtype if dtype is None else dtype, "layout": _STRIDED, "device": t._device}


def _zero_like_grad(grad: Any) -> Any:
    """``at::scalar_tensor(0., grad.options())``."""
    return aten.scalar_tensor.default(0.0, **_options(grad))


def _double_div(a: float, b: float) -> float:
    """C++ double division: dividing by zero gives inf / -inf / nan instead of raising."""
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _scalar_log(value: Any) -> float:
    """``Scalar::log()`` of a real scalar (std::log): -inf at 0, nan below 0."""
    x = float(value)
    if math.isnan(x) or x < 0:
        return math.nan
    return -math.inf if x == 0 else math.log(x)


def _rsub(scalar: Any, t: Any) -> Any:
    """C++ ``scalar - tensor``: ``empty_like(t, preserve_format).fill_(scalar).sub_(t)``."""
    out = aten.empty_like.default(t, memory_format=preserve_format)
    return aten.sub_.Tensor(aten.fill_.Scalar(out, scalar), t)


def _safe_size(sizes: tuple[int, ...], dims: Any) -> int:
    """``_safe_size``: the number of elements a reduction over ``dims`` combines (1 for a 0-dim input)."""
    if not sizes:
        return 1
    n = 1
    for d in dims:
        n *= sizes[d + len(sizes) if d < 0 else d]
    return n


# --- unary math -----------------------------------------------------------------------------------


@derivative("sqrt", "SqrtBackward0", ("self",), save_outputs=(0,))
def _sqrt(ctx, grads, needs):
    return (aten.div.Tensor(grads[0], aten.mul.Scalar(ctx.result, 2)),)


@derivative("rsqrt", "RsqrtBackward0", ("self",), save_outputs=(0,))
def _rsqrt(ctx, grads, needs):
    cube = aten.pow.Tensor_Scalar(ctx.result, 3)
    return (aten.mul.Tensor(aten.mul.Scalar(grads[0], -0.5), cube),)


@derivative("reciprocal", "ReciprocalBackward0", ("self",), save_outputs=(0,))
def _reciprocal(ctx, grads, needs):
    result = ctx.result  # unpacked once, as PyTorch's generated code does (a mode sees one aten.detach)
    square = aten.mul.Tensor(result, result)
    return (aten.mul.Tensor(aten.neg.default(grads[0]), square),)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@derivative("erf", "ErfBackward0", ("self",), save_inputs=("self",))
def _erf(ctx, grads, needs):
    gauss = aten.exp.default(aten.neg.default(aten.pow.Tensor_Scalar(ctx.self, 2)))
    return (aten.mul.Tensor(aten.mul.Scalar(gauss, _TWO_OVER_SQRT_PI), grads[0]),)


@derivative("abs", "AbsBackward0", ("self",), save_inputs=("self",))
def _abs(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.sgn.default(ctx.self)),)


@derivative("silu", "SiluBackward0", ("self",), save_inputs=("self",))
def _silu(ctx, grads, needs):
    """silu_backward, or (while building a graph for double backward) its formula written out."""
    g, x = grads[0], ctx.self
    if not is_grad_enabled():
        return (aten.silu_backward.default(g, x),)
    sigmoid = aten.sigmoid.default(x)
    inner = aten.add.Scalar(aten.mul.Tensor(x, _rsub(1.0, sigmoid)), 1.0)
    return (aten.mul.Tensor(aten.mul.Tensor(g, sigmoid), inner),)


# --- pow ------------------------------------------------------------------------------------------


def _pow_backward_exponent(grad: Any, self: Any, exponent: Any, result: Any) -> Any:
    """d(self ** exponent)/d exponent = result * log(self); 0 where self == 0 and exponent >= 0."""
    exponent_ge_0 = aten.ge.Scalar(exponent, 0)  # at::logical_and(self == 0, exponent >= 0), right to left
    cond = aten.logical_and.default(aten.eq.Scalar(self, 0), exponent_ge_0)
    promoted = _dt.result_type(self, exponent)
    base = aten.to.dtype(self, promoted)
    log_term = aten.mul.Tensor(result, aten.log.default(base))
    return aten.mul.Tensor(grad, aten.where.self(cond, _zero_like_grad(grad), log_term))


def _pow_backward_self(grad: Any, self: Any, exponent: Any) -> Any:
    """d(self ** exponent)/d self = exponent * self ** (exponent - 1); 0 where exponent == 0."""
    power = aten.pow.Tensor_Tensor(self, aten.sub.Scalar(exponent, 1))
    value = aten.mul.Tensor(grad, aten.mul.Tensor(exponent, power))
    zero = _zero_like_grad(grad)
    return aten.where.self(aten.eq.Scalar(exponent, 0.0), zero, value)


@derivative("pow.Tensor_Tensor", "PowBackward1", ("self", "exponent"), save_inputs=("self", "exponent"),
            save_outputs=(0,))
def _pow_tensor_tensor(ctx, grads, needs):
    g = grads[0]
    exponent = _pow_backward_exponent(g, ctx.self, ctx.exponent, ctx.result) if needs[1] else None
    return (_pow_backward_self(g, ctx.self, ctx.exponent) if needs[0] else None, exponent)


@derivative("pow.Scalar", "PowBackward2", ("exponent",), save_inputs=("self", "exponent"), save_outputs=(0,))
def _pow_scalar_base(ctx, grads, needs):
    """``pow_backward_exponent`` with a Scalar base: grad * result * log(base)."""
    g, base = grads[0], ctx.self
    log_term = aten.mul.Scalar(ctx.result, _scalar_log(base))
    if base == 0:
        zero = aten.zeros.default([], **_options(g))
        return (aten.mul.Tensor(g, aten.where.self(aten.ge.Scalar(ctx.exponent, 0), zero, log_term)),)
    return (aten.mul.Tensor(g, log_term),)


# --- binary selections: maximum / minimum / where / masked_fill ------------------------------------


def _select_backward(grad: Any, self: Any, other: Any, zero_where: Any) -> Any:
    """``where(self == other, grad / 2, grad).masked_fill_(zero_where(self, other), 0)``: ties share."""
    half = aten.div.Scalar(grad, 2)
    shared = aten.where.self(aten.eq.Tensor(self, other), half, grad)
    return aten.masked_fill_.Scalar(shared, zero_where(self, other), 0)


@derivative("maximum", "MaximumBackward0", ("self", "other"), save_inputs=("self", "other"))
def _maximum(ctx, grads, needs):
    g = grads[0]
    other = _select_backward(g, ctx.self, ctx.other, aten.gt.Tensor) if needs[1] else None
    return (_select_backward(g, ctx.self, ctx.other, aten.lt.Tensor) if needs[0] else None, other)


@derivative("minimum", "MinimumBackward0", ("self", "other"), save_inputs=("self", "other"))
def _minimum(ctx, grads, needs):
    g = grads[0]
    other = _select_backward(g, ctx.self, ctx.other, aten.lt.Tensor) if needs[1] else None
    return (_select_backward(g, ctx.self, ctx.other, aten.gt.Tensor) if needs[0] else None, other)


@derivative("where.self", "WhereBackward0", ("self", "other"), save_inputs=("condition",))
def _where(ctx, grads, needs):
    g = grads[0]
    other = aten.where.ScalarSelf(ctx.condition, 0, g) if needs[1] else None
    return (aten.where.ScalarOther(ctx.condition, g, 0) if needs[0] else None, other)


@derivative("masked_fill.Scalar", "MaskedFillBackward0", ("self",), save_inputs=("mask",))
def _masked_fill_scalar(ctx, grads, needs):
    return (aten.masked_fill.Scalar(grads[0], ctx.mask, 0),)


@derivative("masked_fill.Tensor", "MaskedFillBackward1", ("self", "value"), save_inputs=("mask",))
def _masked_fill_tensor(ctx, grads, needs):
    g, mask = grads[0], ctx.mask
    self = aten.masked_fill.Scalar(g, mask, 0) if needs[0] else None
    value = None
    if needs[1]:  # masked_fill_backward: the sum of the gradients at the filled positions
        if _subclass_like(g, mask):
            value = aten.sum.default(aten.where.ScalarOther(mask, g, 0))
        else:
            value = aten.sum.default(aten.masked_select.default(g, mask))
    return (self, value)


# --- clamp ----------------------------------------------------------------------------------------


@derivative("clamp", "ClampBackward1", ("self",), save_inputs=("self", "min", "max"))
def _clamp(ctx, grads, needs):
    """``clamp_backward``: the gradient passes where min <= self <= max (the bounds count as inside)."""
    g, x, lo, hi = grads[0], ctx.self, ctx.min, ctx.max
    if lo is None and hi is None:
        return (g,)
    zero = _zero_like_grad(g)
    if lo is not None and hi is not None:
        inside = aten.logical_and_.default(aten.ge.Scalar(x, lo), aten.le.Scalar(x, hi))
    elif lo is not None:
        inside = aten.ge.Scalar(x, lo)
    else:
        inside = aten.le.Scalar(x, hi)
    return (aten.where.self(inside, g, zero),)


def _logical(fn_out: Any, fn_inplace: Any, a: Any, b: Any, *tensors: Any) -> Any:
    """PyTorch's ``subclass-like ? a.op(b) : a.op_(b)`` pattern."""
    return fn_out(a, b) if _subclass_like(*tensors) else fn_inplace(a, b)


@derivative("clamp.Tensor", "ClampBackward0", ("self", "min", "max"), save_inputs=("self", "min", "max"))
def _clamp_tensor(ctx, grads, needs):
    g, x, lo, hi = grads[0], ctx.self, ctx.min, ctx.max
    and_, or_ = (aten.logical_and.default, aten.logical_and_.default), (aten.logical_or.default,
                                                                         aten.logical_or_.default)
    g_min = g_max = None
    if needs[1] or needs[2]:  # clamp_backward_min_max: a bound gets the gradient where it was the result
        zero = _zero_like_grad(g)
        if lo is not None and hi is not None:
            if needs[1]:
                pred = _logical(*and_, aten.lt.Tensor(x, lo), aten.lt.Tensor(lo, hi), x, lo, hi)
                g_min = aten.where.self(pred, g, zero)
            if needs[2]:
                pred = _logical(*or_, aten.gt.Tensor(x, hi), aten.lt.Tensor(hi, lo), x, lo, hi)
                g_max = aten.where.self(pred, g, zero)
        elif lo is not None and needs[1]:
            g_min = aten.where.self(aten.lt.Tensor(x, lo), g, zero)
        elif hi is not None and needs[2]:
            g_max = aten.where.self(aten.gt.Tensor(x, hi), g, zero)
    g_self = None
    if needs[0]:  # clamp_backward with tensor bounds
        if lo is not None and hi is not None:
            zero = _zero_like_grad(g)
            pred = _logical(*and_, aten.ge.Tensor(x, lo), aten.le.Tensor(x, hi), x, lo, hi)
            g_self = aten.where.self(pred, g, zero)
        elif lo is not None:
            zero = _zero_like_grad(g)
            g_self = aten.where.self(aten.ge.Tensor(x, lo), g, zero)
        elif hi is not None:
            zero = _zero_like_grad(g)
            g_self = aten.where.self(aten.le.Tensor(x, hi), g, zero)
        else:
            g_self = g
    return (g_self, g_min, g_max)


@derivative("clamp_min", "ClampMinBackward0", ("self",), save_inputs=("self", "min"))
def _clamp_min(ctx, grads, needs):
    zero = _zero_like_grad(grads[0])
    return (aten.where.self(aten.ge.Scalar(ctx.self, ctx.min), grads[0], zero),)


@derivative("clamp_max", "ClampMaxBackward0", ("self",), save_inputs=("self", "max"))
def _clamp_max(ctx, grads, needs):
    zero = _zero_like_grad(grads[0])
    return (aten.where.self(aten.le.Scalar(ctx.self, ctx.max), grads[0], zero),)


# --- division with rounding, scalar arithmetic ----------------------------------------------------


@derivative("div.Tensor_mode", "DivBackward2", ("self", "other"), save_inputs=("self", "other", "rounding_mode"))
def _div_mode(ctx, grads, needs):
    """Rounded division is piecewise constant: zero gradients (true division's otherwise)."""
    g, self, other, mode = grads[0], ctx.self, ctx.other, ctx.rounding_mode
    g_other = None
    if needs[1]:
        if mode is not None:
            g_other = aten.zeros_like.default(g, **_options(g, other._dtype))
        else:
            ratio = aten.div.Tensor(aten.div.Tensor(self, other), other)
            g_other = aten.mul.Tensor(aten.neg.default(g), ratio)
    g_self = None
    if needs[0]:
        if mode is not None:
            g_self = aten.zeros_like.default(g, **_options(g, self._dtype))
        else:
            g_self = aten.div.Tensor(g, other)
    return (g_self, g_other)


@derivative("baddbmm", "BaddbmmBackward0", ("self", "batch1", "batch2"),
            save_inputs=("batch1", "batch2", "beta", "alpha"))
def _baddbmm(ctx, grads, needs):
    g, alpha = grads[0], ctx.alpha
    b1 = _scaled(aten.bmm.default(g, aten.transpose.int(ctx.batch2, 1, 2)), alpha) if needs[1] else None
    b2 = _scaled(aten.bmm.default(aten.transpose.int(ctx.batch1, 1, 2), g), alpha) if needs[2] else None
    return (_scaled(g, ctx.beta) if needs[0] else None, b1, b2)


# --- reductions -----------------------------------------------------------------------------------


@derivative("mean.dim", "MeanBackward1", ("self",), save_inputs=("dim", "keepdim"), save_meta=("self",))
def _mean_dim(ctx, grads, needs):
    """``mean_backward``: the sum's backward divided by the number of elements averaged."""
    sizes, dims = ctx.self._shape, ctx.dim
    n = ctx.self.numel() if dims is None or len(dims) == 0 else _safe_size(sizes, dims)
    return (aten.div.Scalar(sum_backward(grads[0], sizes, dims, ctx.keepdim), n),)


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


# --- ops the formulas above call (added to the listing with them) --------------------------------------------


@derivative("sgn", "SgnBackward0", ("self",), save_inputs=("self",), save_outputs=(0,))
def _sgn(ctx, grads, needs):
    """``sgn_backward`` for real inputs: sgn is piecewise constant, a zero gradient (a ZeroTensor in PyTorch)."""
    result = ctx.result
    return (aten._efficientzerotensor.default(list(result._shape), **_options(result)),)


@derivative("sign", "SignBackward0", ("self",))
def _sign(ctx, grads, needs):
    """sign is piecewise constant: ``zeros_like(grad)``."""
    return (aten.zeros_like.default(grads[0]),)


@derivative("sub.Scalar", "SubBackward1", ("self",))
def _sub_scalar(ctx, grads, needs):
    return (grads[0],)


@derivative("masked_select", "MaskedSelectBackward0", ("self",), save_inputs=("self", "mask"))
def _masked_select(ctx, grads, needs):
    """``masked_select_backward``: the gradients scattered back into zeros shaped like self broadcast with mask."""
    g, x, mask = grads[0], ctx.self, ctx.mask
    zeros = aten.zeros_like.default(aten.expand.default(x, list(broadcast_shapes(x._shape, mask._shape))),
                                    memory_format=preserve_format)
    if _subclass_like(x, mask):
        return (aten.masked_scatter.default(zeros, mask, g),)
    aten.masked_scatter_.default(zeros, mask, g)
    return (zeros,)


@derivative("masked_scatter", "MaskedScatterBackward0", ("self", "source"), save_inputs=("mask",),
            save_meta=("source",))
def _masked_scatter(ctx, grads, needs):
    g, mask = grads[0], ctx.mask
    self = aten.masked_fill.Scalar(g, mask, 0) if needs[0] else None
    source = aten.masked_scatter_backward.default(g, mask, list(ctx.source._shape)) if needs[1] else None
    return (self, source)


@derivative("masked_scatter_backward", "MaskedScatterBackwardBackward0", ("grad_output",), save_inputs=("mask",),
            save_meta=("grad_output",))
def _masked_scatter_backward(ctx, grads, needs):
    """``zeros_like(grad_output).masked_scatter(mask, grad)`` (``zeros_like`` of an input is ``at::zeros``)."""
    go = ctx.grad_output
    zeros = aten.zeros.default(list(go._shape), **_options(go))
    return (aten.masked_scatter.default(zeros, ctx.mask, grads[0]),)


@derivative("gather", "GatherBackward0", ("self",), save_inputs=("self", "dim", "index", "sparse_grad"))
def _gather(ctx, grads, needs):
    return (aten.gather_backward.default(grads[0], ctx.self, ctx.dim, ctx.index, ctx.sparse_grad),)


@derivative("scatter.src", "ScatterBackward0", ("self", "src"), save_inputs=("dim", "index"))
def _scatter_src(ctx, grads, needs):
    g = grads[0]
    self = aten.scatter.value(g, ctx.dim, ctx.index, 0) if needs[0] else None
    src = aten.gather.default(g, ctx.dim, ctx.index) if needs[1] else None
    return (self, src)


@derivative("scatter.value", "ScatterBackward1", ("self",), save_inputs=("dim", "index"))
def _scatter_value(ctx, grads, needs):
    return (aten.scatter.value(grads[0], ctx.dim, ctx.index, 0),)


@derivative("scatter_add", "ScatterAddBackward0", ("self", "src"), save_inputs=("dim", "index"))
def _scatter_add(ctx, grads, needs):
    g = grads[0]
    return (g if needs[0] else None, aten.gather.default(g, ctx.dim, ctx.index) if needs[1] else None)


@derivative("silu_backward", "NotImplemented", ("grad_output", "self"))
def _silu_backward(ctx, grads, needs):
    """PyTorch has no formula for silu_backward: its node is ``NotImplemented``, which fails when backward reaches it."""
    raise RuntimeError("derivative for aten::silu_backward is not implemented")


@derivative("cosh", "CoshBackward0", ("self",), save_inputs=("self",))
def _cosh(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.sinh.default(ctx.self)),)


@derivative("sinh", "SinhBackward0", ("self",), save_inputs=("self",))
def _sinh(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.cosh.default(ctx.self)),)


# --- double backward: the backward ops PyTorch differentiates -------------------------------------------------


def _rdiv(scalar: Any, t: Any) -> Any:
    """C++ ``scalar / tensor``: ``empty_like(t, preserve_format).fill_(scalar).div_(t)``."""
    out = aten.empty_like.default(t, memory_format=preserve_format)
    return aten.div_.Tensor(aten.fill_.Scalar(out, scalar), t)


@derivative("tanh_backward", "TanhBackwardBackward0", ("grad_output", "output"),
            save_inputs=("grad_output", "output"))
def _tanh_backward(ctx, grads, needs):
    g = grads[0]
    g_out = aten.tanh_backward.default(g, ctx.output) if needs[0] else None
    g_output = None
    if needs[1]:  # grad * (-2 * output * grad_output)
        g_output = aten.mul.Tensor(g, aten.mul.Tensor(aten.mul.Scalar(ctx.output, -2), ctx.grad_output))
    return (g_out, g_output)


@derivative("sigmoid_backward", "SigmoidBackwardBackward0", ("grad_output", "output"),
            save_inputs=("grad_output", "output"))
def _sigmoid_backward(ctx, grads, needs):
    g = grads[0]
    g_out = aten.sigmoid_backward.default(g, ctx.output) if needs[0] else None
    g_output = None
    if needs[1]:  # grad * grad_output * (-2 * output + 1)
        slope = aten.add.Scalar(aten.mul.Scalar(ctx.output, -2), 1)
        g_output = aten.mul.Tensor(aten.mul.Tensor(g, ctx.grad_output), slope)
    return (g_out, g_output)


@derivative("threshold_backward", "ThresholdBackwardBackward0", ("grad_output", "self"),
            save_inputs=("self", "threshold"))
def _threshold_backward(ctx, grads, needs):
    g = grads[0]
    g_out = aten.threshold_backward.default(g, ctx.self, ctx.threshold) if needs[0] else None
    return (g_out, aten.zeros_like.default(g) if needs[1] else None)


# math.h's constants (as doubles), combined as FunctionsManual.cpp combines them
_M_SQRT2, _M_SQRT1_2, _M_2_SQRTPI = 1.4142135623730951, 0.7071067811865476, 1.1283791670955126
_GELU_BETA_TANH = _M_SQRT2 * _M_2_SQRTPI * 0.5
_GELU_BETA = _M_2_SQRTPI * _M_SQRT1_2 * 0.5
_GELU_KAPPA = 0.044715


def _gelu_double_backward(ggI: Any, gO: Any, x: Any, approximate: str) -> Any:  # noqa: N803 - PyTorch's names
    """d/dx of gelu_backward(gO, x) = gO * gelu'(x), times ggI: gelu''(x) written out with aten ops."""
    if approximate == "tanh":
        beta, kappa = _GELU_BETA_TANH, _GELU_KAPPA
        inner = aten.mul.Scalar(aten.add.Tensor(x, aten.mul.Scalar(aten.pow.Tensor_Scalar(x, 3), kappa)), beta)
        tanh_inner = aten.tanh.default(inner)
        sech_inner = _rdiv(1, aten.cosh.default(inner))
        f = aten.mul.Scalar(x, 0.5)
        g = _rsub(1, aten.mul.Tensor(tanh_inner, tanh_inner))
        h = aten.mul.Scalar(aten.add.Scalar(aten.mul.Tensor(aten.mul.Scalar(x, 3 * kappa), x), 1), beta)
        f_prime_gh = aten.mul.Tensor(aten.mul.Scalar(g, 0.5), h)
        sech_tanh = aten.mul.Tensor(aten.neg.default(sech_inner), tanh_inner)
        g_prime = aten.mul.Tensor(aten.mul.Tensor(aten.mul.Scalar(sech_inner, 2), sech_tanh), h)
        g_prime_fh = aten.mul.Tensor(aten.mul.Tensor(f, h), g_prime)
        h_prime = aten.mul.Scalar(aten.mul.Scalar(x, 6 * kappa), beta)
        h_prime_fg = aten.mul.Tensor(aten.mul.Tensor(f, g), h_prime)
        total = aten.add.Tensor(aten.add.Tensor(aten.mul.Scalar(f_prime_gh, 2), g_prime_fh), h_prime_fg)
        return aten.mul.Tensor(aten.mul.Tensor(ggI, gO), total)
    x_sq = aten.mul.Tensor(x, x)
    pdf = aten.mul.Scalar(aten.exp.default(aten.mul.Scalar(x_sq, -0.5)), _GELU_BETA)
    sq_pdf = aten.mul.Tensor(x_sq, pdf)  # 2 * pdf - x_sq * pdf, right operand first
    dgrad = aten.sub.Tensor(aten.mul.Scalar(pdf, 2), sq_pdf)
    return aten.mul.Tensor(aten.mul.Tensor(ggI, gO), dgrad)


@derivative("gelu_backward", "GeluBackwardBackward0", ("grad_output", "self"),
            save_inputs=("grad_output", "self", "approximate"))
def _gelu_backward(ctx, grads, needs):
    g, approximate = grads[0], ctx.approximate
    g_out = None
    if needs[0]:
        kw = {} if approximate == "none" else {"approximate": approximate}
        g_out = aten.gelu_backward.default(g, ctx.self, **kw)
    g_self = _gelu_double_backward(g, ctx.grad_output, ctx.self, approximate) if needs[1] else None
    return (g_out, g_self)


def _mse_loss_double_backward(grad: Any, input: Any, reduction: int) -> Any:  # noqa: A002 - PyTorch's name
    """2 * grad (divided in place by the element count for a mean)."""
    out = aten.mul.Scalar(grad, 2)
    if reduction == _REDUCTION_MEAN:
        aten.div_.Scalar(out, input.numel())
    return out


@derivative("mse_loss_backward", "MseLossBackwardBackward0", ("grad_output", "self", "target"),
            save_inputs=("grad_output", "self", "target", "reduction"))
def _mse_loss_backward(ctx, grads, needs):
    g, reduction = grads[0], ctx.reduction
    g_out = aten.mse_loss_backward.default(g, ctx.self, ctx.target, reduction) if needs[0] else None
    g_self = None
    if needs[1]:
        g_self = _mse_loss_double_backward(aten.mul.Tensor(g, ctx.grad_output), ctx.self, reduction)
    g_target = None
    if needs[2]:
        g_target = aten.neg.default(
            _mse_loss_double_backward(aten.mul.Tensor(g, ctx.grad_output), ctx.target, reduction))
    return (g_out, g_self, g_target)


@derivative("_softmax_backward_data", "SoftmaxBackwardDataBackward0", ("grad_output", "output"),
            save_inputs=("grad_output", "output", "dim", "input_dtype"))
def _softmax_backward_data(ctx, grads, needs):
    out, dim = ctx.output, ctx.dim
    g_out = None
    if needs[0]:
        g_out = aten._softmax_backward_data.default(aten.to.dtype(grads[0], out._dtype), out, dim, ctx.input_dtype)
    g_output = None
    if needs[1]:  # softmax_double_backward: go * g - sum(out * go) * g - go * sum(out * g)
        go = ctx.grad_output
        g = aten.to.dtype(grads[0], out._dtype)
        last = aten.mul.Tensor(go, aten.sum.dim_IntList(aten.mul.Tensor(out, g), [dim], True))
        middle = aten.mul.Tensor(aten.sum.dim_IntList(aten.mul.Tensor(out, go), [dim], True), g)
        first = aten.sub.Tensor(aten.mul.Tensor(go, g), middle)
        g_output = aten.to.dtype(aten.sub.Tensor(first, last), out._dtype)
    return (g_out, g_output)


@derivative("_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", ("grad_output", "output"),
            save_inputs=("grad_output", "output", "dim"))
def _log_softmax_backward_data(ctx, grads, needs):
    out, dim = ctx.output, ctx.dim
    g_out = None
    if needs[0]:  # g - sum(g * exp(output))
        exp = aten.exp.default(out)
        total = aten.sum.dim_IntList(aten.mul.Tensor(aten.to.dtype(grads[0], out._dtype), exp), [dim], True)
        g_out = aten.sub.Tensor(aten.to.dtype(grads[0], out._dtype), total)
    g_output = None
    if needs[1]:  # -sum(grad_output) * exp(output) * g
        g = aten.to.dtype(grads[0], out._dtype)
        exp = aten.exp.default(out)
        scaled = aten.mul.Tensor(aten.neg.default(aten.sum.dim_IntList(ctx.grad_output, [dim], True)), exp)
        g_output = aten.to.dtype(aten.mul.Tensor(scaled, g), out._dtype)
    return (g_out, g_output)
