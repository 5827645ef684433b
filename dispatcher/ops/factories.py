"""Factory kernels: ``empty`` / ``empty_strided`` / ``empty_permuted``, ``zeros``, ``ones``, ``full``,
``scalar_tensor``, ``arange``, ``eye``, the ``*_like`` and ``new_*`` ops, ``_efficientzerotensor``.

Corresponds to aten/src/ATen/native/TensorFactories.cpp and RangeFactories.cpp, plus the generated BackendSelect
kernels (backend_select.py). Factories are CompositeExplicitAutograd like PyTorch's: one kernel serves CPU and Meta
(on meta only the layout is made). ``full`` infers its dtype from the value and checks it converts without
overflow (c10::checked_convert); ``arange`` checks and sizes its range on the double values, as PyTorch does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, as_device, contiguous_strides
from .backend_select import register_backend_select
from .kernel_registry import impl
from .strides import CHANNELS_LAST, CHANNELS_LAST_3D, _channels_last_strides, like_strides, memory_format_code

#: c10's ScalarType names, used in PyTorch's "not implemented for 'Long'" messages
SCALAR_TYPE_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
    "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
}
_C_TYPE_NAMES = {
    "bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
    "float16": "c10::Half", "float32": "float", "float64": "double",
    "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
}


def factory_dtype(dtype: Any, default: _dt.dtype | None = None) -> _dt.dtype:
    """``dtype=`` of a factory (a dtype, a ScalarType code, or None for the default float)."""
    if dtype is None:
        return default or _dt.get_default_dtype()
    return _dt.from_code(dtype)


# --- helpers ---------------------------------------------------------------------------------


def check_size_nonnegative(size: Any) -> tuple[int, ...]:
    shape = tuple(int(s) for s in size)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return shape


def _empty(shape: tuple[int, ...], dtype: _dt.dtype, device: Any, stride: tuple[int, ...] | None = None) -> Tensor:
    return Tensor._empty(shape, dtype, as_device(device), stride)


def fill_value_dtype(value: Any) -> _dt.dtype:
    """``full``'s inferred dtype: bool -> bool, int -> int64, float -> default float, complex -> complex."""
    return _dt.scalar_dtype(value)


def checked_value(value: Any, dtype: _dt.dtype) -> Any:
    """``value`` converted to ``dtype`` for filling, with c10::checked_convert's overflow error."""
    if isinstance(value, (bool, np.bool_)) or dtype is _dt.bool:
        return value
    if dtype.is_complex:
        return value
    if isinstance(value, complex):
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow")
    if dtype.is_floating_point:
        if dtype is not _dt.float64 and math.isfinite(value):
            info = np.finfo(dtype.np_dtype)
            if abs(value) > float(info.max) and not (dtype is _dt.float32 and abs(value) < 3.5e38):
                raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow")
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow")
    info = np.iinfo(dtype.np_dtype)
    wraps = info.min == 0 and isinstance(value, int) and value < 0 and -value <= info.max  # c10: unsigned wrap
    if not info.min <= int(value) <= info.max and not wraps:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow")
    return int(value) % (1 << 64) if wraps else int(value)


def _filled(shape: tuple[int, ...], value: Any, dtype: _dt.dtype, device: Any,
            stride: tuple[int, ...] | None = None) -> Tensor:
    out = _empty(shape, dtype, device, stride)
    if out._data is not None and value != 0:
        out._data[...] = np.array(value).astype(dtype.np_dtype)
    return out


def _not_implemented(kernel: str, dtype: _dt.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{SCALAR_TYPE_NAMES[dtype.name]}\'')


# --- empty / empty_strided -----------------------------------------------------------------------


