"""Torch-level functions and Tensor methods of the ops_c batch (``diagonal``, ``diag``, ``movedim``, ``unflatten``,
``tensor_split``, ``hstack`` / ``vstack``, ...).

Corresponds to the python_torch_functions / python_variable_methods bindings of these ops. Each
function calls the aten overload PyTorch's binding picks (``movedim.int`` for ints, ``.intlist`` for
sequences; ``tensor_split.sections`` / ``.indices`` / ``.tensor_indices_or_sections`` by the type of its
second argument) and, as the bindings' calls appear in graphs, leaves out trailing arguments equal to
their defaults. ``functional.py`` re-exports ``__all__``; ``tensor_methods.install`` calls ``install``.
"""

from __future__ import annotations

from typing import Any

from .op_overload import namespace
from .tensor import Tensor

aten = namespace("aten")

__all__ = ["diagonal", "diagonal_copy", "diagonal_scatter", "diag", "diag_embed", "movedim", "moveaxis", "swapaxes",
           "swapdims", "unflatten", "tensor_split", "hstack", "vstack", "index_copy", "index_fill", "index_add",
           "masked_select", "is_floating_point", "nansum", "nanmean", "aminmax", "bernoulli"]


def _strip(args: list[Any], defaults: list[Any]) -> list[Any]:
    """``args`` without the trailing ones equal to their defaults (``defaults`` aligned with ``args``' tail)."""
    args = list(args)
    offset = len(args) - len(defaults)
    while len(args) > offset and args[-1] == defaults[len(args) - 1 - offset] and type(args[-1]) is not bool:
        args.pop()
    return args


def _check_tensor(name: str, x: Any, arg: str = "input", pos: int = 0) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos + 1}) must be Tensor, not {type(x).__name__}")


def _check_int(name: str, value: Any, arg: str, pos: int) -> int:
    """``value`` as the binding reads an int argument (a 0-dim integral tensor too), or its TypeError."""
    from .arg_parser import int_arg

    return int_arg(value, name, arg, pos)


def _invalid(name: str, args: tuple) -> TypeError:
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:")


def _no_out(out: Any, name: str) -> None:
    if out is not None:
        raise NotImplementedError(f"{name}(out=...) is not supported by dispatchkit")


