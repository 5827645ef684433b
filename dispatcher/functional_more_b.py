"""Torch-level functions and Tensor methods of the ops_b batch (``tril``, ``var``, ``std_mean``, ``logsumexp``, ...).

Corresponds to the python_torch_functions / python_variable_methods bindings of these ops.
The var/std family follows PyTorch's argument parser, which has three signatures, one per
overload: ``(dim, unbiased=True, keepdim=False)`` -> ``.dim`` (chosen when ``dim`` is given
without ``correction``), ``(unbiased=True)`` -> ``.default`` and ``(dim=None, *, correction=None,
keepdim=False)`` -> ``.correction`` (everything else, ``x.var()`` included). Trailing arguments
equal to their defaults are dropped, as the binding does: ``x.var(1)`` calls ``var.dim(x, [1])``,
whose CompositeImplicitAutograd kernel calls ``var.correction(x, [1], correction=1)``.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as _dt
from .op_overload import namespace
from .tensor import Tensor
from .tensor_methods import _dim_list, _return_type, _size_args

aten = namespace("aten")

__all__ = ["tril", "triu", "var", "std", "var_mean", "std_mean", "logsumexp", "cumsum", "cumprod", "prod", "all",
           "any", "norm", "flip", "gather", "scatter", "scatter_add", "select", "baddbmm", "narrow", "tile", "outer",
           "roll", "topk", "sort", "argsort"]

#: Tensor methods of this batch (torch.Tensor has no ``var_mean`` / ``std_mean`` methods)
_METHODS = ("tril", "triu", "var", "std", "logsumexp", "bitwise_and_", "cumsum", "cumprod", "prod", "all", "any",
            "norm", "flip", "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "select", "baddbmm",
            "narrow", "repeat", "tile", "outer", "roll", "topk", "sort", "argsort")


_ABSENT = object()


def _invalid(name: str, args: tuple, kwargs: dict) -> TypeError:
    # PyTorch's parser lists keyword arguments last-given first (ending in ", " when there are no positional ones)
    named = [f"{k}={type(v).__name__}" for k, v in reversed(kwargs.items())]
    got = ", ".join([type(a).__name__ for a in args] + named) if args else "".join(f"{n}, " for n in named)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:")


def _moments_call(name: str, self: Tensor, args: tuple, kwargs: dict) -> Any:
    """Parse var/std-style arguments as PyTorch's binding does and call the overload its signature maps to."""
    if not isinstance(self, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}")
    packet = getattr(aten, name)
    unknown = set(kwargs) - {"dim", "unbiased", "keepdim", "correction"}
    if unknown or len(args) > 3:
        raise _invalid(name, args, kwargs)
    if args and isinstance(args[0], bool):  # the (unbiased) signature
        if len(args) > 1 or set(kwargs) - {"unbiased"} or "unbiased" in kwargs:
            raise _invalid(name, args, kwargs)
        return packet.default(self) if args[0] else packet.default(self, False)
    given = dict(zip(("dim", "unbiased", "keepdim"), args))
    for key in given:
        if key in kwargs:
            raise TypeError(f"{name}() got multiple values for argument '{key}'")
    given.update(kwargs)
    dim = given.get("dim")
    if dim is not None and (isinstance(dim, (bool, float)) or not isinstance(dim, (int, list, tuple))):
        raise _invalid(name, args, kwargs)
    if "unbiased" in given and not isinstance(given["unbiased"], bool):
        raise _invalid(name, args, kwargs)
    keepdim = bool(given.get("keepdim", False))
    dims = _dim_list(dim)
    if "correction" in given or not ({"dim", "unbiased"} & set(given)):  # the (dim=None, *, correction) signature
        if "unbiased" in given or len(args) > 1:
            raise _invalid(name, args, kwargs)
        kw: dict[str, Any] = {}
        if given.get("correction") is not None:
            kw["correction"] = given["correction"]
        if keepdim:
            kw["keepdim"] = True
        return packet.correction(self, **kw) if dims is None else packet.correction(self, dims, **kw)
    if "dim" not in given:  # (unbiased) alone: no keepdim in that signature
        if keepdim or "keepdim" in given:
            raise _invalid(name, args, kwargs)
        return packet.default(self) if given["unbiased"] else packet.default(self, False)
    unbiased = given.get("unbiased", True)
    if keepdim:  # (dim, unbiased=True, keepdim=False): trailing defaults dropped, as PyTorch's binding does
        return packet.dim(self, dims, unbiased, True)
    return packet.dim(self, dims) if unbiased else packet.dim(self, dims, False)


