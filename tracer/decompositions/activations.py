"""Core-aten decompositions of the activations, their backwards and in-place forms, and of the softmax backwards.

Corresponds to the entries of torch/_decomp/decompositions.py and torch/_refs/nn/functional/__init__.py PyTorch
2.13's ``core_aten_decompositions()`` uses for these ops; each calls the same aten ops in the same order,
including the half-precision upcasts (``pw_cast_for_opmath``, the references' type promotion):

* ``silu``, ``silu_backward``, ``threshold_backward`` (``le`` + ``where``), ``gelu_backward`` (erf and tanh
  forms), ``_softmax_backward_data`` / ``_log_softmax_backward_data``;
* ``leaky_relu_backward``, ``hardtanh_backward``, ``elu_backward``, ``softplus`` (+ backward), ``hardswish``
  (+ backward), ``log_sigmoid_forward`` / ``log_sigmoid_backward``, ``mish`` (+ ``mish_``, backward), ``celu``
  (+ ``celu_``), ``hardsigmoid`` (+ backward), ``glu`` (+ backward), ``threshold`` (+ ``threshold_``);
* the in-place forms: torch's ``register_inplace`` (``leaky_relu_``, ``hardtanh_``, ``hardswish_``,
  ``hardsigmoid_``: the out-of-place op, then ``self.copy_(out)``) or the references' ``_make_inplace``
  (``elu_``, ``mish_``, ``celu_``, ``threshold_``: the reference computed, then copied into self).

The CompositeImplicitAutograd activations (``selu``, ``relu6``, ...) need nothing here: the core table maps them
to their own CIA kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition
from .type_promotion import _WEAK_ORDER, _check_value, _default_promotion, _python_type_of, pw_cast_for_opmath

aten = namespace("aten")


@register_decomposition(aten.silu.default)
@pw_cast_for_opmath
def silu(self: Tensor) -> Tensor:
    return self * aten.sigmoid.default(self)


@register_decomposition(aten.silu_backward.default)
@pw_cast_for_opmath
def silu_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    sig = aten.sigmoid.default(self)
    return grad_output * sig * (1 + self * (1 - sig))


@register_decomposition(aten.threshold_backward.default)
def threshold_backward(grad_output: Tensor, self: Tensor, threshold: Any) -> Tensor:
    return aten.where(self <= threshold, 0, grad_output)


# the constants of <cmath> (M_SQRT2, M_SQRT1_2, M_2_SQRTPI) as the C++ kernels and PyTorch's decomposition spell them
_SQRT2 = 1.41421356237309504880
_SQRT1_2 = 0.70710678118654752440
_2_SQRTPI = 1.12837916709551257390


@register_decomposition(aten.gelu_backward.default)
@pw_cast_for_opmath
def gelu_backward(grad: Tensor, self: Tensor, approximate: str = "none") -> Tensor:
    if approximate == "tanh":
        beta = _SQRT2 * _2_SQRTPI * 0.5
        kappa = 0.044715
        x_sq = self * self
        x_cube = x_sq * self
        inner = beta * (self + kappa * x_cube)
        tanh_inner = aten.tanh.default(inner)
        left = 0.5 * self
        right = 1 + tanh_inner
        left_derivative = 0.5 * right
        tanh_derivative = 1 - tanh_inner * tanh_inner
        inner_derivative = beta * (1 + 3 * kappa * x_sq)
        right_derivative = left * tanh_derivative * inner_derivative
        return grad * (left_derivative + right_derivative)
    if approximate != "none":
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate!r}")
    cdf = 0.5 * (1 + aten.erf.default(self * _SQRT1_2))
    pdf = (_2_SQRTPI * _SQRT1_2 * 0.5) * aten.exp.default(self * self * -0.5)
    return grad * (cdf + self * pdf)


# --- softmax backwards ------------------------------------------------------------------------------------------------


def _cast_grad_to_input_dtype(grad_output: Tensor, grad_input: Tensor, input_dtype: Any) -> Tensor:
    return grad_input.to(input_dtype) if grad_output.dtype != input_dtype else grad_input


@register_decomposition(aten._softmax_backward_data.default)
@pw_cast_for_opmath(compute_dtype_only=True)
def _softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: Any) -> Tensor:
    scaled = grad_output * output
    grad_input = scaled - output * aten.sum.dim_IntList(scaled, [dim], True)
    return _cast_grad_to_input_dtype(grad_output, grad_input, input_dtype).contiguous()


@register_decomposition(aten._log_softmax_backward_data.default)
@pw_cast_for_opmath(compute_dtype_only=True)
def _log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: Any) -> Tensor:
    grad_input = grad_output - aten.exp.default(output) * aten.sum.dim_IntList(grad_output, [dim], True)
    return _cast_grad_to_input_dtype(grad_output, grad_input, input_dtype)


# --- activations (torch/_decomp/decompositions.py, torch/_refs/nn/functional) -----------------------------------------


@register_decomposition(aten.leaky_relu_backward)
@pw_cast_for_opmath
def leaky_relu_backward(grad_output: Tensor, self: Tensor, negative_slope: Any, self_is_result: bool) -> Tensor:
    return aten.where(self > 0, grad_output, grad_output * negative_slope)


@register_decomposition(aten.hardtanh_backward)
@pw_cast_for_opmath
def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: Any, max_val: Any) -> Tensor:
    outside = aten.bitwise_or.Tensor(self <= min_val, self >= max_val)
    return aten.where(outside, 0.0, grad_output)


@register_decomposition(aten.elu_backward)
@pw_cast_for_opmath
def elu_backward(grad_output: Tensor, alpha: Any, scale: Any, input_scale: Any, is_result: bool,
                 self_or_result: Tensor) -> Tensor:
    negcoef = alpha * scale
    poscoef = scale
    negiptcoef = input_scale
    if is_result:
        return aten.where(self_or_result <= 0, grad_output * negiptcoef * (self_or_result + negcoef),
                          grad_output * poscoef)
    return aten.where(self_or_result <= 0,
                      grad_output * negiptcoef * negcoef * aten.exp.default(self_or_result * negiptcoef),
                      grad_output * poscoef)


@register_decomposition(aten.softplus)
@_default_promotion
def softplus(self: Tensor, beta: Any = None, threshold: Any = 20) -> Tensor:
    """The ref: ``where(x * beta > threshold, x, log1p(exp(x * beta)) / beta)``, no scaling without ``beta``."""
    if beta is not None:
        _check_value(beta, self, "beta")
        scaled = self * beta
        rhs = aten.div.Tensor(aten.log1p.default(aten.exp.default(scaled)), beta)
    else:
        scaled = self
        rhs = aten.log1p.default(aten.exp.default(scaled))
    return aten.where(scaled > threshold, self, rhs)


@register_decomposition(aten.softplus_backward)
@pw_cast_for_opmath
def softplus_backward(grad_output: Tensor, self: Tensor, beta: Any, threshold: Any) -> Tensor:
    z = aten.exp.default(self * beta)
    return aten.where((self * beta) > threshold, grad_output, grad_output * z / (z + 1.0))


@register_decomposition(aten.hardswish)
@pw_cast_for_opmath
def hardswish(self: Tensor) -> Tensor:
    return self * aten.clamp.default(aten.clamp.default(self + 3, 0), None, 6) / 6


@register_decomposition(aten.hardswish_backward)
@pw_cast_for_opmath
def hardswish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    return aten.where(self <= -3, 0.0, aten.where(self < 3, grad_output * ((self / 3) + 0.5), grad_output))


# --- in-place activations: torch's ``register_inplace`` (the out-of-place op, then ``self.copy_(out)``) ---------------


def _register_inplace(inplace_op: Any, outplace: Callable[..., Any]) -> None:
    @register_decomposition(inplace_op)
    def inplace(*args: Any, **kwargs: Any) -> Any:
        return args[0].copy_(outplace(*args, **kwargs))

    inplace.__name__ = inplace.__qualname__ = f"{inplace_op.name().split('::')[1].replace('.', '_')}"


_register_inplace(aten.leaky_relu_.default, aten.leaky_relu)
_register_inplace(aten.hardtanh_.default, aten.hardtanh)
_register_inplace(aten.hardswish_.default, aten.hardswish)


@_default_promotion
def _elu_ref(a: Tensor, alpha: Any = 1.0, scale: Any = 1.0, input_scale: Any = 1.0) -> Tensor:
    """torch/_refs' elu: ``where(a > 0, scale * a, (alpha * scale) * expm1(a * input_scale))``."""
    python_type = _python_type_of(a._dtype)
    for name, v in (("input_scale", input_scale), ("scale", scale), ("alpha", alpha)):
        kind = complex if isinstance(v, complex) else float if isinstance(v, float) else (
            bool if isinstance(v, bool) else int)
        if _WEAK_ORDER.index(kind) > _WEAK_ORDER.index(python_type):
            raise RuntimeError(f"{name} argument of type {kind} cannot be safely cast to type {python_type}!")
    return aten.where(a > 0, scale * a, (alpha * scale) * aten.expm1.default(a * input_scale))


