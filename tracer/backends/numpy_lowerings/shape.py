"""NumPy lowerings of the joining ops: cat (``np.concatenate``) and stack.

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: the cat / stack lowerings of
torch/_inductor/lowering.py.
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register


@register("aten.cat.default")
def _cat(ctx: Any, a: dict) -> Lowering:
    ts = [t for t in a["tensors"] if not (len(ctx.meta(t).shape) == 1 and ctx.meta(t).shape[0] == 0)]
    if not ts:
        return None
    d = a["dim"] % len(ctx.meta(ts[0]).shape)
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"np.concatenate([{', '.join(ctx.v(t) for t in ts)}], axis={d}, "
                             f"dtype={ctx.np_dtype(out.dtype)}, casting='unsafe')")


@register("aten.stack.default")
def _stack(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    d = a["dim"] % len(out.shape)
    return Lowering("fresh", f"np.stack([{', '.join(ctx.v(t) for t in a['tensors'])}], axis={d}, "
                             f"dtype={ctx.np_dtype(out.dtype)}, casting='unsafe')")
