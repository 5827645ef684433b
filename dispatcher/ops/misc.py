"""Everything else: copies (``clone``, ``_to_copy``, ``copy_``), fills, indexing, ``nonzero``, ``item()``.

Corresponds to scattered ATen files: TensorFactories.cpp / TensorConversions.cpp
(``clone``, ``_to_copy``, ``empty_like``'s layout rule), Copy.cpp (``copy_``),
Fill.cpp (``fill_``, ``zero_``), TensorAdvancedIndexing.cpp (``index_select``,
``index.Tensor``, ``nonzero``), Scalar.cpp (``_local_scalar_dense``).

``clone`` and ``_to_copy`` keep a dense input's strides exactly and give any
other input dense strides in the same dim order (``memory_format=None`` means
preserve_format, as in PyTorch). ``_to_copy`` also has a BackendSelect kernel:
the target backend comes from ``device=`` combined with the tensor's own keys,
so a CPU tensor copied ``device="meta"`` runs the Meta kernel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..keys import DispatchKey
from ..keyset import full_after_bits, key_bits
from ..op_overload import namespace
from ..tensor import Tensor, as_device, contiguous_strides, device
from ..tls import per_thread
from .kernel_registry import KERNELS, impl
from .meta_utils import (
    TensorMeta,
    broadcast_shapes,
    infer_dense_strides,
    is_non_overlapping_and_dense,
    materialize,
    scalar_type_name,
    strides_in_operand_order,
    wrap_dim,
)
from .views import clone_preserve_strides, compute_view_strides, infer_expand_geometry

aten = namespace("aten")
_META = device("meta")

# MemoryFormat codes (c10::MemoryFormat), as schema defaults and the front end pass them.
CONTIGUOUS_FORMAT, PRESERVE_FORMAT, CHANNELS_LAST, CHANNELS_LAST_3D = 0, 1, 2, 3
_MEMORY_FORMAT_NAMES = {
    "contiguous_format": CONTIGUOUS_FORMAT, "preserve_format": PRESERVE_FORMAT,
    "channels_last": CHANNELS_LAST, "channels_last_3d": CHANNELS_LAST_3D,
}

NONZERO_META_MESSAGE = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
    "data-independent implementation does not exist. This implementation returns a fake value, assuming all "
    "elements of the tensor are non-zero. To enable this registration, please set "
    "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True."
)


# --- layouts --------------------------------------------------------------------------------------


def memory_format_code(memory_format: Any) -> int:
    """A MemoryFormat argument (None, a code, a name, or an object with a ``name``) as its code."""
    if memory_format is None:
        return PRESERVE_FORMAT
    if isinstance(memory_format, int):
        return memory_format
    code = getattr(memory_format, "code", None)  # dispatcher.memory_format objects
    if isinstance(code, int):
        return code
    name = memory_format if isinstance(memory_format, str) else getattr(memory_format, "name", str(memory_format))
    name = name.removeprefix("torch.")
    if name not in _MEMORY_FORMAT_NAMES:
        raise RuntimeError(f"unknown memory format {memory_format!r}")
    return _MEMORY_FORMAT_NAMES[name]


def _channels_last_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Strides of channels_last (4-D) / channels_last_3d (5-D): C fastest, then W, H, (D), N."""
    from ..memory_format import channels_last_strides

    return channels_last_strides(shape, 2 if len(shape) == 4 else 3)


def like_strides(self: Tensor, memory_format: Any) -> tuple[int, ...]:
    """The strides ``empty_like(self, memory_format=...)`` gives (what clone and _to_copy allocate)."""
    code = memory_format_code(memory_format)
    shape = self._shape
    if code == PRESERVE_FORMAT:
        if self._contiguous or 0 in shape:  # PyTorch counts every empty tensor as contiguous: strides kept
            return self._stride
        if is_non_overlapping_and_dense(shape, self._stride):
            return self._stride
        return infer_dense_strides(shape, self._stride)
    if code == CONTIGUOUS_FORMAT:
        return contiguous_strides(shape)
    if code == CHANNELS_LAST:
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return _channels_last_strides(shape)
    if code == CHANNELS_LAST_3D:
        if len(shape) != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        return _channels_last_strides(shape)
    raise RuntimeError(f"unsupported memory format {memory_format!r}")


