"""Derivative formulas for the ops of the pw batch (unary and binary math, in-place modulo, floor_divide, ...).

Same conventions as derivatives.py: formulas are written with aten ops, named and shaped as
the entries of PyTorch's derivatives.yaml / FunctionsManual.cpp (``atan2_backward``,
``logit_backward``, ...), the inputs' gradients computed in the alphabetical order of their
names and C++ operands evaluated right to left, so traced backward graphs match PyTorch's op
for op. An in-place op takes its out-of-place entry's formula (derivatives_inplace.inplace_of).
The bitwise, logical and shift ops and ``signbit`` give integral or bool results: they need
no formula. ``floor_divide`` and ``heaviside`` have none in PyTorch either: their node fails
when backward reaches it.
"""

from __future__ import annotations

import math
from typing import Any

from ..memory_format import preserve_format
from ..op_overload import namespace
from . import derivatives, derivatives_inplace, derivatives_math, derivatives_more_a  # noqa: F401 - entries used below
from .derivatives_inplace import inplace_of
from .derivatives_math import _options
from .function import derivative
from .grad_mode import is_grad_enabled

aten = namespace("aten")

_LN2 = 0.6931471805599453
_LN10 = 2.3025850929940455  # (M_LN10 as PyTorch's formula passes it)
_HALF_SQRT_PI = 0.8862269254527579


def _rsub_scalar(scalar: Any, t: Any) -> Any:
    """C++ ``scalar - tensor``: ``empty_like(t, preserve_format).fill_(scalar).sub_(t)``."""
    out = aten.empty_like.default(t, memory_format=preserve_format)
    return aten.sub_.Tensor(aten.fill_.Scalar(out, scalar), t)


# --- unary ------------------------------------------------------------------------------------------------------------


@derivative("tan", "TanBackward0", ("self",), save_outputs=(0,))
def _tan(ctx, grads, needs):
    """grad * (1 + result.pow(2))."""
    return (aten.mul.Tensor(grads[0], aten.add.Scalar(aten.pow.Tensor_Scalar(ctx.result, 2), 1)),)


def _one_minus_square_rsqrt(x: Any) -> Any:
    """``(-self * self + 1).rsqrt()``."""
    return aten.rsqrt.default(aten.add.Scalar(aten.mul.Tensor(aten.neg.default(x), x), 1))


@derivative("asin", "AsinBackward0", ("self",), save_inputs=("self",))
def _asin(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], _one_minus_square_rsqrt(ctx.self)),)


@derivative("acos", "AcosBackward0", ("self",), save_inputs=("self",))
def _acos(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.neg.default(_one_minus_square_rsqrt(ctx.self))),)


@derivative("atan", "AtanBackward0", ("self",), save_inputs=("self",))
def _atan(ctx, grads, needs):
    """grad / (self * self + 1)."""
    return (aten.div.Tensor(grads[0], aten.add.Scalar(aten.mul.Tensor(ctx.self, ctx.self), 1)),)


@derivative("log10", "Log10Backward0", ("self",), save_inputs=("self",))
def _log10(ctx, grads, needs):
    return (aten.div.Tensor(grads[0], aten.mul.Scalar(ctx.self, _LN10)),)


@derivative("exp2", "Exp2Backward0", ("self",), save_outputs=(0,))
def _exp2(ctx, grads, needs):
    """grad * result * ln 2."""
    return (aten.mul.Scalar(aten.mul.Tensor(grads[0], ctx.result), _LN2),)


@derivative("erfinv", "ErfinvBackward0", ("self",), save_inputs=("self",))
def _erfinv(ctx, grads, needs):
    """0.5 * sqrt(pi) * exp(self.erfinv().pow(2)) * grad."""
    scale = aten.exp.default(aten.pow.Tensor_Scalar(aten.erfinv.default(ctx.self), 2))
    return (aten.mul.Tensor(aten.mul.Scalar(scale, _HALF_SQRT_PI), grads[0]),)


@derivative("frac", "FracBackward0", ("self",))
def _frac(ctx, grads, needs):
    return (grads[0],)


@derivative("asinh", "AsinhBackward0", ("self",), save_inputs=("self",))
def _asinh(ctx, grads, needs):
    """grad * (self.pow(2) + 1).rsqrt()."""
    return (aten.mul.Tensor(grads[0], aten.rsqrt.default(aten.add.Scalar(aten.pow.Tensor_Scalar(ctx.self, 2), 1))),)


