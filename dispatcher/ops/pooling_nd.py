"""Pooling continued: 3-d max / average / adaptive-average pooling, adaptive max pooling (1-d, 2-d, 3-d),
``max_unpool2d``, and their backward ops.

Corresponds to aten/src/ATen/native/DilatedMaxPool3d.cpp, AveragePool3d.cpp, AdaptiveAveragePooling3d.cpp,
AdaptiveMaxPooling2d.cpp / AdaptiveMaxPooling3d.cpp, MaxUnpooling.cpp and the shape checks of Pool.h
(``pool3d_shape_check``) as torch/_meta_registrations.py words them. ``max_pool3d`` / ``adaptive_avg_pool3d`` /
``adaptive_max_pool1d`` are CompositeImplicitAutograd (the last unsqueezes a height of 1 and calls the 2-d op).

NumPy, vectorized: windows with ``sliding_window_view`` over the three trailing dims (``_windows``); adaptive
windows as gathered index grids clamped to each window (``_adaptive_index``) or, for the average, per-dim window
sums (a loop over the longest window's offsets, so only a window's own elements enter it); backward ops scatter
with ``np.add.at`` over flat plane indices (max) or add the gradient back window offset by window offset
(average; a loop over the kernel's few offsets, never over pixels). Indices are flat positions in one plane
(``t * H * W + h * W + w``); NaN wins a max, the window's last NaN as in PyTorch's ``val > max || isnan(val)``.
The backward ops check like PyTorch's CPU kernels: output sizes taken from the gradient, the gradient's dtype
against self's, the indices' rank, sizes and int64 dtype.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .arithmetic import _c_name
from .fp_errors import quiet_fp
from .kernel_dtypes import _expected_scalar_type, compute_dtype, is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, scalar_type_name
from .pooling import _adaptive_bounds, _check_dim_size, _sizes, pooling_output_shape

aten = namespace("aten")


def _meta(shape: Sequence[int], dtype: _dt.dtype) -> TensorMeta:
    shape = tuple(shape)
    return TensorMeta(shape, contiguous_strides(shape), dtype)


def _triple(name: str, what: str, values: Sequence[int], allow_empty: bool = False) -> tuple[int, int, int] | None:
    if allow_empty and not values:
        return None
    if len(values) not in (1, 3):
        raise RuntimeError(f"{name}: {what}")
    return (values[0],) * 3 if len(values) == 1 else (values[0], values[1], values[2])


class Pool3d:
    """The checked geometry of one 3-d pooling call (``meta_max_pool3d_with_indices`` / ``meta_avg_pool3d``)."""

    def __init__(self, name: str, input: Tensor, kernel_size: Sequence[int], stride: Sequence[int],  # noqa: A002
                 padding: Sequence[int], dilation: Sequence[int] | None, ceil_mode: bool) -> None:
        avg = dilation is None
        either = "" if avg else "either "
        self.kernel = _triple(name, f"kernel_size must {either}be a single int, or a tuple of three ints",
                              kernel_size)
        stride_t = _triple(name, f"stride must {either}be omitted, a single int, or a tuple of three ints", stride,
                           allow_empty=True)
        self.stride = self.kernel if stride_t is None else stride_t
        self.padding = _triple(name, f"padding must {either}be a single int, or a tuple of three ints", padding)
        self.dilation = (1, 1, 1) if avg else _triple(name, "dilation must be either a single int, or a tuple of "
                                                      "three ints", dilation)
        self.ceil_mode = bool(ceil_mode)
        self.avg = avg

    def output_size(self, input: Tensor, fn_name: str,  # noqa: A002
                    given: Sequence[int] | None = None) -> tuple[int, int, int]:
        """The checked output size: computed (``pooling_output_shape``), or ``given`` (the backward ops take the
        gradient's sizes as the output's and check only those, as the CPU kernels do)."""
        if input.dim() not in (4, 5):
            raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
        sizes = input._shape[-3:]
        if given is not None:
            out = tuple(int(o) for o in given)
        else:
            out = tuple(pooling_output_shape(s, k, p, d, dl, self.ceil_mode)
                        for s, k, p, d, dl in zip(sizes, self.kernel, self.padding, self.stride, self.dilation))
        (kt, kh, kw), (dt, dh, dw), (pt, ph, pw) = self.kernel, self.stride, self.padding
        dlt, dlh, dlw = self.dilation
        c = "," if is_meta(input) else ""  # the Python meta function separates with commas, Pool.h does not
        if not (kt > 0 and kw > 0 and kh > 0):
            raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kt}{c} kH: {kh}{c} kW: {kw}")
        if not (dt > 0 and dw > 0 and dh > 0):
            raise RuntimeError(f"stride should be greater than zero, but got dT: {dt}{c} dH: {dh}{c} dW: {dw}")
        if not (dlt > 0 and dlw > 0 and dlh > 0):
            raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {dlt}{c} dilationH: {dlh}{c} "
                               f"dilationW: {dlw}")
        for i, s in enumerate(input._shape):
            if not (input.dim() == 5 and i == 0) and s <= 0:
                raise RuntimeError(f"{fn_name}: Expected input's non-batch dimensions to have positive length, but "
                                   f"input has a shape of {_sizes(input._shape)} and non-batch dimension {s} "
                                   "has length zero!")
        it, ih, iw = sizes
        if self.avg and not (it >= kt and ih >= kh and iw >= kw):
            raise RuntimeError(f"input image (T: {it} H: {ih} W: {iw}) smaller than kernel size (kT: {kt} kH: {kh} "
                               f"kW: {kw})")
        if not (kt / 2 >= pt and kw / 2 >= pw and kh / 2 >= ph):
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {kt} kW: "
                               f"{kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
        ot, oh, ow = out
        if not (ot >= 1 and ow >= 1 and oh >= 1):
            n = input._shape[-4]
            raise RuntimeError(f"Given input size: ({n}x{it}x{ih}x{iw}). Calculated output size: "
                               f"({n}x{ot}x{oh}x{ow}). Output size is too small")
        return out  # type: ignore[return-value]


def _windows(x: np.ndarray, kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int],
             dilation: Sequence[int], out: Sequence[int], fill: Any) -> tuple[np.ndarray, np.ndarray]:
    """(values, flat plane indices) of every window over the ``len(kernel)`` trailing dims: arrays shaped
    ``(..., *out, *kernel)``; padded positions hold ``fill`` and index -1."""
    nd = len(kernel)
    sizes = x.shape[-nd:]
    pads = []
    for s, k, d, p, dl, o in zip(sizes, kernel, stride, padding, dilation, out):
        span = (o - 1) * d + dl * (k - 1) + 1
        pads.append((p, max(0, span - s - p)))
    xp = np.pad(x, [(0, 0)] * (x.ndim - nd) + pads, constant_values=fill)
    flat = np.pad(np.arange(math.prod(sizes), dtype=np.int64).reshape(sizes), pads, constant_values=-1)
    axes = tuple(range(-nd, 0))
    extent = tuple(dl * (k - 1) + 1 for k, dl in zip(kernel, dilation))

    def view(a: np.ndarray) -> np.ndarray:
        w = np.lib.stride_tricks.sliding_window_view(a, extent, axis=axes)
        picks = tuple(slice(0, o * d, d) for o, d in zip(out, stride)) + tuple(slice(None, None, dl)
                                                                              for dl in dilation)
        w = w[(Ellipsis, *picks)]
        return w[(Ellipsis, *(slice(0, o) for o in out), *(slice(None),) * nd)]

    return view(xp), view(flat)


def _argmax_windows(vals: np.ndarray, flat: np.ndarray, floating: bool, fill: Any) -> tuple[np.ndarray, np.ndarray]:
    """Max and its flat index over the last axis of (values, indices); padding (index -1) never wins; NaN does."""
    flat = np.broadcast_to(flat, vals.shape)
    valid = flat >= 0
    if floating:
        isnan = np.isnan(vals)
        best = np.where(valid, vals, -np.inf).max(axis=-1, keepdims=True)
        anynan = isnan.any(axis=-1, keepdims=True)
        hit = np.where(anynan, isnan, valid & (vals == best))
        pos = np.argmax(hit, axis=-1)[..., None]
        # PyTorch's `val > maxval || isnan(val)` keeps the window's last NaN
        last = hit.shape[-1] - 1 - np.argmax(hit[..., ::-1], axis=-1)[..., None]
        pos = np.where(anynan, last, pos)
    else:
        best = np.where(valid, vals, fill).max(axis=-1, keepdims=True)
        pos = np.argmax(valid & (vals == best), axis=-1)[..., None]
    return np.take_along_axis(vals, pos, axis=-1)[..., 0], np.take_along_axis(flat, pos, axis=-1)[..., 0]


def _scatter_indices(grad: Tensor, indices: Tensor, self: Tensor, nd: int) -> np.ndarray:
    """The gradient of a max: each output's gradient added at its saved flat plane index."""
    ct = compute_dtype(self._dtype)
    if grad.numel() == 0:  # an empty gradient adds nothing (PyTorch's kernels loop over the gradient)
        return np.zeros(self._shape, dtype=ct)
    plane = math.prod(self._shape[-nd:])
    planes = math.prod(self._shape[:-nd])
    g = grad._data.astype(ct).reshape(planes, -1)
    idx = indices._data.reshape(planes, -1)
    out = np.zeros((planes, plane), dtype=ct)
    rows = np.repeat(np.arange(planes), g.shape[1])
    np.add.at(out, (rows, idx.reshape(-1)), g.reshape(-1))
    return out.reshape(self._shape)


