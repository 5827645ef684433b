"""More activation kernels and their backwards: leaky_relu, hardtanh, elu, softplus, hardswish (ops_a batch).

Corresponds to aten/src/ATen/native/Activation.cpp and its CPU kernels
(cpu/Activation.cpp). Like pointwise.py, one function is the Meta and the CPU
kernel: the output's metadata comes from TensorIterator's rules (``unary_meta``,
``binary_meta``), NumPy computes in the opmath dtype (float32 for float16).
Unsupported dtypes raise PyTorch's NotImplementedError on CPU only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..tensor import Tensor, contiguous_strides
from . import pointwise as _pw
from .factories import like_strides
from .kernel_registry import impl
from .meta_utils import TensorMeta, broadcast_shapes, check_inplace, checked_scalar
from .pointwise_more import inplace_from as _inplace_from

_IN_PLACE_NEGATIVE_SLOPE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
    "This is caused by calling in-place forward function with a negative slope, please call out-of-place version "
    "instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
    "backward calculation with negative slope"
)
_IN_PLACE_ELU_NEGATIVE = (
    "In-place elu backward calculation is triggered with a negative slope which is not supported. This is caused by "
    "calling in-place forward function with a negative slope, please call out-of-place version instead."
)


def _scalar(value: Any, dtype: Any, x: np.ndarray) -> Any:
    """A Scalar argument converted as the kernel does (``to<scalar_t>``, overflow checked), in x's NumPy dtype."""
    if isinstance(value, complex) and value.imag != 0 and not dtype.is_complex:
        raise RuntimeError(f"value cannot be converted to type {_pw._C_TYPE_NAMES[dtype.name]} without overflow")
    return x.dtype.type(checked_scalar(value, dtype))


def _float_unary(kernel: str, self: Tensor, compute: Any) -> Tensor:
    """A floating-only activation: ``compute(x)`` on self's values in opmath."""
    dtype = self._dtype
    _pw._require_dtype(kernel, dtype, self, _pw._is_float)
    return _pw._run(_pw.unary_meta(self), self, lambda: compute(_pw._operand(self, dtype)))


def _float_backward(kernel: str, grad_output: Tensor, self: Tensor, compute: Any, self_first: bool = False) -> Tensor:
    """A floating-only backward over (grad_output, self) broadcast together: ``compute(g, x)`` in opmath.
    ``self_first``: PyTorch's iterator takes self before grad_output (which decides the output's layout)."""
    meta = _pw.binary_meta(self, grad_output) if self_first else _pw.binary_meta(grad_output, self)
    _pw._require_dtype(kernel, meta.dtype, grad_output, _pw._is_float)
    return _pw._run(meta, grad_output,
                    lambda: compute(_pw._operand(grad_output, meta.dtype), _pw._operand(self, meta.dtype)))


# --- leaky_relu ------------------------------------------------------------------------------------------------------


@impl("leaky_relu", "CPU", "Meta")
def leaky_relu(self: Tensor, negative_slope: Any = 0.01) -> Tensor:
    """``x > 0 ? x : x * negative_slope``."""
    dtype = self._dtype

    def compute(x: np.ndarray) -> Any:
        return np.where(x > 0, x, x * _scalar(negative_slope, dtype, x))

    return _float_unary("leaky_relu_cpu", self, compute)


@impl("leaky_relu_backward", "CPU", "Meta")
def leaky_relu_backward(grad_output: Tensor, self: Tensor, negative_slope: Any, self_is_result: bool) -> Tensor:
    """``self > 0 ? grad : grad * negative_slope`` (self may be the forward's result: then a negative slope would
    have flipped signs, which PyTorch refuses)."""
    if self_is_result and negative_slope < 0:
        raise RuntimeError(_IN_PLACE_NEGATIVE_SLOPE)
    return _float_backward("leaky_relu_backward_cpu", grad_output, self,
                           lambda g, x: np.where(x > 0, g, g * x.dtype.type(negative_slope)), self_first=True)


# --- hardtanh -------------------------------------------------------------------------------------------------------