@register_decomposition(aten.elu_.default)
def elu_(self: Tensor, alpha: Any = 1.0, scale: Any = 1.0, input_scale: Any = 1.0) -> Tensor:
    """torch/_refs' ``_make_inplace(elu)``: the reference computed, then copied into self."""
    return self.copy_(_elu_ref(self, alpha, scale, input_scale))


# --- log_sigmoid ------------------------------------------------------------------------------------------------------


@register_decomposition(aten.log_sigmoid_forward.default)
@pw_cast_for_opmath
def log_sigmoid_forward(self: Tensor) -> tuple[Tensor, Tensor]:
    """``(min(0, x) - log1p(z), z)`` with ``z = exp(-|x|)`` (the CPU buffer)."""
    lower = aten.minimum.default(self.new_zeros(()), self)
    z = aten.exp.default(-aten.abs.default(self))
    return lower - aten.log1p.default(z), z


@register_decomposition(aten.log_sigmoid_backward.default)
@pw_cast_for_opmath
def log_sigmoid_backward(grad_output: Tensor, self: Tensor, buffer: Tensor) -> Tensor:
    in_negative = self < 0
    max_deriv = aten.where(in_negative, 1, 0)
    sign = aten.where(in_negative, 1, -1)
    z = buffer if buffer.numel() > 0 else aten.exp.default(-aten.abs.default(self))
    return grad_output * (max_deriv - sign * (z / (1 + z)))


