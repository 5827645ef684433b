"""Derivative formulas, written with aten ops (never NumPy), one per differentiable op.

Corresponds to tools/autograd/derivatives.yaml and FunctionsManual.cpp. Each
``@derivative`` entry names the backward node as PyTorch does (``MulBackward0``),
the differentiable inputs, what to save, and a function ``(ctx, grads, needs)``
returning one gradient per differentiable input (None where not needed). The
ops these formulas call are the ones PyTorch's formulas call, so backward
graphs traced with make_fx match PyTorch's op for op. Broadcast gradients are
reduced to the input's shape by the engine (``engine.sum_to``), as PyTorch's
``validate_outputs`` does.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from .function import derivative

aten = namespace("aten")
_CONTIGUOUS_FORMAT = 0  # MemoryFormat code of torch.contiguous_format (LEGACY_CONTIGUOUS_MEMORY_FORMAT)


def _scaled(grad: Any, factor: Any) -> Any:
    """``maybe_multiply``: grad * factor (C++ ``Tensor * Scalar``, i.e. ``mul.Scalar``) unless factor is 1."""
    return grad if factor == 1 else aten.mul.Scalar(grad, factor)


# NB: PyTorch's generated backward functions compute the input gradients in the alphabetical order of
# the input names (tools/autograd/load_derivatives.py sorts the formula keys: "mat1" < "mat2" < "self",
# "other" < "self"), and within a C++ expression the operands of an operator or function call are
# evaluated right to left (GCC). The formulas here follow both, so the ops run in PyTorch's order.


# --- arithmetic ---------------------------------------------------------------------------

@derivative("add.Tensor", "AddBackward0", ("self", "other"), save_inputs=("alpha",))
def _add(ctx, grads, needs):
    g = grads[0]
    other = _scaled(g, ctx.alpha) if needs[1] else None
    return (g if needs[0] else None, other)


@derivative("add.Scalar", "AddBackward1", ("self",))
def _add_scalar(ctx, grads, needs):
    return (grads[0],)


@derivative("sub.Tensor", "SubBackward0", ("self", "other"), save_inputs=("alpha",))
def _sub(ctx, grads, needs):
    g = grads[0]
    other = _scaled(aten.neg.default(g), ctx.alpha) if needs[1] else None
    return (g if needs[0] else None, other)


@derivative("rsub.Scalar", "RsubBackward1", ("self",), save_inputs=("alpha",))
def _rsub(ctx, grads, needs):
    return (_scaled(aten.neg.default(grads[0]), ctx.alpha),)


@derivative("mul.Tensor", "MulBackward0", ("self", "other"), save_inputs=("self", "other"))
def _mul(ctx, grads, needs):
    g = grads[0]
    other = aten.mul.Tensor(g, ctx.self) if needs[1] else None
    return (aten.mul.Tensor(g, ctx.other) if needs[0] else None, other)


@derivative("mul.Scalar", "MulBackward1", ("self",), save_inputs=("other",))
def _mul_scalar(ctx, grads, needs):
    return (aten.mul.Scalar(grads[0], ctx.other),)


@derivative("div.Tensor", "DivBackward0", ("self", "other"), save_inputs=("self", "other"))
def _div(ctx, grads, needs):
    g = grads[0]
    go = None
    if needs[1]:  # -grad * ((self / other) / other): the right operand is evaluated first
        ratio = aten.div.Tensor(aten.div.Tensor(ctx.self, ctx.other), ctx.other)
        go = aten.mul.Tensor(aten.neg.default(g), ratio)
    gs = aten.div.Tensor(g, ctx.other) if needs[0] else None
    return (gs, go)


@derivative("div.Scalar", "DivBackward1", ("self",), save_inputs=("other",))
def _div_scalar(ctx, grads, needs):
    return (aten.div.Scalar(grads[0], ctx.other),)


@derivative("neg", "NegBackward0", ("self",))
def _neg(ctx, grads, needs):
    return (aten.neg.default(grads[0]),)


# --- unary math ---------------------------------------------------------------------------

@derivative("exp", "ExpBackward0", ("self",), save_outputs=(0,))
def _exp(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], ctx.result),)


@derivative("log", "LogBackward0", ("self",), save_inputs=("self",))
def _log(ctx, grads, needs):
    return (aten.div.Tensor(grads[0], ctx.self),)


@derivative("sin", "SinBackward0", ("self",), save_inputs=("self",))
def _sin(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.cos.default(ctx.self)),)


@derivative("cos", "CosBackward0", ("self",), save_inputs=("self",))
def _cos(ctx, grads, needs):
    return (aten.mul.Tensor(grads[0], aten.neg.default(aten.sin.default(ctx.self))),)


@derivative("tanh", "TanhBackward0", ("self",), save_outputs=(0,))
def _tanh(ctx, grads, needs):
    return (aten.tanh_backward.default(grads[0], ctx.result),)


@derivative("sigmoid", "SigmoidBackward0", ("self",), save_outputs=(0,))
def _sigmoid(ctx, grads, needs):
    return (aten.sigmoid_backward.default(grads[0], ctx.result),)


@derivative("relu", "ReluBackward0", ("self",), save_outputs=(0,))
def _relu(ctx, grads, needs):
    return (aten.threshold_backward.default(grads[0], ctx.result, 0),)


@derivative("gelu", "GeluBackward0", ("self",), save_inputs=("self", "approximate"))
def _gelu(ctx, grads, needs):
    if ctx.approximate == "none":
        return (aten.gelu_backward.default(grads[0], ctx.self),)
    return (aten.gelu_backward.default(grads[0], ctx.self, approximate=ctx.approximate),)


@derivative("pow.Tensor_Scalar", "PowBackward0", ("self",), save_inputs=("self", "exponent"))
def _pow_scalar(ctx, grads, needs):
    """``pow_backward``: grad * (exponent * self.pow(exponent - 1)), the exponent as a C++ double."""
    e = ctx.exponent
    if e == 0:
        return (aten.zeros_like.default(ctx.self, memory_format=_CONTIGUOUS_FORMAT),)
    e = complex(e) if isinstance(e, complex) else float(e)
    return (aten.mul.Tensor(grads[0], aten.mul.Scalar(aten.pow.Tensor_Scalar(ctx.self, e - 1), e)),)


# --- reductions ---------------------------------------------------------------------------

@derivative("sum", "SumBackward0", ("self",), save_meta=("self",))
def _sum(ctx, grads, needs):
    return (aten.expand.default(grads[0], list(ctx.self._shape)),)


def unsqueeze_multiple(grad: Any, dims: Any, ndim: int) -> Any:
    """FunctionsManual's ``unsqueeze_multiple``: one dim as given, several wrapped and in increasing order."""
    if dims is not None and len(dims) == 0:
        return grad
    if dims is not None and len(dims) == 1:
        return aten.unsqueeze.default(grad, dims[0])
    wrapped = set(range(ndim)) if dims is None else {d + ndim if d < 0 else d for d in dims}
    for d in range(ndim):
        if d in wrapped:
            grad = aten.unsqueeze.default(grad, d)
    return grad