# --- diagonals -------------------------------------------------------------------------------------------------


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
def _diagonal_method(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _diagonal_call(aten.diagonal.default, "diagonal", [self], offset, dim1, dim2, 1)


def _diagonal_scatter_method(self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    _check_tensor("diagonal_scatter", src, "src", 0)
    return _diagonal_call(aten.diagonal_scatter.default, "diagonal_scatter", [self, src], offset, dim1, dim2, 2)


def _diag_method(self: Tensor, diagonal: int = 0) -> Tensor:
    return _diag(self, diagonal, 1)


def _diag_embed_method(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return _diag_embed(self, offset, dim1, dim2, 1)


# --- moving / swapping dims --------------------------------------------------------------------------------------


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


# --- unflatten / tensor_split ----------------------------------------------------------------------------------


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


# --- hstack / vstack ---------------------------------------------------------------------------------------------


def _tensor_list(name: str, tensors: Any) -> list[Tensor]:
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
    return aten.hstack.default(_tensor_list("hstack", tensors))


def vstack(tensors: Any, *, out: Any = None) -> Tensor:
    """``torch.vstack``: ``cat`` along dim 0 after ``atleast_2d``."""
    _no_out(out, "vstack")
    return aten.vstack.default(_tensor_list("vstack", tensors))


# --- index_copy / index_fill / index_add / masked_select ----------------------------------------------------------


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """``torch.index_copy`` / ``Tensor.index_copy``: rows ``index`` along ``dim`` replaced by ``source``'s."""
    _no_out(out, "index_copy")
    _check_tensor("index_copy", input)
    return aten.index_copy.default(input, dim, index, source)


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``Tensor.index_copy_``."""
    return aten.index_copy_.default(self, dim, index, source)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:  # noqa: A002
    """``torch.index_fill`` / ``Tensor.index_fill``: ``.int_Tensor`` for a tensor value, else ``.int_Scalar``."""
    _check_tensor("index_fill", input)
    op = aten.index_fill.int_Tensor if isinstance(value, Tensor) else aten.index_fill.int_Scalar
    return op(input, dim, index, value)


def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``Tensor.index_fill_``."""
    op = aten.index_fill_.int_Tensor if isinstance(value, Tensor) else aten.index_fill_.int_Scalar
    return op(self, dim, index, value)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1,  # noqa: A002
              out: Any = None) -> Tensor:
    """``torch.index_add`` / ``Tensor.index_add``: ``source``'s rows (times ``alpha``) added at rows ``index``."""
    _no_out(out, "index_add")
    _check_tensor("index_add", input)
    if alpha != 1:
        return aten.index_add.default(input, dim, index, source, alpha=alpha)
    return aten.index_add.default(input, dim, index, source)


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """``Tensor.index_add_``."""
    if alpha != 1:
        return aten.index_add_.default(self, dim, index, source, alpha=alpha)
    return aten.index_add_.default(self, dim, index, source)


def masked_select(input: Tensor, mask: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """``torch.masked_select`` / ``Tensor.masked_select``: the elements where ``mask`` is True, as a 1-d tensor."""
    _no_out(out, "masked_select")
    _check_tensor("masked_select", input)
    _check_tensor("masked_select", mask, "mask", 1)
    return aten.masked_select.default(input, mask)


# --- new_tensor / is_floating_point -------------------------------------------------------------------------------


def new_tensor(self: Tensor, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``Tensor.new_tensor``: ``torch.tensor(data)`` with self's dtype and device unless given."""
    import warnings

    from .creation import internal_new_from_data

    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            stacklevel=2,
        )
    t = internal_new_from_data(data, self._dtype if dtype is None else dtype,
                               self._device if device is None else device)
    t = aten.detach_.default(t)
    if requires_grad:
        from .tensor_methods import _factory_requires_grad

        _factory_requires_grad(t)
    return t


def is_floating_point(input: Tensor) -> bool:  # noqa: A002
    """``torch.is_floating_point``: whether the dtype is a floating-point type. (``aten::is_floating_point`` is not
    listed: it returns a bool, computed here without dispatching, which is also all its CIA kernel does.)"""
    _check_tensor("is_floating_point", input)
    return input._dtype.is_floating_point


# --- nansum / nanmean / aminmax ----------------------------------------------------------------------------------


def _aminmax_type() -> type:
    """``torch.return_types.aminmax``: a (min, max) named tuple with PyTorch's repr."""
    import collections

    base = collections.namedtuple("aminmax", ["min", "max"])

    def __repr__(self: Any) -> str:  # noqa: N807
        return f"torch.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"

    return type("aminmax", (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "torch.return_types"})


_AminmaxResult = _aminmax_type()


def _reduce_call(name: str, input: Tensor, dim: Any, keepdim: bool, dtype: Any) -> Tensor:  # noqa: A002
    from .tensor_methods import _dim_list

    _check_tensor(name, input)
    dims = _dim_list(dim)
    args: list[Any] = [dims, True] if keepdim else ([] if dims is None else [dims])
    op = getattr(aten, name).default
    return op(input, *args) if dtype is None else op(input, *args, dtype=dtype)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,  # noqa: A002
           out: Any = None) -> Tensor:
    """``torch.nansum`` / ``Tensor.nansum``: the sum with NaNs counted as zero."""
    _no_out(out, "nansum")
    return _reduce_call("nansum", input, dim, keepdim, dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,  # noqa: A002
            out: Any = None) -> Tensor:
    """``torch.nanmean`` / ``Tensor.nanmean``: the mean of the non-NaN elements."""
    _no_out(out, "nanmean")
    return _reduce_call("nanmean", input, dim, keepdim, dtype)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False, out: Any = None) -> Any:  # noqa: A002
    """``torch.aminmax`` / ``Tensor.aminmax``: ``(min, max)`` over ``dim`` or over all elements."""
    _no_out(out, "aminmax")
    _check_tensor("aminmax", input)
    kw: dict[str, Any] = {} if dim is None else {"dim": dim}
    if keepdim:
        kw["keepdim"] = True
    return _AminmaxResult(*aten.aminmax.default(input, **kw))


def logical_not_(self: Tensor) -> Tensor:
    """``Tensor.logical_not_``: ``self`` replaced by ``not self`` (0 / 1 in its dtype)."""
    return aten.logical_not_.default(self)


# --- random ops ---------------------------------------------------------------------------------------------------


def uniform_(self: Tensor, *args: Any, generator: Any = None, **kwargs: Any) -> Tensor:
    """``Tensor.uniform_(from=0, to=1)``: fill ``self`` with draws from [from, to)."""
    low = kwargs.pop("from", args[0] if args else 0.0)
    high = kwargs.pop("to", args[1] if len(args) > 1 else 1.0)
    if kwargs or len(args) > 2:
        raise TypeError("uniform_() received an invalid combination of arguments")
    low, high = float(low), float(high)  # (the schema's floats, as the binding converts them)
    trailing = [low, high] if high != 1 else ([low] if low != 0 else [])
    kw = {} if generator is None else {"generator": generator}
    return aten.uniform_.default(self, *trailing, **kw)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """``Tensor.normal_(mean=0, std=1)``: fill ``self`` with normal draws."""
    mean, std = float(mean), float(std)
    trailing = [mean, std] if std != 1 else ([mean] if mean != 0 else [])
    kw = {} if generator is None else {"generator": generator}
    return aten.normal_.default(self, *trailing, **kw)


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None, out: Any = None) -> Tensor:  # noqa: A002
    """``torch.bernoulli`` / ``Tensor.bernoulli``: 0 / 1 draws with probabilities ``input`` (or the number ``p``)."""
    _no_out(out, "bernoulli")
    _check_tensor("bernoulli", input)
    kw = {} if generator is None else {"generator": generator}
    if p is None:
        return aten.bernoulli.default(input, **kw)
    return aten.bernoulli.p(input, float(p), **kw)


