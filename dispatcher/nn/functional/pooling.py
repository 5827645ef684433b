"""``nn.functional`` pooling: max_pool1d / max_pool2d, avg_pool1d / avg_pool2d, adaptive_avg_pool1d /
adaptive_avg_pool2d.

Corresponds to torch/nn/functional.py and the builtins it re-exports: ``avg_pool2d`` is
``torch._C._nn.avg_pool2d``; ``max_pool1d`` / ``max_pool2d`` dispatch on ``return_indices`` to the
``*_with_indices`` op (``stride=None`` becomes ``[]``); an int for an ``int[N]`` argument is repeated N
times, as PyTorch's argument parser does; ``adaptive_avg_pool2d`` fills ``None`` entries of the output size
from the input.
"""

from __future__ import annotations

from typing import Any

from ...api.arguments import check_tensor as _check_tensor
from ...api.arguments import expand_ints
from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d"]


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
