"""``torch.nn.functional`` additions of the attn batch: ``scaled_dot_product_attention`` and ``one_hot``.

Both are C++ bindings (torch._C._nn) calling one aten op; as the bindings' calls appear in graphs, trailing
positional arguments equal to their defaults are left out, and keyword-only ones are passed only when set.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["scaled_dot_product_attention", "one_hot"]


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


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot rows: ``[..., num_classes]`` with a 1 at each value's index."""
    if isinstance(num_classes, bool) or not isinstance(num_classes, int):
        raise TypeError(f"one_hot(): argument 'num_classes' must be int, not {type(num_classes).__name__}")
    if num_classes == -1:
        return aten.one_hot.default(tensor)
    return aten.one_hot.default(tensor, num_classes)
