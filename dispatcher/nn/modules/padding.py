"""The padding layers: ``ZeroPad1d/2d/3d``, ``ConstantPad*``, ``ReflectionPad*``, ``ReplicationPad*``, ``CircularPad*``
(torch/nn/modules/padding.py).

Each holds ``padding`` as a tuple of 2 / 4 / 6 ints (one int repeated, as torch's ``_ntuple``) and calls ``F.pad``
with its mode; ``CircularPad*`` first checks the input's rank with torch's ValueError.
"""

from __future__ import annotations

import collections.abc
from typing import Any

from ...tensor import Tensor
from .. import functional as F
from ..module import Module

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]


def _ntuple(x: Any, n: int) -> tuple:
    return tuple(x) if isinstance(x, collections.abc.Iterable) else (x,) * n


class _PadNd(Module):
    """A padding layer of ``_dims`` padded dims in ``_mode``."""

    _dims = 0
    _mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._dims)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Wrap-around padding of the last dim."""

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Wrap-around padding of the last 2 dims."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Wrap-around padding of the last 3 dims."""

    _dims = 3


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Mirror padding of the last dim (the edge not repeated)."""

    _dims = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Mirror padding of the last 2 dims."""

    _dims = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Mirror padding of the last 3 dims."""

    _dims = 3


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Edge-repeating padding of the last dim."""

    _dims = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Edge-repeating padding of the last 2 dims."""

    _dims = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Edge-repeating padding of the last 3 dims."""

    _dims = 3


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pad(input, self.padding, self._mode, self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Padding of the last dim with ``value``."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Padding of the last 2 dims with ``value``."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Padding of the last 3 dims with ``value``."""

    _dims = 3


class _ZeroPadNd:
    """What the three ``ZeroPad*`` add to their ``ConstantPad*`` base (listed first): the value fixed at 0.0 and the
    bare ``padding`` repr."""

    padding: tuple

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)  # type: ignore[call-arg]

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd, ConstantPad1d):
    """Zero padding of the last dim."""


class ZeroPad2d(_ZeroPadNd, ConstantPad2d):
    """Zero padding of the last 2 dims."""


class ZeroPad3d(_ZeroPadNd, ConstantPad3d):
    """Zero padding of the last 3 dims."""
