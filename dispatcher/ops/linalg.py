"""Matrix-product kernels: ``mm``, ``bmm``, ``addmm``, ``baddbmm``, ``addbmm``, ``mv``, ``addmv``, ``dot``, ``vdot``,
``addr``, ``outer``, ``trace`` (and its backward), and the CompositeImplicitAutograd ``kron``, ``tensordot``,
``cosine_similarity``.

Corresponds to aten/src/ATen/native/LinearAlgebra.cpp, Blas.cpp, Linear.cpp (``tensordot``), ReduceOps.cpp
(``trace``) and Distance.cpp (``cosine_similarity``). Outputs are contiguous; shapes and dtypes are checked with
PyTorch's messages, in PyTorch's order (meta-function checks first, then the CPU kernel's dtype checks, which
PyTorch's Meta kernels do not make). float16 products are computed in float32 and rounded once (PyTorch's CPU half
GEMM accumulates in float32); ``addmm`` / ``baddbmm`` cast ``beta`` and ``alpha`` to the result dtype first, and
``beta == 0`` drops ``self`` (NaNs included). ``matmul`` / ``linear`` are in linalg_matmul.py, ``einsum`` in
linalg_einsum.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import dtypes as _dtypes
from ..math_bits import resolved
from ..memory_format import strided
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from ..tls import per_thread
from ..zero_tensor import ZERO_BIT
from . import tensor_iterator as _pw
from .composite import _aten, _op
from .fp_errors import ignoring_fp_errors
from .kernel_dtypes import is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import (
    TensorMeta,
    _broadcast_strides,
    broadcast_shapes,
    materialize,
    scalar_type_name,
    strides_in_operand_order,
    wrap_dim,
)
from .tensor_iterator import _bool, _integral

aten = namespace("aten")


# caffe2 TypeMeta names, which some messages print ("float != double").
_TYPEMETA_NAME = {
    "float32": "float", "float64": "double", "int64": "long int", "int32": "int", "float16": "c10::Half",
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
    "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int",
}


def _cname(t: Tensor) -> str:
    return _TYPEMETA_NAME[t._dtype.name]


#: the Python number types a Scalar argument usually has (addmm's hot path takes beta / alpha of these)
_PLAIN = frozenset({int, float, bool})


def _compute_dtype(d: _dt.dtype) -> Any:
    return np.float32 if d is _dt.float16 else d.np_dtype


def _matmul(a: Tensor, b: Tensor, d: _dt.dtype) -> np.ndarray:
    cd = _compute_dtype(d)
    return ignoring_fp_errors(np.matmul, a._data.astype(cd, copy=False), b._data.astype(cd, copy=False))


def _cast_scalar(value: Any, d: _dt.dtype, checked: bool = True) -> Any:
    """A Scalar argument converted to the kernel's dtype (int(0.5) == 0 for integer tensors), with c10's
    overflow check (``checked_convert``: a float must fit the range; an int may wrap only by its magnitude)."""
    if d is _dt.bool:
        return bool(value)
    if d.is_floating_point:
        return float(value)
    if checked:
        info = np.iinfo(d.np_dtype)
        if isinstance(value, float):
            bad = not (info.min <= value <= info.max)
        else:
            bad = int(value) > info.max or (int(value) < 0 and -int(value) > info.max)
        if bad:
            raise RuntimeError(f"value cannot be converted to type {d.np_dtype.name}_t without overflow")
    return int(value)


def _size(t: Tensor, dim: int) -> int:
    """``t.size(dim)`` with PyTorch's errors."""
    if t.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return t._shape[wrap_dim(dim, t.dim())]


def expand_size(t: Tensor, sizes: tuple[int, ...]) -> None:
    """Check that ``t`` expands to ``sizes`` (ATen ``expand_size``), with ``expand``'s messages."""
    if len(sizes) < t.dim():
        from .kernel_dtypes import legacy_type_name

        raise RuntimeError(
            f"expand({legacy_type_name(t)}{{{list(t._shape)}}}, size={list(sizes)}): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({t.dim()})"
        )
    pad = len(sizes) - t.dim()
    for i, s in enumerate(t._shape):
        target = sizes[pad + i]
        if s != 1 and s != target:
            from .kernel_dtypes import legacy_type_name

            raise RuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size ({s}) at non-singleton "
                f"dimension {pad + i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(t._shape)}"
            )


