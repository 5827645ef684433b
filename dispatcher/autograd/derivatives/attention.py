"""Derivative formulas of the attention ops: the fused CPU kernel ``_scaled_dot_product_flash_attention_for_cpu``
and ``_safe_softmax``.

Corresponds to their entries in tools/autograd/derivatives.yaml: one backward op for query, key and value,
``_scaled_dot_product_flash_attention_for_cpu_backward(grad, query, key, value, output, logsumexp, ...)``
(the logsumexp output is not differentiable; the saved optional ``attn_mask`` is unpacked as an undefined
tensor, which the boxed call keeps as an explicit ``attn_mask=None``, here ``schema.UNDEFINED_TENSOR``;
``scale`` is passed only when set), which has no double backward; ``_safe_softmax``:
``_softmax_backward_data(grad, result, dim, self.scalar_type())``.
"""

from __future__ import annotations

from ...op_overload import namespace
from ...schema import UNDEFINED_TENSOR
from ..function import derivative

aten = namespace("aten")


@derivative("_scaled_dot_product_flash_attention_for_cpu", "ScaledDotProductFlashAttentionForCpuBackward0",
            ("query", "key", "value"),
            save_inputs=("query", "key", "value", "dropout_p", "is_causal", "attn_mask", "scale"),
            save_outputs=(0, 1), non_differentiable_outputs=(1,), no_requires_grad=("attn_mask",))
def _flash_attention_for_cpu(ctx, grads, needs):
    kwargs = {"attn_mask": UNDEFINED_TENSOR if ctx.attn_mask is None else ctx.attn_mask}
    if ctx.scale is not None:
        kwargs["scale"] = ctx.scale
    return tuple(aten._scaled_dot_product_flash_attention_for_cpu_backward.default(
        grads[0], ctx.query, ctx.key, ctx.value, ctx.result0, ctx.result1, ctx.dropout_p, ctx.is_causal,
        **kwargs))


@derivative("_scaled_dot_product_flash_attention_for_cpu_backward", "NotImplemented",
            ("grad_out", "query", "key", "value", "out", "logsumexp", "attn_mask"))
def _flash_attention_for_cpu_backward(ctx, grads, needs):
    """PyTorch has no double backward for the fused kernel: its node is ``NotImplemented``, failing when reached."""
    raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented")


@derivative("_safe_softmax", "SafeSoftmaxBackward0", ("self",), save_inputs=("dim",), save_meta=("self",),
            save_outputs=(0,))
def _safe_softmax(ctx, grads, needs):
    return (aten._softmax_backward_data.default(grads[0], ctx.result, ctx.dim, ctx.self._dtype),)
