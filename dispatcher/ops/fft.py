"""The FFT ops: the primitives ``_fft_r2c`` / ``_fft_c2c`` / ``_fft_c2r`` (CPU kernels on NumPy's pocketfft, Meta
kernels with torch's output strides), the CompositeImplicitAutograd user ops ``fft_fft`` / ``fft_ifft`` /
``fft_rfft`` / ``fft_irfft`` / ``fft_hfft`` / ``fft_ihfft`` and their ``2`` / ``n`` forms, ``fft_fftshift`` /
``fft_ifftshift``, and the CompositeExplicitAutograd factories ``fft_fftfreq`` / ``fft_rfftfreq``.

Corresponds to aten/src/ATen/native/SpectralOps.cpp (argument handling: ``norm_from_string``,
``resize_fft_input``, ``canonicalize_fft_shape_and_dim_args``, ``promote_tensor_fft``, ``fft_r2c`` / ``fft_c2r`` /
``fft_c2c``), aten/src/ATen/native/mkl/SpectralOps.cpp (``_fft_*_mkl``, ``_exec_fft``'s output strides) and
torch/_meta_registrations.py (``meta_fft_r2c`` ...). The normalization argument of the primitives is torch's
``fft_norm_mode``: 0 none, 1 by 1/sqrt(n), 2 by 1/n (n: the signal's element count).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, as_device, contiguous_strides
from .backend_select import register_backend_select
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, scalar_type_name, wrap_dim

aten = namespace("aten")

NORM_NONE, NORM_BY_ROOT_N, NORM_BY_N = 0, 1, 2


# --- output strides (_exec_fft of mkl/SpectralOps.cpp, as torch's meta registrations copy it) -------------------


def _exec_fft_strides(in_stride: Sequence[int], out_sizes: Sequence[int], dim: Sequence[int]) -> tuple[int, ...]:
    """The strides ``_exec_fft`` gives its output: batch dims first in the input's stride order, the transformed
    dims innermost in ``dim``'s order, one contiguous buffer."""
    ndim = len(out_sizes)
    batch = [d for d in range(ndim) if d not in dim]
    batch.sort(key=lambda d: in_stride[d], reverse=True)
    permute = batch + list(dim)
    signal_sizes = [out_sizes[d] for d in dim]
    batched = [1] + signal_sizes
    batched_strides = contiguous_strides(tuple(int(s) for s in batched))
    strides = [0] * ndim
    batch_numel = 1
    for i in range(len(batch) - 1, -1, -1):
        strides[permute[i]] = batch_numel * batched_strides[0]
        batch_numel *= out_sizes[permute[i]]
    for i in range(len(batch), ndim):
        strides[permute[i]] = batched_strides[1 + i - len(batch)]
    return tuple(strides)


def _sorted_dims(stride: Sequence[int], dim: Sequence[int], exclude_last: bool = False) -> list[int]:
    dims = list(dim)
    end = len(dims) - int(exclude_last)
    dims[:end] = sorted(dims[:end], key=lambda d: stride[d], reverse=True)
    return dims


def _c2c_strides(self: Tensor, dim: Sequence[int]) -> tuple[int, ...]:
    return _exec_fft_strides(self._stride, self._shape, _sorted_dims(self._stride, dim))


# --- the primitives --------------------------------------------------------------------------------------------


def _wrap_dims(dim: Sequence[int], ndim: int) -> list[int]:
    return [wrap_dim(int(d), ndim) for d in dim]


def _scale(normalization: int, n: int) -> float:
    """mkl's ``_fft_normalization_scale``: any mode but none / by_root_n scales by 1/n."""
    if normalization == NORM_NONE:
        return 1.0
    if normalization == NORM_BY_ROOT_N:
        return 1.0 / float(np.sqrt(n))
    return 1.0 / n


def _check_cpu(self: Tensor, dims: Sequence[int]) -> None:
    """What the CPU (MKL) kernels refuse before transforming: no dims to index, empty tensors."""
    if not dims:
        raise RuntimeError("ArrayRef: attempted to access back() of empty list")
    if self._device.type != "meta" and self.numel() == 0:
        raise RuntimeError("MKL FFT error: Intel oneMKL DFTI ERROR: Inconsistent configuration parameters")


def _signal_numel(sizes: Sequence[int]) -> int:
    return int(np.prod([int(s) for s in sizes])) if sizes else 1


