"""Core-aten decompositions of the reductions: ``sum.default``, ``std`` / ``std_mean``, ``logsumexp``, ``all``,
``nansum`` and ``aminmax``.

Corresponds to the torch/_refs/__init__.py functions and torch/_decomp/decompositions.py entries PyTorch 2.13's
``core_aten_decompositions()`` maps these ops to:

* ``sum.default``: ``sum.dim_IntList`` over no dims (every dim);
* ``std`` / ``std_mean``: ``var`` / ``var_mean`` with the correction as a float, in the opmath dtype (half
  precision computes in float32), then ``sqrt`` and a cast back;
* ``logsumexp``: integers promoted to float; the kept-dims max (infinities replaced by 0) subtracted before
  ``exp``, added back after ``log``; an empty input sums ``exp`` directly;
* ``all``: ``logical_not(any(logical_not(self), dim, keepdim))``, cast back to uint8 for uint8 input;
* ``nansum``: ``sum`` of ``where(isnan(self), 0, self)``; ``aminmax``: ``(amin, amax)`` with the same arguments.
"""

from __future__ import annotations

import math
from typing import Any

from dispatcher import dtypes
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition
from .type_promotion import computation_dtype

aten = namespace("aten")


@register_decomposition(aten.sum.default)
def sum_default(self: Tensor, *, dtype: Any = None) -> Tensor:
    return aten.sum.dim_IntList(self, [], dtype=dtype)


# --- std, std_mean, logsumexp -----------------------------------------------------------------------------------------


def _moments_kwargs(correction: Any, keepdim: bool) -> dict[str, Any]:
    kw: dict[str, Any] = {"correction": 1.0 if correction is None else float(correction)}
    if keepdim:
        kw["keepdim"] = True
    return kw


def _to(x: Tensor, d: dtypes.dtype) -> Tensor:
    return x if x.dtype is d else x.to(d)


@register_decomposition(aten.std.correction)
def std(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> Tensor:
    out_dtype = self.dtype.to_real()
    a = _to(self, computation_dtype(out_dtype))
    kw = _moments_kwargs(correction, keepdim)
    var = aten.var.correction(a, **kw) if dim is None else aten.var.correction(a, dim, **kw)
    return _to(aten.sqrt.default(var), out_dtype)


@register_decomposition(aten.std_mean.correction)
def std_mean(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    original = self.dtype
    out_dtype = original.to_real()
    a = _to(self, computation_dtype(out_dtype))
    kw = _moments_kwargs(correction, keepdim)
    var, mean = aten.var_mean.correction(a, **kw) if dim is None else aten.var_mean.correction(a, dim, **kw)
    return _to(aten.sqrt.default(var), out_dtype), _to(mean, original)


@register_decomposition(aten.logsumexp.default)
def logsumexp(self: Tensor, dim: list[int], keepdim: bool = False) -> Tensor:
    result_dtype = self.dtype if self.dtype.is_floating_point or self.dtype.is_complex else (
        dtypes.get_default_dtype())
    a = _to(self, computation_dtype(result_dtype))
    dims = list(dim)
    sum_args = (dims, True) if keepdim else (dims,)
    if a.numel() == 0:
        return _to(aten.log.default(aten.sum.dim_IntList(aten.exp.default(a), *sum_args)), result_dtype)
    maxes = aten.amax.default(a, dims, True)
    maxes = aten.masked_fill.Scalar(maxes, aten.eq.Scalar(aten.abs.default(maxes), math.inf), 0)
    squeezed = maxes if keepdim else aten.squeeze.dims(maxes, dims)
    total = aten.sum.dim_IntList(aten.exp.default(aten.sub.Tensor(a, maxes)), *sum_args)
    return _to(aten.add.Tensor(aten.log.default(total), squeezed), result_dtype)


# --- all --------------------------------------------------------------------------------------------------------------


def _all(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """``all`` as ``not any(not self)`` (uint8 stays uint8), through ``torch.any``'s overload choice."""
    from dispatcher.api.reductions import any as any_

    result = aten.logical_not.default(any_(aten.logical_not.default(self), dim, keepdim=keepdim))
    return result.to(dtypes.uint8) if self.dtype is dtypes.uint8 else result


@register_decomposition(aten.all.default)
def all_default(self: Tensor) -> Tensor:
    return _all(self)


@register_decomposition([aten.all.dim, aten.all.dims])
def all_dim(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _all(self, dim, keepdim)


# --- nansum, aminmax --------------------------------------------------------------------------------------------------


@register_decomposition(aten.nansum.default)
def nansum(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``sum(where(isnan(self), 0, self), dim, keepdim, dtype=dtype)``."""
    zeroed = aten.where.ScalarSelf(aten.isnan.default(self), 0, self)
    args = [dim, True] if keepdim else [dim]
    return aten.sum.dim_IntList(zeroed, *args, dtype=dtype) if dtype is not None else (
        aten.sum.dim_IntList(zeroed, *args))


@register_decomposition(aten.aminmax.default)
def aminmax(self: Tensor, *, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """``(amin(self, dim, keepdim), amax(self, dim, keepdim))``, the dim passed as a list when given."""
    args: list[Any] = [] if dim is None else [[dim]]
    if keepdim:
        args = [args[0] if args else [], True]
    return aten.amin.default(self, *args), aten.amax.default(self, *args)


@register_decomposition([aten.norm.Scalar, aten.norm.ScalarOpt_dim])
def norm(self: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    """torch._refs.norm for a numeric ``p``: ``linalg_vector_norm`` (``p`` None: 2)."""
    return aten.linalg_vector_norm.default(self, 2 if p is None else p, dim, keepdim)
