"""Loss kernels: ``mse_loss``, ``l1_loss``, ``smooth_l1_loss``, ``huber_loss``, ``binary_cross_entropy`` (and
``_with_logits``), ``soft_margin_loss``, ``kl_div``, ``margin_ranking_loss``, ``hinge_embedding_loss``,
``cosine_embedding_loss``, ``poisson_nll_loss``, and the backward ops that have kernels.

Corresponds to aten/src/ATen/native/Loss.cpp, BinaryCrossEntropy.cpp, PointwiseOps.cpp (``smooth_l1`` / ``huber``
backward) and their CPU kernels. Losses with kernels check their inputs as TensorIterator does (shapes, one common
dtype) and reduce as the CPU kernels do (a mean of nothing is NaN); the others are CompositeImplicitAutograd
compositions of aten ops, as in PyTorch, ending in ``apply_loss_reduction`` (``mean`` / ``sum`` / none). The
negative log likelihood family (``nll_loss``, ``cross_entropy``) is in losses_nll.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import dtypes as _dtypes
from ..memory_format import contiguous_format, preserve_format
from ..tensor import Tensor, contiguous_strides
from . import tensor_iterator as _pw
from .composite import _aten
from .kernel_dtypes import _can_cast, is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, broadcast_shapes, check_inplace, materialize, np_operand, scalar_type_name
from .strides import like_strides
from .tensor_iterator import _dt_result, _is_float, _same_dtype, iter_meta

_NONE, _MEAN, _SUM = 0, 1, 2


def _apply_loss_reduction(loss: Tensor, reduction: int) -> Tensor:
    """ATen's ``apply_loss_reduction``: ``loss.mean()`` / ``loss.sum()`` / ``loss``."""
    aten = _aten()
    if reduction == _MEAN:
        return aten.mean.default(loss)
    if reduction == _SUM:
        return aten.sum.default(loss)
    return loss


def _reduced(values: np.ndarray, reduction: int, np_dtype: Any) -> Any:
    """The loss values reduced as the CPU kernels do (a mean of nothing is NaN)."""
    if reduction == _MEAN:
        return np.asarray(values.mean() if values.size else np.nan, dtype=np_dtype)
    if reduction == _SUM:
        return np.asarray(values.sum(), dtype=np_dtype)
    return values


def _bce_checks(kernel: str, self: Tensor, target: Tensor, weight: Tensor | None) -> tuple[int, ...]:
    """The dtype / shape checks of the CPU kernels' TensorIterator: target (and weight, cast) fit self."""
    dtype = self._dtype
    _same_dtype(dtype, target)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dtype)}\'')
    shape = broadcast_shapes(self._shape, target._shape)
    if weight is not None:
        broadcast_shapes(shape, weight._shape)
    return shape


def _check_unit_interval(x: np.ndarray, y: np.ndarray) -> None:
    """The CPU loop's per-element checks: input, then target, for each element in turn."""
    x, y = np.broadcast_arrays(x, y)
    bad_x, bad_y = ~((x >= 0) & (x <= 1)).ravel(), ~((y >= 0) & (y <= 1)).ravel()
    first_x = int(np.argmax(bad_x)) if bad_x.any() else bad_x.size
    first_y = int(np.argmax(bad_y)) if bad_y.any() else bad_y.size
    if first_x < bad_x.size and first_x <= first_y:
        raise RuntimeError("all elements of input should be between 0 and 1")
    if first_y < bad_y.size:
        raise RuntimeError("all elements of target should be between 0 and 1")


@impl("binary_cross_entropy", "CPU", "Meta")
def binary_cross_entropy(self: Tensor, target: Tensor, weight: Tensor | None = None,
                         reduction: int = _MEAN) -> Tensor:
    """``(target - 1) * max(log1p(-x), -100) - target * max(log(x), -100)``, times weight, then reduced; the
    loss is ``empty_like(self)`` (self's layout), the reduction a 0-dim tensor."""
    _bce_checks("binary_cross_entropy", self, target, weight)
    dtype = self._dtype
    meta = TensorMeta(self._shape, like_strides(self, None), dtype)
    if reduction != _NONE:
        meta = TensorMeta((), (), dtype)

    def compute() -> Any:
        op = _pw._opmath(dtype)
        x, y = np_operand(self, op), np_operand(target, op)
        _check_unit_interval(x, y)
        t = op.np_dtype.type
        loss = (y - 1) * np.maximum(np.log1p(-x), t(-100)) - y * np.maximum(np.log(x), t(-100))
        if weight is not None:
            loss = loss * np_operand(weight, op)
        if reduction != _NONE:  # a target of more dims: PyTorch resizes the loss to the broadcast shape, then reduces
            return _reduced(np.broadcast_to(loss, np.broadcast_shapes(loss.shape, self._shape)), reduction,
                            op.np_dtype)
        return _reduced(np.broadcast_to(loss, self._shape), reduction, op.np_dtype)

    return _pw._run(meta, self, compute)


