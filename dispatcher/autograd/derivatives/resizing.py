"""Derivative formulas of the resizing ops: every ``upsample_*`` op and its backward op (double backward), and
``pixel_shuffle`` / ``pixel_unshuffle``.

Corresponds to their entries in tools/autograd/derivatives.yaml: ``upsample_X(self, output_size, ...)`` saves the
output size, the scales (and ``align_corners``) and ``self.sym_sizes()``, and its gradient is
``upsample_X_backward(grad, output_size, self.sym_sizes(), ...)``; the gradient of a backward op's
``grad_output`` is the forward op applied to the incoming gradient (both are linear); ``pixel_shuffle`` and
``pixel_unshuffle`` are each other's gradients.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative

aten = namespace("aten")

#: (op, node stem, scale argument names, takes align_corners)
_UPSAMPLE = (
    ("upsample_nearest1d", "UpsampleNearest1D", ("scales",), False),
    ("upsample_nearest2d", "UpsampleNearest2D", ("scales_h", "scales_w"), False),
    ("upsample_nearest3d", "UpsampleNearest3D", ("scales_d", "scales_h", "scales_w"), False),
    ("_upsample_nearest_exact1d", "UpsampleNearestExact1D", ("scales",), False),
    ("_upsample_nearest_exact2d", "UpsampleNearestExact2D", ("scales_h", "scales_w"), False),
    ("_upsample_nearest_exact3d", "UpsampleNearestExact3D", ("scales_d", "scales_h", "scales_w"), False),
    ("upsample_linear1d", "UpsampleLinear1D", ("scales",), True),
    ("upsample_bilinear2d", "UpsampleBilinear2D", ("scales_h", "scales_w"), True),
    ("upsample_trilinear3d", "UpsampleTrilinear3D", ("scales_d", "scales_h", "scales_w"), True),
    ("upsample_bicubic2d", "UpsampleBicubic2D", ("scales_h", "scales_w"), True),
)


def _register(op: str, stem: str, scale_names: tuple[str, ...], align: bool) -> None:
    forward, backward = getattr(aten, op).default, getattr(aten, f"{op}_backward").default

    def extra(ctx):  # noqa: ANN001, ANN202
        return ((ctx.align_corners,) if align else ()) + tuple(getattr(ctx, n) for n in scale_names)

    @derivative(op, f"{stem}Backward0", ("self",), save_meta=("self",))
    def _forward(ctx, grads, needs):
        return (backward(grads[0], ctx.output_size, list(ctx.self._shape), *extra(ctx)),)

    @derivative(f"{op}_backward", f"{stem}BackwardBackward0", ("grad_output",))
    def _backward(ctx, grads, needs):
        return (forward(grads[0], ctx.output_size, *extra(ctx)),)


for _entry in _UPSAMPLE:
    _register(*_entry)


@derivative("pixel_shuffle", "PixelShuffleBackward0", ("self",))
def _pixel_shuffle(ctx, grads, needs):
    return (aten.pixel_unshuffle.default(grads[0], ctx.upscale_factor),)


@derivative("pixel_unshuffle", "PixelUnshuffleBackward0", ("self",))
def _pixel_unshuffle(ctx, grads, needs):
    return (aten.pixel_shuffle.default(grads[0], ctx.downscale_factor),)
