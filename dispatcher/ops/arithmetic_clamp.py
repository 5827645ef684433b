"""Clamping kernels: ``clamp`` / ``clamp_min`` / ``clamp_max`` (number and Tensor bounds, in place too), ``nan_to_num``.

Corresponds to aten/src/ATen/native/TensorCompare.cpp (``clamp`` and its meta function's type checks) and
UnaryOps.cpp (``nan_to_num``) with their TensorIterator CPU kernels. ``clamp_``'s meta function checks the cast to
self's dtype itself, naming it as C++ does ("long int"); ``clamp_min_`` runs ``clamp_``'s checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from . import tensor_iterator as _pw
from .kernel_registry import impl
from .meta_utils import TensorMeta, can_cast, checked_scalar, np_operand, preserve_format_strides, scalar_type_name
from .tensor_iterator import _converted_meta, _not_bool, _opmath, _require_dtype, _run, _store, inplace_from, iter_meta

# --- clamp ----------------------------------------------------------------------------------------


def _clamp_scalar_dtype(self: Tensor, *bounds: Any) -> _dt.dtype:
    """clamp's manual promotion: floating self keeps its dtype, else promote with the (number) bounds."""
    for b in bounds:
        if isinstance(b, complex):
            raise RuntimeError("clamp is not supported for complex types")
    if self._dtype.is_complex:
        raise RuntimeError("clamp is not supported for complex types")
    if self._dtype.is_floating_point:
        return self._dtype
    return _dt.result_type(self, *(b for b in bounds if b is not None))


def _clamp_values(x: Any, lo: Any, hi: Any) -> Any:
    """min(max(x, lo), hi) with NaN propagation (so lo > hi gives hi)."""
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def _bound(value: Any, dtype: _dt.dtype, op: _dt.dtype) -> Any:
    return checked_scalar(value, dtype).astype(op.np_dtype)


def _clamp_scalar(kernel: str, self: Tensor, lo: Any, hi: Any) -> Tensor:
    dtype = _clamp_scalar_dtype(self, lo, hi)
    _require_dtype(kernel, dtype, self, _not_bool)
    meta = _converted_meta(self, dtype)
    op = _opmath(dtype)

    def compute() -> Any:
        x = np_operand(self, op)
        return _clamp_values(
            x, None if lo is None else _bound(lo, dtype, op), None if hi is None else _bound(hi, dtype, op)
        )

    return _run(meta, self, compute)


@impl("clamp", "CPU", "Meta")
def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - schema names
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    kernel = "clamp_scalar_cpu" if min is not None and max is not None else (
        "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu"
    )
    return _clamp_scalar(kernel, self, min, max)


@impl("clamp_min", "CPU", "Meta")
def clamp_min(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    return _clamp_scalar("clamp_min_scalar_cpu", self, min, None)


@impl("clamp_max", "CPU", "Meta")
def clamp_max(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    return _clamp_scalar("clamp_max_scalar_cpu", self, None, max)


@impl("clamp.Tensor", "CPU", "Meta")
def clamp_tensor(self: Tensor, min: Tensor | None = None, max: Tensor | None = None) -> Tensor:  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    operands = tuple(t for t in (self, min, max) if t is not None)
    dtype = _dt.result_type(*operands)
    if dtype.is_complex:
        raise RuntimeError("clamp is not supported for complex types")
    if min is not None and max is not None:
        _require_dtype("clamp_cpu", dtype, self, _not_bool)
    meta = iter_meta(operands, dtype)
    op = _opmath(dtype)

    def compute() -> Any:
        lo = None if min is None else np_operand(min, op)
        hi = None if max is None else np_operand(max, op)
        return _clamp_values(np_operand(self, op), lo, hi)

    return _run(meta, self, compute)


@impl("clamp_", "CPU", "Meta")
def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - schema names
    """clamp's meta function checks the cast itself, naming self's dtype as C++ does ("long int")."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dtype = _clamp_scalar_dtype(self, min, max)
    if dtype is not self._dtype and not can_cast(dtype, self._dtype):
        raise RuntimeError(f"result type {scalar_type_name(dtype)} can't be cast to the desired output type "
                           f"{_pw._C_TYPE_NAMES[self._dtype.name]}")
    return _store(self, clamp(self, min, max))


clamp__tensor = impl("clamp_.Tensor", "CPU", "Meta")(inplace_from(clamp_tensor, "clamp_"))


# --- clamp_min / clamp_max with a Tensor bound ------------------------------------------------------------------------


@impl("clamp_min.Tensor", "CPU", "Meta")
def clamp_min_tensor(self: Tensor, min: Tensor) -> Tensor:  # noqa: A002 - schema names
    return clamp_tensor(self, min, None)


@impl("clamp_max.Tensor", "CPU", "Meta")
def clamp_max_tensor(self: Tensor, max: Tensor) -> Tensor:  # noqa: A002
    return clamp_tensor(self, None, max)


clamp_min__tensor = impl("clamp_min_.Tensor", "CPU", "Meta")(inplace_from(clamp_min_tensor, "clamp_min_"))


@impl("clamp_min_", "CPU", "Meta")
def clamp_min_(self: Tensor, min: Any) -> Tensor:  # noqa: A002 - the schema's name
    """``clamp_(self, min)``: the same meta checks as clamp_."""
    return clamp_(self, min, None)


# --- nan_to_num ----------------------------------------------------------------------------------------


@impl("nan_to_num", "CompositeExplicitAutograd")
def nan_to_num(self: Tensor, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """NaN -> ``nan`` (0), +inf -> ``posinf`` (the dtype's max), -inf -> ``neginf`` (its lowest); integers copied."""
    meta = TensorMeta(self._shape, preserve_format_strides(self), self._dtype)  # at::empty_like(self) / clone
    if not self._dtype.is_floating_point:
        return _pw._run(meta, self, lambda: np.array(self._data, copy=True))

    def compute() -> Any:
        x = self._data
        info = np.finfo(x.dtype)
        big = info.max if posinf is None else posinf
        small = info.min if neginf is None else neginf
        out = np.where(np.isnan(x), x.dtype.type(0.0 if nan is None else nan), x)
        out = np.where(np.isposinf(x), x.dtype.type(big), out)
        return np.where(np.isneginf(x), x.dtype.type(small), out)

    return _pw._run(meta, self, compute)


@impl("nan_to_num_", "CompositeExplicitAutograd")
def nan_to_num_(self: Tensor, nan: float | None = None, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:
    return _store(self, nan_to_num(self, nan, posinf, neginf))
