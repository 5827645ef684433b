"""make_fx against torch on programs outside the corpus, in every configuration.

Written after the corpus, to catch what the corpus does not exercise: detach under the core-aten table (the
decomposition's ``alias`` must not make ``detach``'s output an autograd view), the transpose properties (``x.T``,
``x.mT``, ``x.H`` ... are ops of their own before dispatch: ``aten.numpy_T``, ``aten.mT``), slices that change
nothing (``x[:, 0:n]`` records ``alias``, as ``x[:, :]``), dtype conversions, masked
attention, chunk / stack, max with dim, factories, boolean-mask setitem, embedding with index tensors, gradients
meeting at one input (``add_`` into a buffer only the engine holds, as PyTorch's InputBuffer), grads through
``no_grad`` regions, a training step updating parameters in place, copy_'s gradient (``grad.to(src.options())``),
gather / index_select gradients (their CompositeImplicitAutograd helpers). Each program is traced by both
libraries on the same data; the ``call_function`` target sequences (``str(node.target)``) must be equal, the
post-dispatch code must be equal character for character, and the graph, called on fresh inputs, must match eager
(pre-dispatch: with the inputs requiring grad as traced).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import op_program_checks as K
from tracer import make_fx
from tracer.decompositions import core_aten_decompositions


def _programs(T: Any, F: Any) -> dict[str, tuple[Any, list, tuple[int, ...]]]:
    progs: dict[str, tuple[Any, list, tuple[int, ...]]] = {}

    def reg(shapes: list, rg: tuple[int, ...] = ()) -> Any:
        def deco(f: Any) -> Any:
            progs[f.__name__] = (f, shapes, rg)
            return f
        return deco

    @reg([(3, 4), (4, 5)], rg=(0, 1))
    def detach_mix(x, w):
        h = x @ w
        g = h.detach() * 2
        loss = (h * g).sum()
        loss.backward()
        return loss, x.grad, w.grad

    @reg([(2, 5, 8), (8, 8), (8, 8), (8, 8)])
    def masked_attention(x, wq, wk, wv):
        q, k, v = x @ wq, x @ wk, x @ wv
        s = q @ k.transpose(-2, -1) / 8 ** 0.5
        mask = T.ones(5, 5).bool()
        s = s.masked_fill(~mask, float("-inf"))
        return F.softmax(s, dim=-1) @ v

    @reg([(3, 4)])
    def dtype_conversions(x):
        i = (x > 0).long()
        d = x.double() * 2
        return i.sum(), d.float(), x.to(T.float64).mean(), (x * i).int()

    @reg([(4, 6)])
    def chunk_stack_cat(x):
        a, b, c = x.chunk(3, dim=1)
        return T.stack([a, b, c], dim=0).sum(0), T.cat((a, c), 1)

    @reg([(5, 3)])
    def max_with_dim(x):
        v, i = x.max(dim=0)
        return v, i, x.argmax(), x.amax(1, keepdim=True), x.min()

    @reg([(6,)])
    def factories(x):
        r = T.arange(6, dtype=T.float32)
        f = T.full((6,), 2.5)
        return x * r + f - T.zeros_like(x), T.ones(2, 3)

    @reg([(4, 4)])
    def boolean_mask_setitem(x):
        y = x.clone()
        y[y < 0] = 0.0
        y[:, 0] = y[:, 1] * 2
        return y

    @reg([(10, 4), (3,)])
    def embedding_with_index_tensor(emb, other):
        idx = T.tensor([1, 4, 7])
        return F.embedding(idx, emb).mean(0) + other.sum(), emb[idx].sum()

    @reg([(4, 3)])
    def scalar_and_tensor_arithmetic(x):
        s = x.sum()
        return x / s, x - x.mean(0), -x, x.pow(3), 2 ** x, x.abs().sqrt()

    @reg([(2, 4)], rg=(0,))
    def grad_through_no_grad(x):
        y = x.exp()
        with T.no_grad():
            z = y * 3
        (g,) = T.autograd.grad((y * z).sum(), [x])
        return g

    @reg([(4, 8), (8, 16), (16,), (16, 8), (8,)], rg=(1, 2, 3, 4))
    def two_layer_train_step(x, w1, b1, w2, b2):
        h = F.gelu(x @ w1 + b1)
        loss = ((h @ w2 + b2 - x) ** 2).mean()
        loss.backward()
        with T.no_grad():
            for p in (w1, b1, w2, b2):
                p -= 0.01 * p.grad
        return loss

    @reg([(2, 3, 4)])
    def expand_where(x):
        m = x.mean(-1, keepdim=True).expand_as(x)
        return T.where(x > m, x, m), x.mT

    # gradients meeting at one input: PyTorch's engine adds into the first one in place (add_) when nothing else
    # can see it (no dispatch mode active, a dense tensor only the buffer holds), so pre-dispatch graphs show add_
    @reg([(4, 4), (4, 4)], rg=(1,))
    def tied_weight(x, w):
        y = (x @ w) @ w
        y.sum().backward()
        return w.grad

    @reg([(4, 4), (4, 4)], rg=(1,))
    def three_branches(x, w):
        h = x @ w
        y = h.relu() + h.sin() * (x @ w).cos()
        (g,) = T.autograd.grad(y.sum(), [w])
        return g

    @reg([(4, 4), (4, 4)], rg=(0, 1))
    def residual_backward(x, w):
        y = x + F.relu(x @ w)
        y.sum().backward()
        return x.grad, w.grad

    @reg([(2, 3), (2, 2)], rg=(0, 1))
    def cat_backward(x, y):
        z = T.cat([x, y], dim=1) * 2  # cat's backward narrows the gradient (narrow before dispatch, slice after)
        return T.autograd.grad(z.sum(), [x, y])

    @reg([(3, 4)])
    def slices_that_change_nothing(x):
        y = x.clone()
        y[:, 0:4] = 1.0  # start 0, step 1, stop at the end: no slice recorded (TensorIndexing.h applySlice)
        y[0:3, 1] = 2.0
        return x[:, 0:4], x[0:9, 1], x[1:, :], x[:, -4:], x[:, 0:4:2], x[:], x[:2, :3], y

    @reg([(4, 3), (4, 3)], rg=(0, 1))
    def loss_backward_buffers(a, b):
        # two gradients meet at ``a``: the first came out of a backward kernel (mse_loss_backward), a fresh tensor
        # the engine alone holds, so PyTorch's InputBuffer adds the second into it in place (add_)
        loss = F.mse_loss(a.tanh(), b) + F.smooth_l1_loss(a, b)
        loss.backward()
        return a.grad, b.grad

    @reg([(3, 4)], rg=(0,))
    def setitem_then_backward(x):
        # CopySlices over copy_: copy_'s formula calls grad.to(src.options()), recorded (to.dtype_layout) before
        # dispatch only; the two gradients of ``clone`` meet in place
        y = x.clone()
        y[1] = y[1] * 2
        y.t()[0].mul_(3)
        z = y.unsqueeze(-1).squeeze(-1).narrow(1, 1, 2)
        z.sum().backward()
        return x.grad, z

    @reg([(5, 3), (4,)], rg=(0,))
    def gather_index_select_backward(w, i):
        # the formulas call the CompositeImplicitAutograd helpers gather_backward and index_select_backward, kept
        # whole in a pre-dispatch graph
        idx = (i.abs() * 10).long() % 5
        a = w.index_select(0, idx)
        b = T.gather(w, 0, idx[:3].view(3, 1).expand(3, 3))
        (a.sum() + b.pow(2).sum()).backward()
        return w.grad

    @reg([(3, 4), (2, 3, 4)])
    def transpose_properties(m, b):
        return m.H @ m + m.T.sum(), b.mT.sum(0) + m.mH, m.adjoint().contiguous()

    return progs


_NAMES = sorted(_programs(D, DF))


@pytest.mark.parametrize("config", list(K.CONFIGS))
@pytest.mark.parametrize("name", _NAMES)
def test_same_graph_as_torch_and_replays(torch: Any, name: str, config: str) -> None:
    K.same_graph_and_replay(torch, _programs, name, config)


def test_detach_under_a_decomposition_table_is_not_a_view(torch: Any) -> None:
    """The core-aten table decomposes detach into alias; the result still does not require grad (torch's detach
    kernel makes its output a non-differentiable view)."""
    seen = {}

    def f(x):
        y = x.detach()
        seen["ours"] = (y.requires_grad, y._base is None, y.is_leaf)
        return y * 2

    make_fx(f, decomposition_table=core_aten_decompositions())(D.randn(3).requires_grad_())
    y = torch.randn(3, requires_grad=True).detach()
    assert seen["ours"] == (y.requires_grad, y._base is None, y.is_leaf) == (False, True, True)
    np.testing.assert_equal(seen["ours"], (False, True, True))


def test_the_cyclic_gc_is_paused_during_a_trace_and_restored() -> None:
    import gc

    seen = []

    def f(x):
        seen.append(gc.isenabled())
        return x + 1

    def bad(x):
        raise ValueError("user error")

    assert gc.isenabled()
    make_fx(f)(D.randn(2))
    with pytest.raises(ValueError, match="user error"):
        make_fx(bad)(D.randn(2))
    assert gc.isenabled() and seen == [False]
    gc.disable()
    try:
        make_fx(f)(D.randn(2))
        assert not gc.isenabled()  # a caller's own choice is kept
    finally:
        gc.enable()
