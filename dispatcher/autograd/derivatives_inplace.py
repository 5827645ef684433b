"""Derivative formulas for in-place ops.

Same conventions as derivatives.py: every formula is written with aten ops,
named and shaped as in PyTorch's derivatives.yaml / FunctionsManual.cpp.

torchgen derives an in-place op's derivative from its out-of-place entry
(``mul_.Tensor`` from ``mul.Tensor``: same node name, same formula), with two
twists reproduced here: a formula reading ``self`` gets the value *before* the op,
which means saving ``self.clone()`` before it runs (only when an input whose
gradient needs it requires grad), and ``result`` is ``self`` after the op. The
rest (fill, zero, copy, index_put, bernoulli, squeeze_) have entries of their own.

What the autograd kernel does with an in-place op (the leaf / view checks, history
rebased onto the modified tensor, CopySlices for views) is in function.py and
views.py; this module only says how to differentiate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..memory_format import contiguous_format, strided
from ..op_overload import namespace
from . import derivatives, derivatives_math, derivatives_nn  # noqa: F401 - the out-of-place entries come first
from .function import DERIVATIVES, Derivative, derivative

aten = namespace("aten")


def _delegate(out_of_place: str) -> Callable[..., Sequence[Any]]:
    """The out-of-place op's formula, looked up when it runs (so both always agree)."""

    def backward(ctx: Any, grads: list[Any], needs: tuple[bool, ...]) -> Sequence[Any]:
        return DERIVATIVES[out_of_place].backward(ctx, grads, needs)

    backward.__name__ = f"inplace_of_{out_of_place.replace('.', '_')}"
    return backward


def inplace_of(op_name: str, out_of_place: str, clone_self_for: Sequence[int] = (), node_name: str | None = None) -> None:
    """Register ``op_name`` (in-place) with the formula of ``out_of_place``.

    ``clone_self_for``: the inputs whose gradient reads the original ``self``; the
    out-of-place entry's saved ``self`` becomes a clone taken before the op.
    """
    d = DERIVATIVES[out_of_place]
    if "self" in d.save_inputs and not clone_self_for:
        raise ValueError(f"{op_name}: the formula of {out_of_place} reads self; say which inputs need its original")
    DERIVATIVES[op_name] = Derivative(
        op_name, node_name or d.node_name, d.inputs, _delegate(out_of_place),
        tuple(n for n in d.save_inputs if n != "self"), d.save_outputs, d.non_differentiable_outputs,
        save_meta=d.save_meta, clone_self_for=tuple(clone_self_for),
    )


inplace_of("add_.Tensor", "add.Tensor")
inplace_of("sub_.Tensor", "sub.Tensor")
inplace_of("mul_.Tensor", "mul.Tensor", clone_self_for=(1,))  # other's gradient is grad * original self
inplace_of("div_.Tensor", "div.Tensor", clone_self_for=(1,))
inplace_of("div_.Scalar", "div.Scalar")
inplace_of("relu_", "relu")  # threshold_backward(grad, result, 0): result is self after the op
inplace_of("masked_fill_.Scalar", "masked_fill.Scalar")
inplace_of("index_put_", "index_put")
inplace_of("_index_put_impl_", "index_put", node_name="IndexPutImplBackward0")
inplace_of("masked_fill_.Tensor", "masked_fill.Tensor")
inplace_of("masked_scatter_", "masked_scatter")
inplace_of("scatter_.src", "scatter.src")
inplace_of("scatter_add_", "scatter_add")
inplace_of("mul_.Scalar", "mul.Scalar")
inplace_of("index_add_", "index_add")


@derivative("fill_.Scalar", "FillBackward2", ("self",))
def _fill_scalar(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("fill_.Tensor", "FillBackward3", ("self", "value"))
def _fill_tensor(ctx, grads, needs):
    g = grads[0]
    return (aten.zeros_like.default(g) if needs[0] else None, aten.sum.default(g) if needs[1] else None)


@derivative("zero_", "ZeroBackward0", ("self",))
def _zero(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("bernoulli_.float", "BernoulliBackward2", ("self",))
def _bernoulli(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("copy_", "CopyBackwards", ("self", "src"), save_meta=("src",))
def _copy(ctx, grads, needs):
    """CopyBackwards (hand-written in PyTorch): zeros for self, the gradient in src's dtype/device for src."""
    g = grads[0]
    g_self = aten.zeros_like.default(g, memory_format=contiguous_format) if needs[0] else None
    g_src = None
    if needs[1]:
        src = ctx.src
        # grad.to(src.options()): always called (to.dtype_layout is CompositeImplicit and returns grad itself when
        # nothing changes, so only a pre-dispatch trace records it); R -> C's at::real is not handled
        g_src = aten.to.dtype_layout(g, dtype=src._dtype, layout=strided, device=src._device)
    return (g_self, g_src)


@derivative("copy", "NotImplemented", ("self", "src"))
def _copy_functional(ctx, grads, needs):
    """PyTorch has no formula for the functional ``copy``: its node is ``NotImplemented``, which fails when backward
    reaches it."""
    raise RuntimeError("derivative for aten::copy is not implemented")


@derivative("squeeze_.dim", "SqueezeBackward4", ("self",), save_inputs=("dim",), save_meta=("self",))
def _squeeze_dim_(ctx, grads, needs):
    """unsqueeze_to(grad, dim, self.sizes()): the squeezed dim comes back if it had size 1."""
    sizes = ctx.self._shape
    dim = ctx.dim % len(sizes) if sizes else 0
    if not sizes or sizes[dim] == 1:
        return (aten.unsqueeze.default(grads[0], dim),)
    return (grads[0],)
