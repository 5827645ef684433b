"""``nn.Fold`` / ``nn.Unfold`` (torch/nn/modules/fold.py): ``F.fold`` / ``F.unfold`` with the arguments kept as
given (ints or tuples), printed as given."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as F
from ..module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sums columns of sliding blocks (N, C * prod(kernel_size), L) back into an image (N, C, *output_size)."""

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """The sliding blocks of an image (N, C, H, W) as columns (N, C * prod(kernel_size), L)."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")
