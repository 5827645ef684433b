"""Weight normalization kernels: ``_weight_norm`` / ``norm_except_dim`` (CompositeImplicitAutograd) and
``_weight_norm_interface`` / ``_weight_norm_interface_backward`` (CPU and Meta).

Corresponds to aten/src/ATen/native/WeightNorm.cpp and its CPU kernels (weight_norm_kernel.cpp): ``w = v * (g /
||v||)`` with the norm taken over every dimension but ``dim`` (kept as size-1 dims, the shape of ``g``).
``_weight_norm`` takes the fused ``_weight_norm_interface`` when ``dim`` is the first or last dimension (and no
half types), as PyTorch's does, otherwise the differentiable ``v * (g / norm_except_dim(v, 2, dim))``. The
backward gives ``grad_g = sum(grad_w * v) / norm`` and ``grad_v = (g / norm) * (grad_w - v * sum(grad_w * v) /
norm**2)``, sums over the same dimensions.
"""

from __future__ import annotations

import numpy as np

from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .kernel_registry import impl

aten = namespace("aten")


@impl("norm_except_dim", "CompositeImplicitAutograd")
def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:  # noqa: A002 - the schema's name
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (kept with size 1)."""
    if dim == -1:
        return aten.linalg_vector_norm.default(v, pow)
    ndim = v.dim()
    if dim == 0:
        output_size = [v.size(0)] + [1] * (ndim - 1)
        flat = aten.view.default(aten.contiguous.default(v), [v.size(0), -1])
        return aten.view.default(aten.linalg_vector_norm.default(flat, pow, [1]), output_size)
    if dim == ndim - 1:
        output_size = [1] * (ndim - 1) + [v.size(ndim - 1)]
        flat = aten.view.default(aten.contiguous.default(v), [-1, v.size(ndim - 1)])
        return aten.view.default(aten.linalg_vector_norm.default(flat, pow, [0]), output_size)
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


def _other_dims(ndim: int, dim: int) -> tuple[int, ...]:
    return tuple(i for i in range(ndim) if i != dim)


def _norm_shape(v: Tensor, dim: int) -> tuple[int, ...]:
    return tuple(n if i == dim else 1 for i, n in enumerate(v._shape))


@impl("_weight_norm_interface", "CPU", "Meta")
def _weight_norm_interface(v: Tensor, g: Tensor, dim: int = 0) -> tuple[Tensor, Tensor]:
    """``(v * (g / norm), norm)``, ``norm`` float with ``g``'s shape (``dim`` 0 or last)."""
    ndim = len(v._shape)
    _check_fused_dim(dim, ndim, "v", 408)
    shape = _norm_shape(v, dim)
    w = Tensor._empty(v._shape, v._dtype, v._device, contiguous_strides(v._shape))
    norm = Tensor._empty(shape, g._dtype, v._device, contiguous_strides(shape))
    if v._device.type == "meta":
        return w, norm
    vd = np.asarray(v._data)
    n = np.sqrt(np.sum(vd.astype(np.float64) ** 2, axis=_other_dims(ndim, dim), keepdims=True))
    norm._data[...] = n.astype(norm._dtype.np_dtype)
    gd = np.asarray(g._data).reshape(shape)
    w._data[...] = (vd * (gd / n)).astype(w._dtype.np_dtype)
    return w, norm


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
    shape = _norm_shape(saved_v, dim)
    gw = np.asarray(grad_w._data, dtype=np.float64)
    v = np.asarray(saved_v._data, dtype=np.float64)
    g = np.asarray(saved_g._data, dtype=np.float64).reshape(shape)
    n = np.asarray(saved_norms._data, dtype=np.float64).reshape(shape)
    s = np.sum(gw * v, axis=_other_dims(ndim, dim), keepdims=True)
    grad_g._data[...] = (s / n).reshape(saved_g._shape).astype(grad_g._dtype.np_dtype)
    grad_v._data[...] = ((g / n) * (gw - v * (s / (n * n)))).astype(grad_v._dtype.np_dtype)
    return grad_v, grad_g
