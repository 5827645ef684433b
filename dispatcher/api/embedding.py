"""Embedding: ``torch.embedding`` (the torch-level function; ``nn.functional.embedding`` is in
dispatcher/nn/functional).

Corresponds to the python_torch_functions.cpp binding of ``aten::embedding`` (CompositeExplicitAutograd):
``(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)``, trailing defaults left out.
"""

from __future__ import annotations

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _strip

aten = namespace("aten")

__all__ = ["embedding"]


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``torch.embedding``: ``aten.embedding``."""
    args = _strip([padding_idx, scale_grad_by_freq, sparse], [-1, False, False])
    return aten.embedding.default(weight, indices, *args)