@impl("_fft_r2c", "CPU", "Meta")
def _fft_r2c(self: Tensor, dim: Sequence[int], normalization: int, onesided: bool) -> Tensor:
    """The real-to-complex transform over ``dim`` (the last of them halved to n/2+1 when ``onesided``)."""
    if not self._dtype.is_floating_point:
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {scalar_type_name(self._dtype)}")
    if self._dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"Unsupported dtype {scalar_type_name(self._dtype)}")
    dims = _wrap_dims(dim, self.dim())
    _check_cpu(self, dims)
    last = dims[-1]
    out_sizes = list(self._shape)
    if onesided:
        out_sizes[last] = self._shape[last] // 2 + 1
    out_dtype = self._dtype.to_complex()
    stride = _exec_fft_strides(self._stride, out_sizes, _sorted_dims(self._stride, dims, exclude_last=True))
    meta = TensorMeta(tuple(out_sizes), stride, out_dtype)

    def compute() -> np.ndarray:
        x = self._data
        with np.errstate(all="ignore"):
            y = np.fft.rfftn(x, axes=dims) if onesided else np.fft.fftn(x, axes=dims)
            return y * _scale(normalization, _signal_numel([self._shape[d] for d in dims]))

    return materialize(meta, compute, self)


@impl("_fft_c2c", "CPU", "Meta")
def _fft_c2c(self: Tensor, dim: Sequence[int], normalization: int, forward: bool) -> Tensor:
    """The complex-to-complex transform over ``dim`` (forward: exp(-2 pi i ...), else the unnormalized inverse)."""
    if not self._dtype.is_complex:
        raise RuntimeError(f"Only supports complex dtypes, but found: {scalar_type_name(self._dtype)}")
    dims = _wrap_dims(dim, self.dim())
    if not dims:
        return aten.clone.default(self)
    _check_cpu(self, dims)
    meta = TensorMeta(tuple(self._shape), _c2c_strides(self, dims), self._dtype)

    def compute() -> np.ndarray:
        x = self._data
        with np.errstate(all="ignore"):
            y = np.fft.fftn(x, axes=dims) if forward else np.fft.ifftn(x, axes=dims, norm="forward")
            return y * _scale(normalization, _signal_numel([self._shape[d] for d in dims]))

    return materialize(meta, compute, self)


@impl("_fft_c2r", "CPU", "Meta")
def _fft_c2r(self: Tensor, dim: Sequence[int], normalization: int, last_dim_size: int) -> Tensor:
    """The complex-to-real (inverse, Hermitian) transform over ``dim``; the last one gets ``last_dim_size``."""
    if not self._dtype.is_complex:
        raise RuntimeError(f"Only supports complex dtypes, but found: {scalar_type_name(self._dtype)}")
    dims = _wrap_dims(dim, self.dim())
    _check_cpu(self, dims)
    last = dims[-1]
    in_stride = _c2c_strides(self, dims[:-1]) if len(dims) > 1 else self._stride
    out_sizes = list(self._shape)
    out_sizes[last] = int(last_dim_size)
    if self._shape[last] != int(last_dim_size) // 2 + 1 and self._shape[last] != int(last_dim_size):
        raise RuntimeError(
            "in_size == signal_size[i + 1] || in_size == (signal_size[i + 1] / 2) + 1 INTERNAL ASSERT FAILED at "
            "\"/__w/pytorch/pytorch/aten/src/ATen/native/mkl/SpectralOps.cpp\":462, please report a bug to PyTorch. ")
    out_dtype = self._dtype.to_real()
    meta = TensorMeta(tuple(out_sizes), _exec_fft_strides(in_stride, out_sizes, [last]), out_dtype)

    def compute() -> np.ndarray:
        x = self._data
        s = [self._shape[d] for d in dims[:-1]] + [int(last_dim_size)]
        with np.errstate(all="ignore"):
            y = np.fft.irfftn(x, s=s, axes=dims, norm="forward")
            return y * _scale(normalization, _signal_numel(s))

    return materialize(meta, compute, self)


# --- argument handling (SpectralOps.cpp) -----------------------------------------------------------------------


