"""More reduction kernels: ``std`` / ``var_mean`` / ``std_mean``, ``logsumexp``, ``prod``, ``all`` / ``any``,
``cumsum`` / ``cumprod`` and ``linalg_vector_norm`` (what ``torch.norm`` calls).

Corresponds to aten/src/ATen/native/ReduceOps.cpp (``std_var_kernel``, ``std_var_mean_out``,
``logsumexp``, ``prod``, ``all`` / ``any``, ``cumsum``), LinearAlgebra.cpp (``linalg_vector_norm``). The ``.correction`` overloads hold the kernels; their ``.dim`` and
``unbiased`` siblings (what ``x.std(1, unbiased=False)`` calls) are CompositeImplicitAutograd,
as in PyTorch: they call the ``.correction`` overload with ``correction`` 1 or 0, so only
pre-dispatch graphs show them. ``logsumexp`` is CompositeExplicitAutograd: one kernel
written with other aten ops serves every backend.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, wrap_dim
from .reductions import moments as _moments
from .reductions import reduction_dims, reduction_meta, scalar_type_name

aten = namespace("aten")


def _check_floating(self: Tensor, fn: str) -> None:
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError(f"{fn} only support floating point and complex dtypes")


def _var_values(x: np.ndarray, dims: tuple[int, ...], keepdim: bool, divisor: float, count: int) -> tuple[Any, Any]:
    """(variance, mean) in float64: the mean keeps the reduced dims only when ``keepdim``."""
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.sum(x, axis=dims, keepdims=True) / count if count else np.full_like(x, np.nan)
        sq = np.sum((x - mu) ** 2, axis=dims, keepdims=keepdim)
        var = sq / divisor if divisor else sq / 0.0
        if count == 0:
            mean = np.full(np.sum(x, axis=dims, keepdims=keepdim).shape, np.nan)
        else:
            mean = mu if keepdim else np.reshape(mu, var.shape)
    return var, mean


@impl("std.correction", "CPU", "Meta")
def std_correction(
    self: Tensor, dim: Sequence[int] | None = None, *, correction: Any = None, keepdim: bool = False
) -> Tensor:
    if self._device.type != "meta":
        _check_floating(self, "std and var")
    dims, meta, divisor, count = _moments(self, dim, correction, keepdim, "std")
    return materialize(meta, lambda: np.sqrt(_var_values(self._data, dims, keepdim, divisor, count)[0]), self)


def _var_mean_like(self: Tensor, dim: Any, correction: Any, keepdim: bool, fn: str, root: bool) -> tuple[Tensor, Tensor]:
    if self._device.type != "meta":
        _check_floating(self, fn)
    dims, meta, divisor, count = _moments(self, dim, correction, keepdim, fn)
    mean_meta = meta._replace(dtype=self._dtype)
    if self._device.type == "meta":
        return materialize(meta, None, self), materialize(mean_meta, None, self)
    var, mean = _var_values(self._data, dims, keepdim, divisor, count)
    return materialize(meta, np.sqrt(var) if root else var, self), materialize(mean_meta, mean, self)


@impl("var_mean.correction", "CPU", "Meta")
def var_mean_correction(
    self: Tensor, dim: Sequence[int] | None = None, *, correction: Any = None, keepdim: bool = False
) -> tuple[Tensor, Tensor]:
    return _var_mean_like(self, dim, correction, keepdim, "var_mean", root=False)


@impl("std_mean.correction", "CPU", "Meta")
def std_mean_correction(
    self: Tensor, dim: Sequence[int] | None = None, *, correction: Any = None, keepdim: bool = False
) -> tuple[Tensor, Tensor]:
    return _var_mean_like(self, dim, correction, keepdim, "std_mean", root=True)


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


# --- the unbiased= overloads (CompositeImplicitAutograd: they call the .correction ones) ----------------------


def _unbiased_overloads(name: str) -> None:
    """Register ``<name>.dim`` and ``<name>`` (``unbiased``): ``correction`` 1 when unbiased, else 0."""

    def dim_kernel(self: Tensor, dim: Sequence[int] | None, unbiased: bool = True, keepdim: bool = False) -> Any:
        kw: dict[str, Any] = {"correction": 1 if unbiased else 0}
        if keepdim:
            kw["keepdim"] = True
        op = getattr(aten, name).correction
        return op(self, **kw) if dim is None else op(self, dim, **kw)

    def default_kernel(self: Tensor, unbiased: bool = True) -> Any:
        return getattr(aten, name).correction(self, correction=1 if unbiased else 0)

    impl(f"{name}.dim", "CompositeImplicitAutograd")(dim_kernel)
    impl(name, "CompositeImplicitAutograd")(default_kernel)


for _name in ("var", "std", "var_mean", "std_mean"):
    _unbiased_overloads(_name)
del _name


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


# --- cumsum / cumprod -----------------------------------------------------------------------------------------


def _cumulative(np_fn: Any, self: Tensor, dim: int, dtype: Any) -> Tensor:
    d = wrap_dim(dim, self.dim())
    out = _prod_dtype(self, dtype)
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), out)

    def compute() -> np.ndarray:
        if self.dim() == 0:
            return self._data.astype(out.np_dtype)
        acc = np.float64 if out.is_floating_point else out.np_dtype
        with np.errstate(over="ignore", invalid="ignore"):
            return np_fn(self._data.astype(acc), axis=d)

    return materialize(meta, compute, self)


@impl("cumsum", "CPU", "Meta")
def cumsum(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _cumulative(np.cumsum, self, dim, dtype)


@impl("cumprod", "CPU", "Meta")
def cumprod(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _cumulative(np.cumprod, self, dim, dtype)


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
        for d in (dims if dim is not None and len(dim) else range(self.dim())):
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


# --- cumprod_backward (CompositeImplicitAutograd, as in PyTorch: its ops are what autograd and modes see) --------


def _reversed_cumsum(w: Tensor, dim: int) -> Tensor:
    return aten.flip.default(aten.cumsum.default(aten.flip.default(w, [dim]), dim), [dim])


def _cumprod_backward_quadratic(grad: Tensor, input: Tensor, dim: int, stack: bool) -> Tensor:  # noqa: A002
    """Each position's gradient from the products of the other elements (differentiable, unlike the O(n) one).

    The slices are copied into a zero tensor, or (``stack``: under a mode, composite compliant) stacked.
    """
    n = input._shape[dim]
    slices: list[Tensor] = []
    if not stack:
        grad_input = aten.zeros.default(list(input._shape), dtype=grad._dtype, layout=0, device=grad._device)
    ones_size = list(input._shape)
    ones_size[dim] = 1
    ones = aten.expand.default(aten.ones.default([1], dtype=grad._dtype, layout=0, device=grad._device), ones_size)
    for k in range(n):
        if k == 0:
            omitted = aten.cat.default([ones, aten.cumprod.default(aten.slice.Tensor(input, dim, 1), dim)],
                                       dim)
        elif k == n - 1:
            omitted = aten.prod.dim_int(aten.slice.Tensor(input, dim, 0, k), dim, True)
        else:
            until_k = aten.prod.dim_int(aten.slice.Tensor(input, dim, 0, k), dim, True)
            from_k_plus_1 = aten.cumprod.default(aten.slice.Tensor(input, dim, k + 1), dim)
            omitted = aten.mul.Tensor(aten.expand.default(until_k, list(from_k_plus_1._shape)), from_k_plus_1)
            omitted = aten.cat.default([until_k, omitted], dim)
        grad_slice = aten.sum.dim_IntList(aten.mul.Tensor(aten.slice.Tensor(grad, dim, k), omitted), [dim])
        if stack:
            slices.append(grad_slice)
        else:
            aten.copy_.default(aten.select.int(grad_input, dim, k), grad_slice)
    return aten.stack.default(slices, dim) if stack else grad_input


@impl("cumprod_backward", "CompositeImplicitAutograd")
def cumprod_backward(grad: Tensor, input: Tensor, dim: int, output: Tensor) -> Tensor:  # noqa: A002 - schema name
    """The gradient of ``cumprod``.

    Without zeros (checked only outside dispatch modes): the reversed cumulative sum of ``output * grad`` divided
    by ``input``. Otherwise, with grad mode off: positions before a slice's first zero take that formula, the
    first zero takes the product of the elements around it times the later gradients, later positions get 0.
    With grad mode on (double backward): the O(n^2) products of the other elements, slice by slice.
    """
    from ..autograd.grad_mode import is_grad_enabled
    from .decompositions import is_tensor_subclass_like

    if input.numel() <= 1:
        return grad
    dim = wrap_dim(dim, input.dim())
    if input._shape[dim] == 1:
        return grad
    w = aten.mul.Tensor(output, grad)
    is_zero = aten.eq.Scalar(input, 0)
    subclass = input._device.type == "meta" or any(is_tensor_subclass_like(t) for t in (input, grad, output))
    if not subclass and not aten._local_scalar_dense.default(aten.any.default(is_zero)):
        return aten.div.Tensor(_reversed_cumsum(w, dim), input)
    if is_grad_enabled():  # differentiable twice: the O(n^2) products, slice by slice
        return _cumprod_backward_quadratic(grad, input, dim, stack=subclass)
    grad_input = aten.zeros.default(list(input._shape), dtype=grad._dtype, layout=0, device=grad._device)
    cumsum = aten.cumsum.default(is_zero, dim)
    mask = aten.eq.Scalar(cumsum, 0)  # before the first zero
    before = aten.masked_fill.Scalar(w, aten.bitwise_not.default(mask), 0.0)
    grad_input = aten.where.self(mask, aten.div.Tensor(_reversed_cumsum(before, dim), input), grad_input)
    mask = aten.eq.Scalar(cumsum, 1)  # from the first zero to the second
    first_zero_index = aten.max.dim(mask, dim, True)[1]
    first_zero_mask = aten.logical_and_.default(
        aten.scatter_.value(aten.zeros_like.default(mask), dim, first_zero_index, 1), mask)
    mask = aten.bitwise_and_.Tensor(mask, aten.bitwise_not.default(first_zero_mask))
    products = aten.cumprod.default(aten.masked_fill.Scalar(input, aten.bitwise_not.default(mask), 1.0), dim)
    grad_after = aten.masked_fill.Scalar(grad, aten.ne.Scalar(cumsum, 1), 0.0)
    previous = aten.gather.default(output, dim, aten.relu_.default(aten.sub.Scalar(first_zero_index, 1)))
    previous = aten.masked_fill_.Scalar(previous, aten.eq.Scalar(first_zero_index, 0), 1.0)
    at_zero = aten.mul.Tensor(aten.sum.dim_IntList(aten.mul.Tensor(products, grad_after), [dim], True), previous)
    return aten.where.self(first_zero_mask, at_zero, grad_input)
