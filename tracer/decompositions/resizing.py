"""Core-aten decompositions of the resizing family: the nearest and nearest-exact upsampling ops,
``upsample_linear1d``, ``pixel_shuffle`` / ``pixel_unshuffle``.

Corresponds to their entries in torch/_decomp/decompositions.py and torch/_refs/nn/functional (the ops PyTorch 2.13's
``core_aten_decompositions()`` lowers; ``upsample_bilinear2d``, ``upsample_trilinear3d`` and ``upsample_bicubic2d``
stay whole):

* nearest (``_upsample_nearest``): per spatial dim, ``arange(osize, float32)``, ``(i + offset) * scale`` (offset
  0.5 for nearest-exact, 0.0 otherwise; ``scale = isize / osize`` or ``1 / scales``) cast to int64 and unsqueezed
  to broadcast, then one ``index`` of the input with ``[None, None, *indices]``;
* linear (``_upsample_linear``): source positions clamped at 0, the two neighbours ``x`` / ``min(x + 1, size - 1)``
  gathered with ``index``, blended as ``v1 + (v2 - v1) * clamp(frac, 0, 1)``;
* pixel shuffle: a view into ``(*, C, r, r, H, W)``, a permutation, a reshape and a contiguous ``clone``.
"""

from __future__ import annotations

import itertools
from typing import Any

from dispatcher.memory_format import contiguous_format
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition
from .type_promotion import pw_cast_for_opmath

aten = namespace("aten")


def _nearest_indices(input: Tensor, output_size: list[int], scales: list[Any], exact: bool) -> list[Tensor]:  # noqa: A002
    from dispatcher import dtypes

    indices = []
    n = len(output_size)
    offset = 0.5 if exact else 0.0
    for d in range(n):
        osize, isize = output_size[d], input.shape[-n + d]
        scale = isize / (isize * scales[d]) if scales[d] is not None and scales[d] > 0 else isize / osize
        out_idx = aten.arange.default(osize, dtype=dtypes.float32, device=input.device)
        in_idx = ((out_idx + offset) * scale).to(dtypes.int64)
        for _ in range(n - 1 - d):
            in_idx = in_idx.unsqueeze(-1)
        indices.append(in_idx)
    return indices


@pw_cast_for_opmath
def _upsample_nearest(input: Tensor, output_size: list[int], scales: list[Any], exact: bool = False) -> Tensor:  # noqa: A002
    result = aten.index.Tensor(input, [None, None, *_nearest_indices(input, output_size, scales, exact)])
    if result.dim() in (4, 5):
        result = result.contiguous()
    return result


@register_decomposition(aten.upsample_nearest1d.default)
def upsample_nearest1d(input: Tensor, output_size: list[int], scales: float | None = None) -> Tensor:  # noqa: A002
    return _upsample_nearest(input, output_size, [scales])


@register_decomposition(aten._upsample_nearest_exact1d.default)
def upsample_nearest_exact1d(input: Tensor, output_size: list[int], scales: float | None = None) -> Tensor:  # noqa: A002
    return _upsample_nearest(input, output_size, [scales], exact=True)


@register_decomposition(aten.upsample_nearest2d.default)
def upsample_nearest2d(input: Tensor, output_size: list[int], scales_h: float | None = None,  # noqa: A002
                       scales_w: float | None = None) -> Tensor:
    return _upsample_nearest(input, output_size, [scales_h, scales_w])


@register_decomposition(aten._upsample_nearest_exact2d.default)
def upsample_nearest_exact2d(input: Tensor, output_size: list[int], scales_h: float | None = None,  # noqa: A002
                             scales_w: float | None = None) -> Tensor:
    return _upsample_nearest(input, output_size, [scales_h, scales_w], exact=True)


