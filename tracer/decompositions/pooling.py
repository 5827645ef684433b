"""Core-aten decompositions of the pooling family: ``max_unpool2d``.

Corresponds to its entry in torch/_decomp/decompositions.py (``_max_unpoolnd``): the indices made global by
adding each plane's offset (``arange(N * C) * (H * W)``), a flat zero output, one ``index_put`` of the values
(torch's ``_unsafe_index_put`` lowers to it), viewed back. The other pooling ops PyTorch 2.13's
``core_aten_decompositions()`` lists (``max_pool1d``, ``max_pool2d``, ``max_pool3d``, ``avg_pool1d``,
``adaptive_*_pool*d``) are CompositeImplicitAutograd and decompose through their kernels.
"""

from __future__ import annotations

import math

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition

aten = namespace("aten")


@register_decomposition(aten.max_unpool2d.default)
def max_unpool2d(self: Tensor, indices: Tensor, output_size: list[int]) -> Tensor:
    from dispatcher import dtypes

    if indices.dtype != dtypes.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    if len(output_size) != 2:
        raise RuntimeError("There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    if self.dim() not in (3, 4):
        raise RuntimeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
                           f"{self.dim()} dimensions.")
    output_shape = [*self.shape[:-2], *output_size]
    if any(s == 0 for s in output_shape):
        return self.new_zeros(output_shape)
    nc = math.prod(self.shape[:-2])
    hw = math.prod(output_size)
    nc_shape = [1] * self.dim()
    nc_shape[:-2] = self.shape[:-2]
    offsets = aten.arange.default(nc, device=self.device).view(nc_shape) * hw
    indices_flat = (indices + offsets).reshape(-1)
    output = self.new_zeros(output_shape)
    return aten.index_put.default(output.reshape(-1), [indices_flat], self.reshape(-1), False).view(output.shape)
