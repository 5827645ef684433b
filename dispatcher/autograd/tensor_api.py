"""The autograd surface of a tensor: ``requires_grad`` / ``.grad`` setters, ``requires_grad_``, ``detach_``.

Corresponds to torch/csrc/autograd/python_variable.cpp (the ``requires_grad`` and
``grad`` setters with their checks and messages), VariableTypeManual.cpp
(``requires_grad_``, ``detach_``) and TensorBody.h (the warning on reading the
``.grad`` of a non-leaf). ``register_hook`` / ``retain_grad`` are in hooks.py.
"""

from __future__ import annotations

import warnings
from typing import Any

_LEAF_ONLY = "you can only change requires_grad flags of leaf variables."
_DETACH_HINT = (" If you want to use a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")


def _differentiable(t: Any) -> bool:
    return t._dtype.is_floating_point or t._dtype.is_complex


def set_requires_grad(t: Any, value: Any) -> None:
    """``t.requires_grad = value``: only on leaves, and True only for floating point / complex dtypes."""
    if not isinstance(value, bool):
        raise RuntimeError("requires_grad must be a bool")
    if not t.is_leaf:
        raise RuntimeError(_LEAF_ONLY + ("" if value else _DETACH_HINT))
    if value and not _differentiable(t):
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    t._requires_grad = value


def requires_grad_(t: Any, requires_grad: bool = True) -> Any:
    """``Tensor.requires_grad_``: like the setter, but turning it on for a non-leaf is allowed (and a no-op)."""
    if not t.is_leaf and not requires_grad:
        raise RuntimeError(_LEAF_ONLY + _DETACH_HINT)
    if requires_grad and not _differentiable(t):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    t._requires_grad = bool(requires_grad)
    return t


def factory_requires_grad(t: Any) -> Any:
    """``requires_grad=True`` given to a factory (``AutogradMeta::set_requires_grad``'s check and wording)."""
    if not _differentiable(t):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t._requires_grad = True
    return t


def detach_(t: Any) -> Any:
    """``Tensor.detach_``: make ``t`` a leaf that does not require grad (views cannot be detached in place).

    NB: as in PyTorch, no aten op is dispatched (a dispatch mode sees nothing), and the
    version counter is not bumped.
    """
    if t._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
            "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
            "detach_() cannot be called on these gradients. To fix this error, please refer to the "
            "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
        )
    # back to the class defaults (False, None, 0): a tensor whose __dict__ holds no autograd field is a plain
    # leaf, which compile()'s warm-path guard checks with one test
    d = t.__dict__
    d.pop("_requires_grad", None)
    d.pop("_grad_fn", None)
    d.pop("_output_nr", None)
    return t


def variable_data(t: Any) -> Any:
    """``t.data`` (``VariableHooks::variable_data``): a shallow copy with no history and a fresh version counter.

    A shallow_copy_and_detach, so a dispatch mode sees an ``aten.detach`` call, as in PyTorch.
    """
    from ..python_key import shallow_copy_and_detach
    from ..tensor import _VersionCounter

    return shallow_copy_and_detach(t, _VersionCounter())


_GEOMETRY = ("_key_set", "_data", "_flat", "_shape", "_stride", "_storage_offset", "_dtype", "_device", "_contiguous")


def set_data(t: Any, new_data: Any) -> None:
    """``t.data = new_data``: ``t`` now sees ``new_data``'s storage and geometry, keeping its autograd state."""
    from ..tensor import Tensor

    if not isinstance(new_data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(new_data).__name__}")
    if t.requires_grad and not _differentiable(new_data):
        raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
    if new_data._dtype is not t._dtype or new_data._device != t._device:
        t._autograd_meta = None  # a new AccumulateGrad is made for the new type (as PyTorch resets it)
    from ..tls import PYTHON_MODE_KEYS_RAW

    python_keys = t._key_set & PYTHON_MODE_KEYS_RAW  # (the subclass's Python key belongs to t's object, as in torch)
    for name in _GEOMETRY:
        setattr(t, name, getattr(new_data, name))
    t._key_set |= python_keys


def warn_non_leaf_grad(t: Any) -> None:
    if not t.is_leaf:
        warnings.warn(
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't "
            "be populated during autograd.backward(). If you indeed want the .grad field to be populated for a "
            "non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
            "mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
            "more information.",
            UserWarning,
            stacklevel=3,
        )


#: C++ type names (caffe2::TypeMeta) PyTorch prints for a gradient's dtype
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                   "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                   "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
                   "complex128": "c10::complex<double>", "uint16": "short unsigned int", "uint32": "unsigned int",
                   "uint64": "long unsigned int"}
#: ScalarType names PyTorch prints for a tensor's grad_dtype
_DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                "complex64": "ComplexFloat", "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32",
                "uint64": "UInt64"}


def set_grad(t: Any, value: Any) -> None:
    """``t.grad = value``: None, or a tensor of the same dtype, device type and size."""
    from ..tensor import Tensor

    if value is None:
        t._grad = None
        return
    if not isinstance(value, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
    if value._dtype is not t._dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{_CPP_TYPE_NAMES.get(value._dtype.name, value._dtype.name)}' to a "
            f"tensor with grad_dtype '{_DTYPE_NAMES.get(t._dtype.name, t._dtype.name)}'. The gradient must match the "
            "tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute "
            "with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of "
            "a tensor and its gradient may break downstream systems that assume they match."
        )
    if value._device.type != t._device.type:
        raise RuntimeError(
            f"attempting to assign a gradient with device type '{value._device.type}' to a tensor with device type "
            f"'{t._device.type}'. Please ensure that the gradient and the tensor are on the same device"
        )
    if tuple(value._shape) != tuple(t._shape):
        raise RuntimeError(
            f"attempting to assign a gradient of size '[{', '.join(map(str, value._shape))}]' to a tensor of size "
            f"'[{', '.join(map(str, t._shape))}]'. Please ensure that the gradient and the tensor are the same size"
        )
    t._grad = value
