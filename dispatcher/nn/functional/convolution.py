"""``nn.functional.conv1d`` / ``conv2d``: ``torch.conv1d`` / ``torch.conv2d`` themselves, as in torch
(torch/nn/functional.py re-exports the builtins; dispatcher/api/convolution.py).
"""

from ...api import convolution as _torch_level

__all__ = ["conv1d", "conv2d"]

conv1d = _torch_level.conv1d  # torch.nn.functional.conv1d is torch.conv1d
conv2d = _torch_level.conv2d