# --- mish -------------------------------------------------------------------------------------------------------------


@_default_promotion
def _mish_ref(a: Tensor) -> Tensor:
    """torch/_refs' mish: ``a * tanh(softplus(a))`` (softplus through the table: decomposed again)."""
    return a * aten.tanh.default(aten.softplus.default(a))


@register_decomposition(aten.mish.default)
def mish(self: Tensor) -> Tensor:
    return _mish_ref(self)


@register_decomposition(aten.mish_.default)
def mish_(self: Tensor) -> Tensor:
    """torch/_refs' ``_make_inplace(mish)``: the reference, copied into self."""
    return self.copy_(_mish_ref(self))


@register_decomposition(aten.mish_backward.default)
@pw_cast_for_opmath
def mish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """torch/_decomp's mish_backward (math_mish_backward's formula, in the opmath dtype):
    ``grad * (t + self * sigmoid(self) * (1 - t * t))`` with ``t = tanh(softplus(self))``."""
    tanh_softplus = aten.tanh.default(aten.softplus.default(self))
    sig = aten.sigmoid.default(self)
    rest = aten.mul.Tensor(aten.mul.Tensor(self, sig),
                           aten.sub.Tensor(1, aten.mul.Tensor(tanh_softplus, tanh_softplus)))
    return aten.mul.Tensor(grad_output, aten.add.Tensor(tanh_softplus, rest))


