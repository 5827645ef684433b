"""Tensor dtypes with PyTorch's names, and PyTorch's type-promotion rules.

Corresponds to c10/core/ScalarType.h (the dtypes and ``promoteTypes``) and
aten/src/ATen/native/TypeProperties.cpp (``result_type``: tensors with
dimensions, zero-dimensional tensors and Python numbers ("wrapped numbers")
each promote within their own group, and a lower group only matters when its
*category* (bool < integral < floating < complex) is higher).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np


class dtype:  # noqa: N801 - PyTorch's name
    """A tensor element type (``dispatcher.float32``). Unique objects: compare with ``is`` or ``==``."""

    __slots__ = ("name", "np_dtype", "is_floating_point", "is_complex", "is_signed", "itemsize", "_rank", "code")

    def __init__(self, name: str, np_dtype: Any, rank: int, code: int) -> None:
        self.name = name  #: "float32"
        self.np_dtype = np.dtype(np_dtype)  #: the NumPy dtype used for storage
        self.is_floating_point = self.np_dtype.kind == "f"
        self.is_complex = self.np_dtype.kind == "c"
        self.is_signed = self.np_dtype.kind in "ifc"
        self.itemsize = self.np_dtype.itemsize
        self._rank = rank  # position in the promotion lattice below
        self.code = code  #: c10::ScalarType value (what schemas' ScalarType defaults hold)

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> Any:
        return (_by_name, (self.name,))

    def to_complex(self) -> dtype:
        return {"float32": complex64, "float64": complex128}.get(self.name, complex64)

    def to_real(self) -> dtype:
        return {"complex64": float32, "complex128": float64}.get(self.name, self)


# ScalarType codes from c10 (Byte=0, Char=1, Short=2, Int=3, Long=4, Half=5, Float=6, Double=7, ..., Bool=11)
uint8 = dtype("uint8", np.uint8, 1, 0)
int8 = dtype("int8", np.int8, 2, 1)
int16 = dtype("int16", np.int16, 3, 2)
int32 = dtype("int32", np.int32, 4, 3)
int64 = dtype("int64", np.int64, 5, 4)
float16 = dtype("float16", np.float16, 6, 5)
float32 = dtype("float32", np.float32, 7, 6)
float64 = dtype("float64", np.float64, 8, 7)
complex64 = dtype("complex64", np.complex64, 9, 9)
complex128 = dtype("complex128", np.complex128, 10, 10)
bool = dtype("bool", np.bool_, 0, 11)  # noqa: A001 - PyTorch's name
# The "barebones" unsigned types (UInt16=27, UInt32=28, UInt64=29): outside the promotion lattice (promoting one
# with any other dtype but a floating one is an error) and supported by few CPU kernels (factories, copies,
# views, eq / ne, mul, bitwise and / or / xor, sort, ...; see ops/kernel_dtypes.py's UNSIGNED_KERNELS).
uint16 = dtype("uint16", np.uint16, 11, 27)
uint32 = dtype("uint32", np.uint32, 12, 28)
uint64 = dtype("uint64", np.uint64, 13, 29)

# PyTorch's aliases
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

ALL_DTYPES: tuple[dtype, ...] = (bool, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
#: the barebones unsigned types, kept out of ALL_DTYPES (the dtypes every op supports and promotes)
UNSIGNED_DTYPES: tuple[dtype, ...] = (uint16, uint32, uint64)
_BY_NAME = {d.name: d for d in ALL_DTYPES + UNSIGNED_DTYPES}
_BY_CODE = {d.code: d for d in ALL_DTYPES + UNSIGNED_DTYPES}
_BY_NP = {d.np_dtype: d for d in ALL_DTYPES + UNSIGNED_DTYPES}

_default_dtype = float32


def _by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_code(code: Any) -> dtype:
    """A dtype from a dtype, its ScalarType code, or its name."""
    if isinstance(code, dtype):
        return code
    if isinstance(code, str):
        return _BY_NAME[code]
    return _BY_CODE[code]


def from_numpy_dtype(np_dtype: Any) -> dtype:
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, "
            "uint8, and bool."
        ) from None


def get_default_dtype() -> dtype:
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    global _default_dtype
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


# --- promotion --------------------------------------------------------------

def category(d: dtype) -> int:
    """0 bool, 1 integral, 2 floating, 3 complex."""
    if d is bool:
        return 0
    if d.is_complex:
        return 3
    if d.is_floating_point:
        return 2
    return 1


def is_barebones_unsigned(d: dtype) -> builtins.bool:
    """c10::isBarebonesUnsignedType: uint16 / uint32 / uint64."""
    return d._rank > 10


def promote_types(a: dtype, b: dtype) -> dtype:
    """``torch.promote_types``: the smallest dtype both convert to without losing category."""
    if a is b:
        return a
    if a._rank > 10 or b._rank > 10:  # a barebones unsigned type: only a floating type promotes with it
        if a.is_floating_point:
            return a
        if b.is_floating_point:
            return b
        from .ops.meta_utils import scalar_type_name

        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                           f"{scalar_type_name(a)} and {scalar_type_name(b)}")
    if a is bool:
        return b
    if b is bool:
        return a
    ca, cb = category(a), category(b)
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi.is_complex and lo.is_floating_point and lo is float64:
            return complex128
        return hi
    if ca == 1:
        # uint8 with a signed type: the smallest signed type holding both (uint8+int8 -> int16).
        if a is uint8 or b is uint8:
            other = b if a is uint8 else a
            return int16 if other is int8 else other
        return a if a._rank > b._rank else b
    return a if a._rank > b._rank else b


# The module rebinds bool / int / float to dtypes (PyTorch's names); keep the Python types here.
_pybool = builtins.bool
_pyint = builtins.int
_pyfloat = builtins.float
_pycomplex = builtins.complex


def scalar_dtype(value: Any) -> dtype:
    """The dtype of a Python number as a *wrapped number*: bool, int64, the default float, complex."""
    if isinstance(value, (_pybool, np.bool_)):
        return bool
    if isinstance(value, (_pyint, np.integer)):
        return int64
    if isinstance(value, (_pyfloat, np.floating)):
        return _default_dtype
    if isinstance(value, (_pycomplex, np.complexfloating)):
        return complex64 if _default_dtype is float32 else complex128
    raise TypeError(f"expected a number, got {type(value).__name__}")


def _combine_categories(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """c10's combine_categories: keep ``higher`` unless ``lower`` is of a higher category."""
    if higher is None:
        return lower
    if higher.is_complex:
        return higher
    if lower is not None and not lower.is_complex and higher.is_floating_point:
        return higher
    if lower is not None and lower.is_complex and not higher.is_floating_point:
        return lower  # an integral (or bool) higher group: the complex lower one wins
    if higher is bool or (lower is not None and (lower.is_floating_point or lower.is_complex)):
        return higher if lower is None else promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> dtype:
    """PyTorch's ``result_type`` over tensors (``.dtype``, ``.dim()``) and Python numbers.

    Three groups promote separately: tensors with dimensions, zero-dim tensors, and
    numbers ("wrapped numbers"); a lower group only changes the result when its
    category (bool < integral < floating < complex) is higher.
    """
    dim_result = zero_result = wrapped_result = None
    for op in operands:
        if op is None:
            continue
        d = getattr(op, "dtype", None)
        if isinstance(d, dtype):
            if op.dim() > 0:
                dim_result = d if dim_result is None else promote_types(dim_result, d)
            else:
                zero_result = d if zero_result is None else promote_types(zero_result, d)
        else:
            w = scalar_dtype(op)
            wrapped_result = w if wrapped_result is None else promote_types(wrapped_result, w)
    result = _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))
    return result if result is not None else _default_dtype
