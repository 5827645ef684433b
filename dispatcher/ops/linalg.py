"""Matrix products: ``mm``, ``bmm``, ``addmm``, ``mv``, ``dot``, ``baddbmm``.

Corresponds to aten/src/ATen/native/LinearAlgebra.cpp (and Blas.cpp). Outputs
are contiguous; shapes and dtypes are checked with PyTorch's messages.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor, contiguous_strides
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize


def _check_dtypes(op: str, a: Tensor, b: Tensor) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(a)} != {_cname(b)}")


def _cname(t: Tensor) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "float16": "c10::Half",
            "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int"}[t.dtype.name]


@impl("mm", "CPU", "Meta")
def mm(self: Tensor, mat2: Tensor) -> Tensor:
    if self.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self._shape[1] != mat2._shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({self._shape[0]}x{self._shape[1]} and "
            f"{mat2._shape[0]}x{mat2._shape[1]})"
        )
    _check_dtypes("mm", self, mat2)
    shape = (self._shape[0], mat2._shape[1])
    meta = TensorMeta(shape, contiguous_strides(shape), self.dtype)
    return materialize(meta, lambda: np.matmul(self._data, mat2._data), self)
