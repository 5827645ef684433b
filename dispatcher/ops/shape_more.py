"""Shape kernels: ``tril`` / ``triu`` (the causal masks of attention code), ``flip``, ``roll``, ``repeat``,
``sort`` / ``topk``, ``constant_pad_nd`` and the CompositeImplicitAutograd ``narrow``, ``tile``, ``outer``,
``argsort``, ``pad``.

Corresponds to aten/src/ATen/native/TriangularOps.cpp: structured kernels that keep the
elements on and below (``tril``) or on and above (``triu``) the ``diagonal``-th diagonal of
the last two dims and zero the rest. The result is always a new contiguous tensor of
``self``'s dtype (any dtype, bool included). ``flip`` (TensorTransformations.cpp) reverses
the given dims into a new tensor laid out like ``self``; ``sort`` keeps ``self``'s layout too,
``roll`` / ``repeat`` / ``topk`` give contiguous results (TensorTransformations.cpp, Repeat.cpp,
Sorting.cpp). ``sort`` is stable (PyTorch's CPU sort keeps equal elements in order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .kernel_registry import impl
from .meta_utils import (
    TensorMeta,
    infer_dense_strides,
    is_non_overlapping_and_dense,
    materialize,
    preserve_format_strides,
    wrap_dim,
)

aten = namespace("aten")


def _triangle(name: str, np_fn: object, self: Tensor, diagonal: int) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), self._dtype)
    return materialize(meta, lambda: np.ascontiguousarray(np_fn(self._data, int(diagonal))), self)


@impl("tril", "CPU", "Meta")
def tril(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle("tril", np.tril, self, diagonal)


@impl("triu", "CPU", "Meta")
def triu(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle("triu", np.triu, self, diagonal)


@impl("flip", "CPU", "Meta")
def flip(self: Tensor, dims: Sequence[int]) -> Tensor:
    """Reverse ``self`` along ``dims``: a new tensor laid out like ``self`` (empty_like's preserve format)."""
    wrapped: list[int] = []
    for d in dims:
        w = wrap_dim(d, self.dim())
        if w in wrapped:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        wrapped.append(w)
    meta = TensorMeta(self._shape, preserve_format_strides(self), self._dtype)
    axes = tuple(w for w in wrapped if self.dim())
    return materialize(meta, lambda: np.flip(self._data, axis=axes) if axes else self._data.copy(), self)


# --- roll / repeat ---------------------------------------------------------------------------------------------


@impl("roll", "CPU", "Meta")
def roll(self: Tensor, shifts: Sequence[int], dims: Sequence[int] = ()) -> Tensor:
    """Shift elements along ``dims`` (wrapping around); without dims, along the flattened tensor."""
    if len(shifts) == 0:
        raise RuntimeError("`shifts` required")
    if len(dims) == 0 and len(shifts) == 1:
        axes: Any = None
    elif len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    else:
        if self.dim() == 0:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        axes = tuple(wrap_dim(d, self.dim()) for d in dims)
    empty = 0 in self._shape  # an empty tensor is cloned (preserve format)
    meta = TensorMeta(self._shape, preserve_format_strides(self) if empty else contiguous_strides(self._shape),
                      self._dtype)
    if self.dim() == 0:
        return materialize(meta, lambda: self._data.copy(), self)
    if axes is None:
        return materialize(meta, lambda: np.roll(self._data, int(shifts[0])), self)
    return materialize(meta, lambda: np.roll(self._data, tuple(int(s) for s in shifts), axes), self)


@impl("repeat", "CompositeExplicitAutograd")
def repeat(self: Tensor, repeats: Sequence[int]) -> Tensor:
    """Tile ``self`` ``repeats`` times along each dim (extra leading repeats add dims)."""
    if len(repeats) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = (1,) * (len(repeats) - self.dim()) + tuple(self._shape)
    shape = tuple(int(r) * s for r, s in zip(repeats, padded))
    for n in shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(shape)}")
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)
    return materialize(meta, lambda: np.tile(self._data.reshape(padded), tuple(int(r) for r in repeats)), self)


# --- sort / topk ------------------------------------------------------------------------------------------------


