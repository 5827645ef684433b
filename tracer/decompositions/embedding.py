"""Core-aten decompositions of the embedding ops: ``embedding_dense_backward``.

Corresponds to ``embedding_dense_backward`` of torch/_decomp/decompositions.py (PyTorch 2.13's
``core_aten_decompositions()`` entry) with its helpers ``_unsafe_masked_index`` and
``_unsafe_masked_index_put_accumulate``: the gradient rows summed into a ``[num_weights, ...]`` zero tensor at
their indices (``index_put`` with ``accumulate=True``), out-of-range and ``padding_idx`` indices masked out; with
``scale_grad_by_freq`` each row first divided by its index's count.
"""

from __future__ import annotations

from typing import Any

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition
from .type_promotion import computation_dtype

aten = namespace("aten")


def _unsafe_masked_index(x: Tensor, mask: Tensor, indices: list[Any], fill: Any) -> Tensor:
    """``x[indices]`` with indices clamped into range, ``fill`` where ``mask`` is False (``_unsafe_masked_index``)."""
    if x.numel() == 0:
        index = next(i for i in indices if i is not None)
        return aten.new_full.default(x, [*index.shape, *x.shape[len(indices):]], fill)
    clamped = [None if i is None else aten.clamp.default(i, 0, x.shape[d] - 1) for d, i in enumerate(indices)]
    return aten.masked_fill.Scalar(aten.index.Tensor(x, clamped), aten.bitwise_not.default(mask), fill)


def _unsafe_masked_index_put_accumulate(x: Tensor, mask: Tensor, indices: list[Any], values: Tensor) -> Tensor:
    """``x.index_put(indices, values, accumulate=True)`` skipping the entries where ``mask`` is False, with indices
    clamped into range (``_unsafe_masked_index_put_accumulate``)."""
    if x.numel() == 0:
        return aten.clone.default(x)
    clamped = [None if i is None else aten.clamp.default(i, -x.shape[d], x.shape[d] - 1)
               for d, i in enumerate(indices)]
    masked = aten.masked_fill.Scalar(values, aten.bitwise_not.default(mask), 0)
    return aten.index_put.default(x, clamped, masked, True)


@register_decomposition(aten.embedding_dense_backward.default)
def embedding_dense_backward(grad_output: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                             scale_grad_by_freq: bool) -> Tensor:
    """Sum the gradient rows into a ``[num_weights, ...]`` zero tensor at their indices, skipping out-of-range and
    ``padding_idx`` indices; with ``scale_grad_by_freq`` each row is first divided by its index's count."""
    from dispatcher import dtypes

    result_dtype = grad_output.dtype
    grad_output = grad_output.to(computation_dtype(result_dtype))
    if indices.dtype is not dtypes.int64:
        indices = indices.to(dtypes.int64)
    valid = aten.bitwise_and.Tensor(aten.ge.Scalar(indices, 0), aten.lt.Scalar(indices, num_weights))
    if scale_grad_by_freq:
        counts = aten.new_zeros.default(indices, [num_weights])
        ones = aten.ones_like.default(indices)
        counts = _unsafe_masked_index_put_accumulate(counts, valid, [indices], ones)
        scale = _unsafe_masked_index(counts, valid, [indices], 1)
        grad_output = aten.div.Tensor(grad_output, aten.unsqueeze.default(scale, -1))
    mask = aten.bitwise_and.Tensor(valid, aten.ne.Scalar(indices, padding_idx))
    for _ in range(grad_output.dim() - mask.dim()):
        mask = aten.unsqueeze.default(mask, -1)
    grad_weight = aten.new_zeros.default(grad_output, [num_weights, *grad_output.shape[indices.dim():]])
    return _unsafe_masked_index_put_accumulate(grad_weight, mask, [indices], grad_output).to(result_dtype)
