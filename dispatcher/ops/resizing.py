"""Resizing: ``upsample_nearest{1,2,3}d``, ``_upsample_nearest_exact{1,2,3}d``, ``upsample_linear1d``,
``upsample_bilinear2d``, ``upsample_trilinear3d``, ``upsample_bicubic2d`` (each with its backward op and its
CompositeImplicitAutograd ``.vec`` overload), ``pixel_shuffle`` / ``pixel_unshuffle``.

Corresponds to aten/src/ATen/native/UpSample.h / UpSample.cpp (``compute_output_size``, ``area_pixel_compute_scale``,
``area_pixel_compute_source_index``, ``nearest_idx``, the cubic coefficients with ``A = -0.75``), the
``upsample_*.vec`` CIA kernels (output size from the scale factors, then the ``.default`` op with the factors as
scales), cpu/UpSampleKernel.cpp and PixelShuffle.cpp.

NumPy, vectorized and separable: every mode is, per spatial dim, a few taps (source index, weight) per output (one
unweighted tap for nearest, two for linear, four clamped ones for cubic): forward gathers each tap along that axis
with ``take`` and sums the weighted taps, backward scatter-adds them with ``np.add.at``. Only the taps an output
reads enter it, as in PyTorch's kernels, so an inf in the input gives inf / nan exactly where PyTorch's does. Scales
and source indices are computed in the kernels' opmath type (float32 for float32 / half inputs), so rounding of
``floor(i * scale)`` matches PyTorch's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .fp_errors import quiet_fp
from .kernel_dtypes import is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize
from .pooling import _check_dim_size, _sizes

aten = namespace("aten")

_DIMS = {1: "W", 2: "HW", 3: "DHW"}


def _meta(shape: Sequence[int], dtype: _dt.dtype) -> TensorMeta:
    shape = tuple(shape)
    return TensorMeta(shape, contiguous_strides(shape), dtype)


def _opmath(dtype: _dt.dtype) -> type:
    return np.float64 if dtype is _dt.float64 else np.float32


def _common_check(nd: int, input_size: Sequence[int], output_size: Sequence[int]) -> None:
    """``upsample_{1,2,3}d_common_check``: the sizes' lengths and positive input / output sizes."""
    if len(output_size) != nd:
        raise RuntimeError(f"It is expected output_size equals to {nd}, but got size {len(output_size)}")
    if len(input_size) != nd + 2:
        raise RuntimeError(f"It is expected input_size equals to {nd + 2}, but got size {len(input_size)}")
    names = _DIMS[nd]
    ins, outs = input_size[2:], output_size
    if not (all(s > 0 for s in ins) and all(s > 0 for s in outs)):
        inp = ", ".join(f"{n}: {s}" for n, s in zip(names, ins))
        out = ", ".join(f"{n}: {s}" for n, s in zip(names, outs))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({inp})"
                           f"{' and' if nd == 1 else ''} output ({out})")


def _check_input(self: Tensor, nd: int, output_size: Sequence[int]) -> None:
    _common_check(nd, self._shape, output_size)
    # the meta functions' check: an empty input is fine while its non-batch sizes are all non-zero
    if not ((self.numel() != 0 or int(np.prod(self._shape[1:])) != 0) and self.dim() == nd + 2):
        raise RuntimeError(f"Non-empty {nd + 2}D data tensor expected but got a tensor with sizes "
                           f"{_sizes(self._shape)}")


def _check_grad(grad_output: Tensor, nd: int, output_size: Sequence[int], input_size: Sequence[int]) -> None:
    """The backward meta functions: the grad's dims equal the forward output's (``full_output_size``)."""
    _common_check(nd, input_size, output_size)
    full = [input_size[0], input_size[1], *output_size]
    if nd == 1:  # upsample_1d_shape_check
        for i, s in enumerate(full):
            _check_dim_size(grad_output, 3, i, s)
        return
    if grad_output.dim() != nd + 2:
        raise RuntimeError(f"Expected grad_output to be a tensor of dimension {nd + 2} but got: dimension "
                           f"{grad_output.dim()}")
    for i, s in enumerate(full):
        if grad_output._shape[i] != s:
            raise RuntimeError(f"Expected grad_output to have the same shape as output; output.size({i}) = {s} but "
                               f"got grad_output.size({i}) = {grad_output._shape[i]}")


