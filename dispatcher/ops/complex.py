"""Complex-number ops and the lazy math bits: ``_conj`` / ``conj`` / ``resolve_conj`` / ``conj_physical``,
``_neg_view`` / ``resolve_neg``, ``is_conj`` / ``is_neg``, ``real`` / ``imag``, ``view_as_real`` /
``view_as_complex``.

Corresponds to aten/src/ATen/native/UnaryOps.cpp (``_conj``, ``conj_physical``, ``resolve_conj``, ``_neg_view``,
``real`` / ``imag``), TensorShape.cpp / ComplexHelper.h (``view_as_real`` / ``view_as_complex``) and the inline
``Tensor::conj`` of TensorBody.h. The kinds are torch's: ``_conj``, ``_neg_view``, ``_conj_physical`` and
``conj_physical_`` are CompositeExplicitAutograd; ``conj``, ``resolve_conj`` / ``resolve_neg``, ``conj_physical``,
``is_conj`` / ``is_neg``, ``real`` / ``imag`` CompositeImplicitAutograd; ``view_as_real`` / ``view_as_complex`` have
CPU and Meta kernels. ``_conj`` and ``_neg_view`` are views that only flip a bit of the output's key set (the
``Conjugate`` / ``Negative`` dispatch keys, see dispatcher/math_bits.py); ``resolve_*`` materialize the bit with
``clone`` (whose ``copy_`` writes logical values).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..math_bits import CONJ_BIT, NEG_BIT, copy_bits, is_conj, is_neg, set_bit
from ..op_overload import namespace
from ..tensor import Tensor
from ..tls import per_thread
from .kernel_registry import impl
from .meta_utils import scalar_type_name

aten = namespace("aten")


def _dtype_view(self: Tensor, storage: np.ndarray | None, shape: tuple[int, ...], stride: tuple[int, ...],
                offset: int, dtype: _dt.dtype) -> Tensor:
    """A view of ``self``'s storage read as another dtype (``Tensor._view`` with a new dtype)."""
    base = self._base if self._base is not None else self
    t = Tensor._from_storage(storage, shape, stride, offset, dtype, self._device, base)
    version = base._version_counter.version
    if version:
        t._attr_version = version
    meta = self._creation_meta
    if not per_thread.s.grad_enabled and meta != 4:
        meta = 3
    if meta:
        t._creation_meta = meta
    return t


# --- the bits ------------------------------------------------------------------------------------------------


@impl("_conj", "CompositeExplicitAutograd")
def _conj(self: Tensor) -> Tensor:
    """An alias of ``self`` with the conjugate bit flipped."""
    if not self._dtype.is_complex:
        raise RuntimeError(
            "isComplexType(typeMetaToScalarType(dtype())) INTERNAL ASSERT FAILED at "
            "\"c10/core/TensorImpl.h\": _conj: the conjugate bit can only be set on complex tensors, got "
            f"{scalar_type_name(self._dtype)}")
    out = self._view(self._shape, self._stride, self._storage_offset)
    set_bit(out, CONJ_BIT, not is_conj(self))
    return out


@impl("_neg_view", "CompositeExplicitAutograd")
def _neg_view(self: Tensor) -> Tensor:
    """An alias of ``self`` with the negative bit flipped."""
    out = self._view(self._shape, self._stride, self._storage_offset)
    set_bit(out, NEG_BIT, not is_neg(self))
    return out


@impl("is_conj", "CompositeImplicitAutograd")
def is_conj_kernel(self: Tensor) -> bool:
    return is_conj(self)


@impl("is_neg", "CompositeImplicitAutograd")
def is_neg_kernel(self: Tensor) -> bool:
    return is_neg(self)


@impl("conj", "CompositeImplicitAutograd")
def conj(self: Tensor) -> Tensor:
    """``self`` for a real tensor, else ``_conj`` (torch's ``Tensor::conj``)."""
    if not self._dtype.is_complex:
        return self
    return aten._conj.default(self)


