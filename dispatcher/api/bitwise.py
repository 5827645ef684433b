"""Bitwise ops: ``& | ^ ~ << >>``, ``bitwise_and / or / xor / not``, ``bitwise_left_shift / right_shift``:
torch-level functions, Tensor methods and operators, with their in-place forms.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops and to
torch/_tensor.py's reflected operators. A Python number as ``other`` selects the ``.Scalar`` overload
(``a & 3`` is ``bitwise_and.Scalar``), as ``self`` the ``.Scalar_Tensor`` one (``torch.bitwise_or(3, a)``);
the reflected operators swap the operands the way torch/_tensor.py does (``3 | a`` is
``bitwise_or.Scalar(a, 3)``, but ``2 << a`` is ``bitwise_left_shift.Scalar_Tensor(2, a)``). ``a & b`` calls
aten's own ``__and__`` op, ``<<`` and ``>>`` aten's ``__lshift__`` / ``__rshift__``; ``~t`` is
``bitwise_not`` (integral and bool tensors only).
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _number
from .bindings import _binary_function, _operator, _self_binary_method, _unary_function, _unary_method

aten = namespace("aten")

__all__ = ["bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]

bitwise_not = _unary_function("bitwise_not")
bitwise_and = _binary_function("bitwise_and", "Tensor", "Scalar", "Scalar_Tensor")
bitwise_or = _binary_function("bitwise_or", "Tensor", "Scalar", "Scalar_Tensor")
bitwise_xor = _binary_function("bitwise_xor", "Tensor", "Scalar", "Scalar_Tensor")
bitwise_left_shift = _binary_function("bitwise_left_shift", "Tensor", "Tensor_Scalar", "Scalar_Tensor")
bitwise_right_shift = _binary_function("bitwise_right_shift", "Tensor", "Tensor_Scalar", "Scalar_Tensor")


# --- Tensor methods and operators --------------------------------------------------------------------------------------
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


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the bitwise Tensor methods and operators (called by ``tensor_methods.install``)."""
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
    T.bitwise_not = _unary_method("bitwise_not")
    T.bitwise_not_ = _unary_method("bitwise_not_")
