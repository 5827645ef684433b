"""``nn.MultiheadAttention`` (torch/nn/modules/activation.py of PyTorch 2.13) and the fast-path checks it shares with
the Transformer encoder layer.

Parameters as torch's: a packed ``in_proj_weight`` (3E, E) when key and value have the query's size, otherwise
``q_proj_weight`` / ``k_proj_weight`` / ``v_proj_weight``; ``in_proj_bias``; ``out_proj`` (a
``NonDynamicallyQuantizableLinear``); ``bias_k`` / ``bias_v`` with ``add_bias_kv``. Initialisation: Xavier-uniform
weights, zero biases, Xavier-normal ``bias_k`` / ``bias_v``.

``forward`` goes through torch's list of reasons not to take the fused fast path, in torch's order (floating
masks, unbatched input, cross-attention, dtype mismatch, training, odd heads, sequence-first, bias_k/v,
add_zero_attn, kdim/vdim, autocast; then ``__torch_function__``, devices, grad, make_fx tracing). When no reason
is found torch calls the fused ``aten._native_multi_head_attention``; this library computes the same values with
the regular ops (``_native_multi_head_attention`` below; the fused op itself is not in our op listing). Tracing
never takes the fast path in either library: torch's make_fx always runs under its ``TorchFunctionMetadataMode``,
so ``has_torch_function`` is true there; ``_has_torch_function`` counts our make_fx (its proxy mode) the same way.
"""

from __future__ import annotations

import math
from typing import Any

from ...modes import function_mode as _fm
from ...modes.dispatch_mode import TorchDispatchModeKey, _get_dispatch_mode, _get_dispatch_mode_pre_dispatch
from ...tensor import Tensor
from .. import functional as F
from ..functional.attention import _canonical_mask, _none_or_dtype
from ..init import constant_, xavier_normal_, xavier_uniform_
from ..module import Module
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear, _empty

__all__ = ["MultiheadAttention"]


def _check_arg_device(x: Tensor | None) -> bool:
    return x is None or x.device.type in ("cpu", "cuda", "privateuseone")


def _arg_requires_grad(x: Tensor | None) -> bool:
    return x is not None and x.requires_grad


def _is_make_fx_tracing() -> bool:
    """A make_fx trace is running (its proxy mode is on the dispatch-mode stack or the pre-dispatch one)."""
    return (_get_dispatch_mode(TorchDispatchModeKey.PROXY) is not None
            or _get_dispatch_mode_pre_dispatch(TorchDispatchModeKey.PROXY) is not None)


def _has_torch_function(args: tuple) -> bool:
    """``torch.overrides.has_torch_function``: a function mode is on, or an argument's class overrides
    ``__torch_function__``. Also true during our make_fx: torch's make_fx runs the function under a
    TorchFunctionMode (TorchFunctionMetadataMode), so in torch it is true in every trace."""
    if _fm._is_torch_function_mode_enabled() or _is_make_fx_tracing():
        return True
    if not _fm._is_torch_function_enabled():
        return False
    return any(a is not None and type(a) is not Tensor and _fm._has_own_torch_function(type(a)) for a in args)


def _is_autocast_enabled() -> bool:
    return False  # no autocast here (torch.is_autocast_enabled() is False on CPU unless asked for)


