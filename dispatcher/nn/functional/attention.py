"""``nn.functional.scaled_dot_product_attention``.

Corresponds to the ``torch._C._nn.scaled_dot_product_attention`` builtin: one aten op; as the binding's call
appears in graphs, trailing positional arguments equal to their defaults are left out, and keyword-only ones
are passed only when set.
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v, with the backend PyTorch's CPU dispatch picks (fused or math)."""
    args: list[Any] = [attn_mask, dropout_p, is_causal]
    defaults: list[Any] = [None, 0.0, False]
    while args and args[-1] == defaults[len(args) - 1] and type(args[-1]) is type(defaults[len(args) - 1]):
        args.pop()
    kwargs: dict[str, Any] = {}
    if scale is not None:
        kwargs["scale"] = scale
    if enable_gqa:
        kwargs["enable_gqa"] = True
    return aten.scaled_dot_product_attention.default(query, key, value, *args, **kwargs)
