"""NumPy lowerings of the reductions: sum, mean, amax / amin, max / min (all, and along a dim with indices),
argmax / argmin, var / std, prod, any / all, cumsum.

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: the reduction lowerings of
torch/_inductor/lowering.py (``make_reduction``).
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, op_base, register


def _axes(dims: Any, ndim: int) -> tuple[int, ...] | None:
    """The reduced dims, wrapped; None for all of them (no dims, an empty list, or a 0-dim input)."""
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0) or not ndim:
        return None
    if isinstance(dims, int):
        dims = [dims]
    return tuple(d % ndim for d in dims)


def _axis(dims: Any, ndim: int) -> str:
    return repr(_axes(dims, ndim))


def _dtype_kw(ctx: Any, dtype: Any) -> str:
    return "" if dtype is None else f", dtype={ctx.np_dtype(dtype)}"


# Reductions call the ufuncs' ``reduce`` directly: np.sum / np.mean / ndarray.max go through Python wrappers
# that cost more than the arithmetic on small arrays.


@register("aten.sum.default")
def _sum(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"np.add.reduce({ctx.v(a['self'])}, axis=None, dtype={ctx.np_dtype(out.dtype)})")


@register("aten.sum.dim_IntList")
def _sum_dim(ctx: Any, a: dict) -> Lowering:
    x, out = a["self"], ctx.meta(ctx.node)
    axis = _axis(a["dim"], len(ctx.meta(x).shape))
    dtype = "" if out.dtype is ctx.meta(x).dtype and out.dtype.is_floating_point else \
        f", dtype={ctx.np_dtype(out.dtype)}"
    return Lowering("fresh", f"np.add.reduce({ctx.v(x)}, axis={axis}, keepdims={bool(a['keepdim'])}{dtype})")


def _mean_lowering(ctx: Any, x: Any, dims: Any, keepdim: bool, dtype: Any) -> Lowering:
    shape = tuple(int(s) for s in ctx.meta(x).shape)
    axes = _axes(dims, len(shape))
    axis = repr(axes)
    out = ctx.meta(ctx.node)
    if dtype is not None or not out.dtype.is_floating_point:
        return Lowering("fresh", f"np.mean({ctx.v(x)}, axis={axis}, keepdims={keepdim}{_dtype_kw(ctx, dtype)})")
    count = 1
    for d in range(len(shape)) if axes is None else axes:
        count *= shape[d]
    scale = repr(1.0 / count) if count else "_nan"
    return Lowering("fresh", f"np.multiply(np.add.reduce({ctx.v(x)}, axis={axis}, keepdims={keepdim}), {scale}, "
                             f"dtype={ctx.np_dtype(out.dtype)})")


@register("aten.mean.default")
def _mean(ctx: Any, a: dict) -> Lowering:
    return _mean_lowering(ctx, a["self"], None, False, a.get("dtype"))


@register("aten.mean.dim")
def _mean_dim(ctx: Any, a: dict) -> Lowering:
    return _mean_lowering(ctx, a["self"], a["dim"], bool(a["keepdim"]), a.get("dtype"))


@register("aten.amax.default", "aten.amin.default")
def _amax(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    fn = "maximum" if op_base(ctx).endswith("amax") else "minimum"
    axis = _axis(a["dim"], len(ctx.meta(x).shape))
    return Lowering("fresh", f"np.{fn}.reduce({ctx.v(x)}, axis={axis}, keepdims={bool(a['keepdim'])})")


@register("aten.max.default", "aten.min.default")
def _max_all(ctx: Any, a: dict) -> Lowering:
    fn = "amax" if op_base(ctx) == "aten::max" else "amin"
    return Lowering("fresh", f"np.{fn}({ctx.v(a['self'])})")


@register("aten.max.dim", "aten.min.dim")
def _max_dim(ctx: Any, a: dict) -> Lowering:
    fn = "max_dim" if op_base(ctx) == "aten::max" else "min_dim"
    x = a["self"]
    d = a["dim"] % max(len(ctx.meta(x).shape), 1)
    if not ctx.meta(x).shape:
        return None
    return Lowering("multi_fresh", f"_k.{fn}({ctx.v(x)}, {d}, {bool(a['keepdim'])})")


@register("aten.argmax.default", "aten.argmin.default")
def _argmax(ctx: Any, a: dict) -> Lowering:
    fn = "argmax" if op_base(ctx) == "aten::argmax" else "argmin"
    x, dim = a["self"], a["dim"]
    if dim is None:
        expr = f"np.{fn}({ctx.v(x)})"
        if a["keepdim"]:
            expr = f"np.reshape({expr}, {ctx.shape(ctx.node)})"
        return Lowering("fresh", expr)
    return Lowering("fresh", f"np.{fn}({ctx.v(x)}, axis={dim % max(len(ctx.meta(x).shape), 1)}, "
                             f"keepdims={bool(a['keepdim'])})")


@register("aten.var.correction", "aten.std.correction")
def _var(ctx: Any, a: dict) -> Lowering:
    fn = "var" if op_base(ctx) == "aten::var" else "std"
    x = a["self"]
    corr = 1 if a["correction"] is None else a["correction"]
    axis = _axis(a["dim"], len(ctx.meta(x).shape))
    return Lowering("fresh", f"np.{fn}({ctx.v(x)}, axis={axis}, ddof={corr!r}, keepdims={bool(a['keepdim'])})")


@register("aten.prod.default")
def _prod(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"np.prod({ctx.v(a['self'])}, dtype={ctx.np_dtype(out.dtype)})")


@register("aten.any.default", "aten.all.default")
def _any(ctx: Any, a: dict) -> Lowering:
    fn = "any" if op_base(ctx) == "aten::any" else "all"
    return Lowering("fresh", f"np.{fn}({ctx.v(a['self'])})")


@register("aten.any.dim", "aten.all.dim")
def _any_dim(ctx: Any, a: dict) -> Lowering:
    fn = "any" if op_base(ctx) == "aten::any" else "all"
    x = a["self"]
    return Lowering("fresh", f"np.{fn}({ctx.v(x)}, axis={a['dim'] % max(len(ctx.meta(x).shape), 1)}, "
                             f"keepdims={bool(a['keepdim'])})")


@register("aten.cumsum.default")
def _cumsum(ctx: Any, a: dict) -> Lowering:
    x, out = a["self"], ctx.meta(ctx.node)
    if not ctx.meta(x).shape:
        return Lowering("fresh", f"np.array({ctx.v(x)}, dtype={ctx.np_dtype(out.dtype)})")
    return Lowering("fresh", f"np.cumsum({ctx.v(x)}, axis={a['dim'] % len(ctx.meta(x).shape)}, "
                             f"dtype={ctx.np_dtype(out.dtype)})")
