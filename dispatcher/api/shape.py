"""Shape ops: cat / stack / hstack / vstack, tril / triu, flip / roll, sort / argsort / topk, narrow, repeat /
tile, diag / diag_embed: torch-level functions and Tensor methods.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops. ``sort`` and
``topk`` return ``torch.return_types.sort`` / ``topk``; ``sort(stable=...)`` picks ``sort.stable``. As the
bindings' calls appear in graphs, trailing arguments equal to their defaults are left out.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _ABSENT, _check_int, _check_tensor, _no_out, _return_type, _size_args, _strip

aten = namespace("aten")

__all__ = ["constant_pad_nd", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "tril", "triu", "flip", "roll", "narrow",
           "tile", "topk", "sort", "argsort", "diag", "diag_embed"]
__all__ += ["channel_shuffle", "native_channel_shuffle"]  # issue 19


# --- joining ----------------------------------------------------------------------------------------------------------
def _tensor_list(name: str, tensors: Any) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def cat(tensors: Any, dim: int = 0, *, out: Any = None) -> Tensor:
    _no_out(out, "cat")
    ts = _tensor_list("cat", tensors)
    return aten.cat.default(ts, dim) if dim else aten.cat.default(ts)


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0, *, out: Any = None) -> Tensor:
    _no_out(out, "stack")
    ts = _tensor_list("stack", tensors)
    return aten.stack.default(ts, dim) if dim else aten.stack.default(ts)


def _hvstack_tensors(name: str, tensors: Any) -> list[Tensor]:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                            f"{type(tensors).__name__}")
    return list(tensors)


def hstack(tensors: Any, *, out: Any = None) -> Tensor:
    """``torch.hstack``: ``cat`` along dim 1 (dim 0 for 1-d tensors) after ``atleast_1d``."""
    _no_out(out, "hstack")
    return aten.hstack.default(_hvstack_tensors("hstack", tensors))


def vstack(tensors: Any, *, out: Any = None) -> Tensor:
    """``torch.vstack``: ``cat`` along dim 0 after ``atleast_2d``."""
    _no_out(out, "vstack")
    return aten.vstack.default(_hvstack_tensors("vstack", tensors))


# --- triangles, flips, rolls, narrow, repeat / tile ----------------------------------------------------------------
def tril(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """``torch.tril`` / ``Tensor.tril``: the lower triangle of the last two dims (on and below ``diagonal``)."""
    return aten.tril.default(input) if diagonal == 0 else aten.tril.default(input, diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """``torch.triu`` / ``Tensor.triu``: the upper triangle of the last two dims (on and above ``diagonal``)."""
    return aten.triu.default(input) if diagonal == 0 else aten.triu.default(input, diagonal)


def flip(input: Tensor, *dims: Any) -> Tensor:  # noqa: A002
    """``torch.flip(input, dims)`` / ``Tensor.flip(*dims)``: reverse the order along ``dims``."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    return aten.flip.default(input, list(dims))


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:  # noqa: A002
    """``torch.roll`` / ``Tensor.roll``: ``dims`` passed only when given."""
    shifts_list = [shifts] if isinstance(shifts, int) else list(shifts)
    if dims is None:
        return aten.roll.default(input, shifts_list)
    return aten.roll.default(input, shifts_list, [dims] if isinstance(dims, int) else list(dims))


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:  # noqa: A002
    """``torch.narrow`` / ``Tensor.narrow``: ``length`` elements from ``start`` along ``dim`` (a view)."""
    return aten.narrow.default(input, dim, start, length)


def repeat(self: Tensor, *sizes: Any) -> Tensor:
    """``Tensor.repeat(*sizes)``: tile the data (no ``torch.repeat`` function, as in PyTorch)."""
    return aten.repeat.default(self, _size_args(sizes, "repeat"))


def tile(input: Tensor, *dims: Any) -> Tensor:  # noqa: A002
    """``torch.tile(input, dims)`` / ``Tensor.tile(*dims)``."""
    return aten.tile.default(input, _size_args(dims, "tile"))


# --- sort / argsort / topk ---------------------------------------------------------------------------------------------
topk_return = _return_type("topk")
sort_return = _return_type("sort")


