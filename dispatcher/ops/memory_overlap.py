"""Memory-overlap checks of written-to tensors: ``assert_no_internal_overlap`` and ``assert_no_partial_overlap``.

Corresponds to aten/src/ATen/MemoryOverlap.cpp. In-place pointwise kernels (tensor_iterator.py) check that no two
elements of ``self`` share memory; ``copy_`` (conversions.py) also checks that source and destination do not
partly overlap.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .meta_utils import is_non_overlapping_and_dense


def _check_no_internal_overlap(self: Tensor) -> None:
    """ATen assert_no_internal_overlap: a dense (or empty) tensor is fine; a stride-0 dim of size > 1 is not."""
    if self._contiguous or 0 in self._shape:
        return
    for size, st in zip(self._shape, self._stride):
        if st == 0 and size > 1:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation."
            )


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
