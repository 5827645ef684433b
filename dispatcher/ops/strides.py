"""Memory formats and the strides an ``empty_like``-style allocation gets (factories, activations, losses).

Corresponds to c10/core/MemoryFormat.h (the MemoryFormat codes, channels-last strides), TensorImpl's
``is_non_overlapping_and_dense`` and the ``empty_like`` rule of aten/src/ATen/native/TensorFactories.cpp:
``like_strides(self, memory_format)`` keeps a dense input's strides (preserve_format), else makes dense strides in
its dim order. (``clone`` / ``_to_copy`` apply their own variant of the rule, in conversions.py.)
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor, contiguous_strides
from .meta_utils import elementwise_strides

CONTIGUOUS_FORMAT = 0
PRESERVE_FORMAT = 1
CHANNELS_LAST = 2
CHANNELS_LAST_3D = 3
_MEMORY_FORMATS = {"contiguous_format": 0, "preserve_format": 1, "channels_last": 2, "channels_last_3d": 3}


def memory_format_code(memory_format: Any) -> int | None:
    """A MemoryFormat argument (int code, name, or None) as its int code (None stays None)."""
    if memory_format is None or type(memory_format) is int:
        return memory_format
    return _MEMORY_FORMATS[str(memory_format).rsplit(".", 1)[-1]]


def is_non_overlapping_and_dense(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """PyTorch's TensorImpl::is_non_overlapping_and_dense: some permutation of the dims is contiguous.

    An empty tensor counts as dense whatever its strides (PyTorch 2.13 keeps them in ``empty_like``).
    """
    if 0 in shape:
        return True
    if len(shape) == 1:
        return shape[0] < 2 or stride[0] == 1
    order = sorted(range(len(shape)), key=lambda d: (stride[d], shape[d]))
    expected = 1
    for d in order:
        if shape[d] == 1:
            continue
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True


def _channels_last_strides(shape: tuple[int, ...], code: int = CHANNELS_LAST) -> tuple[int, ...]:
    from ..memory_format import channels_last_strides

    return channels_last_strides(shape, code)


def like_strides(self: Tensor, memory_format: Any) -> tuple[int, ...]:
    """The strides of an ``empty_like(self, memory_format=...)`` result (preserve: keep a dense layout)."""
    mf = memory_format_code(memory_format)
    shape = self._shape
    if mf == CONTIGUOUS_FORMAT:
        return contiguous_strides(shape)
    if mf in (CHANNELS_LAST, CHANNELS_LAST_3D):
        return _channels_last_strides(shape, mf)
    if mf not in (None, PRESERVE_FORMAT):
        raise RuntimeError(f"unsupported memory format {memory_format}")
    if self._contiguous or is_non_overlapping_and_dense(shape, self._stride):
        return self._stride  # NB: kept as is, even the strides of size-1 dims (PyTorch does too)
    return elementwise_strides(shape, [self])
