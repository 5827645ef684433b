"""Derivative formulas of the comparison ops with differentiable results: ``maximum`` / ``minimum`` and
``where``. The comparisons themselves, the logical ops and ``isnan`` / ``isinf`` / ``isfinite`` / ``signbit``
give bool results and need no formula; ``heaviside`` has none in PyTorch (its node fails when backward reaches
it).

Corresponds to these ops' entries in tools/autograd/derivatives.yaml (``maximum``, ``minimum``, ``where``) and
the selection helper FunctionsManual.cpp inlines for them: ties share the gradient.
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ..function import derivative
from .not_implemented import register_not_implemented

aten = namespace("aten")


def _select_backward(grad: Any, self: Any, other: Any, zero_where: Any) -> Any:
    """``where(self == other, grad / 2, grad).masked_fill_(zero_where(self, other), 0)``: ties share."""
    half = aten.div.Scalar(grad, 2)
    shared = aten.where.self(aten.eq.Tensor(self, other), half, grad)
    return aten.masked_fill_.Scalar(shared, zero_where(self, other), 0)


@derivative("maximum", "MaximumBackward0", ("self", "other"), save_inputs=("self", "other"))
def _maximum(ctx, grads, needs):
    g = grads[0]
    other = _select_backward(g, ctx.self, ctx.other, aten.gt.Tensor) if needs[1] else None
    return (_select_backward(g, ctx.self, ctx.other, aten.lt.Tensor) if needs[0] else None, other)


@derivative("minimum", "MinimumBackward0", ("self", "other"), save_inputs=("self", "other"))
def _minimum(ctx, grads, needs):
    g = grads[0]
    other = _select_backward(g, ctx.self, ctx.other, aten.lt.Tensor) if needs[1] else None
    return (_select_backward(g, ctx.self, ctx.other, aten.gt.Tensor) if needs[0] else None, other)


@derivative("where.self", "WhereBackward0", ("self", "other"), save_inputs=("condition",))
def _where(ctx, grads, needs):
    g = grads[0]
    other = aten.where.ScalarSelf(ctx.condition, 0, g) if needs[1] else None
    return (aten.where.ScalarOther(ctx.condition, g, 0) if needs[0] else None, other)


register_not_implemented("heaviside", ("self", "values"), "heaviside")
register_not_implemented("heaviside_", ("self", "values"), "heaviside_")
