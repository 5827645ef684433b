"""How an in-place op is differentiated: with its out-of-place entry's formula (``inplace_of``).

Corresponds to torchgen's rule for in-place ops without an entry of their own in
tools/autograd/derivatives.yaml (tools/autograd/load_derivatives.py): ``mul_.Tensor`` takes ``mul.Tensor``'s
entry (same node name, same formula), with two twists reproduced here: a formula reading ``self`` gets the
value *before* the op, which means saving ``self.clone()`` before it runs (only when an input whose gradient
needs it requires grad), and ``result`` is ``self`` after the op. In-place ops with entries of their own
(``fill_``, ``zero_``, ``copy_``, ``squeeze_``, ``leaky_relu_``, ...) are registered with ``derivative`` in
their family's module.

The out-of-place entry must be registered before ``inplace_of`` copies it: each family module calls
``inplace_of`` below the entries it copies. What the autograd kernel does with an in-place op (the leaf / view
checks, history rebased onto the modified tensor, CopySlices for views) is in autograd/function.py and
autograd/views.py; this module only says how to differentiate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..function import DERIVATIVE_SITES, DERIVATIVES, Derivative, module_site


def _delegate(out_of_place: str) -> Callable[..., Sequence[Any]]:
    """The out-of-place op's formula, looked up when it runs (so both always agree)."""

    def backward(ctx: Any, grads: list[Any], needs: tuple[bool, ...]) -> Sequence[Any]:
        return DERIVATIVES[out_of_place].backward(ctx, grads, needs)

    backward.__name__ = f"inplace_of_{out_of_place.replace('.', '_')}"
    return backward


def inplace_of(op_name: str, out_of_place: str, clone_self_for: Sequence[int] = (), node_name: str | None = None) -> None:
    """Register ``op_name`` (in-place) with the formula of ``out_of_place``.

    ``clone_self_for``: the inputs whose gradient reads the original ``self``; the
    out-of-place entry's saved ``self`` becomes a clone taken before the op.
    """
    d = DERIVATIVES[out_of_place]
    if "self" in d.save_inputs and not clone_self_for:
        raise ValueError(f"{op_name}: the formula of {out_of_place} reads self; say which inputs need its original")
    DERIVATIVE_SITES[op_name] = module_site()
    DERIVATIVES[op_name] = Derivative(
        op_name, node_name or d.node_name, d.inputs, _delegate(out_of_place),
        tuple(n for n in d.save_inputs if n != "self"), d.save_outputs, d.non_differentiable_outputs,
        save_meta=d.save_meta, clone_self_for=tuple(clone_self_for),
    )
