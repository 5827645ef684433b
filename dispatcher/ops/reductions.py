"""Reduction kernels: ``sum``, ``mean``, ``amax`` / ``amin``, ``max`` / ``min``, ``argmax`` / ``argmin``, ``var``.

Corresponds to aten/src/ATen/native/ReduceOps.cpp (the structured meta functions
and ``resize_reduction``) and TensorCompare.cpp (``max.dim`` / ``min.dim``).
Every reduction's output is contiguous, as ``resize_reduction`` allocates it.
Dims are wrapped and checked for duplicates like ``make_dim_mask``; reductions
over zero-size dims raise where PyTorch's ``zero_numel_check_dims`` does.

Numerics: floating sums accumulate in float64 and are rounded to the result
dtype once (PyTorch's cascade sums are more precise than a plain float32 loop;
float64 keeps us within float32 rounding of them). ``sum`` and ``mean`` with
no dims are CompositeExplicitAutograd calls of their ``dim`` overloads.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, wrap_dim

aten = namespace("aten")

# c10's ScalarType names, as PyTorch's messages print them ("Got: Long").
SCALAR_TYPE_NAME = {
    "float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int", "int16": "Short",
    "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


def scalar_type_name(d: _dt.dtype) -> str:
    """``Float`` for float32 (c10::toString(ScalarType))."""
    return SCALAR_TYPE_NAME[d.name]


def is_meta(t: Tensor) -> bool:
    return t._device.type == "meta"


def not_implemented(kernel: str, d: _dt.dtype) -> NotImplementedError:
    """PyTorch's error for a CPU kernel without a dtype case (``"bmm" not implemented for 'Bool'``)."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(d)}\'')


# --- shared shape logic ----------------------------------------------------------------------------


def reduction_dims(dim: Sequence[int] | int | None, ndim: int) -> tuple[int, ...]:
    """Wrapped reduced dims (all dims for None / []), with PyTorch's duplicate-dim error (make_dim_mask)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    if len(dim) == 0:
        return tuple(range(ndim))
    seen: list[int] = []
    for d in dim:
        w = wrap_dim(d, max(ndim, 1))  # PyTorch wraps a 0-dim tensor's dims as if it had one dim
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.append(w)
    if ndim == 0:
        return ()
    return tuple(sorted(seen))


def reduction_shape(shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return tuple([1 if i in dims else s for i, s in enumerate(shape)])
    return tuple([s for i, s in enumerate(shape) if i not in dims])


def reduction_meta(self: Tensor, dims: tuple[int, ...], keepdim: bool, dtype: _dt.dtype) -> TensorMeta:
    shape = reduction_shape(self._shape, dims, keepdim)
    return TensorMeta(shape, contiguous_strides(shape), dtype)


def zero_numel_check_dims(self: Tensor, dims: Sequence[int], fn: str) -> None:
    """Reducing an empty tensor needs explicit dims, none of them of size zero (raw dims are printed)."""
    if len(dims) == 0:
        raise RuntimeError(
            f"{fn}: Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    for d in dims:
        zero_numel_check_dim(self, d, fn)


def zero_numel_check_dim(self: Tensor, dim: int, fn: str) -> None:
    if self.dim() == 0:
        if dim not in (0, -1):
            raise IndexError(f"{fn}: Expected reduction dim -1 or 0 for scalar but got {dim}")
        return
    if self._shape[wrap_dim(dim, self.dim())] == 0:
        raise IndexError(f"{fn}: Expected reduction dim {dim} to have non-zero size.")


def _accumulate_dtype(d: _dt.dtype) -> Any:
    """NumPy dtype sums accumulate in: float64 for floating results, the result dtype otherwise."""
    return np.float64 if d.is_floating_point else d.np_dtype


def _sum_values(arr: np.ndarray, dims: tuple[int, ...], keepdim: bool, out: _dt.dtype) -> np.ndarray:
    """``arr`` (already of the result dtype) summed over ``dims``."""
    if out is _dt.bool:
        return np.any(arr, axis=dims, keepdims=keepdim)
    # (np.add.reduce is what np.sum calls for an ndarray, without its Python-level dispatch)
    return np.add.reduce(arr, axis=dims, dtype=_accumulate_dtype(out), keepdims=keepdim)


# --- sum / mean --------------------------------------------------------------------------------------


def sum_dtype(self: Tensor, dtype: Any) -> _dt.dtype:
    """The result dtype of ``sum``: ``dtype=``, else int64 for bool / integer input, else the input's."""
    if dtype is not None:
        return _dt.from_code(dtype)
    d = self._dtype
    return _dt.int64 if (d is _dt.bool or not (d.is_floating_point or d.is_complex)) else d


