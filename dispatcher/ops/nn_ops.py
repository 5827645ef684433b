"""Neural-network kernels: softmax, layer norm, dropout, losses, embedding, and their backward ops.

Corresponds to aten/src/ATen/native/SoftMax.cpp, layer_norm.cpp, Dropout.cpp,
Loss.cpp, LossNLL.cpp and Embedding.cpp. Forward and backward kernels use
PyTorch's formulas and signatures, so the autograd formulas (and traced graphs)
can call them exactly as PyTorch's derivatives.yaml does.

Numerics: softmax, layer norm and loss reductions compute in float64 and round
once to the result dtype (PyTorch accumulates float32 in float or better);
elementwise loss terms are computed in the result dtype, op by op, like
PyTorch's vectorized kernels. dtype errors that only PyTorch's CPU kernels
raise (``"mse_cpu" not implemented for 'Long'``) are raised on CPU only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides, device
from .kernel_registry import impl
from .meta_utils import (
    TensorMeta,
    broadcast_shapes,
    elementwise_strides,
    materialize,
    preserve_format_strides,
    wrap_dim,
)
from .pointwise import iter_meta
from .reductions import is_meta, not_implemented, scalar_type_name

aten = namespace("aten")

REDUCTION_NONE, REDUCTION_MEAN, REDUCTION_SUM = 0, 1, 2
_META = device("meta")


def _expected_scalar_type(expected: _dt.dtype, found: _dt.dtype) -> RuntimeError:
    return RuntimeError(f"expected scalar type {scalar_type_name(expected)} but found {scalar_type_name(found)}")


def _is_float(d: _dt.dtype) -> bool:
    return d.is_floating_point


def _f64(t: Tensor) -> np.ndarray:
    return t._data.astype(np.float64)


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


# --- layer norm ---------------------------------------------------------------------------------------


def _check_layer_norm_inputs(
    input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None, bias: Tensor | None  # noqa: A002
) -> tuple[int, int]:
    """PyTorch's ``_check_layer_norm_inputs``: returns (M, N), the outer and normalized element counts."""
    ns = [int(s) for s in normalized_shape]
    if len(ns) < 1:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but "
            f"got normalized_shape = {ns}"
        )
    if weight is not None and list(weight._shape) != ns:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight._shape)} and normalized_shape = {ns}"
        )
    if bias is not None and list(bias._shape) != ns:
        raise RuntimeError(
            f"Expected bias to be of same shape as normalized_shape, but got bias of shape {list(bias._shape)} "
            f"and normalized_shape = {ns}"
        )
    ndim = input.dim()
    if ndim < len(ns) or list(input._shape[ndim - len(ns):]) != ns:
        expected = "".join(f", {s}" for s in ns)
        raise RuntimeError(
            f"Given normalized_shape={ns}, expected input with shape [*{expected}], but got input of "
            f"size{list(input._shape)}"
        )
    axis = ndim - len(ns)
    m = math.prod(input._shape[:axis])
    n = math.prod(input._shape[axis:])
    return m, n


