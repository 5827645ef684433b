"""Core-aten decompositions of the losses and their backwards: ``mse_loss``, ``nll_loss`` (1-d / 2-d and 2-d
spatial, forward and backward), ``smooth_l1_loss``, ``binary_cross_entropy`` (and with logits), ``huber_loss``,
``soft_margin_loss``.

Corresponds to the entries of torch/_decomp/decompositions.py and torch/_refs/nn/functional/__init__.py PyTorch
2.13's ``core_aten_decompositions()`` holds; each calls the same aten ops in the same order as PyTorch's for the
same inputs, including the half-precision upcasts (``pw_cast_for_opmath``). The reductions are at::Reduction's
``NONE`` / ``MEAN`` / ``SUM``. The CompositeImplicitAutograd losses (``kl_div``, ``cross_entropy_loss``, margin
losses, ...) need nothing here: the core table maps them to their own CIA kernels.
"""

from __future__ import annotations

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition
from .type_promotion import _default_promotion, pw_cast_for_opmath

aten = namespace("aten")


#: loss reductions (at::Reduction)
NONE, MEAN, SUM = 0, 1, 2


def _apply_loss_reduction(loss: Tensor, reduction: int) -> Tensor:
    if reduction == MEAN:
        return aten.mean.default(loss)
    if reduction == SUM:
        return aten.sum.default(loss)
    return loss


@register_decomposition(aten.mse_loss.default)
@pw_cast_for_opmath
def mse_loss(self: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    return _apply_loss_reduction((self - target) ** 2, reduction)


@register_decomposition(aten.mse_loss_backward.default)
@pw_cast_for_opmath
def mse_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    norm = 2.0 / self.numel() if reduction == MEAN else 2.0
    return norm * (self - target) * grad_output


# --- nll_loss ---------------------------------------------------------------------------------------------------------


def _nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                      ignore_index: int) -> tuple[Tensor, Tensor]:
    ndim = self.dim()
    channel_dim = 1 if ndim >= 2 else 0
    w = weight
    if weight is not None:
        if ndim > 1:
            shape = [1] * ndim
            shape[channel_dim] = weight.shape[0]
            w = weight.view(shape)
        self = self * w
    safe_target = aten.where(target != ignore_index, target, 0)
    safe_target_ = safe_target.unsqueeze(channel_dim)
    result = -aten.gather.default(self, channel_dim, safe_target_).squeeze(channel_dim)
    result = aten.where(target != ignore_index, result, 0)
    if reduction == NONE and ndim > 1:
        return result, self.new_full((), 0.0)
    if w is not None:
        w = w.expand(self.shape)
        wsum = aten.gather.default(w, channel_dim, safe_target_).squeeze(channel_dim)
        total_weight = aten.where(target != ignore_index, wsum, 0).sum()
    else:
        total_weight = (target != ignore_index).sum().to(self)
    if reduction == SUM:
        result = result.sum()
    elif reduction == MEAN:
        result = result.sum() / total_weight
    return result, total_weight


@register_decomposition(aten.nll_loss_forward.default)
def nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                     ignore_index: int) -> tuple[Tensor, Tensor]:
    if not 0 < self.dim() <= 2:
        raise RuntimeError(f"input tensor should be 1D or 2D, got {self.dim()}D")
    if target.dim() > 1:
        raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported, got {target.dim()}D")
    no_batch_dim = self.dim() == 1 and target.dim() == 0
    if not no_batch_dim and self.shape[0] != target.shape[0]:
        raise RuntimeError(f"size mismatch (got input: {list(self.shape)}, target: {list(target.shape)})")
    n_classes = self.shape[-1]
    if weight is not None and not (weight.dim() == 1 and weight.numel() == n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.shape)}")
    return _nll_loss_forward(self, target, weight, reduction, ignore_index)


@register_decomposition(aten.nll_loss2d_forward.default)
def nll_loss2d_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                       ignore_index: int) -> tuple[Tensor, Tensor]:
    return _nll_loss_forward(self, target, weight, reduction, ignore_index)


