"""The remaining overloads of ``div`` / ``sub`` / ``rsub``: the rounded divisions with a number divisor
(``div.Scalar_mode``) and in place (``div_.Tensor_mode`` / ``div_.Scalar_mode``), ``sub_.Scalar`` and
``rsub.Tensor``; and the CompositeImplicitAutograd aliases ``divide.Scalar_mode``, ``divide_.Tensor_mode`` /
``.Scalar_mode`` and ``subtract_.Scalar`` that forward to them.

Corresponds to aten/src/ATen/native/BinaryOps.cpp: the ``.Scalar`` overloads are CompositeExplicitAutograd calls
of the Tensor kernels with the wrapped number, ``div_`` with a rounding mode is the structured in-place kernel
(TensorIterator's output checks: the broadcast shape fits ``self``, the result type casts to ``self``'s dtype),
``rsub(self, other, alpha)`` is ``sub(other, self, alpha)``.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import arithmetic as _arithmetic
from .arithmetic_aliases import _alias
from .kernel_registry import impl
from .tensor_iterator import inplace_checked

_MODES = (None, "trunc", "floor")


def _check_mode(rounding_mode: Any) -> None:
    if rounding_mode not in _MODES:
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )


@impl("div.Scalar_mode", "CompositeExplicitAutograd")
def div_scalar_mode(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    return _arithmetic.div_tensor_mode(self, other, rounding_mode=rounding_mode)


@impl("div_.Tensor_mode", "CPU", "Meta")
def div__tensor_mode(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    _check_mode(rounding_mode)
    if rounding_mode is None:
        return _arithmetic.div__tensor(self, other)

    def rounded(a: Any, b: Any) -> Tensor:
        return _arithmetic.div_tensor_mode(a, b, rounding_mode=rounding_mode)

    return inplace_checked(rounded, "div_")(self, other)


@impl("div_.Scalar_mode", "CompositeExplicitAutograd")
def div__scalar_mode(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    return div__tensor_mode(self, other, rounding_mode=rounding_mode)


@impl("sub_.Scalar", "CompositeExplicitAutograd")
def sub__scalar(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return _arithmetic.sub__tensor(self, other, alpha=alpha)


@impl("rsub.Tensor", "CPU", "Meta")
def rsub_tensor(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * self``."""
    return _arithmetic.sub_tensor(other, self, alpha=alpha)


#: alias op -> the op its CIA kernel calls (as arithmetic_aliases.ALIASES)
ALIASES = {
    "divide.Scalar_mode": "div.Scalar_mode", "divide_.Tensor_mode": "div_.Tensor_mode",
    "divide_.Scalar_mode": "div_.Scalar_mode", "subtract_.Scalar": "sub_.Scalar",
}
for _name, _target in ALIASES.items():
    _alias(_name, _target)
del _name, _target