@impl("hardtanh", "CPU", "Meta")
def hardtanh(self: Tensor, min_val: Any = -1, max_val: Any = 1) -> Tensor:
    """``clamp(self, min_val, max_val)`` into ``empty_like(self)``; integer selves use the bounds as integers."""
    if self._dtype is _pw._bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    dtype = self._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        min_val, max_val = int(min_val), int(max_val)
        if dtype.name == "uint8" and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")

    def compute() -> Any:
        x = _pw._operand(self, dtype)
        return np.minimum(np.maximum(x, _scalar(min_val, dtype, x)), _scalar(max_val, dtype, x))

    meta = TensorMeta(self._shape, like_strides(self, None), dtype)  # the output is empty_like(self)
    return _pw._run(meta, self, compute)


@impl("hardtanh_backward", "CPU", "Meta")
def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: Any, max_val: Any) -> Tensor:
    """``(self <= min_val || self >= max_val) ? 0 : grad``."""

    def compute(g: np.ndarray, x: np.ndarray) -> Any:
        outside = (x <= x.dtype.type(min_val)) | (x >= x.dtype.type(max_val))
        return np.where(outside, g.dtype.type(0), g)

    return _float_backward("hardshrink_backward_cpu", grad_output, self, compute)


# --- elu ------------------------------------------------------------------------------------------------------------


@impl("elu", "CPU", "Meta")
def elu(self: Tensor, alpha: Any = 1, scale: Any = 1, input_scale: Any = 1) -> Tensor:
    """``x > 0 ? x * scale : alpha * scale * expm1(x * input_scale)``."""
    dtype = self._dtype

    def compute(x: np.ndarray) -> Any:
        a, s, i = (_scalar(v, dtype, x) for v in (alpha, scale, input_scale))
        return np.where(x > 0, x * s, np.expm1(x * i) * (a * s))

    return _float_unary("elu_cpu", self, compute)


@impl("elu_backward", "CPU", "Meta")
def elu_backward(grad_output: Tensor, alpha: Any, scale: Any, input_scale: Any, is_result: bool,
                 self_or_result: Tensor) -> Tensor:
    """From the input: ``x <= 0 ? grad * input_scale * alpha * scale * exp(x * input_scale) : grad * scale``;
    from the result y: ``y <= 0 ? grad * input_scale * (y + alpha * scale) : grad * scale``."""
    if is_result and alpha < 0:
        raise RuntimeError(_IN_PLACE_ELU_NEGATIVE)

    def compute(g: np.ndarray, x: np.ndarray) -> Any:
        t = x.dtype.type
        negcoef, poscoef, negiptcoef = t(alpha) * t(scale), t(scale), t(input_scale)
        if is_result:
            negative = g * negiptcoef * (x + negcoef)
        else:
            negative = g * negiptcoef * negcoef * np.exp(x * negiptcoef)
        return np.where(x <= 0, negative, g * poscoef)

    return _float_backward("elu_backward_cpu", grad_output, self_or_result, compute)


# --- softplus -------------------------------------------------------------------------------------------------------


@impl("softplus", "CPU", "Meta")
def softplus(self: Tensor, beta: Any = 1, threshold: Any = 20) -> Tensor:
    """``x * beta > threshold ? x : log1p(exp(x * beta)) / beta``."""
    dtype = self._dtype

    def compute(x: np.ndarray) -> Any:
        b, th = _scalar(beta, dtype, x), _scalar(threshold, dtype, x)
        scaled = x * b
        return np.where(scaled > th, x, np.log1p(np.exp(scaled)) / b)

    return _float_unary("softplus_cpu", self, compute)


@impl("softplus_backward", "CPU", "Meta")
def softplus_backward(grad_output: Tensor, self: Tensor, beta: Any, threshold: Any) -> Tensor:
    """``x * beta > threshold ? grad : grad * z / (z + 1)`` with ``z = exp(x * beta)``."""

    def compute(g: np.ndarray, x: np.ndarray) -> Any:
        scaled = x * x.dtype.type(beta)
        z = np.exp(scaled)
        return np.where(scaled > x.dtype.type(threshold), g, g * z / (z + 1))

    return _float_backward("softplus_backward_cpu", grad_output, self, compute)


