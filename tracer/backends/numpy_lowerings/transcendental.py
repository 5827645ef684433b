"""NumPy lowerings of the transcendental ops: exp / log and their variants, sqrt / rsqrt, the trigonometric and
hyperbolic functions (and ``tanh_backward``), atan2, erf.

Part of the numpy backend's lowering table (see lowering.py). ``erf`` calls numpy_kernels.py (NumPy has no erf).
PyTorch counterpart: the unary math lowerings of torch/_inductor/lowering.py.
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register, register_binary, register_unary

_UNARY = {
    "exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan", "tanh": "tanh", "sqrt": "sqrt",
    "log1p": "log1p", "expm1": "expm1", "log2": "log2", "log10": "log10", "exp2": "exp2", "sinh": "sinh",
    "cosh": "cosh", "asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
    "atanh": "arctanh",
}
register_unary(_UNARY)
register_binary({"atan2": "arctan2"}, ("default",))


@register("aten.rsqrt.default")
def _rsqrt(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.reciprocal(np.sqrt({ctx.v(a['self'])}))")


@register("aten.erf.default")
def _erf(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"_k.erf({ctx.v(a['self'])})")


@register("aten.tanh_backward.default")
def _tanh_backward(ctx: Any, a: dict) -> Lowering:
    g, y = ctx.v(a["grad_output"]), ctx.v(a["output"])
    return Lowering("fresh", f"np.multiply({g}, np.subtract(1, np.square({y})))")
