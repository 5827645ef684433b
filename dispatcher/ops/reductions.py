"""Reduction kernels: ``sum`` / ``mean`` / ``prod`` / ``nansum`` / ``nanmean``, ``amax`` / ``amin`` / ``aminmax``,
``max`` / ``min`` (all, and ``.dim``), ``argmax`` / ``argmin``, ``all`` / ``any``, ``logsumexp``,
``linalg_vector_norm``, and the CompositeImplicitAutograd ``sum_to_size`` and ``value_selecting_reduction_backward``.

Corresponds to aten/src/ATen/native/ReduceOps.cpp (the structured meta functions and ``resize_reduction``),
TensorCompare.cpp (``max.dim`` / ``min.dim``) and LinearAlgebra.cpp (``linalg_vector_norm``, what ``torch.norm``
calls). Every reduction's output is contiguous, as ``resize_reduction`` allocates it. Dims are wrapped and checked
for duplicates like ``make_dim_mask``; reductions over zero-size dims raise where PyTorch's
``zero_numel_check_dims`` does. Floating sums accumulate in float64 and are rounded to the result dtype once
(PyTorch's cascade sums are more precise than a plain float32 loop). ``sum`` / ``mean`` with no dims and
``logsumexp`` are CompositeExplicitAutograd; ``nanmean`` is CompositeImplicitAutograd, computed as PyTorch's
composite does. The variance family is in reductions_std_var.py, the cumulative ops in reductions_cumulative.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .composite import _op, is_tensor_subclass_like
from .fp_errors import ignoring_fp_errors
from .kernel_dtypes import is_meta
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, scalar_type_name, wrap_dim

aten = namespace("aten")


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
    # (inf + -inf is nan without a warning, as in PyTorch)
    return ignoring_fp_errors(_add_reduce, arr, dims, _accumulate_dtype(out), keepdim)


def _add_reduce(arr: np.ndarray, dims: tuple[int, ...], dtype: Any, keepdim: bool) -> np.ndarray:
    return np.add.reduce(arr, axis=dims, dtype=dtype, keepdims=keepdim)


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


# --- nansum / nanmean / aminmax ------------------------------------------------------------------------


@impl("nansum", "CPU", "Meta")
def nansum(self: Tensor, dim: Sequence[int] | None = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    out = sum_dtype(self, dtype)
    dims = reduction_dims(dim, self.dim())
    meta = reduction_meta(self, dims, keepdim, out)

    def compute() -> np.ndarray:
        arr = self._data
        if arr.dtype.kind == "f":
            arr = np.where(np.isnan(arr), arr.dtype.type(0), arr)
        return _sum_values(arr.astype(out.np_dtype, copy=False), dims, keepdim, out)

    return materialize(meta, compute, self)


@impl("nanmean", "CompositeImplicitAutograd")
def nanmean(self: Tensor, dim: Sequence[int] | None = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{scalar_type_name(self._dtype)}")
    d = _op("detach")(self)
    factor = _op("logical_not_")(_op("ne.Tensor")(d, d))  # at::native::isnan(self).logical_not_()
    factor = _op("sum.dim_IntList")(factor, dim, True) if keepdim else _op("sum.dim_IntList")(factor, dim)
    args: list[Any] = [] if dim is None and not keepdim else [dim]
    if keepdim:
        args.append(True)
    total = _op("nansum")(self, *args, dtype=dtype) if dtype is not None else _op("nansum")(self, *args)
    return _op("div.Tensor")(total, factor)


@impl("aminmax", "CPU", "Meta")
def aminmax(self: Tensor, *, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        dims: tuple[int, ...] = tuple(range(self.dim()))
    else:
        if self.numel() == 0:
            zero_numel_check_dim(self, dim, "aminmax")
        dims = reduction_dims([dim], self.dim()) if self.dim() else ()
    meta = reduction_meta(self, dims, keepdim, self._dtype)
    if dim is None and keepdim and not self.dim():
        meta = TensorMeta((), (), self._dtype)

    def reduce(fn: Any) -> Any:
        return lambda: fn(self._data, axis=dims, keepdims=keepdim)

    return materialize(meta, reduce(np.min), self), materialize(meta, reduce(np.max), self)


# --- prod / all / any ---------------------------------------------------------------------------------------


def _prod_dtype(self: Tensor, dtype: Any) -> _dt.dtype:
    """``prod``'s result dtype: ``dtype=``, else int64 for bool / integral input, else the input's (as ``sum``)."""
    if dtype is not None:
        return _dt.from_code(dtype)
    d = self._dtype
    return _dt.int64 if (d is _dt.bool or not (d.is_floating_point or d.is_complex)) else d


def _prod(self: Tensor, dims: tuple[int, ...], keepdim: bool, out: _dt.dtype) -> Tensor:
    meta = reduction_meta(self, dims, keepdim, out)

    def compute() -> np.ndarray:
        acc = np.float64 if out.is_floating_point else out.np_dtype
        with np.errstate(over="ignore", invalid="ignore"):
            return np.multiply.reduce(self._data.astype(acc), axis=dims, keepdims=keepdim)

    return materialize(meta, compute, self)


@impl("prod", "CPU", "Meta")
def prod(self: Tensor, *, dtype: Any = None) -> Tensor:
    return _prod(self, tuple(range(self.dim())), False, _prod_dtype(self, dtype))


@impl("prod.dim_int", "CPU", "Meta")
def prod_dim_int(self: Tensor, dim: int, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    d = wrap_dim(dim, self.dim())
    return _prod(self, (d,) if self.dim() else (), keepdim, _prod_dtype(self, dtype))


def _logical_reduce(np_fn: Any, self: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """all / any: a bool result (uint8 for uint8 input, a legacy mask convention)."""
    out = _dt.uint8 if self._dtype is _dt.uint8 else _dt.bool
    meta = reduction_meta(self, dims, keepdim, out)
    return materialize(meta, lambda: np_fn(self._data.astype(bool), axis=dims, keepdims=keepdim), self)


def _logical_kernels(name: str, np_fn: Any) -> None:
    def full(self: Tensor) -> Tensor:
        return _logical_reduce(np_fn, self, tuple(range(self.dim())), False)

    def one_dim(self: Tensor, dim: int, keepdim: bool = False) -> Tensor:
        d = wrap_dim(dim, self.dim())
        return _logical_reduce(np_fn, self, (d,) if self.dim() else (), keepdim)

    def dims(self: Tensor, dim: Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        if dim is not None and len(dim) == 0:  # no dims: nothing reduced, only the conversion to bool
            return _logical_reduce(np_fn, self, (), keepdim)
        return _logical_reduce(np_fn, self, reduction_dims(dim, self.dim()), keepdim)

    impl(name, "CPU", "Meta")(full)
    impl(f"{name}.dim", "CPU", "Meta")(one_dim)
    impl(f"{name}.dims", "CompositeExplicitAutograd")(dims)


_logical_kernels("all", np.all)
_logical_kernels("any", np.any)


# --- logsumexp ---------------------------------------------------------------------------------------


@impl("logsumexp", "CompositeExplicitAutograd")
def logsumexp(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    """log(sum(exp(self))) over ``dim``, shifted by the (finite) max for stability; integers compute in float."""
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        self = aten._to_copy.default(self, dtype=_dt.get_default_dtype())
    dims = list(dim)
    if self.numel() == 0:
        return aten.log.default(aten.sum.dim_IntList(aten.exp.default(self), dims, keepdim))
    maxes = aten.amax.default(self, dims, True)
    if not keepdim and not dims and self.dim() > 0:  # ATen adds a kept-dims max into the all-reduced result
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {list(maxes.shape)}")
    infinite = aten.eq.Scalar(aten.abs.default(maxes), math.inf)  # an all-inf slice: shift by 0, not by inf
    maxes = aten.where.self(infinite, aten.scalar_tensor.default(0.0, dtype=self._dtype, device=self._device),
                            maxes)
    squeezed = maxes if keepdim or not dims else aten.squeeze.dims(maxes, dims)
    total = aten.sum.dim_IntList(aten.exp.default(aten.sub.Tensor(self, maxes)), dims, keepdim)
    return aten.add.Tensor(aten.log.default(total), squeezed)


# --- linalg_vector_norm -----------------------------------------------------------------------------------


def _scalar_str(v: Any) -> str:
    """A Scalar as c10 prints it: 2.0 -> "2", inf -> "inf"."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


