"""Kernels of the ops_c batch of shape ops: diagonals, dim moves, ``unflatten``, ``tensor_split``, stacking.

Corresponds to TensorShape.cpp of PyTorch 2.13:

* ``diagonal`` (CompositeExplicitAutograd): a view whose last dim walks the diagonal of ``dim1`` / ``dim2``;
* ``diagonal_backward`` (CompositeExplicitAutograd): zeros of the input's size with the gradient written on the
  diagonal; ``diagonal_scatter`` / ``diagonal_copy`` / ``diag_embed`` (CompositeExplicitAutogradNonFunctional,
  registered here as backend kernels, like ``slice_scatter``): new tensors built with the same steps;
* CompositeImplicitAutograd compositions, which run above autograd so graphs show the ops they call: ``diag``
  (``diag_embed`` for 1-d, ``diagonal_copy`` for 2-d), ``movedim`` / ``moveaxis`` (``permute``, or ``alias`` for a
  0-dim tensor), ``swapaxes`` / ``swapdims`` (``transpose``), ``unflatten`` (``view``), ``tensor_split``
  (``slice``), ``hstack`` / ``vstack`` (``atleast_1d`` / ``atleast_2d`` then ``cat``).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import views as _views
from .kernel_registry import impl
from .meta_utils import wrap_dim as _wrap_dim
from .views import clone_preserve_strides, wrap_dim


def _aten(name: str) -> Any:
    from ..op_overload import namespace

    base, _, overload = name.partition(".")
    return getattr(getattr(namespace("aten"), base), overload or "default")


# --- diagonal and its relatives --------------------------------------------------------------------------------


def _diagonal_dims(ndim: int, dim1: int, dim2: int) -> tuple[int, int]:
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal_geometry(shape: tuple[int, ...], stride: tuple[int, ...], offset: int, dim1: int,
                      dim2: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(sizes, strides, storage-offset shift) of the diagonal view; dims already wrapped and distinct."""
    if offset >= 0:
        n = max(min(shape[dim1], shape[dim2] - offset), 0)
        shift = offset * stride[dim2] if n else 0
    else:
        n = max(min(shape[dim1] + offset, shape[dim2]), 0)
        shift = -offset * stride[dim1] if n else 0
    keep = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    return (tuple(shape[d] for d in keep) + (n,), tuple(stride[d] for d in keep) + (stride[dim1] + stride[dim2],),
            shift)


@impl("diagonal", "CompositeExplicitAutograd")
def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _diagonal_dims(len(self._shape), dim1, dim2)
    shape, stride, shift = diagonal_geometry(self._shape, self._stride, offset, d1, d2)
    return self._view(shape, stride, self._storage_offset + shift)


def _zeros(sizes: list[int], like: Tensor) -> Tensor:
    """``at::zeros(sizes, like.options())``."""
    return _aten("zeros")(list(sizes), dtype=like._dtype, layout=0, device=like._device)


@impl("diagonal_backward", "CompositeExplicitAutograd", "Meta")
def diagonal_backward(grad_output: Tensor, input_sizes: list[int], offset: int, dim1: int, dim2: int) -> Tensor:
    grad_input = _zeros(input_sizes, grad_output)
    _aten("copy_")(_aten("diagonal")(grad_input, offset, dim1, dim2), grad_output)
    return grad_input


