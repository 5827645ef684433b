"""Core-aten decompositions of the attn batch: the fused CPU attention kernel, ``_safe_softmax``, ``lerp``.

Corresponds to the entries PyTorch 2.13's ``core_aten_decompositions()`` holds for these ops
(torch/_decomp/decompositions.py and torch/_refs):

* ``_scaled_dot_product_flash_attention_for_cpu``: ``_scaled_dot_product_attention_math`` (whose
  CompositeImplicitAutograd kernel then runs), its output re-laid out as the fused kernel's
  (``permute(2, 0, 1, 3)``, ``clone`` contiguous, ``permute(1, 2, 0, 3)``); the second output is the attention
  weights, not a logsumexp (as in PyTorch, a backward traced under this table receives them);
* ``_safe_softmax``: ``_softmax``, rows of only ``-inf`` found by ``eq`` / ``logical_not`` / ``any`` /
  ``logical_not`` (``torch.all``'s reference) and replaced by ``full_like(out, 0)`` through ``where``;
* ``lerp.Scalar`` / ``lerp.Tensor``: the weight (a scalar one as ``full([], w)``) picks, by ``|w| >= 0.5``,
  ``coeff = where(mask, w - 1, w)`` and ``base = where(mask, end, start)``; the result is
  ``coeff * (end - start) + base``; tensors of another shape than the broadcast one are ``expand``ed to
  compute the output strides (the expansion is unused); float16 is computed in float32 (``_to_copy`` in and
  out); ``lerp_`` is ``lerp`` then ``copy_`` into self.
* ``vdot`` (real dtypes): ``dot``; ``addr``: ``beta * self.expand(n, m) + alpha * outer(vec1, vec2)`` (only the
  product when ``beta == 0``; ``logical_or`` for bool). NB: where the result's strides differ from the
  inputs' elementwise strides (a transposed operand) PyTorch appends ``prims.copy_strided``, which has no
  counterpart here: such graphs differ by that last node.
"""

from __future__ import annotations

from typing import Any

from dispatcher import dtypes
from dispatcher.memory_format import contiguous_format, preserve_format, strided
from dispatcher.op_overload import namespace
from dispatcher.ops.meta_utils import broadcast_shapes
from dispatcher.tensor import Tensor

from .decomp_registry import register_decomposition

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


def _lerp(start: Tensor, end: Tensor, weight: Any) -> Tensor:
    result_dtype = start._dtype
    low_precision = result_dtype is dtypes.float16  # computed in float32 (the refs' opmath), cast back
    if low_precision:
        start = aten._to_copy.default(start, dtype=dtypes.float32)
        end = aten._to_copy.default(end, dtype=dtypes.float32)
        if isinstance(weight, Tensor):
            weight = aten._to_copy.default(weight, dtype=dtypes.float32)
    inputs = [start, end]
    if not isinstance(weight, Tensor):
        weight = aten.full.default([], weight, dtype=start._dtype, layout=strided, device=start._device,
                                   pin_memory=False)
    else:
        inputs.append(weight)
    mask = aten.ge.Scalar(aten.abs.default(weight), 0.5)
    coeff = aten.where.self(mask, aten.sub.Tensor(weight, 1), weight)
    base = aten.where.self(mask, end, start)
    output = aten.add.Tensor(aten.mul.Tensor(coeff, aten.sub.Tensor(end, start)), base)
    shape = broadcast_shapes(*(t._shape for t in inputs))
    for t in inputs:  # _maybe_broadcast, for compute_elementwise_output_strides (the expansions are unused)
        if t._shape and t._shape != shape:
            aten.expand.default(t, list(shape))
    if low_precision:
        output = aten._to_copy.default(output, dtype=result_dtype)
    return output


@register_decomposition(aten.lerp.Scalar)
def lerp_scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return _lerp(self, end, weight)


@register_decomposition(aten.lerp.Tensor)
def lerp_tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    return _lerp(self, end, weight)


@register_decomposition(aten.lerp_.Scalar)
def lerp__scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return aten.copy_.default(self, _lerp(self, end, weight))


@register_decomposition(aten.lerp_.Tensor)
def lerp__tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    return aten.copy_.default(self, _lerp(self, end, weight))


@register_decomposition(aten.vdot.default)
def vdot(self: Tensor, other: Tensor) -> Tensor:
    if self._dtype.is_complex:
        raise NotImplementedError("vdot's decomposition for complex tensors (conj views) is not in dispatchkit")
    return aten.dot.default(self, other)


@register_decomposition(aten.addr.default)
def addr(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if vec1.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    result_dtype = dtypes.result_type(self, vec1, vec2)
    compute_dtype = dtypes.float32 if result_dtype is dtypes.float16 else result_dtype
    self, vec1, vec2 = (t if t._dtype is compute_dtype else aten._to_copy.default(t, dtype=compute_dtype)
                        for t in (self, vec1, vec2))
    expanded = aten.expand.default(self, [vec1._shape[0], vec2._shape[0]])
    if expanded._dtype is dtypes.bool:
        product = aten.outer.default(vec1, vec2) if alpha else aten.full_like.default(expanded, False)
        return product if not beta else aten.logical_or.default(expanded, product)
    if beta == 0:
        out = aten.mul.Tensor(aten.outer.default(vec1, vec2), alpha)
    else:
        scaled_self = aten.mul.Tensor(expanded, beta)
        out = aten.add.Tensor(scaled_self, aten.mul.Tensor(aten.outer.default(vec1, vec2), alpha))
    return out if compute_dtype is result_dtype else aten._to_copy.default(out, dtype=result_dtype)
