"""Matrix products: ``mm``, ``bmm``, ``addmm``, ``mv``, ``dot``, ``baddbmm``.

Corresponds to aten/src/ATen/native/LinearAlgebra.cpp (and Blas.cpp). Outputs
are contiguous; shapes and dtypes are checked with PyTorch's messages, in
PyTorch's order (meta-function checks first, then the CPU kernel's dtype
checks, which PyTorch's Meta kernels do not make).

Numerics: float16 products are computed in float32 and rounded once (PyTorch's
CPU half GEMM accumulates in float32); ``addmm`` / ``baddbmm`` cast ``beta`` and
``alpha`` to the result dtype first, so an integer ``addmm`` with ``beta=0.5``
uses ``beta=0`` as PyTorch does. ``mv`` is CompositeExplicitAutograd in PyTorch
(it runs ``empty`` + ``addmv_``); here its one kernel computes directly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, wrap_dim
from .reductions import is_meta, not_implemented, scalar_type_name

# caffe2 TypeMeta names, which some messages print ("float != double").
_TYPEMETA_NAME = {
    "float32": "float", "float64": "double", "int64": "long int", "int32": "int", "float16": "c10::Half",
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def _cname(t: Tensor) -> str:
    return _TYPEMETA_NAME[t._dtype.name]


#: the Python number types a Scalar argument usually has (addmm's hot path takes beta / alpha of these)
_PLAIN = frozenset({int, float, bool})


def _compute_dtype(d: _dt.dtype) -> Any:
    return np.float32 if d is _dt.float16 else d.np_dtype


def _matmul(a: Tensor, b: Tensor, d: _dt.dtype) -> np.ndarray:
    cd = _compute_dtype(d)
    return np.matmul(a._data.astype(cd, copy=False), b._data.astype(cd, copy=False))


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
        from .views import legacy_type_name

        raise RuntimeError(
            f"expand({legacy_type_name(t)}{{{list(t._shape)}}}, size={list(sizes)}): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({t.dim()})"
        )
    pad = len(sizes) - t.dim()
    for i, s in enumerate(t._shape):
        target = sizes[pad + i]
        if s != 1 and s != target:
            from .views import legacy_type_name

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
            return Tensor._wrap_contiguous(np.matmul(self._data, mat2._data), d)
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
        out = np.matmul(mat1._data, mat2._data)
        out += self._data
        return Tensor._wrap_contiguous(out, d)
    if not is_meta(self):
        _addmm_cpu_checks(d, shape, mat1._shape[1], beta)
    meta = TensorMeta(shape, contiguous_strides(shape), d)
    return materialize(meta, lambda: _addmm_like(self, _matmul(mat1, mat2, d), mat1._shape[1], beta, alpha, d), self)


@impl("baddbmm", "CPU", "Meta")
def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
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
    if d is _dt.bool and not is_meta(self):
        raise not_implemented("dot", d)
    meta = TensorMeta((), (), d)
    return materialize(meta, lambda: _matmul(self, tensor, d), self)
