"""Autograd of the ``_foreach_*`` ops (hand-written Autograd kernels, as PyTorch's VariableTypeManual ones).

PyTorch generates per-element formulas for the foreach ops (an in-place one rebases each written tensor on a
per-tensor node such as ``MulBackward1``). Here the Autograd kernel of a ``_foreach_*`` op takes one of two paths:

* grad mode off, or no tensor of the lists requires grad (the optimizers and gradient clipping run under
  ``no_grad``): run the op below autograd, bump the version of each written tensor (what ADInplaceOrView does),
  so a mode or make_fx sees the one ``_foreach_*`` call;
* otherwise: run the op's loop of per-tensor ops *above* autograd, so each records its node (a written leaf that
  requires grad gets PyTorch's in-place error, gradients flow). NB: a trace then shows the per-tensor ops, and the
  nodes are the per-tensor ones (``mul_.Scalar``'s ``MulBackward1``, as PyTorch's in-place foreach nodes; its
  out-of-place ones are a ``Foreach...Backward`` node per call).
"""

from __future__ import annotations

from typing import Any

from ...dispatch import redispatch_excluding
from ...keys import DispatchKey
from ...keyset import full_after_bits
from ...ops.inplace_or_view import _bump, written_arguments
from ...ops.native_functions import NATIVE_FUNCTIONS
from ...tensor import Tensor
from ...tls import AUTOGRAD_AND_ADINPLACEORVIEW_RAW, per_thread
from .. import MANUAL_AUTOGRAD_KERNELS

_AFTER_AUTOGRAD = full_after_bits(DispatchKey.AutogradOther)


def _needs_grad(args: tuple, kwargs: dict) -> bool:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            if a.requires_grad:
                return True
        elif isinstance(a, (list, tuple)):
            if any(isinstance(t, Tensor) and t.requires_grad for t in a):
                return True
    return False


def _foreach_autograd_kernel(name: str) -> Any:
    from ...ops.kernel_registry import KERNELS

    composite = KERNELS[(name, "CompositeExplicitAutograd")]
    positions: list[int] | None = None

    def kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        nonlocal positions
        if per_thread.s.grad_enabled and _needs_grad(args, kwargs):
            return composite(*args, **kwargs)  # the per-tensor ops, each through autograd
        result = redispatch_excluding(op, ks, _AFTER_AUTOGRAD, AUTOGRAD_AND_ADINPLACEORVIEW_RAW, args, kwargs)
        if positions is None:
            positions = written_arguments(op._schema)[0]
        for i in positions:
            if i < len(args):
                _bump(args[i])
        return result

    kernel.__name__ = kernel.__qualname__ = f"{name}_Autograd"
    return kernel


for _op in NATIVE_FUNCTIONS:
    if _op.name.startswith("_foreach_"):
        MANUAL_AUTOGRAD_KERNELS[_op.name] = _foreach_autograd_kernel(_op.name)
del _op
