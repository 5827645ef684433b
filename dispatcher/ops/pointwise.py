"""Pointwise kernels: arithmetic, comparisons, unary math, activations, their in-place forms.

Corresponds to aten/src/ATen/native/BinaryOps.cpp, UnaryOps.cpp and friends
(TensorIterator kernels). Every kernel computes its output's metadata the way
TensorIterator does (broadcast shape, promoted dtype, strides following the
inputs' layout), so the Meta kernel and the CPU kernel are one function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .kernel_registry import impl
from .meta_utils import TensorMeta, broadcast_shapes, elementwise_strides, materialize, np_operand


def _shape(x: Any) -> tuple[int, ...]:
    return x._shape if isinstance(x, Tensor) else ()


def binary_meta(a: Any, b: Any, dtype: _dt.dtype | None = None) -> TensorMeta:
    """Broadcast shape, promoted dtype (or ``dtype``), TensorIterator strides."""
    if type(b) is Tensor and type(a) is Tensor and a._shape == b._shape and a._contiguous and b._contiguous:
        # The common case: same shape, both contiguous.
        if dtype is None:
            dtype = a._dtype if a._dtype is b._dtype else _dt.result_type(a, b)
        return TensorMeta(a._shape, contiguous_strides(a._shape), dtype)
    shape = broadcast_shapes(_shape(a), _shape(b))
    return TensorMeta(shape, elementwise_strides(shape, (a, b)), dtype or _dt.result_type(a, b))


@impl("add.Tensor", "CPU", "Meta")
def add_tensor(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    meta = binary_meta(self, other)

    def compute() -> np.ndarray:
        b = np_operand(other, meta.dtype)
        if alpha != 1:
            b = b * meta.dtype.np_dtype.type(alpha)
        return np.add(np_operand(self, meta.dtype), b)

    return materialize(meta, compute, self)
