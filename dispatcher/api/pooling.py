"""Pooling: ``torch.max_pool1d`` / ``max_pool2d`` / ``max_pool1d_with_indices`` / ``avg_pool1d`` /
``adaptive_avg_pool1d``.

Corresponds to the python_torch_functions.cpp bindings of these ops: PyTorch's argument parser repeats one int
for an ``int[N]`` argument N times (``kernel_size=2`` -> ``[2, 2]``). The ``nn.functional`` versions are in
``dispatcher/nn/functional/pooling.py``.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import check_tensor, expand_ints

aten = namespace("aten")

__all__ = ["max_pool1d", "max_pool2d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d"]


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False) -> Tensor:
    return aten.max_pool1d.default(input, expand_ints(kernel_size, 1), expand_ints(stride, 1),
                                   expand_ints(padding, 1), expand_ints(dilation, 1), ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,  # noqa: A002
                            dilation: Any = 1, ceil_mode: bool = False) -> Any:
    return aten.max_pool1d_with_indices.default(input, expand_ints(kernel_size, 1), expand_ints(stride, 1),
                                                expand_ints(padding, 1), expand_ints(dilation, 1), ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False) -> Tensor:
    return aten.max_pool2d.default(input, expand_ints(kernel_size, 2), expand_ints(stride, 2),
                                   expand_ints(padding, 2), expand_ints(dilation, 2), ceil_mode)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    check_tensor("avg_pool1d", 1, "input", input)
    return aten.avg_pool1d.default(input, expand_ints(kernel_size, 1), expand_ints(stride, 1),
                                   expand_ints(padding, 1), ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    check_tensor("adaptive_avg_pool1d", 1, "input", input)
    return aten.adaptive_avg_pool1d.default(input, expand_ints(output_size, 1))


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False) -> Tensor:
    return aten.max_pool3d.default(input, expand_ints(kernel_size, 3), expand_ints(stride, 3),
                                   expand_ints(padding, 3), expand_ints(dilation, 3), ceil_mode)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:  # noqa: A002
    return aten.adaptive_max_pool1d.default(input, expand_ints(output_size, 1))


__all__ += ["max_pool3d", "adaptive_max_pool1d"]
