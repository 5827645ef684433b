"""NumPy lowerings of the activation functions and their backward ops: relu, threshold (+ backward), sigmoid
(+ backward), gelu (+ backward), softmax and log_softmax (+ backward).

Part of the numpy backend's lowering table (see lowering.py); gelu and the softmaxes call numpy_kernels.py.
PyTorch counterpart: the activation lowerings and decompositions Inductor uses (torch/_inductor/lowering.py,
torch/_decomp/decompositions.py).
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, op_base, register, ufunc


@register("aten.relu.default")
def _relu(ctx: Any, a: dict) -> Lowering:
    return ufunc("maximum", ctx.v(a["self"]), "0")


@register("aten.threshold.default")
def _threshold(ctx: Any, a: dict) -> Lowering:
    x = ctx.v(a["self"])
    return Lowering("fresh", f"np.where(np.less_equal({x}, {ctx.v(a['threshold'])}), {ctx.v(a['value'])}, {x})")


@register("aten.threshold_backward.default")
def _threshold_backward(ctx: Any, a: dict) -> Lowering:
    g, x = ctx.v(a["grad_output"]), ctx.v(a["self"])
    return Lowering("fresh", f"np.where(np.less_equal({x}, {ctx.v(a['threshold'])}), 0, {g})")


@register("aten.sigmoid.default")
def _sigmoid(ctx: Any, a: dict) -> Lowering:
    x = ctx.v(a["self"])
    return Lowering("fresh", f"np.reciprocal(np.add(np.exp(np.negative({x})), 1))")


@register("aten.sigmoid_backward.default")
def _sigmoid_backward(ctx: Any, a: dict) -> Lowering:
    g, y = ctx.v(a["grad_output"]), ctx.v(a["output"])
    return Lowering("fresh", f"np.multiply(np.multiply({g}, np.subtract(1, {y})), {y})")


@register("aten.gelu.default")
def _gelu(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"_k.gelu({ctx.v(a['self'])}, {a['approximate']!r})")


@register("aten.gelu_backward.default")
def _gelu_backward(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"_k.gelu_backward({ctx.v(a['grad_output'])}, {ctx.v(a['self'])}, {a['approximate']!r})")


@register("aten._softmax.default", "aten._log_softmax.default")
def _softmax(ctx: Any, a: dict) -> Lowering | None:
    if a["half_to_float"]:
        return None
    fn = "softmax" if op_base(ctx) == "aten::_softmax" else "log_softmax"
    x = a["self"]
    return Lowering("fresh", f"_k.{fn}({ctx.v(x)}, {a['dim'] % max(len(ctx.meta(x).shape), 1)})")


@register("aten._softmax_backward_data.default", "aten._log_softmax_backward_data.default")
def _softmax_backward(ctx: Any, a: dict) -> Lowering:
    fn = "softmax_backward" if op_base(ctx) == "aten::_softmax_backward_data" else "log_softmax_backward"
    g = a["grad_output"]
    return Lowering("fresh", f"_k.{fn}({ctx.v(g)}, {ctx.v(a['output'])}, "
                             f"{a['dim'] % max(len(ctx.meta(g).shape), 1)})")
