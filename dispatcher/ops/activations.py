"""Activation kernels: ``relu`` / ``relu6``, ``gelu``, ``silu``, ``mish``, ``elu`` / ``selu`` / ``celu``,
``leaky_relu``, ``hardtanh``, ``hardsigmoid`` / ``hardswish``, ``softplus``, ``log_sigmoid``, ``glu``,
``threshold``, their in-place forms and backward ops.

Corresponds to aten/src/ATen/native/Activation.cpp, GatedLinearUnit.cpp and their CPU kernels
(native/cpu/Activation.cpp). They use tensor_iterator.py's metadata, so one function is the Meta and the CPU
kernel; floating-only activations are refused for other dtypes on CPU, as PyTorch's dtype switch does. A backward
op takes PyTorch's iterator order of its inputs (which decides the output's layout); ``leaky_relu_backward`` /
``elu_backward`` refuse a negative slope when given the forward's result (the in-place forward), as PyTorch does.
``relu6``, ``selu`` and ``log_sigmoid`` are CompositeImplicitAutograd and ``celu`` CompositeExplicitAutograd
compositions of aten ops, as in PyTorch; the other in-place forms store the out-of-place kernel's result into
``self``. Softmax is in activations_softmax.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from . import tensor_iterator as _pw
from .arithmetic_clamp import _bound
from .composite import _aten
from .kernel_registry import impl
from .meta_utils import TensorMeta, broadcast_shapes, check_inplace, checked_scalar, np_operand, wrap_dim
from .strides import like_strides
from .tensor_iterator import (
    _bool,
    _dt_result,
    _is_float,
    _not_bool,
    _operand,
    _opmath,
    _require_dtype,
    _run,
    _same_dtype,
    binary_meta,
    inplace_from,
    iter_meta,
    unary_meta,
)
from .transcendental import _erf


def _relu_check(self: Tensor) -> None:
    if self._dtype is _bool and self._data is not None:
        raise RuntimeError("Boolean inputs not supported for relu")


@impl("relu", "CPU", "Meta")
def relu(self: Tensor) -> Tensor:
    _relu_check(self)
    return _run(unary_meta(self), self, lambda: np.maximum(self._data, self._dtype.np_dtype.type(0)))


@impl("relu_", "CPU", "Meta")
def relu_(self: Tensor) -> Tensor:
    _relu_check(self)
    if self._data is not None:
        np.maximum(self._data, self._dtype.np_dtype.type(0), out=self._data)
    return self


# --- activations ----------------------------------------------------------------------------------


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_KAPPA = 0.044715


def _check_approximate(approximate: str) -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _gelu_values(x: np.ndarray, approximate: str) -> Any:
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + _GELU_KAPPA * x * x * x)
        return 0.5 * x * (1 + np.tanh(inner))
    return x * 0.5 * (1 + _erf(x * x.dtype.type(_INV_SQRT_2)))


@impl("gelu", "CPU", "Meta")
def gelu(self: Tensor, *, approximate: str = "none") -> Tensor:
    _check_approximate(approximate)
    _require_dtype("GeluKernelImpl", self._dtype, self, _is_float)
    dtype = self._dtype
    return _run(unary_meta(self), self, lambda: _gelu_values(_operand(self, dtype), approximate))


@impl("silu", "CPU", "Meta")
def silu(self: Tensor) -> Tensor:
    _require_dtype("silu_cpu", self._dtype, self, _is_float)
    dtype = self._dtype

    def compute() -> Any:
        x = _operand(self, dtype)
        return x / (1 + np.exp(-x))

    return _run(unary_meta(self), self, compute)


@impl("threshold_backward", "CPU", "Meta")
def threshold_backward(grad_output: Tensor, self: Tensor, threshold: Any) -> Tensor:
    """``self <= threshold ? 0 : grad_output`` (PyTorch's iterator takes self first, then grad_output)."""
    dtype = _dt.result_type(self, grad_output)
    meta = iter_meta((self, grad_output), dtype)
    _require_dtype("threshold_cpu", dtype, grad_output, _not_bool)

    def compute() -> Any:
        op = _opmath(dtype)
        x, g = np_operand(self, op), np_operand(grad_output, op)
        return np.where(x <= _bound(threshold, dtype, op), op.np_dtype.type(0), g)

    return _run(meta, grad_output, compute)


@impl("gelu_backward", "CPU", "Meta")
def gelu_backward(grad_output: Tensor, self: Tensor, *, approximate: str = "none") -> Tensor:
    _check_approximate(approximate)
    meta = binary_meta(grad_output, self)
    _require_dtype("GeluBackwardKernelImpl", meta.dtype, grad_output, _is_float)

    def compute() -> Any:
        g, x = _operand(grad_output, meta.dtype), _operand(self, meta.dtype)
        if approximate == "tanh":
            x_sq = x * x
            inner = _SQRT_2_OVER_PI * (x + _GELU_KAPPA * x_sq * x)
            t = np.tanh(inner)
            left = 0.5 * x
            right = 1 + t
            left_derivative = 0.5 * right
            right_derivative = left * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_KAPPA * x_sq)
            return g * (left_derivative + right_derivative)
        cdf = 0.5 * (1 + _erf(x * x.dtype.type(_INV_SQRT_2)))
        pdf = np.exp(-0.5 * x * x) * x.dtype.type(_INV_SQRT_2PI)
        return g * (cdf + x * pdf)

    return _run(meta, grad_output, compute)