@impl("diagonal_scatter", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def diagonal_scatter(self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``self`` (same strides and offset) with ``src`` written on its diagonal."""
    output = clone_preserve_strides(self)
    view = _aten("diagonal")(output, offset, dim1, dim2)
    if view._shape != src._shape:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src._shape)}, "
            f"slice size = {list(view._shape)}"
        )
    _aten("copy_")(view, src)
    return output


@impl("diagonal_copy", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def diagonal_copy(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    from ..memory_format import contiguous_format

    return _aten("clone")(_aten("diagonal")(self, offset, dim1, dim2), memory_format=contiguous_format)


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
    _aten("copy_")(_aten("diagonal")(result, offset, d1, d2), self)
    return result


@impl("diag", "CompositeImplicitAutograd")
def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    ndim = len(self._shape)
    if ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    if ndim == 1:
        return _aten("diag_embed")(self, diagonal)
    return _aten("diagonal_copy")(self, diagonal)


# --- moving / swapping dims --------------------------------------------------------------------------------------


def _movedim(self: Tensor, source: list[int], destination: list[int]) -> Tensor:
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should contain the same "
            f"number of dims as destination ({list(destination)} dims)"
        )
    ndim = len(self._shape)
    src = [wrap_dim(d, ndim) for d in source]
    dst = [wrap_dim(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    if ndim == 0:
        return _aten("alias")(self)
    order = [-1] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    order = [next(rest) if o == -1 else o for o in order]
    return _aten("permute")(self, order)


@impl("movedim.intlist", "CompositeImplicitAutograd")
def movedim_intlist(self: Tensor, source: list[int], destination: list[int]) -> Tensor:
    return _movedim(self, list(source), list(destination))


@impl("movedim.int", "CompositeImplicitAutograd")
def movedim_int(self: Tensor, source: int, destination: int) -> Tensor:
    return _movedim(self, [source], [destination])


@impl("moveaxis.intlist", "CompositeImplicitAutograd")
def moveaxis_intlist(self: Tensor, source: list[int], destination: list[int]) -> Tensor:
    return _aten("movedim.intlist")(self, source, destination)


@impl("moveaxis.int", "CompositeImplicitAutograd")
def moveaxis_int(self: Tensor, source: int, destination: int) -> Tensor:
    return _aten("movedim.int")(self, source, destination)


@impl("swapaxes", "CompositeImplicitAutograd")
def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return _aten("transpose.int")(self, axis0, axis1)


@impl("swapdims", "CompositeImplicitAutograd")
def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _aten("transpose.int")(self, dim0, dim1)


# --- unflatten / tensor_split ----------------------------------------------------------------------------------


@impl("unflatten.int", "CompositeImplicitAutograd")
def unflatten_int(self: Tensor, dim: int, sizes: list[int]) -> Tensor:
    from .views import infer_size

    ndim = len(self._shape)
    dim = wrap_dim(dim, ndim)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if ndim == 0:  # ATen reads self.size(0) inside its try block and reports what it catches
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions")
    try:
        inferred = infer_size(list(sizes), self._shape[dim])
    except RuntimeError as e:
        if "is invalid for input of size" in str(e):
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                f"({self._shape[dim]}) in the input tensor"
            ) from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    shape = list(self._shape[:dim]) + list(inferred) + list(self._shape[dim + 1:])
    return _aten("view")(self, shape)


def _split_dim(self: Tensor, dim: int) -> int:
    ndim = len(self._shape)
    if ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    return wrap_dim(dim, ndim)


@impl("tensor_split.sections", "CompositeImplicitAutograd")
def tensor_split_sections(self: Tensor, sections: int, dim: int = 0) -> list[Tensor]:
    d = _split_dim(self, dim)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size = self._shape[d]
    base, extra = divmod(size, sections)
    out, start = [], 0
    for i in range(sections):
        n = base + 1 if i < extra else base
        out.append(_aten("slice.Tensor")(self, d, start, start + n))
        start += n
    return out


@impl("tensor_split.indices", "CompositeImplicitAutograd")
def tensor_split_indices(self: Tensor, indices: list[int], dim: int = 0) -> list[Tensor]:
    d = _split_dim(self, dim)
    out, start = [], 0
    for idx in indices:
        out.append(_aten("slice.Tensor")(self, d, start, idx))
        start = idx
    out.append(_aten("slice.Tensor")(self, d, start, self._shape[d]))
    return out


@impl("tensor_split.tensor_indices_or_sections", "CompositeImplicitAutograd")
def tensor_split_tensor(self: Tensor, tensor_indices_or_sections: Tensor, dim: int = 0) -> list[Tensor]:
    t = tensor_indices_or_sections
    if t._device.type != "cpu":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {t._device}")
    if t._dtype.name != "int64":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{_scalar_type_name(t)}")
    ndim = len(t._shape)
    if ndim not in (0, 1):
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {ndim} dims")
    if ndim == 0:
        return _aten("tensor_split.sections")(self, int(t.item()), dim)
    return _aten("tensor_split.indices")(self, [int(v) for v in t.tolist()], dim)


def _scalar_type_name(t: Tensor) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int32": "Int", "int16": "Short",
            "int8": "Char", "uint8": "Byte", "bool": "Bool"}.get(t._dtype.name, t._dtype.name)


# --- hstack / vstack ---------------------------------------------------------------------------------------------


def _atleast(t: Tensor, n: int) -> Tensor:
    """``atleast_1d`` / ``atleast_2d``: 0-dim reshaped to ``[1]`` / ``[1, 1]``, 1-d unsqueezed for 2-d."""
    ndim = len(t._shape)
    if ndim == 0:
        return _aten("reshape")(t, [1] * n)
    if n == 2 and ndim == 1:
        return _aten("unsqueeze")(t, 0)
    return t


@impl("hstack", "CompositeImplicitAutograd")
def hstack(tensors: list[Tensor]) -> Tensor:
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    rep = [_atleast(t, 1) for t in tensors]
    return _aten("cat")(rep, 0) if len(rep[0]._shape) == 1 else _aten("cat")(rep, 1)


@impl("vstack", "CompositeImplicitAutograd")
def vstack(tensors: list[Tensor]) -> Tensor:
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return _aten("cat")([_atleast(t, 2) for t in tensors], 0)



# --- in-place view ops: self takes the geometry of the matching view ---------------------------------------------


def _restride(self: Tensor, view: Tensor) -> Tensor:
    """Give ``self`` the shape and strides of ``view`` (a view of self's storage at the same offset)."""
    self._shape = view._shape
    self._stride = view._stride
    self._contiguous = view._contiguous
    if self._device.type != "meta":
        self._data = view._data
    return self


@impl("t_", "CompositeExplicitAutograd", "Meta")
def t_(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    if ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return _restride(self, _views.transpose_int(self, 0, 0 if ndim < 2 else 1))


@impl("transpose_", "CompositeExplicitAutograd", "Meta")
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _restride(self, _views.transpose_int(self, dim0, dim1))


@impl("unsqueeze_", "CompositeExplicitAutograd", "Meta")
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _restride(self, _views.unsqueeze(self, dim))


@impl("squeeze_", "CompositeExplicitAutograd")
def squeeze_(self: Tensor) -> Tensor:
    return _restride(self, _views.squeeze(self))


@impl("squeeze_.dims", "CompositeExplicitAutograd")
def squeeze__dims(self: Tensor, dim: list[int]) -> Tensor:
    return _restride(self, _views.squeeze_dims(self, dim))