def sum_backward(grad: Any, sizes: tuple[int, ...], dims: Any, keepdim: bool) -> Any:
    """FunctionsManual's ``sum_backward``: put reduced dims back (unless kept), then expand to ``sizes``."""
    if not keepdim and len(sizes) > 0 and dims is not None and len(dims) > 0:
        grad = unsqueeze_multiple(grad, dims, len(sizes))
    return aten.expand.default(grad, list(sizes))


@derivative("sum.dim_IntList", "SumBackward1", ("self",), save_inputs=("dim", "keepdim"), save_meta=("self",))
def _sum_dim(ctx, grads, needs):
    return (sum_backward(grads[0], ctx.self._shape, ctx.dim, ctx.keepdim),)


@derivative("mean", "MeanBackward0", ("self",), save_meta=("self",))
def _mean(ctx, grads, needs):
    self = ctx.self
    return (aten.div.Scalar(aten.expand.default(grads[0], list(self._shape)), self.numel()),)


# --- linear algebra -------------------------------------------------------------------------

def _column_major(geometry: Any) -> bool:
    """A matrix stored column by column (strides (1, rows)), e.g. ``w.t()`` of a contiguous ``w``."""
    return geometry._stride[0] == 1 and geometry._stride[1] == geometry._shape[0]


def mm_mat1_backward(grad: Any, mat2: Any, mat1: Any, alpha: Any) -> Any:
    """FunctionsManual's ``mm_mat1_backward``: a column-major mat1 gets its gradient column-major too."""
    if _column_major(mat1):
        return _scaled(aten.t.default(aten.mm.default(mat2, aten.t.default(grad))), alpha)
    return _scaled(aten.mm.default(grad, aten.t.default(mat2)), alpha)


def mm_mat2_backward(grad: Any, mat1: Any, mat2: Any, alpha: Any) -> Any:
    """FunctionsManual's ``mm_mat2_backward``: a column-major mat2 gets its gradient column-major too."""
    if _column_major(mat2):
        return _scaled(aten.t.default(aten.mm.default(aten.t.default(grad), mat1)), alpha)
    return _scaled(aten.mm.default(aten.t.default(mat1), grad), alpha)


