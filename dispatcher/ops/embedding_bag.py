"""EmbeddingBag kernels: ``_embedding_bag`` / ``_embedding_bag_forward_only``, their backward kernels, and the
CompositeImplicitAutograd ``embedding_bag`` (both overloads).

Corresponds to aten/src/ATen/native/EmbeddingBag.cpp (CPU) of PyTorch 2.13. A bag is the run of ``indices`` from one
offset to the next; its rows of ``weight`` are summed (times ``per_sample_weights``), averaged or max-reduced, rows at
``padding_idx`` left out (and not counted). The four outputs are torch's: ``output`` (bags, dim);
``offset2bag`` (the bag of each index, int; left empty by the sum-mode fast path: float weight, no padding index);
``bag_size`` (rows per bag for mean / max, zeros for sum; of ``offsets``' length for a forward-only sum);
``max_indices`` (the arg-max rows (bags, dim) for max, otherwise of ``bag_size``'s shape, holding what torch's
uninitialised buffer holds on CPU: ``bag_size``'s values).

``embedding_bag`` checks ``padding_idx``, wraps a negative one, and calls ``_embedding_bag_forward_only`` when the
weight does not require grad, else ``_embedding_bag`` (the one with a derivative: ``_embedding_bag_backward`` for the
weight, ``_embedding_bag_per_sample_weights_backward`` for the per-sample weights).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .composite import _op
from .devices import device_hint
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, scalar_type_name

SUM, MEAN, MAX = 0, 1, 2


def _int_dtype(indices: Tensor, offsets: Tensor) -> _dt.dtype:
    """promoteIndicesAndOffsets: int64 unless both are int32."""
    return _dt.int32 if indices._dtype is _dt.int32 and offsets._dtype is _dt.int32 else _dt.int64


def _check(weight: Tensor, indices: Tensor, offsets: Tensor, mode: int, per_sample_weights: Tensor | None,
           include_last_offset: bool) -> None:
    from .kernel_dtypes import legacy_type_name

    # (_embedding_bag_cpu_impl's rank checks come first, before the dtypes)
    if indices.dim() not in (1, 2):
        raise RuntimeError(f"input has to be a 1D or 2D Tensor, but got Tensor of dimension {indices.dim()}")
    if indices.dim() == 1 and offsets.dim() != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension {offsets.dim()}")
    if weight.dim() != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")

    for t in (indices, offsets):  # (offsets are promoted with the indices first: a bad one is named 'indices')
        if t._dtype not in (_dt.int64, _dt.int32):
            raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                               f"Long, Int; but got {legacy_type_name(t)} instead (while checking arguments for "
                               "embedding_bag)")
    if weight._dtype not in (_dt.float16, _dt.float32, _dt.float64):
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, "
                           f"BFloat16, Float, Double; but got {legacy_type_name(weight)} instead (while checking "
                           "arguments for embedding_bag)")
    if include_last_offset and offsets._shape[0] < 1:
        raise RuntimeError("include_last_offset: numBags should be at least 1")
    if per_sample_weights is not None:
        if mode != SUM:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
        if per_sample_weights._dtype is not weight._dtype:
            raise RuntimeError(f"embedding_bag: Expected per_sample_weights.scalar_type() == weight.scalar_type() to "
                               f"be true, but got false.  ({scalar_type_name(per_sample_weights._dtype)} vs "
                               f"{scalar_type_name(weight._dtype)})")
        if per_sample_weights.dim() != 1:
            raise RuntimeError(f"expected per_sample_weights to be 1D tensor, got {per_sample_weights.dim()}D")
        if per_sample_weights.numel() != indices.numel():
            raise RuntimeError(f"expected per_sample_weights.numel() ({per_sample_weights.numel()} to be the same as "
                               f"indices.numel() ({indices.numel()})")


def _fast_path(weight: Tensor, per_sample_weights: Tensor | None, padding_idx: int) -> bool:
    """is_fast_path (EmbeddingBag.cpp): float / half rows with unit stride, no padding index (sum and mean then add
    each bag's rows up to the next offset; the other paths go by offset2bag)."""
    ok = weight._dtype in (_dt.float32, _dt.float16) and weight._stride[1] == 1 and padding_idx < 0
    return ok and (per_sample_weights is None or per_sample_weights._stride[0] == 1)


def _offset2bag(offsets: np.ndarray, n: int) -> np.ndarray:
    """make_offset2bag: the bag of each of the n indices (index_add of ones at the offsets, then cumsum)."""
    marks = np.zeros(n + 1, dtype=np.int64)
    np.add.at(marks, offsets.astype(np.int64), 1)
    marks[0] -= 1
    return np.cumsum(marks)[:n]


def _forward(weight: Tensor, indices: Tensor, offsets: Tensor, mode: int, per_sample_weights: Tensor | None,
             include_last_offset: bool, padding_idx: int, requires_grad: bool) -> tuple[Tensor, ...]:
    _check(weight, indices, offsets, mode, per_sample_weights, include_last_offset)
    n_off = offsets._shape[0]
    num_bags = n_off - 1 if include_last_offset else n_off
    dim = weight._shape[1]
    idt = _int_dtype(indices, offsets)
    fast = _fast_path(weight, per_sample_weights, padding_idx)
    fast_sum = mode == SUM and fast
    o2b_len = 0 if fast_sum else indices._shape[0]
    bag_len = num_bags if (requires_grad or mode in (MEAN, MAX)) else n_off
    max_shape = (num_bags, dim) if mode == MAX else (bag_len,)

    def meta(shape: tuple, dtype: _dt.dtype) -> TensorMeta:
        return TensorMeta(shape, contiguous_strides(shape), dtype)

    metas = [meta((num_bags, dim), weight._dtype), meta((o2b_len,), idt), meta((bag_len,), idt), meta(max_shape, idt)]
    if device_hint(offsets) == "meta":
        # torch's meta function for offsets off the CPU (a real meta tensor, not a fake CPU one): offset2bag of the
        # indices' length, bag_size of offsets' shape, max_indices empty unless mode is max (the indices' dtype)
        ind = indices._dtype
        metas = [metas[0], meta((indices._shape[0],), ind), meta(tuple(offsets._shape), ind),
                 meta((num_bags, dim) if mode == MAX else (0,), ind)]
    if weight._data is None or indices._data is None:
        return tuple(materialize(m, None, weight) for m in metas)
    idx = np.asarray(indices._data, dtype=np.int64).reshape(-1)
    offs = np.asarray(offsets._data, dtype=np.int64).reshape(-1)
    n = idx.shape[0]
    if n_off and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offs[0]}")
    if n_off and offs[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                           f"{offs[-1]}")
    if n and (idx.min() < 0 or idx.max() >= weight._shape[0]):
        pos = int(np.flatnonzero((idx < 0) | (idx >= weight._shape[0]))[0])
        raise RuntimeError(f"Index {pos} of input takes value {idx[pos]} which is not in the valid range "
                           f"[0, {weight._shape[0]})")
    w = np.asarray(weight._data)
    # include_last_offset: the sum fast path ends the last bag at the last offset; the other paths build offset2bag
    # from the first num_bags offsets, so there the last bag runs to the end of the indices (the same when the last
    # offset is the length of the indices, as the documentation asks)
    bag_of = _offset2bag(offs if fast_sum else offs[:num_bags], n) if n else np.zeros(0, np.int64)
    keep = idx != padding_idx if padding_idx >= 0 else np.ones(n, bool)
    out = np.zeros((num_bags, dim), dtype=w.dtype)
    counts = np.zeros(num_bags, dtype=np.int64)
    in_bag = (bag_of >= 0) & (bag_of < num_bags)  # (indices after the last offset with include_last_offset belong to no bag)
    sel = keep & in_bag
    np.add.at(counts, bag_of[sel], 1)
    max_idx = np.zeros((num_bags, dim), dtype=np.int64)
    if mode == MAX:
        best = np.full((num_bags, dim), -np.inf, dtype=w.dtype)
        for i in np.nonzero(sel)[0]:  # in index order: the first of equal maxima wins
            b, row = bag_of[i], w[idx[i]]
            better = row > best[b]
            max_idx[b] = np.where(better, idx[i], max_idx[b])
            best[b] = np.where(better, row, best[b])
        out = np.where(counts[:, None] > 0, best, 0).astype(w.dtype)
    else:  # (the fast path adds the rows of each bag up to the next offset, the last offset included)
        sum_bag = _offset2bag(offs, n) if n and fast else bag_of
        sum_sel = keep & (sum_bag >= 0) & (sum_bag < num_bags)
        rows = w[idx[sum_sel]]
        if per_sample_weights is not None:
            rows = rows * np.asarray(per_sample_weights._data).reshape(-1)[sum_sel][:, None]
        np.add.at(out, sum_bag[sum_sel], rows)
        if mode == MEAN:
            out = (out / np.maximum(counts, 1)[:, None]).astype(w.dtype)
    npi = idt.np_dtype
    bag_vals = counts if mode in (MEAN, MAX) else np.zeros(num_bags, np.int64)
    bag_size = np.zeros(bag_len, dtype=npi)
    bag_size[:num_bags] = bag_vals
    max_out = max_idx if mode == MAX else bag_size.copy()
    values = [out, bag_of[:o2b_len].astype(npi), bag_size, max_out.astype(npi)]
    return tuple(materialize(m, v, weight) for m, v in zip(metas, values, strict=True))


