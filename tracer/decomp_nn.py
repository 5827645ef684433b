"""Decompositions of nn ops and of the backward ops autograd calls, into core aten ops.

Corresponds to the nn / loss / backward entries of torch/_decomp/decompositions.py that PyTorch
2.13's ``core_aten_decompositions()`` holds: activation backwards (``threshold_backward`` ->
``le`` + ``where``, ``gelu_backward``, ``silu_backward``, ...), softmax backwards, ``mse_loss``,
``native_dropout_backward``, ``native_layer_norm_backward``, ``nll_loss`` forward / backward (1-d / 2-d
and 2-d spatial), ``select_backward`` and ``index_add``. Each calls the same aten ops in the same order
as PyTorch's for the same inputs, including the half-precision upcasts (``pw_cast_for_opmath``).
"""

from __future__ import annotations

import math
from typing import Any

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .decomp_core import computation_dtype, pw_cast_for_opmath
from .decomp_registry import register_decomposition

aten = namespace("aten")

#: loss reductions (at::Reduction)
NONE, MEAN, SUM = 0, 1, 2


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


@register_decomposition(aten.tanh_backward.default)
@pw_cast_for_opmath
def tanh_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    return grad_output * (1 - output * output)


@register_decomposition(aten.sigmoid_backward.default)
@pw_cast_for_opmath
def sigmoid_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    return grad_output * (output * (1 - output))


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


@register_decomposition(aten.native_dropout_backward.default)
def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    from dispatcher.memory_format import contiguous_format

    return (grad_output * (mask.type_as(grad_output) * scale)).clone(memory_format=contiguous_format)


def _unsqueeze_to_dim(x: Tensor, ndim: int) -> Tensor:
    for _ in range(ndim - x.dim()):
        x = x.unsqueeze(-1)
    return x


def _maybe_cast(x: Tensor | None, dtype: Any) -> Tensor | None:
    return x.to(dtype) if x is not None and dtype is not None and x.dtype != dtype else x


@register_decomposition(aten.native_layer_norm_backward.default)
def native_layer_norm_backward(grad_out: Tensor, input: Tensor, normalized_shape: list[int], mean: Tensor,  # noqa: A002
                               rstd: Tensor, weight: Tensor | None, bias: Tensor | None,
                               output_mask: list[bool]) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    from dispatcher.memory_format import contiguous_format

    compute = computation_dtype(input.dtype)
    grad_out_c, input_c, weight_c, bias_c = (
        None if x is None else x.to(compute, memory_format=contiguous_format) for x in (grad_out, input, weight, bias))
    ndim = input.dim()
    axis = ndim - len(normalized_shape)
    inner_dims, outer_dims = list(range(axis, ndim)), list(range(axis))
    n = math.prod(input.shape[axis:])
    m = math.prod(input.shape[:axis])
    if m == 0 or n == 0:
        return (input.new_zeros(input.shape) if output_mask[0] else None,
                input.new_zeros(input.shape[axis:]) if output_mask[1] else None,
                input.new_zeros(input.shape[axis:]) if output_mask[2] else None)
    mean = _unsqueeze_to_dim(mean, ndim)
    rstd = _unsqueeze_to_dim(rstd, ndim)
    x_hat = (input_c - mean) * rstd
    grad_x_hat = grad_out_c * weight_c if weight_c is not None else grad_out_c
    a = grad_x_hat * n
    b = aten.sum.dim_IntList(grad_x_hat, inner_dims, True)
    c1 = grad_x_hat * x_hat
    c2 = aten.sum.dim_IntList(c1, inner_dims, True)
    c3 = x_hat * c2
    inner = a - b - c3
    d_input = d_weight = d_bias = None
    if output_mask[0]:
        d_input = (rstd / n) * inner
    if output_mask[1] and weight_c is not None:
        d_weight = (aten.sum.dim_IntList(grad_out_c * x_hat, outer_dims, False) if outer_dims
                    else grad_out_c * x_hat)
    if output_mask[2] and bias_c is not None:
        d_bias = aten.sum.dim_IntList(grad_out_c, outer_dims, False) if outer_dims else grad_out_c.clone()
    return (_maybe_cast(d_input, input.dtype),
            _maybe_cast(d_weight, None if weight is None else weight.dtype),
            _maybe_cast(d_bias, None if bias is None else bias.dtype))


# --- nll_loss -----------------------------------------------------------------------------------------------------


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


# --- indexing backwards ------------------------------------------------------------------------------------------


