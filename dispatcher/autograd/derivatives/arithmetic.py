"""Derivative formulas of the arithmetic ops: ``add`` / ``sub`` / ``rsub`` / ``mul`` / ``div`` (rounded division
too), ``neg``, ``pow``, ``reciprocal`` / ``abs`` / ``sgn`` / ``sign``, rounding, ``clamp`` and its variants,
``fmod`` / ``remainder`` / ``floor_divide``, ``addcmul`` / ``addcdiv``, ``lerp``, ``nan_to_num``, and their
in-place forms.

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call (``pow_backward``, ``pow_backward_self``, ``pow_backward_exponent``, ``clamp_backward``,
``clamp_backward_min_max``, ``maybe_multiply``). ``lerp``: ``grad * weight`` for end, ``grad * (1 - weight)``
for self, ``grad * (end - self)`` for a tensor weight (end, self, weight: alphabetical order); ``lerp_`` uses
them with self's value from before the op. Rounding is piecewise constant (zero gradients); ``floor_divide``
has no formula in PyTorch (its node fails when backward reaches it).
"""

from __future__ import annotations

import math
from typing import Any

from ... import dtypes as _dt
from ...memory_format import preserve_format
from ...op_overload import namespace
from ..function import derivative
from .cpp_idioms import _conj, _handle_r_to_c, _options, _rsub, _scaled, _subclass_like
from .inplace_formulas import inplace_of
from .not_implemented import register_not_implemented

aten = namespace("aten")
_CONTIGUOUS_FORMAT = 0  # MemoryFormat code of torch.contiguous_format (LEGACY_CONTIGUOUS_MEMORY_FORMAT)


def _zero_like_grad(grad: Any) -> Any:
    """``at::scalar_tensor(0., grad.options())``."""
    return aten.scalar_tensor.default(0.0, **_options(grad))


# --- add, sub, rsub, mul, div, neg ----------------------------------------------------------------

@derivative("add.Tensor", "AddBackward0", ("self", "other"), save_inputs=("alpha",))
def _add(ctx, grads, needs):
    g = grads[0]
    other = _scaled(g, ctx.alpha) if needs[1] else None
    return (g if needs[0] else None, other)


inplace_of("add_.Tensor", "add.Tensor")


@derivative("add.Scalar", "AddBackward1", ("self",))
def _add_scalar(ctx, grads, needs):
    return (grads[0],)


inplace_of("add_.Scalar", "add.Scalar")


@derivative("sub.Tensor", "SubBackward0", ("self", "other"), save_inputs=("alpha",))
def _sub(ctx, grads, needs):
    g = grads[0]
    other = _scaled(aten.neg.default(g), ctx.alpha) if needs[1] else None
    return (g if needs[0] else None, other)


inplace_of("sub_.Tensor", "sub.Tensor")


@derivative("sub.Scalar", "SubBackward1", ("self",))
def _sub_scalar(ctx, grads, needs):
    return (grads[0],)


@derivative("rsub.Scalar", "RsubBackward1", ("self",), save_inputs=("alpha",))
def _rsub_scalar(ctx, grads, needs):
    return (_scaled(aten.neg.default(grads[0]), ctx.alpha),)


@derivative("mul.Tensor", "MulBackward0", ("self", "other"), save_inputs=("self", "other"))
def _mul(ctx, grads, needs):
    # mul_tensor_backward: grad * other.conj() (conj: nothing for real tensors), real part for a real input
    g = grads[0]
    other = None
    if needs[1]:  # (saved tensors are read in the order the previous formula read them: self, then other)
        other = aten.mul.Tensor(g, _conj(ctx.self))
    grad_self = aten.mul.Tensor(g, _conj(ctx.other)) if needs[0] else None
    if other is not None:
        other = _handle_r_to_c(ctx.other._dtype, other)
    if grad_self is not None and needs[1]:  # (self is saved only then; otherwise validate_outputs casts)
        grad_self = _handle_r_to_c(ctx.self._dtype, grad_self)
    return (grad_self, other)


inplace_of("mul_.Tensor", "mul.Tensor", clone_self_for=(1,))  # other's gradient is grad * original self


@derivative("mul.Scalar", "MulBackward1", ("self",), save_inputs=("other",))
def _mul_scalar(ctx, grads, needs):
    return (aten.mul.Scalar(grads[0], ctx.other),)


inplace_of("mul_.Scalar", "mul.Scalar")


