"""``nn.Conv1d`` / ``Conv2d`` / ``Conv3d`` and ``nn.ConvTranspose1d`` / ``2d`` / ``3d`` (torch/nn/modules/conv.py).

``_ConvNd`` checks the constructor's arguments with torch's ValueErrors (groups, divisibility, the padding string,
'same' with a stride, the padding mode), stores them as tuples, and holds ``weight`` (out, in / groups, *kernel) —
(in, out / groups, *kernel) for the transposed ones — and ``bias`` (out), initialised as torch's
``reset_parameters``: ``kaiming_uniform_(a=sqrt(5))`` and a bias uniform in +-1/sqrt(fan_in), the fan computed on
the weight as stored (so a transposed convolution's fan_in is ``out / groups * prod(kernel)``). A padding mode other
than "zeros" pads with ``F.pad`` first (``_reversed_padding_repeated_twice``, asymmetric for an even 'same' kernel)
and convolves with no padding. A transposed module's ``forward(input, output_size=None)`` turns ``output_size`` into
the ``output_padding`` (``_output_padding``) and calls ``F.conv_transpose*d``.
"""

from __future__ import annotations

import collections.abc
from typing import Any

from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from ..parameter import Parameter
from .linear import _empty, _reset_kaiming_uniform

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _ntuple(n: int) -> Any:
    """torch/nn/modules/utils.py's ``_ntuple``: an iterable becomes a tuple, one value is repeated ``n`` times."""
    def parse(x: Any) -> tuple:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return (x,) * n
    return parse


_single, _pair, _triple = _ntuple(1), _ntuple(2), _ntuple(3)
_NTUPLE = {1: _single, 2: _pair, 3: _triple}
_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_TRANSPOSE = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


class _ConvNd(Module):
    """What every convolution module shares: argument checks, parameters, initialisation, ``extra_repr``."""

    _n: int = 0  #: spatial dims

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple, padding: Any,
                 dilation: tuple, transposed: bool, output_padding: tuple, groups: int, bias: bool,
                 padding_mode: str, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # the padding F.pad takes for a non-"zeros" mode: last dim first, (left, right) per dim
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    self._reversed_padding_repeated_twice[2 * i] = total // 2
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = [x for x in reversed(padding) for _ in range(2)]
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(_empty(*shape, *kernel_size, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_kaiming_uniform(self.weight, self.bias)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class _Conv(_ConvNd):
    """Conv1d / 2d / 3d: (N, C_in, *spatial) -> (N, C_out, *spatial'), or without the batch dim."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        nt = _NTUPLE[self._n]
        super().__init__(in_channels, out_channels, nt(kernel_size), nt(stride),
                         padding if isinstance(padding, str) else nt(padding), nt(dilation), False, nt(0), groups,
                         bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:  # noqa: A002
        conv = _CONV[self._n]
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, _NTUPLE[self._n](0), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-d convolution over (N, C_in, L)."""

    _n = 1


class Conv2d(_Conv):
    """2-d convolution over (N, C_in, H, W)."""

    _n = 2


class Conv3d(_Conv):
    """3-d convolution over (N, C_in, D, H, W)."""

    _n = 3


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose1d / 2d / 3d: the gradient of a convolution with respect to its input, as a layer."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        nt = _NTUPLE[self._n]
        super().__init__(in_channels, out_channels, nt(kernel_size), nt(stride), nt(padding), nt(dilation), True,
                         nt(output_padding), groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input: Tensor, output_size: Any, stride: Any, padding: Any, kernel_size: Any,  # noqa: A002
                        num_spatial_dims: int, dilation: Any = None) -> list[int]:
        """The output_padding giving ``output_size`` (checked against the sizes the stride allows)."""
        if output_size is None:
            return list(_single(self.output_padding))
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            size = ((input.size(d + num_non_spatial_dims) - 1) * stride[d] - 2 * padding[d]
                    + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            min_sizes.append(size)
            max_sizes.append(size + stride[d] - 1)
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                                 f"to {max_sizes} (for an input of torch.Size({list(input.size()[2:])}))")
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:  # noqa: A002
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {self.__class__.__name__}")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              self._n, self.dilation)
        return _CONV_TRANSPOSE[self._n](input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                        self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution over (N, C_in, L)."""

    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution over (N, C_in, H, W)."""

    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution over (N, C_in, D, H, W)."""

    _n = 3