def _layer_norm_param_dtype(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> _dt.dtype:  # noqa: A002
    """The dtype of mean / rstd: float32 for half input with float32 parameters ("mixed type"), else the input's."""
    param = weight if weight is not None else bias
    if param is None or param._dtype is input._dtype:
        return input._dtype
    for p in (weight, bias):
        if p is not None and p._dtype is not _dt.float32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input._dtype is not _dt.float16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return _dt.float32


@impl("native_layer_norm", "CPU", "Meta")
def native_layer_norm(
    input: Tensor,  # noqa: A002 - PyTorch's name
    normalized_shape: Sequence[int],
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    m, n = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    stat_dtype = _layer_norm_param_dtype(input, weight, bias)
    if not _is_float(input._dtype) and not is_meta(input):
        raise not_implemented("LayerNormKernelImpl", input._dtype)
    axis = input.dim() - len(normalized_shape)
    stat_shape = tuple(input._shape[:axis]) + (1,) * len(normalized_shape)
    out_meta = TensorMeta(input._shape, contiguous_strides(input._shape), input._dtype)
    stat_meta = TensorMeta(stat_shape, contiguous_strides(stat_shape), stat_dtype)
    if is_meta(input):
        return (materialize(out_meta, None, input), materialize(stat_meta, None, input),
                materialize(stat_meta, None, input))
    x = _f64(input).reshape(m, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        if n:
            mean = np.add.reduce(x, axis=1) / n
            var = np.add.reduce((x - mean[:, None]) ** 2, axis=1) / n
        else:
            mean, var = np.zeros(m), np.full(m, np.nan)
        rstd = 1.0 / np.sqrt(var + eps)
        y = (x - mean[:, None]) * rstd[:, None]
    if weight is not None:
        y = y * _f64(weight).reshape(n)
    if bias is not None:
        y = y + _f64(bias).reshape(n)
    return (
        materialize(out_meta, y.reshape(input._shape), input),
        materialize(stat_meta, mean.reshape(stat_shape), input),
        materialize(stat_meta, rstd.reshape(stat_shape), input),
    )


@impl("native_layer_norm_backward", "CPU", "Meta")
def native_layer_norm_backward(
    grad_out: Tensor,
    input: Tensor,  # noqa: A002 - PyTorch's name
    normalized_shape: Sequence[int],
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    m, n = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    mixed = input._dtype is _dt.float16 and weight is not None and weight._dtype is _dt.float32
    if not is_meta(input):
        if not _is_float(input._dtype):
            raise not_implemented("LayerNormBackwardKernelImpl", input._dtype)
        if grad_out._dtype is not input._dtype:
            raise _expected_scalar_type(input._dtype, grad_out._dtype)
        if weight is not None and not mixed and weight._dtype is not input._dtype:
            raise _expected_scalar_type(input._dtype, weight._dtype)
    if grad_out.numel() != input.numel():
        raise RuntimeError(
            f"native_layer_norm_backward: expected grad_out of size {list(input._shape)}, but got "
            f"{list(grad_out._shape)}"
        )
    for want, param in ((output_mask[1], weight), (output_mask[2], bias)):
        if want and param is None:
            raise RuntimeError("tensor does not have a device")  # PyTorch: empty_like of an undefined tensor

    def param_meta(p: Tensor) -> TensorMeta:
        return TensorMeta(p._shape, contiguous_strides(p._shape), p._dtype)  # PyTorch uses weight.contiguous()

    in_meta = TensorMeta(input._shape, contiguous_strides(input._shape), input._dtype)
    if is_meta(input):
        return (
            materialize(in_meta, None, input) if output_mask[0] else None,
            materialize(param_meta(weight), None, input) if output_mask[1] else None,
            materialize(param_meta(bias), None, input) if output_mask[2] else None,
        )
    x = _f64(input).reshape(m, n)
    dy = _f64(grad_out).reshape(m, n)
    mu = _f64(mean).reshape(m, 1)
    rs = _f64(rstd).reshape(m, 1)
    xhat = (x - mu) * rs
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        g = dy * _f64(weight).reshape(1, n) if weight is not None else dy
        if n:
            gx = rs * (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True))
        else:
            gx = g
        grad_input = materialize(in_meta, gx.reshape(input._shape), input)
    if output_mask[1]:
        grad_weight = materialize(param_meta(weight), (dy * xhat).sum(axis=0).reshape(weight._shape), input)
    if output_mask[2]:
        grad_bias = materialize(param_meta(bias), dy.sum(axis=0).reshape(bias._shape), input)
    return grad_input, grad_weight, grad_bias


# --- dropout ------------------------------------------------------------------------------------------


def _can_cast(frm: _dt.dtype, to: _dt.dtype) -> bool:
    """c10::canCast: no float -> integral, no complex -> real, no non-bool -> bool."""
    if _dt.category(frm) > _dt.category(to):
        return False
    return True


@impl("native_dropout", "CPU", "Meta")
def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:  # noqa: A002
    if input.numel() == 0:  # PyTorch returns the input itself and an empty_like(input) mask of its dtype
        empty = TensorMeta(input._shape, input._stride, input._dtype)
        return input, materialize(empty, lambda: np.zeros(input._shape, input._dtype.np_dtype), input)
    like = TensorMeta(input._shape, preserve_format_strides(input), input._dtype)  # clone / empty_like(input)
    mask_meta = TensorMeta(like.shape, like.stride, _dt.bool)
    if train is not None and not train:
        return (
            materialize(like, lambda: input._data.copy(), input),
            materialize(mask_meta, lambda: np.ones(input._shape, np.bool_), input),
        )
    mask_like = Tensor._empty(like.shape, _dt.bool, _META, like.stride)
    like = TensorMeta(like.shape, elementwise_strides(like.shape, (input, mask_like)), like.dtype)  # input * mask
    p1m = 1.0 - p
    if not 0.0 <= p1m <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p1m:g}")
    if not _can_cast(_dt.float32, input._dtype):
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {scalar_type_name(input._dtype)}"
        )
    scale = 0.0 if p1m == 0 else 1.0 / p1m
    if is_meta(input):
        return materialize(like, None, input), materialize(mask_meta, None, input)
    from ..random import default_generator

    keep = default_generator().draw(lambda g: g.random(input._shape) < p1m)
    cd = np.dtype(np.float32 if input._dtype is _dt.float16 else input._dtype.np_dtype)
    out = (input._data * keep).astype(cd, copy=False) * cd.type(scale)
    return materialize(like, out, input), materialize(mask_meta, keep, input)


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


# --- nll_loss -----------------------------------------------------------------------------------------


def _nll_shape_checks(self: Tensor, target: Tensor) -> None:
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch_dim = self.dim() == 1 and target.dim() == 0
    if not (no_batch_dim or self._shape[0] == target._shape[0]):
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)}, target: {list(target._shape)})")


