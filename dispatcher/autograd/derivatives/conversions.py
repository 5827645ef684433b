"""Derivative formulas of the conversion and copy ops: ``clone``, ``_to_copy``, ``fill_`` / ``zero_``,
``copy_`` (and the functional ``copy``, which PyTorch does not differentiate), ``lift_fresh`` /
``lift_fresh_copy`` (how ``torch.tensor`` / ``from_numpy`` values enter a program).

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and to ``CopyBackwards``, hand-written
in torch/csrc/autograd/functions/tensor.cpp.
"""

from __future__ import annotations

from ...memory_format import contiguous_format, strided
from ...op_overload import namespace
from ..function import derivative
from .cpp_idioms import _strided_options as _options

aten = namespace("aten")


@derivative("clone", "CloneBackward0", ("self",))
def _clone(ctx, grads, needs):
    return (grads[0],)


@derivative("_to_copy", "ToCopyBackward0", ("self",), save_meta=("self",))
def _to_copy(ctx, grads, needs):
    # _to_copy_backward: a complex grad of a real input is first taken to its real part (at::real, without the
    # complex -> real cast warning), then grad.to(self.options()) (no copy when nothing changes)
    grad, options = grads[0], _options(ctx.self)
    if grad._dtype.is_complex and not options["dtype"].is_complex:
        grad = aten.real.default(grad)
    return (aten.to.dtype_layout(grad, **options),)


@derivative("fill_.Scalar", "FillBackward2", ("self",))
def _fill_scalar(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("fill_.Tensor", "FillBackward3", ("self", "value"))
def _fill_tensor(ctx, grads, needs):
    g = grads[0]
    return (aten.zeros_like.default(g) if needs[0] else None, aten.sum.default(g) if needs[1] else None)


@derivative("zero_", "ZeroBackward0", ("self",))
def _zero(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("copy_", "CopyBackwards", ("self", "src"), save_meta=("src",))
def _copy(ctx, grads, needs):
    """CopyBackwards (hand-written in PyTorch): zeros for self, the gradient in src's dtype/device for src."""
    g = grads[0]
    g_self = aten.zeros_like.default(g, memory_format=contiguous_format) if needs[0] else None
    g_src = None
    if needs[1]:
        src = ctx.src
        # grad.to(src.options()): always called (to.dtype_layout is CompositeImplicit and returns grad itself when
        # nothing changes, so only a pre-dispatch trace records it); R -> C's at::real is not handled
        g_src = aten.to.dtype_layout(g, dtype=src._dtype, layout=strided, device=src._device)
    return (g_self, g_src)


@derivative("copy", "NotImplemented", ("self", "src"))
def _copy_functional(ctx, grads, needs):
    """PyTorch has no formula for the functional ``copy``: its node is ``NotImplemented``, which fails when backward
    reaches it."""
    raise RuntimeError("derivative for aten::copy is not implemented")


@derivative("lift_fresh", "LiftFreshBackward0", ("self",))
def _lift_fresh(ctx, grads, needs):
    return (grads[0],)


@derivative("lift_fresh_copy", "LiftFreshBackward0_copy", ("self",))
def _lift_fresh_copy(ctx, grads, needs):
    return (grads[0],)