@impl("_embedding_bag", "CPU", "Meta")
def _embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False, mode: int = 0,
                   sparse: bool = False, per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                   padding_idx: int = -1) -> tuple[Tensor, ...]:
    return _forward(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx, True)


@impl("_embedding_bag_forward_only", "CPU", "Meta")
def _embedding_bag_forward_only(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False,
                                mode: int = 0, sparse: bool = False, per_sample_weights: Tensor | None = None,
                                include_last_offset: bool = False, padding_idx: int = -1) -> tuple[Tensor, ...]:
    from ..autograd.grad_mode import is_grad_enabled

    if is_grad_enabled() and (weight.requires_grad or (per_sample_weights is not None
                                                       and per_sample_weights.requires_grad)):
        # torch's autograd kernel for this op gives every output a history, which its integer outputs refuse
        raise RuntimeError("Autograd not support dtype: Long")
    return _forward(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx, False)


def _freq_divisors(idx: np.ndarray, num_weights: int) -> np.ndarray:
    """scale_grad_by_freq's divisor of each index, as EmbeddingBag.cpp's CPU backward computes it: it walks the sorted
    indices group by group and divides group ``i`` by ``counts[sorted[i]]`` (the count of the value at sorted
    position ``i``, not of the group's own value; the same as each row's count only when the indices are unique or
    grouped that way). Kept for parity with torch's gradients."""
    counts = np.bincount(idx, minlength=num_weights)
    order = np.argsort(idx, kind="stable")
    sorted_idx = idx[order]
    starts = np.flatnonzero(np.r_[True, sorted_idx[1:] != sorted_idx[:-1]])
    div_sorted = np.empty(idx.shape[0], dtype=np.float64)
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else idx.shape[0]
        div_sorted[start:end] = counts[sorted_idx[i]]
    out = np.empty_like(div_sorted)
    out[order] = div_sorted
    return out


