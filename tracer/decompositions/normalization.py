"""Core-aten decompositions of the normalization backwards: ``native_layer_norm_backward``,
``native_batch_norm_backward`` and ``native_group_norm_backward``.

Corresponds to their entries in torch/_decomp/decompositions.py, the only normalization ops PyTorch 2.13's
``core_aten_decompositions()`` lowers (``native_layer_norm``, ``native_batch_norm`` and ``native_group_norm``
stay; ``layer_norm`` / ``batch_norm`` / ``group_norm`` ... map to their CIA kernels like every functional CIA op).
Each calls the aten ops PyTorch's calls, in the same order (Python evaluates ``a * b - c`` left to right):

* ``native_layer_norm_backward``: in the computation dtype, ``x_hat = (x - mean) * rstd``, the input gradient
  ``(rstd / n) * (n * g - sum(g) - x_hat * sum(g * x_hat))`` with ``g = grad * weight``, and the weight and bias
  gradients summed over the outer dims; each result cast back;
* ``native_batch_norm_backward``: per-channel sums of the gradient and of ``grad * (x - mean)`` over every dim
  but 1, the statistics unsqueezed to broadcast, ``rsqrt(running_var + eps)`` in evaluation; the gradient of the
  input is ``((grad - (x - mean) * proj_scale) - grad_mean) * grad_scale`` in training;
* ``native_group_norm_backward``: the per-(sample, channel) sums ``ds`` / ``db``, folded per group into the
  coefficients ``c1``, ``c2``, ``c3`` of ``grad``, ``x`` and 1 (half types compute in float32).
"""

from __future__ import annotations

import math
from typing import Any

import dispatcher
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition
from .type_promotion import computation_dtype, pw_cast_for_opmath

aten = namespace("aten")


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


# --- batch norm, group norm -------------------------------------------------------------------------------------------


def _broadcast_to_channels(x: Tensor, mask: list[int]) -> Tensor:
    """Unsqueeze ``x`` (per channel) at every dim of ``mask`` that is 1, so it broadcasts over the input."""
    for axis, m in enumerate(mask):
        if m == 1 and not (axis < x.dim() and x.shape[axis] == m):
            x = x.unsqueeze(axis)
    return x


def _to(x: Tensor | None, dtype: Any) -> Tensor | None:
    return None if x is None else x.to(dtype)


@register_decomposition(aten.native_batch_norm_backward.default)
def native_batch_norm_backward(grad_out: Tensor, input: Tensor, weight: Tensor | None,  # noqa: A002
                               running_mean: Tensor | None, running_var: Tensor | None, save_mean: Tensor | None,
                               save_invstd: Tensor | None, train: bool, eps: float,
                               output_mask: list[bool]) -> tuple[Tensor, Tensor | None, Tensor | None]:
    input_dtype = input.dtype
    weight_dtype = weight.dtype if weight is not None else input_dtype
    compute = computation_dtype(input_dtype)
    grad_out_c, input_c, weight_c, running_mean_c, running_var_c, save_mean_c, save_invstd_c = (
        _to(x, compute) for x in (grad_out, input, weight, running_mean, running_var, save_mean, save_invstd))
    shape = input.shape
    rank = input.dim()
    if rank < 2:
        raise AssertionError(f"rank of the input must be at least 2, got {rank}")
    num_features = math.prod(shape) / shape[1]
    if train:
        if save_mean_c is None or save_invstd_c is None:
            raise AssertionError("mean and invstd must not be None in training mode")
        mean, invstd = save_mean_c, save_invstd_c
    else:
        if running_mean_c is None or running_var_c is None:
            raise AssertionError("running_mean_cast and running_var_cast must not be None in eval mode")
        mean = running_mean_c
        invstd = aten.rsqrt.default(running_var_c + eps)
    mask = [1] * rank
    mask[1] = shape[1]
    reduction_axes = [i for i in range(rank) if i != 1]
    mean = _broadcast_to_channels(mean, mask)
    norm = 1.0 / num_features
    grad_output_sum = aten.sum.dim_IntList(grad_out_c, reduction_axes)
    dot_p = aten.sum.dim_IntList(grad_out_c * (input_c - mean), reduction_axes)
    grad_mean = _broadcast_to_channels(grad_output_sum * norm, mask)
    proj_scale = _broadcast_to_channels(aten.mul.Tensor(dot_p * norm, invstd * invstd), mask)
    if weight_c is None:
        grad_scale = _broadcast_to_channels(invstd, mask) * 1.0
    else:
        grad_scale = _broadcast_to_channels(invstd * weight_c, mask)
    if train:
        proj = (input_c - mean) * proj_scale
        grad_input = ((grad_out_c - proj) - grad_mean) * grad_scale
    else:
        grad_input = grad_out_c * grad_scale
    grad_weight = dot_p * invstd if output_mask[1] else None
    grad_bias = grad_output_sum if output_mask[2] else None
    return grad_input.to(input_dtype), _to(grad_weight, weight_dtype), _to(grad_bias, weight_dtype)