def _scale(in_size: int, out_size: int, scale: float | None, op: type, align_corners: bool | None) -> np.floating:
    """``area_pixel_compute_scale`` (``align_corners`` not None) or ``compute_scales_value`` (nearest)."""
    if align_corners is not None:
        if out_size <= 1:
            return op(0)
        if align_corners:
            return op(in_size - 1) / op(out_size - 1)
    if scale is not None and scale > 0:
        return op(1.0 / scale)
    return op(in_size) / op(out_size)


def _nearest_index(in_size: int, out_size: int, scale: float | None, exact: bool, op: type) -> np.ndarray:
    """The CPU kernel's ``compute_indices_nearest``: ``floor((i [+ 0.5]) * scale)`` clamped to the input, the scale
    ``1 / scales`` or ``in / out`` as float (no shortcut for factors 1 and 2 on CPU)."""
    i = np.arange(out_size)
    s = _scale(in_size, out_size, scale, op, None) if out_size > 1 else op(0)
    src = (i + 0.5) * np.float64(s) if exact else i.astype(op) * s
    return np.minimum(np.floor(src.astype(np.float32) if op is np.float32 else src).astype(np.int64), in_size - 1)


def _linear_taps(in_size: int, out_size: int, align_corners: bool, scale: float | None,
                 op: type) -> list[tuple[np.ndarray, np.ndarray]]:
    """Linear interpolation as two taps (index, weight) per output: source index clamped at 0, taps ``i0`` and
    ``i0 + 1`` (the second only inside the input, else ``i0`` again), ``lambda`` clamped to [0, 1]."""
    s = _scale(in_size, out_size, scale, op, align_corners)
    dst = np.arange(out_size).astype(op)
    real = s * dst if align_corners else s * (dst + op(0.5)) - op(0.5)
    real = np.maximum(real, op(0))
    i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam1 = np.clip(real - i0, 0, 1).astype(np.float64)
    i1 = i0 + (i0 < in_size - 1)
    return [(i0, 1.0 - lam1), (i1, lam1)]


def _cubic_taps(in_size: int, out_size: int, align_corners: bool, scale: float | None,
                op: type) -> list[tuple[np.ndarray, np.ndarray]]:
    """Bicubic interpolation (``A = -0.75``) as four taps ``x - 1 .. x + 2`` clamped to the input."""
    s = _scale(in_size, out_size, scale, op, align_corners)
    dst = np.arange(out_size).astype(op)
    real = s * dst if align_corners else s * (dst + op(0.5)) - op(0.5)
    x = np.floor(real)
    t = (real - x).astype(op)
    a = op(-0.75)

    def conv1(v: np.ndarray) -> np.ndarray:
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def conv2(v: np.ndarray) -> np.ndarray:
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a

    coeffs = [conv2(t + op(1)), conv1(t), conv1(op(1) - t), conv2(op(2) - t)]
    return [(np.clip(x.astype(np.int64) - 1 + k, 0, in_size - 1), c.astype(np.float64))
            for k, c in enumerate(coeffs)]


