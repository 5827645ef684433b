"""Shape kernels that copy: ``cat`` / ``stack`` / ``hstack`` / ``vstack``, ``tril`` / ``triu``, ``flip``, ``roll``,
``repeat`` / ``tile``, ``sort`` / ``argsort`` / ``topk``, ``constant_pad_nd`` / ``pad``, ``narrow``, ``diag`` /
``diag_embed``, ``_unique``.

Corresponds to aten/src/ATen/native/TensorShape.cpp (``cat``'s meta function: dtype promotion across the inputs,
legacy empty 1-D inputs skipped in the shape checks, the output layout from the inputs' suggested memory formats;
``stack``, ``narrow``, ``diag_embed``), TriangularOps.cpp, TensorTransformations.cpp (``flip``, ``roll``),
Repeat.cpp, Sorting.cpp (``sort`` is stable, as PyTorch's CPU sort), PadNd.cpp and Unique.cpp. ``flip`` and
``sort`` keep ``self``'s layout; ``tril`` / ``triu`` / ``roll`` / ``repeat`` / ``topk`` give contiguous results.
``narrow``, ``tile``, ``argsort``, ``pad``, ``diag``, ``hstack`` / ``vstack`` are CompositeImplicitAutograd.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..memory_format import channels_last_strides as channels_last_strides_of
from ..memory_format import suggest_memory_format_code
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .composite import _op
from .kernel_registry import impl
from .meta_utils import (
    TensorMeta,
    infer_dense_strides,
    is_non_overlapping_and_dense,
    materialize,
    np_operand,
    preserve_format_strides,
    wrap_dim,
)
from .meta_utils import wrap_dim as _wrap_dim
from .views_scatter import _zeros

aten = namespace("aten")

# --- cat / stack (TensorShape.cpp) ---------------------------------------------------------------------


def suggest_memory_format(t: Tensor) -> int:
    """0 (contiguous_format), 2 (channels_last) or 3 (channels_last_3d), as ``Tensor.suggest_memory_format()``."""
    # NB: checked before contiguity, as c10 does: e.g. [1, 1, 2, 1] with strides (2, 1, 1, 1) is both.
    return suggest_memory_format_code(t._shape, t._stride)


def channels_last_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    n, c, h, w = shape
    c_st = 1
    w_st = max(c, 1)
    h_st = w_st * max(w, 1)
    n_st = h_st * max(h, 1)
    return (n_st, c_st, h_st, w_st)


def _cat_output_memory_format(tensors: list[Tensor]) -> int:
    fmt = None
    for t in tensors:
        f = suggest_memory_format(t)
        if f == 0:
            return 0
        if fmt is not None and fmt != f:
            return 0
        fmt = f
    return fmt or 0


def _should_skip(t: Tensor) -> bool:
    """Legacy behaviour: a 1-D tensor of shape [0] is ignored by cat's shape checks."""
    return t._shape == (0,)


def cat_meta(tensors: list[Tensor], dim: int) -> tuple[TensorMeta, list[Tensor]]:
    """Output metadata of ``cat`` and the inputs that take part in it (ATen's cat meta function)."""
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"cat(): argument 'tensors' must be tuple of Tensors, not {type(t).__name__}")
    first_device = tensors[0]._device
    for t in tensors[1:]:
        if t._device != first_device:
            raise RuntimeError(f"Tensor on device {t._device} is not on the expected device {first_device}!")
    for i, t in enumerate(tensors):
        if not t._shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dtype = tensors[0]._dtype
    for t in tensors[1:]:
        if t._dtype is not dtype:
            dtype = _dt.result_type(*tensors)
            break
    kept = [t for t in tensors if not _should_skip(t)]
    if not kept:
        # Every input is a legacy empty tensor: the result is one too.
        return TensorMeta((0,), (1,), dtype), kept
    ref = kept[0]
    ndim = len(ref._shape)
    dim = wrap_dim(dim, ndim)
    total = 0
    for i, t in enumerate(tensors):
        if _should_skip(t):
            continue
        if len(t._shape) != ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ndim} and {len(t._shape)}")
        for d in range(ndim):
            if d != dim and t._shape[d] != ref._shape[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size {ref._shape[d]} but got "
                    f"size {t._shape[d]} for tensor number {i} in the list."
                )
        total += t._shape[dim]
    shape = ref._shape[:dim] + (total,) + ref._shape[dim + 1:]
    fmt = _cat_output_memory_format(tensors)
    if fmt:
        stride = channels_last_strides_of(shape, fmt)
    else:
        stride = contiguous_strides(shape)
    return TensorMeta(shape, stride, dtype), kept