@derivative("div.Tensor", "DivBackward0", ("self", "other"), save_inputs=("self", "other"))
def _div(ctx, grads, needs):
    g = grads[0]
    go = None
    if needs[1]:  # -grad * ((self / other) / other): the right operand is evaluated first
        ratio = aten.div.Tensor(aten.div.Tensor(ctx.self, ctx.other), ctx.other)
        go = aten.mul.Tensor(aten.neg.default(g), ratio)
    gs = aten.div.Tensor(g, ctx.other) if needs[0] else None
    return (gs, go)


inplace_of("div_.Tensor", "div.Tensor", clone_self_for=(1,))


@derivative("div.Scalar", "DivBackward1", ("self",), save_inputs=("other",))
def _div_scalar(ctx, grads, needs):
    return (aten.div.Scalar(grads[0], ctx.other),)


inplace_of("div_.Scalar", "div.Scalar")


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


@derivative("div.Scalar_mode", "DivBackward3", ("self",), save_inputs=("other", "rounding_mode"), save_meta=("self",))
def _div_scalar_mode(ctx, grads, needs):
    """div_tensor_self_backward with a number divisor: zeros of self's dtype when rounded, else ``grad / other``."""
    if ctx.rounding_mode is not None:
        return (aten.zeros_like.default(grads[0], **_options(grads[0], ctx.self._dtype)),)
    return (aten.div.Scalar(grads[0], ctx.other),)


inplace_of("div_.Tensor_mode", "div.Tensor_mode", clone_self_for=(1,))
inplace_of("div_.Scalar_mode", "div.Scalar_mode")
inplace_of("sub_.Scalar", "sub.Scalar")


@derivative("rsub.Tensor", "RsubBackward0", ("self", "other"), save_inputs=("alpha",))
def _rsub_tensor(ctx, grads, needs):
    """other: ``grad``; self: ``-grad * alpha`` (maybe_multiply), in the formulas' alphabetical order."""
    g = grads[0]
    g_self = _scaled(aten.neg.default(g), ctx.alpha) if needs[0] else None
    return (g_self, g if needs[1] else None)


@derivative("neg", "NegBackward0", ("self",))
def _neg(ctx, grads, needs):
    return (aten.neg.default(grads[0]),)


inplace_of("neg_", "neg")


# --- pow ------------------------------------------------------------------------------------------

@derivative("pow.Tensor_Scalar", "PowBackward0", ("self",), save_inputs=("self", "exponent"))
def _pow_scalar(ctx, grads, needs):
    """``pow_backward``: grad * (exponent * self.pow(exponent - 1)), the exponent as a C++ double."""
    e = ctx.exponent
    if e == 0:
        return (aten.zeros_like.default(ctx.self, memory_format=_CONTIGUOUS_FORMAT),)
    e = complex(e) if isinstance(e, complex) else float(e)
    return (aten.mul.Tensor(grads[0], aten.mul.Scalar(aten.pow.Tensor_Scalar(ctx.self, e - 1), e)),)


inplace_of("pow_.Scalar", "pow.Tensor_Scalar", clone_self_for=(0,))


def _scalar_log(value: Any) -> float:
    """``Scalar::log()`` of a real scalar (std::log): -inf at 0, nan below 0."""
    x = float(value)
    if math.isnan(x) or x < 0:
        return math.nan
    return -math.inf if x == 0 else math.log(x)


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


# --- reciprocal, abs, sgn, sign -------------------------------------------------------------------

@derivative("reciprocal", "ReciprocalBackward0", ("self",), save_outputs=(0,))
def _reciprocal(ctx, grads, needs):
    result = ctx.result  # unpacked once, as PyTorch's generated code does (a mode sees one aten.detach)
    square = aten.mul.Tensor(result, result)
    return (aten.mul.Tensor(aten.neg.default(grads[0]), square),)


@derivative("abs", "AbsBackward0", ("self",), save_inputs=("self",))
def _abs(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.sgn.default(ctx.self)),)


inplace_of("abs_", "abs", clone_self_for=(0,))


@derivative("sgn", "SgnBackward0", ("self",), save_inputs=("self",), save_outputs=(0,))
def _sgn(ctx, grads, needs):
    """``sgn_backward`` for real inputs: sgn is piecewise constant, a zero gradient (a ZeroTensor in PyTorch)."""
    result = ctx.result
    return (aten._efficientzerotensor.default(list(result._shape), **_options(result)),)