def _trailing(args: list[Any], defaults: list[Any]) -> list[Any]:
    """Drop trailing arguments equal to their defaults, as PyTorch's binding passes them."""
    while args and args[-1] == defaults[len(args) - 1] and type(args[-1]) is type(defaults[len(args) - 1]):
        args.pop()
    return args


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    """``torch.topk`` / ``Tensor.topk`` -> ``(values, indices)``."""
    extra = _trailing([dim, largest, sorted], [-1, True, True])
    return topk_return(*aten.topk.default(input, k, *extra))


def _stable_kwargs(stable: Any, dim: int, descending: bool) -> dict[str, Any]:
    kw: dict[str, Any] = {"stable": stable}
    if dim != -1:
        kw["dim"] = dim
    if descending:
        kw["descending"] = True
    return kw


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: Any = _ABSENT) -> Any:  # noqa: A002
    """``torch.sort`` / ``Tensor.sort`` -> ``(values, indices)``: ``sort.stable`` when ``stable=`` is given."""
    if stable is not _ABSENT:
        return sort_return(*aten.sort.stable(input, **_stable_kwargs(stable, dim, descending)))
    return sort_return(*aten.sort.default(input, *_trailing([dim, descending], [-1, False])))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: Any = _ABSENT) -> Tensor:  # noqa: A002
    """``torch.argsort`` / ``Tensor.argsort``: the indices ``sort`` would give."""
    if stable is not _ABSENT:
        return aten.argsort.stable(input, **_stable_kwargs(stable, dim, descending))
    return aten.argsort.default(input, *_trailing([dim, descending], [-1, False]))


# --- diag / diag_embed -------------------------------------------------------------------------------------------------
def diag(input: Tensor, diagonal: int = 0, *, out: Any = None) -> Tensor:  # noqa: A002
    """``torch.diag``: a 1-d input's diagonal matrix, or a 2-d input's diagonal."""
    _no_out(out, "diag")
    _check_tensor("diag", input)
    return _diag(input, diagonal, 2)


def _diag(input: Tensor, diagonal: Any, first: int) -> Tensor:  # noqa: A002
    diagonal = _check_int("diag", diagonal, "diagonal", first)
    return aten.diag.default(input, diagonal) if diagonal else aten.diag.default(input)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: A002
    """``torch.diag_embed``: the last dim laid on the diagonal of new dims ``dim1`` / ``dim2``."""
    _check_tensor("diag_embed", input)
    return _diag_embed(input, offset, dim1, dim2, 2)


def _diag_embed(input: Tensor, offset: Any, dim1: Any, dim2: Any, first: int) -> Tensor:  # noqa: A002
    offset, dim1, dim2 = (_check_int("diag_embed", v, arg, first + k)
                          for k, (arg, v) in enumerate((("offset", offset), ("dim1", dim1), ("dim2", dim2))))
    return aten.diag_embed.default(input, *_strip([offset, dim1, dim2], [0, -2, -1]))


# Tensor methods: the same calls, argument positions counted after ``self``
def _diag_method(self: Tensor, diagonal: int = 0) -> Tensor:
    return _diag(self, diagonal, 1)


def _diag_embed_method(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return _diag_embed(self, offset, dim1, dim2, 1)


#: Tensor methods defined above under their own names (torch.Tensor has no ``cat``, ``hstack`` or ``vstack``)
_METHODS = ("tril", "triu", "flip", "roll", "narrow", "repeat", "tile", "topk", "sort", "argsort")


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the shape Tensor methods (called by ``tensor_methods.install``)."""
    for name in _METHODS:
        setattr(T, name, globals()[name])
    for name, method in (("diag", _diag_method), ("diag_embed", _diag_embed_method)):
        method.__name__ = name
        setattr(T, name, method)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """``torch.channel_shuffle`` (also ``nn.functional.channel_shuffle``): regroup the channels (dim 1)."""
    return aten.channel_shuffle.default(input, _check_int("channel_shuffle", groups, "groups", 2))


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """``torch.native_channel_shuffle`` (also ``nn.functional.native_channel_shuffle``)."""
    return aten.native_channel_shuffle.default(input, _check_int("native_channel_shuffle", groups, "groups", 2))


def constant_pad_nd(input: Tensor, pad: Any, value: Any = 0) -> Tensor:  # noqa: A002
    """``torch.constant_pad_nd``: ``aten.constant_pad_nd`` (value passed only when not 0, as torch's binding)."""
    if type(value) is int and value == 0:
        return aten.constant_pad_nd.default(input, list(pad))
    return aten.constant_pad_nd.default(input, list(pad), value)
