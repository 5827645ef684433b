"""Dtype helpers the kernels of several families share: the dtype switch's errors, casting, accumulation dtypes.

Corresponds to c10/core/ScalarType.h (``canCast``, the ScalarType / legacy type names PyTorch's messages print) and
the ``AT_DISPATCH`` switch of aten/src/ATen/Dispatch.h: a CPU kernel without a case for a dtype raises
``"bmm" not implemented for 'Bool'`` (``not_implemented``), while a Meta kernel never reaches the switch
(``is_meta``). ``compute_dtype`` / ``_f64`` give the NumPy dtype the NumPy kernels accumulate in (float64 for
floating types, rounded once to the result's dtype).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .meta_utils import scalar_type_name


def is_meta(t: Tensor) -> bool:
    return t._device.type == "meta"


def not_implemented(kernel: str, d: _dt.dtype) -> NotImplementedError:
    """PyTorch's error for a CPU kernel without a dtype case (``"bmm" not implemented for 'Bool'``)."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(d)}\'')


def _expected_scalar_type(expected: _dt.dtype, found: _dt.dtype) -> RuntimeError:
    return RuntimeError(f"expected scalar type {scalar_type_name(expected)} but found {scalar_type_name(found)}")


def _can_cast(frm: _dt.dtype, to: _dt.dtype) -> bool:
    """c10::canCast: no float -> integral, no complex -> real, no non-bool -> bool."""
    if _dt.category(frm) > _dt.category(to):
        return False
    return True


# c10's type names used in expand's error message ("torch.FloatTensor", "MetaFloatType").
_LEGACY_TYPE = {
    "float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int", "int16": "Short",
    "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
    "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
}


def legacy_type_name(t: Tensor) -> str:
    """``torch.FloatTensor`` for a CPU float32 tensor, ``MetaFloatType`` for a meta one (c10's toString)."""
    name = _LEGACY_TYPE.get(t._dtype.name, t._dtype.name)
    if t._device.type == "meta" or _dt.is_barebones_unsigned(t._dtype):  # (no legacy Python type: "CPUUInt32Type")
        return f"{'Meta' if t._device.type == 'meta' else 'CPU'}{name}Type"
    return f"torch.{name}Tensor"


def _f64(t: Tensor) -> np.ndarray:
    return t._data.astype(np.float64)


def compute_dtype(dtype: _dt.dtype) -> Any:
    """The NumPy dtype the kernels accumulate in: float64 for floating types (rounded once to the result's dtype,
    so results are within PyTorch's own float32 rounding of the exact values), int64 for integers."""
    return np.float64 if dtype.is_floating_point else np.int64
