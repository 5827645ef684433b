"""What the pointwise kernels share: TensorIterator's output metadata, the CPU kernels' dtype switch, in-place stores.

Corresponds to aten/src/ATen/TensorIterator.cpp (broadcast shape, promoted dtype, output strides following the
inputs' layout: ``binary_meta``, ``iter_meta``, ``unary_meta``; an output argument's checks: ``_store``,
``inplace_from``, ``inplace_checked``), the ``AT_DISPATCH`` dtype switch of the CPU kernels (``_require_dtype``,
raising ``"abs_cpu" not implemented for 'Bool'`` on CPU only, so a Meta run succeeds where PyTorch's does) and
the "opmath" type the CPU kernels compute in (float32 for float16, ``_opmath``). One function serves as an op's
Meta and CPU kernel: ``_run`` materializes the metadata and, on CPU, computes the values with NumPy's
floating-point warnings off (PyTorch gives inf / nan silently). ``_unary_float`` makes the kernel of a unary op
computed in floating point (integral inputs give the default float dtype).

The family modules import this module as ``_pw`` (pointwise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import dtypes as _dtypes
from ..tensor import Tensor, contiguous_strides, device
from .fp_errors import ignoring_fp_errors
from .memory_overlap import _check_no_internal_overlap
from .meta_utils import (
    TensorMeta,
    broadcast_shapes,
    check_inplace,
    elementwise_strides,
    materialize,
    np_operand,
    preserve_format_strides,
    scalar_type_name,
)

_META = device("meta")

_bool, _float16, _float32, _float64 = _dt.bool, _dt.float16, _dt.float32, _dt.float64
_pybool, _pyint, _pyfloat = bool, int, float  # the module's names stay Python's


# --- metadata ---------------------------------------------------------------------------------


def _shape(x: Any) -> tuple[int, ...]:
    return x._shape if isinstance(x, Tensor) else ()


def binary_meta(a: Any, b: Any, dtype: _dt.dtype | None = None, common: _dt.dtype | None = None) -> TensorMeta:
    """Broadcast shape, promoted dtype (or ``dtype``), TensorIterator strides.

    ``common`` is the dtype the inputs are computed in (default: their promoted dtype); on CPU,
    PyTorch converts an input of another dtype first, which can change its layout.
    """
    if isinstance(b, Tensor) and isinstance(a, Tensor) and a._shape == b._shape and a._contiguous and b._contiguous:
        # The common case: same shape, both contiguous.
        if dtype is None:
            dtype = a._dtype if a._dtype is b._dtype else _dt.result_type(a, b)
        return TensorMeta(a._shape, contiguous_strides(a._shape), dtype)
    shape = broadcast_shapes(_shape(a), _shape(b))
    if common is None:
        common = _dt.result_type(a, b)
    stride = elementwise_strides(shape, (_as_dtype_layout(a, common), _as_dtype_layout(b, common)))
    return TensorMeta(shape, stride, dtype or common)


def iter_meta(operands: tuple[Any, ...], dtype: _dt.dtype) -> TensorMeta:
    """TensorIterator metadata for inputs (Tensors or Python numbers) computed in ``dtype``."""
    shape = broadcast_shapes(*(_shape(x) for x in operands))
    return TensorMeta(shape, elementwise_strides(shape, [_as_dtype_layout(x, dtype) for x in operands]), dtype)


def _as_dtype_layout(x: Any, dtype: _dt.dtype) -> Any:
    """A stand-in with the layout of ``x.to(dtype)`` (PyTorch converts CPU inputs to the common dtype first)."""
    if not isinstance(x, Tensor) or x._dtype is dtype or not x._shape:
        return x
    stride = preserve_format_strides(x)
    return x if stride == x._stride else Tensor._empty(x._shape, dtype, _META, stride)


def unary_meta(self: Tensor, dtype: _dt.dtype | None = None) -> TensorMeta:
    """A unary op's output: self's shape; self's layout when dense, else dense in self's dim order."""
    if self._contiguous and self._shape:
        return TensorMeta(self._shape, contiguous_strides(self._shape), dtype or self._dtype)
    return TensorMeta(self._shape, elementwise_strides(self._shape, (self,)), dtype or self._dtype)


def _converted_meta(self: Tensor, dtype: _dt.dtype) -> TensorMeta:
    """Unary op on ``self.to(dtype)``: the conversion copy (preserve format) decides the layout."""
    if dtype is self._dtype:
        return unary_meta(self)
    stride = preserve_format_strides(self)
    copy = Tensor._empty(self._shape, dtype, _META, stride)
    return unary_meta(copy, dtype)


def _opmath(dt: _dt.dtype) -> _dt.dtype:
    """The dtype PyTorch's CPU kernels compute in: float32 for float16, else the dtype itself."""
    return _float32 if dt is _float16 else dt


def _float_result(dt: _dt.dtype) -> _dt.dtype:
    """Integral (and bool) inputs of a floating op give the default float dtype."""
    return dt if dt.is_floating_point or dt.is_complex else _dt.get_default_dtype()


def _is_cpu(x: Any) -> bool:
    return isinstance(x, Tensor) and x._data is not None


