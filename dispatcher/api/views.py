"""Views: view / reshape / expand / permute / transpose / t / ``.T`` / ``.mT`` / ``.mH`` / ``.H``, flatten /
unflatten, unsqueeze / squeeze (and their in-place forms), select, split / chunk / unbind / tensor_split,
diagonal, movedim / swapaxes, broadcast_to / broadcast_tensors, detach, slice_scatter / diagonal_scatter:
torch-level functions and Tensor methods.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops and to
torch/functional.py's ``broadcast_tensors``. Sizes may be given as ``f(2, 3)``, ``f((2, 3))`` or
``f([2, 3])``; each function calls the aten overload PyTorch's binding picks (``movedim.int`` for ints,
``.intlist`` for sequences; ``tensor_split.sections`` / ``.indices`` / ``.tensor_indices_or_sections`` by the
type of its second argument) and, as the bindings' calls appear in graphs, leaves out trailing arguments
equal to their defaults.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_int, _check_tensor, _invalid, _no_out, _size_args, _strip

aten = namespace("aten")

__all__ = ["detach_", "split_with_sizes", "as_strided", "adjoint", "transpose", "t", "permute", "reshape", "flatten", "unsqueeze", "squeeze", "detach", "split", "chunk",
           "unbind", "select", "slice_scatter", "diagonal", "diagonal_copy", "diagonal_scatter", "movedim",
           "moveaxis", "swapaxes", "swapdims", "unflatten", "tensor_split", "broadcast_to", "broadcast_tensors"]


# --- torch-level functions -------------------------------------------------------------------------------------------
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    return aten.transpose.int(input, dim0, dim1)


def t(input: Tensor) -> Tensor:  # noqa: A002
    return aten.t.default(input)


def permute(input: Tensor, dims: Any) -> Tensor:  # noqa: A002
    return aten.permute.default(input, _size_args((dims,), "permute"))


def reshape(input: Tensor, shape: Any) -> Tensor:  # noqa: A002
    return aten.reshape.default(input, _size_args((shape,), "reshape"))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    return _flatten_method(input, start_dim, end_dim)


def unsqueeze(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    return aten.unsqueeze.default(input, dim)


def squeeze(input: Tensor, dim: Any = None, *rest: Any) -> Tensor:  # noqa: A002
    """``torch.squeeze`` (no varargs dims, unlike the method)."""
    if rest:
        raise _invalid("squeeze", (input, dim, *rest))
    return _squeeze_method(input, dim)


def detach(input: Tensor) -> Tensor:  # noqa: A002
    return aten.detach.default(input)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return _split_method(tensor, split_size_or_sections, dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    return _chunk_method(input, chunks, dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    return _unbind_method(input, dim)


def select(input: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """``torch.select`` / ``Tensor.select``: the view at ``index`` along ``dim`` (that dim removed)."""
    return aten.select.int(input, dim, index)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,  # noqa: A002
                  end: int | None = None, step: int = 1) -> Tensor:
    _check_tensor("slice_scatter", input)
    _check_tensor("slice_scatter", src, "src", 1)
    return _slice_scatter_method(input, src, dim, start, end, step)


def broadcast_to(input: Tensor, size: Any) -> Tensor:  # noqa: A002
    _check_tensor("broadcast_to", input)
    return aten.broadcast_to.default(input, list(size))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """torch/functional.py's ``broadcast_tensors(*tensors)``: ``aten.broadcast_tensors`` on the list."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tuple(aten.broadcast_tensors.default(list(tensors)))