def _nll_targets(self: Tensor, target: Tensor, ignore_index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows of 2-D input, targets, keep mask) with PyTorch's out-of-bounds IndexError."""
    x = self._data.reshape(1, -1) if self.dim() == 1 else self._data
    t = target._data.reshape(-1).astype(np.int64)
    if self.dim() == 1:
        t = t[:1]
    keep = t != ignore_index
    n_classes = self._shape[-1]
    bad = keep & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[np.argmax(bad)])} is out of bounds.")
    return x, t, keep


def _nll_weights(weight: Tensor | None, t: np.ndarray, keep: np.ndarray) -> np.ndarray:
    tt = np.where(keep, t, 0)
    w = _f64(weight)[tt] if weight is not None else np.ones(t.shape)
    return np.where(keep, w, 0.0)


@impl("nll_loss_forward", "CPU", "Meta")
def nll_loss_forward(
    self: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: int
) -> tuple[Tensor, Tensor]:
    if self.dim() == 1 and target.dim() == 1:
        if target._shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target._shape[0]}")
    else:
        _nll_shape_checks(self, target)
    n_classes = self._shape[-1]
    if weight is not None and not (weight.dim() == 1 and weight.numel() == n_classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes but got weight "
            f"tensor of shape: {list(weight._shape)}"
        )
    d = self._dtype
    out_shape = (self._shape[0],) if reduction == REDUCTION_NONE and self.dim() == 2 else ()
    out_meta = TensorMeta(out_shape, contiguous_strides(out_shape), d)
    tw_meta = TensorMeta((), (), d)
    if is_meta(self):
        return materialize(out_meta, None, self), materialize(tw_meta, None, self)
    if target._dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_type_name(target._dtype)}")
    if weight is not None and weight._dtype is not d:
        raise _expected_scalar_type(d, weight._dtype)
    if not _is_float(d):
        raise not_implemented("nll_loss_out_frame", d)
    x, t, keep = _nll_targets(self, target, ignore_index)
    w = _nll_weights(weight, t, keep)
    picked = np.where(keep, x.astype(np.float64)[np.arange(len(t)), np.where(keep, t, 0)], 0.0)
    losses = -w * picked
    if reduction == REDUCTION_NONE:
        if self.dim() == 2:
            return materialize(out_meta, losses, self), materialize(tw_meta, np.zeros(()), self)
        return materialize(out_meta, losses.reshape(()), self), materialize(tw_meta, w.reshape(()), self)
    total_weight = w.sum()
    total = losses.sum()
    if reduction == REDUCTION_MEAN:
        with np.errstate(invalid="ignore", divide="ignore"):
            total = total / total_weight
    return materialize(out_meta, np.float64(total), self), materialize(tw_meta, np.float64(total_weight), self)