def _check_index_types(indices: Tensor, offsets: Tensor) -> None:
    """promoteIndicesAndOffsets, then checkScalarTypes: a non-integer one makes the promoted indices fail."""
    from .kernel_dtypes import legacy_type_name

    for t in (indices, offsets):
        if t._dtype not in (_dt.int64, _dt.int32):
            raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                               f"Long, Int; but got {legacy_type_name(t)} instead (while checking arguments for "
                               "embedding_bag)")


def _backward_offset2bag(indices: Tensor, offsets: Tensor, offset2bag: Tensor, o2b_dtype: _dt.dtype) -> None:
    """The backward kernels' offset2bag: rebuilt from the offsets (make_offset2bag: an index_add_ of ones at the
    offsets into zeros of ``o2b_dtype``) when none was saved, else checked to be of an index type."""
    from .kernel_dtypes import legacy_type_name

    if indices.numel() != 0 and offset2bag.numel() == 0:
        if indices.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if offsets.dim() > 1:
            raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {offsets.dim()} with "
                             f"type: {scalar_type_name(offsets._dtype)} and size: {list(offsets._shape)}")
        if o2b_dtype is not offsets._dtype:
            raise RuntimeError(f"index_add_(): self ({scalar_type_name(o2b_dtype)}) and source "
                               f"({scalar_type_name(offsets._dtype)}) must have the same scalar type")
    elif offset2bag._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("Expected tensor for argument #1 'offset2bag' to have one of the following scalar types: "
                           f"Long, Int; but got {legacy_type_name(offset2bag)} instead (while checking arguments for "
                           "embedding_bag)")