@impl("linalg_vector_norm", "CPU", "Meta")
def linalg_vector_norm(self: Tensor, ord: Any = 2, dim: Sequence[int] | None = None, keepdim: bool = False, *,  # noqa: A002
                       dtype: Any = None) -> Tensor:
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {scalar_type_name(self._dtype)}")
    if dtype is not None:
        dtype = _dt.from_code(dtype)
        if _dt.promote_types(self._dtype, dtype) is not dtype:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({scalar_type_name(self._dtype)}) "
                               f"should be convertible without narrowing to the specified dtype "
                               f"({scalar_type_name(dtype)})")
    dims = reduction_dims(dim, self.dim())
    p = float(ord)
    if p < 0 or math.isinf(p):
        if not (dim is not None and len(dim)) and self.numel() == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_scalar_str(ord)} norm on an empty tensor "
                               "because the operation does not have an identity")
        for d in (dims if dim is not None and len(dim) else ()):
            if self._shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_scalar_str(ord)} norm on the dimension "
                                   f"{d}because this dimension is empty and the operation does not have an identity")
    out = (dtype or self._dtype).to_real()
    meta = reduction_meta(self, dims, keepdim, out)

    def compute() -> np.ndarray:
        a = np.abs(self._data.astype(np.float64))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if p == math.inf:
                return np.max(a, axis=dims, keepdims=keepdim)
            if p == -math.inf:
                return np.min(a, axis=dims, keepdims=keepdim)
            if p == 0:
                return np.sum(a != 0, axis=dims, keepdims=keepdim).astype(np.float64)
            if p == 1:
                return np.sum(a, axis=dims, keepdims=keepdim)
            if p == 2:
                return np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
            return np.sum(a ** p, axis=dims, keepdims=keepdim) ** (1.0 / p)

    return materialize(meta, compute, self)


