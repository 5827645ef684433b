"""Core-aten decompositions of the attention ops: ``_scaled_dot_product_flash_attention_for_cpu`` and
``_safe_softmax``.

Corresponds to the entries PyTorch 2.13's ``core_aten_decompositions()`` holds for these ops
(torch/_decomp/decompositions.py):

* ``_scaled_dot_product_flash_attention_for_cpu``: ``_scaled_dot_product_attention_math`` (whose
  CompositeImplicitAutograd kernel then runs), its output re-laid out as the fused kernel's
  (``permute(2, 0, 1, 3)``, ``clone`` contiguous, ``permute(1, 2, 0, 3)``); the second output is the attention
  weights, not a logsumexp (as in PyTorch, a backward traced under this table receives them);
* ``_safe_softmax``: ``_softmax``, rows of only ``-inf`` found by ``eq`` / ``logical_not`` / ``any`` /
  ``logical_not`` (``torch.all``'s reference) and replaced by ``full_like(out, 0)`` through ``where``.
"""

from __future__ import annotations

from typing import Any

from dispatcher.memory_format import contiguous_format, preserve_format
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition

aten = namespace("aten")


@register_decomposition(aten._scaled_dot_product_flash_attention_for_cpu.default)
def scaled_dot_product_flash_attention_for_cpu(query: Tensor, key: Tensor, value: Tensor, dropout_p: float = 0.0,
                                               is_causal: bool = False, *, attn_mask: Tensor | None = None,
                                               scale: float | None = None) -> tuple[Tensor, Tensor]:
    if not query._dtype.is_floating_point:
        raise RuntimeError(f"query must be FP32, FP64, BF16, FP16 but got {query._dtype}")
    if not (query.dim() == 4 and key.dim() == 4 and value.dim() == 4):
        raise RuntimeError(f"q, k, v must be a 4 dimensional tensor, got {query.dim()}, {key.dim()}, {value.dim()}")
    if dropout_p != 0.0:
        raise RuntimeError(f"dropout probability must be zero, got {dropout_p}")
    if not (query._shape[3] == value._shape[3] and key._shape[3] == value._shape[3]):
        raise RuntimeError("q, k, v should have the same head size")
    output, attn = aten._scaled_dot_product_attention_math.default(
        query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal, dropout_mask=None,
        scale=scale, enable_gqa=query._shape[1] != key._shape[1])
    output = aten.permute.default(output, [2, 0, 1, 3])
    output = aten.clone.default(output, memory_format=contiguous_format)
    return aten.permute.default(output, [1, 2, 0, 3]), attn


@register_decomposition(aten._safe_softmax.default)
def safe_softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    out = aten.softmax.int(self, dim) if dtype is None else aten.softmax.int(self, dim, dtype)
    masked = aten.eq.Scalar(self, float("-inf"))
    masked_rows = aten.logical_not.default(aten.any.dim(aten.logical_not.default(masked), dim, True))
    zeros = aten.full_like.default(out, 0, pin_memory=False, memory_format=preserve_format)
    return aten.where.self(masked_rows, zeros, out)
