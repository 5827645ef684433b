"""``nn.Identity``, ``nn.Linear``, ``NonDynamicallyQuantizableLinear`` and ``nn.Bilinear`` (torch/nn/modules/linear.py)."""

from __future__ import annotations

import math
from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter

__all__ = ["Bilinear", "Identity", "Linear", "NonDynamicallyQuantizableLinear"]


def _empty(*size: int, device: Any = None, dtype: Any = None) -> Tensor:
    from ...api.factories import empty

    return empty(*size, device=device, dtype=dtype)


def _reset_kaiming_uniform(weight: Tensor, bias: Tensor | None) -> None:
    """Linear's and the convolutions' ``reset_parameters``: kaiming_uniform_(a=sqrt(5)) is
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the weight, and the bias uses the same bound."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Identity(Module):
    """Returns its input (any constructor arguments are ignored)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``; weight (out_features, in_features), He-uniform initialised like PyTorch."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_kaiming_uniform(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear that quantization leaves alone: MultiheadAttention's ``out_proj`` (same as Linear here)."""


class Bilinear(Module):
    """``y = x1^T A x2 + b``; weight (out, in1, in2) and bias U(-1/sqrt(in1), 1/sqrt(in1)) like PyTorch."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_empty(out_features, in1_features, in2_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
