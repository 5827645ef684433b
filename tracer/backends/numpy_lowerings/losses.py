"""NumPy lowerings of the losses: nll_loss_forward and nll_loss_backward (inputs of at most 2 dims; kernels of
numpy_kernels.py).

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: Inductor lowers these through
their decompositions (torch/_decomp/decompositions.py, ``nll_loss_forward``, ``nll_loss_backward``).
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register


@register("aten.nll_loss_forward.default")
def _nll_loss_forward(ctx: Any, a: dict) -> Lowering | None:
    if len(ctx.meta(a["self"]).shape) > 2:
        return None
    return Lowering("multi_fresh", f"_k.nll_loss_forward({ctx.v(a['self'])}, {ctx.v(a['target'])}, "
                                   f"{ctx.v(a['weight'])}, {a['reduction']}, {a['ignore_index']})")


@register("aten.nll_loss_backward.default")
def _nll_loss_backward(ctx: Any, a: dict) -> Lowering | None:
    if len(ctx.meta(a["self"]).shape) > 2:
        return None
    return Lowering("fresh", f"_k.nll_loss_backward({ctx.v(a['grad_output'])}, {ctx.v(a['self'])}, "
                             f"{ctx.v(a['target'])}, {ctx.v(a['weight'])}, {a['reduction']}, {a['ignore_index']}, "
                             f"{ctx.v(a['total_weight'])})")
