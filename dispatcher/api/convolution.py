"""Convolution: ``torch.conv1d`` / ``conv2d`` / ``conv3d`` / ``conv_transpose1d`` / ``2d`` / ``3d`` / ``convolution``.

Corresponds to the python_torch_functions.cpp bindings of these ops: PyTorch's argument parser repeats one int
for an ``int[N]`` / ``SymInt[N]`` argument N times (``stride=2`` -> ``[2, 2]``), and a string ``padding``
selects the ``conv*.padding`` overload (the transposed ones have no such overload: a string is a TypeError).
``nn.functional.conv*`` / ``conv_transpose*`` are these functions.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import expand_ints

aten = namespace("aten")

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "convolution"]


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


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,  # noqa: A002
           dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(name: str, n: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,  # noqa: A002
                    padding: Any, output_padding: Any, groups: int, dilation: Any) -> Tensor:
    for arg, value in (("stride", stride), ("padding", padding), ("output_padding", output_padding),
                       ("dilation", dilation)):
        if not isinstance(value, (int, tuple, list)) or isinstance(value, bool):
            raise TypeError(f"{name}(): argument '{arg}' must be tuple of ints, not {type(value).__name__}")
    op = aten.conv_transpose1d.default if n == 1 else getattr(aten, name).input
    return op(input, weight, bias, expand_ints(stride, n), expand_ints(padding, n), expand_ints(output_padding, n),
              groups, expand_ints(dilation, n))


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,  # noqa: A002
                dilation: Any, transposed: bool, output_padding: Any, groups: int) -> Tensor:
    return aten.convolution.default(input, weight, bias, list(stride), list(padding), list(dilation), transposed,
                                    list(output_padding), groups)
