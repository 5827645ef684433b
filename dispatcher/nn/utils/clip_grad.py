"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``, ``clip_grads_with_norm_``.

Corresponds to torch/nn/utils/clip_grad.py, op for op. Gradients are grouped by (device, dtype) as
``_group_tensors_by_device_and_dtype`` groups them; with ``foreach=None`` a group of plain tensors (``Tensor`` /
``Parameter``, PyTorch's ``_foreach_supported_types``) on the CPU takes the foreach path (``_foreach_norm``,
``_foreach_mul_``, ``_foreach_clamp_min_`` / ``_foreach_clamp_max_``), any other tensor type (a FakeTensor under a
fake mode) the per-tensor one (``linalg_vector_norm``, ``mul_``, ``clamp_``), as PyTorch decides. The total norm is
``vector_norm(stack(norms), norm_type)`` and the scale ``clamp(max_norm / (total_norm + 1e-6), max=1.0)``, so a
traced step records PyTorch's ops. Everything runs under ``no_grad``.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ...api.foreach import _device_has_foreach_support, _has_foreach_support, group_tensors_by_device_and_dtype
from ...autograd.grad_mode import no_grad
from ...op_overload import namespace
from ...tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]

aten = namespace("aten")


def _no_grad(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``func`` under ``no_grad`` (torch's ``_no_grad`` wrapper of these functions)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with no_grad():
            return func(*args, **kwargs)

    functools.update_wrapper(wrapper, func)
    return wrapper


def _as_list(tensors: Any) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


@_no_grad
def get_total_norm(tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the tensors' norms (as if they were concatenated into one vector)."""
    from ... import stack, tensor

    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    first_device = tensors[0].device
    norms: list[Tensor] = []
    for (device, _), ([device_tensors], _) in group_tensors_by_device_and_dtype([tensors]).items():
        if (foreach is None and _has_foreach_support(device_tensors, device)) or (
                foreach and _device_has_foreach_support(device)):
            norms.extend(aten._foreach_norm.Scalar(device_tensors, norm_type))
        elif foreach:
            raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")
        else:
            norms.extend([aten.linalg_vector_norm.default(g, norm_type) for g in device_tensors])
    total_norm = aten.linalg_vector_norm.default(stack([norm.to(first_device) for norm in norms]), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan().logical_or(total_norm.isinf())):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters: Any, max_norm: float, total_norm: Tensor, foreach: bool | None = None) -> None:
    """Scale the gradients in place by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    from ... import clamp

    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    grouped_grads = group_tensors_by_device_and_dtype([grads])
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = clamp(clip_coef, max=1.0)
    for (device, _), ([device_grads], _) in grouped_grads.items():
        if (foreach is None and _has_foreach_support(device_grads, device)) or (
                foreach and _device_has_foreach_support(device)):
            aten._foreach_mul_.Tensor(device_grads, clip_coef_clamped.to(device))
        elif foreach:
            raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")
        else:
            clip_coef_clamped_device = clip_coef_clamped.to(device)
            for g in device_grads:
                g.mul_(clip_coef_clamped_device)


@_no_grad
def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Clip the gradients' total norm to ``max_norm`` (in place); returns the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """Deprecated spelling of ``clip_grad_norm_`` (PyTorch's FutureWarning)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient to ``[-clip_value, clip_value]`` in place."""
    parameters = _as_list(parameters)
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for (device, _), ([device_grads], _) in group_tensors_by_device_and_dtype([grads]).items():
        if (foreach is None and _has_foreach_support(device_grads, device)) or (
                foreach and _device_has_foreach_support(device)):
            aten._foreach_clamp_min_.Scalar(device_grads, -clip_value)
            aten._foreach_clamp_max_.Scalar(device_grads, clip_value)
        elif foreach:
            raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")
        else:
            for grad in device_grads:
                grad.clamp_(min=-clip_value, max=clip_value)