def _copy_values(dst: Tensor, src: Tensor) -> None:
    """Write src's values (broadcast, converted) into dst; both on CPU."""
    if not dst._data.size:
        return
    if dst._dtype is src._dtype:
        dst._data[...] = src._data
        return
    with np.errstate(over="ignore", invalid="ignore"):  # C casts: overflow gives inf / wraps, silently
        dst._data[...] = src._data


# --- clone / _to_copy / copy_ -----------------------------------------------------------------------


@impl("clone", "CompositeExplicitAutograd")
def clone(self: Tensor, *, memory_format: Any = None) -> Tensor:
    out = Tensor._empty(self._shape, self._dtype, self._device, like_strides(self, memory_format))
    if out._data is not None:
        _copy_values(out, self)
    return out


@impl("lift_fresh_copy", "CompositeExplicitAutograd")
def lift_fresh_copy(self: Tensor) -> Tensor:
    """PyTorch's generated ``*_copy`` kernel: the op without ``_copy``, then a *contiguous* clone."""
    return aten.clone.default(aten.lift_fresh.default(self), memory_format=CONTIGUOUS_FORMAT)


@impl("_to_copy", "CompositeExplicitAutograd")
def _to_copy(
    self: Tensor,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool | None = None,
    non_blocking: bool = False,
    memory_format: Any = None,
) -> Tensor:
    if layout not in (None, 0) and getattr(layout, "name", None) != "strided":
        raise RuntimeError(f"_to_copy: only the strided layout is supported, got {layout}")
    dt = self._dtype if dtype is None else _dt.from_code(dtype)
    dev = self._device if device is None else as_device(device)
    out = Tensor._empty(self._shape, dt, dev, like_strides(self, memory_format))
    if dev.type == "cpu":
        if self._data is None:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        _copy_values(out, self)
    return out


_CPU_BITS = key_bits(DispatchKey.CPU)
_META_BITS = key_bits(DispatchKey.Meta)
_AFTER_BACKEND_SELECT = full_after_bits(DispatchKey.BackendSelect)


def _to_copy_backend_select(self: Tensor, **kwargs: Any) -> Tensor:
    """Redispatch below BackendSelect on (the backend ``device=`` names) | (self's keys), with TLS applied.

    As PyTorch's generated BackendSelect kernel: ``device=None`` names the default device (cpu), and the
    tensor's own backend still counts, so the highest backend of the two runs (Meta beats CPU): a CPU
    tensor copied to ``device="meta"`` runs the Meta kernel, a meta tensor copied to cpu too (and fails
    there with "Cannot copy out of meta tensor", as in PyTorch).
    """
    target = kwargs.get("device")
    bits = _META_BITS if target is not None and as_device(target).type == "meta" else _CPU_BITS
    t = per_thread.s
    raw = ((bits | getattr(self, "_key_set", 0) | t.included) & t.exclude_mask) & _AFTER_BACKEND_SELECT
    return aten._to_copy.default.redispatch(raw, self, **kwargs)


# factories.py may already give _to_copy the generic factory BackendSelect kernel (same rule); keep one.
if ("_to_copy", "BackendSelect") not in KERNELS:
    impl("_to_copy", "BackendSelect")(_to_copy_backend_select)


def _check_copy_shapes(self: Tensor, src_shape: tuple[int, ...]) -> None:
    if src_shape == self._shape:
        return
    shape = broadcast_shapes(self._shape, src_shape)
    if shape != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the broadcast shape {list(shape)}")


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


@impl("copy_", "CompositeExplicitAutograd")
def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    _check_copy_shapes(self, src._shape)
    if self._data is None:  # meta destination: nothing to write
        return self
    if src._data is None:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if src is self:
        return self
    _check_no_internal_overlap(self)
    _check_no_partial_overlap(self, src)
    _copy_values(self, src)
    return self


