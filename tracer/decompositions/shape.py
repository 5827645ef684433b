"""Core-aten decompositions of the shape ops: ``stack``, ``tril`` / ``triu``, ``roll``, ``diag_embed``,
``channel_shuffle``, ``native_channel_shuffle``.

Corresponds to the torch/_refs/__init__.py functions and torch/_decomp/decompositions.py entries PyTorch 2.13's
``core_aten_decompositions()`` maps these ops to:

* ``stack``: ``cat`` then ``view`` when the new dim is not the last, else ``cat`` of ``unsqueeze``d tensors;
* ``tril`` / ``triu``: a mask from two ``arange`` rows (column index minus row index compared with the
  diagonal), applied with ``where(mask, self, 0)`` (``logical_and`` for bool); the result made contiguous;
* ``roll``: ``index_select`` along each rolled dim with ``fmod(start + arange(size), size)``;
* ``diag_embed``: the input padded with zeros by ``|offset|`` along its last dim (``cat``), unsqueezed at
  ``dim1`` and its last dim moved to ``dim2``, then masked by ``where`` with a comparison of two ``arange``
  rows shaped to broadcast over ``dim1`` / ``dim2``, and made contiguous.
"""

from __future__ import annotations

from typing import Any

from dispatcher import dtypes
from dispatcher.memory_format import contiguous_format
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .dims import _canonicalize_dim, _wrap
from .registry import register_decomposition

aten = namespace("aten")


@register_decomposition(aten.stack.default)
def stack(tensors: list[Tensor], dim: int = 0) -> Tensor:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ndim = tensors[0].dim()
    wrapped = _wrap(dim, ndim + 1)
    if wrapped < ndim:
        for i, x in enumerate(tensors):
            if x.shape != tensors[0].shape:
                raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                                   f"entry 0 and {list(x.shape)} at entry {i}")
        sizes = list(tensors[0].shape)
        sizes.insert(wrapped, len(tensors))
        out = aten.view.default(aten.cat.default(list(tensors), wrapped), sizes)
        for field in ("_base", "_creation_meta", "_attr_version"):  # stack's result is no view (dispatcher/ops/shape.py)
            out.__dict__.pop(field, None)
        return out
    return aten.cat.default([aten.unsqueeze.default(x, wrapped) for x in tensors], dim)


# --- tril, triu -------------------------------------------------------------------------------------------------------


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


# --- roll, diag_embed -------------------------------------------------------------------------------------------------


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


@register_decomposition(aten.diag_embed.default)
def diag_embed(t: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    rank = t.dim() + 1
    dim1 = _canonicalize_dim(rank, dim1)
    dim2 = _canonicalize_dim(rank, dim2)
    if dim1 > dim2:  # swapping the dims is the same as negating the offset
        dim1, dim2 = dim2, dim1
        offset = -offset
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    last_dim = t.shape[-1]
    if offset != 0:
        pad_shape = list(t.shape)
        pad_shape[-1] = abs(offset)
        z = aten.zeros.default(pad_shape, dtype=t.dtype, device=t.device)
        t = aten.cat.default([z, t] if offset > 0 else [t, z], -1)
        last_dim += abs(offset)
    t = aten.movedim.int(aten.unsqueeze.default(t, dim1), -1, dim2)
    a_range = aten.arange.default(last_dim, dtype=dtypes.int64, device=t.device)
    b_range = aten.arange.start(offset, last_dim + offset, dtype=dtypes.int64, device=t.device)
    cond = aten.eq.Tensor(a_range, aten.unsqueeze.default(b_range, -1))
    cond = aten.reshape.default(cond, [last_dim if i in (dim1, dim2) else 1 for i in range(t.dim())])
    if t.dtype is dtypes.bool:
        masked: Any = aten.logical_and.default(cond, t)
    else:
        masked = aten.where.ScalarOther(cond, t, 0)
    return aten.contiguous.default(masked)


@register_decomposition(aten.channel_shuffle.default)
def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """torch/_refs/nn/functional's: ``reshape(n, g, c/g, *)``, ``transpose(1, 2)``, ``reshape`` back, contiguous
    (recorded as view, permute, clone, view); an empty input is a view of itself."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    c = input.shape[1]
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    if input.numel() == 0:
        return aten.view.default(input, list(input.shape))
    n, rest = input.shape[0], list(input.shape[2:])
    x = _ref_reshape(input, [n, groups, c // groups, *rest])
    x = aten.permute.default(x, [0, 2, 1, *range(3, x.dim())])
    x = _ref_reshape(x, list(input.shape))
    if not x.is_contiguous():
        x = aten.clone.default(x, memory_format=contiguous_format)
    return x


def _ref_reshape(a: Tensor, shape: list[int]) -> Tensor:
    """torch/_refs' reshape: a view when the strides allow one, else a contiguous clone viewed."""
    from dispatcher.ops.views import compute_view_strides

    if compute_view_strides(tuple(a.shape), tuple(a.stride()), shape) is None:
        a = aten.clone.default(a, memory_format=contiguous_format)
    return aten.view.default(a, shape)


@register_decomposition(aten.native_channel_shuffle.default)
def native_channel_shuffle(self: Tensor, groups: int) -> Tensor:
    """ChanelShuffle.cpp's CompositeImplicitAutograd ``math_channel_shuffle``: ``view(b, g, c/g, -1)``,
    ``permute(0, 2, 1, 3)``, contiguous, ``reshape`` to the input's sizes, contiguous in its suggested format."""
    from dispatcher.memory_format import channels_last, channels_last_3d, suggest_memory_format_code

    if self.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(self.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    b, c = self.shape[0], self.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    x = aten.view.default(self, [b, groups, c // groups, -1])
    x = aten.permute.default(x, [0, 2, 1, 3])
    if not x.is_contiguous():
        x = aten.clone.default(x, memory_format=contiguous_format)
    x = _ref_reshape(x, list(self.shape))
    code = suggest_memory_format_code(tuple(self.shape), tuple(self.stride()))
    fmt = {2: channels_last, 3: channels_last_3d}.get(code, contiguous_format)
    if not x.is_contiguous(memory_format=fmt):
        x = aten.clone.default(x, memory_format=fmt)
    return x