def _addmm_like(self: Tensor, prod: np.ndarray, k: int, beta: Any, alpha: Any, d: _dt.dtype) -> np.ndarray:
    """``beta * self + alpha * prod`` with PyTorch's rule that ``beta == 0`` ignores ``self`` (even NaN)."""
    cd = np.dtype(_compute_dtype(d))
    if prod.size == 0:
        return prod
    if k == 0:  # PyTorch: result = self * beta (an unchecked cast), or zeros when beta == 0
        b = _cast_scalar(beta, d, checked=False)
        s = self._data.astype(cd, copy=False)
        return np.broadcast_to(s * np.array(b).astype(cd), prod.shape) if b != 0 else prod
    b, a = _cast_scalar(beta, d), _cast_scalar(alpha, d)
    out = prod if a == 1 else prod * np.array(a).astype(cd)  # astype wraps like a C++ cast (-1 -> 255 for uint8)
    if b == 0:
        return out
    s = self._data.astype(cd, copy=False)
    return out + (s if b == 1 else s * np.array(b).astype(cd))


# --- mm / bmm ----------------------------------------------------------------------------------------


@impl("mm", "CPU", "Meta")
def mm(self: Tensor, mat2: Tensor) -> Tensor:
    self, mat2 = resolved(self), resolved(mat2)  # a Conjugate fallthrough: the kernel reads conj inputs itself
    if self.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self._shape[1] != mat2._shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({self._shape[0]}x{self._shape[1]} and "
            f"{mat2._shape[0]}x{mat2._shape[1]})"
        )
    if self._dtype is not mat2._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(self)} != {_cname(mat2)}")
    d = self._dtype
    shape = (self._shape[0], mat2._shape[1])
    meta = TensorMeta(shape, contiguous_strides(shape), d)
    if d is _dt.float32 or d is _dt.float64:  # the hot path
        if self._data is not None and mat2._data is not None:  # (a 2-d matmul's result: a new row-major array)
            return Tensor._wrap_contiguous(ignoring_fp_errors(np.matmul, self._data, mat2._data), d)
        return materialize(meta, None, self)
    if d is _dt.bool and not is_meta(self) and shape[0] * shape[1] * self._shape[1]:
        raise not_implemented("addmm_impl_cpu_", d)  # (empty products return before PyTorch's dtype dispatch)
    return materialize(meta, lambda: _matmul(self, mat2, d), self)


def _bmm_checks(batch1: Tensor, batch2: Tensor) -> tuple[int, int, int]:
    """ATen ``common_checks_baddbmm_bmm``: the output size (b, n, p)."""
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    bs, n, k = batch1._shape
    if batch2._shape[0] != bs or batch2._shape[1] != k:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, {k}] but got: "
            f"[{batch2._shape[0]}, {batch2._shape[1]}]."
        )
    return bs, n, batch2._shape[2]


def _bmm_cpu_checks(kernel: str, batch1: Tensor, batch2: Tensor) -> None:
    if is_meta(batch1) or batch1.numel() * batch2.numel() == 0:  # empty products return before these checks
        return
    if batch1._dtype is not batch2._dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(batch1._dtype)} but found {scalar_type_name(batch2._dtype)}"
        )
    if batch1._dtype is _dt.bool:
        raise not_implemented(kernel, batch1._dtype)


@impl("bmm", "CPU", "Meta")
def bmm(self: Tensor, mat2: Tensor) -> Tensor:
    self, mat2 = resolved(self), resolved(mat2)
    shape = _bmm_checks(self, mat2)
    _bmm_cpu_checks("bmm", self, mat2)
    d = mat2._dtype
    meta = TensorMeta(shape, contiguous_strides(shape), d)
    return materialize(meta, lambda: _matmul(self, mat2, d), self)


# --- addmm / baddbmm ---------------------------------------------------------------------------------


def _addmm_cpu_checks(d: _dt.dtype, shape: tuple[int, int], k: int, beta: Any) -> None:
    if shape[0] * shape[1] == 0:
        return
    if k == 0:
        # PyTorch's CPU kernel computes an empty product as ``result = self; result.mul_(beta)``.
        if beta != 0 and isinstance(beta, float) and not d.is_floating_point:
            raise RuntimeError(
                f"result type Float can't be cast to the desired output type {scalar_type_name(d)}"
            )
        return
    if d is _dt.bool:
        raise not_implemented("addmm_impl_cpu_", d)