def _shape_w(w: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    return w.reshape((-1,) + (1,) * (ndim - axis - 1))


@quiet_fp
def _apply(x: np.ndarray, taps: Sequence[list[tuple[np.ndarray, np.ndarray | None]]]) -> np.ndarray:
    """Per spatial axis (the trailing ``len(taps)`` axes), the weighted sum of the gathered taps: only the taps an
    output reads enter it (so an inf elsewhere in the input stays out of it, as in PyTorch's kernels)."""
    nd = len(taps)
    for d, axis_taps in enumerate(taps):
        axis = x.ndim - nd + d
        y = None
        for idx, w in axis_taps:
            g = np.take(x, idx, axis=axis)
            term = g if w is None else g * _shape_w(w, x.ndim, axis)
            y = term if y is None else y + term
        x = y
    return x


@quiet_fp
def _apply_backward(g: np.ndarray, taps: Sequence[list[tuple[np.ndarray, np.ndarray | None]]],
                    in_sizes: Sequence[int]) -> np.ndarray:
    """The transpose of ``_apply``: each tap's weighted gradient scatter-added to its source index."""
    nd = len(taps)
    for d, (axis_taps, n) in enumerate(zip(taps, in_sizes)):
        axis = g.ndim - nd + d
        res = np.zeros((n, *g.shape[:axis], *g.shape[axis + 1:]), dtype=g.dtype)
        for idx, w in axis_taps:
            term = g if w is None else g * _shape_w(w, g.ndim, axis)
            np.add.at(res, idx, np.moveaxis(term, axis, 0))
        g = np.moveaxis(res, 0, axis)
    return g


def _taps(mode: str, in_sizes: Sequence[int], out_sizes: Sequence[int], align_corners: bool,
          scales: Sequence[float | None], op: type) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    build = _cubic_taps if mode == "cubic" else _linear_taps
    return [build(i, o, align_corners, s, op) for i, o, s in zip(in_sizes, out_sizes, scales)]


# --- nearest -----------------------------------------------------------------------------------------------------


def _nearest(self: Tensor, output_size: Sequence[int], scales: Sequence[float | None], exact: bool) -> Tensor:
    nd = len(scales)
    _check_input(self, nd, output_size)
    out = tuple(int(s) for s in output_size)
    meta = _meta((*self._shape[:2], *out), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if not (self._dtype.is_floating_point or self._dtype is _dt.uint8):
        raise not_implemented("upsample_nearest2d_channels_last" if nd == 2 else "compute_indices_weights_nearest",
                              self._dtype)
    op = _opmath(self._dtype)
    x = self._data
    for d, (i, o, s) in enumerate(zip(self._shape[2:], out, scales)):
        x = np.take(x, _nearest_index(i, o, s, exact, op), axis=2 + d)
    return materialize(meta, x, self)


def _nearest_backward(name: str, grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                      scales: Sequence[float | None], exact: bool) -> Tensor:
    nd = len(scales)
    _check_grad(grad_output, nd, output_size, input_size)
    meta = _meta(tuple(int(s) for s in input_size), grad_output._dtype)
    if is_meta(grad_output):
        return materialize(meta, None, grad_output)
    if not grad_output._dtype.is_floating_point:
        raise not_implemented(name, grad_output._dtype)
    op = _opmath(grad_output._dtype)
    taps = [[(_nearest_index(i, o, s, exact, op), None)] for i, o, s in zip(input_size[2:], output_size, scales)]
    return materialize(meta, _apply_backward(grad_output._data.astype(np.float64), taps, input_size[2:]),
                       grad_output)


@impl("upsample_nearest1d", "CPU", "Meta")
def upsample_nearest1d(self: Tensor, output_size: Sequence[int], scales: float | None = None) -> Tensor:
    return _nearest(self, output_size, [scales], False)


@impl("upsample_nearest2d", "CPU", "Meta")
def upsample_nearest2d(self: Tensor, output_size: Sequence[int], scales_h: float | None = None,
                       scales_w: float | None = None) -> Tensor:
    return _nearest(self, output_size, [scales_h, scales_w], False)


@impl("upsample_nearest3d", "CPU", "Meta")
def upsample_nearest3d(self: Tensor, output_size: Sequence[int], scales_d: float | None = None,
                       scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    return _nearest(self, output_size, [scales_d, scales_h, scales_w], False)


@impl("_upsample_nearest_exact1d", "CPU", "Meta")
def _upsample_nearest_exact1d(self: Tensor, output_size: Sequence[int], scales: float | None = None) -> Tensor:
    return _nearest(self, output_size, [scales], True)


@impl("_upsample_nearest_exact2d", "CPU", "Meta")
def _upsample_nearest_exact2d(self: Tensor, output_size: Sequence[int], scales_h: float | None = None,
                              scales_w: float | None = None) -> Tensor:
    return _nearest(self, output_size, [scales_h, scales_w], True)


@impl("_upsample_nearest_exact3d", "CPU", "Meta")
def _upsample_nearest_exact3d(self: Tensor, output_size: Sequence[int], scales_d: float | None = None,
                              scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    return _nearest(self, output_size, [scales_d, scales_h, scales_w], True)


@impl("upsample_nearest1d_backward", "CPU", "Meta")
def upsample_nearest1d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                                scales: float | None = None) -> Tensor:
    return _nearest_backward("upsample_nearest1d_backward", grad_output, output_size, input_size,
                             [scales], False)


@impl("upsample_nearest2d_backward", "CPU", "Meta")
def upsample_nearest2d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                                scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    return _nearest_backward("upsample_nearest2d_backward", grad_output, output_size, input_size,
                             [scales_h, scales_w], False)


@impl("upsample_nearest3d_backward", "CPU", "Meta")
def upsample_nearest3d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                                scales_d: float | None = None, scales_h: float | None = None,
                                scales_w: float | None = None) -> Tensor:
    return _nearest_backward("upsample_nearest3d_backward", grad_output, output_size, input_size,
                             [scales_d, scales_h, scales_w], False)


@impl("_upsample_nearest_exact1d_backward", "CPU", "Meta")
def _upsample_nearest_exact1d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                                       scales: float | None = None) -> Tensor:
    return _nearest_backward("_upsample_nearest_exact1d_backward", grad_output, output_size, input_size,
                             [scales], True)


@impl("_upsample_nearest_exact2d_backward", "CPU", "Meta")
def _upsample_nearest_exact2d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                                       scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    return _nearest_backward("_upsample_nearest_exact2d_backward", grad_output, output_size, input_size,
                             [scales_h, scales_w], True)


@impl("_upsample_nearest_exact3d_backward", "CPU", "Meta")
def _upsample_nearest_exact3d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                                       scales_d: float | None = None, scales_h: float | None = None,
                                       scales_w: float | None = None) -> Tensor:
    return _nearest_backward("_upsample_nearest_exact3d_backward", grad_output, output_size, input_size,
                             [scales_d, scales_h, scales_w], True)


