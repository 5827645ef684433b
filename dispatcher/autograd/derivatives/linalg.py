"""Derivative formulas of the matrix products: ``mm`` / ``addmm``, ``bmm`` / ``baddbmm`` / ``addbmm``, ``mv`` /
``addmv``, ``dot`` / ``vdot``, ``addr``, ``trace``.

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call (``mm_mat1_backward`` / ``mm_mat2_backward``: a column-major input gets its gradient column-major too).
``beta`` / ``alpha`` scale through ``maybe_multiply`` (a ``mul.Scalar`` unless 1); ``grad.ger(vec)`` is an
outer product, ``grad.reshape(n, 1) * vec``; ``addbmm``'s gradients are ``bmm`` with the gradient expanded
over the batch dim.
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ..function import derivative
from .cpp_idioms import _conj, _scaled

aten = namespace("aten")


# --- mm, addmm, bmm, baddbmm, addbmm --------------------------------------------------------------

def _column_major(geometry: Any) -> bool:
    """A matrix stored column by column (strides (1, rows)), e.g. ``w.t()`` of a contiguous ``w``."""
    return geometry._stride[0] == 1 and geometry._stride[1] == geometry._shape[0]


def mm_mat1_backward(grad: Any, mat2: Any, mat1: Any, alpha: Any) -> Any:
    """FunctionsManual's ``mm_mat1_backward``: a column-major mat1 gets its gradient column-major too."""
    if _column_major(mat1):
        return _scaled(aten.t.default(aten.mm.default(_conj(mat2), aten.t.default(grad))), alpha)
    return _scaled(aten.mm.default(grad, _conj(aten.t.default(mat2))), alpha)


def mm_mat2_backward(grad: Any, mat1: Any, mat2: Any, alpha: Any) -> Any:
    """FunctionsManual's ``mm_mat2_backward``: a column-major mat2 gets its gradient column-major too."""
    if _column_major(mat2):
        return _scaled(aten.t.default(aten.mm.default(aten.t.default(grad), _conj(mat1))), alpha)
    return _scaled(aten.mm.default(_conj(aten.t.default(mat1)), grad), alpha)


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


@derivative("baddbmm", "BaddbmmBackward0", ("self", "batch1", "batch2"),
            save_inputs=("batch1", "batch2", "beta", "alpha"))
def _baddbmm(ctx, grads, needs):
    g, alpha = grads[0], ctx.alpha
    b1 = _scaled(aten.bmm.default(g, aten.transpose.int(ctx.batch2, 1, 2)), alpha) if needs[1] else None
    b2 = _scaled(aten.bmm.default(aten.transpose.int(ctx.batch1, 1, 2), g), alpha) if needs[2] else None
    return (_scaled(g, ctx.beta) if needs[0] else None, b1, b2)


@derivative("addbmm", "AddbmmBackward0", ("self", "batch1", "batch2"),
            save_inputs=("batch1", "batch2", "beta", "alpha"))
def _addbmm(ctx, grads, needs):
    g = grads[0]
    b1, b2 = ctx.batch1, ctx.batch2
    sizes = [b1._shape[0], b1._shape[1], b2._shape[2]]
    g_b1 = g_b2 = None
    if needs[1]:
        expanded = aten.expand.default(aten.unsqueeze.default(g, 0), sizes)
        g_b1 = _scaled(aten.bmm.default(expanded, aten.transpose.int(b2, 1, 2)), ctx.alpha)
    if needs[2]:
        t1 = aten.transpose.int(b1, 1, 2)
        g_b2 = _scaled(aten.bmm.default(t1, aten.expand.default(aten.unsqueeze.default(g, 0), sizes)), ctx.alpha)
    g_self = _scaled(g, ctx.beta) if needs[0] else None
    return (g_self, g_b1, g_b2)


# --- mv, addmv, dot, vdot, addr, trace ------------------------------------------------------------