# --- in-place view methods (Tensor only) ---------------------------------------------------------------------------


def t_(self: Tensor) -> Tensor:
    """``Tensor.t_``: transpose a matrix in place (its shape and strides change; the data does not move)."""
    return aten.t_.default(self)


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """``Tensor.transpose_``: swap two dims of ``self`` in place."""
    return aten.transpose_.default(self, dim0, dim1)


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """``Tensor.unsqueeze_``: insert a size-1 dim into ``self`` in place."""
    return aten.unsqueeze_.default(self, dim)


def squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    """``Tensor.squeeze_``: drop size-1 dims of ``self`` in place (all, one, or those of a sequence)."""
    if dim is None:
        return aten.squeeze_.default(self)
    if isinstance(dim, (list, tuple)):
        return aten.squeeze_.dims(self, list(dim))
    return aten.squeeze_.dim(self, dim)


_METHODS = ("uniform_", "normal_", "bernoulli", "new_tensor", "nansum", "nanmean", "aminmax", "logical_not_", "t_", "transpose_", "unsqueeze_", "squeeze_", "index_copy", "index_copy_", "index_fill", "index_fill_",
            "index_add", "index_add_", "masked_select", "diagonal", "diagonal_scatter", "diag", "diag_embed", "movedim", "moveaxis", "swapaxes", "swapdims",
            "unflatten", "tensor_split")


_METHOD_VERSIONS = {"diagonal": _diagonal_method, "diagonal_scatter": _diagonal_scatter_method, "diag": _diag_method,
                    "diag_embed": _diag_embed_method}


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach this batch's Tensor methods (torch.Tensor has no ``diagonal_copy``, ``hstack`` or ``vstack`` methods)."""
    for name in _METHODS:
        method = _METHOD_VERSIONS.get(name, globals()[name])
        method.__name__ = name
        setattr(T, name, method)
