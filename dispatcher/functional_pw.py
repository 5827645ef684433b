"""Python surface of the pw batch: torch-level functions, Tensor methods and operators.

Corresponds to the generated python_torch_functions.cpp / python_variable_methods.cpp
entries of these ops and to torch/_tensor.py's reflected operators. Each binding calls
the aten overload PyTorch's parser picks: a Python number as ``other`` selects the
``.Scalar`` overload (``a & 3`` is ``bitwise_and.Scalar``), as ``self`` the
``.Scalar_Tensor`` one (``torch.bitwise_or(3, a)``); the reflected operators swap the
operands the way torch/_tensor.py does (``3 | a`` is ``bitwise_or.Scalar(a, 3)``, but
``2 << a`` is ``bitwise_left_shift.Scalar_Tensor(2, a)`` and ``7 // a`` is
``floor_divide(7, a)``). ``<<`` and ``>>`` call aten's own ``__lshift__`` / ``__rshift__``
ops, ``//`` calls ``floor_divide`` (never its ``.Scalar`` overload), ``+t`` is
``positive`` (``t`` itself). ``functional.py`` re-exports ``__all__`` and
``tensor_methods.install`` calls ``install`` here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .functional_more_a import _check_tensor, _method, _no_out
from .op_overload import namespace
from .tensor import Tensor

aten = namespace("aten")

_NUMBER = (bool, int, float, complex)

#: unary ops of this batch with an in-place form: function, method, in-place function and method
_UNARY_MATH = ("tan", "asin", "acos", "atan", "log10", "exp2", "erfinv", "frac", "asinh", "acosh", "atanh")

__all__ = [
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "logical_xor",
    "floor_divide", "positive", *_UNARY_MATH, *(f"{n}_" for n in _UNARY_MATH), "sinh_", "cosh_", "signbit",
    "arctan", "atan2", "arctan2", "hypot", "logaddexp", "xlogy", "heaviside", "logit", "logit_", "nan_to_num",
    "nan_to_num_", "trace", "broadcast_to", "broadcast_tensors",
]


def _number(x: Any) -> Any:
    """A Python number (a NumPy scalar counts as its Python value), else None."""
    if isinstance(x, np.generic):
        return x.item()
    return x if isinstance(x, _NUMBER) else None


def _invalid(name: str, args: tuple) -> TypeError:
    """The parser's error when no signature of an overloaded binding fits (first line of torch's message)."""
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:")


def _binary_function(name: str, tensor: str, scalar: str, scalar_tensor: str) -> Any:
    """``torch.<name>(input, other)``: the Tensor / Scalar / Scalar_Tensor overload by the operands' types."""

    def fn(input: Any, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002 - torch's argument name
        _no_out(out, name)
        packet = getattr(aten, name)
        if not isinstance(input, Tensor):
            if _number(input) is None or not isinstance(other, Tensor):
                raise _invalid(name, (input, other))
            return getattr(packet, scalar_tensor)(_number(input), other)
        if isinstance(other, Tensor):
            return getattr(packet, tensor)(input, other)
        if _number(other) is None:
            raise _invalid(name, (input, other))
        return getattr(packet, scalar)(input, _number(other))

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.{tensor}`` / ``.{scalar}`` / ``.{scalar_tensor}``"
    return fn


bitwise_and = _binary_function("bitwise_and", "Tensor", "Scalar", "Scalar_Tensor")
bitwise_or = _binary_function("bitwise_or", "Tensor", "Scalar", "Scalar_Tensor")
bitwise_xor = _binary_function("bitwise_xor", "Tensor", "Scalar", "Scalar_Tensor")
bitwise_left_shift = _binary_function("bitwise_left_shift", "Tensor", "Tensor_Scalar", "Scalar_Tensor")
bitwise_right_shift = _binary_function("bitwise_right_shift", "Tensor", "Tensor_Scalar", "Scalar_Tensor")
xlogy = _binary_function("xlogy", "Tensor", "Scalar_Other", "Scalar_Self")


def _tensor_function(name: str, arg: str = "other") -> Any:
    def fn(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        _check_tensor(name, other, arg, 1)
        return getattr(aten, name).default(input, other)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default(input, {arg})``"
    return fn


logical_xor = _tensor_function("logical_xor")
atan2 = _tensor_function("atan2")
arctan2 = _tensor_function("arctan2")
hypot = _tensor_function("hypot")
logaddexp = _tensor_function("logaddexp")
heaviside = _tensor_function("heaviside", "values")


def floor_divide(input: Any, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    """``aten.floor_divide.default`` (a Python number operand is passed as is: a wrapped number)."""
    _no_out(out, "floor_divide")
    if isinstance(other, Tensor) and not isinstance(input, Tensor) and _number(input) is not None:
        return aten.floor_divide.default(_number(input), other)  # (a number dividend: the Tensor signature)
    if not isinstance(input, Tensor) or not isinstance(other, Tensor) and _number(other) is None:
        raise _invalid("floor_divide", (input, other))
    return aten.floor_divide.default(input, other if isinstance(other, Tensor) else _number(other))


def positive(input: Tensor) -> Tensor:  # noqa: A002
    _check_tensor("positive", input)
    return aten.positive.default(input)


def _unary_function(name: str) -> Any:
    def fn(input: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        return getattr(aten, name).default(input)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default(input)``"
    return fn


for _name in (*_UNARY_MATH, *(f"{n}_" for n in _UNARY_MATH)):
    globals()[_name] = _unary_function(_name)
del _name
sinh_ = _unary_function("sinh_")
cosh_ = _unary_function("cosh_")
signbit = _unary_function("signbit")
arctan = _unary_function("arctan")


def _eps_call(op: Any, input: Tensor, eps: float | None) -> Tensor:  # noqa: A002
    return op(input) if eps is None else op(input, eps)


def logit(input: Tensor, eps: float | None = None, *, out: Any = None) -> Tensor:  # noqa: A002
    """``aten.logit.default``, ``eps`` passed only when given."""
    _no_out(out, "logit")
    _check_tensor("logit", input)
    return _eps_call(aten.logit.default, input, eps)


def logit_(input: Tensor, eps: float | None = None) -> Tensor:  # noqa: A002
    _check_tensor("logit_", input)
    return _eps_call(aten.logit_.default, input, eps)


def _trailing(args: list[Any]) -> list[Any]:
    """The optional arguments up to the last one given (torch's binding leaves trailing Nones out)."""
    while args and args[-1] is None:
        args.pop()
    return args


def nan_to_num(input: Tensor, nan: float | None = None, posinf: float | None = None,  # noqa: A002
               neginf: float | None = None, *, out: Any = None) -> Tensor:
    _no_out(out, "nan_to_num")
    _check_tensor("nan_to_num", input)
    return aten.nan_to_num.default(input, *_trailing([nan, posinf, neginf]))


def nan_to_num_(input: Tensor, nan: float | None = None, posinf: float | None = None,  # noqa: A002
                neginf: float | None = None) -> Tensor:
    _check_tensor("nan_to_num_", input)
    return aten.nan_to_num_.default(input, *_trailing([nan, posinf, neginf]))


def trace(input: Tensor) -> Tensor:  # noqa: A002
    _check_tensor("trace", input)
    return aten.trace.default(input)


def broadcast_to(input: Tensor, size: Any) -> Tensor:  # noqa: A002
    _check_tensor("broadcast_to", input)
    return aten.broadcast_to.default(input, list(size))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """torch/functional.py's ``broadcast_tensors(*tensors)``: ``aten.broadcast_tensors`` on the list."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tuple(aten.broadcast_tensors.default(list(tensors)))


def _broadcast_to_method(self: Tensor, *size: Any) -> Tensor:
    shape = size[0] if len(size) == 1 and isinstance(size[0], (list, tuple)) else size
    return aten.broadcast_to.default(self, list(shape))


def _reshape_as_method(self: Tensor, other: Tensor) -> Tensor:
    _check_tensor("reshape_as", other, "other", 0)
    return aten.reshape_as.default(self, other)


# --- Tensor methods and operators --------------------------------------------------------------------------------------


def _self_binary_method(name: str, tensor: str, scalar: str) -> Any:
    """``self.<name>(other)``: the Tensor or the Scalar overload."""

    def method(self: Tensor, other: Any) -> Tensor:
        packet = getattr(aten, name)
        if isinstance(other, Tensor):
            return getattr(packet, tensor)(self, other)
        if _number(other) is None:
            raise _invalid(name, (other,))
        return getattr(packet, scalar)(self, _number(other))

    method.__name__ = name
    return method


def _operator(name: str, tensor: str, scalar: str, dunder: str) -> Any:
    """A binary operator: NotImplemented for operands that are neither Tensors nor numbers."""
    method = _self_binary_method(name, tensor, scalar)

    def operator(self: Tensor, other: Any) -> Any:
        if not isinstance(other, Tensor) and _number(other) is None:
            return NotImplemented
        return method(self, other)

    operator.__name__ = dunder
    return operator


def _reflected(name: str, dunder: str) -> Any:
    """``other <op> self`` for a number ``other``: ``torch.<name>(other, self)`` (torch/_tensor.py)."""

    def operator(self: Tensor, other: Any) -> Any:
        if _number(other) is None:
            return NotImplemented
        return getattr(aten, name).Scalar_Tensor(_number(other), self)

    operator.__name__ = dunder
    return operator


def _invert(self: Tensor) -> Tensor:
    """``~t``: integral and bool tensors only (a TypeError before any op runs, as torch's binding)."""
    if self._dtype.is_floating_point or self._dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return aten.bitwise_not.default(self)


def _floordiv(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor) and _number(other) is None:
        return NotImplemented
    return aten.floor_divide.default(self, other if isinstance(other, Tensor) else _number(other))


def _rfloordiv(self: Tensor, other: Any) -> Any:
    if _number(other) is None:
        return NotImplemented
    return aten.floor_divide.default(_number(other), self)


def _ifloordiv(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor) and _number(other) is None:
        return NotImplemented
    return aten.floor_divide_.Tensor(self, other if isinstance(other, Tensor) else _number(other))


def _floor_divide_method(self: Tensor, other: Any) -> Tensor:
    return floor_divide(self, other)


def _floor_divide__method(self: Tensor, other: Any) -> Tensor:
    if not isinstance(other, Tensor) and _number(other) is None:
        raise _invalid("floor_divide_", (other,))
    return aten.floor_divide_.Tensor(self, other if isinstance(other, Tensor) else _number(other))


def _pos(self: Tensor) -> Tensor:
    return aten.positive.default(self)


def _logical_xor__method(self: Tensor, other: Tensor) -> Tensor:
    _check_tensor("logical_xor_", other, "other", 0)
    return aten.logical_xor_.default(self, other)


def _unary_method(name: str) -> Any:
    def method(self: Tensor) -> Tensor:
        return getattr(aten, name).default(self)

    method.__name__ = name
    return method


def _tensor_method(name: str, arg: str = "other") -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        _check_tensor(name, other, arg, 0)
        return getattr(aten, name).default(self, other)

    method.__name__ = name
    return method


def _logit_method(self: Tensor, eps: float | None = None) -> Tensor:
    return _eps_call(aten.logit.default, self, eps)


def _logit__method(self: Tensor, eps: float | None = None) -> Tensor:
    return _eps_call(aten.logit_.default, self, eps)


def _nan_to_num_method(self: Tensor, nan: float | None = None, posinf: float | None = None,
                       neginf: float | None = None) -> Tensor:
    return nan_to_num(self, nan, posinf, neginf)


def _nan_to_num__method(self: Tensor, nan: float | None = None, posinf: float | None = None,
                        neginf: float | None = None) -> Tensor:
    return nan_to_num_(self, nan, posinf, neginf)


def _xlogy__method(self: Tensor, other: Any) -> Tensor:
    return _self_binary_method("xlogy_", "Tensor", "Scalar_Other")(self, other)


def _modulo_inplace(name: str) -> Any:
    return _self_binary_method(name, "Tensor", "Scalar")


def install(tensor_cls: type) -> None:
    """Attach this batch's Tensor methods and operators (called by ``tensor_methods.install``)."""
    T = tensor_cls  # noqa: N806
    for kind in ("and", "or", "xor"):
        name = f"bitwise_{kind}"
        setattr(T, name, _self_binary_method(name, "Tensor", "Scalar"))
        setattr(T, f"{name}_", _self_binary_method(f"{name}_", "Tensor", "Scalar"))
        # a & b calls aten's __and__ (CompositeImplicitAutograd); 3 & a is torch/_tensor.py's bitwise_and(a, 3)
        setattr(T, f"__{kind}__", _operator(f"__{kind}__", "Tensor", "Scalar", f"__{kind}__"))
        setattr(T, f"__r{kind}__", _operator(name, "Tensor", "Scalar", f"__r{kind}__"))
        setattr(T, f"__i{kind}__", _operator(f"__i{kind}__", "Tensor", "Scalar", f"__i{kind}__"))
    for side, short in (("left", "l"), ("right", "r")):
        name = f"bitwise_{side}_shift"
        setattr(T, name, _self_binary_method(name, "Tensor", "Tensor_Scalar"))
        setattr(T, f"{name}_", _self_binary_method(f"{name}_", "Tensor", "Tensor_Scalar"))
        setattr(T, f"__{short}shift__", _operator(f"__{short}shift__", "Tensor", "Scalar", f"__{short}shift__"))
        setattr(T, f"__r{short}shift__", _reflected(name, f"__r{short}shift__"))
        setattr(T, f"__i{short}shift__", _operator(f"__i{short}shift__", "Tensor", "Scalar", f"__i{short}shift__"))
    T.__invert__ = _invert
    T.bitwise_not_ = _unary_method("bitwise_not_")
    T.logical_xor = _method(logical_xor)
    T.logical_xor_ = _logical_xor__method
    T.floor_divide = _floor_divide_method
    T.floor_divide_ = _floor_divide__method
    T.__floordiv__ = _floordiv
    T.__rfloordiv__ = _rfloordiv
    T.__ifloordiv__ = _ifloordiv
    T.__pos__ = _pos
    T.positive = _pos
    T.fmod_ = _modulo_inplace("fmod_")
    T.remainder_ = _modulo_inplace("remainder_")
    T.__imod__ = _operator("remainder_", "Tensor", "Scalar", "__imod__")
    for name in (*_UNARY_MATH, *(f"{n}_" for n in _UNARY_MATH), "sinh_", "cosh_", "signbit", "arctan"):
        setattr(T, name, _unary_method(name))
    for name in ("atan2", "arctan2", "hypot", "logaddexp", "atan2_", "hypot_"):
        setattr(T, name, _tensor_method(name))
    T.heaviside = _tensor_method("heaviside", "values")
    T.heaviside_ = _tensor_method("heaviside_", "values")
    T.xlogy = _self_binary_method("xlogy", "Tensor", "Scalar_Other")
    T.xlogy_ = _xlogy__method
    T.logit = _logit_method
    T.logit_ = _logit__method
    T.nan_to_num = _nan_to_num_method
    T.nan_to_num_ = _nan_to_num__method
    T.trace = _unary_method("trace")
    T.broadcast_to = _broadcast_to_method
    T.reshape_as = _reshape_as_method
