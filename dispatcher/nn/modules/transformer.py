"""``nn.Transformer``, ``TransformerEncoder`` / ``TransformerDecoder`` and their layers (torch/nn/modules/transformer.py
of PyTorch 2.13).

The regular path is torch's, module for module: post-norm (``norm1(x + sa(x))``) or pre-norm (``norm_first``)
blocks of ``MultiheadAttention(need_weights=False)``, ``Dropout``, ``Linear`` and ``LayerNorm``; the activation a
string ("relu" / "gelu") or any callable; causal masks detected by ``_detect_is_causal_mask``.

The fast paths are decided by torch's checks in torch's order, with torch's reasons and warnings:

* ``TransformerEncoderLayer``: in eval mode without grad (and the other conditions) torch runs the fused
  ``aten._transformer_encoder_layer_fwd``; here ``_transformer_encoder_layer_fwd`` computes the same values with
  the regular ops.
* ``TransformerEncoder`` with ``enable_nested_tensor``: torch turns the batch into a nested tensor of the unpadded
  sequences, runs the layers on it and pads the result back with zeros. There are no nested tensors here: the
  layers run on the padded batch with the key padding mask (the same values at the kept positions) and the padded
  positions are set to zero, as ``to_padded_tensor(0.0)`` leaves them. The mask check before it (``logical_not`` and
  ``aten._nested_tensor_from_mask_left_aligned``) runs as torch's does, also while tracing.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

from ...autograd.grad_mode import is_grad_enabled
from ...tensor import Tensor
from .. import functional as F
from ..functional.attention import _canonical_mask, _none_or_dtype
from ..init import xavier_uniform_
from ..module import Module
from .activation import GELU, ReLU
from .activation_mha import MultiheadAttention, _has_torch_function, _is_autocast_enabled, _native_multi_head_attention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer"]

_SUPPORTED_DEVICE_TYPES = ["cpu", "cuda", "xpu", "privateuseone"]


def _impl(fn: Any) -> Any:
    """A public nn.functional function and the function it wraps (for ``__torch_function__``) compare equal."""
    return getattr(fn, "__torch_function_impl__", fn)


def _generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """(sz, sz) float mask: 0 on and below the diagonal, -inf above."""
    from ...api.factories import full
    from ...api.shape import triu

    return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src: Tensor, batch_first: bool) -> int | None:
    src_size = src.size()
    if len(src_size) == 2:  # unbatched: (S, E)
        return src_size[0]
    return src_size[1 if batch_first else 0]


def _detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None = None, size: int | None = None) -> bool:
    """``is_causal`` when given; otherwise whether ``mask`` equals the square subsequent mask of its size."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal_comparison = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if mask.size() == causal_comparison.size():
            make_causal = bool((mask == causal_comparison).all())
        else:
            make_causal = False
    return make_causal


