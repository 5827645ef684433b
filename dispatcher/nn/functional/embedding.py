"""``nn.functional.embedding`` and ``one_hot``.

Corresponds to torch/nn/functional.py's ``embedding`` (``padding_idx`` checked and normalised in Python, -1 for
none, then ``aten.embedding(weight, input, ...)``) and the ``torch._C._nn.one_hot`` builtin
(``num_classes`` passed only when given).
"""

from __future__ import annotations

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["embedding", "one_hot"]


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # noqa: A002
              max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        raise NotImplementedError("embedding(max_norm=...) is not supported by dispatchkit")
    return aten.embedding.default(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot rows: ``[..., num_classes]`` with a 1 at each value's index."""
    if isinstance(num_classes, bool) or not isinstance(num_classes, int):
        raise TypeError(f"one_hot(): argument 'num_classes' must be int, not {type(num_classes).__name__}")
    if num_classes == -1:
        return aten.one_hot.default(tensor)
    return aten.one_hot.default(tensor, num_classes)