def _native_multi_head_attention(query: Tensor, key: Tensor, value: Tensor, embed_dim: int, num_heads: int,
                                 qkv_weight: Tensor, qkv_bias: Tensor, proj_weight: Tensor, proj_bias: Tensor,
                                 mask: Tensor | None, need_weights: bool, average_attn_weights: bool,
                                 mask_type: int | None) -> tuple[Tensor, Tensor | None]:
    """The values of torch's fused ``aten._native_multi_head_attention`` (batch-first self-attention, no grad):
    packed projection, scaled scores plus the merged additive mask (key padding (N, S) or (N, H, L, S)), softmax,
    out projection; weights averaged over heads when asked."""
    B, L, E = query.shape
    D = E // num_heads
    qkv = F.linear(query, qkv_weight, qkv_bias).view(B, L, 3, num_heads, D).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    scores = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(D))
    if mask is not None:
        scores = scores + (mask.view(B, 1, 1, -1) if mask_type == 1 else mask)
    weights = F.softmax(scores, dim=-1)
    out = weights.matmul(v).transpose(1, 2).reshape(B, L, E)
    out = F.linear(out, proj_weight, proj_bias)
    if not need_weights:
        return out, None
    return out, (weights.mean(dim=1) if average_attn_weights else weights)


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` (torch.nn.MultiheadAttention)."""

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_empty(embed_dim, embed_dim, **fk))
            self.k_proj_weight = Parameter(_empty(embed_dim, self.kdim, **fk))
            self.v_proj_weight = Parameter(_empty(embed_dim, self.vdim, **fk))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_empty(3 * embed_dim, embed_dim, **fk))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_empty(3 * embed_dim, **fk))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **fk)
        if add_bias_kv:
            self.bias_k = Parameter(_empty(1, 1, embed_dim, **fk))
            self.bias_v = Parameter(_empty(1, 1, embed_dim, **fk))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            xavier_uniform_(self.q_proj_weight)
            xavier_uniform_(self.k_proj_weight)
            xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            xavier_normal_(self.bias_v)

    def __setstate__(self, state: dict) -> None:
        if "_qkv_same_embed_dim" not in state:  # checkpoints of torch 1.1
            state["_qkv_same_embed_dim"] = True
        super().__setstate__(state)

    def _why_not_fast_path(self, query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
                           key_padding_mask: Tensor | None, is_batched: bool) -> str:
        """torch's first reason, in its order, not to take the fused path (the checks before the tensor ones)."""
        from ...backends import mha

        if not mha.get_fastpath_enabled():
            return "torch.backends.mha.get_fastpath_enabled() was not True"
        if not is_batched:
            return f"input not batched; expected query.dim() of 3 but got {query.dim()}"
        if query is not key or key is not value:
            return "non-self attention was used (query, key, and value are not the same Tensor)"
        if self.in_proj_bias is not None and query.dtype != self.in_proj_bias.dtype:
            return f"dtypes of query ({query.dtype}) and self.in_proj_bias ({self.in_proj_bias.dtype}) don't match"
        if self.in_proj_weight is None:
            return "in_proj_weight was None"
        if query.dtype != self.in_proj_weight.dtype:
            return f"dtypes of query ({query.dtype}) and self.in_proj_weight ({self.in_proj_weight.dtype}) don't match"
        if self.training:
            return "training is enabled"
        if (self.num_heads % 2) != 0:
            return "self.num_heads is not even"
        if not self.batch_first:
            return "batch_first was not True"
        if self.bias_k is not None:
            return "self.bias_k was not None"
        if self.bias_v is not None:
            return "self.bias_v was not None"
        if self.add_zero_attn:
            return "add_zero_attn was enabled"
        if not self._qkv_same_embed_dim:
            return "_qkv_same_embed_dim was not True"
        if _is_autocast_enabled():
            return "autocast is enabled"
        return ""

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        why_not_fast_path = ""
        if ((attn_mask is not None and attn_mask.is_floating_point())
                or (key_padding_mask is not None) and key_padding_mask.is_floating_point()):
            why_not_fast_path = "floating-point masks are not supported for fast path."
        is_batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                           "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        # torch overwrites the floating-mask reason with the later checks' (or leaves it when all pass)
        why_not_fast_path = self._why_not_fast_path(query, key, value, attn_mask, key_padding_mask,
                                                    is_batched) or why_not_fast_path
        fast_path_blocked_by_tracing = False
        if not why_not_fast_path:
            tensor_args = (query, key, value, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight,
                           self.out_proj.bias)
            from ...autograd.grad_mode import is_grad_enabled

            if _has_torch_function(tensor_args):
                why_not_fast_path = "some Tensor argument has_torch_function"
            elif not all(_check_arg_device(x) for x in tensor_args):
                why_not_fast_path = ("some Tensor argument's device is neither one of cpu, cuda or "
                                     "privateuseone")
            elif is_grad_enabled() and any(_arg_requires_grad(x) for x in tensor_args):
                why_not_fast_path = ("grad is enabled and at least one of query or the input/output projection "
                                     "weights or biases requires_grad")
            elif _is_make_fx_tracing():
                why_not_fast_path = "we are running make_fx tracing"
                fast_path_blocked_by_tracing = True
            if not why_not_fast_path:
                merged_mask, mask_type = self.merge_masks(attn_mask, key_padding_mask, query)
                if self.in_proj_bias is not None and self.in_proj_weight is not None:
                    return _native_multi_head_attention(
                        query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                        self.out_proj.weight, self.out_proj.bias, merged_mask, need_weights, average_attn_weights,
                        mask_type)

        if self.batch_first and is_batched:  # the regular path computes sequence-first
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))

        extra: dict[str, Any] = {}
        if not self._qkv_same_embed_dim:
            extra = {"use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
                     "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        attn_output, attn_output_weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal, **extra)
        if self.batch_first and is_batched:
            attn_output = attn_output.transpose(1, 0)
            if fast_path_blocked_by_tracing:
                attn_output = attn_output.contiguous()
        return attn_output, attn_output_weights

    def merge_masks(self, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                    query: Tensor) -> tuple[Tensor | None, int | None]:
        """The fast path's one mask: key padding alone (type 1), or the attention mask expanded to (N, H, L, L)
        plus the key padding mask (type 2)."""
        mask_type: int | None = None
        merged_mask: Tensor | None = None
        if key_padding_mask is not None:
            mask_type = 1
            merged_mask = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_mask_expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                attn_mask_expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads,
                                                                                   -1, -1)
            merged_mask = attn_mask_expanded
            if key_padding_mask is not None:
                key_padding_mask_expanded = key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1)
                merged_mask = attn_mask_expanded + key_padding_mask_expanded
        return merged_mask, mask_type

