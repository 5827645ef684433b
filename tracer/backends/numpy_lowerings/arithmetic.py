"""NumPy lowerings of the arithmetic ops: add, sub, rsub, mul, div (and its rounding modes), remainder, fmod, pow,
neg, abs, rounding, sign, reciprocal, square, maximum / minimum and clamp.

Part of the numpy backend's lowering table (see lowering.py for what a rule returns). PyTorch counterpart: the
pointwise arithmetic lowerings of torch/_inductor/lowering.py (``add``, ``mul``, ``div_mode``, ``pow``, ...).
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register, register_binary, register_unary, scaled, ufunc

_UNARY = {
    "neg": "negative", "abs": "absolute", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "round": "rint",
    "sign": "sign", "reciprocal": "reciprocal", "square": "square",
}
_BINARY = {"mul": "multiply", "div": "true_divide", "remainder": "remainder", "fmod": "fmod"}  # .Tensor and .Scalar
register_unary(_UNARY)
register_binary(_BINARY, ("Tensor", "Scalar"))
register_binary({"maximum": "maximum", "minimum": "minimum"}, ("default",))


@register("aten.add.Tensor", "aten.add.Scalar")
def _add(ctx: Any, a: dict) -> Lowering:
    return ufunc("add", ctx.v(a["self"]), scaled(ctx, a["other"], a.get("alpha", 1)))


@register("aten.sub.Tensor", "aten.sub.Scalar")
def _sub(ctx: Any, a: dict) -> Lowering:
    return ufunc("subtract", ctx.v(a["self"]), scaled(ctx, a["other"], a.get("alpha", 1)))


@register("aten.rsub.Tensor", "aten.rsub.Scalar")
def _rsub(ctx: Any, a: dict) -> Lowering:
    return ufunc("subtract", ctx.v(a["other"]), scaled(ctx, a["self"], a.get("alpha", 1)))


@register("aten.div.Tensor_mode", "aten.div.Scalar_mode")
def _div_mode(ctx: Any, a: dict) -> Lowering:
    x, y, mode = ctx.v(a["self"]), ctx.v(a["other"]), a["rounding_mode"]
    if mode is None:
        return ufunc("true_divide", x, y)
    integral = not ctx.meta(ctx.node).dtype.is_floating_point
    if mode == "trunc":
        return Lowering("fresh", f"_k.div_trunc({x}, {y})" if integral else f"np.trunc(np.true_divide({x}, {y}))")
    if mode == "floor":
        return Lowering("fresh", f"_k.div_floor({x}, {y})") if integral else ufunc("floor_divide", x, y)
    return None


@register("aten.pow.Tensor_Scalar")
def _pow_scalar(ctx: Any, a: dict) -> Lowering:
    x, e = a["self"], a["exponent"]
    if ctx.meta(x).dtype.is_floating_point and not isinstance(e, bool):
        if e == 2:
            return ufunc("square", ctx.v(x))
        if e == 1:
            return ufunc("positive", ctx.v(x))
        if e == 0.5:
            return ufunc("sqrt", ctx.v(x))
    return ufunc("power", ctx.v(x), ctx.v(e))


@register("aten.pow.Tensor_Tensor")
def _pow_tensor(ctx: Any, a: dict) -> Lowering:
    return ufunc("power", ctx.v(a["self"]), ctx.v(a["exponent"]))


@register("aten.pow.Scalar")
def _pow_scalar_base(ctx: Any, a: dict) -> Lowering:
    return ufunc("power", ctx.v(a["self"]), ctx.v(a["exponent"]))


@register("aten.clamp.default")
def _clamp(ctx: Any, a: dict) -> Lowering | None:
    lo, hi = a["min"], a["max"]
    if lo is None and hi is None:
        return None
    if hi is None:
        return ufunc("maximum", ctx.v(a["self"]), ctx.v(lo))
    if lo is None:
        return ufunc("minimum", ctx.v(a["self"]), ctx.v(hi))
    return ufunc("clip", ctx.v(a["self"]), ctx.v(lo), ctx.v(hi))


@register("aten.clamp_min.default")
def _clamp_min(ctx: Any, a: dict) -> Lowering:
    return ufunc("maximum", ctx.v(a["self"]), ctx.v(a["min"]))


@register("aten.clamp_max.default")
def _clamp_max(ctx: Any, a: dict) -> Lowering:
    return ufunc("minimum", ctx.v(a["self"]), ctx.v(a["max"]))
