"""Derivative formulas of the complex family: ``_conj`` (ConjBackward0), ``_neg_view`` (NegViewBackward0),
``_conj_physical`` / ``conj_physical_`` (ConjPhysicalBackward0 / 1), ``view_as_real`` (ViewAsRealBackward0) and
``view_as_complex`` (ViewAsComplexBackward0).

Corresponds to these ops' entries in tools/autograd/derivatives.yaml. ``grad.conj()`` there is ``Tensor::conj``
(``_conj`` for a complex grad, the grad itself for a real one), as the Tensor method is here.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative
from .inplace_formulas import inplace_of

aten = namespace("aten")


def _conj_of(grad):  # noqa: ANN001, ANN202 - Tensor::conj
    return aten._conj.default(grad) if grad._dtype.is_complex else grad


@derivative("_conj", "ConjBackward0", ("self",))
def _conj(ctx, grads, needs):
    return (_conj_of(grads[0]),)


@derivative("_neg_view", "NegViewBackward0", ("self",))
def _neg_view(ctx, grads, needs):
    return (aten.neg.default(grads[0]),)


@derivative("_conj_physical", "ConjPhysicalBackward0", ("self",))
def _conj_physical(ctx, grads, needs):
    return (aten.conj_physical.default(grads[0]),)


inplace_of("conj_physical_", "_conj_physical", node_name="ConjPhysicalBackward1")


@derivative("view_as_real", "ViewAsRealBackward0", ("self",))
def _view_as_real(ctx, grads, needs):
    return (aten.view_as_complex.default(aten.contiguous.default(grads[0])),)


@derivative("view_as_complex", "ViewAsComplexBackward0", ("self",))
def _view_as_complex(ctx, grads, needs):
    return (aten.view_as_real.default(aten.resolve_conj.default(aten.contiguous.default(grads[0]))),)