# --- celu, hardsigmoid ------------------------------------------------------------------------------------------------


@_default_promotion
def _celu_ref(a: Tensor, alpha: Any = None) -> Tensor:
    """torch/_refs' celu: ``where(a > 0, a, alpha * expm1(a / alpha))`` (``expm1(a)`` without alpha)."""
    if alpha is not None:
        python_type = _python_type_of(a._dtype)
        kind = complex if isinstance(alpha, complex) else float if isinstance(alpha, float) else (
            bool if isinstance(alpha, bool) else int)
        if _WEAK_ORDER.index(kind) > _WEAK_ORDER.index(python_type):
            raise ValueError(f"alpha argument of type {kind} cannot be safely cast to type {python_type}!")
        rhs = alpha * aten.expm1.default(aten.div.Tensor(a, alpha))
    else:
        rhs = aten.expm1.default(a)
    return aten.where(a > 0, a, rhs)


@register_decomposition(aten.celu.default)
def celu(self: Tensor, alpha: Any = None) -> Tensor:
    return _celu_ref(self, alpha)


@register_decomposition(aten.celu_.default)
def celu_(self: Tensor, alpha: Any = None) -> Tensor:
    """torch/_refs' ``_make_inplace(celu)``: the reference, copied into self."""
    return self.copy_(_celu_ref(self, alpha))


@register_decomposition(aten.hardsigmoid.default)
@pw_cast_for_opmath
def hardsigmoid(self: Tensor) -> Tensor:
    return aten.clamp.default(aten.clamp.default(self + 3, 0), None, 6) / 6


@register_decomposition(aten.hardsigmoid_backward.default)
@pw_cast_for_opmath
def hardsigmoid_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    return aten.where((self > -3.0) & (self < 3.0), grad_output * (1.0 / 6.0), 0.0)


_register_inplace(aten.hardsigmoid_.default, aten.hardsigmoid)


# --- glu, threshold ---------------------------------------------------------------------------------------------------


@register_decomposition(aten.glu.default)
@_default_promotion
def glu(a: Tensor, dim: int = -1) -> Tensor:
    """torch/_refs: the two halves by ``tensor_split``, ``first * sigmoid(second)``."""
    from dispatcher.ops.meta_utils import wrap_dim

    dim = wrap_dim(dim, a.dim())
    if a.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {a.shape[dim]}")
    b, c = aten.tensor_split.sections(a, 2, dim)
    return b * aten.sigmoid.default(c)


@register_decomposition(aten.glu_backward.default)
@pw_cast_for_opmath
def glu_backward(grad_output: Tensor, self: Tensor, dim: int) -> Tensor:
    from dispatcher.ops.meta_utils import wrap_dim

    if self.dim() <= 0:
        raise AssertionError("glu does not support 0-dimensional tensors")
    wrap = wrap_dim(dim, self.dim())
    n = self.size(wrap)
    if n % 2:
        raise AssertionError(f"Halving dimension must be even, but dimension {wrap} is size {n}")
    half = n // 2
    first = self.narrow(wrap, 0, half)
    second = self.narrow(wrap, half, half)
    grad_first = aten.sigmoid.default(second)
    grad_second = (1.0 - grad_first) * grad_first * first * grad_output
    grad_first = grad_first * grad_output
    return aten.cat.default([grad_first, grad_second], wrap)


@_default_promotion
def _threshold_ref(a: Tensor, threshold: Any, value: Any) -> Tensor:
    return aten.where(a <= threshold, value, a)


@register_decomposition(aten.threshold.default)
def threshold(self: Tensor, threshold: Any, value: Any) -> Tensor:
    """torch/_refs: ``where(a <= threshold, value, a)``."""
    return _threshold_ref(self, threshold, value)


@register_decomposition(aten.threshold_.default)
def threshold_(self: Tensor, threshold: Any, value: Any) -> Tensor:
    """torch/_refs' ``_make_inplace(threshold)``: the reference, copied into self."""
    return self.copy_(_threshold_ref(self, threshold, value))