@impl("nll_loss_backward", "CPU", "Meta")
def nll_loss_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
) -> Tensor:
    _nll_shape_checks(self, target)
    if total_weight.numel() != 1:
        raise RuntimeError(
            f"expected total_weight to be a  single element tensor, got: {list(total_weight._shape)} "
            f"({total_weight.numel()} elements)"
        )
    n_classes = self._shape[-1]
    if weight is not None and weight.numel() != n_classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if reduction == REDUCTION_NONE and self.dim() == 2:
        batch = self._shape[0]
        if grad_output.dim() != 1 or grad_output._shape[0] != batch:
            size0 = _dim0_size(grad_output)
            raise RuntimeError(
                f"Expected a tensor of dimension 1 and tensor.size[0] == {batch} but got: dimension "
                f"{grad_output.dim()} and tensor.size[0] = {size0}"
            )
    elif not (grad_output.dim() <= 1 and grad_output.numel() == 1):
        raise RuntimeError(f"Expected a single element grad_output tensor, but got: {list(grad_output._shape)}")
    d = self._dtype
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), d)
    if is_meta(self):
        return materialize(meta, None, self)
    if target._dtype not in (_dt.int64, _dt.uint8):
        raise _expected_scalar_type(_dt.int64, target._dtype)
    if not _is_float(d):
        raise not_implemented("nll_loss_backward_out_frame", d)
    for t in (grad_output, weight, total_weight):
        if t is not None and t._dtype is not d:
            raise _expected_scalar_type(d, t._dtype)
    x, t, keep = _nll_targets(self, target, ignore_index)
    cd = d.np_dtype
    g = grad_output._data.reshape(-1).astype(cd)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if reduction == REDUCTION_MEAN:
            g = g / total_weight._data.reshape(()).astype(cd)
        g = -g
        w = weight._data.astype(cd)[np.where(keep, t, 0)] if weight is not None else np.ones(t.shape, cd)
        vals = np.where(keep, w * g, cd.type(0))
    grad = np.zeros(x.shape, cd)
    rows = np.nonzero(keep)[0]
    grad[rows, t[rows]] = vals[rows]
    return materialize(meta, grad.reshape(self._shape), self)


def _dim0_size(t: Tensor) -> int:
    if t.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return t._shape[0]


# nll_loss2d_backward: LossNLL2d.cpp's checks in its order on CPU; on Meta, PyTorch runs the Python
# decomposition (torch/_decomp), whose checks raise AssertionError.
def _nll2d_meta_checks(self: Tensor, target: Tensor, total_weight: Tensor) -> None:
    if self.dim() != 4:
        raise AssertionError(
            f"only batches of spatial inputs supported (4D tensors), but got input of dimension: {self.dim()}"
        )
    if target.dim() != 3:
        raise AssertionError(
            f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {target.dim()}"
        )
    s, t = self._shape, target._shape
    if not (s[0] == t[0] and s[2] == t[1] and s[3] == t[2]):
        raise AssertionError(f"size mismatch (got input: torch.Size({list(s)}), target: torch.Size({list(t)})")
    if total_weight.numel() != 1:
        raise AssertionError(
            f"expected total_weight to be a single element tensor, got: torch.Size({list(total_weight._shape)}) "
            f"( {total_weight.numel()}, elements)"
        )


