"""Weight normalization kernels: ``_weight_norm`` / ``norm_except_dim`` (CompositeImplicitAutograd) and
``_weight_norm_interface`` / ``_weight_norm_interface_backward`` (CPU and Meta).

Corresponds to aten/src/ATen/native/WeightNorm.cpp and its CPU kernels (weight_norm_kernel.cpp): ``w = v * (g /
||v||)`` with the norm taken over every dimension but ``dim`` (kept as size-1 dims, the shape of ``g``).
``_weight_norm`` takes the fused ``_weight_norm_interface`` when ``dim`` is the first or last dimension (and no
half types), as PyTorch's does, otherwise the differentiable ``v * (g / norm_except_dim(v, 2, dim))``. The
backward gives ``grad_g = sum(grad_w * v) / norm`` and ``grad_v = (g / norm) * (grad_w - v * sum(grad_w * v) /
norm**2)``, sums over the same dimensions. The fused CPU kernels check dtypes as PyTorch's (the switch over ``v``,
then ``g``'s type) and read ``v`` as an M x N matrix and ``g`` / the norms by their first values, so a ``g`` of
another shape gives PyTorch's result (the norm has ``g``'s shape); one too small, which PyTorch reads past, is refused.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .fp_errors import quiet_fp
from .kernel_dtypes import not_implemented
from .kernel_registry import impl
from .meta_utils import scalar_type_name

aten = namespace("aten")


@impl("norm_except_dim", "CompositeImplicitAutograd")
def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:  # noqa: A002 - the schema's name
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (kept with size 1), by ``Tensor.norm`` as
    WeightNorm.cpp (``norm.Scalar`` / ``norm.ScalarOpt_dim``)."""
    if dim == -1:
        return aten.norm.Scalar(v, pow)
    ndim = v.dim()
    if dim == 0:
        output_size = [v.size(0)] + [1] * (ndim - 1)
        flat = aten.view.default(aten.contiguous.default(v), [v.size(0), -1])
        return aten.view.default(aten.norm.ScalarOpt_dim(flat, pow, [1]), output_size)
    if dim == ndim - 1:
        output_size = [1] * (ndim - 1) + [v.size(ndim - 1)]
        flat = aten.view.default(aten.contiguous.default(v), [-1, v.size(ndim - 1)])
        return aten.view.default(aten.norm.ScalarOpt_dim(flat, pow, [0]), output_size)
    swapped = aten.transpose.int(v, 0, dim)
    return aten.transpose.int(aten.norm_except_dim.default(swapped, pow, 0), 0, dim)


@impl("_weight_norm", "CompositeImplicitAutograd")
def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    if v.device != g.device:
        raise RuntimeError(f"weight_norm: expected v and g to be on the same device, but v is on {v.device} and g "
                           f"is on {g.device}")
    v, g = aten.contiguous.default(v), aten.contiguous.default(g)
    has_half = v.dtype.name in ("float16", "bfloat16") or g.dtype.name in ("float16", "bfloat16")
    if not has_half and (dim == 0 or dim == v.dim() - 1):
        return aten._weight_norm_interface.default(v, g, dim)[0]
    return aten.mul.Tensor(v, aten.div.Tensor(g, aten.norm_except_dim.default(v, 2, dim)))


def _check_fused_dim(dim: int, ndim: int, name: str, line: int) -> None:
    """PyTorch's TORCH_INTERNAL_ASSERT of the CPU kernel (its message names the C++ file and line)."""
    if not (dim == 0 or dim == ndim - 1):
        raise RuntimeError(f"dim == 0 || dim == {name}.dim() - 1 INTERNAL ASSERT FAILED at "
                           f"\"/__w/pytorch/pytorch/aten/src/ATen/native/cpu/WeightNormKernel.cpp\":{line}, please "
                           "report a bug to PyTorch. fused kernels can only be applied for first or last dim")