@derivative("acosh", "AcoshBackward0", ("self",), save_inputs=("self",))
def _acosh(ctx, grads, needs):
    """grad * (self * self - 1).rsqrt()."""
    return (aten.mul.Tensor(grads[0], aten.rsqrt.default(aten.sub.Scalar(aten.mul.Tensor(ctx.self, ctx.self), 1))),)


@derivative("atanh", "AtanhBackward0", ("self",), save_inputs=("self",))
def _atanh(ctx, grads, needs):
    """grad * 1 / (1 - self.pow(2)): the divisor first, then ``grad * 1``."""
    divisor = _rsub_scalar(1, aten.pow.Tensor_Scalar(ctx.self, 2))
    return (aten.div.Tensor(aten.mul.Scalar(grads[0], 1), divisor),)


@derivative("logit", "LogitBackward0", ("self",), save_inputs=("self", "eps"))
def _logit(ctx, grads, needs):
    """``logit_backward(grad, self, eps)``; with grad mode on (create_graph), the same formula written with
    differentiable ops (``infinitely_differentiable_logit_backward``)."""
    g, x, eps = grads[0], ctx.self, ctx.eps
    if not is_grad_enabled():
        return (aten.logit_backward.default(g, x) if eps is None else aten.logit_backward.default(g, x, eps),)
    lo, hi = (0, 1) if eps is None else (eps, 1.0 - eps)
    if eps is None:
        outside = aten.fill_.Scalar(aten.empty.memory_format([], **_options(x)), math.nan)
    else:
        outside = aten.zeros.default([], **_options(x))
    value = aten.div.Tensor(g, aten.mul.Tensor(x, _rsub_scalar(1, x)))
    inside = aten.logical_and.default(aten.ge.Scalar(x, lo), aten.le.Scalar(x, hi))
    return (aten.where.self(inside, value, outside),)


@derivative("nan_to_num", "NanToNumBackward0", ("self",), save_inputs=("self",))
def _nan_to_num(ctx, grads, needs):
    """grad * at::isfinite(self)."""
    return (aten.mul.Tensor(grads[0], aten.isfinite.default(ctx.self)),)


# --- binary -----------------------------------------------------------------------------------------------------------


@derivative("atan2", "Atan2Backward0", ("self", "other"), save_inputs=("self", "other"))
def _atan2(ctx, grads, needs):
    """atan2_backward: ``recip = (self*self + other*other).reciprocal()`` zeroed where the sum is 0 (in place
    unless a tensor is subclass-like, i.e. a dispatch mode is active); self:
    ``grad * other * recip``, other: ``grad * -self * recip``."""
    g, x, y = grads[0], ctx.self, ctx.other
    yy = aten.mul.Tensor(y, y)  # (right operand first)
    denominator = aten.add.Tensor(aten.mul.Tensor(x, x), yy)
    recip = aten.reciprocal.default(denominator)
    mask = aten.eq.Scalar(denominator, 0)
    if derivatives_math._subclass_like(recip):  # (a dispatch mode is active: out of place)
        recip = aten.masked_fill.Scalar(recip, mask, 0)
    else:
        aten.masked_fill_.Scalar(recip, mask, 0)
    g_self = aten.mul.Tensor(aten.mul.Tensor(g, y), recip) if needs[0] else None
    g_other = aten.mul.Tensor(aten.mul.Tensor(g, aten.neg.default(x)), recip) if needs[1] else None
    return (g_self, g_other)


@derivative("hypot", "HypotBackward0", ("self", "other"), save_inputs=("self", "other"), save_outputs=(0,))
def _hypot(ctx, grads, needs):
    """other: grad * other / result; self: grad * self / result (other first)."""
    g, result = grads[0], ctx.result  # (the saved result is unpacked once, before the formulas run)
    g_other = aten.div.Tensor(aten.mul.Tensor(g, ctx.other), result) if needs[1] else None
    g_self = aten.div.Tensor(aten.mul.Tensor(g, ctx.self), result) if needs[0] else None
    return (g_self, g_other)


@derivative("logaddexp", "LogaddexpBackward0", ("self", "other"), save_inputs=("self", "other"))
def _logaddexp(ctx, grads, needs):
    """other: grad / (1 + exp(self - other)); self: grad / (1 + exp(other - self)) (other first)."""
    g, x, y = grads[0], ctx.self, ctx.other
    g_other = aten.div.Tensor(g, aten.add.Scalar(aten.exp.default(aten.sub.Tensor(x, y)), 1)) if needs[1] else None
    g_self = aten.div.Tensor(g, aten.add.Scalar(aten.exp.default(aten.sub.Tensor(y, x)), 1)) if needs[0] else None
    return (g_self, g_other)