def _nll_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                       ignore_index: int, total_weight: Tensor) -> Tensor:
    channel_dim = 0 if self.dim() < 2 else 1
    if reduction == MEAN:
        grad_output = grad_output / total_weight
    if self.dim() == 1 and target.dim() > 0:
        target = target[0]
    target = target.unsqueeze(channel_dim)
    safe_target = aten.where(target != ignore_index, target, 0)
    grad_input = aten.scatter.value(aten.zeros_like.default(self), channel_dim, safe_target, -1.0)
    if grad_input.dim() > grad_output.dim() > 0:
        grad_output = grad_output.unsqueeze(channel_dim)
    if weight is not None:
        shape = [1] * self.dim()
        shape[channel_dim] = weight.shape[0]
        grad_output = grad_output * weight.reshape(shape)
    grad_output = aten.where(target != ignore_index, grad_output, 0)
    return grad_input * grad_output


@register_decomposition(aten.nll_loss_backward.default)
def nll_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                      ignore_index: int, total_weight: Tensor) -> Tensor:
    if not 0 <= self.dim() <= 2:
        raise RuntimeError(f"input tensor should be 1D or 2D, got {self.dim()}D")
    if target.dim() > 1:
        raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported, got {target.dim()}D")
    return _nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight)


@register_decomposition(aten.nll_loss2d_backward.default)
def nll_loss2d_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                        ignore_index: int, total_weight: Tensor) -> Tensor:
    if self.dim() != 4:
        raise RuntimeError("only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{self.dim()}")
    if target.dim() != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.dim()}")
    return _nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight)


# --- smooth l1 --------------------------------------------------------------------------------------------------------


@register_decomposition(aten.smooth_l1_loss.default)
@pw_cast_for_opmath
def smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = MEAN, beta: float = 1.0) -> Tensor:
    loss = aten.abs.default(self - target)
    loss = aten.where(loss < beta, 0.5 * loss**2 / beta, loss - 0.5 * beta)
    return _apply_loss_reduction(loss, reduction)


@register_decomposition(aten.smooth_l1_loss_backward.default)
@pw_cast_for_opmath
def smooth_l1_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float) -> Tensor:
    norm = 1.0 / self.numel() if reduction == MEAN else 1.0
    x = self - target
    abs_x = aten.abs.default(x)
    norm_grad = norm * grad_output
    return aten.where(abs_x < beta, norm_grad * x / beta, norm_grad * aten.sign.default(x))


# --- binary cross entropy ---------------------------------------------------------------------------------------------


@register_decomposition(aten.binary_cross_entropy.default)
@pw_cast_for_opmath
def binary_cross_entropy(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = MEAN) -> Tensor:
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
                                  reduction: int = MEAN) -> Tensor:
    result = grad_output * (self - target) / aten.clamp.default(self * (1 - self), 1e-12)
    if weight is not None:
        result = result * weight
    if reduction == MEAN:
        result = result / self.numel()
    return result


@register_decomposition(aten.binary_cross_entropy_with_logits.default)
def binary_cross_entropy_with_logits(self: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = MEAN) -> Tensor:
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


# --- huber, soft margin -----------------------------------------------------------------------------------------------


@register_decomposition(aten.huber_loss.default)
@_default_promotion
def huber_loss(input: Tensor, target: Tensor, reduction: int = MEAN, delta: float = 1.0) -> Tensor:  # noqa: A002
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
    norm = 1.0 / self.numel() if reduction == MEAN else 1.0
    x = self - target
    return aten.where(x < -delta, -norm * grad_output * delta,
                      aten.where(x > delta, norm * grad_output * delta, norm * x * grad_output))


@register_decomposition(aten.soft_margin_loss.default)
@pw_cast_for_opmath
def soft_margin_loss(input: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:  # noqa: A002
    return _apply_loss_reduction(aten.log1p.default(aten.exp.default(-input * target)), reduction)


@register_decomposition(aten.soft_margin_loss_backward.default)
@pw_cast_for_opmath
def soft_margin_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    grad_input = target * grad_output * (aten.sigmoid.default(target * self) - 1)
    if reduction == MEAN:
        grad_input = grad_input / self.numel()
    return grad_input
