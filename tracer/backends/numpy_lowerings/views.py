"""NumPy lowerings of the view ops: view / reshape / squeeze / unsqueeze / flatten, t / transpose / permute,
expand, select, slice, split and unbind, each a NumPy view of its input.

Part of the numpy backend's lowering table (see lowering.py). ``view_lowering`` remembers a reshape / transpose so
that the code generator can fold chains of them; ``index_prefix`` and ``slice_text`` spell subscripts (the
indexing lowerings use them too). PyTorch counterpart: the view lowerings of torch/_inductor/lowering.py.
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register

_BIG = 2**62  # slice ends at or beyond this mean "to the end" (PyTorch records INT64_MAX)


@register("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.unsqueeze.default",
          "aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims", "aten.flatten.using_ints",
          "aten.view_as.default", "aten._reshape_alias.default")
def _reshape(ctx: Any, a: dict) -> Lowering:
    return view_lowering(ctx, a["self"], ("reshape", tuple(int(s) for s in ctx.meta(ctx.node).shape)))


def view_text(var: str, view_op: tuple) -> str:
    """``var.reshape(shape)`` / ``var.transpose(perm)``; ``var.T`` for the 2-d transpose (the cheapest spelling)."""
    kind, arg = view_op
    if kind == "transpose" and arg == (1, 0):
        return f"{var}.T"
    return f"{var}.{kind}({arg!r})"


def view_lowering(ctx: Any, x: Any, view_op: tuple) -> Lowering:
    """``x.reshape(shape)`` / ``x.transpose(perm)`` as a view Lowering that remembers the op (chains fold)."""
    low = Lowering("view", view_text(ctx.v(x), view_op), (x,))
    low.view_op = view_op
    return low


@register("aten.t.default")
def _t(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    if len(ctx.meta(x).shape) < 2:
        return Lowering("alias", ctx.v(x), (x,))
    return view_lowering(ctx, x, ("transpose", (1, 0)))


@register("aten.transpose.int")
def _transpose(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    nd = max(len(ctx.meta(x).shape), 1)
    d0, d1 = a["dim0"] % nd, a["dim1"] % nd
    if d0 == d1 or len(ctx.meta(x).shape) == 0:
        return Lowering("alias", ctx.v(x), (x,))
    perm = list(range(len(ctx.meta(x).shape)))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return view_lowering(ctx, x, ("transpose", tuple(perm)))


@register("aten.permute.default")
def _permute(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    nd = max(len(ctx.meta(x).shape), 1)
    perm = tuple(d % nd for d in a["dims"])
    if perm == tuple(range(len(perm))):
        return Lowering("alias", ctx.v(x), (x,))
    return view_lowering(ctx, x, ("transpose", perm))


@register("aten.expand.default")
def _expand(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    if tuple(ctx.meta(x).shape) == tuple(ctx.meta(ctx.node).shape):
        return Lowering("alias", ctx.v(x), (x,))
    return Lowering("view", f"np.broadcast_to({ctx.v(x)}, {ctx.shape(ctx.node)})", (x,))


def index_prefix(dim: int) -> str:
    """``:, `` repeated ``dim`` times: the subscript prefix that reaches dimension ``dim``."""
    return ":, " * dim


@register("aten.select.int")
def _select(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    d = a["dim"] % len(ctx.meta(x).shape)
    return Lowering("view", f"{ctx.v(x)}[{index_prefix(d)}{ctx.v(a['index'])}, ...]", (x,))


def slice_text(start: Any, end: Any, step: int) -> str:
    """``start:end:step`` as a subscript, with defaults left out."""
    s = "" if start in (None, 0) else str(start)
    e = "" if end is None or end >= _BIG else str(end)
    return f"{s}:{e}" + ("" if step == 1 else f":{step}")


@register("aten.slice.Tensor")
def _slice(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    d = a["dim"] % len(ctx.meta(x).shape)
    return Lowering("view", f"{ctx.v(x)}[{index_prefix(d)}{slice_text(a['start'], a['end'], a['step'])}]", (x,))


def _split_views(ctx: Any, x: Any, dim: int, sizes: list[int]) -> Lowering:
    d = dim % len(ctx.meta(x).shape)
    parts, start = [], 0
    for s in sizes:
        parts.append(f"{ctx.v(x)}[{index_prefix(d)}{start}:{start + s}]")
        start += s
    return Lowering("multi_view", "(" + "".join(p + ", " for p in parts) + ")", (x,))


@register("aten.split.Tensor", "aten.split_with_sizes.default")
def _split(ctx: Any, a: dict) -> Lowering:
    sizes = [m.shape[a["dim"]] for m in ctx.meta(ctx.node)]
    return _split_views(ctx, a["self"], a["dim"], sizes)


@register("aten.unbind.int")
def _unbind(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    n = ctx.meta(x).shape[a["dim"]]
    d = a["dim"] % len(ctx.meta(x).shape)
    parts = [f"{ctx.v(x)}[{index_prefix(d)}{i}, ...]" for i in range(n)]
    return Lowering("multi_view", "(" + "".join(p + ", " for p in parts) + ")", (x,))