def var(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """``torch.var`` / ``Tensor.var``: ``aten.var.dim`` / ``.default`` / ``.correction``."""
    return _moments_call("var", input, args, kwargs)


def std(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """``torch.std`` / ``Tensor.std``: ``aten.std.dim`` / ``.default`` / ``.correction``."""
    return _moments_call("std", input, args, kwargs)


def var_mean(input: Tensor, *args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``torch.var_mean``: (var, mean), by the overload the arguments select."""
    return tuple(_moments_call("var_mean", input, args, kwargs))


def std_mean(input: Tensor, *args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``torch.std_mean``: (std, mean), by the overload the arguments select."""
    return tuple(_moments_call("std_mean", input, args, kwargs))


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``torch.logsumexp`` / ``Tensor.logsumexp``: log of the summed exponentials over ``dim``."""
    dims = _dim_list(dim)
    if keepdim:
        return aten.logsumexp.default(input, dims, True)
    return aten.logsumexp.default(input, dims)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """``torch.tril`` / ``Tensor.tril``: the lower triangle of the last two dims (on and below ``diagonal``)."""
    return aten.tril.default(input) if diagonal == 0 else aten.tril.default(input, diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """``torch.triu`` / ``Tensor.triu``: the upper triangle of the last two dims (on and above ``diagonal``)."""
    return aten.triu.default(input) if diagonal == 0 else aten.triu.default(input, diagonal)


def _dtype_kw(dtype: Any) -> dict[str, Any]:
    return {} if dtype is None else {"dtype": _dt.from_code(dtype)}


def _int_dim(name: str, dim: Any) -> int:
    from .arg_parser import int_arg  # (a 0-dim integral tensor is read as its value, as the binding does)

    return int_arg(dim, name, "dim")


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``torch.cumsum`` / ``Tensor.cumsum``: running sums along ``dim``."""
    return aten.cumsum.default(input, _int_dim("cumsum", dim), **_dtype_kw(dtype))


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``torch.cumprod`` / ``Tensor.cumprod``: running products along ``dim``."""
    return aten.cumprod.default(input, _int_dim("cumprod", dim), **_dtype_kw(dtype))


def prod(input: Tensor, dim: Any = _ABSENT, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``torch.prod`` / ``Tensor.prod``: ``prod.default`` over everything, ``prod.dim_int`` along one dim."""
    if dim is _ABSENT or dim is None:
        if keepdim:
            raise TypeError("prod() received an invalid combination of arguments - got (keepdim=bool, ), but "
                            "expected one of:")
        return aten.prod.default(input, **_dtype_kw(dtype))
    if keepdim:
        return aten.prod.dim_int(input, dim, True, **_dtype_kw(dtype))
    return aten.prod.dim_int(input, dim, **_dtype_kw(dtype))


def _logical_reduction(name: str) -> Any:
    def reduce(input: Tensor, dim: Any = _ABSENT, keepdim: bool = False) -> Tensor:  # noqa: A002
        packet = getattr(aten, name)
        if dim is _ABSENT and not keepdim:
            return packet.default(input)
        if isinstance(dim, int) and not isinstance(dim, bool):
            return packet.dim(input, dim, True) if keepdim else packet.dim(input, dim)
        dims = None if dim is _ABSENT or dim is None else list(dim)
        if keepdim:
            return packet.dims(input, dims, True)
        return packet.dims(input) if dims is None else packet.dims(input, dims)

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = (f"``torch.{name}`` / ``Tensor.{name}``: ``{name}.default`` over everything, ``{name}.dim`` "
                      f"along an int dim, ``{name}.dims`` along a list (or None with keepdim).")
    return reduce


all = _logical_reduction("all")  # noqa: A001 - torch's name
any = _logical_reduction("any")  # noqa: A001 - torch's name


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Any = None,  # noqa: A002
         dtype: Any = None) -> Tensor:
    """``torch.norm`` / ``Tensor.norm`` as torch/functional.py: a vector norm (``linalg_vector_norm``) for numeric
    ``p`` and for "fro" over at most two dims; matrix norms ("nuc", "fro" over more dims) are not supported."""
    if out is not None:
        raise NotImplementedError("norm(out=...) is not supported by dispatchkit")
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if isinstance(p, str):
        if p != "fro" or (dims is not None and len(dims) > 2):
            raise NotImplementedError(f"norm(p={p!r}) calls linalg.matrix_norm, which dispatchkit does not list")
        ord_: Any = 2
    else:
        ord_ = 2.0 if p is None else p
    # positional (ord, dim, keepdim) with trailing defaults dropped, as PyTorch's binding passes them
    args: list[Any] = [ord_, dims, keepdim]
    defaults = [lambda v: v == 2 and type(v) is int, lambda v: v is None, lambda v: v is False]
    while args and defaults[len(args) - 1](args[-1]):
        args.pop()
    return aten.linalg_vector_norm.default(input, *args, **_dtype_kw(dtype))


def flip(input: Tensor, *dims: Any) -> Tensor:  # noqa: A002
    """``torch.flip(input, dims)`` / ``Tensor.flip(*dims)``: reverse the order along ``dims``."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    return aten.flip.default(input, list(dims))


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:  # noqa: A002
    """``torch.gather`` / ``Tensor.gather``: ``gather(input, dim, index)`` (``sparse_grad`` only when true)."""
    if sparse_grad:
        return aten.gather.default(input, dim, index, sparse_grad=True)
    return aten.gather.default(input, dim, index)


def _scatter_overload(name: str, src: Any, value: Any, reduce: Any) -> tuple[str, Any]:
    if reduce is not None:
        raise NotImplementedError(f"{name}(reduce=...) calls aten::{name}.reduce, which dispatchkit does not list")
    if (src is None) == (value is None):
        raise TypeError(f"{name}() received an invalid combination of arguments - got an index but not exactly one "
                        "of src / value, but expected one of:")
    return ("src", src) if src is not None and isinstance(src, Tensor) else ("value", src if value is None else value)


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,  # noqa: A002
            reduce: Any = None) -> Tensor:
    """``torch.scatter`` / ``Tensor.scatter``: ``scatter.src`` for a tensor, ``scatter.value`` for a number."""
    kind, what = _scatter_overload("scatter", src, value, reduce)
    return getattr(aten.scatter, kind)(input, dim, index, what)


def scatter_(self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: Any = None) -> Tensor:
    """``Tensor.scatter_``: ``scatter_.src`` / ``scatter_.value`` in place."""
    kind, what = _scatter_overload("scatter_", src, value, reduce)
    return getattr(aten.scatter_, kind)(self, dim, index, what)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """``torch.scatter_add`` / ``Tensor.scatter_add``: sums of ``src`` at ``index`` added to ``input``."""
    return aten.scatter_add.default(input, dim, index, src)


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``Tensor.scatter_add_``."""
    return aten.scatter_add_.default(self, dim, index, src)


def select(input: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """``torch.select`` / ``Tensor.select``: the view at ``index`` along ``dim`` (that dim removed)."""
    return aten.select.int(input, dim, index)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``torch.baddbmm`` / ``Tensor.baddbmm``: ``beta * input + alpha * (batch1 @ batch2)``; scalars only when set."""
    kw: dict[str, Any] = {}
    if not (type(beta) is int and beta == 1):
        kw["beta"] = beta
    if not (type(alpha) is int and alpha == 1):
        kw["alpha"] = alpha
    return aten.baddbmm.default(input, batch1, batch2, **kw)


topk_return = _return_type("topk")
sort_return = _return_type("sort")


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:  # noqa: A002
    """``torch.narrow`` / ``Tensor.narrow``: ``length`` elements from ``start`` along ``dim`` (a view)."""
    return aten.narrow.default(input, dim, start, length)


def repeat(self: Tensor, *sizes: Any) -> Tensor:
    """``Tensor.repeat(*sizes)``: tile the data (no ``torch.repeat`` function, as in PyTorch)."""
    return aten.repeat.default(self, _size_args(sizes, "repeat"))


def tile(input: Tensor, *dims: Any) -> Tensor:  # noqa: A002
    """``torch.tile(input, dims)`` / ``Tensor.tile(*dims)``."""
    return aten.tile.default(input, _size_args(dims, "tile"))


def outer(input: Tensor, vec2: Tensor) -> Tensor:  # noqa: A002
    """``torch.outer`` / ``Tensor.outer``: the outer product of two 1-D tensors."""
    return aten.outer.default(input, vec2)


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:  # noqa: A002
    """``torch.roll`` / ``Tensor.roll``: ``dims`` passed only when given."""
    shifts_list = [shifts] if isinstance(shifts, int) else list(shifts)
    if dims is None:
        return aten.roll.default(input, shifts_list)
    return aten.roll.default(input, shifts_list, [dims] if isinstance(dims, int) else list(dims))


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


def bitwise_and_(self: Tensor, other: Any) -> Tensor:
    """``Tensor.bitwise_and_`` / ``&=``: ``aten.bitwise_and_.Tensor`` (a Python number needs the unlisted .Scalar)."""
    if isinstance(other, Tensor):
        return aten.bitwise_and_.Tensor(self, other)
    if isinstance(other, (bool, int)):
        raise NotImplementedError(
            "in-place &= with a Python number calls aten::bitwise_and_.Scalar, which dispatchkit does not list; "
            "use a tensor")
    raise TypeError(f"bitwise_and_(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")


def _iand(self: Tensor, other: Any) -> Any:
    if not isinstance(other, (Tensor, bool, int)):
        return NotImplemented
    return bitwise_and_(self, other)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach this batch's Tensor methods (torch.Tensor has no ``var_mean`` / ``std_mean`` methods)."""
    for name in _METHODS:
        setattr(T, name, globals()[name])
    T.__iand__ = _iand
