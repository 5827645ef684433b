"""Memory-overlap checks of written-to tensors: ``assert_no_internal_overlap`` and ``assert_no_partial_overlap``.

Corresponds to aten/src/ATen/MemoryOverlap.cpp. In-place pointwise kernels (tensor_iterator.py) check that no two
elements of ``self`` share memory; ``copy_`` (conversions.py) also checks that source and destination do not
partly overlap. The in-place kernels that write ``self`` without those helpers but whose PyTorch counterparts
check (TensorIterator, the random ops' ``check_inplace``, ``masked_scatter_``) are listed in
``CHECKS_INTERNAL_OVERLAP``: ``registration.py`` registers them wrapped by ``checking_internal_overlap``.
(PyTorch does not check ``fill_.Scalar``, ``zero_``, ``masked_fill_.Scalar``, ``index_put_`` nor the in-place views.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .meta_utils import check_no_internal_overlap, is_non_overlapping_and_dense

_check_no_internal_overlap = check_no_internal_overlap


def _is_dense(t: Tensor) -> bool:
    return t._contiguous or is_non_overlapping_and_dense(t._shape, t._stride)


def _check_no_partial_overlap(self: Tensor, src: Tensor) -> None:
    """ATen assert_no_partial_overlap: dense tensors on one storage must cover the same elements the same way."""
    a, b = self._storage, src._storage
    if a is not b and not np.may_share_memory(a, b):
        return
    na, nb = self.numel(), src.numel()
    if not na or not nb or not _is_dense(self) or not _is_dense(src):
        return  # empty, or too hard to tell (PyTorch does not check these either)
    item = self._dtype.itemsize
    a0 = a.__array_interface__["data"][0] + self._storage_offset * item
    b0 = b.__array_interface__["data"][0] + src._storage_offset * src._dtype.itemsize
    a1, b1 = a0 + na * item, b0 + nb * src._dtype.itemsize
    if (a0 == b0 and a1 == b1 and self._stride == src._stride) or not (a0 < b1 and b0 < a1):
        return
    raise RuntimeError(
        "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
        "memory location. Please clone() the tensor before performing the operation."
    )


#: in-place ops whose kernels write ``self`` without tensor_iterator's checks, where PyTorch 2.13 checks
CHECKS_INTERNAL_OVERLAP = frozenset({
    "add_.Scalar", "mul_.Scalar", "div_.Scalar", "bernoulli_.float", "fill_.Tensor", "logical_not_", "logical_and_",
    "logical_or_", "logical_xor_", "masked_scatter_", "normal_", "uniform_", "relu_",
    "conj_physical_",
})


def checking_internal_overlap(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``kernel`` (an in-place op's) refusing a ``self`` whose elements share memory, before it writes."""

    def checked(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        _check_no_internal_overlap(self)
        return kernel(self, *args, **kwargs)

    checked.__name__ = checked.__qualname__ = getattr(kernel, "__name__", "kernel")
    checked.__doc__ = kernel.__doc__
    checked.__module__ = kernel.__module__
    checked.__wrapped__ = kernel  # type: ignore[attr-defined]  # (tracer/op_sources.py finds the kernel's source)
    return checked