# CompositeExplicitAutogradNonFunctional in PyTorch, plus a Meta kernel: a clone of self (same strides) written over.
@impl("copy", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def copy(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """The functional ``copy_``: ``src`` broadcast into a fresh tensor with self's shape, dtype, strides and offset."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    out = clone_preserve_strides(self)
    aten.copy_.default(out, src, non_blocking)
    return out


# --- fill_ / zero_ ------------------------------------------------------------------------------------

# c10's names for the target type in "value cannot be converted to type ... without overflow".
_C_TYPE_NAMES = {
    "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
    "float16": "c10::Half", "float32": "float", "float64": "double",
}


def _overflows(value: Any, dt: _dt.dtype) -> bool:
    """c10::overflows: would converting the Scalar ``value`` to ``dt`` overflow?"""
    if dt.name == "bool" or dt.is_complex or isinstance(value, complex):
        return False
    if isinstance(value, bool):
        value = int(value)
    if dt.is_floating_point:
        if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
            return False
        info = np.finfo(dt.np_dtype)
        return value < float(info.min) or value > float(info.max)
    info = np.iinfo(dt.np_dtype)
    if isinstance(value, float):
        return math.isnan(value) or value < info.min or value > info.max
    if not dt.is_signed and value < 0:
        return -value > info.max  # negative values wrap (two's complement)
    return value < info.min or value > info.max


def scalar_to_dtype(value: Any, dt: _dt.dtype) -> Any:
    """A Python Scalar converted to ``dt`` as c10 does (checked for overflow; floats truncate to ints)."""
    if _overflows(value, dt):
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[dt.name]} without overflow")
    if dt.name == "bool":
        return np.bool_(bool(value))
    if dt.is_floating_point or dt.is_complex:
        return dt.np_dtype.type(value)
    if isinstance(value, float):
        value = int(value)
    return np.array(int(value)).astype(dt.np_dtype)[()]


@impl("fill_.Scalar", "CPU", "Meta")
def fill_scalar(self: Tensor, value: Any) -> Tensor:
    if self._data is None:
        return self
    v = scalar_to_dtype(value, self._dtype)
    if self._data.size:
        self._data[...] = v
    return self


@impl("zero_", "CPU", "Meta")
def zero_(self: Tensor) -> Tensor:
    if self._data is not None and self._data.size:
        self._data[...] = 0
    return self


# --- indexing -----------------------------------------------------------------------------------------


def _output_device(*tensors: Any) -> device:
    """Meta if any tensor is meta (the Meta kernel runs), else cpu."""
    for t in tensors:
        if isinstance(t, Tensor) and t._data is None:
            return _META
    return tensors[0]._device


@impl("index_select", "CPU", "Meta")
def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    if index._dtype.name not in ("int32", "int64"):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if len(index._shape) > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    ndim = len(self._shape)
    dim = wrap_dim(dim, ndim)
    n = index.numel()
    if ndim == 0 and n != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {n} value(s)")
    shape = self._shape[:dim] + (n,) + self._shape[dim + 1:] if ndim else ()
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)
    out_device = _output_device(self, index)

    def compute() -> np.ndarray:
        idx = index._data.reshape(-1).astype(np.int64, copy=False)
        _check_index_select_range(self, dim, idx)
        if ndim == 0:
            return self._data.copy()
        return np.take(self._data, idx, axis=dim)

    return materialize(meta, compute, out_device)


def _check_index_select_range(self: Tensor, dim: int, idx: np.ndarray) -> None:
    """PyTorch's CPU kernel checks indices on two paths with two messages; reproduce both."""
    if not idx.size:
        return
    ndim = len(self._shape)
    size = self._shape[dim] if ndim else 1
    if ndim > 1 and (dim == 1 or self.numel() == 0):
        # the batched path (dim 1, or an empty self): negative indices are out of bounds here too
        if self.numel() == 0 and size == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(idx[bad][0])} axis_dim={size}")
        return
    if idx.min() < 0 or idx.max() >= size:
        raise IndexError("index out of range in self")


def _expand_bool_masks(self: Tensor, indices: list[Any]) -> list[Any]:
    """Replace each bool/uint8 mask by the long index tensors of its nonzero positions (ATen expandTensors)."""
    out: list[Any] = []
    for idx in indices:
        if idx is None or idx._dtype.name not in ("bool", "uint8"):
            out.append(idx)
            continue
        start = len(out)
        for k, size in enumerate(idx._shape):
            if start + k >= len(self._shape) or size != self._shape[start + k]:
                raise IndexError(
                    f"The shape of the mask {list(idx._shape)} at index {k} does not match the shape of the indexed "
                    f"tensor {list(self._shape)} at index {start + k}"
                )
        if idx._data is None:
            raise NotImplementedError(NONZERO_META_MESSAGE)
        for positions in np.nonzero(idx._data):
            out.append(Tensor._from_numpy(positions.astype(np.int64), _dt.int64))
    return out


def _broadcast_index_shapes(indices: list[Tensor]) -> tuple[int, ...]:
    try:
        return broadcast_shapes(*[t._shape for t in indices])
    except RuntimeError:
        shapes = ", ".join(str(list(t._shape)) for t in indices)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}") from None