# --- hardswish ------------------------------------------------------------------------------------------------------


@impl("hardswish", "CPU", "Meta")
def hardswish(self: Tensor) -> Tensor:
    """``x * min(max(x + 3, 0), 6) / 6``."""
    return _float_unary("hardswish_cpu", self, lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6)


@impl("hardswish_backward", "CPU", "Meta")
def hardswish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """``x < -3 ? 0 : x <= 3 ? grad * (x / 3 + 0.5) : grad`` (PyTorch's CPU kernel's boundaries)."""

    def compute(g: np.ndarray, x: np.ndarray) -> Any:
        return np.where(x < -3, g.dtype.type(0), np.where(x <= 3, g * (x / 3 + x.dtype.type(0.5)), g))

    return _float_backward("hardswish_backward_cpu", grad_output, self, compute)


# --- CompositeImplicitAutograd ----------------------------------------------------------------------------------------


@impl("relu6", "CompositeImplicitAutograd")
def relu6(self: Tensor) -> Tensor:
    """``hardtanh(self, 0, 6)``."""
    from ..op_overload import namespace

    return namespace("aten").hardtanh.default(self, 0, 6)


# --- in-place forms: the out-of-place kernel's result stored into self -------------------------------------------------

leaky_relu_ = impl("leaky_relu_", "CPU", "Meta")(_inplace_from(leaky_relu, "leaky_relu_"))
elu_ = impl("elu_", "CPU", "Meta")(_inplace_from(elu, "elu_"))
hardtanh_ = impl("hardtanh_", "CPU", "Meta")(_inplace_from(hardtanh, "hardtanh_"))
hardswish_ = impl("hardswish_", "CPU", "Meta")(_inplace_from(hardswish, "hardswish_"))


@impl("relu6_", "CompositeImplicitAutograd")
def relu6_(self: Tensor) -> Tensor:
    """``hardtanh_(self, 0, 6)``."""
    from ..op_overload import namespace

    return namespace("aten").hardtanh_.default(self, 0, 6)


# --- l1 / smooth l1 losses ------------------------------------------------------------------------------------------

_REDUCTION_NONE, _REDUCTION_MEAN, _REDUCTION_SUM = 0, 1, 2


def _aten() -> Any:
    from ..op_overload import namespace

    return namespace("aten")


def _dt_result(*tensors: Tensor) -> Any:
    return _dtypes.result_type(*tensors)


def _apply_loss_reduction(loss: Tensor, reduction: int) -> Tensor:
    """ATen's ``apply_loss_reduction``: ``loss.mean()`` / ``loss.sum()`` / ``loss``."""
    aten = _aten()
    if reduction == _REDUCTION_MEAN:
        return aten.mean.default(loss)
    if reduction == _REDUCTION_SUM:
        return aten.sum.default(loss)
    return loss


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
        loss = _smooth_l1_values(_pw.np_operand(self, op), _pw.np_operand(target, op), beta)
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
            x = _pw.np_operand(self, op) - _pw.np_operand(target, op)
            return np.sign(x) * _pw.np_operand(grad_output, op) * op.np_dtype.type(norm)

        return _pw._run(meta, self, l1)
    common = _dt_result(self, target, grad_output)
    out_dtype = self._dtype
    shape = broadcast_shapes(broadcast_shapes(self._shape, target._shape), grad_output._shape)
    # the output zeros_like(self) is resized to the broadcast shape when that is larger (as TensorIterator does)
    check_inplace(Tensor._empty(shape, out_dtype, self._device, contiguous_strides(shape)), shape, common)
    meta = TensorMeta(shape, contiguous_strides(shape), out_dtype)

    def compute() -> Any:
        op = _pw._opmath(common)
        x = _pw.np_operand(self, op) - _pw.np_operand(target, op)
        g = _pw.np_operand(grad_output, op)
        n, b = op.np_dtype.type(norm), op.np_dtype.type(beta)
        return np.broadcast_to(np.where(x <= -b, -n * g, np.where(x >= b, n * g, n * x * g / b)), shape)

    return _pw._run(meta, self, compute)


