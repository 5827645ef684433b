"""Core-aten decompositions of the ops_b batch: ``tril`` / ``triu``, ``std`` / ``std_mean``, ``logsumexp``, ``all``.

Corresponds to the torch/_refs functions PyTorch 2.13's ``core_aten_decompositions()`` maps these ops to:

* ``tril`` / ``triu``: a mask from two ``arange`` rows (column index minus row index compared with the
  diagonal), applied with ``where(mask, self, 0)`` (``logical_and`` for bool); the result made contiguous;
* ``std`` / ``std_mean``: ``var`` / ``var_mean`` with the correction as a float, in the opmath dtype (half
  precision computes in float32), then ``sqrt`` and a cast back;
* ``logsumexp``: integers promoted to float; the kept-dims max (infinities replaced by 0) subtracted before
  ``exp``, added back after ``log``; an empty input sums ``exp`` directly;
* ``all``: ``logical_not(any(logical_not(self), dim, keepdim))``, cast back to uint8 for uint8 input;
* ``roll``: ``index_select`` along each rolled dim with ``fmod(start + arange(size), size)``.
"""

from __future__ import annotations

import math
from typing import Any

from dispatcher import dtypes
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .decomp_core import computation_dtype
from .decomp_registry import register_decomposition

aten = namespace("aten")


def _triangle_mask(a: Tensor, diagonal: int, lower: bool) -> Tensor:
    if a.dim() < 2:
        raise RuntimeError(f"{'tril' if lower else 'triu'}: input tensor must have at least 2 dimensions")
    h, w = a.shape[-2:]
    cols = aten.unsqueeze.default(aten.arange.default(w, device=a.device, pin_memory=False), -2)
    rows = aten.unsqueeze.default(aten.arange.default(h, device=a.device, pin_memory=False), -1)
    offset = aten.sub.Tensor(cols, rows)
    mask = aten.le.Scalar(offset, diagonal) if lower else aten.ge.Scalar(offset, diagonal)
    masked = aten.logical_and.default(mask, a) if a.dtype is dtypes.bool else aten.where.ScalarOther(mask, a, 0)
    return masked.contiguous()


@register_decomposition(aten.tril.default)
def tril(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle_mask(self, diagonal, lower=True)


@register_decomposition(aten.triu.default)
def triu(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle_mask(self, diagonal, lower=False)


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


def _all(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """``all`` as ``not any(not self)`` (uint8 stays uint8), through ``torch.any``'s overload choice."""
    from dispatcher.functional_more_b import any as any_

    result = aten.logical_not.default(any_(aten.logical_not.default(self), dim, keepdim=keepdim))
    return result.to(dtypes.uint8) if self.dtype is dtypes.uint8 else result


@register_decomposition(aten.all.default)
def all_default(self: Tensor) -> Tensor:
    return _all(self)


@register_decomposition([aten.all.dim, aten.all.dims])
def all_dim(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _all(self, dim, keepdim)


@register_decomposition(aten.roll.default)
def roll(a: Tensor, shifts: list[int], dims: list[int] = ()) -> Tensor:  # type: ignore[assignment]
    """One dim: ``index_select`` with ``fmod(start + arange(size), size)``; several: one dim at a time; none: the
    flattened tensor rolled, viewed back."""
    dims = [d + a.dim() if d < 0 else d for d in dims]
    if a.numel() == 0:
        return aten.clone.default(a)
    if a.dim() == 0 and len(dims) > 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    if len(shifts) != 1 or len(dims) != 1:
        if len(shifts) == 0:
            raise RuntimeError("`shifts` required")
        if len(dims) == 0 and len(shifts) == 1:
            flat = aten.flatten.using_ints(a)
            return aten.view.default(aten.roll.default(flat, list(shifts), [0]), list(a.shape))
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        first = aten.roll.default(a, [shifts[0]], [dims[0]])
        return aten.roll.default(first, list(shifts[1:]), list(dims[1:]))
    dim = dims[0]
    size = a.shape[dim]
    start = (size - shifts[0]) % size
    idx = aten.arange.default(size, device=a.device, pin_memory=False)
    return aten.index_select.default(a, dim, aten.fmod.Scalar(aten.add.Tensor(idx, start), size))
