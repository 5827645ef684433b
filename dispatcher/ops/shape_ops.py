"""Shape kernels that copy: ``cat`` (a backend op) and ``stack`` (composite, built on ``cat``).

Corresponds to the ``cat`` meta function and kernels of aten/src/ATen/native/TensorShape.cpp.
``cat`` promotes dtypes across its inputs, skips legacy empty 1-D tensors of
shape [0] when checking shapes (they still take part in type promotion), and
picks its output layout from the inputs' suggested memory formats.
``stack`` is CompositeExplicitAutograd in PyTorch: it ``cat``s along an existing
dim and ``view``s the result, or ``unsqueeze``s every input and ``cat``s them
when stacking after the last dim; these calls go through the dispatcher.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..memory_format import channels_last_strides as channels_last_strides_of
from ..memory_format import suggest_memory_format_code
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, np_operand, wrap_dim

aten = namespace("aten")


def suggest_memory_format(t: Tensor) -> int:
    """0 (contiguous_format), 2 (channels_last) or 3 (channels_last_3d), as ``Tensor.suggest_memory_format()``."""
    # NB: checked before contiguity, as c10 does: e.g. [1, 1, 2, 1] with strides (2, 1, 1, 1) is both.
    return suggest_memory_format_code(t._shape, t._stride)


def channels_last_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    n, c, h, w = shape
    c_st = 1
    w_st = max(c, 1)
    h_st = w_st * max(w, 1)
    n_st = h_st * max(h, 1)
    return (n_st, c_st, h_st, w_st)


def _cat_output_memory_format(tensors: list[Tensor]) -> int:
    fmt = None
    for t in tensors:
        f = suggest_memory_format(t)
        if f == 0:
            return 0
        if fmt is not None and fmt != f:
            return 0
        fmt = f
    return fmt or 0


def _should_skip(t: Tensor) -> bool:
    """Legacy behaviour: a 1-D tensor of shape [0] is ignored by cat's shape checks."""
    return t._shape == (0,)


def cat_meta(tensors: list[Tensor], dim: int) -> tuple[TensorMeta, list[Tensor]]:
    """Output metadata of ``cat`` and the inputs that take part in it (ATen's cat meta function)."""
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"cat(): argument 'tensors' must be tuple of Tensors, not {type(t).__name__}")
    first_device = tensors[0]._device
    for t in tensors[1:]:
        if t._device != first_device:
            raise RuntimeError(f"Tensor on device {t._device} is not on the expected device {first_device}!")
    for i, t in enumerate(tensors):
        if not t._shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dtype = tensors[0]._dtype
    for t in tensors[1:]:
        if t._dtype is not dtype:
            dtype = _dt.result_type(*tensors)
            break
    kept = [t for t in tensors if not _should_skip(t)]
    if not kept:
        # Every input is a legacy empty tensor: the result is one too.
        return TensorMeta((0,), (1,), dtype), kept
    ref = kept[0]
    ndim = len(ref._shape)
    dim = wrap_dim(dim, ndim)
    total = 0
    for i, t in enumerate(tensors):
        if _should_skip(t):
            continue
        if len(t._shape) != ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ndim} and {len(t._shape)}")
        for d in range(ndim):
            if d != dim and t._shape[d] != ref._shape[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size {ref._shape[d]} but got "
                    f"size {t._shape[d]} for tensor number {i} in the list."
                )
        total += t._shape[dim]
    shape = ref._shape[:dim] + (total,) + ref._shape[dim + 1:]
    fmt = _cat_output_memory_format(tensors)
    if fmt:
        stride = channels_last_strides_of(shape, fmt)
    else:
        stride = contiguous_strides(shape)
    return TensorMeta(shape, stride, dtype), kept


# Also CompositeExplicitAutogradNonFunctional, as in PyTorch: that fills the Undefined slot, so a call
# with an empty list (no tensors to dispatch on) reaches this kernel and gets its error.
@impl("cat", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def cat(tensors: list[Tensor], dim: int = 0) -> Tensor:
    meta, kept = cat_meta(tensors, dim)

    def compute() -> np.ndarray:
        if not kept:
            return np.zeros((0,), dtype=meta.dtype.np_dtype)
        axis = wrap_dim(dim, len(kept[0]._shape))
        return np.concatenate([np_operand(t, meta.dtype) for t in kept], axis=axis)

    return materialize(meta, compute, tensors[0])


@impl("stack", "CompositeExplicitAutograd")
def stack(tensors: list[Tensor], dim: int = 0) -> Tensor:
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    ndim = len(first._shape)
    dim = wrap_dim(dim, ndim + 1)
    for i, t in enumerate(tensors[1:], 1):
        if t._shape != first._shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first._shape)} at entry 0 and "
                f"{list(t._shape)} at entry {i}"
            )
    if dim < ndim:
        # cat along the existing dim, then split it with a view (always possible on cat's fresh output).
        shape = list(first._shape)
        shape.insert(dim, len(tensors))
        return aten.view.default(aten.cat.default(list(tensors), dim), shape)
    return aten.cat.default([aten.unsqueeze.default(t, dim) for t in tensors], dim)