# --- silu_backward -------------------------------------------------------------------------------------


@impl("silu_backward", "CPU", "Meta")
def silu_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """``grad * sigmoid(x) * (1 + x * (1 - sigmoid(x)))``."""
    meta = binary_meta(grad_output, self)
    _require_dtype("silu_backward_cpu", meta.dtype, grad_output, _is_float)

    def compute() -> Any:
        g, x = _operand(grad_output, meta.dtype), _operand(self, meta.dtype)
        s = 1 / (1 + np.exp(-x))
        return g * s * (1 + x * (1 - s))

    return _run(meta, grad_output, compute)


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
    """``x <= -3 ? 0 : x < 3 ? grad * (x / 3 + 0.5) : grad`` (PyTorch's CPU kernel's boundaries: 0 at -3, grad at 3)."""

    def compute(g: np.ndarray, x: np.ndarray) -> Any:
        return np.where(x <= -3, g.dtype.type(0), np.where(x < 3, g * (x / 3 + x.dtype.type(0.5)), g))

    return _float_backward("hardswish_backward_cpu", grad_output, self, compute)


# --- CompositeImplicitAutograd ----------------------------------------------------------------------------------------


@impl("relu6", "CompositeImplicitAutograd")
def relu6(self: Tensor) -> Tensor:
    """``hardtanh(self, 0, 6)``."""
    from ..op_overload import namespace

    return namespace("aten").hardtanh.default(self, 0, 6)


# --- in-place forms: the out-of-place kernel's result stored into self -------------------------------------------------

leaky_relu_ = impl("leaky_relu_", "CPU", "Meta")(inplace_from(leaky_relu, "leaky_relu_"))
elu_ = impl("elu_", "CPU", "Meta")(inplace_from(elu, "elu_"))
hardtanh_ = impl("hardtanh_", "CPU", "Meta")(inplace_from(hardtanh, "hardtanh_"))
hardswish_ = impl("hardswish_", "CPU", "Meta")(inplace_from(hardswish, "hardswish_"))


@impl("relu6_", "CompositeImplicitAutograd")
def relu6_(self: Tensor) -> Tensor:
    """``hardtanh_(self, 0, 6)``."""
    from ..op_overload import namespace

    return namespace("aten").hardtanh_.default(self, 0, 6)


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
    _pw._same_dtype(self._dtype, buffer, grad_output)  # (an undefined output: self's dtype is the common one)
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
        g, x, z = (np_operand(t, op) for t in (grad_output, self, buffer))
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

    if self._data is not None:  # the CPU kernel's iterator writes into empty_like(self)
        check_inplace(self, self._shape, _dt_result(grad_output, self), overlap=False)
    return _float_backward("mish_backward_cpu", grad_output, self, compute)


mish_ = impl("mish_", "CPU", "Meta")(inplace_from(mish, "mish_"))


# --- selu / celu / hardsigmoid / glu / threshold --------------------------------------------------------------------

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
    half_shape = self._shape[:d] + (half,) + self._shape[d + 1:]
    shape = broadcast_shapes(half_shape, grad_output._shape)
    if shape != half_shape:  # (the iterator writes into a half of grad_input)
        raise RuntimeError(f"output with shape {list(half_shape)} doesn't match the broadcast shape {list(shape)}")
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), self._dtype)

    def compute() -> Any:
        op = _pw._opmath(self._dtype)
        first, second = _halves(np_operand(self, op), d, half)
        g = np_operand(grad_output, op)
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


hardsigmoid_ = impl("hardsigmoid_", "CPU", "Meta")(inplace_from(hardsigmoid, "hardsigmoid_"))
# (PyTorch's threshold_ writes through a TensorIterator without the memory-overlap check)
threshold_ = impl("threshold_", "CPU", "Meta")(inplace_from(threshold, "threshold_", overlap=False))
