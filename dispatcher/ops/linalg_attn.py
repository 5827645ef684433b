"""Kernels of the attn batch's products: ``addmv``, ``addr``, ``addbmm``, ``vdot`` (CPU + Meta) and the
CompositeImplicitAutograd ``kron`` and ``tensordot``.

Corresponds to PyTorch 2.13's native/Blas.cpp (``addmv``, ``addr``, ``vdot``), LinearAlgebra.cpp
(``addbmm``, ``kron``) and Linear.cpp (``tensordot``). The CPU kernels share linalg.py's arithmetic
(``beta == 0`` drops ``self``, NaNs included); ``addr`` is a TensorIterator kernel (``self`` expanded to the
outer product's shape, dtypes promoted), the others require one dtype. ``kron`` views both operands with
interleaved size-1 dims (``_unsafe_view``), multiplies and views the product back; ``tensordot`` sums
broadcast contracted dims, permutes the contracted dims last (first for ``other``), reshapes to matrices,
``mm``s and reshapes to the result's sizes (a full contraction is a ``dot`` of the flattened operands).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .decompositions import _op
from .kernel_registry import impl
from .linalg import _addmm_like, _compute_dtype, _matmul, dot, expand_size
from .meta_utils import (
    TensorMeta,
    _broadcast_strides,
    materialize,
    scalar_type_name,
    strides_in_operand_order,
    wrap_dim,
)
from .reductions import is_meta, not_implemented


@impl("addmv", "CPU", "Meta")
def addmv(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if not (mat.dim() == 2 and vec.dim() == 1 and self.dim() <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.dim()}, {mat.dim()}, {vec.dim()}")
    n, k = mat._shape
    if not (k == vec._shape[0] and (n == self.numel() or self.numel() == 1)):
        size0 = self._shape[0] if self.dim() else self.numel()
        raise RuntimeError(f"size mismatch, got input ({size0}), mat ({n}x{k}), vec ({vec._shape[0]})")
    if not (self._dtype is mat._dtype is vec._dtype):
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {scalar_type_name(self._dtype)}, "
            f"{scalar_type_name(mat._dtype)}, and {scalar_type_name(vec._dtype)}")
    d = mat._dtype
    if d is _dt.bool and not is_meta(self) and n * k:
        raise not_implemented("addmv_impl_cpu", d)
    meta = TensorMeta((n,), (1,), d)
    return materialize(meta, lambda: _addmm_like(self, _matmul(mat, vec, d), k, beta, alpha, d), self)


@impl("addr", "CPU", "Meta")
def addr(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if vec1.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    for arg, name in ((alpha, "alpha"), (beta, "beta")):
        if isinstance(arg, bool) and not (self._dtype is vec1._dtype is vec2._dtype is _dt.bool):
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    shape = (vec1._shape[0], vec2._shape[0])
    expand_size(self, shape)
    d = _dt.result_type(self, vec1, vec2)
    # TensorIterator over (self expanded, vec1 viewed as a column, vec2): broadcast dims have stride 0
    operand_strides = [_broadcast_strides(self, shape), (vec1._stride[0] if shape[0] != 1 else 0, 0),
                       (0, vec2._stride[0] if shape[1] != 1 else 0)]
    meta = TensorMeta(shape, strides_in_operand_order(shape, operand_strides), d)

    def compute() -> np.ndarray:
        cd = np.dtype(_compute_dtype(d))
        outer = np.multiply.outer(vec1._data.astype(cd, copy=False), vec2._data.astype(cd, copy=False))
        s = np.broadcast_to(self._data.astype(cd, copy=False), shape)
        if d is _dt.bool:
            prod = outer if alpha else np.zeros(shape, bool)
            return np.logical_or(s, prod) if beta else prod
        return _addmm_like(Tensor._wrap_contiguous(np.ascontiguousarray(s), d) if s.dtype == d.np_dtype else
                           Tensor._wrap_contiguous(np.ascontiguousarray(s).astype(d.np_dtype), d),
                           outer, 1, beta, alpha, d)

    return materialize(meta, compute, self)


@impl("addbmm", "CPU", "Meta")
def addbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if batch1.dim() >= 2 and batch2.dim() >= 3:
        expand_size(self, (batch1._shape[1], batch2._shape[2]))
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, k = batch1._shape
    if batch2._shape[0] != b:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {batch2._shape[0]}")
    if batch2._shape[1] != k:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {batch2._shape[1]}x{batch2._shape[2]})")
    if self._dtype is not batch2._dtype or batch1._dtype is not batch2._dtype:
        other = batch1 if self._dtype is batch2._dtype else self
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {scalar_type_name(other._dtype)} and "
                           f"{scalar_type_name(batch2._dtype)}")
    shape = (n, batch2._shape[2])
    d = batch2._dtype
    meta = TensorMeta(shape, contiguous_strides(shape), d)

    def compute() -> np.ndarray:
        prod = _matmul(batch1, batch2, d).sum(axis=0) if b else np.zeros(shape, _compute_dtype(d))
        return _addmm_like(self, prod, k * b, beta, alpha, d)

    return materialize(meta, compute, self)


@impl("vdot", "CPU", "Meta")
def vdot(self: Tensor, other: Tensor) -> Tensor:
    """``dot`` with ``self`` conjugated (the same as ``dot`` for real dtypes)."""
    if self._dtype.is_complex and self._data is not None:
        return dot(Tensor._wrap_contiguous(np.ascontiguousarray(np.conj(self._data)), self._dtype), other)
    return dot(self, other)


@impl("kron", "CompositeImplicitAutograd")
def kron(self: Tensor, other: Tensor) -> Tensor:
    maxdim = max(self.dim(), other.dim())
    pad_self, pad_other = maxdim - self.dim(), maxdim - other.dim()
    a_shape: list[int] = []
    b_shape: list[int] = []
    result_shape: list[int] = []
    for i in range(maxdim):
        a = self._shape[i - pad_self] if i >= pad_self else 1
        b = other._shape[i - pad_other] if i >= pad_other else 1
        a_shape += [a, 1]
        b_shape += [1, b]
        result_shape.append(a * b)
    product = _op("mul.Tensor")(_op("_unsafe_view")(self, a_shape), _op("_unsafe_view")(other, b_shape))
    return _op("_unsafe_view")(product, result_shape)


def _prod(sizes: Sequence[int]) -> int:
    out = 1
    for s in sizes:
        out *= s
    return out


@impl("tensordot", "CompositeImplicitAutograd")
def tensordot(self: Tensor, other: Tensor, dims_self: Sequence[int], dims_other: Sequence[int]) -> Tensor:
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    if self._dtype is not other._dtype:
        raise RuntimeError("both inputs should have same dtype")
    csize = 1
    t1, t2 = self, other
    for d1, d2 in zip(dims_self, dims_other, strict=True):
        s1, s2 = self._shape[wrap_dim(d1, self.dim())], other._shape[wrap_dim(d2, other.dim())]
        if s2 == 1:  # broadcast dims are summed right away (in the operand's own dtype)
            t1 = _op("sum.dim_IntList")(t1, [d1], True, dtype=t1._dtype)
        elif s1 == 1:
            t2 = _op("sum.dim_IntList")(t2, [d2], True, dtype=t2._dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} and "
                                   f"second has size {s2} in dim {d2}")
            csize *= s1
    c1 = {wrap_dim(d, self.dim()) for d in dims_self}
    c2 = {wrap_dim(d, other.dim()) for d in dims_other}
    p1 = [i for i in range(self.dim()) if i not in c1] + list(dims_self)
    p2 = list(dims_other) + [i for i in range(other.dim()) if i not in c2]
    rsizes = [t1._shape[i] for i in range(self.dim()) if i not in c1]
    rsizes += [t2._shape[i] for i in range(other.dim()) if i not in c2]
    size1 = _prod([t1._shape[i] for i in range(self.dim()) if i not in c1])
    size2 = _prod([t2._shape[i] for i in range(other.dim()) if i not in c2])
    if not rsizes:  # every dim contracted: a dot product of the flattened operands
        t1, t2 = _op("permute")(t1, p1), _op("permute")(t2, p2)
        flat2 = _op("reshape")(t2, [csize])  # (C++ evaluates dot's arguments right to left)
        return _op("reshape")(_op("dot")(_op("reshape")(t1, [csize]), flat2), rsizes)
    m1 = _op("reshape")(_op("permute")(t1, p1), [size1, csize])
    m2 = _op("reshape")(_op("permute")(t2, p2), [csize, size2])
    return _op("reshape")(_op("mm")(m1, m2), rsizes)
