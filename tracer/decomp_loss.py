"""Core-ATen decompositions of the loss batch (binary cross entropy, huber, soft margin, celu, hardsigmoid, glu,
threshold and their backwards / in-place forms).

Corresponds to the torch/_decomp/decompositions.py and torch/_refs/nn/functional entries PyTorch 2.13's
``core_aten_decompositions()`` uses for these ops; each calls the same aten ops in the same order. The
CompositeImplicitAutograd ops of the batch (``kl_div``, ``selu``, ``rms_norm``, ``cosine_similarity``, ...) need
nothing here: the core table maps them to their own CIA kernels.
"""

from __future__ import annotations

from typing import Any

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .decomp_core import _python_type_of, pw_cast_for_opmath
from .decomp_more_a import _WEAK_ORDER, _default_promotion, _register_inplace
from .decomp_registry import register_decomposition

aten = namespace("aten")

_MEAN, _SUM = 1, 2


def _apply_loss_reduction(loss: Tensor, reduction: int) -> Tensor:
    if reduction == _MEAN:
        return aten.mean.default(loss)
    if reduction == _SUM:
        return aten.sum.default(loss)
    return loss


# --- binary cross entropy ---------------------------------------------------------------------------------------------


@register_decomposition(aten.binary_cross_entropy.default)
@pw_cast_for_opmath
def binary_cross_entropy(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = _MEAN) -> Tensor:
    """``(target - 1) * max(log1p(-self), -100) - target * max(log(self), -100)`` (no range check: it would need
    the data)."""
    loss = (target - 1) * aten.maximum.default(aten.log1p.default(-self), self.new_full((), -100)) - (
        target * aten.maximum.default(aten.log.default(self), self.new_full((), -100)))
    if weight is not None:
        loss = loss * weight
    return _apply_loss_reduction(loss, reduction)


@register_decomposition(aten.binary_cross_entropy_backward.default)
@pw_cast_for_opmath
def binary_cross_entropy_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None = None,
                                  reduction: int = _MEAN) -> Tensor:
    result = grad_output * (self - target) / aten.clamp.default(self * (1 - self), 1e-12)
    if weight is not None:
        result = result * weight
    if reduction == _MEAN:
        result = result / self.numel()
    return result


@register_decomposition(aten.binary_cross_entropy_with_logits.default)
def binary_cross_entropy_with_logits(self: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = _MEAN) -> Tensor:
    """``(1 - target) * self - log_weight * logsigmoid(self)``, times weight, in target's dtype, reduced."""
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * self - (log_weight * aten.log_sigmoid.default(self))
    else:
        loss = (1 - target) * self - aten.log_sigmoid.default(self)
    if weight is not None:
        loss = loss * weight
    loss = loss.to(target.dtype)
    return _apply_loss_reduction(loss, reduction)


# --- huber, soft margin -------------------------------------------------------------------------------------------------


@register_decomposition(aten.huber_loss.default)
@_default_promotion
def huber_loss(input: Tensor, target: Tensor, reduction: int = _MEAN, delta: float = 1.0) -> Tensor:  # noqa: A002
    """torch/_refs: ``z = |input - target|``, ``where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))``."""
    if reduction not in (0, 1, 2):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    z = aten.abs.default(input - target)
    loss = aten.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    return _apply_loss_reduction(loss, reduction)


@register_decomposition(aten.huber_loss_backward.default)
@pw_cast_for_opmath
def huber_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float) -> Tensor:
    norm = 1.0 / self.numel() if reduction == _MEAN else 1.0
    x = self - target
    return aten.where(x < -delta, -norm * grad_output * delta,
                      aten.where(x > delta, norm * grad_output * delta, norm * x * grad_output))


@register_decomposition(aten.soft_margin_loss.default)
@pw_cast_for_opmath
def soft_margin_loss(input: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:  # noqa: A002
    return _apply_loss_reduction(aten.log1p.default(aten.exp.default(-input * target)), reduction)


@register_decomposition(aten.soft_margin_loss_backward.default)
@pw_cast_for_opmath
def soft_margin_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    grad_input = target * grad_output * (aten.sigmoid.default(target * self) - 1)
    if reduction == _MEAN:
        grad_input = grad_input / self.numel()
    return grad_input


# --- activations --------------------------------------------------------------------------------------------------------


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