@impl("empty.memory_format", "CPU", "Meta")
def empty_memory_format(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    shape = check_size_nonnegative(size)
    mf = memory_format_code(memory_format)
    stride = _channels_last_strides(shape, mf) if mf in (CHANNELS_LAST, CHANNELS_LAST_3D) else contiguous_strides(shape)
    return _empty(shape, factory_dtype(dtype), device, stride)


@impl("empty_strided", "CPU", "Meta")
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    shape = check_size_nonnegative(size)
    stride = tuple(int(s) for s in stride)
    if len(stride) != len(shape):
        raise RuntimeError(
            f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides ({len(stride)})"
        )
    return _empty(shape, factory_dtype(dtype), device, stride)


# --- zeros / ones / full / scalar_tensor -------------------------------------------------------


@impl("zeros", "CompositeExplicitAutograd")
def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    if any(s < 0 for s in size):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _empty(check_size_nonnegative(size), factory_dtype(dtype), device)


@impl("ones", "CompositeExplicitAutograd")
def ones(size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _filled(check_size_nonnegative(size), 1, factory_dtype(dtype), device)


@impl("full", "CompositeExplicitAutograd")
def full(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    dt = factory_dtype(dtype, fill_value_dtype(fill_value))
    value = checked_value(fill_value, dt)
    return _filled(check_size_nonnegative(size), value, dt, device)


@impl("scalar_tensor", "CompositeExplicitAutograd")
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    dt = factory_dtype(dtype)
    return _filled((), s, dt, device)


# --- arange ---------------------------------------------------------------------------------------


def _arange_dtype(dtype: Any, *values: Any) -> _dt.dtype:
    if dtype is not None:
        return _dt.from_code(dtype)
    if all(isinstance(v, (int, np.integer)) for v in values):  # bools are ints here, like PyTorch
        return _dt.int64
    return _dt.get_default_dtype()


def _arange(start: Any, end: Any, step: Any, dtype: Any, device: Any) -> Tensor:
    """PyTorch's arange: checks on the double values, then integral dtypes compute from truncated bounds."""
    dt = _arange_dtype(dtype, start, end, step)
    if dt is _dt.bool or dt.is_complex:
        raise _not_implemented("arange_cpu", dt)
    s, e, st = float(start), float(end), float(step)
    if st == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(s) and math.isfinite(e)):
        raise RuntimeError(f"unsupported range: {s:g} -> {e:g}")
    if not ((st > 0 and e >= s) or (st < 0 and e <= s)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt.is_floating_point:
        n = math.ceil((e - s) / st)
        acc = np.float32 if dt is _dt.float16 else np.float64  # at::acc_type on CPU
        compute = lambda: acc(s) + np.arange(n, dtype=acc) * acc(st)  # noqa: E731
    else:
        xs, xe, xst = int(start), int(end), int(step)  # Scalar::to<int64_t> truncates
        if dt is _dt.int64:
            if xst == 0:
                raise ValueError("step must be nonzero")
            num = xe - xs + xst - ((xst > 0) - (xst < 0))
            n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)  # C++ division truncates
        else:
            n = math.ceil((e - s) / st)
        compute = lambda: xs + np.arange(n, dtype=np.int64) * xst  # noqa: E731
    out = _empty((int(n),), dt, device)
    if out._data is not None and n:
        out._data[...] = compute().astype(dt.np_dtype)
    return out


@impl("arange", "CompositeExplicitAutograd")
def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _arange(0, end, 1, dtype, device)


@impl("arange.start", "CompositeExplicitAutograd")
def arange_start(start, end, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _arange(start, end, 1, dtype, device)


@impl("arange.start_step", "CompositeExplicitAutograd")
def arange_start_step(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _arange(start, end, step, dtype, device)


# --- eye ------------------------------------------------------------------------------------------


@impl("eye", "CompositeExplicitAutograd")
def eye(n, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return eye_m(n, n, dtype=dtype, device=device)


@impl("eye.m", "CompositeExplicitAutograd")
def eye_m(n, m, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dt = factory_dtype(dtype)
    out = _empty((n, m), dt, device)
    if out._data is not None:
        k = min(n, m)
        out._data[np.arange(k), np.arange(k)] = 1
    return out


# --- *_like ----------------------------------------------------------------------------------------


def _like(self: Tensor, dtype: Any, device: Any, memory_format: Any) -> Tensor:
    dt = self._dtype if dtype is None else _dt.from_code(dtype)
    dev = self._device if device is None else as_device(device)
    return Tensor._empty(self._shape, dt, dev, like_strides(self, memory_format))


@impl("empty_like", "CompositeExplicitAutograd")
def empty_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    return _like(self, dtype, device, memory_format)


@impl("zeros_like", "CompositeExplicitAutograd")
def zeros_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    return _like(self, dtype, device, memory_format)


@impl("ones_like", "CompositeExplicitAutograd")
def ones_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    out = _like(self, dtype, device, memory_format)
    if out._data is not None:
        out._data[...] = 1
    return out


@impl("full_like", "CompositeExplicitAutograd")
def full_like(self, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None) -> Tensor:
    out = _like(self, dtype, device, memory_format)
    value = checked_value(fill_value, out._dtype)
    if out._data is not None and value != 0:
        out._data[...] = np.array(value).astype(out._dtype.np_dtype)
    return out


# --- new_* ------------------------------------------------------------------------------------------


def _new(self: Tensor, size: Any, dtype: Any, device: Any) -> Tensor:
    dt = self._dtype if dtype is None else _dt.from_code(dtype)
    dev = self._device if device is None else as_device(device)
    return Tensor._empty(check_size_nonnegative(size), dt, dev)


@impl("new_empty", "CompositeExplicitAutograd")
def new_empty(self, size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _new(self, size, dtype, device)


# NB: PyTorch registers Meta and CompositeExplicitAutogradNonFunctional (which also fills the CPU slot).
@impl("new_empty_strided", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    dt = self._dtype if dtype is None else _dt.from_code(dtype)
    dev = self._device if device is None else as_device(device)
    return empty_strided(size, stride, dtype=dt, device=dev)


@impl("new_zeros", "CompositeExplicitAutograd")
def new_zeros(self, size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    return _new(self, size, dtype, device)


@impl("new_ones", "CompositeExplicitAutograd")
def new_ones(self, size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    out = _new(self, size, dtype, device)
    if out._data is not None:
        out._data[...] = 1
    return out


@impl("new_full", "CompositeExplicitAutograd")
def new_full(self, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    out = _new(self, size, dtype, device)
    value = checked_value(fill_value, out._dtype)
    if out._data is not None and value != 0:
        out._data[...] = np.array(value).astype(out._dtype.np_dtype)
    return out


@impl("empty_permuted", "CompositeExplicitAutograd")
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    """Uninitialized, with dims laid out in memory in ``physical_layout`` order (outermost first).

    PyTorch allocates the permuted sizes contiguously and permutes the result back; the strides are the same.
    """
    size = [int(s) for s in size]
    order = [int(d) for d in physical_layout]
    if len(size) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. "
            f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    seen = [False] * len(order)
    for i, d in enumerate(order):
        if not 0 <= d < len(order):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(order) - 1}, but got {d} at index {i}).  "
                "NB: negative dims not currently supported; file an issue if you want it."
            )
        if seen[d]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[d] = True
    physical = check_size_nonnegative([size[d] for d in order])
    physical_stride = contiguous_strides(physical)
    stride = [0] * len(size)
    for i, d in enumerate(order):
        stride[d] = physical_stride[i]
    return _empty(tuple(size), factory_dtype(dtype), device, tuple(stride))


register_backend_select(
    "empty.memory_format", "empty_strided", "zeros", "ones", "full", "arange", "arange.start", "arange.start_step",
    "scalar_tensor", "eye", "eye.m", "empty_permuted",
)


@impl("_efficientzerotensor", "CPU", "Meta")
def _efficientzerotensor(size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    """A zero tensor: the ZeroTensor key in its key set (dispatcher/zero_tensor.py). NB: PyTorch's has no storage;
    ours holds zeros, which read the same."""
    from ..zero_tensor import make_zerotensor

    return make_zerotensor(_empty(check_size_nonnegative(size), factory_dtype(dtype), device))


register_backend_select("_efficientzerotensor")


@impl("_is_zerotensor", "CompositeImplicitAutograd")
def _is_zerotensor(self: Tensor) -> bool:
    """Whether ``self`` carries the ZeroTensor key (``TensorImpl::_is_zerotensor``)."""
    from ..zero_tensor import is_zerotensor

    return is_zerotensor(self)