def _restride_index(idx: Tensor, bshape: tuple[int, ...], lead: int, trail: int) -> tuple[tuple, tuple]:
    """An index tensor as ATen's AdvancedIndex sees it: expanded to ``bshape``, then viewed with size-1 dims
    for the dims before and after the indexed ones."""
    shape, stride = idx._shape, idx._stride
    if shape != bshape:
        shape, stride = infer_expand_geometry(shape, stride, list(bshape))
    new_shape = (1,) * lead + shape + (1,) * trail
    return new_shape, compute_view_strides(shape, stride, list(new_shape))


def _is_contiguous_geometry(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """c10's is_contiguous: any empty tensor is contiguous; otherwise row-major, ignoring size-1 dims."""
    if 0 in shape:
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride)):
        if size != 1:
            if st != expected:
                return False
            expected *= size
    return True


def iterator_output_strides(shape: tuple[int, ...], operands: list[tuple[tuple, tuple]]) -> tuple[int, ...]:
    """The strides TensorIterator gives a new output of ``shape`` for inputs given as (shape, stride).

    An input dim of size 1 counts as broadcast (stride 0) only where the output's size is not 1; the dims
    are sorted fastest-first by the first input that tells two apart; a natural order gives a contiguous
    output, any other order dense strides built from the raw sizes (so dims after a size-0 dim get 0).
    """
    ndim = len(shape)
    if ndim <= 1:
        return contiguous_strides(shape)
    if all(op_shape == shape for op_shape, _ in operands):  # TensorIterator's fast setup
        if all(_is_contiguous_geometry(op_shape, op_stride) for op_shape, op_stride in operands):
            return contiguous_strides(shape)
        first = operands[0][1]
        if all(op_stride == first for _, op_stride in operands) and is_non_overlapping_and_dense(shape, first):
            return tuple(first)
    strides = [
        [0 if op_shape[i] == 1 and shape[i] != 1 else op_stride[i] for i in range(ndim)]
        for op_shape, op_stride in operands
    ]
    return strides_in_operand_order(shape, strides)


def _index_meta(self: Tensor, indices: list[Any]) -> tuple[TensorMeta, list[int], tuple[int, ...]]:
    """Output metadata of advanced indexing: shape as NumPy, strides as TensorIterator over the restrided input."""
    ndim = len(self._shape)
    entries = indices + [None] * (ndim - len(indices))
    positions = [d for d, idx in enumerate(entries) if idx is not None]
    index_tensors = [entries[d] for d in positions]
    bshape = _broadcast_index_shapes(index_tensors)
    adjacent = positions[-1] - positions[0] + 1 == len(positions)
    rest = [d for d in range(ndim) if entries[d] is None]
    if adjacent:
        before = [d for d in rest if d < positions[0]]
        after = [d for d in rest if d > positions[-1]]
    else:  # the indexed dims move to the front (ATen transposeToFront), as NumPy does
        before, after = [], rest
    shape = tuple(self._shape[d] for d in before) + bshape + tuple(self._shape[d] for d in after)
    src_stride = (
        tuple(self._stride[d] for d in before) + (0,) * len(bshape) + tuple(self._stride[d] for d in after)
    )
    operands = [(shape, src_stride)]
    operands += [_restride_index(idx, bshape, len(before), len(after)) for idx in index_tensors]
    stride = iterator_output_strides(shape, operands)
    return TensorMeta(shape, stride, self._dtype), positions, bshape


