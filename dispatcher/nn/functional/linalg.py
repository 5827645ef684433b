"""``nn.functional.linear``, ``bilinear`` and ``cosine_similarity``.

Corresponds to torch/nn/functional.py's ``linear`` (the ``torch._C._nn.linear`` builtin: ``aten.linear``, the
bias passed only when given) and ``cosine_similarity`` (``torch.cosine_similarity``: trailing defaults left
out).
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["linear", "cosine_similarity", "bilinear"]


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    if bias is None:
        return aten.linear.default(input, weight)
    return aten.linear.default(input, weight, bias)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """A builtin in torch (``torch.cosine_similarity``): trailing defaults left out."""
    args: list[Any] = [x1, x2]
    if dim != 1 or eps != 1e-8:
        args.append(dim)
    if eps != 1e-8:
        args.append(eps)
    return aten.cosine_similarity.default(*args)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """The ``torch.bilinear`` builtin: ``aten.bilinear``, the bias passed only when given."""
    if bias is None:
        return aten.bilinear.default(input1, input2, weight)
    return aten.bilinear.default(input1, input2, weight, bias)
