"""Derivative formulas of the transcendental ops: ``exp`` / ``log`` and their variants, trigonometric and
hyperbolic functions and their inverses, ``sqrt`` / ``rsqrt``, ``erf`` / ``erfinv``, ``sigmoid`` / ``logit``,
``atan2`` / ``hypot`` / ``logaddexp`` / ``xlogy``, the backward ops ``tanh_backward`` / ``sigmoid_backward``
(double backward), and the in-place forms.

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call (``atan2_backward``, ``logit_backward``, ``infinitely_differentiable_logit_backward``, ...). The inverse
hyperbolic in-place ops are ``not_implemented("inplace version of ...")`` in derivatives.yaml;
``logit_backward`` has no formula (its node fails when backward reaches it).
"""

from __future__ import annotations

import math
from typing import Any

from ...op_overload import namespace
from ..function import derivative
from ..grad_mode import is_grad_enabled
from .cpp_idioms import _conj, _options, _subclass_like
from .cpp_idioms import _rsub as _rsub_scalar
from .inplace_formulas import inplace_of
from .not_implemented import register_not_implemented

aten = namespace("aten")


_LN2 = 0.6931471805599453
_LN10 = 2.3025850929940455  # (M_LN10 as PyTorch's formula passes it)
_HALF_SQRT_PI = 0.8862269254527579
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# --- exp, log -------------------------------------------------------------------------------------

@derivative("exp", "ExpBackward0", ("self",), save_outputs=(0,))
def _exp(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], _conj(ctx.result)),)  # grad * result.conj()


inplace_of("exp_", "exp")  # grad * result


@derivative("log", "LogBackward0", ("self",), save_inputs=("self",))
def _log(ctx, grads, needs):
    return (aten.div.Tensor(grads[0], ctx.self),)


inplace_of("log_", "log", clone_self_for=(0,))  # grad / self


@derivative("log1p", "Log1PBackward0", ("self",), save_inputs=("self",))
def _log1p(ctx, grads, needs):
    """log1p_backward: grad / (self + 1)."""
    return (aten.div.Tensor(grads[0], aten.add.Scalar(ctx.self, 1)),)


@derivative("expm1", "Expm1Backward0", ("self",), save_outputs=(0,))
def _expm1(ctx, grads, needs):
    """grad * (result + 1)."""
    return (aten.mul.Tensor(grads[0], aten.add.Scalar(ctx.result, 1)),)


@derivative("log2", "Log2Backward0", ("self",), save_inputs=("self",))
def _log2(ctx, grads, needs):
    """grad / (self * ln 2)."""
    return (aten.div.Tensor(grads[0], aten.mul.Scalar(ctx.self, 0.6931471805599453)),)


@derivative("log10", "Log10Backward0", ("self",), save_inputs=("self",))
def _log10(ctx, grads, needs):
    return (aten.div.Tensor(grads[0], aten.mul.Scalar(ctx.self, _LN10)),)


@derivative("exp2", "Exp2Backward0", ("self",), save_outputs=(0,))
def _exp2(ctx, grads, needs):
    """grad * result * ln 2."""
    return (aten.mul.Scalar(aten.mul.Tensor(grads[0], ctx.result), _LN2),)


# --- sqrt, rsqrt, erf, erfinv ---------------------------------------------------------------------

@derivative("sqrt", "SqrtBackward0", ("self",), save_outputs=(0,))
def _sqrt(ctx, grads, needs):
    return (aten.div.Tensor(grads[0], aten.mul.Scalar(ctx.result, 2)),)


inplace_of("sqrt_", "sqrt")  # grad / (2 * result)


@derivative("rsqrt", "RsqrtBackward0", ("self",), save_outputs=(0,))
def _rsqrt(ctx, grads, needs):
    cube = aten.pow.Tensor_Scalar(ctx.result, 3)
    return (aten.mul.Tensor(aten.mul.Scalar(grads[0], -0.5), cube),)


