"""Scaled dot-product attention: ``scaled_dot_product_attention`` and its CPU backends, ``_safe_softmax``; and
``_nested_tensor_from_mask_left_aligned``, the Transformer encoder's check before its nested-tensor path.

Corresponds to aten/src/ATen/native/transformers/attention.cpp, sdp_utils_cpp.{h,cpp} and
native/cpu/FlashAttentionKernel.cpp of PyTorch 2.13.

``scaled_dot_product_attention`` is CompositeImplicitAutograd: it checks its inputs, turns a boolean mask into
an additive one (``scalar_tensor`` x2 + ``where``), then picks a backend as ``select_sdp_backend_cpp`` does:

* the fused CPU kernel ``_scaled_dot_product_flash_attention_for_cpu`` (a BACKEND op returning ``(output,
  logsumexp)``; its gradient is ``_scaled_dot_product_flash_attention_for_cpu_backward``) when dropout is 0,
  query/key/value are 4-d with one batch size and matching heads (or grouped-query heads with
  ``enable_gqa``), the mask is 2-d or 4-d, broadcastable and does not require grad, the head dims agree, the
  sequences are non-empty, the last dims have stride 1 and the dtype is a floating one;
* otherwise ``_scaled_dot_product_attention_math`` (also CompositeImplicitAutograd): ``q * sqrt(scale)``,
  ``matmul`` with ``k^T * sqrt(scale)``, the (causal) mask added, ``_safe_softmax``, ``dropout``, ``matmul``.

NB: PyTorch asks ``_fused_sdp_choice`` (an op returning an int) for the backend; here the choice is the plain
function ``fused_sdp_choice``, since an int-returning op never shows in graphs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..memory_format import contiguous_format, strided
from ..tensor import Tensor, contiguous_strides
from .composite import _op, is_tensor_subclass_like
from .fp_errors import quiet_fp
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, preserve_format_strides, scalar_type_name

#: caffe2 TypeMeta names, as attention.cpp's messages print dtypes ("float", "long int")
_TYPE_META_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
    "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int",
}
_FLASH_DTYPES = (_dt.float32, _dt.float64, _dt.float16)
SDP_FLASH, SDP_MATH = 1, 0  # sdp::SDPBackend codes (flash_attention = 1 in 2.13's enum; math = 0)


def _meta_name(dt: _dt.dtype) -> str:
    return _TYPE_META_NAMES[dt.name]


def _validate_sdpa_input(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None) -> None:
    if not (query._dtype is key._dtype is value._dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_meta_name(query._dtype)} key.dtype: {_meta_name(key._dtype)} and value.dtype: "
            f"{_meta_name(value._dtype)} instead.")
    if not (query._device == key._device == value._device):
        raise RuntimeError(
            "Expected query, key, and value to have the same device type, but got query.device: "
            f"{query._device} key.device: {key._device} and value.device: {value._device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None:
        mdt = attn_mask._dtype
        if not (mdt is _dt.bool or mdt.is_floating_point or mdt is query._dtype):
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                f"{_meta_name(mdt)} and  query.dtype: {_meta_name(query._dtype)} instead.")


def convert_boolean_attn_mask(attn_mask: Tensor | None, dtype: _dt.dtype) -> Tensor | None:
    """A boolean mask as an additive one: ``where(mask, 0, -inf)`` (float masks pass through)."""
    if attn_mask is None or attn_mask._dtype is not _dt.bool:
        return attn_mask
    # at::where(mask, scalar_tensor(0.0, options), scalar_tensor(-inf, dtype + device)): C++ evaluates the
    # arguments right to left, so the -inf scalar (made without a layout) comes first
    neg_inf = _op("scalar_tensor")(float("-inf"), dtype=dtype, device=attn_mask._device)
    zero = _op("scalar_tensor")(0.0, dtype=dtype, layout=strided, device=attn_mask._device)
    return _op("where.self")(attn_mask, zero, neg_inf)


def _mask_shape_ok(mask: Tensor, query: Tensor, key: Tensor) -> bool:
    """``check_attn_mask_shape``: 2-d or 4-d, each dim either 1 or the matching query / key size."""
    if mask.requires_grad:
        return False
    b, h, q_len, kv_len = query._shape[0], query._shape[1], query._shape[2], key._shape[2]
    if mask._shape[-2] not in (q_len, 1) or mask._shape[-1] not in (kv_len, 1):
        return False
    if mask.dim() == 2:
        return True
    return mask.dim() == 4 and mask._shape[0] in (1, b) and mask._shape[1] in (1, h)


def fused_sdp_choice(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                     is_causal: bool, enable_gqa: bool) -> int:
    """``select_sdp_backend_cpp``: flash attention when every gate of ``use_flash_attention_cpp`` passes."""
    if dropout_p > 0.0:
        return SDP_MATH
    if not (query.dim() == key.dim() == value.dim() == 4):
        return SDP_MATH
    if not (query._shape[0] == key._shape[0] == value._shape[0]):
        return SDP_MATH
    qh, kh, vh = query._shape[-3], key._shape[-3], value._shape[-3]
    if enable_gqa:
        if kh != vh or qh % kh != 0:
            return SDP_MATH
    elif not (qh == kh == vh):
        return SDP_MATH
    if attn_mask is not None and not _mask_shape_ok(attn_mask, query, key):
        return SDP_MATH
    if not (query._shape[-1] == key._shape[-1] == value._shape[-1]):
        return SDP_MATH
    if query._shape[-2] == 0 or key._shape[-2] == 0:
        return SDP_MATH
    if not (query._stride[-1] == key._stride[-1] == value._stride[-1] == 1):
        return SDP_MATH
    if attn_mask is not None and attn_mask._stride[-1] != 1:
        return SDP_MATH
    if not (query._dtype is key._dtype is value._dtype and query._dtype in _FLASH_DTYPES):
        return SDP_MATH
    return SDP_FLASH


@impl("scaled_dot_product_attention", "CompositeImplicitAutograd")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    _validate_sdpa_input(query, key, value, attn_mask)
    mask = convert_boolean_attn_mask(attn_mask, query._dtype)
    if fused_sdp_choice(query, key, value, mask, dropout_p, is_causal, enable_gqa) == SDP_FLASH:
        args: list[Any] = [dropout_p, is_causal] if is_causal else ([dropout_p] if dropout_p != 0.0 else [])
        kwargs: dict[str, Any] = {}
        if mask is not None:
            kwargs["attn_mask"] = mask
        if scale is not None:
            kwargs["scale"] = scale
        return _op("_scaled_dot_product_flash_attention_for_cpu")(query, key, value, *args, **kwargs)[0]
    kwargs = {"scale": scale, "enable_gqa": enable_gqa}
    math_kernel = _op("_scaled_dot_product_attention_math")
    return math_kernel(query, key, value, mask, dropout_p, is_causal, None, **kwargs)[0]


def _scaling_factor(query: Tensor, scale: float | None) -> float:
    """``sdp::calculate_scale(query, scale).sqrt()``: sqrt of the given scale, else of 1 / sqrt(E)."""
    e = float(query._shape[-1])
    # (C++'s double division: an empty head dim gives an infinite scale, applied to an empty query)
    softmax_scale = scale if scale is not None else (1.0 / math.sqrt(e) if e else math.inf)
    return math.sqrt(softmax_scale)


def _repeat_interleave_heads(t: Tensor, repeats: int) -> Tensor:
    """``t.repeat_interleave(repeats, -3)`` as its composite runs: unsqueeze, expand, clone, view."""
    d = t.dim() - 3
    shape = list(t._shape)
    expanded = _op("expand")(_op("unsqueeze")(t, d + 1), [*shape[:d + 1], repeats, *shape[d + 1:]])
    cloned = _op("clone")(expanded, memory_format=contiguous_format)
    return _op("view")(cloned, [*shape[:d], shape[d] * repeats, *shape[d + 1:]])


def _group_query_heads(query: Tensor, key: Tensor, value: Tensor, enable_gqa: bool) -> tuple[Tensor, Tensor]:
    """``pre_process_group_query_attention_input``: key / value heads repeated to the query's (dim -3)."""
    if not enable_gqa:
        return key, value
    qh, kh, vh = query._shape[-3], key._shape[-3], value._shape[-3]
    if qh == kh == vh:
        return key, value
    if qh % kh != 0 or qh % vh != 0:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return _repeat_interleave_heads(key, qh // kh), _repeat_interleave_heads(value, qh // vh)


@impl("_scaled_dot_product_attention_math", "CompositeImplicitAutograd")
def _scaled_dot_product_attention_math(query_: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                       dropout_p: float = 0.0, is_causal: bool = False,
                                       dropout_mask: Tensor | None = None, *, scale: float | None = None,
                                       enable_gqa: bool = False) -> tuple[Tensor, Tensor]:
    is_negative = scale is not None and scale < 0.0
    factor = _scaling_factor(query_, abs(scale) if is_negative else scale)  # type: ignore[arg-type]
    query = _op("mul.Scalar")(query_, (0.0 - factor) if is_negative else factor)
    mask = attn_mask
    if is_causal:
        if mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
        q_len, kv_len = query._shape[-2], key._shape[-2]
        ones = _op("ones")([q_len, kv_len], dtype=_dt.bool, layout=strided, device=query._device)
        mask = convert_boolean_attn_mask(_op("tril")(ones), query._dtype)
    key, value = _group_query_heads(query, key, value, enable_gqa)
    attn = _op("matmul")(query, _op("mul.Scalar")(_op("transpose.int")(key, -2, -1), factor))
    if mask is not None:
        if is_tensor_subclass_like(attn) or is_tensor_subclass_like(mask):
            attn = _op("add.Tensor")(attn, mask)
        else:
            _op("add_.Tensor")(attn, mask)
    attn = _op("_safe_softmax")(attn, -1)
    if dropout_p > 0.0:
        if dropout_mask is not None:
            attn = _op("masked_fill.Scalar")(attn, _op("logical_not")(dropout_mask), 0.0)
            scaling = 1.0 / (1 - dropout_p)
            return _op("matmul")(attn, _op("mul.Scalar")(value, scaling)), attn
        attn = _op("dropout")(attn, dropout_p, True)
    return _op("matmul")(attn, value), attn


@impl("_safe_softmax", "CompositeExplicitAutograd")
def _safe_softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``softmax`` whose rows of only ``-inf`` give 0 instead of NaN (the math attention path's softmax)."""
    out = _op("softmax.int")(self, dim, dtype) if dtype is not None else _op("softmax.int")(self, dim)
    masked = _op("eq.Scalar")(self, float("-inf"))
    masked_rows = _op("all.dim")(masked, dim, True)
    zero = _op("scalar_tensor")(0.0, dtype=out._dtype, device=out._device)
    return _op("where.self")(masked_rows, zero, out)


# --- the fused CPU kernel (FlashAttentionKernel.cpp) ---------------------------------------------------------------


def _flash_checks(query: Tensor, key: Tensor, value: Tensor, dropout_p: float) -> None:
    name = "scaled_dot_product_attention_flash_attention"
    if query._dtype not in _FLASH_DTYPES:
        raise RuntimeError(f"{name}: Expected data type in FP32, FP64, BF16, FP16, but got "
                           f"{scalar_type_name(query._dtype)} instead.")
    if not (query.dim() == key.dim() == value.dim() == 4):
        raise RuntimeError(f"{name}: Accept only 4 dims inputs shape of {{B, H, T, K}}")
    if dropout_p != 0.0:
        raise RuntimeError(f"{name}: Currently do not support dropout > 0")
    if not (query._shape[3] == value._shape[3] and key._shape[3] == value._shape[3]):
        raise RuntimeError(f"{name}: Q/K/V should have the same head size")
    if not (query._shape[0] == key._shape[0] == value._shape[0]):  # (PyTorch's kernel loops over query's batch)
        raise RuntimeError(f"{name}: Q/K/V should have the same batch size, but got {query._shape[0]}, "
                           f"{key._shape[0]} and {value._shape[0]}")
    for t in (key, value):  # the CPU kernel's typed accessors
        if t._dtype is not query._dtype and query._data is not None:
            raise RuntimeError(f"expected scalar type {scalar_type_name(query._dtype)} but found "
                               f"{scalar_type_name(t._dtype)}")


def _flash_backward_checks(grad_out: Tensor, query: Tensor, key: Tensor, value: Tensor, out: Tensor) -> None:
    """The flash backward kernel's shape checks (PyTorch's messages) and its typed accessors' dtype check."""
    name = "scaled_dot_product_attention_flash_attention_backward"
    for t in (query, key, value):  # the kernel reads each one's size(3) before its rank check
        d = t.dim()
        if d == 0:
            raise IndexError("dimension specified as 3 but tensor has no dimensions")
        if d < 4:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-d}, {d - 1}], but got 3)")
    if not (query.dim() == key.dim() == value.dim() == 4):
        raise RuntimeError(f"{name}: Accept only 4 dims inputs shape of {{B, H, T, K}}")
    if not (query._shape[3] == value._shape[3] and key._shape[3] == value._shape[3]):
        raise RuntimeError(f"{name}: Q/K/V should have the same head size")
    for t in (grad_out, key, value, out):
        if t._dtype is not query._dtype and query._data is not None:
            raise RuntimeError(f"expected scalar type {scalar_type_name(query._dtype)} but found "
                               f"{scalar_type_name(t._dtype)}")
    for t in (grad_out, out):
        if t._shape != query._shape[:3] + (value._shape[3],):
            raise RuntimeError(f"{name}: expected {'grad_out' if t is grad_out else 'out'} of size "
                               f"{list(query._shape[:3] + (value._shape[3],))}, but got {list(t._shape)}")


