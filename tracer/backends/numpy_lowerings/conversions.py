"""NumPy lowerings of copies, conversions, aliases and fills: clone, lift_fresh_copy, _to_copy (dtype
conversion), detach / alias / lift_fresh (the same array), copy_, fill_, zero_ (in-place writes).

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: the copy / conversion
lowerings of torch/_inductor/lowering.py (``clone``, ``_to_copy``, ``copy_``, ``fill_``).
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register


@register("aten.clone.default")
def _clone(ctx: Any, a: dict) -> Lowering:
    fmt = a.get("memory_format")
    order = "C" if fmt is not None and fmt == 0 else "K"
    return Lowering("fresh", f"np.array({ctx.v(a['self'])}, order={order!r})")


@register("aten.lift_fresh_copy.default")
def _lift_fresh_copy(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.array({ctx.v(a['self'])}, order='K')")


@register("aten._to_copy.default")
def _to_copy(ctx: Any, a: dict) -> Lowering | None:
    dev = a.get("device")
    if dev is not None and str(dev) != "cpu":
        return None
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"{ctx.v(a['self'])}.astype({ctx.np_dtype(out.dtype)})")


@register("aten.detach.default", "aten.alias.default", "aten.lift_fresh.default")
def _alias(ctx: Any, a: dict) -> Lowering:
    return Lowering("alias", ctx.v(a["self"]), (a["self"],))


@register("aten.copy_.default")
def _copy_(ctx: Any, a: dict) -> Lowering:
    dst = ctx.v(a["self"])
    return Lowering("inplace", f"np.copyto({dst}, {ctx.v(a['src'])}, casting='unsafe')", (a["self"],),
                    post=(f"{{out}} = {dst}",))


@register("aten.fill_.Scalar", "aten.fill_.Tensor")
def _fill_(ctx: Any, a: dict) -> Lowering:
    dst = ctx.v(a["self"])
    return Lowering("inplace", f"np.copyto({dst}, {ctx.v(a['value'])}, casting='unsafe')", (a["self"],),
                    post=(f"{{out}} = {dst}",))


@register("aten.zero_.default")
def _zero_(ctx: Any, a: dict) -> Lowering:
    dst = ctx.v(a["self"])
    return Lowering("inplace", f"np.copyto({dst}, 0, casting='unsafe')", (a["self"],), post=(f"{{out}} = {dst}",))
