"""Conversion and copy kernels: ``clone``, ``_to_copy`` / ``to``, ``contiguous``, ``copy_`` / ``copy``, ``fill_`` /
``zero_``, ``lift_fresh``, and the scalar readers ``item`` / ``_local_scalar_dense`` / ``is_nonzero``.

Corresponds to aten/src/ATen/native/TensorConversions.cpp (``to`` -> ``_to_copy``, aliasing when nothing changes),
TensorFactories.cpp (``clone``, ``empty_like``'s layout rule), Copy.cpp (``copy_``, with MemoryOverlap's checks),
Fill.cpp (``fill_``, ``zero_``), Scalar.cpp (``item`` -> ``_local_scalar_dense``) and TensorProperties.cpp
(``contiguous``). ``clone`` and ``_to_copy`` keep a dense input's strides exactly and give any other input dense
strides in the same dim order (``memory_format=None`` means preserve_format, as in PyTorch). ``_to_copy`` also has
a BackendSelect kernel: the target backend comes from ``device=`` combined with the tensor's own keys, so a CPU
tensor copied ``device="meta"`` runs the Meta kernel. ``to`` / ``contiguous`` / ``item`` / ``is_nonzero`` are
CompositeImplicitAutograd.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..keys import DispatchKey
from ..keyset import full_after_bits, key_bits
from ..math_bits import MATH_BITS, logical_values, to_physical
from ..memory_format import strided
from ..op_overload import namespace
from ..tensor import Tensor, as_device, contiguous_strides
from ..tls import per_thread
from ..zero_tensor import ZERO_BIT
from .backend_select import register_backend_select
from .composite import _CONTIGUOUS_FORMAT, _STRIDED, _op
from .kernel_registry import KERNELS, impl
from .memory_overlap import _check_no_internal_overlap, _check_no_partial_overlap
from .meta_utils import broadcast_shapes, infer_dense_strides, is_non_overlapping_and_dense
from .views_scatter import clone_preserve_strides

aten = namespace("aten")


# MemoryFormat codes (c10::MemoryFormat), as schema defaults and the front end pass them.
CONTIGUOUS_FORMAT, PRESERVE_FORMAT, CHANNELS_LAST, CHANNELS_LAST_3D = 0, 1, 2, 3
_MEMORY_FORMAT_NAMES = {
    "contiguous_format": CONTIGUOUS_FORMAT, "preserve_format": PRESERVE_FORMAT,
    "channels_last": CHANNELS_LAST, "channels_last_3d": CHANNELS_LAST_3D,
}


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
    """Write src's values (broadcast, converted) into dst; both on CPU. The conjugate / negative bits of both
    are honoured (copy_ and clone are fallthroughs of those keys: they materialize them, math_bits.py)."""
    if not dst._data.size:
        return
    if src._key_set & ZERO_BIT:  # copy_ from a zero tensor: self.zero_()
        dst._data[...] = 0
        return
    values = src._data
    if (src._key_set | dst._key_set) & MATH_BITS:
        values = to_physical(dst, logical_values(src))
    if dst._dtype is src._dtype:
        dst._data[...] = values
        return
    with np.errstate(over="ignore", invalid="ignore"):  # C casts: overflow gives inf / wraps, silently
        dst._data[...] = values


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


# register_backend_select may already have given _to_copy the generic factory BackendSelect kernel (same rule);
# keep one.
if ("_to_copy", "BackendSelect") not in KERNELS:
    impl("_to_copy", "BackendSelect")(_to_copy_backend_select)


def _check_copy_shapes(self: Tensor, src_shape: tuple[int, ...]) -> None:
    if src_shape == self._shape:
        return
    shape = broadcast_shapes(self._shape, src_shape)
    if shape != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the broadcast shape {list(shape)}")


@impl("copy_", "CompositeExplicitAutograd")
def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """``self`` overwritten with ``src`` (broadcast, cast); a Python number ``src`` is the wrapped number
    PyTorch's binding makes of ``x.copy_(2.0)`` (copy_ is among the ops whose Tensor arguments take numbers)."""
    if self._key_set & ZERO_BIT:  # copy_ is a ZeroTensor fallthrough: it refuses a zero tensor itself
        raise RuntimeError("ZeroTensors are immutable. Please materialize the tensor using `.clone()`, if you want a "
                           "mutable zero tensor.")
    if isinstance(src, (bool, int, float, complex)):
        if self._data is not None and self._data.size:
            with np.errstate(over="ignore", invalid="ignore"):
                self._data[...] = src.real if isinstance(src, complex) and not self._dtype.is_complex else src
        return self
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
    "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
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


