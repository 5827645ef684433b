"""Core-aten decompositions of the view ops and of their backwards: ``t``, ``transpose``, ``detach``,
``_unsafe_view``, ``squeeze``, ``split``, ``unbind``, ``slice_backward``, ``select_backward``,
``diagonal_backward``, ``diagonal_copy``.

Corresponds to the matching entries of torch/_decomp/decompositions.py and the torch/_refs/__init__.py functions
PyTorch 2.13's ``core_aten_decompositions()`` uses; each calls the same aten ops in the same order:

* ``t`` / ``transpose`` -> ``permute`` (``alias`` below 2-d or for equal dims); ``detach`` -> ``alias``;
  ``_unsafe_view`` -> ``view``; ``squeeze`` / ``squeeze.dim`` -> ``squeeze.dims``;
* ``split`` -> ``split_with_sizes``; ``unbind`` -> a ``slice`` and a ``squeeze.dims`` per element;
* ``slice_backward`` / ``diagonal_backward``: ``new_zeros`` of the input's size, then ``slice_scatter`` /
  ``diagonal_scatter`` of the gradient; ``select_backward``: the reference of ``select_scatter`` (an ``arange`` mask
  and ``where``);
* ``diagonal_copy``: the ``diagonal`` view cloned contiguous (the references' copy-from-view rule).

As in PyTorch, diagonal arguments equal to their trailing defaults are not passed (graphs print what the call gave).
"""

from __future__ import annotations

from dispatcher.memory_format import contiguous_format
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .dims import _wrap
from .registry import register_decomposition

aten = namespace("aten")


@register_decomposition(aten.t)
def t(self: Tensor) -> Tensor:
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return transpose(self, 0, 1)


@register_decomposition(aten.transpose.int)
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    ndim = self.dim()
    if ndim <= 1 or _wrap(dim0, ndim) == _wrap(dim1, ndim):
        return aten.alias.default(self)
    perm = list(range(ndim))
    d0, d1 = _wrap(dim0, ndim), _wrap(dim1, ndim)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return aten.permute.default(self, perm)


@register_decomposition(aten.detach.default)
def detach(self: Tensor) -> Tensor:
    return aten.alias.default(self)


@register_decomposition(aten._unsafe_view.default)
def _unsafe_view(self: Tensor, size: list[int]) -> Tensor:
    return aten.view.default(self, size)


@register_decomposition([aten.squeeze.default, aten.squeeze.dim])
def squeeze(self: Tensor, dim: int | None = None) -> Tensor:
    dims = list(range(self.dim())) if dim is None else [dim]
    return aten.squeeze.dims(self, dims)


@register_decomposition(aten.split.Tensor)
def split(self: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    dim_size = self.shape[dim]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if dim_size == 0:
        return (self.detach(),)
    if split_size == 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}")
    chunks = (dim_size + split_size - 1) // split_size
    sizes = [split_size] * chunks
    sizes[-1] = dim_size - split_size * (chunks - 1)
    return aten.split_with_sizes.default(self, sizes, dim)


@register_decomposition(aten.unbind.int)
def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = _wrap(dim, self.dim())
    n = self.shape[dim]
    if n == 0:
        return []
    pieces = [aten.slice.Tensor(self, dim, i, i + 1) for i in range(n)]
    return [aten.squeeze.dims(p, [dim]) for p in pieces]


# --- view backwards ---------------------------------------------------------------------------------------------------


@register_decomposition(aten.slice_backward.default)
def slice_backward(grad_output: Tensor, input_sizes: list[int], dim: int, start: int, end: int, step: int) -> Tensor:
    """Zeros of the input's size with the gradient scattered into the slice."""
    grad_input = aten.new_zeros.default(grad_output, list(input_sizes))
    return aten.slice_scatter.default(grad_input, grad_output, dim, start, end, step)


@register_decomposition(aten.select_backward.default)
def select_backward(grad_output: Tensor, input_sizes: list[int], dim: int, index: int) -> Tensor:
    grad_input = grad_output.new_zeros(input_sizes)
    # select_scatter(grad_input, grad_output, dim, index), as PyTorch's reference writes it
    ndim = grad_input.dim()
    dim = dim % ndim if ndim else 0
    mask_shape = [1] * ndim
    mask_shape[dim] = -1
    if index < 0:
        index += grad_input.shape[dim]
    mask = aten.arange.default(grad_input.shape[dim], device=grad_input.device).view(mask_shape) == index
    src = aten.unsqueeze.default(grad_output, dim).expand(grad_input.shape)
    return aten.where(mask, src, grad_input)


# --- diagonal ---------------------------------------------------------------------------------------------------------


def _diagonal_args(offset: int, dim1: int, dim2: int) -> tuple[int, ...]:
    """``(offset, dim1, dim2)`` without the trailing ones equal to the schema's defaults (0, 0, 1)."""
    args = [offset, dim1, dim2]
    defaults = [0, 0, 1]
    while args and args[-1] == defaults[len(args) - 1]:
        args.pop()
    return tuple(args)


@register_decomposition(aten.diagonal_backward.default)
def diagonal_backward(grad_output: Tensor, input_sizes: list[int], offset: int, dim1: int, dim2: int) -> Tensor:
    grad_input = aten.new_zeros.default(grad_output, list(input_sizes))
    return aten.diagonal_scatter.default(grad_input, grad_output, *_diagonal_args(offset, dim1, dim2))


@register_decomposition(aten.diagonal_copy.default)
def diagonal_copy(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    view = aten.diagonal.default(self, *_diagonal_args(offset, dim1, dim2))
    return aten.clone.default(view, memory_format=contiguous_format)


@register_decomposition(aten.unsafe_split.Tensor)
def unsafe_split(self: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    return aten.split.Tensor(self, split_size, dim)
