"""make_fx parity for programs using in-place unary ops, rounding and log variants and more (in-place unary ops, rounding / log variants, binary and
ternary pointwise ops, activations and losses) against torch 2.13.

Each program is written once against ``T`` (torch or dispatcher) and ``F`` (its nn.functional) and traced by
both libraries on the same data: post-dispatch, pre-dispatch, fake and core-ATen-decomposed graphs must call the
same targets in the same order; post-dispatch code must be identical; graphs replayed on fresh inputs must give
eager's values; backward programs must give torch's gradients; ``tracer.compile(backend="numpy")`` must give
eager's values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tests import op_program_checks as K


def p_inplace_unary(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        a = x.clone()
        a.exp_()
        a.log_()
        b = y.abs()
        b.sqrt_().sin_()
        c = (x * y).sigmoid_()
        c.tanh_().cos_().neg_()
        d = (x - y).abs_().clamp_(0.1, 1.5)
        return a + b + c + d
    return f


def p_inplace_unary_backward(T: Any, F: Any) -> Callable[..., Any]:
    # one chain (no tensor used twice: torch's pre-dispatch trace accumulates repeated uses with add_, ours with add)
    def f(x, w):
        h = x @ w
        h.sigmoid_()  # each in-place op on a tensor no saved value depends on
        h = h * 2
        h.exp_()
        h = h + 0.5
        h.sin_()
        h = h * 1.5
        h.clamp_(-0.5, 0.8)
        h.abs_()
        h = h + 0.1
        h.sqrt_()
        h = h * 1
        h.tanh_()
        h = h - 0.5
        h.cos_()
        h = h * 2
        h.neg_()
        h = h + 3
        h.log_()
        loss = h.sum()
        loss.backward()
        return loss, w.grad
    return f


def p_inplace_modifies_saved(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        h = (x @ w).tanh_()
        h.cos_()  # overwrites what tanh_'s backward saved
        h.sum().backward()
        return w.grad
    return f


def p_unary_more(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        r = T.floor(x * 3) + T.ceil(y * 3) + x.round() + T.round(y * 10, decimals=-1) + (x * 7).round(decimals=1)
        r = r + T.trunc(x - y) + y.fix()
        s = T.log1p(x) + T.expm1(y) + x.log2() + T.sinh(y) + x.cosh() + T.square(x - y)
        z = x.log() - 1  # finite
        mask = T.isfinite(z) * T.logical_not(T.isinf(z)) * T.isnan(z).logical_not()
        return T.where(mask, r + s, s), T.square(mask)
    return f


def p_unary_more_backward(T: Any, F: Any) -> Callable[..., Any]:
    # one leaf per branch, each tensor used once (see p_inplace_unary_backward)
    def f(x, w1, w2, w3, w4):
        a = T.log2(T.log1p((x @ w1).abs()).expm1() + 1)
        b = T.square((x @ w2) * 0.05).sinh().cosh()
        c = T.floor(x @ w3).round(decimals=2)
        d = T.trunc(T.ceil(T.round(x @ w4)))
        loss = (a + b + c + d).sum()
        loss.backward()
        return loss, w1.grad, w2.grad, w3.grad, w4.grad
    return f


def p_binary_more(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, z):
        a = T.clamp_min(x, 0.1) + T.clamp_max(y, z) + x.clamp_min(z) + y.clamp_max(0.5)
        b = T.fmod(x, y) + x.fmod(1.5) + T.remainder(x, z) + y % 0.7 + x % y + 2.0 % y + T.remainder(3, z)
        c = T.addcmul(x, y, z) + T.addcdiv(x, y, z, value=0.5) + x.addcmul(y, z, value=2) + y.addcdiv(x, z)
        m = T.logical_and(x > 1, y < 1.5).logical_or(T.logical_or(z > 1, x < 0.7))
        m2 = (x > 1.2).logical_and_(y > 0.8)
        return T.where(m, a + b, c), m2
    return f


def p_binary_more_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w1, w2, w3, w4, w5, w6):  # one leaf per branch, each tensor used once
        a = T.clamp_min(x @ w1, 0.5 * x @ w2)
        b = T.fmod(x @ w3, 0.6).remainder(x @ w4 + 2)
        c = T.addcmul(x @ w5, x, x, value=0.5)
        d = T.addcdiv(x * 2, x @ w6, x + 3, value=2).clamp_max(1.5)
        loss = (a + b + c + d).sum()
        loss.backward()
        return loss, w1.grad, w2.grad, w3.grad, w4.grad, w5.grad, w6.grad
    return f


def p_activations(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        a = F.leaky_relu(x) + F.leaky_relu(y, 0.2) + F.elu(x) + F.elu(y, alpha=0.5) + F.softplus(x)
        b = F.softplus(y, beta=2) + F.softplus(x, 2, 1.5) + F.hardtanh(x) + F.hardtanh(y, -0.5, 0.5) + F.relu6(x * 4)
        c = F.hardswish(x * 3) + y + F.logsigmoid(x - y) + F.mish(x)
        F.mish(c, inplace=True)
        F.leaky_relu(c, 0.1, inplace=True)
        d = a * 1
        F.elu(d, inplace=True)
        F.hardtanh(d, -2.0, 2.0, inplace=True)
        e = b * 1
        F.relu6(e, inplace=True)
        F.hardswish(e, inplace=True)
        return c + d + e
    return f


def p_activations_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w1, w2, w3, w4, w5, w6, w7, w8):  # one leaf per branch, each tensor used once
        a = F.leaky_relu(x @ w1, 0.2)
        b = F.elu(x @ w2)
        c = F.softplus(x @ w3, beta=2)
        d = F.hardtanh(x @ w4, -0.5, 0.5)
        e = F.relu6((x @ w5) * 4)
        g = F.hardswish((x @ w6) * 3)
        h = F.logsigmoid(x @ w7) + F.mish(x @ w8)
        loss = (a + b + c + d + e + g + h).sum()
        loss.backward()
        return loss, w1.grad, w2.grad, w3.grad, w4.grad, w5.grad, w6.grad, w7.grad, w8.grad
    return f


def p_losses(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, w):
        # (no weight=: torch's F.l1_loss drops it when a torch function mode is active, as under make_fx)
        a = F.l1_loss(x, y) + F.l1_loss(x, y, reduction="sum") + F.l1_loss(x, w * y)
        b = F.smooth_l1_loss(x, y) + F.smooth_l1_loss(x, y, beta=0.5, reduction="sum") + F.smooth_l1_loss(x, y, beta=0.0)
        c = F.smooth_l1_loss(x, y, reduction="none") + F.l1_loss(x, y, reduction="none")
        return a + b + c
    return f


def p_losses_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w1, w2, w3, t):
        a = F.l1_loss(x @ w1, t)
        b = F.smooth_l1_loss(x @ w2, t * 1, beta=0.5)
        c = F.smooth_l1_loss(x @ w3, t * 2, reduction="sum")
        loss = a + b + c
        loss.backward()
        return loss, w1.grad, w2.grad, w3.grad
    return f


#: name -> (program, input shapes (float32, or ("i64", shape, high)), inputs requiring grad)
PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "inplace_unary": (p_inplace_unary, [(3, 4), (3, 4)], ()),
    "unary_more": (p_unary_more, [(3, 4), (3, 4)], ()),
    "binary_more": (p_binary_more, [(3, 4), (3, 4), (3, 4)], ()),
    "activations": (p_activations, [(3, 4), (3, 4)], ()),
    "losses": (p_losses, [(3, 4), (3, 4), (3, 4)], ()),
}

#: programs that call backward() themselves: gradients compared with torch's (w requires grad)
BACKWARD_PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "inplace_unary_backward": (p_inplace_unary_backward, [(3, 4), (4, 5)], (1,)),
    "unary_more_backward": (p_unary_more_backward, [(3, 4)] + [(4, 5)] * 4, (1, 2, 3, 4)),
    "binary_more_backward": (p_binary_more_backward, [(4, 4)] * 7, (1, 2, 3, 4, 5, 6)),
    "activations_backward": (p_activations_backward, [(4, 4)] * 9, (1, 2, 3, 4, 5, 6, 7, 8)),
    "losses_backward": (p_losses_backward, [(4, 4)] * 5, (1, 2, 3)),
}

_BACKWARD_FUNCTIONS = {prog for prog, _, _ in BACKWARD_PROGRAMS.values()}

def _positive(arrays: list, only_first: bool = False) -> list:
    """Inputs kept away from 0 (log / sqrt of the programs stay finite); ``only_first``: the other inputs (the
    weights of the backward programs) keep both signs, so every branch of the activations is reached."""
    return [np.abs(a) + np.float32(0.5) if isinstance(a, np.ndarray) and a.dtype.kind == "f" and (i == 0 or not only_first)
            else a for i, a in enumerate(arrays)]


def _trace_both(torch: Any, prog: Any, shapes: list, rg: tuple[int, ...], config: str) -> tuple[Any, Any]:
    arrays = _positive(C.arrays(shapes, 0), only_first=prog in _BACKWARD_FUNCTIONS)
    return K.trace_both(torch, prog, arrays, rg, config)


ALL = {**PROGRAMS, **BACKWARD_PROGRAMS}


#: pre-dispatch graphs calling backward through a CompositeImplicitAutograd op that saves a tensor inside
#: (``l1_loss`` saves ``self - target`` for ``abs``, ``log_sigmoid`` the buffer of ``log_sigmoid_forward``): torch
#: bakes it into a ``_tensor_constant``, ours recomputes it (tracer/saved_inside.py; see tests/test_make_fx.py)
_PRE_SAVED_INSIDE = {"losses_backward", "activations_backward"}


@pytest.mark.parametrize(("config", "name"), [(c, n) for c in K.CONFIGS for n in sorted(ALL)])
def test_same_targets_as_torch(torch: Any, config: str, name: str) -> None:
    prog, shapes, rg = ALL[name]
    gm_t, gm_o = _trace_both(torch, prog, shapes, rg, config)
    if config == "pre" and name in _PRE_SAVED_INSIDE:
        K.recomputes_saved_inside(gm_t, gm_o)
    else:
        assert C.targets(gm_o) == C.targets(gm_t)
    gm_o.graph.lint()


@pytest.mark.parametrize("name", sorted(ALL))
def test_post_dispatch_code_matches_torch(torch: Any, name: str) -> None:
    prog, shapes, rg = ALL[name]
    gm_t, gm_o = _trace_both(torch, prog, shapes, rg, "post")
    assert gm_o.code.strip() == gm_t.code.strip()


@pytest.mark.parametrize(("config", "name"), [(c, n) for c in ("post", "core") for n in sorted(PROGRAMS)])
def test_replay_on_fresh_inputs_matches_eager(torch: Any, config: str, name: str) -> None:
    prog, shapes, rg = PROGRAMS[name]
    _, gm_o = _trace_both(torch, prog, shapes, rg, config)
    K.replay_matches_eager(gm_o, prog, _positive(C.arrays(shapes, 1)), rg)


@pytest.mark.parametrize("name", sorted(BACKWARD_PROGRAMS))
def test_gradients_match_torch(torch: Any, name: str) -> None:
    prog, shapes, rg = BACKWARD_PROGRAMS[name]
    K.same_eager_results(torch, prog, _positive(C.arrays(shapes, 3), only_first=True), rg)


def test_backward_through_modified_saved_result_raises_as_torch(torch: Any) -> None:
    arrays = _positive(C.arrays([(3, 4), (4, 5)], 0), only_first=True)
    with pytest.raises(RuntimeError) as theirs:
        p_inplace_modifies_saved(torch, torch.nn.functional)(*C.inputs(torch, arrays, (1,)))
    with pytest.raises(RuntimeError) as ours:
        p_inplace_modifies_saved(D, DF)(*C.inputs(D, arrays, (1,)))
    assert str(ours.value).split(". Hint")[0] == str(theirs.value).split(". Hint")[0]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compile_numpy_backend_matches_eager(name: str) -> None:
    prog, shapes, rg = PROGRAMS[name]
    K.compile_matches_eager(prog, _positive(C.arrays(shapes, 4)), rg)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_hardswish_backward_at_its_boundaries_matches_torch(torch: Any, dtype: str) -> None:
    """torch's CPU kernel: 0 for x <= -3, grad for x >= 3 (so exactly -3 gives 0 and exactly 3 gives grad), also for
    an integer ``self`` (promoted to the gradient's float dtype); the gradient of hardswish at the same points."""
    xs = [-4.0, -3.0, -2.5, 0.0, 2.5, 3.0, 4.0]
    ours = D.ops.aten.hardswish_backward(D.ones(7), D.tensor(xs).to(getattr(D, dtype)))
    theirs = torch.ops.aten.hardswish_backward(torch.ones(7), torch.tensor(xs).to(getattr(torch, dtype)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    if dtype != "int64":
        x_o = D.tensor(xs, dtype=getattr(D, dtype), requires_grad=True)
        x_t = torch.tensor(xs, dtype=getattr(torch, dtype), requires_grad=True)
        DF.hardswish(x_o).sum().backward()
        torch.nn.functional.hardswish(x_t).sum().backward()
        np.testing.assert_allclose(x_o.grad.numpy(), x_t.grad.numpy(), rtol=1e-6)
