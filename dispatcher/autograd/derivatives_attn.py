"""Derivative formulas of the attn batch: the fused CPU attention kernel, ``_safe_softmax``, ``lerp``.

Corresponds to their entries in tools/autograd/derivatives.yaml of PyTorch 2.13:

* ``_scaled_dot_product_flash_attention_for_cpu``: one backward op for query, key and value,
  ``_scaled_dot_product_flash_attention_for_cpu_backward(grad, query, key, value, output, logsumexp, ...)``;
  the logsumexp output is not differentiable. The saved optional ``attn_mask`` is unpacked as an undefined
  tensor, which the boxed call keeps as an explicit ``attn_mask=None`` (graphs print it; here
  ``schema.UNDEFINED_TENSOR``); ``scale`` is passed only when set.
* ``_safe_softmax``: ``_softmax_backward_data(grad, result, dim, self.scalar_type())``.
* ``lerp.Scalar`` / ``lerp.Tensor``: ``grad * weight`` for end, ``grad * (1 - weight)`` for self,
  ``grad * (end - self)`` for a tensor weight (formulas run in the alphabetical order of the inputs:
  end, self, weight); ``lerp_`` uses them with self's value from before the op.
* ``addmv`` / ``addr`` / ``addbmm`` / ``vdot``: ``beta`` / ``alpha`` scale through ``maybe_multiply`` (a
  ``mul.Scalar`` unless 1); the products' gradients are ``outer`` (``view`` + ``mul``), ``mv`` and ``bmm`` with
  the gradient expanded over the batch.
"""

from __future__ import annotations

from ..op_overload import namespace
from ..schema import UNDEFINED_TENSOR
from .derivatives import _scaled
from .derivatives_inplace import inplace_of
from .derivatives_math import _rsub
from .function import derivative

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


@derivative("lerp.Scalar", "LerpBackward0", ("self", "end"), save_inputs=("weight",))
def _lerp_scalar(ctx, grads, needs):
    g = grads[0]
    g_end = aten.mul.Scalar(g, ctx.weight) if needs[1] else None
    g_self = aten.mul.Scalar(g, 1 - float(ctx.weight)) if needs[0] else None
    return (g_self, g_end)


@derivative("lerp.Tensor", "LerpBackward1", ("self", "end", "weight"), save_inputs=("self", "end", "weight"))
def _lerp_tensor(ctx, grads, needs):
    g = grads[0]
    g_end = aten.mul.Tensor(g, ctx.weight) if needs[1] else None
    g_self = aten.mul.Tensor(g, _rsub(1, ctx.weight)) if needs[0] else None
    g_weight = aten.mul.Tensor(g, aten.sub.Tensor(ctx.end, ctx.self)) if needs[2] else None
    return (g_self, g_end, g_weight)


inplace_of("lerp_.Scalar", "lerp.Scalar")
inplace_of("lerp_.Tensor", "lerp.Tensor", clone_self_for=(2,))  # weight's gradient reads the original self


# --- products (addmv, addr, addbmm, vdot) --------------------------------------------------------------------------


@derivative("addmv", "AddmvBackward0", ("self", "mat", "vec"), save_inputs=("mat", "vec", "beta", "alpha"))
def _addmv(ctx, grads, needs):
    g = grads[0]
    g_mat = g_self = g_vec = None
    if needs[1]:  # grad.ger(vec) * alpha: ger is outer, grad.reshape(n, 1) * vec
        g_mat = _scaled(aten.mul.Tensor(aten.view.default(g, [g._shape[0], 1]), ctx.vec), ctx.alpha)
    if needs[0]:
        g_self = _scaled(g, ctx.beta)
    if needs[2]:
        g_vec = _scaled(aten.mv.default(aten.t.default(ctx.mat), g), ctx.alpha)
    return (g_self, g_mat, g_vec)


@derivative("addr", "AddrBackward0", ("self", "vec1", "vec2"), save_inputs=("vec1", "vec2", "beta", "alpha"))
def _addr(ctx, grads, needs):
    g = grads[0]
    g_self = _scaled(g, ctx.beta) if needs[0] else None
    g_vec1 = _scaled(aten.mv.default(g, ctx.vec2), ctx.alpha) if needs[1] else None
    g_vec2 = _scaled(aten.mv.default(aten.t.default(g), ctx.vec1), ctx.alpha) if needs[2] else None
    return (g_self, g_vec1, g_vec2)


@derivative("addbmm", "AddbmmBackward0", ("self", "batch1", "batch2"),
            save_inputs=("batch1", "batch2", "beta", "alpha"))
def _addbmm(ctx, grads, needs):
    g = grads[0]
    b1, b2 = ctx.batch1, ctx.batch2
    sizes = [b1._shape[0], b1._shape[1], b2._shape[2]]
    g_b1 = g_b2 = None
    if needs[1]:
        expanded = aten.expand.default(aten.unsqueeze.default(g, 0), sizes)
        g_b1 = _scaled(aten.bmm.default(expanded, aten.transpose.int(b2, 1, 2)), ctx.alpha)
    if needs[2]:
        t1 = aten.transpose.int(b1, 1, 2)
        g_b2 = _scaled(aten.bmm.default(t1, aten.expand.default(aten.unsqueeze.default(g, 0), sizes)), ctx.alpha)
    g_self = _scaled(g, ctx.beta) if needs[0] else None
    return (g_self, g_b1, g_b2)


@derivative("vdot", "VdotBackward0", ("self", "other"), save_inputs=("self", "other"))
def _vdot(ctx, grads, needs):
    g = grads[0]
    g_other = aten.mul.Tensor(g, ctx.self) if needs[1] else None
    g_self = aten.mul.Tensor(g, ctx.other) if needs[0] else None
    return (g_self, g_other)
