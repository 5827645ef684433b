"""The backward and scatter ops of views: ``select_backward``, ``slice_backward``, ``slice_scatter``,
``diagonal_backward``, ``diagonal_scatter``, ``diagonal_copy``.

Corresponds to aten/src/ATen/native/TensorShape.cpp. Each makes a new tensor: zeros of the input's size (or a clone
of ``self`` keeping its strides, ``clone_preserve_strides``) with the gradient / source written into the matching
view. The ``*_backward`` ops are CompositeExplicitAutograd; ``slice_scatter`` / ``diagonal_scatter`` /
``diagonal_copy`` are CompositeExplicitAutogradNonFunctional in PyTorch, registered here as CPU and Meta kernels
(the Meta one runs the same steps, which give the output's layout).
"""

from __future__ import annotations

from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .composite import _op
from .kernel_registry import impl

aten = namespace("aten")


# --- backward of select / slice (TensorShape.cpp): zeros of the input's size, the grad copied into the view -


def _zeros_like_input(grad: Tensor, input_sizes: list[int]) -> Tensor:
    """``at::zeros(input_sizes, grad.options())``."""
    return aten.zeros.default(list(input_sizes), dtype=grad._dtype, layout=0, device=grad._device)


# CompositeExplicitAutogradNonFunctional in PyTorch (plus a Meta kernel that only allocates).
@impl("select_backward", "CPU", "CompositeExplicitAutogradNonFunctional")
def select_backward(grad_output: Tensor, input_sizes: list[int], dim: int, index: int) -> Tensor:
    grad_input = _zeros_like_input(grad_output, input_sizes)
    aten.copy_.default(aten.select.int(grad_input, dim, index), grad_output)
    return grad_input


@impl("select_backward", "Meta")
def select_backward_meta(grad_output: Tensor, input_sizes: list[int], dim: int, index: int) -> Tensor:
    shape = tuple(input_sizes)
    return Tensor._empty(shape, grad_output._dtype, grad_output._device, contiguous_strides(shape))


@impl("slice_backward", "CompositeExplicitAutograd")
def slice_backward(grad_output: Tensor, input_sizes: list[int], dim: int, start: int, end: int, step: int) -> Tensor:
    grad_input = _zeros_like_input(grad_output, input_sizes)
    aten.copy_.default(aten.slice.Tensor(grad_input, dim, start, end, step), grad_output)
    return grad_input


@impl("slice_backward", "Meta")
def slice_backward_meta(grad_output: Tensor, input_sizes: list[int], dim: int, start: int, end: int,
                        step: int) -> Tensor:
    shape = tuple(input_sizes)
    return Tensor._empty(shape, grad_output._dtype, grad_output._device, contiguous_strides(shape))


def _check_src_fits(view: Tensor, src: Tensor) -> None:
    """The ``*_scatter`` kernels' check that ``src`` has the shape of the part of ``self`` it replaces."""
    if view._shape != src._shape:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src._shape)}, "
            f"slice size = {list(view._shape)}"
        )


def clone_preserve_strides(self: Tensor) -> Tensor:
    """ATen's ``clone_preserve_strides``: a copy with self's strides *and* storage offset (the whole storage is
    cloned, then viewed as self is), unless two elements share memory (a stride-0 dim), then a plain clone."""
    if any(st == 0 and n > 1 for n, st in zip(self._shape, self._stride)):
        return aten.clone.default(self)
    storage = self._storage
    if storage is not None:
        numel = storage.size
    else:  # meta: the extent self reaches
        numel = 0 if 0 in self._shape else self._storage_offset + 1 + sum(
            (n - 1) * st for n, st in zip(self._shape, self._stride))
    whole = aten.clone.default(aten.as_strided.default(self, [numel], [1], 0))
    return aten.as_strided.default(whole, list(self._shape), list(self._stride), self._storage_offset)


# CompositeExplicitAutogradNonFunctional in PyTorch, plus a Meta kernel: the same steps make the output's layout.
@impl("slice_scatter", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def slice_scatter(self: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """A copy of ``self`` (same strides and offset) with ``src`` written into ``self[dim, start:end:step]``."""
    output = clone_preserve_strides(self)
    view = aten.slice.Tensor(output, dim, start, end, step)
    _check_src_fits(view, src)
    aten.copy_.default(view, src)
    return output


def _zeros(sizes: list[int], like: Tensor) -> Tensor:
    """``at::zeros(sizes, like.options())``."""
    return _op("zeros")(list(sizes), dtype=like._dtype, layout=0, device=like._device)


@impl("diagonal_backward", "CompositeExplicitAutograd", "Meta")
def diagonal_backward(grad_output: Tensor, input_sizes: list[int], offset: int, dim1: int, dim2: int) -> Tensor:
    grad_input = _zeros(input_sizes, grad_output)
    _op("copy_")(_op("diagonal")(grad_input, offset, dim1, dim2), grad_output)
    return grad_input


@impl("diagonal_scatter", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def diagonal_scatter(self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``self`` (same strides and offset) with ``src`` written on its diagonal."""
    output = clone_preserve_strides(self)
    view = _op("diagonal")(output, offset, dim1, dim2)
    _check_src_fits(view, src)
    _op("copy_")(view, src)
    return output


@impl("diagonal_copy", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def diagonal_copy(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    from ..memory_format import contiguous_format

    return _op("clone")(_op("diagonal")(self, offset, dim1, dim2), memory_format=contiguous_format)


# --- issue 20: as_strided_ (an in-place view: self takes the geometry) and as_strided_scatter ----------------------


@impl("as_strided_", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def as_strided_(self: Tensor, size: list[int], stride: list[int], storage_offset: int | None = None) -> Tensor:
    """``setStrided``: self keeps its storage and takes the sizes, strides and offset (checked as ``as_strided``)."""
    from .views import as_strided

    view = as_strided(self, size, stride, storage_offset)
    self._shape, self._stride, self._contiguous = view._shape, view._stride, view._contiguous
    self._storage_offset = view._storage_offset
    if self._device.type != "meta":
        self._data = view._data
    return self


@impl("as_strided_scatter", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def as_strided_scatter(self: Tensor, src: Tensor, size: list[int], stride: list[int],
                       storage_offset: int | None = None) -> Tensor:
    """A clone of ``self`` with ``src`` written into ``clone.as_strided(size, stride, storage_offset)``."""
    output = aten.clone.default(self)
    view = aten.as_strided.default(output, list(size), list(stride), storage_offset)
    _check_src_fits(view, src)
    aten.copy_.default(view, src)
    return output
