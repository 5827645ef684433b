"""Embedding kernels: ``embedding``, ``embedding_dense_backward``, the CompositeImplicitAutograd ``embedding_backward``,
and ``one_hot``.

Corresponds to aten/src/ATen/native/Embedding.cpp and Onehot.cpp. ``embedding`` is CompositeExplicitAutograd
(``index_select`` of the weight's rows, viewed to the indices' shape); ``embedding_dense_backward`` sums the
gradient rows per index (``padding_idx`` and out-of-range rows left out, ``scale_grad_by_freq`` dividing by the
counts). ``one_hot`` (CompositeImplicitAutograd) has two paths. On real tensors it reads
the class range (``aminmax`` + two ``item``s, which a real-mode trace refuses as data-dependent, as PyTorch's does)
and fills ``zeros`` with ``scatter_``; on meta / fake tensors (meta device or the Python key) it compares
``unsqueeze(-1)`` with an ``arange`` (``eq`` + ``to(int64)``), the path fake-mode graphs record.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..memory_format import strided
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .composite import _PYTHON_BIT, _op
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize
from .tensor_iterator import _is_float

aten = namespace("aten")


# --- embedding ----------------------------------------------------------------------------------------


def _check_indices(indices: Tensor, arg: int, op: str) -> None:
    if indices._dtype not in (_dt.int64, _dt.int32):
        from .kernel_dtypes import legacy_type_name

        raise RuntimeError(
            f"Expected tensor for argument #{arg} 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {legacy_type_name(indices)} instead (while checking arguments for {op})"
        )


@impl("embedding", "CompositeExplicitAutograd")
def embedding(
    weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False, sparse: bool = False
) -> Tensor:
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices, 1, "embedding")
    if indices.dim() == 1:
        return aten.index_select.default(weight, 0, indices)
    size = list(indices._shape) + list(weight._shape[1:])
    flat = aten.reshape.default(indices, [-1])
    return aten.view.default(aten.index_select.default(weight, 0, flat), size)


@impl("embedding_dense_backward", "CPU", "Meta")
def embedding_dense_backward(
    grad_output: Tensor, indices: Tensor, num_weights: int, padding_idx: int, scale_grad_by_freq: bool
) -> Tensor:
    _check_indices(indices, 2, "embedding_backward")
    if num_weights < 0:
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    if grad_output.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    num_indices = indices.numel()
    width = grad_output._shape[-1]
    if grad_output.numel() != num_indices * width:
        raise RuntimeError(f"shape '{[num_indices, width]}' is invalid for input of size {grad_output.numel()}")
    d = grad_output._dtype
    shape = (int(num_weights), width)
    meta = TensorMeta(shape, contiguous_strides(shape), d)

    def compute() -> np.ndarray:
        idx = indices._data.reshape(-1).astype(np.int64)
        g = grad_output._data.reshape(num_indices, width).astype(np.float64 if _is_float(d) else d.np_dtype)
        if scale_grad_by_freq:
            valid = (idx >= 0) & (idx < num_weights)
            counts = np.bincount(idx[valid], minlength=int(num_weights))
            g = g / counts[np.clip(idx, 0, max(int(num_weights) - 1, 0))][:, None] if num_weights else g
        keep = (idx != padding_idx) & (idx >= 0) & (idx < num_weights)  # out-of-range rows are dropped
        out = np.zeros(shape, g.dtype)
        np.add.at(out, idx[keep], g[keep])
        return out

    return materialize(meta, compute, grad_output)


# --- embedding_backward (CompositeImplicitAutograd) ----------------------------------------------------


@impl("embedding_backward", "CompositeImplicitAutograd")
def embedding_backward(grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                       scale_grad_by_freq: bool, sparse: bool) -> Tensor:
    if sparse:
        raise NotImplementedError("embedding_backward with sparse=True (sparse gradients) is not supported")
    return _op("embedding_dense_backward")(grad, indices, num_weights, padding_idx, scale_grad_by_freq)


# --- one_hot (Onehot.cpp) -------------------------------------------------------------------------------------------


def _is_meta_or_python(t: Tensor) -> bool:
    """``self.key_set()`` has the Meta backend bit or the Python key: meta tensors and fake tensors."""
    return t._device.type == "meta" or bool(getattr(t, "_key_set", 0) & _PYTHON_BIT)


@impl("one_hot", "CompositeImplicitAutograd")
def one_hot(self: Tensor, num_classes: int = -1) -> Tensor:
    if self._dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if _is_meta_or_python(self):
        if num_classes == -1:
            num_classes = int(_op("item")(_op("max")(self))) + 1
        index = _op("arange")(num_classes, dtype=_dt.int64, layout=strided, device=self._device)
        return _op("to.dtype")(_op("eq.Tensor")(_op("unsqueeze")(self, -1), index), _dt.int64)
    shape = list(self._shape)
    if self.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _op("empty.memory_format")([*shape, num_classes], dtype=_dt.int64, layout=strided,
                                          device=self._device)
    lo, hi = _op("aminmax")(self)
    min_value, max_value = int(_op("item")(lo)), int(_op("item")(hi))
    if min_value < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = max_value + 1
    elif max_value >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    result = _op("zeros")([*shape, num_classes], dtype=_dt.int64, layout=strided, device=self._device)
    _op("scatter_.value")(result, -1, _op("unsqueeze")(self, -1), 1)
    return result