def _check_backward_sizes3d(self: Tensor, out: Sequence[int], *grads: Tensor) -> None:
    """``*_pool3d_backward_shape_check``: each of ``grads`` has self's planes and the output's sizes."""
    ndim = self.dim()
    for t in grads:
        _check_dim_size(t, ndim, ndim - 4, self._shape[-4])
        for i, o in enumerate(out):
            _check_dim_size(t, ndim, ndim - 3 + i, o)


# --- 3-d max pooling -------------------------------------------------------------------------------------------------


@impl("max_pool3d_with_indices", "CPU", "Meta")
def max_pool3d_with_indices(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (),
                            padding: Sequence[int] = (0, 0, 0), dilation: Sequence[int] = (1, 1, 1),
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    pool = Pool3d("max_pool3d", self, kernel_size, stride, padding, dilation, ceil_mode)
    out = pool.output_size(self, "max_pool3d_with_indices()")
    shape = (*self._shape[:-3], *out)
    out_meta, idx_meta = _meta(shape, self._dtype), _meta(shape, _dt.int64)
    if is_meta(self):
        return materialize(out_meta, None, self), materialize(idx_meta, None, self)
    if self._dtype is _dt.bool or self._dtype.is_complex:
        raise not_implemented("max_pool3d_cpu", self._dtype)
    fill = -np.inf if self._dtype.is_floating_point else np.iinfo(np.int64).min
    vals, flat = _windows(self._data.astype(compute_dtype(self._dtype), copy=False), pool.kernel, pool.stride,
                          pool.padding, pool.dilation, out, fill)
    vals = vals.reshape(*vals.shape[:-3], math.prod(vals.shape[-3:]))
    values, indices = _argmax_windows(vals, flat.reshape(*flat.shape[:-3], math.prod(flat.shape[-3:])),
                                      self._dtype.is_floating_point, fill)
    return materialize(out_meta, values, self), materialize(idx_meta, indices, self)


@impl("max_pool3d_with_indices_backward", "CPU", "Meta")
def max_pool3d_with_indices_backward(grad_output: Tensor, self: Tensor, kernel_size: Sequence[int],
                                     stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                                     ceil_mode: bool, indices: Tensor) -> Tensor:
    pool = Pool3d("max_pool3d", self, kernel_size, stride, padding, dilation, ceil_mode)
    if not is_meta(self) and grad_output._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {_c_name(self._dtype)} for `gradOutput` but got dtype "
                           f"{_c_name(grad_output._dtype)}")
    # the CPU kernel takes the output sizes from the gradient (so padding / ceil_mode are not re-derived)
    given = grad_output._shape[-3:] if grad_output.dim() >= 3 else None
    out = pool.output_size(self, "max_pool3d_with_indices_backward()", given)
    _check_backward_sizes3d(self, out, grad_output, indices)
    meta = _meta(self._shape, self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if not self._dtype.is_floating_point:
        raise not_implemented("max_pool3d_backward", self._dtype)
    _check_long_indices(indices)
    return materialize(meta, _scatter_indices(grad_output, indices, self, 3), self)


def _check_long_indices(indices: Tensor) -> None:
    """The kernels read the indices as int64 (``data_ptr<int64_t>``)."""
    if indices._dtype is not _dt.int64:
        raise _expected_scalar_type(_dt.int64, indices._dtype)


@impl("max_pool3d", "CompositeImplicitAutograd")
def max_pool3d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (),
               padding: Sequence[int] = (0, 0, 0), dilation: Sequence[int] = (1, 1, 1), ceil_mode: bool = False) -> Tensor:
    return aten.max_pool3d_with_indices.default(self, list(kernel_size), list(stride), list(padding), list(dilation),
                                                ceil_mode)[0]


