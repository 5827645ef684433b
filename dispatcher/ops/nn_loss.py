"""Kernels of the loss batch: binary cross entropy (plain and with logits), huber, soft margin, kl_div and the
margin losses, and the activations selu / celu / hardsigmoid / glu / threshold, rms_norm, cosine_similarity.

Corresponds to aten/src/ATen/native/Loss.cpp, Activation.cpp, GatedLinearUnit.cpp, layer_norm.cpp and
Distance.cpp. BACKEND kernels are one function for CPU (NumPy, in opmath) and Meta (metadata only), as in
nn_more.py. CompositeExplicitAutograd kernels (``binary_cross_entropy_with_logits``, ``soft_margin_loss``,
``celu``) are written with the aten ops PyTorch's C++ calls; CompositeImplicitAutograd ones (``kl_div``,
``selu``, ``rms_norm``, ``cosine_similarity``, ...) call exactly the ops, in the order, PyTorch's do, so
post-dispatch graphs match op for op.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..memory_format import contiguous_format, preserve_format, strided
from ..tensor import Tensor, contiguous_strides
from ..tls import per_thread
from . import pointwise as _pw
from .factories import like_strides
from .kernel_registry import impl
from .meta_utils import TensorMeta, broadcast_shapes, check_inplace, scalar_type_name, wrap_dim
from .nn_more import _float_backward, _float_unary, _scalar
from .pointwise_more import clamp_min_tensor as _clamp_min_tensor
from .pointwise_more import inplace_from as _inplace_from

_NONE, _MEAN, _SUM = 0, 1, 2


def _aten() -> Any:
    from ..op_overload import namespace

    return namespace("aten")


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


# --- binary_cross_entropy -------------------------------------------------------------------------------------------


def _same_dtype(expected: Any, *tensors: Tensor) -> None:
    """TensorIterator's check that the inputs have the common dtype (no type promotion)."""
    for t in tensors:
        if t._dtype is not expected:
            raise RuntimeError(f"Found dtype {scalar_type_name(t._dtype)} but expected {scalar_type_name(expected)}")


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
        x, y = _pw.np_operand(self, op), _pw.np_operand(target, op)
        _check_unit_interval(x, y)
        t = op.np_dtype.type
        loss = (y - 1) * np.maximum(np.log1p(-x), t(-100)) - y * np.maximum(np.log(x), t(-100))
        if weight is not None:
            loss = loss * _pw.np_operand(weight, op)
        return _reduced(np.broadcast_to(loss, self._shape), reduction, op.np_dtype)

    return _pw._run(meta, self, compute)


@impl("binary_cross_entropy_backward", "CPU", "Meta")
def binary_cross_entropy_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None = None,
                                  reduction: int = _MEAN) -> Tensor:
    """``grad * (x - target) / max((1 - x) * x, 1e-12)``, times weight, divided by numel for a mean; into
    ``empty_like(self)``."""
    _same_dtype(grad_output._dtype, self, target)  # (the iterator's dtype is grad's)
    _bce_checks("binary_cross_entropy_backward", self, target, weight)
    broadcast_shapes(self._shape, grad_output._shape)
    dtype = self._dtype
    meta = TensorMeta(self._shape, like_strides(self, None), dtype)

    def compute() -> Any:
        op = _pw._opmath(dtype)
        t = op.np_dtype.type
        x, y, g = (_pw.np_operand(a, op) for a in (self, target, grad_output))
        out = g * (x - y) / np.maximum((1 - x) * x, t(1e-12))
        if weight is not None:
            out = out * _pw.np_operand(weight, op)
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
    _pw._require_dtype("huber_cpu", dtype, self, _pw._is_float)
    if reduction != _NONE:
        meta = TensorMeta((), (), dtype)

    def compute() -> Any:
        op = _pw._opmath(dtype)
        t = op.np_dtype.type
        z = np.abs(_pw.np_operand(self, op) - _pw.np_operand(target, op))
        loss = np.where(z < t(delta), t(0.5) * z * z, t(delta) * (z - t(0.5) * t(delta)))
        return _reduced(loss, reduction, op.np_dtype)

    return _pw._run(meta, self, compute)