@impl("binary_cross_entropy_backward", "CPU", "Meta")
def binary_cross_entropy_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None = None,
                                  reduction: int = _MEAN) -> Tensor:
    """``grad * (x - target) / max((1 - x) * x, 1e-12)``, times weight, divided by numel for a mean; into
    ``empty_like(self)``."""
    _same_dtype(grad_output._dtype, self, target)  # (the iterator's dtype is grad's)
    _bce_checks("binary_cross_entropy_backward", self, target, weight)
    shape = broadcast_shapes(broadcast_shapes(self._shape, target._shape), grad_output._shape)
    if shape != self._shape:  # (PyTorch resizes its empty_like(self) output, deprecated, and returns part of it)
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the broadcast shape {list(shape)}")
    dtype = self._dtype
    meta = TensorMeta(self._shape, like_strides(self, None), dtype)

    def compute() -> Any:
        op = _pw._opmath(dtype)
        t = op.np_dtype.type
        x, y, g = (np_operand(a, op) for a in (self, target, grad_output))
        out = g * (x - y) / np.maximum((1 - x) * x, t(1e-12))
        if weight is not None:
            out = out * np_operand(weight, op)
        if reduction == _MEAN:
            out = out / t(self.numel())
        return np.broadcast_to(out, self._shape)

    return _pw._run(meta, self, compute)


@impl("binary_cross_entropy_with_logits", "CompositeExplicitAutograd")
def binary_cross_entropy_with_logits(self: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = _MEAN) -> Tensor:
    """Loss.cpp: ``(1 - target).mul_(self).sub_(log_sigmoid(self) [* ((pos_weight - 1) * target + 1)])``, times
    weight, reduced (the in-place ops keep target's dtype)."""
    aten = _aten()
    log_sigmoid_input = aten.log_sigmoid.default(self)
    if pos_weight is not None:
        log_weight = aten.add_.Scalar(aten.mul.Tensor(aten.sub.Scalar(pos_weight, 1), target), 1)
        log_sigmoid_input = aten.mul_.Tensor(log_sigmoid_input, log_weight)
    loss = aten.sub_.Tensor(aten.mul_.Tensor(aten.rsub.Scalar(target, 1), self), log_sigmoid_input)
    if weight is not None:
        loss = aten.mul_.Tensor(loss, weight)
    return _apply_loss_reduction(loss, reduction)


# --- huber_loss -----------------------------------------------------------------------------------------------------


@impl("huber_loss", "CPU", "Meta")
def huber_loss(self: Tensor, target: Tensor, reduction: int = _MEAN, delta: float = 1.0) -> Tensor:
    """``z = |x - y|``: ``z < delta ? z * z / 2 : delta * (z - delta / 2)``, then the mean or sum."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    meta = _pw.binary_meta(self, target)
    dtype = meta.dtype
    check_inplace(self, self._shape, dtype, overlap=False)  # (the iterator's output, empty_like(self): its dtype)
    _pw._require_dtype("huber_cpu", dtype, self, _pw._is_float)
    if reduction != _NONE:
        meta = TensorMeta((), (), dtype)

    def compute() -> Any:
        op = _pw._opmath(dtype)
        t = op.np_dtype.type
        z = np.abs(np_operand(self, op) - np_operand(target, op))
        loss = np.where(z < t(delta), t(0.5) * z * z, t(delta) * (z - t(0.5) * t(delta)))
        return _reduced(loss, reduction, op.np_dtype)

    return _pw._run(meta, self, compute)


@impl("huber_loss_backward", "CompositeExplicitAutograd")
def huber_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float) -> Tensor:
    """``x = self - target``: ``x <= -delta ? -norm * grad * delta : x >= delta ? norm * grad * delta :
    norm * x * grad`` into ``zeros_like(self, contiguous_format)`` (norm: 1 / numel for a mean)."""
    _pw._same_dtype(self._dtype, target, grad_output)  # (the iterator: zeros_like(self), self, target, grad)
    norm = 1.0 / self.numel() if (reduction == _MEAN and self.numel()) else (
        float("inf") if reduction == _MEAN else 1.0)
    common = _dtypes.result_type(self, target, grad_output)
    shape = broadcast_shapes(broadcast_shapes(self._shape, target._shape), grad_output._shape)
    check_inplace(Tensor._empty(shape, self._dtype, self._device, contiguous_strides(shape)), shape, common)
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)

    def compute() -> Any:
        op = _pw._opmath(common)
        t = op.np_dtype.type
        x = np_operand(self, op) - np_operand(target, op)
        g = np_operand(grad_output, op)
        n, d = t(norm), t(delta)
        return np.broadcast_to(np.where(x <= -d, -n * g * d, np.where(x >= d, n * g * d, n * x * g)), shape)

    return _pw._run(meta, self, compute)


# --- soft_margin_loss -----------------------------------------------------------------------------------------------


@impl("soft_margin_loss", "CompositeExplicitAutograd")
def soft_margin_loss(self: Tensor, target: Tensor, reduction: int = _MEAN) -> Tensor:
    """Loss.cpp: ``log1p(exp(-self * target))`` computed in place into a tensor of self's dtype, then reduced."""
    aten = _aten()
    out = aten.exp_.default(aten.mul_.Tensor(aten.neg.default(self), target))
    return _apply_loss_reduction(aten.log1p.default(out), reduction)  # (log1p_ in PyTorch: not in this listing)