@derivative("mv", "MvBackward0", ("self", "vec"), save_inputs=("self", "vec"))
def _mv(ctx, grads, needs):
    g = grads[0]
    gs = None
    if needs[0]:  # grad.ger(vec): CompositeImplicitAutograd, outer -> grad.reshape(n, 1) * vec
        gs = aten.ger.default(g, ctx.vec)
    gv = aten.mv.default(aten.t.default(ctx.self), g) if needs[1] else None
    return (gs, gv)


@derivative("addmv", "AddmvBackward0", ("self", "mat", "vec"), save_inputs=("mat", "vec", "beta", "alpha"))
def _addmv(ctx, grads, needs):
    g = grads[0]
    g_mat = g_self = g_vec = None
    if needs[1]:  # grad.ger(vec) * alpha: ger is outer, grad.reshape(n, 1) * vec
        g_mat = _scaled(aten.mul.Tensor(aten.view.default(g, [g._shape[0], 1]), ctx.vec), ctx.alpha)
    if needs[0]:
        g_self = _scaled(g, ctx.beta)
    if needs[2]:
        g_vec = _scaled(aten.mv.default(aten.t.default(ctx.mat), g), ctx.alpha)
    return (g_self, g_mat, g_vec)


@derivative("dot", "DotBackward0", ("self", "tensor"), save_inputs=("self", "tensor"))
def _dot(ctx, grads, needs):
    g = grads[0]
    return (
        aten.mul.Tensor(g, ctx.tensor) if needs[0] else None,
        aten.mul.Tensor(g, ctx.self) if needs[1] else None,
    )


@derivative("vdot", "VdotBackward0", ("self", "other"), save_inputs=("self", "other"))
def _vdot(ctx, grads, needs):
    g = grads[0]
    g_other = aten.mul.Tensor(g, ctx.self) if needs[1] else None
    g_self = aten.mul.Tensor(g, ctx.other) if needs[0] else None
    return (g_self, g_other)


@derivative("addr", "AddrBackward0", ("self", "vec1", "vec2"), save_inputs=("vec1", "vec2", "beta", "alpha"))
def _addr(ctx, grads, needs):
    g = grads[0]
    g_self = _scaled(g, ctx.beta) if needs[0] else None
    g_vec1 = _scaled(aten.mv.default(g, ctx.vec2), ctx.alpha) if needs[1] else None
    g_vec2 = _scaled(aten.mv.default(aten.t.default(g), ctx.vec1), ctx.alpha) if needs[2] else None
    return (g_self, g_vec1, g_vec2)


@derivative("trace", "TraceBackward0", ("self",), save_meta=("self",))
def _trace(ctx, grads, needs):
    return (aten.trace_backward.default(grads[0], list(ctx.self._shape)),)


@derivative("_trilinear", "TrilinearBackward0", ("i1", "i2", "i3"),
            save_inputs=("i1", "i2", "i3", "expand1", "expand2", "expand3", "sumdim"))
def _trilinear(ctx, grads, needs):
    """FunctionsManual.cpp's ``_trilinear_backward``: each input's gradient is a _trilinear of the gradient with the
    two other inputs, the roles of ``sumdim`` and that input's ``expand`` dims exchanged."""
    g = grads[0]
    e1, e2, e3, sd = list(ctx.expand1), list(ctx.expand2), list(ctx.expand3), list(ctx.sumdim)
    g1 = aten._trilinear.default(g, ctx.i2, ctx.i3, sd, e2, e3, e1) if needs[0] else None
    g2 = aten._trilinear.default(ctx.i1, g, ctx.i3, e1, sd, e3, e2) if needs[1] else None
    g3 = aten._trilinear.default(ctx.i1, ctx.i2, g, e1, e2, sd, e3) if needs[2] else None
    return (g1, g2, g3)


# --- linalg_pinv, linalg_lstsq (wt-lstsq) -------------------------------------------------------------------------

def _mH(t: Any) -> Any:  # noqa: N802 - torch's name
    return aten.mH.default(t)


