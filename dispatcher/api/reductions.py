"""Reductions: sum / mean / prod, amax / amin / max / min / argmax / argmin / aminmax, var / std /
var_mean / std_mean, logsumexp, cumsum / cumprod, all / any, norm, nansum / nanmean: torch-level functions
and Tensor methods.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops and to
torch/functional.py's ``norm``. ``x.sum()`` is ``sum.default``, ``x.sum(dim)`` ``sum.dim_IntList``;
``max(x, dim)`` returns ``torch.return_types.max``, ``max(x, y)`` is ``maximum``. The var/std family follows
PyTorch's argument parser, which has three signatures, one per overload: ``(dim, unbiased=True,
keepdim=False)`` -> ``.dim`` (chosen when ``dim`` is given without ``correction``), ``(unbiased=True)`` ->
``.default`` and ``(dim=None, *, correction=None, keepdim=False)`` -> ``.correction`` (everything else,
``x.var()`` included). Trailing arguments equal to their defaults are dropped, as the binding does:
``x.var(1)`` calls ``var.dim(x, [1])``, whose CompositeImplicitAutograd kernel calls
``var.correction(x, [1], correction=1)``.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _ABSENT, _check_tensor, _dim_list, _no_out, _return_type, _size_args

aten = namespace("aten")

__all__ = ["sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "var", "std", "var_mean", "std_mean",
           "logsumexp", "cumsum", "cumprod", "prod", "all", "any", "norm", "nansum", "nanmean", "aminmax"]

max_return = _return_type("max")
min_return = _return_type("min")


# --- sum / mean / amax / amin / max / min / argmax / argmin -----------------------------------------------------------
_NO_DIM = object()


def _sum_method(self: Tensor, dim: Any = _NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    kw = {} if dtype is None else {"dtype": _dt.from_code(dtype)}
    if dim is _NO_DIM and not keepdim:
        return aten.sum.default(self, **kw)
    dims = None if dim is _NO_DIM else _dim_list(dim)
    if keepdim:
        return aten.sum.dim_IntList(self, dims, keepdim, **kw)
    return aten.sum.dim_IntList(self, dims, **kw)


def _mean_method(self: Tensor, dim: Any = _NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    kw = {} if dtype is None else {"dtype": _dt.from_code(dtype)}
    if dim is _NO_DIM and not keepdim:
        return aten.mean.default(self, **kw)
    dims = None if dim is _NO_DIM else _dim_list(dim)
    if keepdim:
        return aten.mean.dim(self, dims, keepdim, **kw)
    return aten.mean.dim(self, dims, **kw)


def _amax_method(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    dims = _dim_list(dim)
    if keepdim:
        return aten.amax.default(self, dims, keepdim)
    return aten.amax.default(self, dims) if dims else aten.amax.default(self)


def _amin_method(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    dims = _dim_list(dim)
    if keepdim:
        return aten.amin.default(self, dims, keepdim)
    return aten.amin.default(self, dims) if dims else aten.amin.default(self)


def _max_min(name: str, ret: Any, binary: str) -> Any:
    def method(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        packet = getattr(aten, name)
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments - got (keepdim=bool)")
            return packet.default(self)
        if isinstance(dim, Tensor):  # max(other): the CompositeImplicitAutograd max.other (-> maximum)
            return packet.other(self, dim)
        values, indices = packet.dim(self, dim, keepdim) if keepdim else packet.dim(self, dim)
        return ret(values, indices)

    method.__name__ = name
    return method


def _arg_reduction(name: str) -> Any:
    def method(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
        packet = getattr(aten, name).default
        if keepdim:
            return packet(self, dim, keepdim)
        return packet(self) if dim is None else packet(self, dim)

    method.__name__ = name
    return method


def sum(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A001, A002
    return _sum_method(input, *args, **kwargs)


def mean(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    return _mean_method(input, *args, **kwargs)


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    return _amax_method(input, dim, keepdim)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    return _amin_method(input, dim, keepdim)


_max = _max_min("max", max_return, "maximum")
_min = _max_min("min", min_return, "minimum")


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001, A002
    return _max(input, dim, keepdim)


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001, A002
    return _min(input, dim, keepdim)


_argmax = _arg_reduction("argmax")
_argmin = _arg_reduction("argmin")


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    return _argmax(input, dim, keepdim)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    return _argmin(input, dim, keepdim)


# --- var / std / var_mean / std_mean ---------------------------------------------------------------------------------
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


# --- logsumexp / cumsum / cumprod / prod / all / any / norm ---------------------------------------------------------
def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``torch.logsumexp`` / ``Tensor.logsumexp``: log of the summed exponentials over ``dim``."""
    dims = _dim_list(dim)
    if keepdim:
        return aten.logsumexp.default(input, dims, True)
    return aten.logsumexp.default(input, dims)


def _dtype_kw(dtype: Any) -> dict[str, Any]:
    return {} if dtype is None else {"dtype": _dt.from_code(dtype)}


def _int_dim(name: str, dim: Any) -> int:
    from ..arg_parser import int_arg  # (a 0-dim integral tensor is read as its value, as the binding does)

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


# --- nansum / nanmean / aminmax -----------------------------------------------------------------------------------------
def _aminmax_type() -> type:
    """``torch.return_types.aminmax``: a (min, max) named tuple with PyTorch's repr."""
    import collections

    base = collections.namedtuple("aminmax", ["min", "max"])

    def __repr__(self: Any) -> str:  # noqa: N807
        return f"torch.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"

    return type("aminmax", (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "torch.return_types"})


_AminmaxResult = _aminmax_type()


def _reduce_call(name: str, input: Tensor, dim: Any, keepdim: bool, dtype: Any) -> Tensor:  # noqa: A002
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


#: Tensor methods defined above under their own names (torch.Tensor has no ``var_mean`` / ``std_mean``)
_METHODS = ("var", "std", "logsumexp", "cumsum", "cumprod", "prod", "all", "any", "norm", "nansum", "nanmean",
            "aminmax")


def _sum_to_size_method(self: Tensor, *size: Any) -> Tensor:
    """``Tensor.sum_to_size(*size)``: ``aten.sum_to_size`` (CompositeImplicitAutograd: kept whole before dispatch)."""
    return aten.sum_to_size.default(self, _size_args(size))


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the reduction Tensor methods (called by ``tensor_methods.install``)."""
    for name in _METHODS:
        setattr(T, name, globals()[name])
    T.sum = _sum_method
    T.sum_to_size = _sum_to_size_method
    T.mean = _mean_method
    T.amax = _amax_method
    T.amin = _amin_method
    T.max = _max_min("max", max_return, "maximum")
    T.min = _max_min("min", min_return, "minimum")
    T.argmax = _arg_reduction("argmax")
    T.argmin = _arg_reduction("argmin")