@impl("soft_margin_loss_backward", "CompositeExplicitAutograd")
def soft_margin_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    """``-norm * target * z / (1 + z) * grad`` with ``z = exp(-target * self)`` (norm: 1 / numel for a mean)."""
    aten = _aten()
    result = _dtypes.result_type(target, self)  # (mul_out(grad_input = empty_like(self), target, exp(...)))
    check_inplace(self, self._shape, result if result.is_floating_point else _dtypes.get_default_dtype(),
                  overlap=False)
    n = self.numel()
    norm = (1.0 / n if n else math.inf) if reduction == _MEAN else 1.0  # (C++'s 1.0 / 0: the mul below then raises)
    z = aten.exp.default(aten.mul.Tensor(aten.neg.default(target), self))
    out = aten.mul.Tensor(aten.mul.Scalar(target, -norm), z)
    out = aten.mul_.Tensor(out, grad_output)
    return aten.div_.Tensor(out, aten.add.Scalar(z, 1.0))


# --- the margin losses, poisson_nll_loss and kl_div (CompositeImplicitAutograd) -------------------------------------


@impl("kl_div", "CompositeImplicitAutograd")
def kl_div(self: Tensor, target: Tensor, reduction: int = _MEAN, *, log_target: bool = False) -> Tensor:
    """``exp(target) * (target - self)`` (log_target) or ``xlogy(target, target) - target * self``, reduced."""
    aten = _aten()
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:  # (C++ evaluates the right operand first)
        diff = aten.sub.Tensor(target, self)
        loss = aten.mul.Tensor(aten.exp.default(target), diff)
    else:
        product = aten.mul.Tensor(target, self)
        loss = aten.sub.Tensor(aten.xlogy.Tensor(target, target), product)
    return _apply_loss_reduction(loss, reduction)


@impl("margin_ranking_loss", "CompositeImplicitAutograd")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = _MEAN) -> Tensor:
    """``(-target * (input1 - input2) + margin).clamp_min_(0)``, reduced."""
    aten = _aten()
    diff = aten.sub.Tensor(input1, input2)
    out = aten.clamp_min_.default(aten.add.Scalar(aten.mul.Tensor(aten.neg.default(target), diff), margin), 0)
    return _apply_loss_reduction(out, reduction)


@impl("hinge_embedding_loss", "CompositeImplicitAutograd")
def hinge_embedding_loss(self: Tensor, target: Tensor, margin: float = 1.0, reduction: int = _MEAN) -> Tensor:
    """``where(target != 1, (margin - self).clamp_min_(0), 0) + where(target != -1, self, 0)``, reduced."""
    aten = _aten()
    zeros = aten.zeros_like.default(self, memory_format=contiguous_format)  # LEGACY_CONTIGUOUS_MEMORY_FORMAT
    # ``margin - self``: C++'s operator-(Scalar, Tensor) is ``empty_like(self).fill_(margin).sub_(self)``
    filled = aten.fill_.Scalar(aten.empty_like.default(self, memory_format=preserve_format), margin)
    margin_clamp = aten.clamp_min_.default(aten.sub_.Tensor(filled, self), 0)
    margin_part = aten.where.self(aten.ne.Scalar(target, 1), margin_clamp, zeros)
    self_part = aten.where.self(aten.ne.Scalar(target, -1), self, zeros)
    return _apply_loss_reduction(aten.add.Tensor(margin_part, self_part), reduction)


