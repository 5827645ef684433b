"""View kernels: ops whose output shares the input's storage (``view``, ``t``, ``select``, ``slice``, ...).

Corresponds to aten/src/ATen/native/TensorShape.cpp. Each view op only computes
new geometry (shape, strides, storage offset) and returns ``self._view(...)``,
which works the same for CPU and Meta tensors.
"""

from __future__ import annotations

from ..tensor import Tensor
from .kernel_registry import impl


def infer_size(shape: list[int], numel: int) -> list[int]:
    """Resolve one -1 in a view/reshape size, with PyTorch's errors."""
    shape = list(shape)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s}")
        else:
            known *= s
    if infer is not None:
        if known == 0 or numel % known != 0:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[infer] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def compute_view_strides(old_shape: tuple[int, ...], old_stride: tuple[int, ...], new_shape: list[int]) -> tuple[int, ...] | None:
    """Strides for viewing (old_shape, old_stride) as new_shape without copying, or None (ATen computeStride)."""
    if not old_shape:
        return tuple([1] * len(new_shape))
    numel = 1
    for s in old_shape:
        numel *= s
    if numel == 0:
        if list(old_shape) == list(new_shape):
            return tuple(old_stride)
        from ..tensor import contiguous_strides

        return contiguous_strides(tuple(new_shape))
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


@impl("view", "CPU", "Meta")
def view(self: Tensor, size: list[int]) -> Tensor:
    shape = infer_size(size, self.numel())
    stride = compute_view_strides(self._shape, self._stride, shape)
    if stride is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead."
        )
    return self._view(tuple(shape), stride, self._storage_offset)
