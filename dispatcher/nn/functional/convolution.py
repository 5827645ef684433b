"""``nn.functional.conv1d`` / ``conv2d`` / ``conv3d`` / ``conv_transpose1d`` / ``2d`` / ``3d``, ``unfold`` / ``fold``.

The convolutions are ``torch.conv*`` themselves, as in torch (torch/nn/functional.py re-exports the builtins;
dispatcher/api/convolution.py). ``unfold`` / ``fold`` are torch/nn/functional.py's: each argument made a pair
(``_pair``), then ``aten.im2col`` / ``aten.col2im``.
"""

from __future__ import annotations

from typing import Any

from ...api import convolution as _torch_level
from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "fold", "unfold"]

conv1d = _torch_level.conv1d  # torch.nn.functional.conv1d is torch.conv1d
conv2d = _torch_level.conv2d
conv3d = _torch_level.conv3d
conv_transpose1d = _torch_level.conv_transpose1d
conv_transpose2d = _torch_level.conv_transpose2d
conv_transpose3d = _torch_level.conv_transpose3d


def _pair(x: Any) -> list[Any]:
    """torch.nn.modules.utils._pair: an iterable as it is, one value twice."""
    return list(x) if isinstance(x, (tuple, list)) else [x, x]


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:  # noqa: A002
    """The sliding blocks of a (N, C, H, W) input as columns (N, C * prod(kernel_size), L)."""
    return aten.im2col.default(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002
         stride: Any = 1) -> Tensor:
    """Columns (N, C * prod(kernel_size), L) summed back into a (N, C, *output_size) image."""
    return aten.col2im.default(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding),
                               _pair(stride))
