"""Pooling: max / average / adaptive-average pooling over 2-d planes, their backward ops, the 1-d and CIA wrappers.

Corresponds to aten/src/ATen/native/Pooling.cpp (``max_pool1d``, ``max_pool2d``, ``avg_pool1d``, ...),
DilatedMaxPool2d.cpp, AveragePool2d.cpp, AdaptiveAveragePooling.cpp and their CPU kernels
(cpu/MaxPoolKernel.cpp, cpu/AvgPoolKernel.cpp, cpu/AdaptiveAvgPoolKernel.cpp), and the shape checks of
Pool.h (``pooling_output_shape``, ``pool2d_shape_check``). The 1-d ops and ``max_pool2d`` /
``adaptive_avg_pool2d`` are CompositeImplicitAutograd: 1-d pooling unsqueezes a height of 1 (dim -2), pools
with a ``1 x k`` window and squeezes it off; ``adaptive_avg_pool2d`` to ``1 x 1`` is ``mean`` over the last
two dims. The 2-d ops are backend kernels (one function is the CPU and the Meta kernel).

NumPy: windows of the (padded) input with ``sliding_window_view``. Max pooling returns the flat index
(``h * W + w``) of the first maximum of each window among the real (unpadded) positions; NaN wins, as in
PyTorch's ``val > max || isnan(val)``. Floats compute in float64 / float32 (half types), integers in int64.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .kernel_dtypes import compute_dtype, is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, scalar_type_name
from .tensor_iterator import _C_TYPE_NAMES

aten = namespace("aten")


def _sizes(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# --- shape checks (Pool.h) -----------------------------------------------------------------------------------------


def pooling_output_shape(size: int, kernel: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """``pooling_output_shape``: the output length of one pooled dim (ceil mode drops a window starting in the
    right padding)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((kernel - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, "
                           f"kernel_size={kernel} and dilation={dilation}")
    num = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1  # div_rtn: floor division
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _pool2d_shape_check(input: Tensor, kh: int, kw: int, dh: int, dw: int, ph: int, pw: int,  # noqa: A002
                        dilh: int, dilw: int, planes: int, ih: int, iw: int, oh: int, ow: int) -> None:
    if not (kw > 0 and kh > 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if not (dw > 0 and dh > 0):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {dh} dW: {dw}")
    if not (dilh > 0 and dilw > 0):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilh} dilationW: {dilw}")
    shape, ndim = input._shape, input.dim()
    valid = ndim >= 3 and shape[1] != 0 and shape[2] != 0
    if not ((ndim == 3 and shape[0] != 0 and valid) or (ndim == 4 and valid and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{_sizes(shape)}")
    if not (kw // 2 >= pw and kh // 2 >= ph):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {pw}, "
                           f"padH = {ph}, kW = {kw}, kH = {kh}")
    if ow < 1 or oh < 1:
        raise RuntimeError(f"Given input size: ({planes}x{ih}x{iw}). Calculated output size: ({planes}x{oh}x{ow}). "
                           "Output size is too small")


class Pool2d:
    """The checked window geometry of one 2-d pooling call (kernel, stride, padding, dilation, output size)."""

    def __init__(self, name: str, input: Tensor, kernel_size: Sequence[int], stride: Sequence[int],  # noqa: A002
                 padding: Sequence[int], dilation: Sequence[int], ceil_mode: bool) -> None:
        if len(kernel_size) not in (1, 2):
            raise RuntimeError(f"{name}: kernel_size must either be a single int, or a tuple of two ints")
        kh = kernel_size[0]
        kw = kh if len(kernel_size) == 1 else kernel_size[1]
        if len(stride) not in (0, 1, 2):
            raise RuntimeError(f"{name}: stride must either be omitted, a single int, or a tuple of two ints")
        dh = kh if not stride else stride[0]
        dw = kw if not stride else (dh if len(stride) == 1 else stride[1])
        if len(padding) not in (1, 2):
            raise RuntimeError(f"{name}: padding must either be a single int, or a tuple of two ints")
        ph = padding[0]
        pw = ph if len(padding) == 1 else padding[1]
        if len(dilation) not in (1, 2):
            raise RuntimeError(f"{name}: dilation must be either a single int, or a tuple of two ints")
        dilh = dilation[0]
        dilw = dilh if len(dilation) == 1 else dilation[1]
        self.kernel, self.stride, self.padding, self.dilation = (kh, kw), (dh, dw), (ph, pw), (dilh, dilw)
        self.ceil_mode = bool(ceil_mode)

    def output_size(self, input: Tensor) -> tuple[int, int]:  # noqa: A002
        ih, iw = input._shape[-2], input._shape[-1]
        (kh, kw), (dh, dw), (ph, pw), (dilh, dilw) = self.kernel, self.stride, self.padding, self.dilation
        oh = pooling_output_shape(ih, kh, ph, dh, dilh, self.ceil_mode)
        ow = pooling_output_shape(iw, kw, pw, dw, dilw, self.ceil_mode)
        _pool2d_shape_check(input, kh, kw, dh, dw, ph, pw, dilh, dilw, input._shape[-3], ih, iw, oh, ow)
        return oh, ow

    def windows(self, x: np.ndarray, out: tuple[int, int], fill: Any) -> tuple[np.ndarray, np.ndarray]:
        """(values, input flat indices) of every window: arrays (..., oh, ow, kh, kw); padding is ``fill`` with
        index -1."""
        (kh, kw), (dh, dw), (ph, pw), (dilh, dilw) = self.kernel, self.stride, self.padding, self.dilation
        ih, iw = x.shape[-2:]
        span_h, span_w = (out[0] - 1) * dh + dilh * (kh - 1) + 1, (out[1] - 1) * dw + dilw * (kw - 1) + 1
        extra_h, extra_w = max(0, span_h - ih - ph), max(0, span_w - iw - pw)
        lead = [(0, 0)] * (x.ndim - 2)
        xp = np.pad(x, lead + [(ph, extra_h), (pw, extra_w)], constant_values=fill)
        flat = np.pad(np.arange(ih * iw, dtype=np.int64).reshape(ih, iw), [(ph, extra_h), (pw, extra_w)],
                      constant_values=-1)

        def view(a: np.ndarray) -> np.ndarray:
            w = np.lib.stride_tricks.sliding_window_view(a, (dilh * (kh - 1) + 1, dilw * (kw - 1) + 1),
                                                         axis=(-2, -1))
            return w[..., : out[0] * dh : dh, : out[1] * dw : dw, ::dilh, ::dilw][..., : out[0], : out[1], :, :]

        return view(xp), view(flat)


def _check_dim_size(t: Tensor, dim: int, dim_size: int, size: int) -> None:
    """``check_dim_size``: ``t`` has ``dim`` dims and ``size`` elements along ``dim_size``."""
    if not (t.dim() == dim and t._shape[dim_size] == size):
        got = t._shape[dim_size] if -t.dim() <= dim_size < t.dim() else "?"
        raise RuntimeError(f"Expected a tensor of dimension {dim} and tensor.size[{dim_size}] == {size} but got: "
                           f"dimension {t.dim()} and tensor.size[{dim_size}] = {got}")


def _check_backward_sizes(self: Tensor, oh: int, ow: int, *grads: Tensor) -> None:
    """``*_pool2d_backward_shape_check``: each of ``grads`` has self's planes and the output's height / width;
    then the CPU kernels' check that the gradient has self's dtype."""
    ndim = self.dim()
    for t in grads:
        if ndim == 4:
            _check_dim_size(t, ndim, 0, self._shape[0])
        _check_dim_size(t, ndim, ndim - 3, self._shape[-3])
        _check_dim_size(t, ndim, ndim - 2, oh)
        _check_dim_size(t, ndim, ndim - 1, ow)
    g = grads[0]
    if g._dtype is not self._dtype and self._data is not None:
        raise RuntimeError(f"expected dtype {_C_TYPE_NAMES[self._dtype.name]} for `gradOutput` but got dtype "
                           f"{_C_TYPE_NAMES[g._dtype.name]}")


def _contiguous_meta(shape: Sequence[int], dtype: _dt.dtype) -> TensorMeta:
    shape = tuple(shape)
    return TensorMeta(shape, contiguous_strides(shape), dtype)


# --- max pooling -----------------------------------------------------------------------------------------------------


@impl("max_pool2d_with_indices", "CPU", "Meta")
def max_pool2d_with_indices(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (),
                            padding: Sequence[int] = (0, 0), dilation: Sequence[int] = (1, 1),
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    pool = Pool2d("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode)
    if self.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    oh, ow = pool.output_size(self)
    shape = (*self._shape[:-2], oh, ow)
    out_meta, idx_meta = _contiguous_meta(shape, self._dtype), _contiguous_meta(shape, _dt.int64)
    if is_meta(self):
        return materialize(out_meta, None, self), materialize(idx_meta, None, self)
    if self._dtype is _dt.bool or self._dtype.is_complex:
        raise not_implemented("max_pool2d", self._dtype)
    ct = compute_dtype(self._dtype)
    x = self._data.astype(ct, copy=False)
    fill = -np.inf if self._dtype.is_floating_point else np.iinfo(np.int64).min
    if not math.prod(shape):  # an empty batch (PyTorch returns empty outputs)
        return (materialize(out_meta, np.zeros(shape, ct), self),
                materialize(idx_meta, np.zeros(shape, np.int64), self))
    vals, flat = pool.windows(x, (oh, ow), fill)
    vals = vals.reshape(*vals.shape[:-2], -1)
    flat = np.broadcast_to(flat.reshape(*flat.shape[:-2], -1), vals.shape)
    valid = flat >= 0
    if self._dtype.is_floating_point:
        isnan = np.isnan(vals)
        best = np.where(valid, vals, -np.inf).max(axis=-1, keepdims=True)
        hit = np.where(isnan.any(axis=-1, keepdims=True), isnan, valid & (vals == best))
    else:
        best = np.where(valid, vals, fill).max(axis=-1, keepdims=True)
        hit = valid & (vals == best)
    pos = np.argmax(hit, axis=-1)[..., None]
    if self._dtype.is_floating_point:  # PyTorch's `val > maxval || isnan(val)` keeps the window's last NaN
        last = hit.shape[-1] - 1 - np.argmax(hit[..., ::-1], axis=-1)[..., None]
        pos = np.where(isnan.any(axis=-1, keepdims=True), last, pos)
    values = np.take_along_axis(vals, pos, axis=-1)[..., 0]
    indices = np.take_along_axis(flat, pos, axis=-1)[..., 0]
    return materialize(out_meta, values, self), materialize(idx_meta, indices, self)


@impl("max_pool2d_with_indices_backward", "CPU", "Meta")
def max_pool2d_with_indices_backward(grad_output: Tensor, self: Tensor, kernel_size: Sequence[int],
                                     stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                                     ceil_mode: bool, indices: Tensor) -> Tensor:
    pool = Pool2d("max_pool2d_with_indices_backward", self, kernel_size, stride, padding, dilation, ceil_mode)
    oh, ow = pool.output_size(self)
    _check_backward_sizes(self, oh, ow, grad_output, indices)
    meta = _contiguous_meta(self._shape, self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    ct = compute_dtype(self._dtype)
    ih, iw = self._shape[-2:]
    planes = int(np.prod(self._shape[:-2]))
    g = grad_output._data.astype(ct).reshape(planes, oh * ow)
    idx = indices._data.reshape(planes, oh * ow)
    out = np.zeros((planes, ih * iw), dtype=ct)
    rows = np.repeat(np.arange(planes), oh * ow)
    np.add.at(out, (rows, idx.reshape(-1)), g.reshape(-1))
    return materialize(meta, out.reshape(self._shape), self)


@impl("max_pool2d", "CompositeImplicitAutograd")
def max_pool2d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0, 0),
               dilation: Sequence[int] = (1, 1), ceil_mode: bool = False) -> Tensor:
    return aten.max_pool2d_with_indices.default(self, list(kernel_size), list(stride), list(padding), list(dilation),
                                                ceil_mode)[0]


def _check_dim_range(name: str, t: Tensor, lo: int, hi: int) -> None:
    """``checkDimRange``: ``lo <= t.dim() < hi``."""
    if not lo <= t.dim() < hi:
        raise RuntimeError(f"Expected {lo} to {hi - 1} dimensions, but got {t.dim()}-dimensional tensor for argument "
                           f"#1 'self' (while checking arguments for {name})")


def _check_max_pool1d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                      dilation: Sequence[int], ceil_mode: bool) -> None:
    """``check_max_pool1d`` (Pooling.cpp)."""
    if self.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got {_sizes(self._shape)}")
    if len(kernel_size) != 1:
        raise RuntimeError(f"max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but "
                           f"got size {len(kernel_size)}")
    if len(stride) not in (0, 1):
        raise RuntimeError(f"max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but "
                           f"got size {len(stride)}")
    if len(padding) != 1:
        raise RuntimeError(f"max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got "
                           f"size {len(padding)}")
    if len(dilation) != 1:
        raise RuntimeError(f"max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got "
                           f"size {len(dilation)}")
    if self._shape[-1] == 0:
        raise RuntimeError(f"max_pool1d() Expected non-empty input, but got {_sizes(self._shape)}")
    if kernel_size[0] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {kernel_size[0]}")
    if stride[0] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {stride[0]}")
    if padding[0] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding[0]}")
    if padding[0] > kernel_size[0] // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding="
                           f"{padding[0]} and kernel_size={kernel_size[0]}")
    if dilation[0] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation[0]}")
    out = pooling_output_shape(self._shape[-1], kernel_size[0], padding[0], stride[0], dilation[0], ceil_mode)
    if out < 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