def _get_clones(module: Module, N: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _nested_tensor_from_mask_left_aligned(t: Tensor, mask: Tensor) -> bool:
    """``aten._nested_tensor_from_mask_left_aligned``: is every row of ``mask`` (True = kept) Trues then Falses?"""
    from ...op_overload import namespace

    return namespace("aten")._nested_tensor_from_mask_left_aligned.default(t, mask)


def _transformer_encoder_layer_fwd(src: Tensor, embed_dim: int, num_heads: int, qkv_weight: Tensor,
                                   qkv_bias: Tensor, proj_weight: Tensor, proj_bias: Tensor, use_gelu: bool,
                                   norm_first: bool, eps: float, norm_weight_1: Tensor | None,
                                   norm_bias_1: Tensor | None, norm_weight_2: Tensor | None,
                                   norm_bias_2: Tensor | None, ffn_weight_1: Tensor, ffn_bias_1: Tensor | None,
                                   ffn_weight_2: Tensor, ffn_bias_2: Tensor | None, mask: Tensor | None,
                                   mask_type: int | None) -> Tensor:
    """The values of torch's fused ``aten._transformer_encoder_layer_fwd`` (eval, no grad, batch first)."""
    def ln(x: Tensor, w: Tensor | None, b: Tensor | None) -> Tensor:
        return F.layer_norm(x, (embed_dim,), w, b, eps)

    def sa(x: Tensor) -> Tensor:
        return _native_multi_head_attention(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
                                            proj_bias, mask, False, True, mask_type)[0]

    def ff(x: Tensor) -> Tensor:
        h = F.linear(x, ffn_weight_1, ffn_bias_1)
        h = F.gelu(h) if use_gelu else F.relu(h)
        return F.linear(h, ffn_weight_2, ffn_bias_2)

    x = src
    if norm_first:
        x = x + sa(ln(x, norm_weight_1, norm_bias_1))
        return x + ff(ln(x, norm_weight_2, norm_bias_2))
    x = ln(x + sa(x), norm_weight_1, norm_bias_1)
    return ln(x + ff(x), norm_weight_2, norm_bias_2)


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and LayerNorm."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if _impl(activation) is _impl(F.relu) or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif _impl(activation) is _impl(F.gelu) or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = _public(activation)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def _why_not_fast_path(self, src: Tensor, src_mask: Tensor | None, src_key_padding_mask: Tensor | None) -> str:
        from ...backends import mha

        if not mha.get_fastpath_enabled():
            return "torch.backends.mha.get_fastpath_enabled() was not True"
        if src.dim() != 3:
            return f"input not batched; expected src.dim() of 3 but got {src.dim()}"
        if self.training:
            return "training is enabled"
        if not self.self_attn.batch_first:
            return "self_attn.batch_first was not True"
        if self.self_attn.in_proj_bias is None:
            return "self_attn was passed bias=False"
        if not self.self_attn._qkv_same_embed_dim:
            return "self_attn._qkv_same_embed_dim was not True"
        if not self.activation_relu_or_gelu:
            return "activation_relu_or_gelu was not True"
        if self.norm1.eps != self.norm2.eps:
            return "norm1.eps is not equal to norm2.eps"
        if self.self_attn.num_heads % 2 == 1:
            return "num_head is odd"
        if _is_autocast_enabled():
            return "autocast is enabled"
        if any(len(getattr(m, "_forward_hooks", {})) + len(getattr(m, "_forward_pre_hooks", {}))
               for m in self.modules()):
            return "forward pre-/hooks are attached to the module"
        tensor_args = self._fast_path_tensors(src)
        if _has_torch_function(tensor_args):
            return "some Tensor argument has_torch_function"
        if not all(x.device.type in _SUPPORTED_DEVICE_TYPES for x in tensor_args):
            return f"some Tensor argument's device is neither one of {_SUPPORTED_DEVICE_TYPES}"
        if is_grad_enabled() and any(x.requires_grad for x in tensor_args):
            return ("grad is enabled and at least one of query or the input/output projection weights or biases "
                    "requires_grad")
        return ""

    def _fast_path_tensors(self, src: Tensor) -> tuple:
        sa = self.self_attn
        return (src, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias, self.norm1.weight,
                self.norm1.bias, self.norm2.weight, self.norm2.bias, self.linear1.weight, self.linear1.bias,
                self.linear2.weight, self.linear2.bias)

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        if not self._why_not_fast_path(src, src_mask, src_key_padding_mask):
            merged_mask, mask_type = self.self_attn.merge_masks(src_mask, src_key_padding_mask, src)
            sa = self.self_attn
            return _transformer_encoder_layer_fwd(
                src, sa.embed_dim, sa.num_heads, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight,
                sa.out_proj.bias, self.activation_relu_or_gelu == 2, self.norm_first, self.norm1.eps,
                self.norm1.weight, self.norm1.bias, self.norm2.weight, self.norm2.bias, self.linear1.weight,
                self.linear1.bias, self.linear2.weight, self.linear2.bias, merged_mask, mask_type)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


def _public(fn: Any) -> Any:
    """F.relu / F.gelu as the public (``__torch_function__``-aware) functions, whichever form was passed."""
    for name in ("relu", "gelu"):
        if _impl(fn) is _impl(getattr(F, name)):
            return getattr(F, name)
    return fn


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory, then a feed-forward block; residuals and LayerNorms."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **fk)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else _public(activation)

    def __setstate__(self, state: dict) -> None:
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                   is_causal: bool = False) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer``, then ``norm`` (when given)."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        enc_layer = "encoder_layer"
        why_not_sparsity_fast_path = ""
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            why_not_sparsity_fast_path = f"{enc_layer} was not TransformerEncoderLayer"
        elif encoder_layer.norm_first:
            why_not_sparsity_fast_path = f"{enc_layer}.norm_first was True"
        elif not encoder_layer.self_attn.batch_first:
            why_not_sparsity_fast_path = (f"{enc_layer}.self_attn.batch_first was not True"
                                          "(use batch_first for better inference performance)")
        elif not encoder_layer.self_attn._qkv_same_embed_dim:
            why_not_sparsity_fast_path = f"{enc_layer}.self_attn._qkv_same_embed_dim was not True"
        elif encoder_layer.self_attn.in_proj_bias is None:
            why_not_sparsity_fast_path = f"{enc_layer}.self_attn was passed bias=False"
        elif not encoder_layer.activation_relu_or_gelu:
            why_not_sparsity_fast_path = f"{enc_layer}.activation_relu_or_gelu was not True"
        elif encoder_layer.norm1.eps != encoder_layer.norm2.eps:
            why_not_sparsity_fast_path = f"{enc_layer}.norm1.eps was not equal to {enc_layer}.norm2.eps"
        elif encoder_layer.self_attn.num_heads % 2 == 1:
            why_not_sparsity_fast_path = f"{enc_layer}.self_attn.num_heads is odd"
        if enable_nested_tensor and why_not_sparsity_fast_path:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because "
                          f"{why_not_sparsity_fast_path}", stacklevel=2)
            self.use_nested_tensor = False

    def _why_not_nested(self, src: Tensor, mask: Tensor | None, src_key_padding_mask: Tensor | None) -> str:
        """torch's reasons, in its order, not to run the layers on a nested tensor of the unpadded sequences."""
        from ...backends import mha

        first_layer = self.layers[0]
        if not mha.get_fastpath_enabled():
            return "torch.backends.mha.get_fastpath_enabled() was not True"
        if not hasattr(self, "use_nested_tensor"):
            return "use_nested_tensor attribute not present"
        if not self.use_nested_tensor:
            return "self.use_nested_tensor (set in init) was not True"
        if first_layer.training:
            return "self.layers[0] was in training mode"
        if src.dim() != 3:
            return f"input not batched; expected src.dim() of 3 but got {src.dim()}"
        if src_key_padding_mask is None:
            return "src_key_padding_mask was None"
        if getattr(self, "mask_check", True) and not _nested_tensor_from_mask_left_aligned(
                src, src_key_padding_mask.logical_not()):
            return "mask_check enabled, and src and src_key_padding_mask was not left aligned"
        if mask is not None:
            return "src_key_padding_mask and mask were both supplied"
        if _is_autocast_enabled():
            return "autocast is enabled"
        tensor_args = first_layer._fast_path_tensors(src)
        if _has_torch_function(tensor_args):
            return "some Tensor argument has_torch_function"
        if src.device.type not in _SUPPORTED_DEVICE_TYPES:
            return f"src device is neither one of {_SUPPORTED_DEVICE_TYPES}"
        if is_grad_enabled() and any(x.requires_grad for x in tensor_args):
            return ("grad is enabled and at least one of query or the input/output projection weights or biases "
                    "requires_grad")
        return ""

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", _none_or_dtype(mask),
                                               "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        output = src
        padded = None  # the padded positions (True) when torch would run on a nested tensor
        src_key_padding_mask_for_layers = src_key_padding_mask
        batch_first = self.layers[0].self_attn.batch_first
        if not self._why_not_nested(src, mask, src_key_padding_mask):
            # torch: output = _nested_tensor_from_mask(output, ~kpm); the layers see no padding mask. Here the layers
            # keep the (float) padding mask, so the kept positions get the values the nested tensor gets.
            padded = src_key_padding_mask
        seq_len = _get_seq_len(src, batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal,
                         src_key_padding_mask=src_key_padding_mask_for_layers)
        if padded is not None:  # torch: output.to_padded_tensor(0.0, src.size())
            output = output.masked_fill(padded.ne(0).unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer``, then ``norm`` (when given)."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """An encoder stack and a decoder stack (each with a final LayerNorm); weights with dim > 1 Xavier-uniform."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, custom_encoder: Any | None = None,
                 custom_decoder: Any | None = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **fk)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **fk)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """(sz, sz) float mask: 0 on and below the diagonal, -inf above (position i attends to 0..i)."""
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
