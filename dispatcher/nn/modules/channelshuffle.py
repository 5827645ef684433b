"""``nn.ChannelShuffle`` (torch/nn/modules/channelshuffle.py): ``F.channel_shuffle(input, groups)``."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from ..module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Split the channels into ``groups`` groups and interleave them (ShuffleNet)."""

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