@impl("index.Tensor", "CPU", "Meta")
def index_tensor(self: Tensor, indices: list[Any]) -> Tensor:
    if len(indices) == 0:
        raise IndexError("at least one index must be provided")
    for idx in indices:
        if idx is not None and idx._dtype.name not in ("int64", "int32", "uint8", "bool"):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    ndim = len(self._shape)
    if len(indices) > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {len(indices)})")
    expanded = _expand_bool_masks(self, list(indices))
    if all(idx is None for idx in expanded):
        return aten.clone.default(self)
    meta, positions, _ = _index_meta(self, expanded)
    out_device = _output_device(self, *[i for i in expanded if i is not None])

    def compute() -> np.ndarray:
        key: list[Any] = [slice(None)] * ndim
        for k, d in enumerate(positions):
            idx = expanded[d]._data.astype(np.int64, copy=False)
            size = self._shape[d]
            bad = (idx < -size) | (idx >= size)
            if bad.any():
                raise IndexError(f"index {int(idx[bad].flat[0])} is out of bounds for dimension {k} with size {size}")
            key[d] = idx
        return self._data[tuple(key)]

    return materialize(meta, compute, out_device)


@impl("nonzero", "CPU")
def nonzero(self: Tensor) -> Tensor:
    """int64 [n, ndim] with strides (1, n), as PyTorch allocates it (transposed)."""
    coords = np.argwhere(self._data) if self._shape else np.zeros((int(bool(self._data)), 0), dtype=np.int64)
    n = coords.shape[0]
    out = Tensor._empty((n, len(self._shape)), _dt.int64, self._device, (1, n))
    if out._data.size:
        out._data[...] = coords
    return out


@impl("nonzero", "Meta")
def nonzero_meta(self: Tensor) -> Tensor:
    raise NotImplementedError(NONZERO_META_MESSAGE)


# --- scalars and literals --------------------------------------------------------------------------


@impl("_local_scalar_dense", "CPU")
def local_scalar_dense(self: Tensor) -> Any:
    """The first element as a Python number (Tensor.item() checks there is exactly one)."""
    if self.numel() == 0:
        raise RuntimeError("a Tensor with 0 elements cannot be converted to Scalar")
    return self._data.flat[0].item()


@impl("_local_scalar_dense", "Meta")
def local_scalar_dense_meta(self: Tensor) -> Any:
    raise RuntimeError("Tensor.item() cannot be called on meta tensors")


@impl("lift_fresh", "CompositeExplicitAutograd")
def lift_fresh(self: Tensor) -> Tensor:
    return self


@impl("fill_.Tensor", "CPU", "Meta")
def fill_tensor(self: Tensor, value: Tensor) -> Tensor:
    if value.dim() != 0:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions."
        )
    if self._data is None or value._data is None:
        return self
    return fill_scalar(self, value._data.reshape(()).item())


@impl("_index_put_impl_", "CPU", "Meta")
def index_put_impl_(
    self: Tensor, indices: list[Any], values: Tensor, accumulate: bool = False, unsafe: bool = False
) -> Tensor:
    """``self[indices] = values`` (or ``+=`` with accumulate) with NumPy's advanced indexing, as ATen's index_put."""
    if values._dtype is not self._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{scalar_type_name(self._dtype)} for the destination and {scalar_type_name(values._dtype)} for the source."
        )
    expanded = _expand_bool_masks(self, list(indices))
    if len(expanded) > len(self._shape):
        raise IndexError(f"too many indices for tensor of dimension {len(self._shape)} (got {len(expanded)})")
    if self._data is None:
        return self
    key = tuple(slice(None) if i is None else i._data.astype(np.int64, copy=False) for i in expanded)
    for axis, i in enumerate(key):
        if isinstance(i, np.ndarray) and i.size:
            size = self._shape[axis]
            bad = i[(i >= size) | (i < -size)]
            if bad.size:
                raise IndexError(f"index {int(bad.flat[0])} is out of bounds for dimension {axis} with size {size}")
    vals = values._data
    if accumulate:
        np.add.at(self._data, key, vals)
    else:
        self._data[key] = vals
    return self


@impl("index_put_", "CompositeExplicitAutograd")
def index_put_(self: Tensor, indices: list[Any], values: Tensor, accumulate: bool = False) -> Tensor:
    return aten._index_put_impl_.default(self, indices, values, accumulate, False)


@impl("index_put", "CompositeExplicitAutograd")
def index_put(self: Tensor, indices: list[Any], values: Tensor, accumulate: bool = False) -> Tensor:
    """The out-of-place index_put: a clone of ``self`` (preserve format) written by ``index_put_``."""
    return aten.index_put_.default(aten.clone.default(self), indices, values, accumulate)


# --- index_add (TensorAdvancedIndexing.cpp): checks in PyTorch's order ---------------------------------------