def _order(values: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """A stable argsort (descending keeps equal elements in their original order, as PyTorch's stable sort)."""
    if not descending:
        return np.argsort(values, axis=axis, kind="stable")
    key = values.astype(np.int64) if values.dtype.kind in "bu" else values
    return np.argsort(-key, axis=axis, kind="stable")


def _sort(self: Tensor, dim: int, descending: bool) -> tuple[Tensor, Tensor]:
    d = wrap_dim(dim, self.dim())
    strides = preserve_format_strides(self)
    values_meta = TensorMeta(self._shape, strides, self._dtype)
    indices_meta = TensorMeta(self._shape, strides, _dt.int64)
    if self._device.type == "meta":
        return materialize(values_meta, None, self), materialize(indices_meta, None, self)
    if self.dim() == 0:
        return materialize(values_meta, self._data.copy(), self), materialize(indices_meta, np.zeros((), np.int64), self)
    order = _order(self._data, d, descending)
    return (materialize(values_meta, np.take_along_axis(self._data, order, d), self),
            materialize(indices_meta, order.astype(np.int64), self))


@impl("sort", "CompositeExplicitAutograd")
def sort(self: Tensor, dim: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    return _sort(self, dim, descending)


@impl("sort.stable", "CPU", "Meta")
def sort_stable(self: Tensor, *, stable: bool | None, dim: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    return _sort(self, dim, descending)


@impl("topk", "CPU", "Meta")
def topk(self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices, in order."""
    d = wrap_dim(dim, self.dim())
    size = self._shape[d] if self.dim() else 1
    if k < 0 or k > size:
        raise RuntimeError("selected index k out of range")
    shape = tuple(k if i == d else s for i, s in enumerate(self._shape))
    values_meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)
    indices_meta = TensorMeta(shape, contiguous_strides(shape), _dt.int64)
    if self._device.type == "meta":
        return materialize(values_meta, None, self), materialize(indices_meta, None, self)
    if self.dim() == 0:
        return materialize(values_meta, self._data.copy(), self), materialize(indices_meta, np.zeros((), np.int64), self)
    order = np.take(_order(self._data, d, largest), np.arange(k), axis=d)
    return (materialize(values_meta, np.take_along_axis(self._data, order, d), self),
            materialize(indices_meta, order.astype(np.int64), self))


# --- CompositeImplicitAutograd: narrow, tile, outer, argsort ------------------------------------------------------


@impl("narrow", "CompositeImplicitAutograd")
def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``slice(dim, start, start + length)`` after PyTorch's range checks (a negative start counts from the end)."""
    if self.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, self.dim())
    cur = self._shape[d]
    if start < -cur or start > cur:
        raise IndexError(f"start out of range (expected to be in range of [{-cur}, {cur}], but got {start})")
    if start < 0:
        start += cur
    if start > cur - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({cur}).")
    return aten.slice.Tensor(self, dim, start, start + length)


@impl("tile", "CompositeImplicitAutograd")
def tile(self: Tensor, dims: Sequence[int]) -> Tensor:
    """``repeat`` with ``dims`` padded by leading 1s up to ``self``'s rank."""
    missing = self.dim() - len(dims)
    return aten.repeat.default(self, [1] * missing + list(dims) if missing > 0 else list(dims))


@impl("outer", "CompositeImplicitAutograd")
def outer(self: Tensor, vec2: Tensor) -> Tensor:
    """``self.reshape(n, 1) * vec2`` for two 1-D tensors."""
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return aten.mul.Tensor(aten.reshape.default(self, [self._shape[0], 1]), vec2)


@impl("argsort", "CompositeImplicitAutograd")
def argsort(self: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    if descending:
        return aten.sort.default(self, dim, True)[1]
    return (aten.sort.default(self) if dim == -1 else aten.sort.default(self, dim))[1]


@impl("argsort.stable", "CompositeImplicitAutograd")
def argsort_stable(self: Tensor, *, stable: bool, dim: int = -1, descending: bool = False) -> Tensor:
    kw: dict[str, Any] = {"stable": stable}
    if dim != -1:
        kw["dim"] = dim
    if descending:
        kw["descending"] = True
    return aten.sort.stable(self, **kw)[1]


# --- constant_pad_nd (CompositeExplicitAutograd) / pad (CompositeImplicitAutograd) ----------------------------------


@impl("constant_pad_nd", "CompositeExplicitAutograd")
def constant_pad_nd(self: Tensor, pad: Sequence[int], value: Any = 0) -> Tensor:
    """Pad (or, with negative amounts, crop) the last ``len(pad) // 2`` dims, last dim first, with ``value``."""
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * self.dim():
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)}while the input has {self.dim()}dimensions.")
    shape = list(self._shape)
    crop = [slice(None)] * self.dim()
    place = [slice(None)] * self.dim()
    only_crop = len(pad) > 0 and all(p <= 0 for p in pad)
    for i in range(len(pad) // 2):
        d = self.dim() - 1 - i
        before, after = int(pad[2 * i]), int(pad[2 * i + 1])
        size = shape[d] + before + after
        if shape[d] + min(before, 0) + min(after, 0) < 0:  # the negative amounts narrow the input first
            raise RuntimeError("narrow(): length must be non-negative.")
        crop[d] = slice(max(-before, 0), shape[d] - max(-after, 0))
        place[d] = slice(max(before, 0), max(before, 0) + (shape[d] - max(-before, 0) - max(-after, 0)))
        shape[d] = size
    new_shape = tuple(shape)
    if only_crop:  # a narrowed view, cloned (preserve format)
        dense = is_non_overlapping_and_dense(new_shape, self._stride)
        strides = tuple(self._stride) if dense else infer_dense_strides(new_shape, self._stride)
        return materialize(TensorMeta(new_shape, strides, self._dtype), lambda: self._data[tuple(crop)], self)
    meta = TensorMeta(new_shape, contiguous_strides(new_shape), self._dtype)

    def compute() -> np.ndarray:
        out = np.empty(new_shape, dtype=self._dtype.np_dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            out[...] = np.asarray(value).astype(self._dtype.np_dtype)
        out[tuple(place)] = self._data[tuple(crop)]
        return out

    return materialize(meta, compute, self)


@impl("pad", "CompositeImplicitAutograd")
def pad(self: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """``constant_pad_nd`` for mode "constant"; the other modes' ops (reflection_pad*, ...) are not listed."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * self.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {self.dim()}")
    if mode == "constant":
        return aten.constant_pad_nd.default(self, list(pad), 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    raise NotImplementedError(f"pad(mode={mode!r}) calls aten::{mode}_pad*d, which dispatchkit does not list")