def pinv_backward(grad: Any, pinvA: Any, A: Any) -> Any:  # noqa: N803 - FunctionsManual's names
    """FunctionsManual's ``pinv_backward``: the products arranged to keep the matrices smallest (m <= n or not).
    The sum's terms are computed last to first, as torch's build evaluates the C++ expression."""
    m, n = A._shape[-2], A._shape[-1]
    mm_ = aten.matmul.default
    pinvAh = _mH(pinvA)  # noqa: N806
    gradh = _mH(grad)
    if m <= n:
        K = mm_(gradh, pinvA)  # noqa: N806
        KpinvAh = mm_(K, pinvAh)  # noqa: N806
        t4 = mm_(mm_(pinvAh, pinvA), aten.sub.Tensor(gradh, mm_(K, A)))
        t3 = mm_(mm_(A, pinvA), KpinvAh)
        t1 = aten.neg.default(_mH(mm_(pinvA, K)))
        return aten.add.Tensor(aten.sub.Tensor(aten.add.Tensor(t1, KpinvAh), t3), t4)
    K = mm_(pinvA, gradh)  # noqa: N806
    pinvAhK = mm_(pinvAh, K)  # noqa: N806
    t4 = mm_(mm_(pinvAhK, pinvA), A)
    t2 = mm_(mm_(aten.sub.Tensor(gradh, mm_(A, K)), pinvA), pinvAh)
    t1 = aten.neg.default(_mH(mm_(K, pinvA)))
    return aten.sub.Tensor(aten.add.Tensor(aten.add.Tensor(t1, t2), pinvAhK), t4)


@derivative("linalg_pinv.atol_rtol_tensor", "LinalgPinvBackward0", ("self",), save_inputs=("self",),
            no_requires_grad=("atol", "rtol"),
            save_outputs=(0,))
def _linalg_pinv(ctx, grads, needs):
    return (pinv_backward(grads[0], ctx.result, ctx.self),)


@derivative("linalg_lstsq", "LinalgLstsqBackward0", ("self", "b"), save_inputs=("self", "b"),
            save_outputs=(0,), non_differentiable_outputs=(2, 3))
def _linalg_lstsq(ctx, grads, needs):
    """``linalg_lstsq_backward(grads[0], grads[1], self, b, solution, mask)``: the solution is ``pinv(A) B``
    (``pinv_backward`` for A, ``pinv(A)^H gX`` for B); defined non-empty residuals add ``2 (gL * r) X^H`` and
    ``-2 gL * r`` with ``r = A X - B``. A vector right-hand side is made a one-column matrix and back."""
    from ...ops.linalg_lstsq import is_vector_rhs

    gX_, gL = grads[0], grads[1]  # noqa: N806
    if gX_ is None and gL is None:
        return (None, None)
    A, B_, X_ = ctx.self, ctx.b, ctx.result0  # noqa: N806 - unpacked first, as the generated node does
    vector = is_vector_rhs(A._shape, B_._shape)

    def to_matrix(t: Any) -> Any:
        return aten.unsqueeze.default(t, -1) if vector else t

    def to_vector(t: Any) -> Any:
        return aten.squeeze.dim(t, -1) if vector else t

    a_grad = b_grad = None
    B = to_matrix(B_)  # noqa: N806
    if gX_ is not None:
        gX = to_matrix(gX_)  # noqa: N806
        pinvA = aten.linalg_pinv.atol_rtol_tensor(A)  # noqa: N806
        if needs[0]:
            a_grad = pinv_backward(aten.matmul.default(gX, _mH(B)), pinvA, A)
        if needs[1]:
            b_grad = to_vector(aten.matmul.default(_mH(pinvA), gX))
    if gL is not None and gL.numel() > 0:
        X = to_matrix(X_)  # noqa: N806
        r = aten.sub.Tensor(aten.matmul.default(A, X), B)
        gL_ = aten.unsqueeze.default(gL, -2)  # noqa: N806
        if needs[0]:
            term = aten.mul.Scalar(aten.matmul.default(aten.mul.Tensor(gL_, r), _mH(X)), 2)
            a_grad = term if a_grad is None else aten.add.Tensor(a_grad, term)
        if needs[1]:
            term = to_vector(aten.mul.Tensor(aten.mul.Scalar(gL_, -2), r))
            b_grad = term if b_grad is None else aten.add.Tensor(b_grad, term)
    return (a_grad, b_grad)