# Also CompositeExplicitAutogradNonFunctional, as in PyTorch: that fills the Undefined slot, so a call
# with an empty list (no tensors to dispatch on) reaches this kernel and gets its error.
@impl("cat", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def cat(tensors: list[Tensor], dim: int = 0) -> Tensor:
    meta, kept = cat_meta(tensors, dim)

    def compute() -> np.ndarray:
        if not kept:
            return np.zeros((0,), dtype=meta.dtype.np_dtype)
        axis = wrap_dim(dim, len(kept[0]._shape))
        return np.concatenate([np_operand(t, meta.dtype) for t in kept], axis=axis)

    return materialize(meta, compute, tensors[0])


@impl("stack", "CompositeExplicitAutograd")
def stack(tensors: list[Tensor], dim: int = 0) -> Tensor:
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    ndim = len(first._shape)
    dim = wrap_dim(dim, ndim + 1)
    for i, t in enumerate(tensors[1:], 1):
        if t._shape != first._shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first._shape)} at entry 0 and "
                f"{list(t._shape)} at entry {i}"
            )
    if dim < ndim:
        # cat along the existing dim, then split it with a view (always possible on cat's fresh output).
        shape = list(first._shape)
        shape.insert(dim, len(tensors))
        out = aten.view.default(aten.cat.default(list(tensors), dim), shape)
        # not a view for autograd: PyTorch writes the result with cat_out (an in-place op on it, e.g. the RNNs'
        # ``transpose_``, must not see a view of a leaf)
        for field in ("_base", "_creation_meta", "_attr_version"):
            out.__dict__.pop(field, None)
        return out
    return aten.cat.default([aten.unsqueeze.default(t, dim) for t in tensors], dim)


# --- hstack / vstack ---------------------------------------------------------------------------------------------


def _atleast(t: Tensor, n: int) -> Tensor:
    """``atleast_1d`` / ``atleast_2d``: 0-dim reshaped to ``[1]`` / ``[1, 1]``, 1-d unsqueezed for 2-d."""
    ndim = len(t._shape)
    if ndim == 0:
        return _op("reshape")(t, [1] * n)
    if n == 2 and ndim == 1:
        return _op("unsqueeze")(t, 0)
    return t


@impl("hstack", "CompositeImplicitAutograd")
def hstack(tensors: list[Tensor]) -> Tensor:
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    rep = [_atleast(t, 1) for t in tensors]
    return _op("cat")(rep, 0) if len(rep[0]._shape) == 1 else _op("cat")(rep, 1)


@impl("vstack", "CompositeImplicitAutograd")
def vstack(tensors: list[Tensor]) -> Tensor:
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return _op("cat")([_atleast(t, 2) for t in tensors], 0)


# --- tril / triu / flip --------------------------------------------------------------------------------


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
    order = np.argsort(-key, axis=axis, kind="stable")
    if values.dtype.kind == "f":  # NaN ranks highest, as in PyTorch: NaNs first (NumPy puts them last)
        nan_last = ~np.isnan(np.take_along_axis(values, order, axis))
        order = np.take_along_axis(order, np.argsort(nan_last, axis=axis, kind="stable"), axis)
    return order


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


