"""``im2col`` / ``col2im``: the sliding blocks of ``nn.functional.unfold`` / ``fold``.

Corresponds to aten/src/ATen/native/Im2Col.cpp, Col2Im.cpp and im2col_shape_check.h (the argument checks, in that
order, with their messages). Both are backend kernels (one function serves CPU and Meta); each is the other's
derivative. Floating types and bool only, as torch's dtype switch (``"im2col_out_cpu" not implemented for 'Long'``).

NumPy: ``im2col`` is the convolution's windows view (convolution_numpy.py) reordered to (N, C * kh * kw, L);
``col2im`` adds every block back at its place: one strided slice per kernel offset (kh * kw vectorized adds).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .convolution_numpy import pad_or_crop, windows
from .kernel_dtypes import compute_dtype, is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize


def _sizes(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_pairs(**args: Sequence[int]) -> None:
    for name, value in args.items():
        if len(value) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")


def _check_geometry(kernel: Sequence[int], dilation: Sequence[int], padding: Sequence[int], stride: Sequence[int],
                    stride_first: bool) -> None:
    checks = [
        (kernel[0] > 0 and kernel[1] > 0,
         f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} kernel_width: {kernel[1]}"),
        (dilation[0] > 0 and dilation[1] > 0,
         f"dilation should be greater than zero, but got dilation_height: {dilation[0]} dilation_width: {dilation[1]}"),
        (padding[0] >= 0 and padding[1] >= 0,
         f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: {padding[1]}"),
    ]
    stride_check = (stride[0] > 0 and stride[1] > 0,
                    f"stride should be greater than zero, but got stride_height: {stride[0]} stride_width: {stride[1]}")
    checks.insert(1 if stride_first else 3, stride_check)
    for ok, message in checks:
        if not ok:
            raise RuntimeError(message)


def _blocks(size: Sequence[int], kernel: Sequence[int], dilation: Sequence[int], padding: Sequence[int],
            stride: Sequence[int]) -> tuple[int, int]:
    """The number of sliding blocks along height and width (``div_rtn``: floor division)."""
    return tuple((s + 2 * p - (d * (k - 1) + 1)) // st + 1  # type: ignore[return-value]
                 for s, k, d, p, st in zip(size, kernel, dilation, padding, stride))


def _check_dtype(name: str, t: Tensor) -> None:
    if not (t._dtype.is_floating_point or t._dtype is _dt.bool):
        raise not_implemented(name, t._dtype)


@impl("im2col", "CPU", "Meta")
def im2col(self: Tensor, kernel_size: Sequence[int], dilation: Sequence[int], padding: Sequence[int],
           stride: Sequence[int]) -> Tensor:
    _check_pairs(kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    kernel, dilation, padding, stride = (tuple(int(v) for v in a) for a in (kernel_size, dilation, padding, stride))
    _check_geometry(kernel, dilation, padding, stride, stride_first=False)
    shape, ndim = self._shape, self.dim()
    if ndim < 3:  # input.size(2) of a smaller tensor
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got 2)")
    valid = shape[1] != 0 and shape[2] != 0
    if not ((ndim == 3 and shape[0] != 0 and valid) or (ndim == 4 and valid and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {_sizes(shape)}")
    size = shape[-2:]
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({size[0]}, {size[1]}), kernel_size=({kernel[0]}, "
                           f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
                           f"{padding[1]}), calculated shape of the array of sliding blocks as ({blocks[0]}, "
                           f"{blocks[1]}), but its components must be at least one.")
    _check_dtype("im2col_out_cpu", self)
    channels = shape[-3] * kernel[0] * kernel[1]
    out_shape = (*shape[:-3], channels, blocks[0] * blocks[1])
    meta = TensorMeta(out_shape, contiguous_strides(out_shape), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)

    def compute() -> np.ndarray:
        x = self._data if ndim == 4 else self._data[None]
        xp = pad_or_crop(x, padding, padding)
        win = windows(xp, kernel, stride, dilation, blocks)  # (N, C, bh, bw, kh, kw)
        cols = win.transpose(0, 1, 4, 5, 2, 3).reshape(x.shape[0], channels, blocks[0] * blocks[1])
        return cols if ndim == 4 else cols[0]

    return materialize(meta, compute, self)


@impl("col2im", "CPU", "Meta")
def col2im(self: Tensor, output_size: Sequence[int], kernel_size: Sequence[int], dilation: Sequence[int],
           padding: Sequence[int], stride: Sequence[int]) -> Tensor:
    _check_pairs(output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    output_size, kernel, dilation, padding, stride = (
        tuple(int(v) for v in a) for a in (output_size, kernel_size, dilation, padding, stride))
    _check_geometry(kernel, dilation, padding, stride, stride_first=True)
    shape, ndim = self._shape, self.dim()
    if not ((ndim == 2 and shape[0] != 0 and shape[1] != 0) or (ndim == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {_sizes(shape)}")
    planes = shape[-2]
    kk = kernel[0] * kernel[1]
    if planes % kk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={planes} and kernel_size=({kernel[0]}, {kernel[1]}).")
    blocks = _blocks(output_size, kernel, dilation, padding, stride)
    described = (f"Given output_size=({output_size[0]}, {output_size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
                 f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), stride=({stride[0]}, "
                 f"{stride[1]}), ")
    if shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(f"{described}expected size of input's dimension 2 to match the calculated number of sliding "
                           f"blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={shape[-1]}.")
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"{described}calculated shape of the array of sliding blocks as ({blocks[0]}, {blocks[1]}), "
                           "which is too small (non-positive)")
    if output_size[0] < 1 or output_size[1] < 1:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: output_size=({output_size[0]}, "
                           f"{output_size[1]}).")
    _check_dtype("col2im_out_cpu", self)
    channels = planes // kk
    out_shape = (*shape[:-2], channels, *output_size)
    meta = TensorMeta(out_shape, contiguous_strides(out_shape), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)

    def compute() -> np.ndarray:
        cols = self._data if ndim == 3 else self._data[None]
        n = cols.shape[0]
        ct = compute_dtype(self._dtype) if self._dtype.is_floating_point else np.bool_
        cols = cols.astype(ct, copy=False).reshape(n, channels, kernel[0], kernel[1], blocks[0], blocks[1])
        padded = np.zeros((n, channels, output_size[0] + 2 * padding[0], output_size[1] + 2 * padding[1]), dtype=ct)
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                rows = slice(i * dilation[0], i * dilation[0] + stride[0] * (blocks[0] - 1) + 1, stride[0])
                cs = slice(j * dilation[1], j * dilation[1] + stride[1] * (blocks[1] - 1) + 1, stride[1])
                if ct is np.bool_:
                    padded[:, :, rows, cs] |= cols[:, :, i, j]
                else:
                    padded[:, :, rows, cs] += cols[:, :, i, j]
        out = padded[:, :, padding[0]: padding[0] + output_size[0], padding[1]: padding[1] + output_size[1]]
        return np.ascontiguousarray(out if ndim == 3 else out[0])

    return materialize(meta, compute, self)