@derivative("xlogy.Tensor", "XlogyBackward0", ("self", "other"), save_inputs=("self", "other"))
def _xlogy(ctx, grads, needs):
    """other: grad * self / other; self: ``xlogy(grad, other).masked_fill((self == 0.) & (other <= 0.), 0.)``."""
    g, x, y = grads[0], ctx.self, ctx.other
    g_other = aten.div.Tensor(aten.mul.Tensor(g, x), y) if needs[1] else None
    g_self = None
    if needs[0]:
        value = aten.xlogy.Tensor(g, y)
        other_le_0 = aten.le.Scalar(y, 0.0)  # the right operand of ``&`` first
        mask = aten.bitwise_and.Tensor(aten.eq.Scalar(x, 0.0), other_le_0)
        g_self = aten.masked_fill.Scalar(value, mask, 0.0)
    return (g_self, g_other)


@derivative("xlogy.Scalar_Self", "XlogyBackward1", ("other",), save_inputs=("self", "other"))
def _xlogy_scalar_self(ctx, grads, needs):
    """grad * self / other."""
    return (aten.div.Tensor(aten.mul.Scalar(grads[0], ctx.self), ctx.other),)


@derivative("xlogy.Scalar_Other", "XlogyBackward2", ("self",), save_inputs=("self", "other"))
def _xlogy_scalar_other(ctx, grads, needs):
    """``xlogy(grad, other)``, masked where self == 0 unless other > 0."""
    value = aten.xlogy.Scalar_Other(grads[0], ctx.other)
    if ctx.other > 0:
        return (value,)
    return (aten.masked_fill.Scalar(value, aten.eq.Scalar(ctx.self, 0.0), 0.0),)


def _not_implemented(op: str, inputs: tuple[str, ...], name: str) -> None:
    @derivative(op, "NotImplemented", inputs)
    def backward(ctx, grads, needs):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")


for _op, _inputs in (("floor_divide", ("self", "other")), ("floor_divide.Scalar", ("self",)),
                     ("floor_divide_.Tensor", ("self", "other")), ("floor_divide_.Scalar", ("self",)),
                     ("heaviside", ("self", "values")), ("heaviside_", ("self", "values")),
                     ("logit_backward", ("grad_output", "self"))):
    _not_implemented(_op, _inputs, _op.split(".")[0])
del _op, _inputs


def _inplace_not_implemented(op: str, node: str) -> None:
    """derivatives.yaml's ``not_implemented("inplace version of ...")``: the node fails when backward reaches it."""

    @derivative(op, node, ("self",))
    def backward(ctx, grads, needs):
        raise NotImplementedError(f"the derivative for 'inplace version of {op[:-1]}' is not implemented.")


for _op in ("asinh_", "acosh_", "atanh_"):
    _inplace_not_implemented(_op, f"{_op[0].upper()}{_op[1:-1]}Backward1")
del _op


# --- in-place forms ------------------------------------------------------------------------------------------------------

for _op in ("tan", "exp2", "frac"):  # formulas reading result only (or nothing)
    inplace_of(f"{_op}_", _op)
for _op in ("asin", "acos", "atan", "log10", "erfinv", "sinh", "cosh", "logit", "nan_to_num"):
    inplace_of(f"{_op}_", _op, clone_self_for=(0,))
del _op
inplace_of("atan2_", "atan2", clone_self_for=(0, 1))
inplace_of("hypot_", "hypot", clone_self_for=(0,))
inplace_of("xlogy_.Tensor", "xlogy.Tensor", clone_self_for=(0, 1))
inplace_of("xlogy_.Scalar_Other", "xlogy.Scalar_Other", clone_self_for=(0,))
inplace_of("fmod_.Tensor", "fmod.Tensor", clone_self_for=(1,))
inplace_of("remainder_.Tensor", "remainder.Tensor", clone_self_for=(1,))
inplace_of("fmod_.Scalar", "fmod.Scalar")
inplace_of("remainder_.Scalar", "remainder.Scalar")


@derivative("trace", "TraceBackward0", ("self",), save_meta=("self",))
def _trace(ctx, grads, needs):
    return (aten.trace_backward.default(grads[0], list(ctx.self._shape)),)