@impl("nll_loss2d_backward", "CPU", "Meta")
def nll_loss2d_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
) -> Tensor:
    d = self._dtype
    if is_meta(self):
        _nll2d_meta_checks(self, target, total_weight)
        return materialize(TensorMeta(self._shape, contiguous_strides(self._shape), d), None, self)
    if target._dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_type_name(target._dtype)}")
    if target.dim() != 3:
        raise RuntimeError(
            f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {target.dim()}"
        )
    if self.dim() != 4:
        raise RuntimeError(
            f"only batches of spatial inputs supported (4D tensors), but got input of dimension: {self.dim()}"
        )
    n, c, h, w = self._shape
    if weight is not None and weight.numel() != c:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if (n, h, w) != tuple(target._shape):
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)} , target: {list(target._shape)}")
    from ..tensor import _is_contiguous

    if not _is_contiguous(self._shape, preserve_format_strides(self)):  # grad_input is empty_like(input)
        raise RuntimeError("grad_input must be contiguous")
    if total_weight.numel() != 1:
        raise RuntimeError(
            f"expected total_weight to be a single element tensor, got: {list(total_weight._shape)} "
            f"({total_weight.numel()} elements)"
        )
    if not _is_float(d):
        raise not_implemented("nll_loss2d_backward_out_frame", d)
    for t in (grad_output, weight, total_weight):
        if t is not None and t._dtype is not d:
            raise _expected_scalar_type(d, t._dtype)
    if reduction == REDUCTION_NONE:
        if tuple(grad_output._shape) != (n, h, w):
            raise RuntimeError(
                f"size mismatch (got grad_output: {list(grad_output._shape)} target: {list(target._shape)}"
            )
    elif not (grad_output.dim() <= 1 and grad_output.numel() == 1):
        raise RuntimeError(f"Expected a single element grad_output tensor, but got: {list(grad_output._shape)}")
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), d)

    def compute() -> np.ndarray:
        cd = d.np_dtype
        t = target._data.astype(np.int64)
        keep = t != ignore_index
        bad = keep & ((t < 0) | (t >= c))
        if bad.any():
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
        tt = np.where(keep, t, 0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if reduction == REDUCTION_NONE:
                g = grad_output._data.astype(cd)
            else:
                g = np.full((n, h, w), grad_output._data.reshape(()).astype(cd))
                if reduction == REDUCTION_MEAN:
                    g = g / total_weight._data.reshape(()).astype(cd)
            wv = weight._data.astype(cd)[tt] if weight is not None else np.ones((n, h, w), cd)
            vals = np.where(keep, -(wv * g), cd.type(0))
        grad = np.zeros((n, c, h, w), cd)
        nn_, hh, ww = np.nonzero(keep)
        grad[nn_, tt[nn_, hh, ww], hh, ww] = vals[nn_, hh, ww]
        return grad

    return materialize(meta, compute, self)


@impl("native_dropout_backward", "CPU", "Meta")
def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    """``grad_output * mask * scale``, as Dropout.cpp computes it (TensorIterator promotion and strides)."""
    return aten.mul.Tensor(aten.mul.Tensor(grad_output, mask), scale)


# --- embedding ----------------------------------------------------------------------------------------


def _check_indices(indices: Tensor, arg: int, op: str) -> None:
    if indices._dtype not in (_dt.int64, _dt.int32):
        from .views import legacy_type_name

        raise RuntimeError(
            f"Expected tensor for argument #{arg} 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {legacy_type_name(indices)} instead (while checking arguments for {op})"
        )


@impl("embedding", "CompositeExplicitAutograd")
def embedding(
    weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False, sparse: bool = False
) -> Tensor:
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices, 1, "embedding")
    if indices.dim() == 1:
        return aten.index_select.default(weight, 0, indices)
    size = list(indices._shape) + list(weight._shape[1:])
    flat = aten.reshape.default(indices, [-1])
    return aten.view.default(aten.index_select.default(weight, 0, flat), size)


@impl("embedding_dense_backward", "CPU", "Meta")
def embedding_dense_backward(
    grad_output: Tensor, indices: Tensor, num_weights: int, padding_idx: int, scale_grad_by_freq: bool
) -> Tensor:
    _check_indices(indices, 2, "embedding_backward")
    if grad_output.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    num_indices = indices.numel()
    width = grad_output._shape[-1]
    if grad_output.numel() != num_indices * width:
        raise RuntimeError(f"shape '{[num_indices, width]}' is invalid for input of size {grad_output.numel()}")
    d = grad_output._dtype
    shape = (int(num_weights), width)
    meta = TensorMeta(shape, contiguous_strides(shape), d)

    def compute() -> np.ndarray:
        idx = indices._data.reshape(-1).astype(np.int64)
        g = grad_output._data.reshape(num_indices, width).astype(np.float64 if _is_float(d) else d.np_dtype)
        if scale_grad_by_freq:
            valid = (idx >= 0) & (idx < num_weights)
            counts = np.bincount(idx[valid], minlength=int(num_weights))
            g = g / counts[np.clip(idx, 0, max(int(num_weights) - 1, 0))][:, None] if num_weights else g
        keep = (idx != padding_idx) & (idx >= 0) & (idx < num_weights)  # out-of-range rows are dropped
        out = np.zeros(shape, g.dtype)
        np.add.at(out, idx[keep], g[keep])
        return out

    return materialize(meta, compute, grad_output)