# --- diagonals ---------------------------------------------------------------------------------------------------------
def _diagonal_call(op: Any, name: str, head: list[Any], offset: Any, dim1: Any, dim2: Any, first: int) -> Tensor:
    """``op(*head, offset, dim1, dim2)`` with trailing defaults dropped; ``first``: the parser's position of
    ``offset`` (the Tensor method counts from after ``self``)."""
    offset, dim1, dim2 = (_check_int(name, v, arg, first + k)
                          for k, (arg, v) in enumerate((("offset", offset), ("dim1", dim1), ("dim2", dim2))))
    return op(*head, *_strip([offset, dim1, dim2], [0, 0, 1]))


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """``torch.diagonal``: the view of the diagonal of ``dim1`` and ``dim2``."""
    _check_tensor("diagonal", input)
    return _diagonal_call(aten.diagonal.default, "diagonal", [input], offset, dim1, dim2, 2)


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1, *, out: Any = None) -> Tensor:  # noqa: A002
    """``torch.diagonal_copy``: the diagonal as a new contiguous tensor."""
    _no_out(out, "diagonal_copy")
    _check_tensor("diagonal_copy", input)
    return _diagonal_call(aten.diagonal_copy.default, "diagonal_copy", [input], offset, dim1, dim2, 2)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """``torch.diagonal_scatter``: a copy of ``input`` with ``src`` on its diagonal."""
    _check_tensor("diagonal_scatter", input)
    _check_tensor("diagonal_scatter", src, "src", 1)
    return _diagonal_call(aten.diagonal_scatter.default, "diagonal_scatter", [input, src], offset, dim1, dim2, 3)


# --- moving / swapping dims -------------------------------------------------------------------------------------------
def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _movedim_call(name: str, input: Tensor, source: Any, destination: Any) -> Tensor:  # noqa: A002
    packet = getattr(aten, name)
    if _is_int(source) and _is_int(destination):
        return packet.int(input, source, destination)
    seq = (list, tuple)
    if isinstance(source, seq) and isinstance(destination, seq) and all(map(_is_int, [*source, *destination])):
        return packet.intlist(input, list(source), list(destination))
    raise _invalid(name, (input, source, destination))


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:  # noqa: A002
    """``torch.movedim`` / ``Tensor.movedim``: ``movedim.int`` for two ints, ``movedim.intlist`` for sequences."""
    _check_tensor("movedim", input)
    return _movedim_call("movedim", input, source, destination)


def moveaxis(input: Tensor, source: Any, destination: Any) -> Tensor:  # noqa: A002
    """``torch.moveaxis`` / ``Tensor.moveaxis``: NumPy's name of ``movedim``."""
    _check_tensor("moveaxis", input)
    return _movedim_call("moveaxis", input, source, destination)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:  # noqa: A002
    """``torch.swapaxes`` / ``Tensor.swapaxes``: NumPy's name of ``transpose``."""
    _check_tensor("swapaxes", input)
    return aten.swapaxes.default(input, axis0, axis1)


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    """``torch.swapdims`` / ``Tensor.swapdims``: an alias of ``transpose``."""
    _check_tensor("swapdims", input)
    return aten.swapdims.default(input, dim0, dim1)


# --- unflatten / tensor_split ------------------------------------------------------------------------------------------
def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:  # noqa: A002
    """``torch.unflatten`` / ``Tensor.unflatten``: ``dim`` viewed as ``sizes`` (one of them may be -1)."""
    _check_tensor("unflatten", input)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    return aten.unflatten.int(input, dim, list(sizes))


def tensor_split(input: Tensor, indices_or_sections: Any = None, dim: int = 0, *, sections: Any = None,  # noqa: A002
                 indices: Any = None, tensor_indices_or_sections: Any = None) -> tuple[Tensor, ...]:
    """``torch.tensor_split`` / ``Tensor.tensor_split``: the overload chosen by the split argument's type."""
    _check_tensor("tensor_split", input)
    given = [v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections) if v is not None]
    if len(given) != 1:
        raise _invalid("tensor_split", (input, *given))
    split = given[0]
    tail = [dim] if dim else []
    as_tensor = indices_or_sections is not None or tensor_indices_or_sections is not None
    as_sections = indices_or_sections is not None or sections is not None
    as_indices = indices_or_sections is not None or indices is not None
    if isinstance(split, Tensor) and as_tensor:
        return tuple(aten.tensor_split.tensor_indices_or_sections(input, split, *tail))
    if _is_int(split) and as_sections:
        return tuple(aten.tensor_split.sections(input, split, *tail))
    if isinstance(split, (list, tuple)) and all(map(_is_int, split)) and as_indices:
        return tuple(aten.tensor_split.indices(input, list(split), *tail))
    raise _invalid("tensor_split", (input, split))


# --- Tensor methods ----------------------------------------------------------------------------------------------------
def view(self: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], _dt.dtype):
        return aten.view.dtype(self, shape[0])
    return aten.view.default(self, _size_args(shape, "view"))