# --- log_sigmoid ------------------------------------------------------------------------------------------------------


@impl("log_sigmoid_forward", "CPU", "Meta")
def log_sigmoid_forward(self: Tensor) -> tuple[Tensor, Tensor]:
    """(``min(x, 0) - log1p(exp(-|x|))``, buffer ``exp(-|x|)``), both contiguous (PyTorch allocates them with
    ``empty_like(self, contiguous_format)``); the buffer serves the backward."""
    dtype = self._dtype
    _pw._require_dtype("log_sigmoid_cpu", dtype, self, _pw._is_float)
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), dtype)
    if self._data is None:
        return _pw._run(meta, self, lambda: None), _pw._run(meta, self, lambda: None)
    x = _pw._operand(self, dtype)
    with np.errstate(all="ignore"):
        z = np.exp(-np.abs(x))
        out = np.minimum(x, 0) - np.log1p(z)
    return _pw._run(meta, self, lambda: out), _pw._run(meta, self, lambda: z)


@impl("log_sigmoid_backward", "CPU", "Meta")
def log_sigmoid_backward(grad_output: Tensor, self: Tensor, buffer: Tensor) -> Tensor:
    """``grad * (max_deriv - sign * z / (1 + z))`` with ``z = buffer`` and (max_deriv, sign) = (1, 1) for x < 0,
    else (0, -1)."""
    dtype = _dt_result(grad_output, self, buffer)
    # PyTorch's iterator: output empty_like(grad_output), then inputs self, buffer, grad_output
    shape = broadcast_shapes(broadcast_shapes(self._shape, buffer._shape), grad_output._shape)
    if shape == grad_output._shape:
        meta = TensorMeta(shape, like_strides(grad_output, None), dtype)
    else:
        meta = _pw.iter_meta((self, buffer, grad_output), dtype)
    _pw._require_dtype("log_sigmoid_backward_cpu", dtype, grad_output, _pw._is_float)

    def compute() -> Any:
        op = _pw._opmath(dtype)
        g, x, z = (_pw.np_operand(t, op) for t in (grad_output, self, buffer))
        negative = x < 0
        max_deriv = np.where(negative, op.np_dtype.type(1), op.np_dtype.type(0))
        sign = np.where(negative, op.np_dtype.type(1), op.np_dtype.type(-1))
        return g * (max_deriv - sign * (z / (1 + z)))

    return _pw._run(meta, grad_output, compute)


@impl("log_sigmoid", "CompositeImplicitAutograd")
def log_sigmoid(self: Tensor) -> Tensor:
    """``std::get<0>(log_sigmoid_forward(self))``."""
    return _aten().log_sigmoid_forward.default(self)[0]


# --- mish ---------------------------------------------------------------------------------------------------------------


def _softplus_values(x: np.ndarray) -> Any:
    return np.log1p(np.exp(x))


@impl("mish", "CPU", "Meta")
def mish(self: Tensor) -> Tensor:
    """``x * tanh(softplus(x))``."""
    return _float_unary("mish_cpu", self, lambda x: x * np.tanh(_softplus_values(x)))


@impl("mish_backward", "CPU", "Meta")
def mish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """``grad * (t + x * sigmoid(x) * (1 - t * t))`` with ``t = tanh(softplus(x))``.

    PyTorch registers this op's CPU kernel plus a CompositeImplicitAutograd one (used by other backends, Meta
    included); here the Meta kernel gives the metadata directly (the listing has one kind per op)."""

    def compute(g: np.ndarray, x: np.ndarray) -> Any:
        t = np.tanh(_softplus_values(x))
        sig = 1 / (1 + np.exp(-x))
        return g * (t + x * sig * (1 - t * t))

    return _float_backward("mish_backward_cpu", grad_output, self, compute)


mish_ = impl("mish_", "CPU", "Meta")(_inplace_from(mish, "mish_"))