@derivative("erf", "ErfBackward0", ("self",), save_inputs=("self",))
def _erf(ctx, grads, needs):
    gauss = aten.exp.default(aten.neg.default(aten.pow.Tensor_Scalar(ctx.self, 2)))
    return (aten.mul.Tensor(aten.mul.Scalar(gauss, _TWO_OVER_SQRT_PI), grads[0]),)


@derivative("erfinv", "ErfinvBackward0", ("self",), save_inputs=("self",))
def _erfinv(ctx, grads, needs):
    """0.5 * sqrt(pi) * exp(self.erfinv().pow(2)) * grad."""
    scale = aten.exp.default(aten.pow.Tensor_Scalar(aten.erfinv.default(ctx.self), 2))
    return (aten.mul.Tensor(aten.mul.Scalar(scale, _HALF_SQRT_PI), grads[0]),)


# --- trigonometric --------------------------------------------------------------------------------

@derivative("sin", "SinBackward0", ("self",), save_inputs=("self",))
def _sin(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], _conj(aten.cos.default(ctx.self))),)  # grad * self.cos().conj()


inplace_of("sin_", "sin", clone_self_for=(0,))


@derivative("cos", "CosBackward0", ("self",), save_inputs=("self",))
def _cos(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.neg.default(_conj(aten.sin.default(ctx.self)))),)  # -self.sin().conj()


inplace_of("cos_", "cos", clone_self_for=(0,))


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


# --- hyperbolic -----------------------------------------------------------------------------------

@derivative("cosh", "CoshBackward0", ("self",), save_inputs=("self",))
def _cosh(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.sinh.default(ctx.self)),)


@derivative("sinh", "SinhBackward0", ("self",), save_inputs=("self",))
def _sinh(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.cosh.default(ctx.self)),)


@derivative("tanh", "TanhBackward0", ("self",), save_outputs=(0,))
def _tanh(ctx, grads, needs):
    return (aten.tanh_backward.default(grads[0], ctx.result),)


inplace_of("tanh_", "tanh")  # tanh_backward(grad, result)


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


def _inplace_not_implemented(op: str, node: str) -> None:
    """derivatives.yaml's ``not_implemented("inplace version of ...")``: the node fails when backward reaches it."""

    @derivative(op, node, ("self",))
    def backward(ctx, grads, needs):
        raise NotImplementedError(f"the derivative for 'inplace version of {op[:-1]}' is not implemented.")


for _op in ("asinh_", "acosh_", "atanh_"):
    _inplace_not_implemented(_op, f"{_op[0].upper()}{_op[1:-1]}Backward1")
del _op


# --- sigmoid, logit -------------------------------------------------------------------------------

@derivative("sigmoid", "SigmoidBackward0", ("self",), save_outputs=(0,))
def _sigmoid(ctx, grads, needs):
    return (aten.sigmoid_backward.default(grads[0], ctx.result),)


inplace_of("sigmoid_", "sigmoid")  # sigmoid_backward(grad, result)


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


# --- binary ---------------------------------------------------------------------------------------

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
    if _subclass_like(recip):  # (a dispatch mode is active: out of place)
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


# --- the backward ops (double backward) -----------------------------------------------------------

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


register_not_implemented("logit_backward", ("grad_output", "self"), "logit_backward")


# --- in-place forms -------------------------------------------------------------------------------

for _op in ("tan", "exp2"):  # formulas reading result only
    inplace_of(f"{_op}_", _op)
for _op in ("asin", "acos", "atan", "log10", "erfinv", "sinh", "cosh", "logit"):
    inplace_of(f"{_op}_", _op, clone_self_for=(0,))
del _op


inplace_of("atan2_", "atan2", clone_self_for=(0, 1))
inplace_of("hypot_", "hypot", clone_self_for=(0,))
inplace_of("xlogy_.Tensor", "xlogy.Tensor", clone_self_for=(0, 1))
inplace_of("xlogy_.Scalar_Other", "xlogy.Scalar_Other", clone_self_for=(0,))
