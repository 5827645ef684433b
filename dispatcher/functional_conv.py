"""Torch-level functions of the conv batch: ``torch.conv1d`` / ``conv2d`` / ``convolution``, ``torch.max_pool1d`` /
``max_pool2d`` / ``avg_pool1d`` / ``adaptive_avg_pool1d``, ``torch.batch_norm`` / ``instance_norm`` / ``group_norm``.

Corresponds to the python_torch_functions bindings of these ops: PyTorch's argument parser repeats one int for
an ``int[N]`` / ``SymInt[N]`` argument N times (``stride=2`` -> ``[2, 2]``), and a string ``padding`` selects the
``conv*.padding`` overload. ``functional.py`` re-exports ``__all__``; nn/functional_conv.py builds on these.
"""

from __future__ import annotations

from typing import Any

from .op_overload import namespace
from .tensor import Tensor

aten = namespace("aten")

__all__ = ["conv1d", "conv2d", "convolution", "max_pool1d", "max_pool2d", "max_pool1d_with_indices", "avg_pool1d",
           "adaptive_avg_pool1d", "batch_norm", "instance_norm", "group_norm"]


def expand_ints(value: Any, n: int) -> Any:
    """An ``int[n]`` argument as PyTorch's parser takes it: one int is repeated ``n`` times, a tuple is a list."""
    if isinstance(value, bool) or not isinstance(value, int):
        return list(value) if isinstance(value, tuple) else value
    return [value] * n


def check_tensor(name: str, position: int, arg: str, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _conv(name: str, n: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,  # noqa: A002
          padding: Any, dilation: Any, groups: int) -> Tensor:
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)):
        # two overloads (int padding, str padding): the parser reports the combination it got (input and weight
        # only here)
        got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in (input, weight))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:")
    op = getattr(aten, name)
    stride, dilation = expand_ints(stride, n), expand_ints(dilation, n)
    if isinstance(padding, str):
        return op.padding(input, weight, bias, stride, padding, dilation, groups)
    return op.default(input, weight, bias, stride, expand_ints(padding, n), dilation, groups)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,  # noqa: A002
           dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,  # noqa: A002
           dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,  # noqa: A002
                dilation: Any, transposed: bool, output_padding: Any, groups: int) -> Tensor:
    return aten.convolution.default(input, weight, bias, list(stride), list(padding), list(dilation), transposed,
                                    list(output_padding), groups)


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


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
               running_var: Tensor | None, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    return aten.batch_norm.default(input, weight, bias, running_mean, running_var, training, momentum, eps,
                                   cudnn_enabled)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    return aten.instance_norm.default(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                                      eps, cudnn_enabled)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor:
    return aten.group_norm.default(input, num_groups, weight, bias, eps, cudnn_enabled)
