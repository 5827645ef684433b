"""Ops PyTorch has no formula for: ``not_implemented(...)`` errors and ``NotImplemented`` nodes.

Corresponds to FunctionsManual.cpp's ``not_implemented`` (the error a formula raises for an input it cannot
differentiate) and to the ``NotImplemented`` nodes torchgen generates for differentiable ops without an entry
in tools/autograd/derivatives.yaml (``floor_divide``, ``heaviside``, ``logit_backward``, ...): the node is
recorded, and backward fails when it reaches it.
"""

from __future__ import annotations

from ..function import derivative


def _not_implemented(name: str) -> NotImplementedError:
    """FunctionsManual's ``not_implemented(name)``: the error a formula raises for what it cannot differentiate."""
    return NotImplementedError(f"the derivative for '{name}' is not implemented.")


def register_not_implemented(op: str, inputs: tuple[str, ...], name: str) -> None:
    """Register ``op`` with a ``NotImplemented`` node: PyTorch has no formula for it, and backward fails
    when it reaches the node ("derivative for aten::<name> is not implemented")."""

    @derivative(op, "NotImplemented", inputs)
    def backward(ctx, grads, needs):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
