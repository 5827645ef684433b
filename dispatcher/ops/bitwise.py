"""Bitwise kernels: ``bitwise_not`` / ``and`` / ``or`` / ``xor``, the shifts ``bitwise_left_shift`` /
``bitwise_right_shift``, and the Python operators' own ops (``__and__``, ``__lshift__``, ``__iand__`` ...).

Corresponds to aten/src/ATen/native/BinaryOps.cpp, UnaryOps.cpp and their TensorIterator CPU kernels. Only bool
and integer dtypes are accepted (the CPU kernels refuse the others, on CPU only). The ``.Tensor`` overloads are
structured CPU / Meta kernels; the ``.Scalar`` / ``.Scalar_Tensor`` overloads are CompositeExplicitAutograd kernels
that wrap the number and compute as the ``.Tensor`` kernel does; ``__and__`` & co. are CompositeImplicitAutograd
calls of ``bitwise_*`` (the shift operators have CPU / Meta kernels of their own, as in PyTorch). Shifts follow
PyTorch's CPU kernels: a shift by a negative amount or by at least the bit width gives 0 (left), or the sign fill
(right: -1 for negative signed values, else 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from . import tensor_iterator as _pw
from .composite import _aten
from .kernel_registry import impl
from .meta_utils import can_cast, np_operand, scalar_type_name
from .tensor_iterator import (
    _bool,
    _integral,
    _require_dtype,
    _run,
    _store,
    _tensor_of,
    binary_meta,
    inplace_checked,
    inplace_from,
    unary_meta,
)

# --- bitwise_not, bitwise_and.Tensor, bitwise_or.Tensor ------------------------------------------------


@impl("bitwise_not", "CPU", "Meta")
def bitwise_not(self: Tensor) -> Tensor:
    _require_dtype("bitwise_not_cpu", self._dtype, self, lambda d: not (d.is_floating_point or d.is_complex))
    return _run(unary_meta(self), self, lambda: np.invert(self._data))


@impl("bitwise_not_", "CPU", "Meta")
def bitwise_not_(self: Tensor) -> Tensor:
    return _store(self, bitwise_not(self))


@impl("bitwise_and.Tensor", "CPU", "Meta")
def bitwise_and_tensor(self: Tensor, other: Tensor) -> Tensor:
    """``self & other`` in the promoted dtype; only bool and integer dtypes (PyTorch's CPU kernel refuses others)."""
    meta = binary_meta(self, other)
    _require_dtype("bitwise_and_cpu", meta.dtype, self, lambda d: not (d.is_floating_point or d.is_complex))
    return _run(meta, self, lambda: np.bitwise_and(np_operand(self, meta.dtype), np_operand(other, meta.dtype)))


@impl("bitwise_or.Tensor", "CPU", "Meta")
def bitwise_or_tensor(self: Tensor, other: Tensor) -> Tensor:
    """``self | other`` in the promoted dtype; bool and integer dtypes only (PyTorch's CPU kernel refuses others)."""
    meta = _pw.binary_meta(self, other)
    _pw._require_dtype("bitwise_or_cpu", meta.dtype, self, lambda d: not (d.is_floating_point or d.is_complex))
    return _pw._run(meta, self, lambda: np.bitwise_or(np_operand(self, meta.dtype), np_operand(other, meta.dtype)))


_bitwise_and_store = inplace_from(bitwise_and_tensor, "bitwise_and_")


@impl("bitwise_and_.Tensor", "CPU", "Meta")
def bitwise_and__tensor(self: Tensor, other: Tensor) -> Tensor:
    """TensorIterator checks the cast into ``self`` before the kernel's dtype check (int &= float: a cast error)."""
    result = _dt.result_type(self, other)
    if result is not self._dtype and not can_cast(result, self._dtype):
        raise RuntimeError(f"result type {scalar_type_name(result)} can't be cast to the desired output type "
                           f"{scalar_type_name(self._dtype)}")
    return _bitwise_and_store(self, other)


def _binary_int(kernel: str, fn: Callable[[Any, Any], Any], ok: Callable[[_dt.dtype], bool] = _integral
                ) -> Callable[[Any, Any], Tensor]:
    """A TensorIterator binary op computed in the promoted dtype, which ``ok`` must accept (CPU only)."""

    def op(self: Any, other: Any) -> Tensor:
        meta = _pw.binary_meta(self, other)
        like = _tensor_of(self, other)
        _pw._require_dtype(kernel, meta.dtype, like, ok)
        return _pw._run(meta, like, lambda: fn(np_operand(self, meta.dtype), np_operand(other, meta.dtype)))

    op.__name__ = kernel.removesuffix("_cpu")
    return op


# --- bitwise and / or / xor -------------------------------------------------------------------------------------------

bitwise_xor_tensor = impl("bitwise_xor.Tensor", "CPU", "Meta")(_binary_int("bitwise_xor_cpu", np.bitwise_xor))
_bitwise_or = _binary_int("bitwise_or_cpu", np.bitwise_or)
_bitwise_and = _binary_int("bitwise_and_cpu", np.bitwise_and)
_BITWISE = {"and": _bitwise_and, "or": _bitwise_or, "xor": bitwise_xor_tensor}

for _kind, _fn in _BITWISE.items():
    _name = f"bitwise_{_kind}"
    # .Scalar / .Scalar_Tensor: at::bitwise_<kind>(self, wrapped_scalar_tensor(other)) and the mirror image
    impl(f"{_name}.Scalar", "CompositeExplicitAutograd")(_fn)
    impl(f"{_name}.Scalar_Tensor", "CompositeExplicitAutograd")(_fn)
    impl(f"{_name}_.Scalar", "CompositeExplicitAutograd")(inplace_checked(_fn, f"{_name}_"))
    if _kind != "and":  # bitwise_and_.Tensor has its own kernel (bitwise_and__tensor above)
        impl(f"{_name}_.Tensor", "CPU", "Meta")(inplace_checked(_fn, f"{_name}_"))
del _kind, _fn, _name


# --- shifts -------------------------------------------------------------------------------------------------------------


def _shift_amount(a: np.ndarray, b: Any) -> tuple[Any, Any]:
    """(out of range, the amount with out-of-range entries replaced by 0) for ``a``'s bit width."""
    bits = np.dtype(a.dtype).itemsize * 8
    b = np.asarray(b)
    bad = (b < 0) | (b >= bits)
    return bad, np.where(bad, 0, b).astype(a.dtype)


def _lshift(a: Any, b: Any) -> Any:
    a = np.asarray(a)
    bad, amount = _shift_amount(a, b)
    return np.where(bad, a.dtype.type(0), np.left_shift(a, amount)).astype(a.dtype)


def _rshift(a: Any, b: Any) -> Any:
    a = np.asarray(a)
    bad, amount = _shift_amount(a, b)
    fill = np.where(a < 0, a.dtype.type(-1), a.dtype.type(0)) if a.dtype.kind == "i" else a.dtype.type(0)
    return np.where(bad, fill, np.right_shift(a, amount)).astype(a.dtype)


def _not_bool_integral(dt: _dt.dtype) -> bool:
    return _integral(dt) and dt is not _bool


_SHIFTS = {"left": _binary_int("lshift_cpu", _lshift, _not_bool_integral),
           "right": _binary_int("rshift_cpu", _rshift, _not_bool_integral)}

for _side, _fn in _SHIFTS.items():
    _name, _dunder = f"bitwise_{_side}_shift", "__lshift__" if _side == "left" else "__rshift__"
    _inplace = inplace_checked(_fn, f"{_name}_")
    impl(f"{_name}.Tensor", "CPU", "Meta")(_fn)
    impl(f"{_name}.Tensor_Scalar", "CompositeExplicitAutograd")(_fn)
    impl(f"{_name}.Scalar_Tensor", "CompositeExplicitAutograd")(_fn)
    impl(f"{_name}_.Tensor", "CPU", "Meta")(_inplace)
    impl(f"{_name}_.Tensor_Scalar", "CompositeExplicitAutograd")(_inplace)
    # the Python operators' own ops (<<, >>, <<=, >>=): CPU / Meta kernels of their own in PyTorch
    for _overload in ("Tensor", "Scalar"):
        impl(f"{_dunder}.{_overload}", "CPU", "Meta")(_fn)
        impl(f"__i{_dunder[2:]}.{_overload}", "CPU", "Meta")(_inplace)
del _side, _fn, _name, _dunder, _inplace, _overload


# --- the Python operators' ops: __and__ / __or__ / __xor__ and in-place (CompositeImplicitAutograd) ----


def _dunder(kind: str, inplace: bool, overload: str) -> Callable[[Tensor, Any], Tensor]:
    """``__and__`` & co. (what Python's ``&``, ``|``, ``^`` and ``&=`` ... call): ``at::bitwise_<kind>(self, other)``
    or ``self.bitwise_<kind>_(other)``."""
    op_name = f"bitwise_{kind}_" if inplace else f"bitwise_{kind}"

    def dunder(self: Tensor, other: Any) -> Tensor:
        return getattr(getattr(_aten(), op_name), overload)(self, other)

    dunder.__name__ = f"__{'i' if inplace else ''}{kind}__"
    return dunder


for _kind in ("and", "or", "xor"):
    for _overload in ("Scalar", "Tensor"):
        impl(f"__{_kind}__.{_overload}", "CompositeImplicitAutograd")(_dunder(_kind, False, _overload))
        impl(f"__i{_kind}__.{_overload}", "CompositeImplicitAutograd")(_dunder(_kind, True, _overload))
del _kind, _overload