# --- 3-d average pooling ---------------------------------------------------------------------------------------------


def _avg3d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int], ceil_mode: bool,
           divisor_override: int | None) -> tuple[Pool3d, tuple[int, int, int]]:
    pool = Pool3d("avg_pool3d", self, kernel_size, stride, padding, None, ceil_mode)
    if self.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return pool, pool.output_size(self, "avg_pool3d()")


def _avg_divisors3d(pool: Pool3d, sizes: Sequence[int], out: Sequence[int], count_include_pad: bool,
                    divisor_override: int | None) -> np.ndarray:
    """The divide factor of each output position (AvgPoolKernel.cpp): window extents clipped to the padded input
    (``count_include_pad``) or to the input."""
    if divisor_override is not None:
        return np.full(tuple(out), divisor_override, dtype=np.int64)
    factors = []
    for o, k, d, p, size in zip(out, pool.kernel, pool.stride, pool.padding, sizes):
        start = np.arange(o) * d - p
        end = np.minimum(start + k, size + p)
        factors.append(end - start if count_include_pad else np.minimum(end, size) - np.maximum(start, 0))
    return factors[0][:, None, None] * factors[1][None, :, None] * factors[2][None, None, :]


@impl("avg_pool3d", "CPU", "Meta")
def avg_pool3d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (),
               padding: Sequence[int] = (0, 0, 0),
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    pool, out = _avg3d(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    meta = _meta((*self._shape[:-3], *out), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if self._dtype is _dt.bool or self._dtype.is_complex:
        raise not_implemented("avg_pool3d_out_frame", self._dtype)
    ct = compute_dtype(self._dtype)
    vals, _ = _windows(self._data.astype(ct, copy=False), pool.kernel, pool.stride, pool.padding, pool.dilation,
                       out, 0)
    sums = vals.sum(axis=(-3, -2, -1))
    div = _avg_divisors3d(pool, self._shape[-3:], out, count_include_pad, divisor_override)
    if self._dtype.is_floating_point:
        return materialize(meta, sums / div, self)
    return materialize(meta, np.sign(sums) * (np.abs(sums) // div), self)  # C++ division truncates


@impl("avg_pool3d_backward", "CPU", "Meta")
def avg_pool3d_backward(grad_output: Tensor, self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                        padding: Sequence[int], ceil_mode: bool, count_include_pad: bool,
                        divisor_override: int | None) -> Tensor:
    pool, out = _avg3d(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    _check_backward_sizes3d(self, out, grad_output)
    meta = _meta(self._shape, self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if grad_output._dtype is not self._dtype:  # the kernel reads the gradient as self's type
        raise _expected_scalar_type(self._dtype, grad_output._dtype)
    div = _avg_divisors3d(pool, self._shape[-3:], out, count_include_pad, divisor_override)
    g = grad_output._data.astype(np.float64) / div
    grad = _add_back_windows(g, self._shape, pool.kernel, pool.stride, pool.padding, out)
    return materialize(meta, grad, self)


def _add_back_windows(g: np.ndarray, shape: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                      padding: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """Each output's gradient added to every input position of its window (padding dropped): one strided slice
    addition per kernel offset."""
    nd = len(kernel)
    sizes = shape[-nd:]
    padded_sizes = [max(s + 2 * p, (o - 1) * d + k) for s, p, o, d, k in zip(sizes, padding, out, stride, kernel)]
    acc = np.zeros((*shape[:-nd], *padded_sizes))
    for offs in itertools.product(*(range(k) for k in kernel)):
        sl = tuple(slice(o_, o_ + (o - 1) * d + 1, d) for o_, o, d in zip(offs, out, stride))
        acc[(Ellipsis, *sl)] += g
    crop = tuple(slice(p, p + s) for p, s in zip(padding, sizes))
    return acc[(Ellipsis, *crop)]


# --- 3-d adaptive average pooling ------------------------------------------------------------------------------------


def _adaptive_windows(size: int, out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, end, offsets) of the adaptive windows ``[floor(o*size/out), ceil((o+1)*size/out))``; ``offsets``
    runs over the longest window."""
    start, end = _adaptive_bounds(size, out)
    kmax = int((end - start).max()) if out else 0
    return start, end, np.arange(kmax)


@quiet_fp
def _adaptive_mean_axis(x: np.ndarray, axis: int, out: int) -> np.ndarray:
    """The adaptive average along ``axis``: each window's sum (only its own elements, so an inf elsewhere stays
    out of it) divided by its length."""
    start, end, offs = _adaptive_windows(x.shape[axis], out)
    xm = np.moveaxis(x, axis, 0)
    acc = np.zeros((out, *xm.shape[1:]))
    for k in offs:
        valid = start + k < end
        acc[valid] += xm[(start + k)[valid]]
    tail = (1,) * (xm.ndim - 1)
    return np.moveaxis(acc / (end - start).reshape(-1, *tail), 0, axis)


@quiet_fp
def _adaptive_mean_axis_backward(g: np.ndarray, axis: int, size: int) -> np.ndarray:
    """The transpose of ``_adaptive_mean_axis``: each output's gradient over its window's length added to every
    input position of the window."""
    start, end, offs = _adaptive_windows(size, g.shape[axis])
    gm = np.moveaxis(g, axis, 0)
    gm = gm / (end - start).reshape(-1, *(1,) * (gm.ndim - 1))
    acc = np.zeros((size, *gm.shape[1:]))
    for k in offs:
        valid = start + k < end
        np.add.at(acc, (start + k)[valid], gm[valid])
    return np.moveaxis(acc, 0, axis)


@impl("_adaptive_avg_pool3d", "CPU", "Meta")
def _adaptive_avg_pool3d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    if len(output_size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if self.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {_sizes(self._shape)}")
    for i in range(1, self.dim()):
        if self._shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {_sizes(self._shape)} with dimension {i} being "
                               "empty")
    out = tuple(int(s) for s in output_size)
    shape = (*self._shape[:-3], *out)
    if any(o < 0 for o in out):
        if is_meta(self):
            _check_non_negative(shape)
        raise RuntimeError("numel: integer multiplication overflow")  # the CPU kernel's resize of the output
    meta = _meta(shape, self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if not self._dtype.is_floating_point:
        raise not_implemented("adaptive_avg_pool3d_cpu", self._dtype)
    x = self._data.astype(np.float64)
    for d, o in enumerate(out):
        x = _adaptive_mean_axis(x, x.ndim - 3 + d, o)
    return materialize(meta, x, self)


def _check_non_negative(shape: Sequence[int]) -> None:
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {_sizes(shape)}")


@impl("_adaptive_avg_pool3d_backward", "CPU", "Meta")
def _adaptive_avg_pool3d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    for i in range(1, grad_output.dim()):
        if grad_output._shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool3d_backward(): Expected grad_output to have non-zero size for "
                               f"non-batch dimensions, but grad_output has sizes {_sizes(grad_output._shape)} "
                               f"with dimension {i} being empty")
    meta = _meta(self._shape, self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if grad_output.dim() != self.dim():
        raise RuntimeError(f"adaptive_avg_pool3d_backward_out_cpu_template: Expected dimensions {self.dim()} for "
                           f"`gradOutput_` but got dimensions {grad_output.dim()}")
    if not self._dtype.is_floating_point:
        raise not_implemented("adaptive_avg_pool3d_backward_cpu", self._dtype)
    if grad_output._dtype is not self._dtype:
        raise _expected_scalar_type(self._dtype, grad_output._dtype)
    g = grad_output._data.astype(np.float64)
    for d, size in enumerate(self._shape[-3:]):
        g = _adaptive_mean_axis_backward(g, g.ndim - 3 + d, size)
    return materialize(meta, g, self)


@impl("adaptive_avg_pool3d", "CompositeImplicitAutograd")
def adaptive_avg_pool3d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    if len(output_size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if any(s < 0 for s in output_size):
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]},{output_size[2]}}}")
    if all(s == 1 for s in output_size):
        return aten.mean.dim(self, [-1, -2, -3], True)  # adaptive pooling to 1 x 1 x 1: a mean
    return aten._adaptive_avg_pool3d.default(self, list(output_size))


# --- adaptive max pooling --------------------------------------------------------------------------------------------


def _adaptive_index(size: int, out: int) -> np.ndarray:
    """(out, kmax) input positions of each adaptive window, the tail clamped to the window's last position."""
    start, end = _adaptive_bounds(size, out)
    kmax = int((end - start).max())
    return np.minimum(start[:, None] + np.arange(kmax)[None, :], (end - 1)[:, None])


def _adaptive_max(self: Tensor, output_size: Sequence[int], nd: int) -> tuple[Tensor, Tensor]:
    name = f"adaptive_max_pool{nd}d"
    if self.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {_sizes(self._shape)}")
    for i in range(1, self.dim()):
        if self._shape[i] <= 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {_sizes(self._shape)} with dimension {i} being empty")
    if len(output_size) != nd:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nd}")
    out = tuple(int(s) for s in output_size)
    shape = (*self._shape[:-nd], *out)
    _check_non_negative(shape)
    out_meta, idx_meta = _meta(shape, self._dtype), _meta(shape, _dt.int64)
    if is_meta(self):
        return materialize(out_meta, None, self), materialize(idx_meta, None, self)
    if not self._dtype.is_floating_point:
        raise not_implemented(f"adaptive_max_pool{nd}d" if nd == 2 else "adaptive_max_pool3d_cpu", self._dtype)
    if math.prod(shape) == 0:
        return (materialize(out_meta, np.zeros(shape), self),
                materialize(idx_meta, np.zeros(shape, dtype=np.int64), self))
    sizes = self._shape[-nd:]
    grids = [_adaptive_index(s, o) for s, o in zip(sizes, out)]
    # index arrays broadcasting to (*out, *kmax): dim i varies along axes i (output) and nd + i (window)
    ix = []
    for i, g in enumerate(grids):
        shape_i = [1] * (2 * nd)
        shape_i[i], shape_i[nd + i] = g.shape
        ix.append(g.reshape(shape_i))
    vals = self._data.astype(np.float64)[(Ellipsis, *ix)]
    flat = sum(ix[i] * math.prod(sizes[i + 1:]) for i in range(nd))  # broadcasts to (*out, *kmax)
    vals = vals.reshape(*vals.shape[:-nd], math.prod(vals.shape[-nd:]))
    values, indices = _argmax_windows(vals, flat.reshape(*out, vals.shape[-1]), True, -np.inf)
    return materialize(out_meta, values, self), materialize(idx_meta, indices, self)


def _adaptive_max_backward(grad_output: Tensor, self: Tensor, indices: Tensor, nd: int) -> Tensor:
    if nd == 2 and grad_output.dim() not in (3, 4):
        raise RuntimeError("adaptive_max_pooling2d_backward(): Expected 3D or 4D grad_output, but got: "
                           f"{_sizes(grad_output._shape)}")
    if nd == 3 and grad_output.dim() not in (4, 5):
        raise RuntimeError("adaptive_max_pool3d_backward(): Expected 4D or 5D gradOutput, but got: "
                           f"{_sizes(grad_output._shape)}")
    gname = "grad_output" if nd == 2 else "gradOutput"
    for i in range(1, grad_output.dim()):
        if grad_output._shape[i] <= 0:
            raise RuntimeError(f"adaptive_max_pool{nd}d_backward(): Expected grad_output to have non-zero size for "
                               f"non-batch dimensions, but grad_output has sizes {_sizes(grad_output._shape)} "
                               f"with dimension {i} being empty")
    if self._dtype is not grad_output._dtype:
        raise RuntimeError(f"expected dtype {_c_name(self._dtype)} for `{gname}` but got dtype "
                           f"{_c_name(grad_output._dtype)}")
    meta = _meta(self._shape, self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    # the CPU kernel's checks: indices shaped like self's rank, the gradient like the indices, then the dtypes
    if indices.dim() != self.dim():
        raise RuntimeError(f"expected dimensions {self.dim()} for `indices` but got dimensions {indices.dim()}")
    if tuple(grad_output._shape) != tuple(indices._shape):
        raise RuntimeError(f"expected sizes {_sizes(indices._shape)} for `{gname}` but got sizes "
                           f"{_sizes(grad_output._shape)}")
    if not self._dtype.is_floating_point:
        raise not_implemented(f"adaptive_max_pool{nd}d_backward", self._dtype)
    _check_long_indices(indices)
    return materialize(meta, _scatter_indices(grad_output, indices, self, nd), self)


@impl("adaptive_max_pool2d", "CPU", "Meta")
def adaptive_max_pool2d(self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    return _adaptive_max(self, output_size, 2)


@impl("adaptive_max_pool2d_backward", "CPU", "Meta")
def adaptive_max_pool2d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    return _adaptive_max_backward(grad_output, self, indices, 2)


@impl("adaptive_max_pool3d", "CPU", "Meta")
def adaptive_max_pool3d(self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    return _adaptive_max(self, output_size, 3)


@impl("adaptive_max_pool3d_backward", "CPU", "Meta")
def adaptive_max_pool3d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    return _adaptive_max_backward(grad_output, self, indices, 3)


@impl("adaptive_max_pool1d", "CompositeImplicitAutograd")
def adaptive_max_pool1d(self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    """AdaptiveMaxPooling1d.cpp: a height of 1 unsqueezed, ``adaptive_max_pool2d``, squeezed off both outputs
    (the indices first)."""
    if self.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {self.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_max_pool1d)")
    for i in range(1, self.dim()):
        if self._shape[i] <= 0:
            raise RuntimeError("adaptive_max_pool1d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {_sizes(self._shape)} with dimension {i} being "
                               "empty")
    if len(output_size) != 1:
        raise RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should contain one int (got "
                           f"{len(output_size)})")
    out, idx = aten.adaptive_max_pool2d.default(aten.unsqueeze.default(self, -2), [1, output_size[0]])
    idx = aten.squeeze.dim(idx, -2)  # std::make_tuple's arguments: GCC evaluates them right to left
    return aten.squeeze.dim(out, -2), idx


# --- max unpooling ---------------------------------------------------------------------------------------------------


@impl("max_unpool2d", "CPU", "Meta")
def max_unpool2d(self: Tensor, indices: Tensor, output_size: Sequence[int]) -> Tensor:
    """Each value written at its flat plane index of an ``output_size`` plane of zeros."""
    if indices._dtype is not _dt.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {scalar_type_name(indices._dtype)}")
    if len(output_size) != 2:
        raise RuntimeError(f"There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    if self.dim() not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
                           f"{self.dim()} dimensions.")
    if tuple(self._shape) != tuple(indices._shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({_sizes(self._shape)}"
                           f") but got indices tensor with shape: {_sizes(indices._shape)}")
    for i in range(1, self.dim()):
        if self._shape[i] <= 0:
            raise RuntimeError(f"max_unpooling2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but got {_sizes(self._shape)} with dimension {i} being empty.")
    oh, ow = (int(s) for s in output_size)
    meta = _meta((*self._shape[:-2], oh, ow), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if not self._dtype.is_floating_point:
        raise not_implemented("max_unpool2d", self._dtype)
    planes = math.prod(self._shape[:-2])
    idx = indices._data.reshape(planes, -1)
    if idx.size and (idx.min() < 0 or idx.max() >= oh * ow):
        bad = idx[(idx < 0) | (idx >= oh * ow)][0]
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {oh}x{ow}")
    out = np.zeros((planes, oh * ow), dtype=self._data.dtype)
    out[np.repeat(np.arange(planes), idx.shape[1]), idx.reshape(-1)] = self._data.reshape(planes, -1).reshape(-1)
    return materialize(meta, out.reshape(meta.shape), self)