# --- linear / bilinear / trilinear / bicubic ---------------------------------------------------------------------


def _interp(name: str, mode: str, self: Tensor, output_size: Sequence[int], align_corners: bool,
            scales: Sequence[float | None]) -> Tensor:
    nd = len(scales)
    _check_input(self, nd, output_size)
    out = tuple(int(s) for s in output_size)
    meta = _meta((*self._shape[:2], *out), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if not self._dtype.is_floating_point:
        kernel = f"{name}_channels_last" if mode == "linear" and nd == 2 else f"compute_indices_weights_{mode}"
        raise not_implemented(kernel, self._dtype)
    taps = _taps(mode, self._shape[2:], out, align_corners, scales, _opmath(self._dtype))
    return materialize(meta, _apply(self._data.astype(np.float64), taps), self)


def _interp_backward(name: str, mode: str, grad_output: Tensor, output_size: Sequence[int],
                     input_size: Sequence[int], align_corners: bool, scales: Sequence[float | None]) -> Tensor:
    nd = len(scales)
    _check_grad(grad_output, nd, output_size, input_size)
    meta = _meta(tuple(int(s) for s in input_size), grad_output._dtype)
    if is_meta(grad_output):
        return materialize(meta, None, grad_output)
    if not grad_output._dtype.is_floating_point:
        raise not_implemented(name, grad_output._dtype)
    taps = _taps(mode, input_size[2:], output_size, align_corners, scales, _opmath(grad_output._dtype))
    return materialize(meta, _apply_backward(grad_output._data.astype(np.float64), taps, input_size[2:]),
                       grad_output)


@impl("upsample_linear1d", "CPU", "Meta")
def upsample_linear1d(self: Tensor, output_size: Sequence[int], align_corners: bool,
                      scales: float | None = None) -> Tensor:
    return _interp("upsample_linear1d", "linear", self, output_size, align_corners, [scales])


@impl("upsample_bilinear2d", "CPU", "Meta")
def upsample_bilinear2d(self: Tensor, output_size: Sequence[int], align_corners: bool,
                        scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    return _interp("upsample_bilinear2d", "linear", self, output_size, align_corners, [scales_h, scales_w])


@impl("upsample_trilinear3d", "CPU", "Meta")
def upsample_trilinear3d(self: Tensor, output_size: Sequence[int], align_corners: bool,
                         scales_d: float | None = None, scales_h: float | None = None,
                         scales_w: float | None = None) -> Tensor:
    return _interp("upsample_trilinear3d", "linear", self, output_size, align_corners, [scales_d, scales_h, scales_w])


@impl("upsample_bicubic2d", "CPU", "Meta")
def upsample_bicubic2d(self: Tensor, output_size: Sequence[int], align_corners: bool,
                       scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    return _interp("upsample_bicubic2d", "cubic", self, output_size, align_corners, [scales_h, scales_w])


@impl("upsample_linear1d_backward", "CPU", "Meta")
def upsample_linear1d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                               align_corners: bool, scales: float | None = None) -> Tensor:
    return _interp_backward("upsample_linear1d_backward", "linear", grad_output, output_size, input_size,
                            align_corners, [scales])


@impl("upsample_bilinear2d_backward", "CPU", "Meta")
def upsample_bilinear2d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                                 align_corners: bool, scales_h: float | None = None,
                                 scales_w: float | None = None) -> Tensor:
    return _interp_backward("upsample_bilinear2d_backward", "linear", grad_output, output_size, input_size,
                            align_corners, [scales_h, scales_w])


@impl("upsample_trilinear3d_backward", "CPU", "Meta")
def upsample_trilinear3d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                                  align_corners: bool, scales_d: float | None = None, scales_h: float | None = None,
                                  scales_w: float | None = None) -> Tensor:
    return _interp_backward("upsample_trilinear3d_backward", "linear", grad_output, output_size, input_size,
                            align_corners, [scales_d, scales_h, scales_w])


