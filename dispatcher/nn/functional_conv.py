"""``nn.functional`` convolution, pooling and normalization of the conv batch, with torch 2.13's argument handling.

Corresponds to torch/nn/functional.py and the builtins it re-exports: ``conv1d`` / ``conv2d`` are
``torch.conv1d`` / ``torch.conv2d`` (a string ``padding`` selects the ``.padding`` overload; an int for a
``SymInt[N]`` argument is repeated N times, as PyTorch's argument parser does), ``avg_pool2d`` is
``torch._C._nn.avg_pool2d``; ``max_pool1d`` / ``max_pool2d`` dispatch on ``return_indices`` to the
``*_with_indices`` op (``stride=None`` becomes ``[]``); ``adaptive_avg_pool2d`` fills ``None`` entries of the
output size from the input; ``batch_norm`` / ``instance_norm`` / ``group_norm`` check the batch (spatial) size
in Python first, as torch's functions do. ``nn/functional.py`` re-exports ``__all__``.
"""

from __future__ import annotations

import math
from typing import Any

from .. import functional_conv as _torch_level
from ..functional_conv import check_tensor as _check_tensor
from ..functional_conv import expand_ints
from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["conv1d", "conv2d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "batch_norm", "instance_norm", "group_norm"]


conv1d = _torch_level.conv1d  # torch.nn.functional.conv1d is torch.conv1d
conv2d = _torch_level.conv2d


def _pool_args(n: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any) -> tuple[Any, Any, Any, Any]:
    stride = [] if stride is None else stride
    return (expand_ints(kernel_size, n), expand_ints(stride, n), expand_ints(padding, n),
            expand_ints(dilation, n))


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    args = _pool_args(1, kernel_size, stride, padding, dilation)
    if return_indices:
        return aten.max_pool1d_with_indices.default(input, *args, ceil_mode)
    return aten.max_pool1d.default(input, *args, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    args = _pool_args(2, kernel_size, stride, padding, dilation)
    if return_indices:
        return aten.max_pool2d_with_indices.default(input, *args, ceil_mode)
    return aten.max_pool2d.default(input, *args, ceil_mode)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    _check_tensor("avg_pool1d", 1, "input", input)
    kernel_size, stride, padding, _ = _pool_args(1, kernel_size, stride, padding, 1)
    return aten.avg_pool1d.default(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    _check_tensor("avg_pool2d", 1, "input", input)
    kernel_size, stride, padding, _ = _pool_args(2, kernel_size, stride, padding, 1)
    return aten.avg_pool2d.default(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                   divisor_override)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    _check_tensor("adaptive_avg_pool1d", 1, "input", input)
    return aten.adaptive_avg_pool1d.default(input, expand_ints(output_size, 1))


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """``_list_with_default``: ``None`` entries of the output size take the input's size there."""
    if not isinstance(output_size, int):
        sizes = input.size()
        k = len(output_size)
        output_size = [sizes[len(sizes) - k + i] if v is None else v for i, v in enumerate(output_size)]
    return aten.adaptive_avg_pool2d.default(input, expand_ints(output_size, 2))


def _verify_batch_size(size: Any) -> None:
    if size[0] * math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,  # noqa: A002
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-05) -> Tensor:
    if training:
        _verify_batch_size(input.size())
    return aten.batch_norm.default(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,  # noqa: A002
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-05) -> Tensor:
    if use_input_stats:
        size = input.size()
        if math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")
    return aten.instance_norm.default(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                                      True)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-05) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    size = input.size()
    _verify_batch_size([size[0] * size[1] // num_groups, num_groups, *size[2:]])
    return aten.group_norm.default(input, num_groups, weight, bias, eps, True)
