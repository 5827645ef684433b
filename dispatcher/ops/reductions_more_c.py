"""Kernels of ``nansum``, ``nanmean`` and ``aminmax`` (the ops_c batch).

Corresponds to ReduceOps.cpp of PyTorch 2.13: ``nansum`` is ``sum`` with NaNs counted as zero (same result
dtype rules: integers and bool sum to int64); ``nanmean`` (CompositeImplicitAutograd) divides ``nansum`` by the
count of non-NaN elements, computed as PyTorch's composite does (``detach``, ``self != self``,
``logical_not_``, ``sum``); ``aminmax`` returns ``(amin, amax)`` over one dim or over all elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..tensor import Tensor
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize
from .reductions import (
    _sum_values,
    reduction_dims,
    reduction_meta,
    scalar_type_name,
    sum_dtype,
    zero_numel_check_dim,
)


def _aten(name: str) -> Any:
    from ..op_overload import namespace

    base, _, overload = name.partition(".")
    return getattr(getattr(namespace("aten"), base), overload or "default")


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
    d = _aten("detach")(self)
    factor = _aten("logical_not_")(_aten("ne.Tensor")(d, d))  # at::native::isnan(self).logical_not_()
    factor = _aten("sum.dim_IntList")(factor, dim, True) if keepdim else _aten("sum.dim_IntList")(factor, dim)
    args: list[Any] = [] if dim is None and not keepdim else [dim]
    if keepdim:
        args.append(True)
    total = _aten("nansum")(self, *args, dtype=dtype) if dtype is not None else _aten("nansum")(self, *args)
    return _aten("div.Tensor")(total, factor)


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




@impl("logical_not_", "CompositeExplicitAutograd")
def logical_not_(self: Tensor) -> Tensor:
    """``self`` replaced in place by ``not self`` (0 / 1 in self's dtype): what ``nanmean``'s composite calls."""
    if self._device.type != "meta":
        self._data[...] = np.logical_not(self._data)
    return self
