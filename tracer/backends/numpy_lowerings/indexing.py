"""NumPy lowerings of the indexing ops: index_select, index (advanced indexing), gather, scatter, index_put /
index_put_, masked_fill, and the backward ops of select and slice (writes into zeros).

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: the indexing lowerings of
torch/_inductor/lowering.py (``index``, ``index_put``, ``gather``, ``scatter``).
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register
from .views import index_prefix, slice_text


@register("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.where({ctx.v(a['mask'])}, {ctx.v(a['value'])}, {ctx.v(a['self'])})")


@register("aten.index_select.default")
def _index_select(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    return Lowering("fresh", f"np.take({ctx.v(x)}, {ctx.v(a['index'])}, "
                             f"axis={a['dim'] % max(len(ctx.meta(x).shape), 1)})")


@register("aten.index.Tensor")
def _index(ctx: Any, a: dict) -> Lowering:
    parts = ["slice(None)" if i is None else ctx.v(i) for i in a["indices"]]
    return Lowering("fresh", f"{ctx.v(a['self'])}[({''.join(p + ', ' for p in parts)})]")


@register("aten.gather.default")
def _gather(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    d = a["dim"] % max(len(ctx.meta(x).shape), 1)
    return Lowering("fresh", f"np.take_along_axis({ctx.v(x)}, {ctx.v(a['index'])}, axis={d})")


@register("aten.scatter.value", "aten.scatter.src")
def _scatter(ctx: Any, a: dict) -> Lowering | None:
    x, index = a["self"], a["index"]
    d = a["dim"] % max(len(ctx.meta(x).shape), 1)
    if "src" in a:
        if tuple(ctx.meta(a["src"]).shape) != tuple(ctx.meta(index).shape):
            return None
        values = ctx.v(a["src"])
    else:
        values = ctx.v(a["value"])
    return Lowering("fresh", f"np.array({ctx.v(x)}, order='K')",
                    post=(f"np.put_along_axis({{out}}, {ctx.v(index)}, {values}, axis={d})",))


def _index_tuple(ctx: Any, indices: list) -> str:
    return "(" + "".join(("slice(None)" if i is None else ctx.v(i)) + ", " for i in indices) + ")"


@register("aten.index_put_.default", "aten._index_put_impl_.default")
def _index_put_(ctx: Any, a: dict) -> Lowering:
    x = ctx.v(a["self"])
    idx = _index_tuple(ctx, a["indices"])
    if a["accumulate"]:
        stmt = f"np.add.at({x}, {idx}, {ctx.v(a['values'])})"
    else:
        stmt = f"{x}[{idx}] = {ctx.v(a['values'])}"
    return Lowering("inplace", stmt, (a["self"],), post=(f"{{out}} = {x}",))


@register("aten.index_put.default")
def _index_put(ctx: Any, a: dict) -> Lowering:
    idx = _index_tuple(ctx, a["indices"])
    op = (f"np.add.at({{out}}, {idx}, {ctx.v(a['values'])})" if a["accumulate"]
          else f"{{out}}[{idx}] = {ctx.v(a['values'])}")
    return Lowering("fresh", f"np.array({ctx.v(a['self'])}, order='K')", post=(op,))


@register("aten.select_backward.default")
def _select_backward(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    d = a["dim"] % len(out.shape)
    return Lowering("fresh", f"np.zeros({ctx.shape(ctx.node)}, dtype={ctx.np_dtype(out.dtype)})",
                    post=(f"{{out}}[{index_prefix(d)}{a['index']}, ...] = {ctx.v(a['grad_output'])}",))


@register("aten.slice_backward.default")
def _slice_backward(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    d = a["dim"] % len(out.shape)
    return Lowering("fresh", f"np.zeros({ctx.shape(ctx.node)}, dtype={ctx.np_dtype(out.dtype)})",
                    post=(f"{{out}}[{index_prefix(d)}{slice_text(a['start'], a['end'], a['step'])}] = "
                          f"{ctx.v(a['grad_output'])}",))