@register_decomposition(aten.native_group_norm_backward.default)
@pw_cast_for_opmath
def native_group_norm_backward(grad_output: Tensor, input: Tensor, mean: Tensor, rstd: Tensor,  # noqa: A002
                               gamma: Tensor | None, N: int, C: int, HxW: int, group: int,  # noqa: N803
                               output_mask: list[bool]) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expect input to have {N * C * HxW} elements")
    cpg = C // group
    if C != cpg * group:
        raise RuntimeError(f"Expect number of channels {C} to be evenly-divisible by number of groups {group}")
    ds = aten.mul.Tensor(grad_output, input).view(N, C, HxW).sum(dim=[2])
    db = grad_output.view(N, C, HxW).sum(dim=[2])
    d_input = d_gamma = d_bias = None
    if output_mask[0]:
        s = 1.0 / (HxW * cpg)
        if gamma is not None:
            ds_val = aten.mul.Tensor(ds, gamma.unsqueeze(0)).reshape(N, group, cpg).sum(2)
            db_val = aten.mul.Tensor(db, gamma.unsqueeze(0)).reshape(N, group, cpg).sum(2)
            c1 = aten.mul.Tensor(rstd.unsqueeze(-1), gamma.reshape(1, group, cpg))
        else:
            ds_val = ds.reshape(N, group, cpg).sum(2)
            db_val = db.reshape(N, group, cpg).sum(2)
            c1 = aten.mul.Tensor(rstd.unsqueeze(-1), dispatcher.ones((1, group, cpg), device=rstd.device))
        c2 = (db_val * mean - ds_val) * rstd * rstd * rstd * s
        c3 = -c2 * mean - db_val * rstd * s
        c1 = c1.unsqueeze(-1)
        c2 = _unsqueeze_to_dim(c2, 4)
        c3 = _unsqueeze_to_dim(c3, 4)
        d_input = (aten.mul.Tensor(grad_output.reshape(N, group, cpg, HxW), c1)
                   + aten.mul.Tensor(input.reshape(N, group, cpg, HxW), c2) + c3)
        d_input = d_input.reshape(input.shape).to(input.dtype)
    if output_mask[1]:
        d_gamma = ((ds.view(N, group, cpg) - db.view(N, group, cpg) * mean.unsqueeze(-1))
                   * rstd.unsqueeze(-1)).sum(dim=[0]).reshape(C)
    if output_mask[2]:
        d_bias = db.sum(dim=[0])
    return d_input, d_gamma, d_bias


# --- issue 20: _weight_norm_interface (torch/_decomp/decompositions.py) --------------------------------------------
@register_decomposition(aten._weight_norm_interface.default)
def _weight_norm_interface(v: Tensor, g: Tensor, dim: int = 0) -> tuple[Tensor, Tensor]:
    """``(v * (g / norm), norm)`` with ``norm = v.norm(2, other dims, keepdim=True)`` (float32 for bfloat16 ``g``)."""
    keep_dim = tuple(i for i in range(len(v.shape)) if i != dim)
    norm_dtype = dispatcher.float32 if g.dtype.name == "bfloat16" else None  # (no bfloat16 here: NumPy has none)
    norm = v.norm(2, keep_dim, keepdim=True, dtype=norm_dtype)
    return v * (g / norm.to(g.dtype)), norm
