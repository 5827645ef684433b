"""The variance family: ``var`` / ``std`` / ``var_mean`` / ``std_mean`` (``.correction`` kernels and the
CompositeImplicitAutograd ``.dim`` / ``unbiased`` overloads).

Corresponds to aten/src/ATen/native/ReduceOps.cpp (``std_var_kernel``, ``std_var_mean_out``). The ``.correction``
overloads hold the kernels (float64 two-pass moments, PyTorch's warning when the divisor is not positive); their
``.dim`` and ``unbiased`` siblings (what ``x.std(1, unbiased=False)`` calls) call the ``.correction`` overload with
``correction`` 1 or 0, as in PyTorch, so only pre-dispatch graphs show them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..op_overload import namespace
from ..tensor import Tensor
from .kernel_dtypes import is_meta
from .kernel_registry import impl
from .meta_utils import materialize
from .reductions import reduction_dims, reduction_meta

aten = namespace("aten")


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
    dims, meta, divisor, count = moments(self, dim, correction, keepdim, "std")
    return materialize(meta, lambda: np.sqrt(_var_values(self._data, dims, keepdim, divisor, count)[0]), self)


def _var_mean_like(self: Tensor, dim: Any, correction: Any, keepdim: bool, fn: str, root: bool) -> tuple[Tensor, Tensor]:
    if self._device.type != "meta":
        _check_floating(self, fn)
    dims, meta, divisor, count = moments(self, dim, correction, keepdim, fn)
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
