"""Activation layers (torch/nn/modules/activation.py): each calls its ``nn.functional`` function; and
``MultiheadAttention``, which lives in the same file in torch (see ``activation_mha.py``)."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from ..module import Module

__all__ = [
    "ELU", "GELU", "Hardswish", "Hardtanh", "LeakyReLU", "LogSigmoid", "LogSoftmax", "Mish", "ReLU", "ReLU6",
    "SiLU", "Sigmoid", "Softmax", "Softmax2d", "Softplus", "Tanh",
]


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Mish(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Hardswish(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.hardswish(input, self.inplace)


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        from ... import tanh  # torch.tanh (the public, __torch_function__-aware function)

        return tanh(input)


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        from ... import sigmoid

        return sigmoid(input)


class LogSigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.logsigmoid(input)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace_str}"


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace_str}"


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace_str}"


class ReLU6(Hardtanh):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)