def _not_implemented(kernel: str, dt: _dt.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dt)}\'')


def _require_dtype(kernel: str, dt: _dt.dtype, device_like: Any, ok: Callable[[_dt.dtype], bool]) -> None:
    """The CPU kernel's dtype dispatch: raise PyTorch's NotImplementedError (CPU only, as PyTorch)."""
    if not ok(dt) and _is_cpu(device_like):
        raise _not_implemented(kernel, dt)


def _is_float(dt: _dt.dtype) -> bool:
    return dt.is_floating_point


def _not_bool(dt: _dt.dtype) -> bool:
    return dt is not _bool


def _run(meta: TensorMeta, device_like: Any, fn: Callable[[], Any]) -> Tensor:
    """``materialize`` with NumPy's floating-point warnings off (PyTorch gives inf / nan silently)."""
    if device_like._data is None:
        return materialize(meta, None, device_like)
    return materialize(meta, ignoring_fp_errors(fn), device_like)


def _write(out: np.ndarray, fn: Callable[..., Any], *args: Any) -> None:
    """An in-place kernel's store: ``out[...] = fn(*args)`` (call it through ``ignoring_fp_errors``)."""
    out[...] = fn(*args)


def _operand(x: Any, dtype: _dt.dtype) -> Any:
    return np_operand(x, _opmath(dtype))


# --- unary ----------------------------------------------------------------------------------------


def _unary_float(kernel: str, fn: Callable[[np.ndarray], Any]) -> Callable[[Tensor], Tensor]:
    """A unary op computing in floating point: integral and bool inputs give the default float dtype."""

    def unary(self: Tensor) -> Tensor:
        dtype = self._dtype
        if (dtype is _float32 or dtype is _float64) and self._contiguous and self._shape:
            # the hot case (unary_meta's first branch, no conversion): contiguous output of self's dtype
            meta = TensorMeta(self._shape, contiguous_strides(self._shape), dtype)
            if self._data is None:
                return materialize(meta, None, self)
            return materialize(meta, ignoring_fp_errors(fn, self._data), self)
        dtype = _float_result(dtype)
        meta = _converted_meta(self, dtype) if dtype is not self._dtype else unary_meta(self)
        return _run(meta, self, lambda: fn(_operand(self, dtype)))

    unary.__name__ = kernel
    unary.__doc__ = f"aten::{kernel}, computed in floating point."
    return unary


# c10's names of the C++ types, as messages print them ("long int")
_C_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
    "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int",
}


def _integral(dt: _dt.dtype) -> bool:
    return not (dt.is_floating_point or dt.is_complex)


def _tensor_of(self: Any, other: Any) -> Tensor:
    """The argument that decides the output's device (a Python number stands for a wrapped 0-dim tensor)."""
    return self if isinstance(self, Tensor) else other


# --- dtype checks and promotion of several inputs ---------------------------------------------------------------


def _same_dtype(expected: Any, *tensors: Tensor) -> None:
    """TensorIterator's check that the inputs have the common dtype (no type promotion)."""
    for t in tensors:
        if t._dtype is not expected:
            raise RuntimeError(f"Found dtype {scalar_type_name(t._dtype)} but expected {scalar_type_name(expected)}")


def _dt_result(*tensors: Tensor) -> Any:
    return _dtypes.result_type(*tensors)


# --- in-place kernels: an out-of-place kernel's result stored into self -----------------------------------------


def _copy_unsafe(dst: np.ndarray, src: np.ndarray) -> None:
    np.copyto(dst, src, casting="unsafe")


def _store(self: Tensor, result: Tensor, overlap: bool = True) -> Tensor:
    """Write ``result`` (an out-of-place kernel's output) into ``self``: TensorIterator's output checks first
    (the memory-overlap one unless ``overlap`` is False)."""
    if overlap:
        _check_no_internal_overlap(self)
    check_inplace(self, result._shape, result._dtype, overlap)
    if self._data is not None and result._data is not None:
        ignoring_fp_errors(_copy_unsafe, self._data, result._data)
    return self


def inplace_from(kernel: Callable[..., Tensor], name: str, overlap: bool = True) -> Callable[..., Tensor]:
    """The in-place kernel ``name`` computing with the out-of-place ``kernel`` (``overlap``: check that no two
    elements of self share memory, as TensorIterator does unless an op turns it off)."""

    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _store(self, kernel(self, *args, **kwargs), overlap)

    inplace.__name__ = name
    inplace.__doc__ = f"aten::{name}: the out-of-place kernel's result stored into self."
    return inplace


def inplace_checked(kernel: Callable[[Any, Any], Tensor], name: str) -> Callable[[Tensor, Any], Tensor]:
    """``self op= other``: TensorIterator's output checks (shape, cast to self's dtype) first, then the kernel."""

    def inplace(self: Tensor, other: Any) -> Tensor:
        _check_no_internal_overlap(self)
        meta = binary_meta(self, other)
        check_inplace(self, meta.shape, meta.dtype)
        return _store(self, kernel(self, other))

    inplace.__name__ = name
    inplace.__doc__ = f"aten::{name}: the out-of-place kernel's result stored into self."
    return inplace
