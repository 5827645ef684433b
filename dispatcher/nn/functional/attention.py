"""``nn.functional.scaled_dot_product_attention`` and ``multi_head_attention_forward``.

``scaled_dot_product_attention`` corresponds to the ``torch._C._nn.scaled_dot_product_attention`` builtin: one
aten op; as the binding's call appears in graphs, trailing positional arguments equal to their defaults are left
out, and keyword-only ones are passed only when set.

``multi_head_attention_forward`` and its helpers (``_canonical_mask``, ``_none_or_dtype``, ``_mha_shape_check``,
``_in_projection_packed``, ``_in_projection``) follow torch/nn/functional.py of PyTorch 2.13 step for step, so the
same ops run in the same order: boolean masks become additive float masks (``zeros_like`` + ``masked_fill_``), the
key padding mask is merged into the attention mask, and the attention itself is ``baddbmm``/``bmm`` + ``softmax``
+ ``bmm`` when the weights are asked for, ``scaled_dot_product_attention`` when they are not.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ... import dtypes as _dt
from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


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


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type: Any, other_name: str, target_type: Any,
                    check_other: bool = True) -> Tensor | None:
    """A boolean mask as an additive float mask of ``target_type`` (True -> -inf); float masks pass through."""
    if mask is not None:
        _mask_dtype = mask.dtype
        _mask_is_float = mask.is_floating_point()
        if _mask_dtype != _dt.bool and not _mask_is_float:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None and _mask_dtype != other_type:
            warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for "
                          "both instead.", stacklevel=3)
        if not _mask_is_float:
            from ...api.factories import zeros_like

            mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input: Tensor | None) -> Any:  # noqa: A002
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                     attn_mask: Tensor | None, num_heads: int) -> bool:
    """Check the ranks of the inputs and masks; True when the input is batched (3-d query)."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                 f" but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                     f" but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected_shape:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected_shape} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None = None) -> list[Tensor]:
    """q, k, v projected with the packed (3E, E) weight: one linear for self-attention, two for shared k/v."""
    from .linalg import linear

    E = q.size(-1)
    if k is v:
        if q is k:  # self-attention
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return [proj[0], proj[1], proj[2]]
        w_q, w_kv = w.split([E, E * 2])  # encoder-decoder attention
        if b is None:
            b_q = b_kv = None
        else:
            b_q, b_kv = b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return [q_proj, kv_proj[0], kv_proj[1]]
    w_q, w_k, w_v = w.chunk(3)
    if b is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = b.chunk(3)
    return [linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)]


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor, b_q: Tensor | None = None,
                   b_k: Tensor | None = None, b_v: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """q, k, v projected with separate weights (kdim / vdim may differ from embed_dim)."""
    from .linalg import linear

    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for name, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and tuple(bias.shape) != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {bias.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
    add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
    training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention on sequence-first inputs (L, N, E) or unbatched (L, E): (output, weights or None)."""
    from ...api.factories import zeros
    from ...api.linalg import baddbmm, bmm
    from ...api.shape import cat
    from .activations import softmax
    from .dropout import dropout
    from .linalg import linear
    from .shape import pad

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:  # computed as a batch of one, squeezed at the end
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # sdpa gets is_causal instead of the mask
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # in-projection
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        if in_proj_bias is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,  # type: ignore[arg-type]
                                 b_q, b_k, b_v)

    # the attention mask as 3-d
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            correct_2d_size = (tgt_len, src_len)
            if tuple(attn_mask.shape) != correct_2d_size:
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{correct_2d_size}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            correct_3d_size = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != correct_3d_size:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{correct_3d_size}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    # bias_k / bias_v appended along the sequence
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    else:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")

    # heads into the batch dimension, batch first
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v

    if add_zero_attn:  # a zero key / value appended
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(zero_attn_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(zero_attn_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.size(1)
    # the key padding mask merged into the attention mask
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        _B, _Nt, E = q.shape
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            attn_output_weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            attn_output_weights = bmm(q_scaled, k.transpose(-2, -1))
        attn_output_weights = softmax(attn_output_weights, dim=-1)
        if dropout_p > 0.0:
            attn_output_weights = dropout(attn_output_weights, p=dropout_p)
        attn_output = bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights

    # attn_mask is (1, L, S) or (N * num_heads, L, S): 4-d for sdpa's (N, num_heads, L, S)
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