@impl("addmm", "CPU", "Meta")
def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    self, mat1, mat2 = resolved(self), resolved(mat1), resolved(mat2)
    if self._dtype is not mat2._dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {scalar_type_name(self._dtype)} and "
            f"{scalar_type_name(mat2._dtype)}"
        )
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {scalar_type_name(mat1._dtype)} and "
            f"{scalar_type_name(mat2._dtype)}"
        )
    if mat1.dim() != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.dim()}-D tensor")
    if mat2.dim() != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    if mat1._shape[1] != mat2._shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({mat1._shape[0]}x{mat1._shape[1]} and "
            f"{mat2._shape[0]}x{mat2._shape[1]})"
        )
    shape = (mat1._shape[0], mat2._shape[1])
    expand_size(self, shape)
    d = mat1._dtype
    if ((d is _dt.float32 or d is _dt.float64) and self._data is not None and mat1._data is not None
            and mat2._data is not None and beta.__class__ in _PLAIN
            and alpha.__class__ in _PLAIN and beta == 1 and alpha == 1 and shape[0] * shape[1] * mat1._shape[1]):
        # the hot path (F.linear's bias + input @ weight.t()): what _addmm_like computes for beta = alpha = 1
        out = ignoring_fp_errors(np.matmul, mat1._data, mat2._data)
        ignoring_fp_errors(np.add, out, self._data, out)
        return Tensor._wrap_contiguous(out, d)
    if not is_meta(self):
        _addmm_cpu_checks(d, shape, mat1._shape[1], beta)
    meta = TensorMeta(shape, contiguous_strides(shape), d)
    return materialize(meta, lambda: _addmm_like(self, _matmul(mat1, mat2, d), mat1._shape[1], beta, alpha, d), self)


@impl("baddbmm", "CPU", "Meta")
def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    self, batch1, batch2 = resolved(self), resolved(batch1), resolved(batch2)
    expand_size(self, (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2)))
    if self._dtype is not batch1._dtype:
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {_cname(self)}, batch1: {_cname(batch1)}, "
            f"batch2: {_cname(batch2)}"
        )
    shape = _bmm_checks(batch1, batch2)
    _bmm_cpu_checks("baddbmm", batch1, batch2)
    d = batch2._dtype
    if not is_meta(self):
        _addmm_cpu_checks(d, shape[1:] if shape[0] else (0, 0), batch1._shape[2], beta)
    meta = TensorMeta(shape, contiguous_strides(shape), d)
    return materialize(meta, lambda: _addmm_like(self, _matmul(batch1, batch2, d), batch1._shape[2], beta, alpha, d), self)


# --- mv / dot ----------------------------------------------------------------------------------------


@impl("mv", "CompositeExplicitAutograd")
def mv(self: Tensor, vec: Tensor) -> Tensor:
    n = _size(self, 0)  # PyTorch allocates the result as empty({self.size(0)}, vec.options()) first
    if not (self.dim() == 2 and vec.dim() == 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.dim()}, {vec.dim()}")
    if self._shape[1] != vec._shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({n}), mat ({self._shape[0]}x{self._shape[1]}), vec ({vec._shape[0]})"
        )
    d = vec._dtype
    if self._dtype is not d:
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {scalar_type_name(d)}, "
            f"{scalar_type_name(self._dtype)}, and {scalar_type_name(d)}"
        )
    if d is _dt.bool and not is_meta(self) and self.numel():
        raise not_implemented("addmv_impl_cpu", d)
    meta = TensorMeta((n,), (1,), d)
    return materialize(meta, lambda: _matmul(self, vec, d), self)


@impl("dot", "CPU", "Meta")
def dot(self: Tensor, tensor: Tensor) -> Tensor:
    self, tensor = resolved(self), resolved(tensor)
    if self.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {tensor.dim()}D tensors")
    if self._dtype is not tensor._dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {scalar_type_name(self._dtype)} and "
            f"{scalar_type_name(tensor._dtype)}"
        )
    n, m = self._shape[0], tensor._shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of elements, "
            f"but got {n} and {m} elements respectively"
        )
    d = self._dtype
    if (self._key_set | tensor._key_set) & ZERO_BIT:  # dot is a ZeroTensor fallthrough: a zero tensor result
        return aten._efficientzerotensor.default([], dtype=d, device=self.device)
    if d is _dt.bool and not is_meta(self):
        raise not_implemented("dot", d)
    meta = TensorMeta((), (), d)
    return materialize(meta, lambda: _matmul(self, tensor, d), self)


