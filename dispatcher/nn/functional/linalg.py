"""``nn.functional.linear`` and ``cosine_similarity``.

Corresponds to torch/nn/functional.py's ``linear`` (the ``torch._C._nn.linear`` builtin: ``aten.linear``, the
bias passed only when given) and ``cosine_similarity`` (``torch.cosine_similarity``: trailing defaults left
out).
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["linear", "cosine_similarity"]


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