# --- CompositeImplicitAutograd: narrow, tile, argsort -------------------------------------------------------------


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
    """PadNd.cpp's ``pad``: the mode string to at::padding_mode, then ``_pad_enum``'s kernel called directly (not
    dispatched: traces show ``pad`` or the op it picks, never ``_pad_enum``; shape_padding.py)."""
    from .shape_padding import PADDING_MODES, pad_enum

    if mode not in PADDING_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return pad_enum(self, pad, PADDING_MODES[mode], value)


# --- diag_embed / diag ---------------------------------------------------------------------------------


@impl("diag_embed", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    ndim = len(self._shape) + 1
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = abs(offset) + self._shape[-1]
    sizes = list(self._shape[:-1])
    sizes.insert(min(d1, d2), n)
    sizes.insert(max(d1, d2), n)
    result = _zeros(sizes, self)
    _op("copy_")(_op("diagonal")(result, offset, d1, d2), self)
    return result


@impl("diag", "CompositeImplicitAutograd")
def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    ndim = len(self._shape)
    if ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    if ndim == 1:
        return _op("diag_embed")(self, diagonal)
    return _op("diagonal_copy")(self, diagonal)


# --- _unique (what index_fill.int_Tensor's derivative calls) -------------------------------------------------------

_UNIQUE_META_MESSAGE = (
    "aten::_unique: attempted to run this operator with Meta tensors, but there was no fake impl or Meta "
    "kernel registered. You may have run into this message while using an operator with PT2 compilation APIs "
    "(torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake impl. "
    "Please see the following for next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
)


@impl("_unique", "CPU")
def _unique(self: Tensor, sorted: bool = True, return_inverse: bool = False) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The distinct values of ``self`` (1-d; in increasing order here whatever ``sorted`` says, which PyTorch's CPU
    kernel leaves unspecified) and, with ``return_inverse``, each element's position among them (shaped as self)."""
    from .. import dtypes
    from ..ops.meta_utils import TensorMeta, materialize
    from ..tensor import contiguous_strides

    values, inverse = np.unique(np.asarray(self._data), return_inverse=True)
    inv = inverse.reshape(self._shape).astype(np.int64) if return_inverse else np.zeros((0,), np.int64)
    out = materialize(TensorMeta(values.shape, contiguous_strides(values.shape), self._dtype), values, self)
    idx = materialize(TensorMeta(inv.shape, contiguous_strides(inv.shape), dtypes.int64), inv, self)
    return out, idx


@impl("_unique", "Meta")
def _unique_meta(self: Tensor, sorted: bool = True, return_inverse: bool = False) -> tuple[Tensor, Tensor]:  # noqa: A002
    raise NotImplementedError(_UNIQUE_META_MESSAGE)


# --- channel_shuffle (issue 19) ------------------------------------------------------------------------------------


@impl("native_channel_shuffle", "CPU", "Meta")
@impl("channel_shuffle", "CPU", "Meta")
def channel_shuffle(self: Tensor, groups: int) -> Tensor:
    """Channels regrouped: ``(N, g, C/g, *)`` transposed to ``(N, C/g, g, *)`` (ChanelShuffle.cpp); the result in
    ``self``'s suggested memory format; an empty input comes back as an alias. ``native_channel_shuffle`` runs the
    same CPU kernel (PyTorch also gives it a CompositeImplicitAutograd kernel, which only the core-ATen table uses)."""
    if self.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(self.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = self._shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    if self.numel() == 0:
        return _op("alias")(self)
    code = suggest_memory_format_code(self._shape, self._stride)
    stride = channels_last_strides_of(self._shape, code) if code else contiguous_strides(self._shape)
    meta = TensorMeta(self._shape, stride, self._dtype)
    n, rest = self._shape[0], tuple(self._shape[2:])

    def compute() -> np.ndarray:
        x = np.asarray(self._data).reshape((n, groups, c // groups) + rest)
        return np.swapaxes(x, 1, 2).reshape(self._shape)

    return materialize(meta, compute, self)
