"""``nn.functional`` resizing: ``interpolate`` (modes nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
area), ``upsample`` / ``upsample_nearest`` / ``upsample_bilinear``, ``pixel_shuffle`` / ``pixel_unshuffle``.

Corresponds to torch/nn/functional.py ``interpolate``: the Python checks and the output size or scale factors it
computes (``recompute_scale_factor`` turns the factors into a size, ``int(size * factor)``; mode "area" always
does), then the ``.vec`` overload of the op for the mode and the input's rank (``upsample_nearest2d.vec``,
``upsample_bilinear2d.vec``, ...) or, for "area", adaptive average pooling. Antialiasing and lanczos are not
supported here.
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle"]

_VEC = {
    (3, "nearest"): "upsample_nearest1d", (4, "nearest"): "upsample_nearest2d", (5, "nearest"): "upsample_nearest3d",
    (3, "nearest-exact"): "_upsample_nearest_exact1d", (4, "nearest-exact"): "_upsample_nearest_exact2d",
    (5, "nearest-exact"): "_upsample_nearest_exact3d", (3, "linear"): "upsample_linear1d",
    (4, "bilinear"): "upsample_bilinear2d", (5, "trilinear"): "upsample_trilinear3d", (4, "bicubic"): "upsample_bicubic2d",
}

_WRONG_RANK = {
    (3, "bilinear"): "Got 3D input, but bilinear mode needs 4D input",
    (3, "trilinear"): "Got 3D input, but trilinear mode needs 5D input",
    (4, "linear"): "Got 4D input, but linear mode needs 3D input",
    (4, "trilinear"): "Got 4D input, but trilinear mode needs 5D input",
    (5, "linear"): "Got 5D input, but linear mode needs 3D input",
    (5, "bilinear"): "Got 5D input, but bilinear mode needs 4D input",
}


def _is_integer(x: Any) -> bool:
    import numpy as np

    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return True
    return isinstance(x, Tensor) and not x.is_floating_point() and not x.is_complex()


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",  # noqa: A002
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims (all but the first two) to ``size`` or by ``scale_factor``."""
    from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size: Any
    scale_factors: Any
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 "(o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of "
                                 f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                                 "format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported by dispatchkit")
    if mode == "area" and input.dim() in (3, 4, 5):
        pool = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}[input.dim()]
        return pool(input, output_size)
    op_name = _VEC.get((input.dim(), mode))
    if op_name is not None:
        vec = getattr(aten, op_name).vec
        if mode in ("nearest", "nearest-exact"):
            return vec(input, output_size, scale_factors)
        return vec(input, output_size, align_corners, scale_factors)
    if (input.dim(), mode) in _WRONG_RANK:
        raise NotImplementedError(_WRONG_RANK[(input.dim(), mode)])
    raise NotImplementedError("Input Error: Only 3D, 4D and 5D input Tensors supported"
                              f" (got {input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | trilinear"
                              f" | lanczos | area | nearest-exact (got {mode})")


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",  # noqa: A002
             align_corners: bool | None = None) -> Tensor:
    """The deprecated name of ``interpolate`` (torch warns that it is deprecated)."""
    import warnings

    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:  # noqa: A002
    import warnings

    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:  # noqa: A002
    import warnings

    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r)."""
    return aten.pixel_shuffle.default(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W)."""
    return aten.pixel_unshuffle.default(input, downscale_factor)
