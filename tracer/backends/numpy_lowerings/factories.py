"""NumPy lowerings of the factories: zeros / ones / full / empty and their ``_like`` / ``new_`` / strided forms
(``np.zeros`` / ``np.full``; empty ones are zeros), scalar_tensor, arange.

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: the factory lowerings of
torch/_inductor/lowering.py (``full``, ``empty``, ``arange``, ...).
"""

from __future__ import annotations

from typing import Any

from .lowering import LOWERINGS, Lowering, Rule, register


def _factory(fill: str | None) -> Rule:
    def rule(ctx: Any, a: dict) -> Lowering | None:
        dev = a.get("device")
        if dev is not None and str(dev) != "cpu":
            return None
        out = ctx.meta(ctx.node)
        value = ctx.v(a["fill_value"]) if fill is None else fill
        shape, dt = ctx.shape(ctx.node), ctx.np_dtype(out.dtype)
        if value == "0":
            return Lowering("fresh", f"np.zeros({shape}, dtype={dt})")
        return Lowering("fresh", f"np.full({shape}, {value}, dtype={dt})")
    return rule


for _name in ("zeros.default", "zeros_like.default", "new_zeros.default", "empty.memory_format", "empty_like.default",
              "new_empty.default", "empty_strided.default", "new_empty_strided.default"):
    LOWERINGS[f"aten.{_name}"] = _factory("0")
for _name in ("ones.default", "ones_like.default", "new_ones.default"):
    LOWERINGS[f"aten.{_name}"] = _factory("1")
for _name in ("full.default", "full_like.default", "new_full.default"):
    LOWERINGS[f"aten.{_name}"] = _factory(None)


@register("aten.scalar_tensor.default")
def _scalar_tensor(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.array({ctx.v(a['s'])}, dtype={ctx.np_dtype(ctx.meta(ctx.node).dtype)})")


@register("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(ctx: Any, a: dict) -> Lowering:
    start, end, step = a.get("start", 0), a["end"], a.get("step", 1)
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"np.arange({ctx.v(start)}, {ctx.v(end)}, {ctx.v(step)}, "
                             f"dtype={ctx.np_dtype(out.dtype)})")
