"""Derivative formulas of ``native_dropout`` and ``native_dropout_backward`` (double backward).

Corresponds to their entries in tools/autograd/derivatives.yaml and FunctionsManual.cpp's
``infinitely_differentiable_native_dropout_backward`` (taken while grad mode is on) and
``native_dropout_double_backward``.
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ..function import derivative
from ..grad_mode import is_grad_enabled
from .cpp_idioms import _strided_options as _options
from .not_implemented import _not_implemented

aten = namespace("aten")


def _type_as(t: Any, other: Any) -> Any:
    """``t.type_as(other)`` = ``t.to(other.options())``: ``to.dtype_layout`` (a no-op when nothing changes)."""
    return aten.to.dtype_layout(t, **_options(other))


def _dropout_scale(p: float, train: bool | None) -> float:
    if train is None or not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


@derivative("native_dropout", "NativeDropoutBackward0", ("input",), save_inputs=("p", "train"),
            save_outputs=(1,), non_differentiable_outputs=(1,))
def _native_dropout(ctx, grads, needs):
    grad, mask = grads[0], ctx.result1
    scale = _dropout_scale(ctx.p, ctx.train)
    if is_grad_enabled():  # infinitely_differentiable_native_dropout_backward
        return (aten.mul.Tensor(grad, aten.mul.Scalar(_type_as(mask, grad), scale)),)
    return (aten.native_dropout_backward.default(grad, mask, scale),)


@derivative("native_dropout_backward", "NativeDropoutBackwardBackward0", ("grad_output", "mask"),
            save_inputs=("grad_output", "mask", "scale"))
def _native_dropout_backward(ctx, grads, needs):
    if needs[1]:
        raise _not_implemented("native_dropout_backward: mask")
    grad_output = ctx.grad_output  # native_dropout_double_backward
    ggI = _type_as(grads[0], grad_output)
    return (aten.mul.Tensor(ggI, aten.mul.Scalar(_type_as(ctx.mask, grad_output), ctx.scale)), None)
