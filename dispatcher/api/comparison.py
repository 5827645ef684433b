"""Comparison and logical ops: ``== != < <= > >=``, maximum / minimum, where, isnan / isinf / isfinite /
signbit, logical_not / and / or / xor, heaviside: torch-level functions, Tensor methods and operators.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops and to
torch/_tensor.py's comparison operators. A Tensor operand picks the ``.Tensor`` overload, a Python number the
``.Scalar`` one (``x == 2`` is ``aten.eq.Scalar(x, 2)``; a NumPy scalar counts as its Python value);
``torch.where(c, x, 0.)`` calls ``where.ScalarOther``, whose decomposition makes the ``scalar_tensor``, and
``torch.where(c)`` is ``nonzero`` + ``unbind``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor, _no_out
from .bindings import _binary_tensor, _method, _tensor_function, _tensor_method, _unary_function, _unary_method

aten = namespace("aten")

#: ``torch.<name>(input, other)`` / ``Tensor.<name>(other)`` / ``Tensor.__<name>__``
_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")

#: unary ops: ``torch.<name>(input, *, out=None)`` and ``Tensor.<name>()``
_UNARY = ("logical_not", "isnan", "isinf", "isfinite", "signbit")

__all__ = [*_COMPARISONS, "maximum", "minimum", "where", *_UNARY, "logical_and", "logical_or", "logical_xor",
           "heaviside", "isclose", "allclose", "equal"]


# --- == != < <= > >= -------------------------------------------------------------------------------------------------
def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, bool, complex, np.generic))


def _comparison_method(op_name: str) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        packet = getattr(aten, op_name)
        if isinstance(other, Tensor):
            return packet.Tensor(self, other)
        if isinstance(other, np.generic):
            other = other.item()
        return packet.Scalar(self, other)

    method.__name__ = op_name
    return method


def _comparison_operator(op_name: str) -> Any:
    def method(self: Tensor, other: Any) -> Any:
        packet = getattr(aten, op_name)
        if isinstance(other, Tensor):
            return packet.Tensor(self, other)
        if _is_number(other):
            return packet.Scalar(self, other.item() if isinstance(other, np.generic) else other)
        return NotImplemented

    method.__name__ = f"__{op_name}__"
    return method


def _comparison_function(name: str) -> Any:
    method = _comparison_method(name)

    def fn(input: Tensor, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        return method(input, other)

    fn.__name__ = name
    return fn


for _name in _COMPARISONS:
    globals()[_name] = _comparison_function(_name)


# --- maximum / minimum / where / logical ops ----------------------------------------------------------------------------
def maximum(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _check_tensor("maximum", input)
    _check_tensor("maximum", other, "other", 1)
    if out is not None:
        _check_tensor("maximum", out, "out", 2)
        return aten.maximum.out(input, other, out=out)
    return aten.maximum.default(input, other)


def minimum(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "minimum")
    _check_tensor("minimum", input)
    _check_tensor("minimum", other, "other", 1)
    return aten.minimum.default(input, other)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:  # noqa: A002
    """``where(c, x, y)``: where.self / ScalarSelf / ScalarOther / Scalar; ``where(c)``: ``where.default``
    (CompositeImplicitAutograd: ``nonzero`` + ``unbind``; a pre-dispatch trace keeps it whole, as torch's)."""
    if input is None and other is None:
        return tuple(aten.where.default(condition))
    a, b = isinstance(input, Tensor), isinstance(other, Tensor)
    if a and b:
        return aten.where.self(condition, input, other)
    if a:
        return aten.where.ScalarOther(condition, input, other)
    if b:
        return aten.where.ScalarSelf(condition, input, other)
    return aten.where.Scalar(condition, input, other)


for _name in _UNARY:
    globals()[_name] = _unary_function(_name)
del _name
logical_and = _tensor_function("logical_and")
logical_or = _tensor_function("logical_or")
logical_xor = _tensor_function("logical_xor")
heaviside = _tensor_function("heaviside", "values")


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
            equal_nan: bool = False) -> Tensor:
    """``aten.isclose`` (CompositeImplicitAutograd); trailing arguments equal to their defaults are left out."""
    _check_tensor("isclose", input)
    _check_tensor("isclose", other, "other", 1)
    args = [float(rtol), float(atol), bool(equal_nan)]
    while args and args[-1] == (1e-05, 1e-08, False)[len(args) - 1]:
        args.pop()
    return aten.isclose.default(input, other, *args)


def _isclose_method(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
                    equal_nan: bool = False) -> Tensor:
    _check_tensor("isclose", other, "other", 0)
    return isclose(self, other, rtol, atol, equal_nan)


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
             equal_nan: bool = False) -> bool:
    """``aten.allclose`` (CompositeExplicitAutograd): a Python bool; trailing default arguments are left out."""
    _check_tensor("allclose", input)
    _check_tensor("allclose", other, "other", 1)
    args = [float(rtol), float(atol), bool(equal_nan)]
    while args and args[-1] == (1e-05, 1e-08, False)[len(args) - 1]:
        args.pop()
    return aten.allclose.default(input, other, *args)


def _allclose_method(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
                     equal_nan: bool = False) -> bool:
    _check_tensor("allclose", other, "other", 0)
    return allclose(self, other, rtol, atol, equal_nan)


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    """``aten.equal``: same sizes and equal elements, as a Python bool."""
    _check_tensor("equal", input)
    _check_tensor("equal", other, "other", 1)
    return aten.equal.default(input, other)


def _equal_method(self: Tensor, other: Tensor) -> bool:
    _check_tensor("equal", other, "other", 0)
    return equal(self, other)


# --- Tensor methods ----------------------------------------------------------------------------------------------------
def _where_method(self: Tensor, condition: Tensor, other: Any) -> Tensor:
    return where(condition, self, other)


def logical_not_(self: Tensor) -> Tensor:
    """``Tensor.logical_not_``: ``self`` replaced by ``not self`` (0 / 1 in its dtype)."""
    return aten.logical_not_.default(self)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the comparison and logical Tensor methods and operators (called by ``tensor_methods.install``)."""
    for name in _COMPARISONS:
        setattr(T, name, _comparison_method(name))
        setattr(T, f"__{name}__", _comparison_operator(name))
    T.__hash__ = lambda self: id(self)
    for name in _UNARY:
        setattr(T, name, _unary_method(name))
    for name in ("maximum", "minimum"):
        setattr(T, name, _binary_tensor(name, "other"))
    T.where = _where_method
    for fn in (logical_and, logical_or, logical_xor):
        setattr(T, fn.__name__, _method(fn))
    for name in ("logical_and_", "logical_or_", "logical_xor_"):
        setattr(T, name, _tensor_method(name))
    T.logical_not_ = logical_not_
    T.heaviside = _tensor_method("heaviside", "values")
    T.isclose = _isclose_method
    T.allclose = _allclose_method
    T.equal = _equal_method
    T.heaviside_ = _tensor_method("heaviside_", "values")
