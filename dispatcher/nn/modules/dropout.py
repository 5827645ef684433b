"""``nn.Dropout``, ``Dropout1d/2d/3d``, ``AlphaDropout``, ``FeatureAlphaDropout`` (torch/nn/modules/dropout.py): random
zeroing (of elements or of whole channels) in training mode, the identity in eval mode."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from ..module import Module

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """The common constructor and repr of the dropout layers (torch's ``_DropoutNd``)."""

    __constants__ = ["p", "inplace"]

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) / (C, L) input."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) / (C, D, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout for SELU networks: keeps zero mean and unit variance."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.feature_alpha_dropout(input, self.p, self.training)