@derivative("mm", "MmBackward0", ("self", "mat2"), save_inputs=("self", "mat2"))
def _mm(ctx, grads, needs):
    g = grads[0]
    mat2 = mm_mat2_backward(g, ctx.self, ctx.mat2, 1) if needs[1] else None
    return (mm_mat1_backward(g, ctx.mat2, ctx.self, 1) if needs[0] else None, mat2)


@derivative("addmm", "AddmmBackward0", ("self", "mat1", "mat2"),
            save_inputs=("mat1", "mat2", "beta", "alpha"))
def _addmm(ctx, grads, needs):
    g = grads[0]
    mat1 = mm_mat1_backward(g, ctx.mat2, ctx.mat1, ctx.alpha) if needs[1] else None
    mat2 = mm_mat2_backward(g, ctx.mat1, ctx.mat2, ctx.alpha) if needs[2] else None
    return (_scaled(g, ctx.beta) if needs[0] else None, mat1, mat2)


@derivative("bmm", "BmmBackward0", ("self", "mat2"), save_inputs=("self", "mat2"))
def _bmm(ctx, grads, needs):
    g = grads[0]
    mat2 = aten.bmm.default(aten.transpose.int(ctx.self, 1, 2), g) if needs[1] else None
    return (aten.bmm.default(g, aten.transpose.int(ctx.mat2, 1, 2)) if needs[0] else None, mat2)


# --- views ----------------------------------------------------------------------------------

@derivative("t", "TBackward0", ("self",))
def _t(ctx, grads, needs):
    return (aten.t.default(grads[0]),)


@derivative("transpose.int", "TransposeBackward0", ("self",), save_inputs=("dim0", "dim1"))
def _transpose(ctx, grads, needs):
    return (aten.transpose.int(grads[0], ctx.dim0, ctx.dim1),)


@derivative("view", "ViewBackward0", ("self",), save_meta=("self",))
def _view(ctx, grads, needs):
    # grad.reshape(self.sizes()): a view when the grad's strides allow it, else clone + _unsafe_view
    return (aten.reshape.default(grads[0], list(ctx.self._shape)),)


@derivative("_unsafe_view", "UnsafeViewBackward0", ("self",), save_meta=("self",))
def _unsafe_view(ctx, grads, needs):
    return (aten.reshape.default(grads[0], list(ctx.self._shape)),)


@derivative("expand", "ExpandBackward0", ("self",), save_meta=("self",))
def _expand(ctx, grads, needs):
    from .engine import sum_to

    return (sum_to(grads[0], tuple(ctx.self._shape)),)


@derivative("unsqueeze", "UnsqueezeBackward0", ("self",), save_inputs=("dim",))
def _unsqueeze(ctx, grads, needs):
    return (aten.squeeze.dim(grads[0], ctx.dim),)


@derivative("clone", "CloneBackward0", ("self",))
def _clone(ctx, grads, needs):
    return (grads[0],)


# --- nn -------------------------------------------------------------------------------------

@derivative("_softmax", "SoftmaxBackward0", ("self",), save_inputs=("dim",), save_meta=("self",), save_outputs=(0,))
def _softmax(ctx, grads, needs):
    return (aten._softmax_backward_data.default(grads[0], ctx.result, ctx.dim, ctx.self._dtype),)


@derivative("_log_softmax", "LogSoftmaxBackward0", ("self",), save_inputs=("dim",), save_meta=("self",),
            save_outputs=(0,))
def _log_softmax(ctx, grads, needs):
    return (aten._log_softmax_backward_data.default(grads[0], ctx.result, ctx.dim, ctx.self._dtype),)


@derivative("mse_loss", "MseLossBackward0", ("self", "target"), save_inputs=("self", "target", "reduction"))
def _mse_loss(ctx, grads, needs):
    g = grads[0]
    return (
        aten.mse_loss_backward.default(g, ctx.self, ctx.target, ctx.reduction) if needs[0] else None,
        aten.mse_loss_backward.default(g, ctx.target, ctx.self, ctx.reduction) if needs[1] else None,
    )


@derivative("mv", "MvBackward0", ("self", "vec"), save_inputs=("self", "vec"))
def _mv(ctx, grads, needs):
    g = grads[0]
    gs = None
    if needs[0]:  # grad.ger(vec): outer product, which PyTorch computes as grad.reshape(n, 1) * vec
        gs = aten.mul.Tensor(aten.view.default(g, [g._shape[0], 1]), ctx.vec)
    gv = aten.mv.default(aten.t.default(ctx.self), g) if needs[1] else None
    return (gs, gv)


@derivative("dot", "DotBackward0", ("self", "tensor"), save_inputs=("self", "tensor"))
def _dot(ctx, grads, needs):
    g = grads[0]
    return (
        aten.mul.Tensor(g, ctx.tensor) if needs[0] else None,
        aten.mul.Tensor(g, ctx.self) if needs[1] else None,
    )