def _internal_assert(cond: str) -> RuntimeError:
    return RuntimeError(f'{cond} INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
                        'EmbeddingBag.cpp", please report a bug to PyTorch. ')


@impl("_embedding_bag_backward", "CPU", "Meta")
def _embedding_bag_backward(grad: Tensor, indices: Tensor, offsets: Tensor, offset2bag: Tensor, bag_size: Tensor,
                            maximum_indices: Tensor, num_weights: int, scale_grad_by_freq: bool, mode: int,
                            sparse: bool, per_sample_weights: Tensor | None, padding_idx: int = -1) -> Tensor:
    """The weight's gradient (dense): each bag's gradient row added to its rows (times the per-sample weight,
    divided by the bag size for mean, divided by each row's frequency with scale_grad_by_freq); for max, to the
    arg-max rows of the non-empty bags. Padding rows get nothing."""
    from .kernel_dtypes import legacy_type_name

    # (_embedding_bag_backward's checks, then _embedding_bag_dense_backward_cpu's, in PyTorch's order)
    _check_index_types(indices, offsets)
    _backward_offset2bag(indices, offsets, offset2bag, _int_dtype(indices, offsets))
    if sparse:
        raise NotImplementedError("embedding_bag(sparse=True) is not supported by dispatchkit")
    if grad._dtype not in (_dt.float16, _dt.float32, _dt.float64):
        raise RuntimeError("Expected tensor for argument #1 'grad_' to have one of the following scalar types: Half, "
                           f"BFloat16, Float, Double; but got {legacy_type_name(grad)} instead (while checking "
                           "arguments for embedding_bag)")
    if mode not in (SUM, MEAN, MAX):
        raise _internal_assert("mode == EmbeddingBagMode::MEAN || mode == EmbeddingBagMode::SUM")
    if num_weights < 0:
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    dim = grad._shape[1]
    meta = TensorMeta((num_weights, dim), contiguous_strides((num_weights, dim)), grad._dtype)

    def compute() -> np.ndarray:
        g = np.asarray(grad._data)
        idx = np.asarray(indices._data, dtype=np.int64).reshape(-1)
        gw = np.zeros((num_weights, dim), dtype=g.dtype)
        if mode == MAX:
            sizes = np.asarray(bag_size._data, dtype=np.int64)[: g.shape[0]]
            mi = np.asarray(maximum_indices._data, dtype=np.int64)
            for b in np.nonzero(sizes)[0]:
                np.add.at(gw, (mi[b], np.arange(dim)), g[b])
            return gw
        n = idx.shape[0]
        o2b = np.asarray(offset2bag._data, dtype=np.int64).reshape(-1)
        if n and o2b.shape[0] == 0:
            o2b = _offset2bag(np.asarray(offsets._data, dtype=np.int64).reshape(-1), n)
        keep = (idx != padding_idx) if padding_idx >= 0 else np.ones(n, bool)
        keep &= o2b < g.shape[0]
        rows = g[o2b[keep]]
        if per_sample_weights is not None:
            rows = rows * np.asarray(per_sample_weights._data).reshape(-1)[keep][:, None]
        if mode == MEAN:
            sizes = np.asarray(bag_size._data, dtype=np.int64)
            rows = rows / np.maximum(sizes[o2b[keep]], 1)[:, None]
        if scale_grad_by_freq:
            rows = rows / _freq_divisors(idx, num_weights)[keep][:, None]
        np.add.at(gw, idx[keep], rows.astype(g.dtype))
        return gw

    return materialize(meta, compute, grad)