def norm_from_string(norm: str | None, forward: bool) -> int:
    if norm is None or norm == "backward":
        return NORM_NONE if forward else NORM_BY_N
    if norm == "forward":
        return NORM_BY_N if forward else NORM_NONE
    if norm == "ortho":
        return NORM_BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def promote_tensor_fft(t: Tensor, require_complex: bool = False) -> Tensor:
    """Integral inputs become the default float dtype; with ``require_complex`` real ones become complex."""
    cur = t._dtype
    if cur.is_complex:
        return t
    new = cur if cur.is_floating_point else _dt.get_default_dtype()
    if new.name not in ("float32", "float64") and not (t._device.type == "meta" and new.name == "float16"):
        raise RuntimeError(f"Unsupported dtype {scalar_type_name(new)}")
    if require_complex:
        new = new.to_complex()
    return t if new is cur else aten.to.dtype(t, new)


def resize_fft_input(x: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """Slice (from 0) or zero-pad ``x`` so that ``x.size(dims[i]) == sizes[i]`` (a size of -1 is left as it is)."""
    must_copy = False
    pad = [0] * (2 * x.dim())
    for d, n in zip(dims, sizes):
        if n == -1:
            continue
        have = x._shape[d]
        if have < n:
            must_copy = True
            pad[len(pad) - 2 * d - 1] = n - have
        if have > n:
            x = aten.slice.Tensor(x, d, 0, n)
    return aten.constant_pad_nd.default(x, pad) if must_copy else x


def _conj(t: Tensor) -> Tensor:
    """``Tensor::conj`` inlined: ``_conj`` for a complex tensor."""
    return aten._conj.default(t) if t._dtype.is_complex else t


def _check_n(n: int) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _wrap_one(dim: int, ndim: int) -> int:
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(int(dim), ndim)


def fft_r2c(name: str, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool, onesided: bool) -> Tensor:
    if x._dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {scalar_type_name(x._dtype)}")
    x = promote_tensor_fft(x)
    d = _wrap_one(dim, x.dim())
    size = int(n) if n is not None else x._shape[d]
    _check_n(size)
    if n is not None:
        x = resize_fft_input(x, [d], [size])
    ret = aten._fft_r2c.default(x, [d], norm_from_string(norm, forward), onesided)
    return ret if forward else _conj(ret)


def fft_c2r(name: str, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool) -> Tensor:
    x = promote_tensor_fft(x, require_complex=True)
    d = _wrap_one(dim, x.dim())
    size = int(n) if n is not None else 2 * (x._shape[d] - 1)
    _check_n(size)
    if n is not None:
        x = resize_fft_input(x, [d], [size // 2 + 1])
    mode = norm_from_string(norm, forward)
    if forward:
        x = _conj(x)
    return aten._fft_c2r.default(x, [d], mode, size)


def fft_c2c(name: str, x: Tensor, n: int | None, dim: int, norm: str | None, forward: bool) -> Tensor:
    if not x._dtype.is_complex:
        raise RuntimeError(f"{name} expects a complex input tensor, but got {scalar_type_name(x._dtype)}")
    d = _wrap_one(dim, x.dim())
    size = int(n) if n is not None else x._shape[d]
    _check_n(size)
    if n is not None:
        x = resize_fft_input(x, [d], [size])
    return aten._fft_c2c.default(x, [d], norm_from_string(norm, forward), forward)


def canonicalize_shape_and_dims(x: Tensor, s: Sequence[int] | None,
                                dim: Sequence[int] | None) -> tuple[list[int], list[int]]:
    """``(shape, dims)``: wrapped unique dims (default: the last ``len(s)`` dims, or all), -1 sizes filled in."""
    ndim = x.dim()
    dims: list[int] = []
    if dim is not None:
        dims = [wrap_dim(int(d), ndim) if ndim else _wrap_one(int(d), ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x._shape[d] if int(n) == -1 else int(n) for n, d in zip(s, dims)]
    elif dim is None:
        dims = list(range(ndim))
        shape = list(x._shape)
    else:
        shape = [x._shape[d] for d in dims]
    for n in shape:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return shape, dims


def fftn_c2c(name: str, x: Tensor, shape: Sequence[int], dims: Sequence[int], norm: str | None,
             forward: bool) -> Tensor:
    x = resize_fft_input(x, dims, shape)
    return aten._fft_c2c.default(x, list(dims), norm_from_string(norm, forward), forward)


def c2r_shape_and_dims(name: str, x: Tensor, s: Sequence[int] | None,
                       dim: Sequence[int] | None) -> tuple[list[int], list[int], int]:
    shape, dims = canonicalize_shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    last_dim_size = 2 * (x._shape[dims[-1]] - 1) if s is None or int(s[-1]) == -1 else shape[-1]
    _check_n(last_dim_size)
    shape[-1] = last_dim_size // 2 + 1
    return shape, dims, last_dim_size


# --- the user ops (CompositeImplicitAutograd) ------------------------------------------------------------------


@impl("fft_fft", "CompositeImplicitAutograd")
def fft_fft(self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    if self._dtype.is_complex:
        return fft_c2c("fft", self, n, dim, norm, True)
    return fft_r2c("fft", self, n, dim, norm, True, False)


@impl("fft_ifft", "CompositeImplicitAutograd")
def fft_ifft(self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    if self._dtype.is_complex:
        return fft_c2c("ifft", self, n, dim, norm, False)
    return fft_r2c("ifft", self, n, dim, norm, False, False)


@impl("fft_rfft", "CompositeImplicitAutograd")
def fft_rfft(self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return fft_r2c("rfft", self, n, dim, norm, True, True)


@impl("fft_irfft", "CompositeImplicitAutograd")
def fft_irfft(self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return fft_c2r("irfft", self, n, dim, norm, False)


@impl("fft_hfft", "CompositeImplicitAutograd")
def fft_hfft(self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return fft_c2r("hfft", self, n, dim, norm, True)


@impl("fft_ihfft", "CompositeImplicitAutograd")
def fft_ihfft(self: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return fft_r2c("ihfft", self, n, dim, norm, False, True)


def _fftn(self: Tensor, s: Sequence[int] | None, dim: Sequence[int] | None, norm: str | None,
          forward: bool) -> Tensor:
    shape, dims = canonicalize_shape_and_dims(self, s, dim)
    x = promote_tensor_fft(self, require_complex=True)
    return fftn_c2c("fftn" if forward else "ifftn", x, shape, dims, norm, forward)


def _rfftn(self: Tensor, s: Sequence[int] | None, dim: Sequence[int] | None, norm: str | None) -> Tensor:
    if self._dtype.is_complex:
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {scalar_type_name(self._dtype)}")
    shape, dims = canonicalize_shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = resize_fft_input(promote_tensor_fft(self), dims, shape)
    return aten._fft_r2c.default(x, dims, norm_from_string(norm, True), True)


def _irfftn(self: Tensor, s: Sequence[int] | None, dim: Sequence[int] | None, norm: str | None) -> Tensor:
    shape, dims, last_dim_size = c2r_shape_and_dims("irfftn", self, s, dim)
    x = resize_fft_input(promote_tensor_fft(self, require_complex=True), dims, shape)
    return aten._fft_c2r.default(x, dims, norm_from_string(norm, False), last_dim_size)


@impl("fft_fftn", "CompositeImplicitAutograd")
def fft_fftn(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
             norm: str | None = None) -> Tensor:
    return _fftn(self, s, dim, norm, True)


@impl("fft_ifftn", "CompositeImplicitAutograd")
def fft_ifftn(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
              norm: str | None = None) -> Tensor:
    return _fftn(self, s, dim, norm, False)


@impl("fft_rfftn", "CompositeImplicitAutograd")
def fft_rfftn(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
              norm: str | None = None) -> Tensor:
    return _rfftn(self, s, dim, norm)


@impl("fft_irfftn", "CompositeImplicitAutograd")
def fft_irfftn(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
               norm: str | None = None) -> Tensor:
    return _irfftn(self, s, dim, norm)


@impl("fft_fft2", "CompositeImplicitAutograd")
def fft_fft2(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
             norm: str | None = None) -> Tensor:
    return _fftn(self, s, dim, norm, True)


@impl("fft_ifft2", "CompositeImplicitAutograd")
def fft_ifft2(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
              norm: str | None = None) -> Tensor:
    return _fftn(self, s, dim, norm, False)


@impl("fft_rfft2", "CompositeImplicitAutograd")
def fft_rfft2(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
              norm: str | None = None) -> Tensor:
    return _rfftn(self, s, dim, norm)


@impl("fft_irfft2", "CompositeImplicitAutograd")
def fft_irfft2(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
               norm: str | None = None) -> Tensor:
    return _irfftn(self, s, dim, norm)


def _hfftn(self: Tensor, s: Sequence[int] | None, dim: Sequence[int] | None, norm: str | None) -> Tensor:
    """c2c over all but the last dim, then a c2r of the conjugate over the last (hfftn_impl)."""
    shape, dims, last_dim_size = c2r_shape_and_dims("hfftn", self, s, dim)
    x = resize_fft_input(promote_tensor_fft(self, require_complex=True), dims, shape)
    mode = norm_from_string(norm, True)
    tmp = aten._fft_c2c.default(x, dims[:-1], mode, True) if len(dims) > 1 else x
    return aten._fft_c2r.default(_conj(tmp), [dims[-1]], mode, last_dim_size)


def _ihfftn(self: Tensor, s: Sequence[int] | None, dim: Sequence[int] | None, norm: str | None) -> Tensor:
    """A one-sided r2c over the last dim, conjugated, then an inverse c2c over the others (ihfftn_impl)."""
    shape, dims = canonicalize_shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = resize_fft_input(promote_tensor_fft(self), dims, shape)
    mode = norm_from_string(norm, False)
    tmp = aten._fft_r2c.default(x, [dims[-1]], mode, True)
    if len(dims) == 1:
        return _conj(tmp)
    return aten._fft_c2c.default(aten.conj_physical.default(tmp), dims[:-1], mode, False)


@impl("fft_hfft2", "CompositeImplicitAutograd")
def fft_hfft2(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
              norm: str | None = None) -> Tensor:
    return _hfftn(self, s, dim, norm)


@impl("fft_ihfft2", "CompositeImplicitAutograd")
def fft_ihfft2(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
               norm: str | None = None) -> Tensor:
    return _ihfftn(self, s, dim, norm)


@impl("fft_hfftn", "CompositeImplicitAutograd")
def fft_hfftn(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
              norm: str | None = None) -> Tensor:
    return _hfftn(self, s, dim, norm)


@impl("fft_ihfftn", "CompositeImplicitAutograd")
def fft_ihfftn(self: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
               norm: str | None = None) -> Tensor:
    return _ihfftn(self, s, dim, norm)


# --- shifts and sample frequencies -----------------------------------------------------------------------------


def _all_dims(x: Tensor, dim: Sequence[int] | None) -> list[int]:
    if dim is None:
        return list(range(x.dim()))
    return [wrap_dim(int(d), x.dim()) for d in dim]


@impl("fft_fftshift", "CompositeImplicitAutograd")
def fft_fftshift(self: Tensor, dim: Sequence[int] | None = None) -> Tensor:
    dims = _all_dims(self, dim)
    return aten.roll.default(self, [self._shape[d] // 2 for d in dims], dims)


@impl("fft_ifftshift", "CompositeImplicitAutograd")
def fft_ifftshift(self: Tensor, dim: Sequence[int] | None = None) -> Tensor:
    dims = _all_dims(self, dim)
    return aten.roll.default(self, [(self._shape[d] + 1) // 2 for d in dims], dims)


def _freq(name: str, n: int, d: float, dtype: Any, device: Any, onesided: bool) -> Tensor:
    """``arange(n)`` (its upper half shifted down by n) or ``arange(n/2 + 1)``, times ``1 / (n * d)``."""
    dt = dtype if dtype is not None else _dt.get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{scalar_type_name(dt)}'")
    count = int(n / 2) + 1 if onesided else n  # C++'s truncating n / 2
    if count < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {count}: [{count}]")
    k = np.arange(count, dtype=np.float64)
    if not onesided:
        k[(n + 1) // 2:] -= n
    out = Tensor._empty((count,), dt, as_device(device))
    if out._data is not None and count:
        with np.errstate(all="ignore"):
            out._data[...] = (k * (1.0 / (n * float(d)) if n * float(d) else k * np.inf)).astype(dt.np_dtype)
    return out


@impl("fft_fftfreq", "CompositeExplicitAutograd")
def fft_fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None, device: Any = None,
                pin_memory: Any = None) -> Tensor:
    return _freq("fftfreq", int(n), d, dtype, device, False)


@impl("fft_rfftfreq", "CompositeExplicitAutograd")
def fft_rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Tensor:
    return _freq("rfftfreq", int(n), d, dtype, device, True)


register_backend_select("fft_fftfreq", "fft_rfftfreq")