@impl("huber_loss_backward", "CompositeExplicitAutograd")
def huber_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float) -> Tensor:
    """``x = self - target``: ``x <= -delta ? -norm * grad * delta : x >= delta ? norm * grad * delta :
    norm * x * grad`` into ``zeros_like(self, contiguous_format)`` (norm: 1 / numel for a mean)."""
    norm = 1.0 / self.numel() if (reduction == _MEAN and self.numel()) else (
        float("inf") if reduction == _MEAN else 1.0)
    common = _dtypes.result_type(self, target, grad_output)
    shape = broadcast_shapes(broadcast_shapes(self._shape, target._shape), grad_output._shape)
    check_inplace(Tensor._empty(shape, self._dtype, self._device, contiguous_strides(shape)), shape, common)
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)

    def compute() -> Any:
        op = _pw._opmath(common)
        t = op.np_dtype.type
        x = _pw.np_operand(self, op) - _pw.np_operand(target, op)
        g = _pw.np_operand(grad_output, op)
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
    norm = 1.0 / self.numel() if reduction == _MEAN else 1.0
    z = aten.exp.default(aten.mul.Tensor(aten.neg.default(target), self))
    out = aten.mul.Tensor(aten.mul.Scalar(target, -norm), z)
    out = aten.mul_.Tensor(out, grad_output)
    return aten.div_.Tensor(out, aten.add.Scalar(z, 1.0))


# --- the margin losses, poisson_nll_loss and kl_div (CompositeImplicitAutograd) -------------------------------------


@impl("kl_div", "CompositeImplicitAutograd")
def kl_div(self: Tensor, target: Tensor, reduction: int = _MEAN, *, log_target: bool = False) -> Tensor:
    """``exp(target) * (target - self)`` (log_target) or ``xlogy(target, target) - target * self``, reduced."""
    aten = _aten()
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


# --- activations ----------------------------------------------------------------------------------------------------

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@impl("selu", "CompositeImplicitAutograd")
def selu(self: Tensor) -> Tensor:
    """``elu(self, SELU_ALPHA, SELU_SCALE)``."""
    return _aten().elu.default(self, _SELU_ALPHA, _SELU_SCALE)


@impl("selu_", "CompositeImplicitAutograd")
def selu_(self: Tensor) -> Tensor:
    """``elu_(self, SELU_ALPHA, SELU_SCALE)``."""
    return _aten().elu_.default(self, _SELU_ALPHA, _SELU_SCALE)


def _celu_inverse_alpha(alpha: Any) -> float:
    if float(alpha) == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / float(alpha)


@impl("celu", "CompositeExplicitAutograd")
def celu(self: Tensor, alpha: Any = 1.0) -> Tensor:
    """``elu(self, alpha, 1, 1 / alpha)``."""
    return _aten().elu.default(self, alpha, 1.0, _celu_inverse_alpha(alpha))


@impl("celu_", "CompositeExplicitAutograd")
def celu_(self: Tensor, alpha: Any = 1.0) -> Tensor:
    """``elu_(self, alpha, 1, 1 / alpha)``."""
    return _aten().elu_.default(self, alpha, 1.0, _celu_inverse_alpha(alpha))


@impl("hardsigmoid", "CPU", "Meta")
def hardsigmoid(self: Tensor) -> Tensor:
    """``min(max(x + 3, 0), 6) / 6``."""
    return _float_unary("hardsigmoid_cpu", self, lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6)


@impl("hardsigmoid_backward", "CPU", "Meta")
def hardsigmoid_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """``-3 < x < 3 ? grad * (1.0f / 6) : 0``."""

    def compute(g: np.ndarray, x: np.ndarray) -> Any:
        one_sixth = g.dtype.type(np.float32(1.0) / np.float32(6.0))  # ``scalar_t(1.0f / 6.0f)``
        return np.where((x > -3) & (x < 3), g * one_sixth, g.dtype.type(0))

    return _float_backward("hardsigmoid_backward", grad_output, self, compute)