def _index_add_checks(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    dim = wrap_dim(dim, max(len(self._shape), 1))
    if len(index._shape) > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {len(index._shape)} with type: "
            f"{scalar_type_name(index._dtype)} and size: {list(index._shape)}"
        )
    if index._dtype.name not in ("int32", "int64"):
        raise RuntimeError(
            f"index_add_(): Expected dtype int32/int64 for index but got: {scalar_type_name(index._dtype)}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"index_add_(): self ({scalar_type_name(self._dtype)}) and source ({scalar_type_name(source._dtype)}) "
            "must have the same scalar type"
        )
    source_size = source._shape[dim] if source._shape and dim < len(source._shape) else 1
    if index.numel() != source_size:
        raise RuntimeError(
            f"index_add_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
            f"({source_size}), for dim: {dim}"
        )
    same = len(self._shape) == len(source._shape) and all(
        a == b for d, (a, b) in enumerate(zip(self._shape, source._shape)) if d != dim
    )
    if not same and not (self._shape == () and source._shape == ()):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape "
            f"= {list(self._shape)} source.shape = {list(source._shape)}"
        )
    return dim


def _index_add_into(out: np.ndarray, dim: int, index: Tensor, source: Tensor, alpha: Any, dtype: Any) -> None:
    idx = index._data.reshape(-1).astype(np.int64)
    size = out.shape[dim] if out.ndim else 1
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        raise RuntimeError(f"index {int(idx[bad][0])} is out of bounds for dimension {dim} with size {size}")
    src = source._data
    if alpha != 1:
        a = alpha if dtype.is_floating_point or dtype.is_complex else int(alpha)
        src = (src * a).astype(dtype.np_dtype) if dtype is not _dt.bool else np.logical_and(src, bool(a))
    if out.ndim == 0:
        out[...] = np.logical_or(out, src) if dtype is _dt.bool else out + src
        return
    view = np.moveaxis(out, dim, 0)
    if dtype is _dt.bool:
        np.logical_or.at(view, idx, np.moveaxis(src, dim, 0))
    else:
        np.add.at(view, idx, np.moveaxis(src, dim, 0))


@impl("index_add", "CPU", "Meta")
def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    dim = _index_add_checks(self, dim, index, source)
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), self._dtype)

    def compute() -> np.ndarray:
        out = np.array(self._data, order="C")
        _index_add_into(out, dim, index, source, alpha, self._dtype)
        return out

    return materialize(meta, compute, _output_device(self, index, source))


@impl("index_add_", "CPU", "Meta")
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    dim = _index_add_checks(self, dim, index, source)
    if self._data is not None and index._data is not None and source._data is not None:
        _index_add_into(self._data, dim, index, source, alpha, self._dtype)
    return self


# --- masked_select / masked_scatter / gather / scatter (TensorAdvancedIndexing.cpp, ScatterGatherChecks.h) ----

MASKED_SELECT_META_MESSAGE = (
    "aten::masked_select: attempted to run this operator with Meta tensors, but there was no fake impl or Meta "
    "kernel registered. You may have run into this message while using an operator with PT2 compilation APIs "
    "(torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake impl. "
    "Please see the following for next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
)


def _check_bool_mask(mask: Tensor, message: str) -> None:
    if mask._dtype is not _dt.bool:
        raise RuntimeError(message)


@impl("masked_select", "CPU")
def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``self`` (broadcast with ``mask``) where ``mask`` is True, in row-major order, 1-D."""
    _check_bool_mask(mask, "masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask._shape, self._shape)
    values = np.broadcast_to(self._data, shape)[np.broadcast_to(mask._data, shape)]
    return materialize(TensorMeta(values.shape, contiguous_strides(values.shape), self._dtype), values, self)


@impl("masked_select", "Meta")
def masked_select_meta(self: Tensor, mask: Tensor) -> Tensor:
    raise NotImplementedError(MASKED_SELECT_META_MESSAGE)


def _masked_scatter_checks(self: Tensor, mask: Tensor, source: Tensor) -> None:
    _check_bool_mask(mask, f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{scalar_type_name(mask._dtype)}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{scalar_type_name(self._dtype)} and {scalar_type_name(source._dtype)}")


def _masked_scatter_into(out: np.ndarray, mask: np.ndarray, source: Tensor) -> None:
    """Write ``source``'s leading elements, in order, where ``mask`` (broadcast to ``out``) is True."""
    where = np.broadcast_to(mask, out.shape)
    count = int(where.sum())
    flat = np.asarray(source._data).reshape(-1)
    if flat.size < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out[where] = flat[:count]