def _rows(shape: tuple[int, ...], dim: int) -> tuple[int, int]:
    """The (M, N) matrix the fused kernels see: M rows of N when ``dim`` is 0, else N = the last dim's size."""
    numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if dim == 0:
        m = shape[0] if shape else 1
        return m, (numel // m if m else 0)
    n = shape[-1]
    return (numel // n if n else 0), n


def _flat(t: Tensor, count: int, name: str, what: str) -> np.ndarray:
    """The first ``count`` values of ``t`` in memory order, as the fused kernels read them through ``data_ptr``.

    PyTorch's kernels read them without checking ``t``'s size (past the end of a smaller tensor); ours refuses."""
    data = np.asarray(t._data).reshape(-1)
    if data.size < count:
        raise RuntimeError(f"weight_norm: expected {name} to hold at least {count} values ({what}), but got "
                           f"{data.size}")
    return data[:count].astype(np.float64)


def _norm_dtype(v: Tensor) -> _dt.dtype:
    """The norm's dtype: float for the half types (their accumulation type), else v's own."""
    return _dt.float32 if v._dtype.name in ("float16", "bfloat16") else v._dtype


def _check_dtypes(kernel: str, v: Tensor, same: tuple[Tensor, ...], norms: Tensor | None = None) -> None:
    """The CPU kernel's dtype switch over ``v`` (floating types), then ``data_ptr<scalar_t>`` of the others."""
    if v._dtype.name not in ("float32", "float64", "float16", "bfloat16"):
        raise not_implemented(kernel, v._dtype)
    for t in same:
        if t._dtype != v._dtype:
            raise RuntimeError(f"expected scalar type {scalar_type_name(v._dtype)} but found "
                               f"{scalar_type_name(t._dtype)}")
    if norms is not None and norms._dtype != _norm_dtype(v):
        raise RuntimeError(f"expected scalar type {scalar_type_name(_norm_dtype(v))} but found "
                           f"{scalar_type_name(norms._dtype)}")


def _norm_shape(v: Tensor, dim: int) -> tuple[int, ...]:
    return tuple(n if i == dim else 1 for i, n in enumerate(v._shape))


@impl("_weight_norm_interface", "CPU", "Meta")
def _weight_norm_interface(v: Tensor, g: Tensor, dim: int = 0) -> tuple[Tensor, Tensor]:
    """``(v * (g / norm), norm)``, ``norm`` float with ``g``'s shape (``dim`` 0 or last)."""
    ndim = len(v._shape)
    _check_fused_dim(dim, ndim, "v", 408)
    w = Tensor._empty(v._shape, v._dtype, v._device, contiguous_strides(v._shape))
    if v._device.type == "meta":
        # the Meta kernel is the decomposition: the norm of v over the other dims, kept
        shape = _norm_shape(v, dim)
        return w, Tensor._empty(shape, _norm_dtype(v), v._device, contiguous_strides(shape))
    _check_dtypes("weight_norm_kernel", v, (g,))
    # the CPU kernel's norm has g's shape; it reads v as an M x N matrix and g's first values (``data_ptr``)
    norm = Tensor._empty(g._shape, _norm_dtype(v), v._device, contiguous_strides(g._shape))
    m, n = _rows(v._shape, dim)
    count = m if dim == 0 else n
    vd = np.asarray(v._data).astype(np.float64).reshape(m, n)
    w_flat, n_flat = _forward(vd, _flat(g, count, "g", "one per slice of v along dim"), dim)
    w._data[...] = w_flat.reshape(v._shape).astype(w._dtype.np_dtype)
    _write_first(norm, n_flat.reshape(-1))
    return w, norm


def _write_first(t: Tensor, values: np.ndarray) -> None:
    """Write ``values`` to ``t``'s first elements (the kernel leaves the rest of a larger tensor as it is: zeros)."""
    flat = np.zeros(t._data.size, dtype=np.float64)
    flat[:values.size] = values[:flat.size]
    t._data[...] = flat.reshape(t._shape).astype(t._dtype.np_dtype)


@quiet_fp
def _forward(vd: np.ndarray, g: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    axis = 1 if dim == 0 else 0
    norm = np.sqrt(np.sum(vd * vd, axis=axis, keepdims=True))
    a = (g.reshape(-1, 1) if dim == 0 else g.reshape(1, -1)) / norm
    return vd * a, norm


@impl("_weight_norm_interface_backward", "CPU", "Meta")
def _weight_norm_interface_backward(grad_w: Tensor, saved_v: Tensor, saved_g: Tensor, saved_norms: Tensor,
                                    dim: int) -> tuple[Tensor, Tensor]:
    """The gradients of ``v`` and ``g`` from the gradient of ``w``."""
    ndim = len(saved_v._shape)
    _check_fused_dim(dim, ndim, "saved_v", 433)
    grad_v = Tensor._empty(saved_v._shape, saved_v._dtype, saved_v._device, contiguous_strides(saved_v._shape))
    grad_g = Tensor._empty(saved_g._shape, saved_g._dtype, saved_g._device, contiguous_strides(saved_g._shape))
    if saved_v._device.type == "meta":
        return grad_v, grad_g
    if not saved_v.is_contiguous():
        raise RuntimeError("saved_v must be contiguous")
    _check_dtypes("weight_norm_backward_kernel", saved_v, (grad_w, saved_g), saved_norms)
    m, n = _rows(saved_v._shape, dim)
    count = m if dim == 0 else n
    gw = _flat(aten.contiguous.default(grad_w), m * n, "grad_w", "as many as saved_v").reshape(m, n)
    v = np.asarray(saved_v._data, dtype=np.float64).reshape(m, n)
    g = _flat(saved_g, count, "saved_g", "one per slice of saved_v along dim")
    norms = _flat(saved_norms, count, "saved_norms", "one per slice of saved_v along dim")
    gv, gg = _backward(gw, v, g, norms, dim)
    grad_v._data[...] = gv.reshape(saved_v._shape).astype(grad_v._dtype.np_dtype)
    _write_first(grad_g, gg)
    return grad_v, grad_g


@quiet_fp
def _backward(gw: np.ndarray, v: np.ndarray, g: np.ndarray, norms: np.ndarray,
              dim: int) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's per-slice formula: ``a = g / norm``, ``b = a * sum(grad_w * v) / norm**2``,
    ``grad_v = a * grad_w - b * v``, ``grad_g = sum(grad_w * v) / norm``."""
    axis = 1 if dim == 0 else 0
    col = (lambda x: x.reshape(-1, 1)) if dim == 0 else (lambda x: x.reshape(1, -1))
    s = np.sum(gw * v, axis=axis, keepdims=True)
    nrm = col(norms)
    a = col(g) / nrm
    b = a * s / (nrm * nrm)
    return a * gw - b * v, (s / nrm).reshape(-1)