def _glu_dim(kernel_self: Tensor, dim: int) -> tuple[int, int]:
    if kernel_self.dim() == 0:
        raise RuntimeError("glu does not support 0-dimensional tensors")
    d = wrap_dim(dim, kernel_self.dim())
    n = kernel_self._shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    return d, n // 2


def _halves(x: np.ndarray, d: int, half: int) -> tuple[np.ndarray, np.ndarray]:
    index = [slice(None)] * x.ndim
    first = tuple(index[:d] + [slice(0, half)] + index[d + 1:])
    second = tuple(index[:d] + [slice(half, 2 * half)] + index[d + 1:])
    return x[first], x[second]


@impl("glu", "CPU", "Meta")
def glu(self: Tensor, dim: int = -1) -> Tensor:
    """``a * sigmoid(b)`` with ``a, b`` the halves of self along dim (a binary op over the two views)."""
    d, half = _glu_dim(self, dim)
    _pw._require_dtype("glu_cpu", self._dtype, self, _pw._is_float)
    shape = self._shape[:d] + (half,) + self._shape[d + 1:]
    a = Tensor._empty(shape, self._dtype, self._device, self._stride)
    b = Tensor._empty(shape, self._dtype, self._device, self._stride)
    meta = _pw.binary_meta(a, b)

    def compute() -> Any:
        first, second = _halves(_pw._operand(self, self._dtype), d, half)
        return first * (1 / (1 + np.exp(-second)))

    return _pw._run(meta, self, compute)


@impl("glu_backward", "CPU", "Meta")
def glu_backward(grad_output: Tensor, self: Tensor, dim: int) -> Tensor:
    """``cat([sigmoid(b) * grad, (1 - sigmoid(b)) * sigmoid(b) * a * grad], dim)`` into a contiguous tensor."""
    d, half = _glu_dim(self, dim)
    _same_dtype(self._dtype, grad_output)
    _pw._require_dtype("glu_backward_cpu", self._dtype, self, _pw._is_float)
    broadcast_shapes(self._shape[:d] + (half,) + self._shape[d + 1:], grad_output._shape)
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), self._dtype)

    def compute() -> Any:
        op = _pw._opmath(self._dtype)
        first, second = _halves(_pw.np_operand(self, op), d, half)
        g = _pw.np_operand(grad_output, op)
        sig = 1 / (1 + np.exp(-second))
        return np.concatenate([np.broadcast_to(sig * g, first.shape),
                               np.broadcast_to((1 - sig) * sig * first * g, first.shape)], axis=d)

    return _pw._run(meta, self, compute)


@impl("threshold", "CPU", "Meta")
def threshold(self: Tensor, threshold: Any, value: Any) -> Tensor:
    """``x <= threshold ? value : x`` (both bounds in self's dtype)."""
    dtype = self._dtype
    _pw._require_dtype("threshold_cpu", dtype, self, _pw._not_bool)

    def compute() -> Any:
        x = _pw._operand(self, dtype)
        return np.where(x <= _scalar(threshold, dtype, x), _scalar(value, dtype, x), x)

    return _pw._run(_pw.unary_meta(self), self, compute)


hardsigmoid_ = impl("hardsigmoid_", "CPU", "Meta")(_inplace_from(hardsigmoid, "hardsigmoid_"))
threshold_ = impl("threshold_", "CPU", "Meta")(_inplace_from(threshold, "threshold_"))
clamp_min__tensor = impl("clamp_min_.Tensor", "CPU", "Meta")(_inplace_from(_clamp_min_tensor, "clamp_min_"))


@impl("clamp_min_", "CPU", "Meta")
def clamp_min_(self: Tensor, min: Any) -> Tensor:  # noqa: A002 - the schema's name
    """``clamp_(self, min)``: the same meta checks as clamp_."""
    from .pointwise_more import clamp_

    return clamp_(self, min, None)


@impl("add_.Scalar", "CompositeExplicitAutograd")
def add__scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    """``add_.Tensor`` with the wrapped number."""
    return _pw.add__tensor(self, other, alpha=alpha)


# --- rms_norm, cosine_similarity (CompositeImplicitAutograd) ----------------------------------------------------------


