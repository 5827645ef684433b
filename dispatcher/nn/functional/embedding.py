"""``nn.functional.embedding``, ``embedding_bag`` and ``one_hot``.

Corresponds to torch/nn/functional.py's ``embedding`` (``padding_idx`` checked and normalised in Python, -1 for
none, then ``aten.embedding(weight, input, ...)``) and the ``torch._C._nn.one_hot`` builtin
(``num_classes`` passed only when given).
"""

from __future__ import annotations

import warnings

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["embedding", "one_hot", "embedding_bag"]


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


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,  # noqa: A002
                  max_norm: float | None = None, norm_type: float = 2, scale_grad_by_freq: bool = False,
                  mode: str = "mean", sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> Tensor:
    """Sums / means / maxima of bags of embeddings: torch/nn/functional.py's checks, 2-d input as fixed-length bags
    (``arange`` offsets), then ``aten.embedding_bag.padding_idx``; the first output."""
    from ... import dtypes as _dt
    from ...api.factories import arange

    if weight.dtype == _dt.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
                      "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must "
                         f"have the same shape as the input ({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                             f"length sequences. However, found offsets of type {type(offsets)}")
        offsets = arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        raise NotImplementedError("embedding_bag(max_norm=...) is not supported by dispatchkit")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    ret = aten.embedding_bag.padding_idx(weight, input, offsets, scale_grad_by_freq, mode_enum, sparse,
                                         per_sample_weights, include_last_offset, padding_idx)
    return ret[0]
