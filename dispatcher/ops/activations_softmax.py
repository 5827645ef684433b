"""``_softmax`` / ``_log_softmax``, their backward ops, and the CompositeImplicitAutograd ``softmax.int`` /
``log_softmax.int``.

Corresponds to aten/src/ATen/native/SoftMax.cpp and its CPU kernels. The kernels compute in float64 and round once;
a 0-dim tensor takes dims -1 and 0, both meaning 0. ``softmax.int`` / ``log_softmax.int`` call ``_softmax`` /
``_log_softmax`` after converting ``self`` to ``dtype=`` (``_to_copy``), as PyTorch's composites do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .composite import _STRIDED, _op
from .fp_errors import quiet_fp
from .kernel_dtypes import _expected_scalar_type, _f64, is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, wrap_dim
from .tensor_iterator import _is_float

# --- softmax / log_softmax ----------------------------------------------------------------------------


def _softmax_dim(self: Tensor, dim: int) -> int:
    return wrap_dim(dim, max(self.dim(), 1))  # a 0-dim tensor takes dims -1 and 0, both meaning 0


def _softmax_values(x: np.ndarray, dim: int, log: bool) -> np.ndarray:
    if x.ndim == 0:
        x = x.reshape(1)
        return _softmax_values(x, 0, log).reshape(())
    if x.size == 0:
        return x
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # all -inf rows give NaN, as in PyTorch
        # (ufunc reductions: what ndarray.max / .sum run, without their Python-level wrappers)
        shifted = x - np.maximum.reduce(x, axis=dim, keepdims=True)
        if log:
            return shifted - np.log(np.add.reduce(np.exp(shifted), axis=dim, keepdims=True))
        e = np.exp(shifted, out=shifted)
        e /= np.add.reduce(e, axis=dim, keepdims=True)
        return e


def _softmax_forward(name: str, self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    d = _softmax_dim(self, dim)
    out_dtype = _dt.float32 if half_to_float else self._dtype
    if half_to_float and not (is_meta(self) and self._dtype is _dt.float16):
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    if not _is_float(self._dtype) and not is_meta(self) and self.numel():
        last = self.dim() <= 1 or d == self.dim() - 1
        raise not_implemented(f"{name}_{'lastdim_' if last else ''}kernel_impl", self._dtype)
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), out_dtype)
    return materialize(meta, lambda: _softmax_values(_f64(self), d, name == "log_softmax"), self)


@impl("_softmax", "CPU", "Meta")
def _softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    return _softmax_forward("softmax", self, dim, half_to_float)


@impl("_log_softmax", "CPU", "Meta")
def _log_softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    return _softmax_forward("log_softmax", self, dim, half_to_float)


def _softmax_backward(name: str, grad_output: Tensor, output: Tensor, dim: int, input_dtype: Any) -> Tensor:
    if grad_output._shape != output._shape:
        raise RuntimeError(
            f"Expected tensor for argument #1 'grad' to have same size as tensor for argument #2 'output'; but "
            f"{list(grad_output._shape)} does not equal {list(output._shape)} (while checking arguments for "
            f"{name}_backward)"
        )
    d = wrap_dim(dim, max(grad_output.dim(), 1))
    g_dtype = grad_output._dtype
    out_dtype = _dt.float16 if (g_dtype is _dt.float32 and _dt.from_code(input_dtype) is _dt.float16) else g_dtype
    if not is_meta(grad_output) and grad_output.numel():
        if not _is_float(g_dtype):
            last = grad_output.dim() <= 1 or d == grad_output.dim() - 1
            raise not_implemented(f"{name}_backward_{'lastdim_' if last else ''}kernel_impl", g_dtype)
        if out_dtype is not g_dtype:
            raise _expected_scalar_type(g_dtype, out_dtype)
        if output._dtype is not g_dtype:
            raise _expected_scalar_type(g_dtype, output._dtype)
    meta = TensorMeta(grad_output._shape, contiguous_strides(grad_output._shape), out_dtype)

    @quiet_fp
    def compute() -> np.ndarray:
        g, y = _f64(grad_output), _f64(output)
        if g.ndim == 0:
            g, y = g.reshape(1), y.reshape(1)
        axis = d if grad_output.dim() else 0
        if name == "softmax":
            r = y * (g - np.sum(g * y, axis=axis, keepdims=True))
        else:
            r = g - np.exp(y) * np.sum(g, axis=axis, keepdims=True)
        return r.reshape(grad_output._shape)

    return materialize(meta, compute, grad_output)


@impl("_softmax_backward_data", "CPU", "Meta")
def _softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: Any) -> Tensor:
    return _softmax_backward("softmax", grad_output, output, dim, input_dtype)


@impl("_log_softmax_backward_data", "CPU", "Meta")
def _log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: Any) -> Tensor:
    return _softmax_backward("log_softmax", grad_output, output, dim, input_dtype)


def _to_type(self: Tensor, dtype: _dt.dtype) -> Tensor:
    """Tensor::toType(dtype): ``to`` with the full TensorOptions (dtype, strided, self's device)."""
    if self._dtype is dtype:
        return self
    return _op("_to_copy")(self, dtype=dtype, layout=_STRIDED, device=self._device)


# --- softmax.int / log_softmax.int (CompositeImplicitAutograd) ------------------------------------------


@impl("softmax.int", "CompositeImplicitAutograd")
def softmax_int(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    converted = self if dtype is None else _to_type(self, _dt.from_code(dtype))
    return _op("_softmax")(converted, dim, False)


@impl("log_softmax.int", "CompositeImplicitAutograd")
def log_softmax_int(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    converted = self if dtype is None else _to_type(self, _dt.from_code(dtype))
    return _op("_log_softmax")(converted, dim, False)