def _reshape_method(self: Tensor, *shape: Any) -> Tensor:
    return aten.reshape.default(self, _size_args(shape, "reshape"))


def expand(self: Tensor, *sizes: Any) -> Tensor:
    return aten.expand.default(self, _size_args(sizes, "expand"))


def _permute_method(self: Tensor, *dims: Any) -> Tensor:
    return aten.permute.default(self, _size_args(dims, "permute"))


def _transpose_method(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return aten.transpose.int(self, dim0, dim1)


def _t_method(self: Tensor) -> Tensor:
    return aten.t.default(self)


def _T(self: Tensor) -> Tensor:  # noqa: N802
    return aten.numpy_T.default(self)


def _mT(self: Tensor) -> Tensor:  # noqa: N802
    return aten.mT.default(self)


def _mH(self: Tensor) -> Tensor:  # noqa: N802
    return aten.mH.default(self)


def _H(self: Tensor) -> Tensor:  # noqa: N802
    return aten.matrix_H.default(self)


def adjoint(self: Tensor) -> Tensor:
    return aten.adjoint.default(self)


def _flatten_method(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if end_dim == -1:
        return aten.flatten.using_ints(self, start_dim) if start_dim else aten.flatten.using_ints(self)
    return aten.flatten.using_ints(self, start_dim, end_dim)


def _unsqueeze_method(self: Tensor, dim: int) -> Tensor:
    return aten.unsqueeze.default(self, dim)


def _squeeze_method(self: Tensor, dim: Any = None, *dims: Any) -> Tensor:
    """``squeeze()`` / ``squeeze(int dim)`` / ``squeeze(int[] dim)``; the method also takes the dims as separate
    arguments (``x.squeeze(0, 2)``: an ``int[]`` parameter alone accepts varargs in torch's parser)."""
    if dims:
        return aten.squeeze.dims(self, [dim, *dims])
    if dim is None:
        return aten.squeeze.default(self)
    if isinstance(dim, (tuple, list)):
        return aten.squeeze.dims(self, list(dim))
    return aten.squeeze.dim(self, dim)


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return aten.expand_as.default(self, other)


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return aten.view_as.default(self, other)


def _broadcast_to_method(self: Tensor, *size: Any) -> Tensor:
    shape = size[0] if len(size) == 1 and isinstance(size[0], (list, tuple)) else size
    return aten.broadcast_to.default(self, list(shape))


def _reshape_as_method(self: Tensor, other: Tensor) -> Tensor:
    _check_tensor("reshape_as", other, "other", 0)
    return aten.reshape_as.default(self, other)


def _detach_method(self: Tensor) -> Tensor:
    return aten.detach.default(self)


def detach_(self: Tensor) -> Tensor:
    return aten.detach_.default(self)


def _unbind_method(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(aten.unbind.int(self, dim) if dim else aten.unbind.int(self))


def _split_method(self: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    if isinstance(split_size, (list, tuple)):
        try:
            op = aten.split_with_sizes.default
        except AttributeError:
            raise NotImplementedError("split with a list of sizes needs aten::split_with_sizes, which is not in the "
                                      "op listing yet") from None
        return tuple(op(self, list(split_size), dim) if dim else op(self, list(split_size)))
    return tuple(aten.split.Tensor(self, split_size, dim) if dim else aten.split.Tensor(self, split_size))


def _chunk_method(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(aten.chunk.default(self, chunks, dim) if dim else aten.chunk.default(self, chunks))


def _slice_scatter_method(self: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """``aten.slice_scatter.default``, trailing default arguments left out as PyTorch's binding does."""
    args: list[Any] = [self, src, dim, start, end, step]
    defaults = [0, None, None, 1]
    while len(args) > 2 and args[-1] == defaults[len(args) - 3] and type(args[-1]) is type(defaults[len(args) - 3]):
        args.pop()
    return aten.slice_scatter.default(*args)


# Tensor methods: the same calls, argument positions counted after ``self``
def _diagonal_method(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _diagonal_call(aten.diagonal.default, "diagonal", [self], offset, dim1, dim2, 1)


def _diagonal_scatter_method(self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    _check_tensor("diagonal_scatter", src, "src", 0)
    return _diagonal_call(aten.diagonal_scatter.default, "diagonal_scatter", [self, src], offset, dim1, dim2, 2)


# --- in-place view methods (Tensor only) -------------------------------------------------------------------------------
def t_(self: Tensor) -> Tensor:
    """``Tensor.t_``: transpose a matrix in place (its shape and strides change; the data does not move)."""
    return aten.t_.default(self)


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """``Tensor.transpose_``: swap two dims of ``self`` in place."""
    return aten.transpose_.default(self, dim0, dim1)


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """``Tensor.unsqueeze_``: insert a size-1 dim into ``self`` in place."""
    return aten.unsqueeze_.default(self, dim)


def squeeze_(self: Tensor, dim: Any = None, *dims: Any) -> Tensor:
    """``Tensor.squeeze_``: drop size-1 dims of ``self`` in place (all, one, or those of a sequence, also given as
    separate arguments)."""
    if dims:
        return aten.squeeze_.dims(self, [dim, *dims])
    if dim is None:
        return aten.squeeze_.default(self)
    if isinstance(dim, (list, tuple)):
        return aten.squeeze_.dims(self, list(dim))
    return aten.squeeze_.dim(self, dim)


#: Tensor methods defined above under their own names
_METHODS = ("select", "movedim", "moveaxis", "swapaxes", "swapdims", "unflatten", "tensor_split")


def _split_with_sizes_method(self: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    sizes = list(split_sizes)
    out = aten.split_with_sizes.default(self, sizes, dim) if dim != 0 else aten.split_with_sizes.default(self, sizes)
    return tuple(out)


def _as_strided_method(self: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    if storage_offset is None:
        return aten.as_strided.default(self, list(size), list(stride))
    return aten.as_strided.default(self, list(size), list(stride), storage_offset)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the view Tensor methods and properties (called by ``tensor_methods.install``)."""
    for name in _METHODS:
        setattr(T, name, globals()[name])
    methods = {
        "view": view, "reshape": _reshape_method, "expand": expand, "permute": _permute_method,
        "transpose": _transpose_method, "t": _t_method, "adjoint": adjoint, "flatten": _flatten_method,
        "split_with_sizes": _split_with_sizes_method, "as_strided": _as_strided_method,
        "unsqueeze": _unsqueeze_method, "squeeze": _squeeze_method, "expand_as": expand_as, "view_as": view_as,
        "broadcast_to": _broadcast_to_method, "reshape_as": _reshape_as_method, "detach": _detach_method,
        "detach_": detach_, "unbind": _unbind_method, "split": _split_method, "chunk": _chunk_method,
        "slice_scatter": _slice_scatter_method, "t_": t_, "transpose_": transpose_, "unsqueeze_": unsqueeze_,
        "squeeze_": squeeze_,
    }
    for name, method in methods.items():
        setattr(T, name, method)
    for name, method in (("diagonal", _diagonal_method), ("diagonal_scatter", _diagonal_scatter_method)):
        method.__name__ = name
        setattr(T, name, method)
    T.T = property(_T)
    T.mT = property(_mT)
    T.mH = property(_mH)
    T.H = property(_H)


# --- issue 20: as_strided / as_strided_ / as_strided_scatter ------------------------------------------------------
def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:  # noqa: A002
    """``torch.as_strided`` / ``Tensor.as_strided``: a view of ``input``'s storage with the given geometry."""
    args = [input, list(size), list(stride)] + ([int(storage_offset)] if storage_offset is not None else [])
    return aten.as_strided.default(*args)


def as_strided_(self: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    """``Tensor.as_strided_``: ``self`` itself takes the geometry."""
    args = [self, list(size), list(stride)] + ([int(storage_offset)] if storage_offset is not None else [])
    return aten.as_strided_.default(*args)


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any,  # noqa: A002
                       storage_offset: Any = None) -> Tensor:
    """``torch.as_strided_scatter``: a copy of ``input`` with ``src`` written into the strided view."""
    args = [input, src, list(size), list(stride)] + ([int(storage_offset)] if storage_offset is not None else [])
    return aten.as_strided_scatter.default(*args)


__all__ += ["as_strided", "as_strided_scatter"]
_METHODS = (*_METHODS, "as_strided", "as_strided_", "as_strided_scatter")


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    return _split_with_sizes_method(input, split_sizes, dim)