@impl("cosine_embedding_loss", "CompositeImplicitAutograd")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = _MEAN) -> Tensor:
    """``cos = <x1, x2> / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12))`` along the target's dim: ``1 - cos`` where
    target is 1, ``(cos - margin).clamp_min_(0)`` where it is -1, reduced."""
    aten = _aten()
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1._shape)} and {list(input2._shape)}.")
    if targ_dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1._shape)} and {list(input2._shape)}.")
    epsilon = float(np.float32(1e-12))  # ``static const float EPSILON = 1e-12``
    prod_sum = aten.sum.dim_IntList(aten.mul.Tensor(input1, input2), [targ_dim])
    mag_square1 = aten.add.Scalar(aten.sum.dim_IntList(aten.mul.Tensor(input1, input1), [targ_dim]), epsilon)
    mag_square2 = aten.add.Scalar(aten.sum.dim_IntList(aten.mul.Tensor(input2, input2), [targ_dim]), epsilon)
    denom = aten.sqrt_.default(aten.mul.Tensor(mag_square1, mag_square2))
    cos = aten.div.Tensor(prod_sum, denom)
    zeros = aten.zeros_like.default(cos, memory_format=contiguous_format)
    pos = aten.sub_.Tensor(aten.fill_.Scalar(aten.empty_like.default(cos, memory_format=preserve_format), 1), cos)
    neg = aten.clamp_min_.default(aten.sub.Scalar(cos, margin), 0)
    output_pos = aten.where.self(aten.eq.Scalar(target, 1), pos, zeros)
    output_neg = aten.where.self(aten.eq.Scalar(target, -1), neg, zeros)
    return _apply_loss_reduction(aten.add.Tensor(output_pos, output_neg), reduction)


@impl("poisson_nll_loss", "CompositeImplicitAutograd")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,  # noqa: A002
                     reduction: int) -> Tensor:
    """``exp(input) - target * input`` (log_input) or ``input - target * log(input + eps)``, plus Stirling's
    term ``target * log(target) - target + log(2 pi target) / 2`` where target > 1 (full), reduced."""
    aten = _aten()
    if log_input:  # (C++ evaluates the right operand of ``-`` first)
        product = aten.mul.Tensor(target, input)
        loss = aten.sub.Tensor(aten.exp.default(input), product)
    else:
        loss = aten.sub.Tensor(input, aten.mul.Tensor(target, aten.log.default(aten.add.Scalar(input, eps))))
    if full:  # (C++ evaluates the right operand of ``+`` first; ``loss += ...`` is add_)
        half_log = aten.mul.Scalar(aten.log.default(aten.mul.Scalar(target, 2 * math.pi)), 0.5)
        stirling = aten.add.Tensor(aten.sub.Tensor(aten.mul.Tensor(target, aten.log.default(target)), target),
                                   half_log)
        loss = aten.add_.Tensor(loss, aten.masked_fill.Scalar(stirling, aten.le.Scalar(target, 1), 0))
    return _apply_loss_reduction(loss, reduction)


# --- l1 / smooth l1 losses ------------------------------------------------------------------------------------------

_REDUCTION_NONE, _REDUCTION_MEAN, _REDUCTION_SUM = 0, 1, 2


@impl("l1_loss", "CompositeImplicitAutograd")
def l1_loss(self: Tensor, target: Tensor, reduction: int = _REDUCTION_MEAN) -> Tensor:
    """``apply_loss_reduction((self - target).abs(), reduction)``."""
    aten = _aten()
    return _apply_loss_reduction(aten.abs.default(aten.sub.Tensor(self, target)), reduction)


def _smooth_l1_values(x: np.ndarray, y: np.ndarray, beta: float) -> Any:
    z = np.abs(x - y)
    if beta == 0:
        return z
    return np.where(z < beta, z * z * x.dtype.type(0.5 / beta), z - x.dtype.type(0.5 * beta))


