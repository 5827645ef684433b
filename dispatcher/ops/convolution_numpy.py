"""The NumPy arithmetic of N-d convolution: forward, transposed forward, and the weight gradient.

Corresponds to the CPU kernels behind aten/src/ATen/native/Convolution.cpp's backend choice (slow_conv2d /
slow_conv3d / slow_conv_transpose2d / 3d, NaiveConvolutionTranspose*.cpp, vol2col / im2col): every one of them
is "gather the input's windows into columns, multiply by the weight matrix" (im2col + GEMM), and so is this file.
There are no registrations here; dispatcher/ops/convolution.py checks the arguments and calls these.

* ``windows`` is the im2col step as a view: ``sliding_window_view`` over the (padded) spatial dims, strided by the
  convolution's stride and the kernel's dilation, giving (N, C, *positions, *kernel) without copying.
* ``conv_forward`` groups the channels, copies the windows once into (N, groups, C/g * kernel, positions) columns
  and multiplies the weight matrix by them (``np.matmul``, one GEMM per sample and group, already in the output's
  layout).
* ``conv_transposed`` is the gradient of a convolution with respect to its input (slow_conv_transpose's GEMM +
  col2im): the weight matrix's transpose times the input gives each position's contribution through each kernel
  offset; each offset's block is added at its strided place in the padded output (a loop over kernel offsets,
  vectorized over every pixel), and the padding is cropped.
* ``conv_weight_grad`` contracts the input's windows with the output gradient over batch and positions.

Arrays are computed in the dtype the caller converted them to (float64 for floating tensors, int64 for
integers: ``kernel_dtypes.compute_dtype``), rounded once by the caller.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from .fp_errors import quiet_fp

__all__ = ["conv_forward", "conv_transposed", "conv_weight_grad", "pad_or_crop", "windows"]


def pad_or_crop(x: np.ndarray, before: Sequence[int], after: Sequence[int]) -> np.ndarray:
    """Zero-pad (positive amounts) or crop (negative amounts) the trailing ``len(before)`` dims of ``x``."""
    lead = x.ndim - len(before)
    if any(b < 0 for b in before) or any(a < 0 for a in after):
        crop = tuple(slice(max(-b, 0), x.shape[lead + i] - max(-a, 0)) for i, (b, a) in enumerate(zip(before, after)))
        x = x[(slice(None),) * lead + crop]
        before, after = [max(b, 0) for b in before], [max(a, 0) for a in after]
    if any(before) or any(after):
        x = np.pad(x, [(0, 0)] * lead + [(b, a) for b, a in zip(before, after)])
    return x


def windows(xp: np.ndarray, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int],
            positions: Sequence[int]) -> np.ndarray:
    """The windows of the padded ``xp`` (N, C, *S) a convolution reads: a view (N, C, *positions, *kernel)."""
    dim = len(kernel)
    span = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    axes = tuple(range(2, 2 + dim))
    # a window must exist at every position even where the padded input is longer than needed
    xp = xp[(slice(None), slice(None), *(slice(0, (p - 1) * s + w) for p, s, w in zip(positions, stride, span)))]
    view = np.lib.stride_tricks.sliding_window_view(xp, span, axis=axes)
    index = (slice(None), slice(None), *(slice(None, None, s) for s in stride), *(slice(None, None, d) for d in dilation))
    return view[index]


def _columns(xp: np.ndarray, groups: int, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int],
             positions: Sequence[int]) -> np.ndarray:
    """im2col: (groups, N * prod(positions), C/g * prod(kernel)) columns of the padded input."""
    n, c = xp.shape[:2]
    dim = len(kernel)
    win = windows(xp, kernel, stride, dilation, positions)  # (N, C, *P, *K)
    win = win.reshape(n, groups, c // groups, *win.shape[2:])  # (N, g, C/g, *P, *K)
    order = (1, 0, *range(3, 3 + dim), 2, *range(3 + dim, 3 + 2 * dim))  # (g, N, *P, C/g, *K)
    return np.ascontiguousarray(win.transpose(order)).reshape(groups, n * int(np.prod(positions)), -1)


@quiet_fp
def conv_forward(x: np.ndarray, w: np.ndarray, stride: Sequence[int], pad_before: Sequence[int],
                 pad_after: Sequence[int], dilation: Sequence[int], groups: int,
                 out_spatial: Sequence[int]) -> np.ndarray:
    """Convolution of (N, C, *S) with (O, C/g, *K) (no bias): (N, O, *out_spatial).

    The windows are copied once into columns (N, g, C/g * prod(K), prod(P)); one matrix product per sample and
    group, (O/g, C/g * prod(K)) @ columns, lands in the output's own layout.
    """
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    kernel = w.shape[2:]
    dim = len(kernel)
    if n == 0 or o == 0 or 0 in out_spatial:
        return np.zeros((n, o, *out_spatial), dtype=x.dtype)
    xp = pad_or_crop(x, pad_before, pad_after)
    win = windows(xp, kernel, stride, dilation, out_spatial)  # (N, C, *P, *K)
    win = win.reshape(n, groups, c // groups, *win.shape[2:])  # (N, g, C/g, *P, *K)
    order = (0, 1, 2, *range(3 + dim, 3 + 2 * dim), *range(3, 3 + dim))  # (N, g, C/g, *K, *P)
    cols = np.ascontiguousarray(win.transpose(order)).reshape(n, groups, -1, int(np.prod(out_spatial)))
    wm = w.reshape(groups, o // groups, -1)  # (g, O/g, C/g * prod(K))
    return np.matmul(wm, cols).reshape(n, o, *out_spatial)


@quiet_fp
def conv_transposed(x: np.ndarray, w: np.ndarray, stride: Sequence[int], padding: Sequence[int],
                    dilation: Sequence[int], groups: int, out_spatial: Sequence[int]) -> np.ndarray:
    """Transposed convolution of (N, Cin, *P) with (Cin, Cout/g, *K) (no bias) to (N, Cout, *out_spatial).

    One matrix product per sample and group gives every input position's contribution through every kernel offset
    (Cout/g * prod(K) rows); col2im then adds each offset's rows into the (padded) output at
    ``position * stride + offset * dilation``, one strided slice per offset, and the padding is cropped.
    ``out_spatial`` fixes the output_padding (extra rows at the end that receive nothing but the bias).
    """
    n, cin = x.shape[:2]
    kernel = tuple(w.shape[2:])
    dim = len(kernel)
    cg = w.shape[1]
    cout = cg * groups
    positions = tuple(x.shape[2:])
    if n == 0 or cout == 0 or 0 in out_spatial:
        return np.zeros((n, cout, *out_spatial), dtype=x.dtype)
    xm = x.reshape(n, groups, cin // groups, -1)  # (N, g, Cin/g, prod(P))
    wm = np.ascontiguousarray(w.reshape(groups, cin // groups, -1).transpose(0, 2, 1))  # (g, Cout/g * prod(K), Cin/g)
    cols = np.matmul(wm, xm).reshape(n, groups, cg, *kernel, *positions)
    # offsets first, so that each offset's block is contiguous: (*K, N, g, Cout/g, *P)
    order = (*range(3, 3 + dim), 0, 1, 2, *range(3 + dim, 3 + 2 * dim))
    cols = np.ascontiguousarray(cols.transpose(order))
    padded_size = [o + 2 * p for o, p in zip(out_spatial, padding)]
    out = np.zeros((n, groups, cg, *padded_size), dtype=cols.dtype)
    for offset in itertools.product(*(range(k) for k in kernel)):
        place = tuple(slice(i * d, i * d + s * (p - 1) + 1, s)
                      for i, d, s, p in zip(offset, dilation, stride, positions))
        out[(slice(None), slice(None), slice(None), *place)] += cols[offset]
    crop = tuple(slice(p, p + o) for p, o in zip(padding, out_spatial))
    return np.ascontiguousarray(out[(slice(None), slice(None), slice(None), *crop)]).reshape(n, cout, *out_spatial)


@quiet_fp
def conv_weight_grad(x: np.ndarray, go: np.ndarray, kernel: Sequence[int], stride: Sequence[int],
                     padding: Sequence[int], dilation: Sequence[int], groups: int) -> np.ndarray:
    """d(convolution of x)/d(weight) contracted with ``go`` (N, O, *P): the gradient (O, C/g, *K)."""
    n, c = x.shape[:2]
    o = go.shape[1]
    positions = go.shape[2:]
    if n == 0 or 0 in positions or c == 0:
        return np.zeros((o, c // groups, *kernel), dtype=x.dtype)
    xp = pad_or_crop(x, padding, padding)
    cols = _columns(xp, groups, kernel, stride, dilation, positions)  # (g, N*P, C/g*K)
    dim = len(positions)
    gog = go.reshape(n, groups, o // groups, *positions).transpose(1, 2, 0, *range(3, 3 + dim))
    gm = np.ascontiguousarray(gog).reshape(groups, o // groups, -1)  # (g, O/g, N*P)
    if groups == 1:
        return (gm[0] @ cols[0]).reshape(o, c // groups, *kernel)
    return np.matmul(gm, cols).reshape(o, c // groups, *kernel)