@impl("resolve_conj", "CompositeImplicitAutograd")
def resolve_conj(self: Tensor) -> Tensor:
    """``self`` if the conjugate bit is off, else a ``clone`` (which materializes the conjugation)."""
    if not is_conj(self):
        return self
    return aten.clone.default(self)


@impl("resolve_neg", "CompositeImplicitAutograd")
def resolve_neg(self: Tensor) -> Tensor:
    if not is_neg(self):
        return self
    return aten.clone.default(self)


# --- physical conjugation ----------------------------------------------------------------------------------


@impl("conj_physical", "CompositeImplicitAutograd")
def conj_physical(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        return self
    return aten._conj_physical.default(self)


@impl("_conj_physical", "CompositeExplicitAutograd")
def _conj_physical(self: Tensor) -> Tensor:
    """A new tensor holding conj(self) (a conj view's clone when the bit is set)."""
    if is_conj(self):
        return aten.clone.default(aten._conj.default(self))
    out = aten.empty_like.default(self)
    if out._data is not None and out._data.size:
        out._data[...] = np.conj(self._data)
    return out


@impl("conj_physical_", "CompositeExplicitAutograd")
def conj_physical_(self: Tensor) -> Tensor:
    """Conjugates ``self``'s storage in place (its conjugate bit, if any, is left as it is)."""
    if not self._dtype.is_complex:
        return self
    if self._data is not None and self._data.size:
        self._data[...] = np.conj(self._data)
    return self


# --- real / imag and the dtype views ------------------------------------------------------------------------


@impl("real", "CompositeImplicitAutograd")
def real(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        return self
    real_tensor = aten.view_as_real.default(aten._conj.default(self) if is_conj(self) else self)
    return aten.select.int(real_tensor, real_tensor.dim() - 1, 0)


@impl("imag", "CompositeImplicitAutograd")
def imag(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if is_conj(self):
        # imag(conj(z)) = -imag(z): the storage's imaginary parts under the negative bit
        real_tensor = aten._neg_view.default(aten.view_as_real.default(aten._conj.default(self)))
    else:
        real_tensor = aten.view_as_real.default(self)
    return aten.select.int(real_tensor, real_tensor.dim() - 1, 1)


_TO_REAL = {"complex64": _dt.float32, "complex128": _dt.float64}
_TO_COMPLEX = {"float32": _dt.complex64, "float64": _dt.complex128}


@impl("view_as_real", "CPU", "Meta")
def view_as_real(self: Tensor) -> Tensor:
    """The complex tensor's storage read as (..., 2) reals: strides doubled, a last dim of stride 1."""
    if is_conj(self):
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so you "
            "can view it as real, use self.resolve_conj(); however, be warned that the resulting tensor will NOT "
            "alias the original.")
    if not self._dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    real_dtype = _TO_REAL[self._dtype.name]
    storage = self._storage
    if storage is not None:
        storage = storage.view(real_dtype.np_dtype)
    shape = tuple(self._shape) + (2,)
    stride = tuple(2 * s for s in self._stride) + (1,)
    return copy_bits(_dtype_view(self, storage, shape, stride, 2 * self._storage_offset, real_dtype), self)


@impl("view_as_complex", "CPU", "Meta")
def view_as_complex(self: Tensor) -> Tensor:
    """A (..., 2) float tensor's storage read as complex numbers (the last dim must be 2 with stride 1)."""
    if self._dtype.name not in ("float32", "float64", "float16"):
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {scalar_type_name(self._dtype)}")
    if not self._shape:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if self._shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if self._stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in self._stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._storage_offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if self._dtype.name == "float16":
        raise NotImplementedError("view_as_complex: complex32 (ComplexHalf) does not exist in dispatchkit")
    complex_dtype = _TO_COMPLEX[self._dtype.name]
    storage = self._storage
    if storage is not None:
        storage = storage[: storage.size // 2 * 2].view(complex_dtype.np_dtype)
    shape = tuple(self._shape[:-1])
    stride = tuple(s // 2 for s in self._stride[:-1])
    return copy_bits(_dtype_view(self, storage, shape, stride, self._storage_offset // 2, complex_dtype), self)

