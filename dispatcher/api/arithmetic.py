"""Arithmetic: ``+ - * /``, ``pow``, remainder / fmod / floor division, abs / neg / sign / reciprocal / square,
rounding, addcmul / addcdiv, lerp, nan_to_num: torch-level functions, Tensor methods and operators (clamping:
arithmetic_clamp.py).

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops and to
torch/_tensor.py's operators. ``x + 1`` calls ``aten.add.Tensor(x, 1)`` (the number stays a number, a
"wrapped number"), ``1.0 - x`` calls ``aten.rsub.Scalar(x, 1.0)``, ``3.0 / x`` calls ``aten.reciprocal``
then ``aten.mul.Tensor`` (torch/_tensor.py's ``__rdiv__``), ``x ** 2`` calls ``pow.Tensor_Scalar``, ``2 ** x``
``pow.Scalar``; ``//`` calls ``floor_divide`` (never its ``.Scalar`` overload), ``7 // a`` is
``floor_divide(7, a)``, ``+t`` is ``positive``; ``%`` calls ``remainder``; ``round(decimals=)`` picks ``round.decimals`` (even for 0); trailing arguments
equal to their defaults are left out, as PyTorch's bindings do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor, _invalid, _no_out, _number
from .bindings import _inplace_unary_function, _method, _operator, _self_binary_method, _unary_function, _unary_method

aten = namespace("aten")

#: unary ops: ``torch.<name>(input, *, out=None)`` and ``Tensor.<name>()``
_UNARY = ("neg", "abs", "reciprocal", "sign", "sgn", "floor", "ceil", "trunc", "square", "fix", "frac", "frac_")

#: in-place unary ops: ``torch.<name>(input)`` (no ``out=``) and ``Tensor.<name>()``
_INPLACE_UNARY = ("abs_", "neg_")

__all__ = [
    "add", "sub", "rsub", "mul", "div", "subtract", "multiply", "divide", "pow", *_UNARY, *_INPLACE_UNARY, "round", "positive",
    "true_divide", "fmod", "remainder", "floor_divide", "addcmul",
    "addcdiv", "lerp", "nan_to_num", "nan_to_num_",
]


# --- torch-level functions: + - * / and pow -------------------------------------------------------------------------
def add(input: Tensor, other: Any, *args: Any, alpha: Any = 1, out: Any = None) -> Tensor:  # noqa: A002
    """``add.Tensor``; ``add(input, Number alpha, other)`` is torch's deprecated signature (a warning, once)."""
    _no_out(out, "add")
    _check_tensor("add", input)
    if args:
        alpha, other = _alpha_first("add", other, args, alpha, function=True)
    _check_other("add", other, 2)
    return _add_method(input, other, alpha=alpha)


def sub(input: Tensor, other: Any, *args: Any, alpha: Any = 1, out: Any = None) -> Tensor:  # noqa: A002
    """``sub.Tensor``; ``sub(input, Number alpha, other)`` is torch's deprecated signature (a warning, once)."""
    _no_out(out, "sub")
    _check_tensor("sub", input)
    if args:
        alpha, other = _alpha_first("sub", other, args, alpha, function=True)
    _check_other("sub", other, 2)
    return _sub_method(input, other, alpha=alpha)


