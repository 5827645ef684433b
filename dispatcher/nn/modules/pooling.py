"""Pooling layers: ``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d/3d``, ``MaxUnpool1d/2d``, ``LPPool1d/2d/3d`` (torch/nn/modules/pooling.py).

Each keeps its constructor arguments as given (``AvgPool1d`` and ``MaxUnpool2d`` normalise them to tuples, as
torch's do, which shows in the ``repr``) and calls the matching ``nn.functional`` function.
"""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as F
from ..module import Module

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d",
    "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
]


def _ntuple(v: Any, n: int) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _MaxPoolNd(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")

    _pool = staticmethod(F.max_pool1d)

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return type(self)._pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of the last dim."""

    _pool = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of the last two dims."""

    _pool = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Max over sliding windows of the last three dims."""

    _pool = staticmethod(F.max_pool3d)


class _AvgPoolNd(Module):
    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mean over sliding windows of the last dim (arguments kept as 1-tuples)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolWithDivisor(_AvgPoolNd):
    _pool = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self)._pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPoolWithDivisor):
    """Mean over sliding windows of the last two dims."""


class AvgPool3d(_AvgPoolWithDivisor):
    """Mean over sliding windows of the last three dims."""

    _pool = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _pool = staticmethod(F.adaptive_avg_pool1d)

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self)._pool(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Mean over windows chosen so that the last dim becomes ``output_size``."""


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Mean over windows chosen so that the last two dims become ``output_size``."""

    _pool = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Mean over windows chosen so that the last three dims become ``output_size``."""

    _pool = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    _pool = staticmethod(F.adaptive_max_pool1d)

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return type(self)._pool(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max over windows chosen so that the last dim becomes ``output_size``."""


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max over windows chosen so that the last two dims become ``output_size``."""

    _pool = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max over windows chosen so that the last three dims become ``output_size``."""

    _pool = staticmethod(F.adaptive_max_pool3d)


class MaxUnpool1d(Module):
    """The partial inverse of ``MaxPool1d`` (arguments kept as 1-tuples)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(Module):
    """The partial inverse of ``MaxPool2d``: values written back at their indices, zeros elsewhere."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 2)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 2)
        self.padding = _ntuple(padding, 2)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class _LPPoolNd(Module):
    _pool = staticmethod(F.lp_pool1d)

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self)._pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """Power-average pooling over the last dim."""


class LPPool2d(_LPPoolNd):
    """Power-average pooling over the last two dims."""

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over the last three dims."""

    _pool = staticmethod(F.lp_pool3d)