def _check_norm_input(self: Tensor) -> None:
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {scalar_type_name(self._dtype)} instead.")


@impl("norm.Scalar", "CompositeExplicitAutograd")
def norm_scalar(self: Tensor, p: Any = 2) -> Tensor:
    """``Tensor.norm(p)``: the vector norm of all elements (ReduceOps.cpp's ``norm``)."""
    _check_norm_input(self)
    return aten.linalg_vector_norm.default(self, p)


@impl("norm.ScalarOpt_dim", "CPU", "Meta")
def norm_scalaropt_dim(self: Tensor, p: Any, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    """``Tensor.norm(p, dim, keepdim)``: the structured ``norm_out``, ``linalg_vector_norm`` with ``p`` 2 if None."""
    _check_norm_input(self)
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim)


# --- sum_to_size (CompositeImplicitAutograd) -----------------------------------------------------------


@impl("sum_to_size", "CompositeImplicitAutograd")
def sum_to_size(self: Tensor, size: list[int]) -> Tensor:
    shape = list(size)
    sizes = self._shape
    expandable = len(shape) <= len(sizes) and all(
        s == t or s == 1 for s, t in zip(reversed(shape), reversed(sizes))
    )
    if not expandable:
        raise RuntimeError(f"size {{{shape}}} is not expandable to size {{{list(sizes)}}}.")
    if not shape:
        return _op("sum")(self)
    leading = len(sizes) - len(shape)
    reduce_dims = list(range(leading)) + [
        i for i in range(leading, len(sizes)) if shape[i - leading] == 1 and sizes[i] != 1
    ]
    t = self
    if reduce_dims:
        t = _op("sum.dim_IntList")(t, reduce_dims, True)
    return _op("view")(t, shape) if leading > 0 else t


# --- value_selecting_reduction_backward (ReduceOps.cpp) -----------------------------------------------


@impl("value_selecting_reduction_backward", "CompositeImplicitAutograd")
def value_selecting_reduction_backward(grad: Tensor, dim: int, indices: Tensor, sizes: Any, keepdim: bool) -> Tensor:
    """The backward of max.dim / min.dim / sort ...: put each gradient at its index along ``dim``, zeros elsewhere.

    With a dispatch mode (or a tensor subclass) the scatter is out of place, else in place into the zeros.
    """
    if not keepdim and len(sizes) > 0:
        grad = _op("unsqueeze")(grad, dim)
        indices = _op("unsqueeze")(indices, dim)
    grad_in = _op("new_zeros")(grad, list(sizes))
    if is_tensor_subclass_like(grad) or is_tensor_subclass_like(indices):
        return _op("scatter.src")(grad_in, dim, indices, grad)
    return _op("scatter_.src")(grad_in, dim, indices, grad)