@impl("_embedding_bag_per_sample_weights_backward", "CPU", "Meta")
def _embedding_bag_per_sample_weights_backward(grad: Tensor, weight: Tensor, indices: Tensor, offsets: Tensor,
                                               offset2bag: Tensor, mode: int, padding_idx: int = -1) -> Tensor:
    """d output / d per_sample_weights[i] = <grad[bag of i], weight[indices[i]]> (0 at the padding index)."""
    # (_embedding_bag_per_sample_weights_backward_cpu's dispatch on grad's dtype, then its template's checks)
    if grad._dtype not in (_dt.float16, _dt.float32, _dt.float64):
        raise NotImplementedError(f'"_embedding_bag_per_sample_weights_backward_cpu" not implemented for '
                                  f"'{scalar_type_name(grad._dtype)}'")
    if mode != SUM:
        raise RuntimeError("embedding_bag_backward: per_sample_weights only supported for mode='sum'")
    if grad.dim() != 2:
        raise _internal_assert("grad.dim() == 2")
    if indices.dim() != 1:
        raise _internal_assert("indices.dim() == 1")
    if weight.dim() != 2:
        raise _internal_assert("weight.dim() == 2")
    if weight._shape[1] != grad._shape[1]:
        raise _internal_assert("weight.sizes()[1] == embedding_features")
    _check_index_types(indices, offsets)
    _backward_offset2bag(indices, offsets, offset2bag, offset2bag._dtype)
    if weight._dtype is not grad._dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(grad._dtype)} but found "
                           f"{scalar_type_name(weight._dtype)}")
    n = indices._shape[0]
    meta = TensorMeta((n,), (1,), grad._dtype)

    def compute() -> np.ndarray:
        idx = np.asarray(indices._data, dtype=np.int64).reshape(-1)
        o2b = np.asarray(offset2bag._data, dtype=np.int64).reshape(-1)
        if n and o2b.shape[0] == 0:
            o2b = _offset2bag(np.asarray(offsets._data, dtype=np.int64).reshape(-1), n)
        g, w = np.asarray(grad._data), np.asarray(weight._data)
        out = np.zeros(n, dtype=g.dtype)
        ok = o2b < g.shape[0]
        if padding_idx >= 0:
            ok &= idx != padding_idx
        out[ok] = np.einsum("ij,ij->i", g[o2b[ok]], w[idx[ok]])
        return out

    return materialize(meta, compute, grad)


@impl("embedding_bag.padding_idx", "CompositeImplicitAutograd")
def embedding_bag_padding_idx(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool, mode: int,
                              sparse: bool, per_sample_weights: Tensor | None, include_last_offset: bool,
                              padding_idx: int | None) -> tuple[Any, ...]:
    pad = -1
    if padding_idx is not None:
        num = weight._shape[0]
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, but "
                               f"got {padding_idx}")
        pad = padding_idx + num if padding_idx < 0 else padding_idx
    from ..schema import UNDEFINED_TENSOR

    indices, offsets = _op("contiguous")(indices), _op("contiguous")(offsets)
    name = "_embedding_bag" if weight.requires_grad else "_embedding_bag_forward_only"
    # (C++ passes the unwrapped optional: an undefined tensor, which stays in the call as None)
    psw = UNDEFINED_TENSOR if per_sample_weights is None else per_sample_weights
    return _op(name)(weight, indices, offsets, scale_grad_by_freq, mode, sparse, psw, include_last_offset, pad)


@impl("embedding_bag", "CompositeImplicitAutograd")
def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False, mode: int = 0,
                  sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False) -> tuple[Any, ...]:
    return _op("embedding_bag.padding_idx")(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                                            per_sample_weights, include_last_offset, None)