@register_decomposition(aten.upsample_nearest3d.default)
def upsample_nearest3d(input: Tensor, output_size: list[int], scales_d: float | None = None,  # noqa: A002
                       scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    return _upsample_nearest(input, output_size, [scales_d, scales_h, scales_w])


@register_decomposition(aten._upsample_nearest_exact3d.default)
def upsample_nearest_exact3d(input: Tensor, output_size: list[int], scales_d: float | None = None,  # noqa: A002
                             scales_h: float | None = None, scales_w: float | None = None) -> Tensor:
    return _upsample_nearest(input, output_size, [scales_d, scales_h, scales_w], exact=True)


@pw_cast_for_opmath
def _upsample_linear(input: Tensor, output_size: list[int], align_corners: bool,  # noqa: A002
                     scales: list[Any]) -> Tensor:
    from dispatcher import dtypes

    inp_sizes = input.shape[2:]
    n_dims = len(inp_sizes)
    dtype = input.dtype if input.is_floating_point() else dtypes.float32

    def get_values(inp_size: int, out_size: int, scale: Any, nsqueeze: int) -> tuple[Tensor, Tensor, Tensor]:
        if align_corners:
            factor = (inp_size - 1.0) / (out_size - 1.0) if out_size > 1 else 0
        else:
            factor = 1.0 / scale if scale is not None and scale > 0 else inp_size / out_size
        i = aten.arange.default(out_size, device=input.device).to(dtype)
        x_f32 = (factor * i if align_corners else factor * (i + 0.5) - 0.5).clamp(min=0.0)
        x_f32 = x_f32.reshape(x_f32.shape[0], *[1] * nsqueeze)
        x = x_f32.to(dtypes.int64)
        xp1 = (x + 1).clamp(max=inp_size - 1)
        return x_f32, x, xp1

    values = [get_values(i, o, s, n_dims - 1 - k) for k, (i, o, s) in enumerate(zip(inp_sizes, output_size, scales))]
    xs_f32, xs, xp1s = list(zip(*values))
    vs = []
    for a in itertools.product(*[[0, 1]] * n_dims):
        idx = [None, None] + [xs[k] if a[k] == 0 else xp1s[k] for k in range(n_dims)]
        v = aten.index.Tensor(input, idx)
        vs.append(v if v.dtype == dtype else v.to(dtype))
    for i in reversed(range(n_dims)):
        xscale = (xs_f32[i] - xs[i]).clamp(0.0, 1.0).to(dtype)
        vs = [v1 + aten.mul.Tensor(v2 - v1, xscale) for v1, v2 in zip(vs[::2], vs[1::2])]
    result = vs[0].contiguous()
    if not input.is_floating_point():
        result = result.round()
    return result


@register_decomposition(aten.upsample_linear1d.default)
def upsample_linear1d(input: Tensor, output_size: list[int], align_corners: bool,  # noqa: A002
                      scales: float | None = None) -> Tensor:
    return _upsample_linear(input, output_size, align_corners, [scales])


@register_decomposition(aten.pixel_shuffle.default)
def pixel_shuffle(self: Tensor, upscale_factor: int) -> Tensor:
    if self.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    batch = list(self.shape[:-3])
    c_out = self.shape[-3] // upscale_factor ** 2
    hw_out = (self.shape[-2] * upscale_factor, self.shape[-1] * upscale_factor)
    n = len(batch)
    c, r1, r2, h, w = range(n, n + 5)
    return (self.view(*batch, c_out, upscale_factor, upscale_factor, self.shape[-2], self.shape[-1])
            .permute(*range(n), c, h, r1, w, r2).reshape(*batch, c_out, *hw_out).clone(memory_format=contiguous_format))


@register_decomposition(aten.pixel_unshuffle.default)
def pixel_unshuffle(self: Tensor, downscale_factor: int) -> Tensor:
    if self.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    batch = list(self.shape[:-3])
    c_out = self.shape[-3] * downscale_factor ** 2
    hw_out = (self.shape[-2] // downscale_factor, self.shape[-1] // downscale_factor)
    n = len(batch)
    c, h, r1, w, r2 = range(n, n + 5)
    return (self.view(*batch, self.shape[-3], hw_out[0], downscale_factor, hw_out[1], downscale_factor)
            .permute(*range(n), c, r1, r2, h, w).reshape(*batch, c_out, *hw_out).clone(memory_format=contiguous_format))