@impl("is_nonzero", "CompositeImplicitAutograd")
def is_nonzero(self: Tensor) -> bool:
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    value = _op("item")(self)
    if type(value) is int and value > 0x7FFFFFFFFFFFFFFF:  # an integral Scalar is read as int64 (a uint64 overflows)
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return bool(value)


@impl("item", "CompositeImplicitAutograd")
def item(self: Tensor) -> Any:
    n = self.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return _op("_local_scalar_dense")(self)


# --- contiguous (CompositeImplicitAutograd) ------------------------------------------------------------


@impl("contiguous", "CompositeImplicitAutograd")
def contiguous(self: Tensor, *, memory_format: Any = 0) -> Tensor:
    mf = _memory_format_code(memory_format)
    if self.is_contiguous(memory_format=_CONTIGUOUS_FORMAT if mf is None else mf):
        return self
    if mf == _PRESERVE_FORMAT:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _op("clone")(self, memory_format=memory_format)


_PRESERVE_FORMAT = 1
_CHANNELS_LAST = 2
_MEMORY_FORMATS = {"contiguous_format": 0, "preserve_format": 1, "channels_last": 2, "channels_last_3d": 3}


def _memory_format_code(mf: Any) -> int | None:
    if mf is None or type(mf) is int:
        return mf
    return _MEMORY_FORMATS[str(mf).rsplit(".", 1)[-1]]


# --- to (TensorConversions.cpp) --------------------------------------------------------------------------


def _suggest_memory_format(t: Tensor) -> int:
    from ..memory_format import suggest_memory_format_code

    return suggest_memory_format_code(t._shape, t._stride)


def _to_impl(self: Tensor, dtype: Any, layout: Any, device: Any, pin_memory: Any, non_blocking: bool, copy: bool,
             memory_format: Any) -> Tensor:
    dt = None if dtype is None else _dt.from_code(dtype)
    dev = None if device is None else as_device(device)
    mf = _memory_format_code(memory_format)
    will_alias = (
        (dt is None or dt is self._dtype)
        and (layout is None or layout == _STRIDED or str(layout).endswith("strided"))
        and (dev is None or dev == self._device)
        and not copy
        and (mf is None or mf == _PRESERVE_FORMAT or _suggest_memory_format(self) == mf)
    )
    if will_alias:
        return self
    if layout is not None and not (layout == _STRIDED or str(layout).endswith("strided")):
        from ..memory_format import as_layout

        name = {"sparse_coo": "Sparse", "sparse_csr": "SparseCsr", "sparse_csc": "SparseCsc", "sparse_bsr": "SparseBsr",
                "sparse_bsc": "SparseBsc", "jagged": "Jagged", "_mkldnn": "Mkldnn"}.get(as_layout(layout).name, "?")
        raise RuntimeError("to(options) doesn't support converting to a different layout, but got self.layout being "
                           f"Strided and options.layout set as {name}")
    kwargs: dict[str, Any] = {}
    if dtype is not None:
        kwargs["dtype"] = dtype
    if layout is not None:
        kwargs["layout"] = layout
    if device is not None:
        kwargs["device"] = device
    if pin_memory is not None:
        kwargs["pin_memory"] = pin_memory
    if non_blocking:
        kwargs["non_blocking"] = non_blocking
    if memory_format is not None:
        kwargs["memory_format"] = memory_format
    return _op("_to_copy")(self, **kwargs)


@impl("to.dtype", "CompositeImplicitAutograd")
def to_dtype(self: Tensor, dtype: Any, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, None, None, None, non_blocking, copy, memory_format)


@impl("to.device", "CompositeImplicitAutograd")
def to_device(self: Tensor, device: Any, dtype: Any, non_blocking: bool = False, copy: bool = False,
              memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, None, device, None, non_blocking, copy, memory_format)


@impl("to.other", "CompositeImplicitAutograd")
def to_other(self: Tensor, other: Tensor, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    """``to(other)``: other's dtype, layout and device (and pin_memory=False), as PyTorch's TensorOptions give them."""
    return _to_impl(self, other._dtype, strided, other._device, False, non_blocking, copy, memory_format)


@impl("to.dtype_layout", "CompositeImplicitAutograd")
def to_dtype_layout(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None, non_blocking: bool = False, copy: bool = False,
                    memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)


register_backend_select("to.dtype_layout")


@impl("type_as", "CompositeImplicitAutograd")
def type_as(self: Tensor, other: Tensor) -> Tensor:
    """``self.to(other.options())``: other's dtype, layout and device (``to.dtype_layout``)."""
    # (other's device / layout through the properties: a subclass may answer them, dispatch_device / dispatch_layout)
    device = other.device  # (asked before the layout, as TensorOptions are read)
    return _op("to.dtype_layout")(self, dtype=other._dtype, layout=other.layout, device=device)
