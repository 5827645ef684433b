"""Resizing: ``torch.pixel_shuffle`` / ``torch.pixel_unshuffle``.

Corresponds to their python_torch_functions.cpp bindings. ``interpolate`` and the upsampling layers are
``nn.functional`` / ``nn`` only (dispatcher/nn/functional/resizing.py), as in torch.
"""

from __future__ import annotations

from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    return aten.pixel_shuffle.default(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    return aten.pixel_unshuffle.default(input, downscale_factor)
