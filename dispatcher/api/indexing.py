"""Indexing ops: index_select, gather, scatter / scatter_add, index_copy / index_fill / index_add,
masked_fill / masked_select, nonzero: torch-level functions and Tensor methods, with their in-place forms.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops: a Tensor
value picks ``masked_fill.Tensor`` / ``index_fill.int_Tensor``, a number the ``.Scalar`` / ``.int_Scalar``
overload; ``scatter`` picks ``.src`` for a tensor source, ``.value`` for a number. (``x[i]`` and
``x[i] = v`` are in ``subscripts.py``.)
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor, _no_out

aten = namespace("aten")

__all__ = ["masked_scatter", "index_put", "index_put_", "index_select", "gather", "scatter", "scatter_add", "index_copy", "index_fill", "index_add", "masked_fill",
           "masked_select", "nonzero"]


# --- index_select / gather / scatter ----------------------------------------------------------------------------------
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002
    return aten.index_select.default(input, dim, index)


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


# --- index_copy / index_fill / index_add ------------------------------------------------------------------------------
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


# --- masked_fill / masked_select / nonzero ----------------------------------------------------------------------------
def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:  # noqa: A002
    return _masked_fill_method(input, mask, value)


def masked_select(input: Tensor, mask: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """``torch.masked_select`` / ``Tensor.masked_select``: the elements where ``mask`` is True, as a 1-d tensor."""
    _no_out(out, "masked_select")
    _check_tensor("masked_select", input)
    _check_tensor("masked_select", mask, "mask", 1)
    return aten.masked_select.default(input, mask)


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:  # noqa: A002
    return _nonzero_method(input, as_tuple=as_tuple)


# --- Tensor methods ----------------------------------------------------------------------------------------------------
def _index_select_method(self: Tensor, dim: int, index: Tensor) -> Tensor:
    return aten.index_select.default(self, dim, index)


def _masked_fill_method(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return aten.masked_fill.Tensor(self, mask, value)
    return aten.masked_fill.Scalar(self, mask, value)


def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return aten.masked_fill_.Tensor(self, mask, value)
    return aten.masked_fill_.Scalar(self, mask, value)


def _nonzero_method(self: Tensor, *, as_tuple: bool = False) -> Any:
    result = aten.nonzero.default(self)
    if as_tuple:
        return tuple(aten.unbind.int(result, 1))
    return result


#: Tensor methods defined above under their own names
_METHODS = ("gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "index_copy", "index_copy_", "index_fill",
            "index_fill_", "index_add", "index_add_", "masked_select")


def _masked_scatter_method(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return aten.masked_scatter.default(self, mask, source)


def _masked_scatter__method(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return aten.masked_scatter_.default(self, mask, source)


def _index_put(name: str) -> Any:
    def method(self: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
        op = getattr(aten, name).default
        return op(self, list(indices), values, True) if accumulate else op(self, list(indices), values)

    method.__name__ = name
    method.__doc__ = f"``Tensor.{name}``: ``aten.{name}`` (accumulate passed only when True, as torch's binding)"
    return method


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the indexing Tensor methods (called by ``tensor_methods.install``)."""
    T.masked_scatter = _masked_scatter_method
    T.masked_scatter_ = _masked_scatter__method
    T.index_put = _index_put("index_put")
    T.index_put_ = _index_put("index_put_")
    for name in _METHODS:
        setattr(T, name, globals()[name])
    T.index_select = _index_select_method
    T.masked_fill = _masked_fill_method
    T.masked_fill_ = masked_fill_
    T.nonzero = _nonzero_method


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    return aten.masked_scatter.default(input, mask, source)


def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:  # noqa: A002
    return _index_put("index_put")(input, indices, values, accumulate)


def index_put_(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:  # noqa: A002
    return _index_put("index_put_")(input, indices, values, accumulate)
