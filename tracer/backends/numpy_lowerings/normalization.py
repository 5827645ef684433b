"""NumPy lowerings of the normalization ops: native_layer_norm and its backward (kernels of numpy_kernels.py).

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: Inductor lowers layer norm
through its decomposition (torch/_decomp/decompositions.py, ``native_layer_norm``).
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register


@register("aten.native_layer_norm.default")
def _layer_norm(ctx: Any, a: dict) -> Lowering:
    return Lowering("multi_fresh", f"_k.layer_norm({ctx.v(a['input'])}, {len(a['normalized_shape'])}, "
                                   f"{ctx.v(a['weight'])}, {ctx.v(a['bias'])}, {ctx.v(a['eps'])})")


@register("aten.native_layer_norm_backward.default")
def _layer_norm_backward(ctx: Any, a: dict) -> Lowering:
    return Lowering("multi_fresh", f"_k.layer_norm_backward({ctx.v(a['grad_out'])}, {ctx.v(a['input'])}, "
                                   f"{len(a['normalized_shape'])}, {ctx.v(a['mean'])}, {ctx.v(a['rstd'])}, "
                                   f"{ctx.v(a['weight'])}, {tuple(bool(m) for m in a['output_mask'])})")