def _computation_dtype(dt: _dt.dtype) -> _dt.dtype:
    return _dt.float32 if dt is _dt.float16 else dt


def _attention_scores(query: Tensor, key: Tensor, attn_mask: Tensor | None, is_causal: bool,
                      scale: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(q k^T * scale + mask, with causal -inf) in float64 and key repeated over grouped query heads."""
    q = np.asarray(query._data, dtype=np.float64)
    k = np.asarray(key._data, dtype=np.float64)
    group = query._shape[1] // key._shape[1]
    if group != 1:
        k = np.repeat(k, group, axis=1)
    softmax_scale = scale if scale is not None else 1.0 / math.sqrt(float(query._shape[-1]))
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * softmax_scale
    if attn_mask is not None:
        s = s + np.asarray(attn_mask._data, dtype=np.float64)
    if is_causal:
        q_len, kv_len = s.shape[-2], s.shape[-1]
        s = np.where(np.tril(np.ones((q_len, kv_len), dtype=bool)), s, -np.inf)
    return s, k


@impl("_scaled_dot_product_flash_attention_for_cpu", "CPU", "Meta")
@quiet_fp
def _scaled_dot_product_flash_attention_for_cpu(query: Tensor, key: Tensor, value: Tensor, dropout_p: float = 0.0,
                                                is_causal: bool = False, *, attn_mask: Tensor | None = None,
                                                scale: float | None = None) -> tuple[Tensor, Tensor]:
    _flash_checks(query, key, value, dropout_p)
    b, h, q_len = query._shape[0], query._shape[1], query._shape[2]
    out_meta = TensorMeta(query._shape, preserve_format_strides(query), query._dtype)
    # logsumexp is allocated as (B, L, H) and transposed to (B, H, L)
    lse_meta = TensorMeta((b, h, q_len), (q_len * h, 1, h), _computation_dtype(query._dtype))
    if query._device.type == "meta":
        return materialize(out_meta, None, query), materialize(lse_meta, None, query)
    s, _ = _attention_scores(query, key, attn_mask, is_causal, scale)
    v = np.asarray(value._data, dtype=np.float64)
    group = h // value._shape[1]
    if group != 1:
        v = np.repeat(v, group, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        row_max = s.max(axis=-1, keepdims=True)
        p = np.exp(s - row_max)
        denom = p.sum(axis=-1, keepdims=True)
        out = np.matmul(p / denom, v)
        lse = (row_max + np.log(denom))[..., 0]
    return materialize(out_meta, out, query), materialize(lse_meta, lse, query)


def _grad_layout(t: Tensor) -> TensorMeta:
    """``empty_permuted(t.size(), (0, 2, 1, 3))``: the CPU kernel's (B, L, H, E) gradient layout."""
    b, h, n, e = t._shape
    return TensorMeta(t._shape, (n * h * e, e, h * e, 1) if 0 not in t._shape else contiguous_strides(t._shape),
                      t._dtype)


@impl("_scaled_dot_product_flash_attention_for_cpu_backward", "CPU", "Meta")
@quiet_fp
def _scaled_dot_product_flash_attention_for_cpu_backward(
        grad_out: Tensor, query: Tensor, key: Tensor, value: Tensor, out: Tensor, logsumexp: Tensor,
        dropout_p: float, is_causal: bool, *, attn_mask: Tensor | None = None,
        scale: float | None = None) -> tuple[Tensor, Tensor, Tensor]:
    _flash_backward_checks(grad_out, query, key, value, out)
    metas = (_grad_layout(query), _grad_layout(key), _grad_layout(value))
    if query._device.type == "meta":
        return tuple(materialize(m, None, query) for m in metas)  # type: ignore[return-value]
    s, k = _attention_scores(query, key, attn_mask, is_causal, scale)
    with np.errstate(invalid="ignore", divide="ignore"):
        if tuple(logsumexp._shape) == tuple(s.shape[:-1]):
            lse = np.asarray(logsumexp._data, dtype=np.float64)[..., None]
        else:  # not the forward's logsumexp (core-aten graphs pass the attention weights): recompute it
            row_max = s.max(axis=-1, keepdims=True)
            lse = row_max + np.log(np.exp(s - row_max).sum(axis=-1, keepdims=True))
        p = np.exp(s - lse)
    h = query._shape[1]
    group = h // value._shape[1]
    v = np.asarray(value._data, dtype=np.float64)
    if group != 1:
        v = np.repeat(v, group, axis=1)
    q = np.asarray(query._data, dtype=np.float64)
    g = np.asarray(grad_out._data, dtype=np.float64)
    o = np.asarray(out._data, dtype=np.float64)
    softmax_scale = scale if scale is not None else 1.0 / math.sqrt(float(query._shape[-1]))
    grad_v = np.matmul(np.swapaxes(p, -1, -2), g)
    dp = np.matmul(g, np.swapaxes(v, -1, -2))
    ds = p * (dp - (g * o).sum(axis=-1, keepdims=True))
    grad_q = np.matmul(ds, k) * softmax_scale
    grad_k = np.matmul(np.swapaxes(ds, -1, -2), q) * softmax_scale
    if group != 1:  # grouped-query heads: each key / value head gathers its group's gradients
        b, _, n, e = grad_k.shape
        grad_k = grad_k.reshape(b, h // group, group, n, e).sum(axis=2)
        grad_v = grad_v.reshape(b, h // group, group, n, grad_v.shape[-1]).sum(axis=2)
    return (materialize(metas[0], grad_q, query), materialize(metas[1], grad_k, query),
            materialize(metas[2], grad_v, query))


@impl("_nested_tensor_from_mask_left_aligned", "CPU")
def _nested_tensor_from_mask_left_aligned(t: Tensor, mask: Tensor) -> bool:
    """Is each row of the (N, L) ``mask`` (True = a kept position of ``t``'s (N, L, D)) its Trues then its Falses?
    (NestedTensorTransformerFunctions.cpp: the row sums equal the first False's index.)"""
    if mask._dtype is not _dt.bool:
        raise RuntimeError(f"Expected mask to be of ScalarType Bool, but got {scalar_type_name(mask._dtype)} instead.")
    if mask.dim() != 2:
        raise RuntimeError("Padding mask should be 2D")
    if t.dim() != 3:
        raise RuntimeError("Input should be a 3D tensor, N * L * D")
    if tuple(t.shape[:2]) != tuple(mask.shape):
        raise RuntimeError("Mask size should match input size")
    m = np.asarray(mask._data, dtype=bool)
    kept = m.sum(axis=1)
    first_false = np.argmin(np.concatenate([m, np.zeros((m.shape[0], 1), dtype=bool)], axis=1), axis=1)
    return bool(np.array_equal(kept, first_false))