# --- addmv / addr / addbmm / vdot (Blas.cpp, LinearAlgebra.cpp) ----------------------------------------


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
    self, other = resolved(self), resolved(other)
    if self._dtype.is_complex and self._data is not None and not self._key_set & ZERO_BIT:
        return dot(Tensor._wrap_contiguous(np.ascontiguousarray(np.conj(self._data)), self._dtype), other)
    return dot(self, other)


# --- kron / tensordot / outer (CompositeImplicitAutograd) ----------------------------------------------


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


@impl("outer", "CompositeImplicitAutograd")
def outer(self: Tensor, vec2: Tensor) -> Tensor:
    """``self.reshape(n, 1) * vec2`` for two 1-D tensors."""
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return aten.mul.Tensor(aten.reshape.default(self, [self._shape[0], 1]), vec2)


# --- trace -------------------------------------------------------------------------------------------------------------


@impl("trace", "CPU", "Meta")
def trace(self: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix, accumulated as ``sum`` does (integral and bool -> int64; bool
    refused by the CPU kernel)."""
    if len(self._shape) != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {len(self._shape)}")
    dtype = _dt.int64 if _integral(self._dtype) else self._dtype
    if self._data is not None and self._dtype is _bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")

    def compute() -> Any:
        x = _pw._operand(self, dtype) if self._dtype.is_floating_point else self._data.astype(np.int64)
        return np.asarray(np.trace(x)).astype(dtype.np_dtype)

    return _pw._run(TensorMeta((), (), dtype), self, compute)


@impl("trace_backward", "CompositeImplicitAutograd")
def trace_backward(grad: Tensor, sizes: list[int]) -> Tensor:
    """``zeros(rows * cols)``, the gradient written at every ``cols + 1``-th element (``index_fill``), viewed as
    ``sizes``."""
    aten = _aten()
    if len(sizes) != 2:
        raise RuntimeError("expected matrix input")
    rows, cols = sizes
    options = {"dtype": grad._dtype, "layout": strided, "device": grad._device}
    grad_input = aten.zeros.default([rows * cols], **options)
    indices = aten.arange.start_step(0, min(rows, cols) * (cols + 1), cols + 1, dtype=_dt.int64, layout=strided,
                                     device=grad._device)
    return aten.view.default(aten.index_fill.int_Tensor(grad_input, 0, indices, grad), list(sizes))


# --- cosine_similarity (CompositeImplicitAutograd, Distance.cpp) ---------------------------------------


@impl("cosine_similarity", "CompositeImplicitAutograd")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Distance.cpp: each input divided by its norm along dim (cloned, clamped to eps without grad), then the
    product summed along dim; integer inputs converted to the common dtype, both expanded to one shape."""
    aten = _aten()
    common = _dtypes.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{scalar_type_name(common)}")
    if not (x1._dtype.is_floating_point or x1._dtype.is_complex):
        x1 = aten._to_copy.default(x1, dtype=common)
    if not (x2._dtype.is_floating_point or x2._dtype.is_complex):
        x2 = aten._to_copy.default(x2, dtype=common)
    if x1._shape != x2._shape:  # expand_outplace: both expanded when the sizes differ (x2 first, as C++ runs)
        shape = list(broadcast_shapes(x1._shape, x2._shape))
        x2 = aten.expand.default(x2, shape)
        x1 = aten.expand.default(x1, shape)
    x1_norm = aten.clone.default(aten.linalg_vector_norm.default(x1, 2, [dim], True))
    x2_norm = aten.clone.default(aten.linalg_vector_norm.default(x2, 2, [dim], True))
    grad_enabled = per_thread.s.grad_enabled  # at::NoGradGuard: a C++ guard, never recorded by a trace
    per_thread.s.grad_enabled = False
    try:
        eps_t = aten.scalar_tensor.default(eps, dtype=x1_norm.dtype, device=x1_norm.device)
        aten.clamp_min_.Tensor(x1_norm, eps_t)
        aten.clamp_min_.Tensor(x2_norm, eps_t)
    finally:
        per_thread.s.grad_enabled = grad_enabled
    second = aten.div.Tensor(x2, x2_norm)  # C++ evaluates the right operand of ``*`` first
    return aten.sum.dim_IntList(aten.mul.Tensor(aten.div.Tensor(x1, x1_norm), second), [dim])


@impl("ger", "CompositeImplicitAutograd")
def ger(self: Tensor, vec2: Tensor) -> Tensor:
    """``self.outer(vec2)`` (the spelling ``mv``'s derivative uses, kept whole by pre-dispatch tracing)."""
    return aten.outer.default(self, vec2)