def _check_rms_norm_inputs(input: Tensor, normalized_shape: list[int], weight: Tensor | None) -> None:  # noqa: A002
    if len(normalized_shape) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(normalized_shape)}")
    if weight is not None and list(weight._shape) != list(normalized_shape):
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight._shape)} and normalized_shape = {list(normalized_shape)}")
    n = len(normalized_shape)
    if input.dim() < n or list(input._shape[input.dim() - n:]) != list(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*{', '.join(str(s) for s in normalized_shape)}], but got input of size"
                           f"{list(input._shape)}")


@impl("rms_norm", "CompositeImplicitAutograd")
def rms_norm(input: Tensor, normalized_shape: list[int], weight: Tensor | None = None,  # noqa: A002
             eps: float | None = None) -> Tensor:
    """layer_norm.cpp: in opmath (float32 for half precision), ``x * rsqrt(mean(x ** 2, last dims, keepdim)
    .add_(eps))``, times weight, made contiguous, back to input's dtype; eps defaults to the opmath dtype's
    epsilon."""
    aten = _aten()
    _check_rms_norm_inputs(input, list(normalized_shape), weight)
    dtype = input._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise NotImplementedError(f'"rms_norm" not implemented for \'{scalar_type_name(dtype)}\'')
    op = _pw._opmath(dtype)
    dims = [input.dim() - i - 1 for i in range(len(normalized_shape))]
    upcast = aten._to_copy.default(input, dtype=op) if op is not dtype else input
    eps_value = float(np.finfo(op.np_dtype).eps) if eps is None else float(op.np_dtype.type(eps))
    rsqrt = aten.rsqrt.default(aten.add_.Scalar(aten.mean.dim(aten.pow.Tensor_Scalar(upcast, 2), dims, True),
                                                eps_value))
    result = aten.mul.Tensor(upcast, rsqrt)
    if weight is not None:
        result = aten.mul.Tensor(result, weight)
    if not result._contiguous:  # ``result.contiguous()``
        result = aten.clone.default(result, memory_format=contiguous_format)
    if result._dtype is not dtype:
        result = aten._to_copy.default(result, dtype=dtype, layout=strided, device=input._device)
    return result


@impl("cosine_similarity", "CompositeImplicitAutograd")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Distance.cpp: each input divided by its norm along dim (cloned, clamped to eps without grad), then the
    product summed along dim; integer inputs converted to the common dtype, both expanded to one shape."""
    aten = _aten()
    common = _dtypes.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{scalar_type_name(common)}")
    if not (x1._dtype.is_floating_point or x1._dtype.is_complex):
        x1 = aten._to_copy.default(x1, dtype=common)
    if not (x2._dtype.is_floating_point or x2._dtype.is_complex):
        x2 = aten._to_copy.default(x2, dtype=common)
    if x1._shape != x2._shape:  # expand_outplace: both expanded when the sizes differ (x2 first, as C++ runs)
        shape = list(broadcast_shapes(x1._shape, x2._shape))
        x2 = aten.expand.default(x2, shape)
        x1 = aten.expand.default(x1, shape)
    x1_norm = aten.clone.default(aten.linalg_vector_norm.default(x1, 2, [dim], True))
    x2_norm = aten.clone.default(aten.linalg_vector_norm.default(x2, 2, [dim], True))
    grad_enabled = per_thread.s.grad_enabled  # at::NoGradGuard: a C++ guard, never recorded by a trace
    per_thread.s.grad_enabled = False
    try:
        eps_t = aten.scalar_tensor.default(eps, dtype=x1_norm.dtype, device=x1_norm.device)
        aten.clamp_min_.Tensor(x1_norm, eps_t)
        aten.clamp_min_.Tensor(x2_norm, eps_t)
    finally:
        per_thread.s.grad_enabled = grad_enabled
    second = aten.div.Tensor(x2, x2_norm)  # C++ evaluates the right operand of ``*`` first
    return aten.sum.dim_IntList(aten.mul.Tensor(aten.div.Tensor(x1, x1_norm), second), [dim])