@impl("smooth_l1_loss", "CPU", "Meta")
def smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = _REDUCTION_MEAN, beta: float = 1.0) -> Tensor:
    """Elementwise over (self, target) broadcast together, then the mean or sum (a 0-dim result)."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    meta = _pw.binary_meta(self, target)
    dtype = meta.dtype
    _pw._require_dtype("smooth_l1_cpu", dtype, self, _pw._is_float)
    if reduction != _REDUCTION_NONE:
        meta = TensorMeta((), (), dtype)

    def compute() -> Any:
        op = _pw._opmath(dtype)
        loss = _smooth_l1_values(np_operand(self, op), np_operand(target, op), beta)
        if reduction == _REDUCTION_MEAN:
            return np.asarray(loss.mean() if loss.size else np.nan, dtype=op.np_dtype)
        if reduction == _REDUCTION_SUM:
            return np.asarray(loss.sum(), dtype=op.np_dtype)
        return loss

    return _pw._run(meta, self, compute)


@impl("smooth_l1_loss_backward", "CompositeExplicitAutograd")
def smooth_l1_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float) -> Tensor:
    """``x = self - target``: ``x <= -beta ? -norm * grad : x >= beta ? norm * grad : norm * x * grad / beta`` into
    ``zeros_like(self, contiguous_format)`` (norm: 1 / numel for a mean); ``beta <= 0`` is l1_loss_backward."""
    norm = 1.0 / max(self.numel(), 1) if reduction == _REDUCTION_MEAN else 1.0
    if self.numel() == 0 and reduction == _REDUCTION_MEAN:
        norm = float("inf")
    if beta <= 0:
        dtype = _dt_result(grad_output, self, target)
        meta = _pw.iter_meta((self, target, grad_output), dtype)

        def l1() -> Any:
            op = _pw._opmath(dtype)
            x = np_operand(self, op) - np_operand(target, op)
            return np.sign(x) * np_operand(grad_output, op) * op.np_dtype.type(norm)

        return _pw._run(meta, self, l1)
    common = _dt_result(self, target, grad_output)
    out_dtype = self._dtype
    shape = broadcast_shapes(broadcast_shapes(self._shape, target._shape), grad_output._shape)
    # the output zeros_like(self) is resized to the broadcast shape when that is larger (as TensorIterator does)
    check_inplace(Tensor._empty(shape, out_dtype, self._device, contiguous_strides(shape)), shape, common)
    meta = TensorMeta(shape, contiguous_strides(shape), out_dtype)

    def compute() -> Any:
        op = _pw._opmath(common)
        x = np_operand(self, op) - np_operand(target, op)
        g = np_operand(grad_output, op)
        n, b = op.np_dtype.type(norm), op.np_dtype.type(beta)
        return np.broadcast_to(np.where(x <= -b, -n * g, np.where(x >= b, n * g, n * x * g / b)), shape)

    return _pw._run(meta, self, compute)


REDUCTION_NONE, REDUCTION_MEAN, REDUCTION_SUM = 0, 1, 2


# --- mse_loss -----------------------------------------------------------------------------------------


def _check_reduction(reduction: int) -> None:
    if reduction not in (REDUCTION_NONE, REDUCTION_MEAN, REDUCTION_SUM):
        raise RuntimeError(
            "reduction == Reduction::Mean || reduction == Reduction::Sum INTERNAL ASSERT FAILED at "
            '"/__w/pytorch/pytorch/aten/src/ATen/native/Loss.cpp":97, please report a bug to PyTorch. '
        )


@impl("mse_loss", "CPU", "Meta")
def mse_loss(self: Tensor, target: Tensor, reduction: int = REDUCTION_MEAN) -> Tensor:
    broadcast_shapes(self._shape, target._shape)  # the shape check (PyTorch's error) comes first
    d = _dt.result_type(self, target)
    _check_reduction(reduction)
    if not _is_float(d) and not is_meta(self):
        raise not_implemented("mse_cpu", d)
    if reduction == REDUCTION_NONE:
        meta = iter_meta((self, target), d)  # inputs cast to d first, as TensorIterator does on CPU
    else:
        meta = TensorMeta((), (), d)

    def compute() -> np.ndarray:
        diff = self._data.astype(d.np_dtype, copy=False) - target._data.astype(d.np_dtype, copy=False)
        loss = diff * diff
        if reduction == REDUCTION_NONE:
            return loss
        total = np.sum(loss, dtype=np.float64)
        if reduction == REDUCTION_SUM:
            return total
        with np.errstate(invalid="ignore", divide="ignore"):
            return total / loss.size if loss.size else np.float64(np.nan)

    return materialize(meta, compute, self)


@impl("mse_loss_backward", "CPU", "Meta")
def mse_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    shape = broadcast_shapes(self._shape, target._shape, grad_output._shape)
    common = _dt.result_type(self, target, grad_output)
    if not _can_cast(common, self._dtype):
        raise RuntimeError(
            f"result type {scalar_type_name(common)} can't be cast to the desired output type "
            f"{scalar_type_name(self._dtype)}"
        )
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)

    def compute() -> np.ndarray:
        cd = common.np_dtype
        norm = 2.0 / self.numel() if reduction == REDUCTION_MEAN and self.numel() else 2.0
        a, b, g = (t._data.astype(cd, copy=False) for t in (self, target, grad_output))
        return np.broadcast_to(cd.type(norm) * (a - b) * g, shape)

    return materialize(meta, compute, self)