@derivative("sign", "SignBackward0", ("self",))
def _sign(ctx, grads, needs):
    """sign is piecewise constant: ``zeros_like(grad)``."""
    return (aten.zeros_like.default(grads[0]),)


# --- rounding, frac -------------------------------------------------------------------------------

def _zeros_like_grad(node: str, op: str) -> None:
    @derivative(op, node, ("self",))
    def backward(ctx, grads, needs):
        return (aten.zeros_like.default(grads[0]),)


for _op, _node in (("floor", "FloorBackward0"), ("ceil", "CeilBackward0"), ("round", "RoundBackward0"),
                   ("trunc", "TruncBackward0"), ("round.decimals", "RoundBackward1")):
    _zeros_like_grad(_node, _op)
del _op, _node


@derivative("frac", "FracBackward0", ("self",))
def _frac(ctx, grads, needs):
    return (grads[0],)


inplace_of("frac_", "frac")


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


inplace_of("clamp_", "clamp", clone_self_for=(0,))


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


inplace_of("clamp_.Tensor", "clamp.Tensor", clone_self_for=(0, 1, 2))


@derivative("clamp_min", "ClampMinBackward0", ("self",), save_inputs=("self", "min"))
def _clamp_min(ctx, grads, needs):
    zero = _zero_like_grad(grads[0])
    return (aten.where.self(aten.ge.Scalar(ctx.self, ctx.min), grads[0], zero),)


inplace_of("clamp_min_", "clamp_min", clone_self_for=(0,))


@derivative("clamp_max", "ClampMaxBackward0", ("self",), save_inputs=("self", "max"))
def _clamp_max(ctx, grads, needs):
    zero = _zero_like_grad(grads[0])
    return (aten.where.self(aten.le.Scalar(ctx.self, ctx.max), grads[0], zero),)


def _where_zero(mask_fn: Any, grad: Any) -> Any:
    """``where(mask, grad, at::scalar_tensor(0., grad.options()))``: C++ evaluates the arguments right to left, so
    the zero is made before the mask."""
    zero = _zero_like_grad(grad)
    return aten.where.self(mask_fn(), grad, zero)


@derivative("clamp_min.Tensor", "ClampMinBackward1", ("self", "min"), save_inputs=("self", "min"))
def _clamp_min_tensor(ctx, grads, needs):
    """min gets the gradient where it won (self < min), self where it did not (computed in that order)."""
    g, x, lo = grads[0], ctx.self, ctx.min
    g_min = _where_zero(lambda: aten.lt.Tensor(x, lo), g) if needs[1] else None
    g_self = _where_zero(lambda: aten.ge.Tensor(x, lo), g) if needs[0] else None
    return (g_self, g_min)


inplace_of("clamp_min_.Tensor", "clamp_min.Tensor", clone_self_for=(0, 1))


@derivative("clamp_max.Tensor", "ClampMaxBackward1", ("self", "max"), save_inputs=("self", "max"))
def _clamp_max_tensor(ctx, grads, needs):
    g, x, hi = grads[0], ctx.self, ctx.max
    g_max = _where_zero(lambda: aten.gt.Tensor(x, hi), g) if needs[1] else None
    g_self = _where_zero(lambda: aten.le.Tensor(x, hi), g) if needs[0] else None
    return (g_self, g_max)


# --- fmod, remainder, floor_divide ----------------------------------------------------------------

def _modulo_tensor(op: str, node: str, rounding_mode: str) -> None:
    @derivative(op, node, ("self", "other"), save_inputs=("self", "other"))
    def backward(ctx, grads, needs):
        """self: grad; other: ``-grad * self.div(other, rounding_mode)`` (other first, as PyTorch orders them)."""
        g = grads[0]
        g_other = None
        if needs[1]:
            quotient = aten.div.Tensor_mode(ctx.self, ctx.other, rounding_mode=rounding_mode)
            g_other = aten.mul.Tensor(aten.neg.default(g), quotient)
        return (g if needs[0] else None, g_other)


_modulo_tensor("fmod.Tensor", "FmodBackward1", "trunc")
_modulo_tensor("remainder.Tensor", "RemainderBackward1", "floor")


@derivative("fmod.Scalar", "FmodBackward0", ("self",))
def _fmod_scalar(ctx, grads, needs):
    return (grads[0],)


@derivative("remainder.Scalar", "RemainderBackward0", ("self",))
def _remainder_scalar(ctx, grads, needs):
    return (grads[0],)