@impl("max_pool1d_with_indices", "CompositeImplicitAutograd")
def max_pool1d_with_indices(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (),
                            padding: Sequence[int] = (0,), dilation: Sequence[int] = (1,),
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    for name, v in (("kernel_size", kernel_size), ("padding", padding), ("dilation", dilation)):
        if len(v) != 1:
            raise RuntimeError(f"max_pool1d() argument '{name}' should contain one int (got {len(v)})")
    stride = list(stride) or list(kernel_size)
    _check_dim_range("max_pool1d", self, 2, 4)
    out, idx = aten.max_pool2d_with_indices.default(aten.unsqueeze.default(self, -2), [1, kernel_size[0]],
                                                    [1, stride[0]], [0, padding[0]], [1, dilation[0]], ceil_mode)
    return aten.squeeze.dim(out, -2), aten.squeeze.dim(idx, -2)


@impl("max_pool1d", "CompositeImplicitAutograd")
def max_pool1d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
               dilation: Sequence[int] = (1,), ceil_mode: bool = False) -> Tensor:
    ndim, shape = self.dim(), self._shape
    if not ((ndim == 2 and shape[0] != 0 and shape[1] != 0) or (ndim == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{_sizes(shape)}")
    _check_max_pool1d(self, kernel_size, list(stride) or list(kernel_size), padding, dilation, ceil_mode)
    # PyTorch skips the indices only for CPU tensors not requiring grad outside any mode (max_pool1d_impl, floating
    # dtypes only); the values are the same
    if (type(self) is Tensor and self._data is not None and not self.requires_grad
            and not self._dtype.is_floating_point):
        raise NotImplementedError(f'"max_pool1d_impl" not implemented for \'{scalar_type_name(self._dtype)}\'')
    return aten.max_pool1d_with_indices.default(self, list(kernel_size), list(stride), list(padding),
                                                list(dilation), ceil_mode)[0]


# --- average pooling -------------------------------------------------------------------------------------------------


def _avg_geometry(name: str, self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                  padding: Sequence[int], ceil_mode: bool, divisor_override: int | None) -> tuple[Pool2d, int, int]:
    if len(kernel_size) not in (1, 2):
        raise RuntimeError(f"{name}: kernel_size must either be a single int, or a tuple of two ints")
    if len(stride) not in (0, 1, 2):
        raise RuntimeError(f"{name}: stride must either be omitted, a single int, or a tuple of two ints")
    if len(padding) not in (1, 2):
        raise RuntimeError(f"{name}: padding must either be a single int, or a tuple of two ints")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    from .meta_utils import wrap_dim

    for d in (-3, -2, -1):
        wrap_dim(d, self.dim())  # size(-3): an IndexError for fewer dims, as PyTorch's meta function
    pool = Pool2d(name, self, kernel_size, stride, padding, (1,), ceil_mode)
    oh, ow = pool.output_size(self)
    return pool, oh, ow


def _avg_divisors(pool: Pool2d, ih: int, iw: int, oh: int, ow: int, count_include_pad: bool,
                  divisor_override: int | None) -> np.ndarray:
    """The divide factor of each output position (AvgPoolKernel.cpp)."""
    if divisor_override is not None:
        return np.full((oh, ow), divisor_override, dtype=np.int64)
    (kh, kw), (dh, dw), (ph, pw) = pool.kernel, pool.stride, pool.padding

    def extent(o: int, k: int, d: int, p: int, size: int) -> tuple[np.ndarray, np.ndarray]:
        start = np.arange(o) * d - p
        end = np.minimum(start + k, size + p)
        full = end - start
        return full, np.minimum(end, size) - np.maximum(start, 0)

    fh, vh = extent(oh, kh, dh, ph, ih)
    fw, vw = extent(ow, kw, dw, pw, iw)
    return np.outer(fh, fw) if count_include_pad else np.outer(vh, vw)


@impl("avg_pool2d", "CPU", "Meta")
def avg_pool2d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0, 0),
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    pool, oh, ow = _avg_geometry("avg_pool2d", self, kernel_size, stride, padding, ceil_mode, divisor_override)
    meta = _contiguous_meta((*self._shape[:-2], oh, ow), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if self._dtype is _dt.bool or self._dtype.is_complex:
        raise not_implemented("avg_pool2d", self._dtype)
    ct = np.float64 if self._dtype.is_floating_point else np.int64
    vals, _ = pool.windows(self._data.astype(ct, copy=False), (oh, ow), 0)
    sums = vals.sum(axis=(-2, -1))
    div = _avg_divisors(pool, *self._shape[-2:], oh, ow, count_include_pad, divisor_override)
    if self._dtype.is_floating_point:
        return materialize(meta, sums / div, self)
    q = np.abs(sums) // div  # C++ integer division truncates toward zero
    return materialize(meta, np.sign(sums) * q, self)


@impl("avg_pool2d_backward", "CPU", "Meta")
def avg_pool2d_backward(grad_output: Tensor, self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                        padding: Sequence[int], ceil_mode: bool, count_include_pad: bool,
                        divisor_override: int | None) -> Tensor:
    pool, oh, ow = _avg_geometry("avg_pool2d", self, kernel_size, stride, padding, ceil_mode, divisor_override)
    _check_backward_sizes(self, oh, ow, grad_output)
    meta = _contiguous_meta(self._shape, self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    ih, iw = self._shape[-2:]
    planes = int(np.prod(self._shape[:-2]))
    div = _avg_divisors(pool, ih, iw, oh, ow, count_include_pad, divisor_override)
    g = (grad_output._data.astype(np.float64) / div).reshape(planes, oh, ow)
    _, flat = pool.windows(np.zeros((ih, iw)), (oh, ow), 0)  # (oh, ow, kh, kw) input indices, -1 in the padding
    flat = flat.reshape(oh, ow, -1)
    contrib = np.broadcast_to(g[..., None], (planes, oh, ow, flat.shape[-1]))
    keep = flat >= 0
    out = np.zeros((planes, ih * iw))
    rows = np.broadcast_to(np.arange(planes)[:, None, None, None], contrib.shape)
    cols = np.broadcast_to(flat, contrib.shape)
    mask = np.broadcast_to(keep, contrib.shape)
    np.add.at(out, (rows[mask], cols[mask]), contrib[mask])
    return materialize(meta, out.reshape(self._shape), self)


@impl("avg_pool1d", "CompositeImplicitAutograd")
def avg_pool1d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    stride = list(stride) or list(kernel_size)
    _check_dim_range("avg_pool1d", self, 2, 4)
    for name, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding)):
        if len(v) != 1:
            raise RuntimeError(f"avg_pool1d() argument '{name}' should contain one int (got {len(v)})")
    out = aten.avg_pool2d.default(aten.unsqueeze.default(self, -2), [1, kernel_size[0]], [1, stride[0]],
                                  [0, padding[0]], ceil_mode, count_include_pad)
    return aten.squeeze.dim(out, -2)


# --- adaptive average pooling ----------------------------------------------------------------------------------------


def _adaptive_bounds(size: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """``start_index`` / ``end_index``: floor(o * size / out) and ceil((o + 1) * size / out)."""
    o = np.arange(out)
    return (o * size) // out, -(-((o + 1) * size) // out)


def _check_adaptive(self: Tensor, output_size: Sequence[int]) -> None:
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if self.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {_sizes(self._shape)}")
    for i in (-2, -1):
        if self._shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {_sizes(self._shape)} with dimension "
                               f"{i + self.dim()} being empty")


@impl("_adaptive_avg_pool2d", "CPU", "Meta")
def _adaptive_avg_pool2d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    _check_adaptive(self, output_size)
    if any(int(s) < 0 for s in output_size):
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {list(output_size)}")
    oh, ow = (int(s) for s in output_size)
    meta = _contiguous_meta((*self._shape[:-2], oh, ow), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if not self._dtype.is_floating_point:
        raise not_implemented("adaptive_avg_pool2d", self._dtype)
    x = self._data.astype(np.float64)
    ih, iw = self._shape[-2:]
    hs, he = _adaptive_bounds(ih, oh)
    ws, we = _adaptive_bounds(iw, ow)
    out = np.empty((*self._shape[:-2], oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[..., i, j] = x[..., hs[i]:he[i], ws[j]:we[j]].mean(axis=(-2, -1))
    return materialize(meta, out, self)


@impl("_adaptive_avg_pool2d_backward", "CPU", "Meta")
def _adaptive_avg_pool2d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    if grad_output.dim() != self.dim():
        raise RuntimeError(f"adaptive_avg_pool2d_backward_out_cpu_template: Expected dimensions {self.dim()} for "
                           f"`grad_output` but got dimensions {grad_output.dim()}")
    if self.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d_backward(): Expected 3D or 4D tensor, but got "
                           f"{_sizes(self._shape)}")
    meta = _contiguous_meta(self._shape, self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if not self._dtype.is_floating_point:
        raise not_implemented("adaptive_avg_pool2d_backward_cpu", self._dtype)
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(f"adaptive_avg_pool2d_backward_out_cpu_template: Expected dtype "
                           f"{_C_TYPE_NAMES[self._dtype.name]} for `grad_output` but got dtype "
                           f"{_C_TYPE_NAMES[grad_output._dtype.name]}")
    if not grad_output.numel():  # (PyTorch's kernel loops over nothing: zero gradients)
        return materialize(meta, np.zeros(self._shape), self)
    g = grad_output._data.astype(np.float64)
    oh, ow = grad_output._shape[-2:]
    ih, iw = self._shape[-2:]
    hs, he = _adaptive_bounds(ih, oh)
    ws, we = _adaptive_bounds(iw, ow)
    out = np.zeros(self._shape)
    for i in range(oh):
        for j in range(ow):
            area = (he[i] - hs[i]) * (we[j] - ws[j])
            out[..., hs[i]:he[i], ws[j]:we[j]] += (g[..., i, j] / area)[..., None, None]
    return materialize(meta, out, self)


@impl("adaptive_avg_pool2d", "CompositeImplicitAutograd")
def adaptive_avg_pool2d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if output_size[0] < 0 or output_size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]}}}")
    if output_size[0] == 1 and output_size[1] == 1:
        # adaptive pooling to 1 x 1 is a mean over the plane
        return aten.mean.dim(self, [-1, -2], True)
    return aten._adaptive_avg_pool2d.default(self, list(output_size))


@impl("adaptive_avg_pool1d", "CompositeImplicitAutograd")
def adaptive_avg_pool1d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    _check_dim_range("adaptive_avg_pool1d", self, 2, 4)
    if len(output_size) != 1:
        raise RuntimeError("adaptive_avg_pool1d: output_size must be 1")
    out = aten.adaptive_avg_pool2d.default(aten.unsqueeze.default(self, -2), [1, output_size[0]])
    return aten.squeeze.dim(out, -2)