def rsub(input: Tensor, other: Any, *args: Any, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``other - alpha * input``: ``rsub.Tensor`` for a Tensor ``other``, else ``rsub.Scalar`` (alpha may follow
    the number positionally), the signatures of torch's binding in this order."""
    _check_tensor("rsub", input)
    if isinstance(other, Tensor) and not args:
        return aten.rsub.Tensor(input, other) if _is_one(alpha) else aten.rsub.Tensor(input, other, alpha=alpha)
    if _number(other) is None or len(args) > 1 or args and _number(args[0]) is None and not _is_0dim(args[0]):
        raise _invalid("rsub", (input, other, *args))
    alpha = args[0] if args else alpha
    if _is_one(alpha):
        return aten.rsub.Scalar(input, _number(other))
    return aten.rsub.Scalar(input, _number(other), alpha)


def mul(input: Tensor, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "mul")
    _check_tensor("mul", input)
    _check_other("mul", other, 2)
    return aten.mul.Tensor(input, other)


#: rounding_mode not given: ``div.Tensor`` (given, even as None, torch's parser picks ``div.Tensor_mode``)
_NO_MODE: Any = object()


def div(input: Tensor, other: Any, *, rounding_mode: Any = _NO_MODE, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "div")
    _check_tensor("div", input)
    _check_other("div", other, 2)
    return _div_method(input, other, rounding_mode=rounding_mode)


def _alias_binary(op: str, rounding: bool = False, alpha: bool = False, function: bool = False) -> Any:
    """``Tensor.divide`` / ``multiply`` / ``subtract`` / ``true_divide`` (and ``_``): the CompositeImplicitAutograd
    alias op ``aten.<op>.Tensor`` (``.Tensor_mode`` with a rounding mode), a number operand wrapped as torch's
    parser does; ``subtract(Number other, Number alpha)`` with alpha positional is the ``.Scalar`` signature (the
    only one taking it so); the alias op forwards to div / mul / sub. ``function``: the torch-level function
    (its error lists ``input`` too)."""

    def method(self: Tensor, other: Any, *args: Any, **kwargs: Any) -> Tensor:
        packet = getattr(aten, op)
        mode = kwargs.pop("rounding_mode", _NO_MODE) if rounding else _NO_MODE
        a = kwargs.pop("alpha", 1) if alpha else 1
        got = (self, other, *args) if function else (other, *args)
        if args:  # torch's parser has ``subtract(Scalar other, Scalar alpha=1)``: alpha positional after a number
            numbers = (other, args[0]) if len(args) == 1 else ()
            if not (alpha and numbers and all(_number(v) is not None or _is_0dim(v) for v in numbers)):
                raise _invalid(op, got)
            return packet.Scalar(self, other if _is_0dim(other) else _number(other), args[0])
        if kwargs:
            raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if not isinstance(other, Tensor) and _number(other) is None:
            raise _invalid(op, got)
        other = other if isinstance(other, Tensor) else _number(other)
        if mode is not _NO_MODE:
            return packet.Tensor_mode(self, other, rounding_mode=mode)
        if _is_one(a):
            return packet.Tensor(self, other)
        return packet.Tensor(self, other, alpha=a)

    method.__name__ = op
    return method


def _alias_function(op: str, rounding: bool = False, alpha: bool = False) -> Any:
    method = _alias_binary(op, rounding, alpha, function=True)

    def fn(input: Tensor, other: Any, *args: Any, out: Any = None, **kwargs: Any) -> Tensor:  # noqa: A002
        _no_out(out, op)
        _check_tensor(op, input)
        return method(input, other, *args, **kwargs)

    fn.__name__ = op
    return fn


subtract, multiply, divide = (_alias_function("subtract", alpha=True), _alias_function("multiply"),
                              _alias_function("divide", rounding=True))
true_divide = _alias_function("true_divide")


def pow(input: Any, exponent: Any, *, out: Any = None) -> Tensor:  # noqa: A001, A002
    _no_out(out, "pow")
    if isinstance(input, Tensor):
        return _pow_method(input, exponent)
    _check_tensor("pow", exponent, "exponent", 1)
    return aten.pow.Scalar(input, exponent)


# --- unary ---------------------------------------------------------------------------------------------------------
for _name in _UNARY:
    globals()[_name] = _unary_function(_name)
for _name in _INPLACE_UNARY:
    globals()[_name] = _inplace_unary_function(_name)
del _name


def round(input: Tensor, *, decimals: int | None = None, out: Any = None) -> Tensor:  # noqa: A001, A002
    """``round.decimals`` when ``decimals`` is given (even 0), else ``round.default`` (torch's two signatures)."""
    _no_out(out, "round")
    _check_tensor("round", input)
    if decimals is None:
        return aten.round.default(input)
    return aten.round.decimals(input, decimals=decimals)


def positive(input: Tensor) -> Tensor:  # noqa: A002
    _check_tensor("positive", input)
    return aten.positive.default(input)


# --- remainder / fmod / floor division -----------------------------------------------------------------------------
def fmod(input: Tensor, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "fmod")
    _check_tensor("fmod", input)
    return aten.fmod.Tensor(input, other) if isinstance(other, Tensor) else aten.fmod.Scalar(input, other)


def remainder(input: Any, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    """``remainder.Tensor`` / ``.Scalar`` (a number divisor) / ``.Scalar_Tensor`` (a number dividend)."""
    _no_out(out, "remainder")
    if not isinstance(input, Tensor):
        _check_tensor("remainder", other, "other", 1)
        return aten.remainder.Scalar_Tensor(input, other)
    return aten.remainder.Tensor(input, other) if isinstance(other, Tensor) else aten.remainder.Scalar(input, other)


def floor_divide(input: Any, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    """``aten.floor_divide.default`` (a Python number operand is passed as is: a wrapped number)."""
    _no_out(out, "floor_divide")
    if isinstance(other, Tensor) and not isinstance(input, Tensor) and _number(input) is not None:
        return aten.floor_divide.default(_number(input), other)  # (a number dividend: the Tensor signature)
    if not isinstance(input, Tensor) or not isinstance(other, Tensor) and _number(other) is None:
        raise _invalid("floor_divide", (input, other))
    return aten.floor_divide.default(input, other if isinstance(other, Tensor) else _number(other))


# --- addcmul / addcdiv / lerp / nan_to_num -------------------------------------------------------------------------
def _addc_function(name: str) -> Any:
    def fn(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = None, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        _check_tensor(name, tensor1, "tensor1", 1)
        _check_tensor(name, tensor2, "tensor2", 2)
        op = getattr(aten, name).default
        return op(input, tensor1, tensor2) if value is None else op(input, tensor1, tensor2, value=value)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default`` (``value=`` passed only when given, as torch's binding does)"
    return fn


addcmul = _addc_function("addcmul")
addcdiv = _addc_function("addcdiv")


def _addc_inplace(name: str) -> Any:
    def method(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = None) -> Tensor:
        _check_tensor(name, tensor1, "tensor1", 0)
        _check_tensor(name, tensor2, "tensor2", 1)
        op = getattr(aten, name).default
        return op(self, tensor1, tensor2) if value is None else op(self, tensor1, tensor2, value=value)

    method.__name__ = name
    method.__doc__ = f"``Tensor.{name}``: ``aten.{name}.default`` in place (``value=`` passed only when given)"
    return method


def lerp(input: Tensor, end: Tensor, weight: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    """``torch.lerp``: ``input + weight * (end - input)``."""
    if out is not None:
        raise NotImplementedError("lerp(out=...) is not supported by dispatchkit")
    if isinstance(weight, Tensor):
        return aten.lerp.Tensor(input, end, weight)
    return aten.lerp.Scalar(input, end, weight)


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


# --- Tensor methods --------------------------------------------------------------------------------------------------
def _check_other(name: str, other: Any, pos: int) -> None:
    """The binding's TypeError for ``other`` neither a Tensor nor a number (None, a str ...), as torch's parser."""
    if other is None or isinstance(other, (str, bytes)):
        raise TypeError(f"{name}(): argument 'other' (position {pos}) must be Tensor, not {type(other).__name__}")


def _is_one(alpha: Any) -> bool:
    """alpha left at its default (the int 1): the binding passes no alpha."""
    return type(alpha) is int and alpha == 1


def _is_0dim(x: Any) -> bool:
    return isinstance(x, Tensor) and x.dim() == 0


#: torch warns once per process about its deprecated signatures (TORCH_WARN_ONCE in python_arg_parser.cpp)
_DEPRECATION_WARNED: list[bool] = []


def _alpha_first(name: str, alpha: Any, args: tuple, given: Any, function: bool = False) -> tuple[Any, Any]:
    """torch's deprecated ``name(Number alpha, Tensor other)`` signature of add / sub (and ``add_`` / ``sub_``;
    ``(Tensor input, Number alpha, Tensor other)`` for the functions): ``(alpha, other)``, with the warning
    torch gives once; a call fitting no signature is the parser's TypeError."""
    n = 2 if function else 1
    fits = len(args) == 1 and (_number(alpha) is not None or _is_0dim(alpha)) and _is_one(given) and (
        isinstance(args[0], Tensor) or _number(args[0]) is not None)
    if not fits:
        plural = "s" if n > 1 else ""
        raise TypeError(f"{name}() takes {n} positional argument{plural} but {n + len(args)} were given")
    if not _DEPRECATION_WARNED:
        import os
        import sys
        import warnings

        _DEPRECATION_WARNED.append(True)
        head, out = ("Tensor input, ", ", Tensor out = None") if function else ("", "")
        level, frame, package = 1, sys._getframe(0), os.path.dirname(os.path.dirname(__file__))
        while frame is not None and frame.f_code.co_filename.startswith(package):  # (the caller's line)
            level, frame = level + 1, frame.f_back
        warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({head}Number alpha, Tensor other"
                      f"{', *' + out if out else ''})\nConsider using one of the following signatures instead:\n"
                      f"\t{name}({head}Tensor other, *, Number alpha = 1{out})", UserWarning, stacklevel=level)
    return alpha, args[0]


def _with_alpha(name: str, op: Any, self: Tensor, other: Any, args: tuple, alpha: Any) -> Tensor:
    """The body of ``Tensor.add`` / ``sub`` / ``add_`` / ``sub_`` (``op`` the overload): the deprecated alpha-first
    form, the operand check, and ``alpha`` passed on unless it is the int 1."""
    if args:
        alpha, other = _alpha_first(name, other, args, alpha)
    _check_other(name, other, 1)
    if type(alpha) is int and alpha == 1:
        return op(self, other)
    return op(self, other, alpha=alpha)


def _with_rounding_mode(name: str, op: Any, op_mode: Any, self: Tensor, other: Any, rounding_mode: Any) -> Tensor:
    """The body of ``Tensor.div`` / ``div_``: ``op_mode`` (the ``Tensor_mode`` overload) when a rounding mode is
    given, after the parser's refusal of a str / None operand with one."""
    if rounding_mode is not _NO_MODE and (other is None or isinstance(other, (str, bytes))):
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(other).__name__}, "
                        f"rounding_mode={type(rounding_mode).__name__}), but expected one of:")
    _check_other(name, other, 1)
    if rounding_mode is not _NO_MODE:
        return op_mode(self, other, rounding_mode=rounding_mode)
    return op(self, other)


def _add_method(self: Tensor, other: Any, *args: Any, alpha: Any = 1) -> Tensor:
    return _with_alpha("add", aten.add.Tensor, self, other, args, alpha)


def _sub_method(self: Tensor, other: Any, *args: Any, alpha: Any = 1) -> Tensor:
    return _with_alpha("sub", aten.sub.Tensor, self, other, args, alpha)


def _mul_method(self: Tensor, other: Any) -> Tensor:
    _check_other("mul", other, 1)
    return aten.mul.Tensor(self, other)


def _div_method(self: Tensor, other: Any, *, rounding_mode: Any = _NO_MODE) -> Tensor:
    return _with_rounding_mode("div", aten.div.Tensor, aten.div.Tensor_mode, self, other, rounding_mode)


def add_(self: Tensor, other: Any, *args: Any, alpha: Any = 1) -> Tensor:
    return _with_alpha("add_", aten.add_.Tensor, self, other, args, alpha)


def sub_(self: Tensor, other: Any, *args: Any, alpha: Any = 1) -> Tensor:
    return _with_alpha("sub_", aten.sub_.Tensor, self, other, args, alpha)


def mul_(self: Tensor, other: Any) -> Tensor:
    _check_other("mul_", other, 1)
    return aten.mul_.Tensor(self, other)


def div_(self: Tensor, other: Any, *, rounding_mode: Any = _NO_MODE) -> Tensor:
    return _with_rounding_mode("div_", aten.div_.Tensor, aten.div_.Tensor_mode, self, other, rounding_mode)


def _pow_method(self: Tensor, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    if isinstance(exponent, Tensor):
        return aten.pow.Tensor_Tensor(self, exponent)
    return aten.pow.Tensor_Scalar(self, exponent)


def _pow__method(self: Tensor, exponent: Any) -> Tensor:
    """``Tensor.pow_``: ``pow_.Scalar`` (``pow_.Tensor``, for a Tensor exponent, is not in the op listing: a 0-dim
    one is read as its number, which gives the same values)."""
    if isinstance(exponent, Tensor) and exponent.dim() == 0 and not exponent.requires_grad:
        exponent = exponent.item()
    if isinstance(exponent, Tensor):
        raise NotImplementedError("Tensor.pow_ with a Tensor exponent (aten.pow_.Tensor) is not in dispatchkit's "
                                  "op listing; use x.pow(exponent) or x.copy_(x.pow(exponent))")
    return aten.pow_.Scalar(self, exponent)


def _round_method(self: Tensor, decimals: int | None = None) -> Tensor:
    if decimals is None:
        return aten.round.default(self)
    return aten.round.decimals(self, decimals=decimals)


def lerp_(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``Tensor.lerp_``: ``self`` moved towards ``end`` by ``weight``, in place."""
    if isinstance(weight, Tensor):
        return aten.lerp_.Tensor(self, end, weight)
    return aten.lerp_.Scalar(self, end, weight)


def _floor_divide_method(self: Tensor, other: Any) -> Tensor:
    return floor_divide(self, other)


def _floor_divide__method(self: Tensor, other: Any) -> Tensor:
    if not isinstance(other, Tensor) and _number(other) is None:
        raise _invalid("floor_divide_", (other,))
    return aten.floor_divide_.Tensor(self, other if isinstance(other, Tensor) else _number(other))


def _nan_to_num_method(self: Tensor, nan: float | None = None, posinf: float | None = None,
                       neginf: float | None = None) -> Tensor:
    return nan_to_num(self, nan, posinf, neginf)


def _nan_to_num__method(self: Tensor, nan: float | None = None, posinf: float | None = None,
                        neginf: float | None = None) -> Tensor:
    return nan_to_num_(self, nan, posinf, neginf)


def _modulo_inplace(name: str) -> Any:
    return _self_binary_method(name, "Tensor", "Scalar")


# --- operators -------------------------------------------------------------------------------------------------------
# The operators skip the keyword handling of the methods (they are the hot path). Like torch/_tensor.py's
# wrappers they return NotImplemented for an operand that is neither a Tensor nor a number, so Python raises
# "unsupported operand type(s) for +: 'Tensor' and 'str'".
_OPERAND_TYPES = (Tensor, int, float, bool, complex, np.generic)


def _binary_operator(op_name: str, overload: str) -> Any:
    resolved: list[Any] = []  # the OpOverload, looked up on first use (aten ops live as long as the process)
    inplace = op_name.endswith("_")

    def operator(self: Tensor, other: Any) -> Any:
        t = type(other)
        if t is not Tensor and t is not int and t is not float:
            if isinstance(other, np.generic):
                other = other.item()  # a NumPy scalar is a Python number to PyTorch's parser
            elif not isinstance(other, _OPERAND_TYPES):
                return NotImplemented
        if not resolved:
            resolved.append(getattr(getattr(aten, op_name), overload))
        try:
            r = resolved[0](self, other)
        except TypeError:  # TypeError_to_NotImplemented_ (e.g. every __torch_dispatch__ refused): Python's error
            return NotImplemented
        return self if inplace else r  # an in-place binding returns ``self`` (C++ ``Tensor&``), whatever a mode gave

    operator.__name__ = f"__{op_name}__"
    return operator


def _reflected(fn: Any) -> Any:
    def operator(self: Tensor, other: Any) -> Any:
        if not isinstance(other, _OPERAND_TYPES):
            return NotImplemented
        try:
            return fn(self, other)
        except TypeError:
            return NotImplemented

    operator.__name__ = fn.__name__
    return operator


def _rsub(self: Tensor, other: Any) -> Tensor:
    """``other - self``: torch/_tensor.py's ``__rsub__`` is ``_C._VariableFunctions.rsub(self, other)``
    (``rsub.Tensor`` for a Tensor, ``rsub.Scalar`` for a number)."""
    if isinstance(other, Tensor):
        return aten.rsub.Tensor(self, other)
    return aten.rsub.Scalar(self, other)


def _rdiv(self: Tensor, other: Any) -> Tensor:
    """``other / self``: torch/_tensor.py's ``__rdiv__`` is ``self.reciprocal() * other``."""
    return aten.mul.Tensor(aten.reciprocal.default(self), other)


def _rpow(self: Tensor, other: Any) -> Tensor:
    """``other ** self``: ``pow.Scalar(other, self)`` (the number keeps its Python type)."""
    if isinstance(other, Tensor):
        return aten.pow.Tensor_Tensor(other, self)
    return aten.pow.Scalar(other, self)


def _rmod(self: Tensor, other: Any) -> Tensor:
    return aten.remainder.Scalar_Tensor(other, self)


def _mod(self: Tensor, other: Any) -> Any:
    if not isinstance(other, (Tensor, int, float, bool)):
        return NotImplemented
    return aten.remainder.Tensor(self, other) if isinstance(other, Tensor) else aten.remainder.Scalar(self, other)


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


def _pos(self: Tensor) -> Tensor:
    return aten.positive.default(self)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the arithmetic Tensor methods and operators (called by ``tensor_methods.install``)."""
    for name in (*_UNARY, *_INPLACE_UNARY):
        setattr(T, name, _unary_method(name))
    for fn in (fmod, remainder, addcmul, addcdiv):
        setattr(T, fn.__name__, _method(fn))
    methods = {
        "add": _add_method, "sub": _sub_method, "mul": _mul_method, "div": _div_method, "add_": add_, "sub_": sub_,
        "mul_": mul_, "div_": div_, "subtract": _alias_binary("subtract", alpha=True),
        "multiply": _alias_binary("multiply"), "divide": _alias_binary("divide", rounding=True),
        "true_divide": _alias_binary("true_divide"), "subtract_": _alias_binary("subtract_", alpha=True),
        "multiply_": _alias_binary("multiply_"), "divide_": _alias_binary("divide_", rounding=True),
        "true_divide_": _alias_binary("true_divide_"), "pow": _pow_method, "round": _round_method, "lerp": lerp, "lerp_": lerp_,
        "addcmul_": _addc_inplace("addcmul_"), "addcdiv_": _addc_inplace("addcdiv_"),
        "floor_divide": _floor_divide_method, "floor_divide_": _floor_divide__method, "positive": _pos,
        "fmod_": _modulo_inplace("fmod_"), "remainder_": _modulo_inplace("remainder_"),
        "nan_to_num": _nan_to_num_method, "nan_to_num_": _nan_to_num__method, "pow_": _pow__method,
        # operators
        "__add__": _binary_operator("add", "Tensor"), "__radd__": _binary_operator("add", "Tensor"),
        "__iadd__": _binary_operator("add_", "Tensor"),
        "__sub__": _binary_operator("sub", "Tensor"), "__rsub__": _reflected(_rsub),
        "__isub__": _binary_operator("sub_", "Tensor"),
        "__mul__": _binary_operator("mul", "Tensor"), "__rmul__": _binary_operator("mul", "Tensor"),
        "__imul__": _binary_operator("mul_", "Tensor"),
        "__truediv__": _binary_operator("div", "Tensor"), "__rtruediv__": _reflected(_rdiv),
        "__itruediv__": _binary_operator("div_", "Tensor"),
        "__pow__": _reflected(_pow_method), "__rpow__": _reflected(_rpow),
        "__neg__": _unary_method("neg"), "__abs__": _unary_method("abs"),
        "__mod__": _mod, "__rmod__": _rmod, "__imod__": _operator("remainder_", "Tensor", "Scalar", "__imod__"),
        "__floordiv__": _floordiv, "__rfloordiv__": _rfloordiv, "__ifloordiv__": _ifloordiv, "__pos__": _pos,
    }
    for name, fn in methods.items():
        setattr(T, name, fn)