@register_decomposition(aten.select_backward.default)
def select_backward(grad_output: Tensor, input_sizes: list[int], dim: int, index: int) -> Tensor:
    grad_input = grad_output.new_zeros(input_sizes)
    # select_scatter(grad_input, grad_output, dim, index), as PyTorch's reference writes it
    ndim = grad_input.dim()
    dim = dim % ndim if ndim else 0
    mask_shape = [1] * ndim
    mask_shape[dim] = -1
    if index < 0:
        index += grad_input.shape[dim]
    mask = aten.arange.default(grad_input.shape[dim], device=grad_input.device).view(mask_shape) == index
    src = aten.unsqueeze.default(grad_output, dim).expand(grad_input.shape)
    return aten.where(mask, src, grad_input)


def _index_add(x: Tensor, dim: int, index: Tensor, source: Tensor, *, inplace: bool, alpha: Any) -> Tensor:
    ndim = x.dim()
    dim = dim % max(ndim, 1)
    if index.dim() > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, got {index.dim()}-d")
    index_size = index.shape[0] if index.dim() == 1 else 1
    source_size = source.shape[dim] if source.dim() > 0 else 1
    if source_size != index_size:
        raise RuntimeError(f"Number of indices ({index_size}) should be equal to tensor.size(dim) ({source_size}), "
                           f"for dim={dim}")
    if alpha != 1:
        source = source * alpha
    zero_dim = ndim == 0
    x1 = x.unsqueeze(0) if zero_dim else x
    indices = [None] * dim + [index]
    put = aten.index_put_.default if inplace else aten.index_put.default
    out = put(x1, indices, source, True)
    if inplace:
        return x
    return out.squeeze(0) if zero_dim else out.contiguous()


@register_decomposition(aten.index_add.default)
def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return _index_add(self, dim, index, source, inplace=False, alpha=alpha)


@register_decomposition(aten.index_add_.default)
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return _index_add(self, dim, index, source, inplace=True, alpha=alpha)



# --- embedding_dense_backward ----------------------------------------------------------------------------------------


def _unsafe_masked_index(x: Tensor, mask: Tensor, indices: list[Any], fill: Any) -> Tensor:
    """``x[indices]`` with indices clamped into range, ``fill`` where ``mask`` is False (``_unsafe_masked_index``)."""
    if x.numel() == 0:
        index = next(i for i in indices if i is not None)
        return aten.new_full.default(x, [*index.shape, *x.shape[len(indices):]], fill)
    clamped = [None if i is None else aten.clamp.default(i, 0, x.shape[d] - 1) for d, i in enumerate(indices)]
    return aten.masked_fill.Scalar(aten.index.Tensor(x, clamped), aten.bitwise_not.default(mask), fill)


def _unsafe_masked_index_put_accumulate(x: Tensor, mask: Tensor, indices: list[Any], values: Tensor) -> Tensor:
    """``x.index_put(indices, values, accumulate=True)`` skipping the entries where ``mask`` is False, with indices
    clamped into range (``_unsafe_masked_index_put_accumulate``)."""
    if x.numel() == 0:
        return aten.clone.default(x)
    clamped = [None if i is None else aten.clamp.default(i, -x.shape[d], x.shape[d] - 1)
               for d, i in enumerate(indices)]
    masked = aten.masked_fill.Scalar(values, aten.bitwise_not.default(mask), 0)
    return aten.index_put.default(x, clamped, masked, True)


@register_decomposition(aten.embedding_dense_backward.default)
def embedding_dense_backward(grad_output: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                             scale_grad_by_freq: bool) -> Tensor:
    """Sum the gradient rows into a ``[num_weights, ...]`` zero tensor at their indices, skipping out-of-range and
    ``padding_idx`` indices; with ``scale_grad_by_freq`` each row is first divided by its index's count."""
    from dispatcher import dtypes

    result_dtype = grad_output.dtype
    grad_output = grad_output.to(computation_dtype(result_dtype))
    if indices.dtype is not dtypes.int64:
        indices = indices.to(dtypes.int64)
    valid = aten.bitwise_and.Tensor(aten.ge.Scalar(indices, 0), aten.lt.Scalar(indices, num_weights))
    if scale_grad_by_freq:
        counts = aten.new_zeros.default(indices, [num_weights])
        ones = aten.ones_like.default(indices)
        counts = _unsafe_masked_index_put_accumulate(counts, valid, [indices], ones)
        scale = _unsafe_masked_index(counts, valid, [indices], 1)
        grad_output = aten.div.Tensor(grad_output, aten.unsqueeze.default(scale, -1))
    mask = aten.bitwise_and.Tensor(valid, aten.ne.Scalar(indices, padding_idx))
    for _ in range(grad_output.dim() - mask.dim()):
        mask = aten.unsqueeze.default(mask, -1)
    grad_weight = aten.new_zeros.default(grad_output, [num_weights, *grad_output.shape[indices.dim():]])
    return _unsafe_masked_index_put_accumulate(grad_weight, mask, [indices], grad_output).to(result_dtype)
