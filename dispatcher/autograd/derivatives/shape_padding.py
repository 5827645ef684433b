"""Derivative formulas of the reflection / replication padding ops and their backward ops (double backward).

Corresponds to their entries in tools/autograd/derivatives.yaml: ``reflection_pad{1,2,3}d`` ->
``reflection_pad{1,2,3}d_backward(grad, self, padding)`` (the same for replication); a backward op's gradient is
the forward op applied to the incoming gradient (it is linear in ``grad_output``) and ``zeros_like(self)``.
``_pad_circular`` / ``_pad_enum`` / ``pad`` are CompositeImplicitAutograd: autograd sees the ops they call.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative
from .cpp_idioms import _strided_options as _options

aten = namespace("aten")


def _register(prefix: str, node: str, dim: int) -> None:
    name = f"{prefix}_pad{dim}d"
    forward_op = getattr(aten, name).default
    backward_op = getattr(aten, f"{name}_backward").default

    @derivative(name, f"{node}Pad{dim}DBackward0", ("self",), save_inputs=("self",))
    def _forward(ctx, grads, needs):
        return (backward_op(grads[0], ctx.self, ctx.padding),)

    @derivative(f"{name}_backward", f"{node}Pad{dim}DBackwardBackward0", ("grad_output", "self"),
                save_meta=("self",))
    def _backward(ctx, grads, needs):
        g_grad = forward_op(grads[0], ctx.padding) if needs[0] else None
        g_self = aten.zeros.default(list(ctx.self._shape), **_options(ctx.self)) if needs[1] else None
        return (g_grad, g_self)


for _dim in (1, 2, 3):
    _register("reflection", "Reflection", _dim)
    _register("replication", "Replication", _dim)