@derivative("remainder.Scalar_Tensor", "NotImplemented", ("other",))
def _remainder_scalar_tensor(ctx, grads, needs):
    """PyTorch has no formula for a Scalar dividend: its node fails when backward reaches it."""
    raise RuntimeError("derivative for aten::remainder is not implemented")


inplace_of("fmod_.Tensor", "fmod.Tensor", clone_self_for=(1,))
inplace_of("remainder_.Tensor", "remainder.Tensor", clone_self_for=(1,))
inplace_of("fmod_.Scalar", "fmod.Scalar")
inplace_of("remainder_.Scalar", "remainder.Scalar")


for _op, _inputs in (("floor_divide", ("self", "other")), ("floor_divide.Scalar", ("self",)),
                     ("floor_divide_.Tensor", ("self", "other")), ("floor_divide_.Scalar", ("self",))):
    register_not_implemented(_op, _inputs, _op.split(".")[0])
del _op, _inputs


# --- addcmul, addcdiv, lerp, nan_to_num -----------------------------------------------------------

def _rdiv_scalar_tensor(scalar: Any, t: Any) -> Any:
    """C++ ``Scalar / Tensor``: ``empty_like(t, preserve_format).fill_(scalar).div_(t)``."""
    filled = aten.fill_.Scalar(aten.empty_like.default(t, memory_format=preserve_format), scalar)
    return aten.div_.Tensor(filled, t)


@derivative("addcmul", "AddcmulBackward0", ("self", "tensor1", "tensor2"),
            save_inputs=("tensor1", "tensor2", "value"))
def _addcmul(ctx, grads, needs):
    g, v = grads[0], ctx.value
    g1 = aten.mul.Tensor(g, aten.mul.Scalar(ctx.tensor2, v)) if needs[1] else None
    g2 = aten.mul.Tensor(g, aten.mul.Scalar(ctx.tensor1, v)) if needs[2] else None
    return (g if needs[0] else None, g1, g2)


@derivative("addcdiv", "AddcdivBackward0", ("self", "tensor1", "tensor2"),
            save_inputs=("tensor1", "tensor2", "value"))
def _addcdiv(ctx, grads, needs):
    """tensor1: ``grad * (value / tensor2)``; tensor2: ``-grad * ((tensor1 * value) / (tensor2 * tensor2))``."""
    g, v, t1, t2 = grads[0], ctx.value, ctx.tensor1, ctx.tensor2
    g1 = aten.mul.Tensor(g, _rdiv_scalar_tensor(v, t2)) if needs[1] else None
    g2 = None
    if needs[2]:
        square = aten.mul.Tensor(t2, t2)
        ratio = aten.div.Tensor(aten.mul.Scalar(t1, v), square)
        g2 = aten.mul.Tensor(aten.neg.default(g), ratio)
    return (g if needs[0] else None, g1, g2)


inplace_of("addcmul_", "addcmul")
inplace_of("addcdiv_", "addcdiv")


@derivative("lerp.Scalar", "LerpBackward0", ("self", "end"), save_inputs=("weight",))
def _lerp_scalar(ctx, grads, needs):
    g = grads[0]
    g_end = aten.mul.Scalar(g, ctx.weight) if needs[1] else None
    g_self = aten.mul.Scalar(g, 1 - float(ctx.weight)) if needs[0] else None
    return (g_self, g_end)


@derivative("lerp.Tensor", "LerpBackward1", ("self", "end", "weight"), save_inputs=("self", "end", "weight"))
def _lerp_tensor(ctx, grads, needs):
    g = grads[0]
    g_end = aten.mul.Tensor(g, ctx.weight) if needs[1] else None
    g_self = aten.mul.Tensor(g, _rsub(1, ctx.weight)) if needs[0] else None
    g_weight = aten.mul.Tensor(g, aten.sub.Tensor(ctx.end, ctx.self)) if needs[2] else None
    return (g_self, g_end, g_weight)


inplace_of("lerp_.Scalar", "lerp.Scalar")
inplace_of("lerp_.Tensor", "lerp.Tensor", clone_self_for=(2,))  # weight's gradient reads the original self


@derivative("nan_to_num", "NanToNumBackward0", ("self",), save_inputs=("self",))
def _nan_to_num(ctx, grads, needs):
    """grad * at::isfinite(self)."""
    return (aten.mul.Tensor(grads[0], aten.isfinite.default(ctx.self)),)


inplace_of("nan_to_num_", "nan_to_num", clone_self_for=(0,))