@impl("sum.dim_IntList", "CPU", "Meta")
def sum_dim_intlist(self: Tensor, dim: Sequence[int] | None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    out = sum_dtype(self, dtype)
    dims = reduction_dims(dim, self.dim())
    meta = reduction_meta(self, dims, keepdim, out)
    return materialize(meta, lambda: _sum_values(self._data.astype(out.np_dtype, copy=False), dims, keepdim, out),
                       self)


@impl("sum", "CompositeExplicitAutograd")
def sum_default(self: Tensor, *, dtype: Any = None) -> Tensor:
    if dtype is None:  # (the same call: binding drops a keyword argument equal to its default)
        return aten.sum.dim_IntList(self, [], False)
    return aten.sum.dim_IntList(self, [], False, dtype=dtype)


def mean_dtype(self: Tensor, dtype: Any) -> _dt.dtype:
    if dtype is not None:
        out = _dt.from_code(dtype)
        if not (out.is_floating_point or out.is_complex):
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex "
                f"dtype. Got: {scalar_type_name(out)}"
            )
        return out
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {scalar_type_name(self._dtype)}"
        )
    return self._dtype


@impl("mean.dim", "CPU", "Meta")
def mean_dim(self: Tensor, dim: Sequence[int] | None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    out = mean_dtype(self, dtype)
    dims = reduction_dims(dim, self.dim())
    meta = reduction_meta(self, dims, keepdim, out)

    def compute() -> np.ndarray:
        count = 1
        for d in dims:
            count *= self._shape[d]
        total = _sum_values(self._data.astype(out.np_dtype, copy=False), dims, keepdim, out)
        with np.errstate(invalid="ignore", divide="ignore"):
            return total / count if count else total * np.nan

    return materialize(meta, compute, self)


@impl("mean", "CompositeExplicitAutograd")
def mean_default(self: Tensor, *, dtype: Any = None) -> Tensor:
    if dtype is None:  # (the same call: binding drops a keyword argument equal to its default)
        return aten.mean.dim(self, [], False)
    return aten.mean.dim(self, [], False, dtype=dtype)


# --- amax / amin / max / min ---------------------------------------------------------------------------


def _amax_amin(fn: str, np_fn: Any, self: Tensor, dim: Sequence[int], keepdim: bool) -> Tensor:
    dim = list(dim) if dim is not None else []
    if self.numel() == 0:
        zero_numel_check_dims(self, dim, f"{fn}()")
    dims = reduction_dims(dim, self.dim())
    meta = reduction_meta(self, dims, keepdim, self._dtype)
    return materialize(meta, lambda: np_fn(self._data, axis=dims, keepdims=keepdim), self)


@impl("amax", "CPU", "Meta")
def amax(self: Tensor, dim: Sequence[int] = (), keepdim: bool = False) -> Tensor:
    return _amax_amin("amax", np.max, self, dim, keepdim)


@impl("amin", "CPU", "Meta")
def amin(self: Tensor, dim: Sequence[int] = (), keepdim: bool = False) -> Tensor:
    return _amax_amin("amin", np.min, self, dim, keepdim)


def _full_reduce(fn: str, np_fn: Any, self: Tensor) -> Tensor:
    if self.numel() == 0:
        raise RuntimeError(
            f"{fn}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    meta = TensorMeta((), (), self._dtype)
    return materialize(meta, lambda: np_fn(self._data), self)


@impl("max", "CPU", "Meta")
def max_default(self: Tensor) -> Tensor:
    return _full_reduce("max", np.max, self)


@impl("min", "CPU", "Meta")
def min_default(self: Tensor) -> Tensor:
    return _full_reduce("min", np.min, self)


def _arg_along(np_arg: Any, data: np.ndarray, dim: int | None, keepdim: bool) -> np.ndarray:
    """First index of the extreme value along ``dim`` (NaN counts as extreme, as in PyTorch)."""
    if data.ndim == 0:
        return np.zeros((1,) * 0, dtype=np.int64)
    if dim is None:
        idx = np_arg(data.reshape(-1))
        return np.full((1,) * data.ndim if keepdim else (), idx, dtype=np.int64)
    idx = np_arg(data, axis=dim)
    return np.expand_dims(idx, dim) if keepdim else idx


def _max_min_dim(fn: str, np_fn: Any, np_arg: Any, self: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    d = wrap_dim(dim, max(self.dim(), 1))
    if self.numel() == 0:
        zero_numel_check_dim(self, d, f"{fn}()")
    dims = (d,) if self.dim() else ()
    values_meta = reduction_meta(self, dims, keepdim, self._dtype)
    indices_meta = TensorMeta(values_meta.shape, values_meta.stride, _dt.int64)
    if self.dim() == 0:
        values = materialize(values_meta, lambda: self._data.copy(), self)
        return values, materialize(indices_meta, lambda: np.zeros((), np.int64), self)
    values = materialize(values_meta, lambda: np_fn(self._data, axis=d, keepdims=keepdim), self)
    indices = materialize(indices_meta, lambda: _arg_along(np_arg, self._data, d, keepdim), self)
    return values, indices


@impl("max.dim", "CPU", "Meta")
def max_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _max_min_dim("max", np.max, np.argmax, self, dim, keepdim)


@impl("min.dim", "CPU", "Meta")
def min_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _max_min_dim("min", np.min, np.argmin, self, dim, keepdim)


# --- argmax / argmin ----------------------------------------------------------------------------------


def _argmax_argmin(fn: str, np_arg: Any, self: Tensor, dim: int | None, keepdim: bool) -> Tensor:
    if self._dtype is _dt.bool and not is_meta(self):
        raise RuntimeError(f"{fn}(): does not support bool input")
    if dim is not None:
        d = wrap_dim(dim, max(self.dim(), 1))
        zero_numel_check_dim(self, d, f"{fn}()")
        meta = reduction_meta(self, (d,) if self.dim() else (), keepdim, _dt.int64)
    else:
        if self.numel() == 0:
            raise IndexError(f"{fn}(): Expected reduction dim to be specified for input.numel() == 0.")
        d = None
        shape = (1,) * self.dim() if keepdim else ()
        meta = TensorMeta(shape, contiguous_strides(shape), _dt.int64)
    return materialize(meta, lambda: _arg_along(np_arg, self._data, d, keepdim), self)


@impl("argmax", "CPU", "Meta")
def argmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _argmax_argmin("argmax", np.argmax, self, dim, keepdim)


@impl("argmin", "CPU", "Meta")
def argmin(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _argmax_argmin("argmin", np.argmin, self, dim, keepdim)


# --- var ----------------------------------------------------------------------------------------------


def moments(self: Tensor, dim: Sequence[int] | None, correction: Any, keepdim: bool, fn: str) -> tuple[Any, ...]:
    """Shared shape logic of the var / std family: (dims, result meta, divisor, reduced element count); warns as
    PyTorch when the divisor is not positive (``fn`` names the op)."""
    dims = reduction_dims(dim, self.dim())
    meta = reduction_meta(self, dims, keepdim, self._dtype.to_real())
    correction = 1 if correction is None else correction
    count = 1
    for d in dims:
        count *= self._shape[d]
    divisor = max(count - correction, 0)
    if divisor <= 0:
        warnings.warn(
            f"{fn}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
            "(input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    return dims, meta, divisor, count


@impl("var.correction", "CPU", "Meta")
def var_correction(
    self: Tensor, dim: Sequence[int] | None = None, *, correction: Any = None, keepdim: bool = False
) -> Tensor:
    if not (self._dtype.is_floating_point or self._dtype.is_complex) and not is_meta(self):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims, meta, divisor, count = moments(self, dim, correction, keepdim, "var")

    def compute() -> np.ndarray:
        x = self._data.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = np.sum(x, axis=dims, keepdims=True) / count if count else np.full_like(x, np.nan)
            sq = np.sum((x - mu) ** 2, axis=dims, keepdims=keepdim)
            return sq / divisor if divisor else sq / 0.0

    return materialize(meta, compute, self)
