"""Everything else: ``_local_scalar_dense`` (``item()``), ``lift_fresh``, ``copy_``, ``fill_``, ``zero_``, indexing ops.

Corresponds to scattered ATen files (Scalar.cpp, Copy.cpp, Fill.cpp, TensorAdvancedIndexing.cpp).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .kernel_registry import impl


@impl("_local_scalar_dense", "CPU")
def local_scalar_dense(self: Tensor) -> Any:
    if self.numel() != 1:
        raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
    return self._data.reshape(()).item()


@impl("_local_scalar_dense", "Meta")
def local_scalar_dense_meta(self: Tensor) -> Any:
    raise RuntimeError("Tensor.item() cannot be called on meta tensors")


@impl("lift_fresh", "CompositeExplicitAutograd")
def lift_fresh(self: Tensor) -> Tensor:
    return self