@impl("upsample_bicubic2d_backward", "CPU", "Meta")
def upsample_bicubic2d_backward(grad_output: Tensor, output_size: Sequence[int], input_size: Sequence[int],
                                align_corners: bool, scales_h: float | None = None,
                                scales_w: float | None = None) -> Tensor:
    return _interp_backward("upsample_bicubic2d_backward", "cubic", grad_output, output_size, input_size,
                            align_corners, [scales_h, scales_w])


# --- the .vec overloads (CompositeImplicitAutograd) ------------------------------------------------------------------


def compute_output_size(input_size: Sequence[int], output_size: Sequence[int] | None,
                        scale_factors: Sequence[float] | None) -> list[int]:
    """UpSample.cpp ``compute_output_size``: exactly one of the sizes and the factors; ``int(size * factor)``."""
    spatial = len(input_size) - 2
    if output_size is not None:
        if scale_factors is not None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        if len(output_size) != spatial:
            raise RuntimeError("Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be true, "
                               "but got false.  (Could this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
        return [int(s) for s in output_size]
    if scale_factors is not None:
        if len(scale_factors) != spatial:
            raise RuntimeError("Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be "
                               "true, but got false.  (Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        return [int(float(input_size[i + 2]) * scale_factors[i]) for i in range(spatial)]
    raise RuntimeError("Must specify exactly one of output_size and scale_factors")


def _scales(scale_factors: Sequence[float] | None, n: int) -> list[float | None]:
    return [None] * n if scale_factors is None else [scale_factors[i] for i in range(n)]


def _vec(op_name: str, nd: int, interp: bool):  # noqa: ANN202
    def kernel(input: Tensor, output_size: Sequence[int] | None, *rest: object) -> Tensor:  # noqa: A002
        align = rest[0] if interp else None
        factors = rest[-1]
        osize = compute_output_size(input._shape, output_size, factors)  # type: ignore[arg-type]
        target = getattr(aten, op_name).default
        args = (input, osize, align) if interp else (input, osize)
        return target(*args, *_scales(factors, nd))  # type: ignore[arg-type]

    kernel.__name__ = kernel.__qualname__ = f"{op_name}_vec"
    kernel.__doc__ = f"``{op_name}.vec``: the output size from the sizes or factors, then ``{op_name}``."
    return kernel


for _name, _nd, _interp_mode in (
    ("upsample_nearest1d", 1, False), ("upsample_nearest2d", 2, False), ("upsample_nearest3d", 3, False),
    ("_upsample_nearest_exact1d", 1, False), ("_upsample_nearest_exact2d", 2, False),
    ("_upsample_nearest_exact3d", 3, False), ("upsample_linear1d", 1, True), ("upsample_bilinear2d", 2, True),
    ("upsample_trilinear3d", 3, True), ("upsample_bicubic2d", 2, True),
):
    impl(f"{_name}.vec", "CompositeImplicitAutograd")(_vec(_name, _nd, _interp_mode))


# --- pixel shuffle -----------------------------------------------------------------------------------------------


@impl("pixel_shuffle", "CPU", "Meta")
def pixel_shuffle(self: Tensor, upscale_factor: int) -> Tensor:
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r)."""
    if self.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    r = upscale_factor
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = self._shape[-3:]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    batch = tuple(self._shape[:-3])
    meta = _meta((*batch, c // (r * r), h * r, w * r), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    n = len(batch)
    x = self._data.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return materialize(meta, x.reshape(meta.shape).copy(), self)


@impl("pixel_unshuffle", "CPU", "Meta")
def pixel_unshuffle(self: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W)."""
    if self.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    r = downscale_factor
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = self._shape[-3:]
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {r}")
    batch = tuple(self._shape[:-3])
    meta = _meta((*batch, c * r * r, h // r, w // r), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)
    if self.numel() == 0:  # the CPU kernel's shortcut: an empty input comes back as a copy, in its own shape
        return materialize(_meta(self._shape, self._dtype), self._data.copy(), self)
    n = len(batch)
    x = self._data.reshape(*batch, c, h // r, r, w // r, r)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return materialize(meta, x.reshape(meta.shape).copy(), self)