@impl("masked_scatter_", "CPU", "Meta")
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    _masked_scatter_checks(self, mask, source)
    if len(mask._shape) > len(self._shape):  # mask.expand(self.sizes()) in C++, which names the type "CPUBoolType"
        backend = "Meta" if mask._device.type == "meta" else "CPU"
        raise RuntimeError(
            f"expand({backend}{scalar_type_name(mask._dtype)}Type{{{list(mask._shape)}}}, size={list(self._shape)}): "
            f"the number of sizes provided ({len(self._shape)}) must be greater or equal to the number of dimensions "
            f"in the tensor ({len(mask._shape)})"
        )
    infer_expand_geometry(mask._shape, mask._stride, list(self._shape))
    if self._data is not None and mask._data is not None and source._data is not None:
        _masked_scatter_into(self._data, mask._data, source)
    return self


@impl("masked_scatter", "CompositeExplicitAutograd")
def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Out of place: self and mask broadcast together, a contiguous copy, then filled as ``masked_scatter_``."""
    _masked_scatter_checks(self, mask, source)
    shape = broadcast_shapes(mask._shape, self._shape)
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)

    def compute() -> np.ndarray:
        out = np.array(np.broadcast_to(self._data, shape), order="C")
        _masked_scatter_into(out, mask._data, source)
        return out

    return materialize(meta, compute, _output_device(self, mask, source))


@impl("masked_scatter_backward", "CompositeExplicitAutograd")
def masked_scatter_backward(grad_output: Tensor, mask: Tensor, sizes: list[int]) -> Tensor:
    """``grad_output[mask]`` padded with zeros to ``prod(sizes)`` elements, viewed as ``sizes``."""
    _check_bool_mask(mask, "masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask._shape, grad_output._shape)
    numel = math.prod(sizes)
    sizes = [int(s) for s in sizes]
    if grad_output._data is None or mask._data is None:
        selected = None
        n = numel
    else:
        selected = np.broadcast_to(grad_output._data, shape)[np.broadcast_to(mask._data, shape)]
        n = max(numel, selected.size)
    if n != numel:
        raise RuntimeError(f"shape '{sizes}' is invalid for input of size {n}")
    meta = TensorMeta(tuple(sizes), contiguous_strides(tuple(sizes)), grad_output._dtype)
    if selected is None:
        return materialize(meta, None, _output_device(grad_output, mask))
    values = np.zeros(numel, grad_output._dtype.np_dtype)
    values[: selected.size] = selected
    return materialize(meta, values.reshape(sizes), grad_output)


def _nonempty_size(t: Tensor, d: int) -> int:
    """``ensure_nonempty_size``: 1 for a 0-dim tensor, else ``size(d)`` (which wraps and range-checks d)."""
    return 1 if not t._shape else t._shape[wrap_dim(d, len(t._shape))]


def _check_index_dtype(method: str, index: Tensor) -> None:
    if index.numel() != 0 and index._dtype.name not in ("int32", "int64"):
        raise RuntimeError(f"{method}(): Expected dtype int32/int64 for index")


def _scatter_checks(self: Tensor, dim: int, index: Tensor, src: Tensor | None) -> int:
    """scatter's meta checks (``scatter_gather_dtype_check``, ``scatter_shape_check``); returns the wrapped dim."""
    dim = wrap_dim(dim, len(self._shape))
    _check_index_dtype("scatter", index)
    if src is not None and self._dtype is not src._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    self_dims = max(len(self._shape), 1)
    if self_dims != max(len(index._shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(d != dim and _nonempty_size(index, d) > _nonempty_size(self, d) for d in range(self_dims))
    if src is None:
        if wrong:
            raise RuntimeError(f"Expected index {list(index._shape)} to be no larger than self {list(self._shape)} "
                               f"apart from dimension {dim}")
        return dim
    if not wrong:
        wrong = any(_nonempty_size(index, d) > _nonempty_size(src, d) for d in range(self_dims))
    if max(len(src._shape), 1) != max(len(index._shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        raise RuntimeError(
            f"Expected index {list(index._shape)} to be no larger than self {list(self._shape)} apart from "
            f"dimension {dim} and to be no larger size than src {list(src._shape)}"
        )
    return dim


def _index_targets(index: Tensor, dim: int, size: int) -> tuple[tuple, tuple]:
    """For each position of ``index`` (C order): its own coordinates, and the ones with ``dim`` replaced by the index.

    PyTorch's CPU kernels check every index against ``size`` (the indexed tensor's size along ``dim``).
    """
    idx = np.asarray(index._data).astype(np.int64).reshape(index._shape or (1,))
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        raise RuntimeError(f"index {int(idx[bad][0])} is out of bounds for dimension {dim} with size {size}")
    positions = np.indices(idx.shape).reshape(idx.ndim, -1)
    targets = positions.copy()
    targets[dim] = idx.reshape(-1)
    return tuple(positions), tuple(targets)


def _scatter_into(out: np.ndarray, dim: int, index: Tensor, src: Any, accumulate: bool = False) -> None:
    """``out[..., index[i], ...] = src[i]`` (or ``+=``) over index's positions, in C order (the last write wins)."""
    if index.numel() == 0:
        return
    positions, targets = _index_targets(index, dim, out.shape[dim] if out.ndim else 1)
    view = out.reshape(out.shape or (1,))
    if isinstance(src, Tensor):
        values = np.asarray(src._data).reshape(src._shape or (1,))[positions]
    else:
        values = src
    if accumulate:
        np.add.at(view, targets, values)
    else:
        view[targets] = values


def _scatter_out(self: Tensor, dim: int, index: Tensor, src: Any, accumulate: bool = False) -> Tensor:
    """The out-of-place scatters: a contiguous copy of self, then scattered into."""
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), self._dtype)

    def compute() -> np.ndarray:
        out = np.array(self._data, order="C")
        _scatter_into(out, dim, index, src, accumulate)
        return out

    tensors = (self, index) + ((src,) if isinstance(src, Tensor) else ())
    return materialize(meta, compute, _output_device(*tensors))


def _scatter_inplace(self: Tensor, dim: int, index: Tensor, src: Any, accumulate: bool = False) -> Tensor:
    if self._data is not None and index._data is not None and getattr(src, "_data", 0) is not None:
        _scatter_into(self._data, dim, index, src, accumulate)
    return self


def _scalar_as(value: Any, dt: _dt.dtype) -> Any:
    """A Scalar converted to the tensor's dtype as a C++ static_cast would (2.5 -> 2 for an integer tensor)."""
    with np.errstate(all="ignore"):
        return np.array(value).astype(dt.np_dtype)


@impl("scatter.src", "CPU", "Meta")
def scatter_src(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_out(self, _scatter_checks(self, dim, index, src), index, src)


@impl("scatter_.src", "CPU", "Meta")
def scatter__src(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_inplace(self, _scatter_checks(self, dim, index, src), index, src)


@impl("scatter.value", "CPU", "Meta")
def scatter_value(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _scatter_out(self, _scatter_checks(self, dim, index, None), index, _scalar_as(value, self._dtype))


@impl("scatter_add", "CPU", "Meta")
def scatter_add(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_out(self, _scatter_checks(self, dim, index, src), index, src, accumulate=True)


@impl("scatter_add_", "CPU", "Meta")
def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_inplace(self, _scatter_checks(self, dim, index, src), index, src, accumulate=True)


@impl("gather", "CPU", "Meta")
def gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i] = self[..., index[i], ...]``: index's shape, contiguous."""
    dim = wrap_dim(dim, len(self._shape))
    _check_index_dtype("gather", index)
    self_dims = max(len(self._shape), 1)
    if self_dims != max(len(index._shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(self_dims):
        if d != dim and _nonempty_size(index, d) > _nonempty_size(self, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index._shape)} to be no "
                               f"larger than self {list(self._shape)} apart from dimension {dim}")
    meta = TensorMeta(index._shape, contiguous_strides(index._shape), self._dtype)

    def compute() -> np.ndarray:
        out = np.zeros(index._shape, self._dtype.np_dtype)
        if index.numel():
            positions, targets = _index_targets(index, dim, self._shape[dim] if self._shape else 1)
            out.reshape(index._shape or (1,))[positions] = np.asarray(self._data).reshape(self._shape or (1,))[targets]
        return out

    return materialize(meta, compute, _output_device(self, index))
