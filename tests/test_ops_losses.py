"""make_fx parity and Python surface for losses (binary cross entropy with and without logits, huber,
kl_div, soft margin and margin losses, cosine_similarity, selu / celu / hardsigmoid / glu / threshold / rms_norm,
softsign / tanhshrink / softmin) against torch 2.13.

Each program is written once against ``T`` (torch or dispatcher) and ``F`` (its nn.functional) and traced by
both libraries on the same data: post-dispatch, pre-dispatch, fake and core-ATen-decomposed graphs must call the
same targets in the same order; post-dispatch code must be identical; graphs replayed on fresh inputs must give
eager's values; backward programs must give torch's gradients; ``tracer.compile(backend="numpy")`` must give
eager's values. The nn.functional surface (aten calls, warnings, errors) is compared call for call with torch's.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tests import op_program_checks as K
from tests.test_frontend import _run_both, _split, make_inputs


def p_binary_classifier(T: Any, F: Any) -> Callable[..., Any]:
    """A logistic-regression step: BCE with logits (weight, pos_weight) and its backward."""
    def f(x, w, y, cw):
        logits = x @ w
        target = y.sigmoid()
        loss = F.binary_cross_entropy_with_logits(logits, target, weight=cw.abs(), pos_weight=cw.exp())
        loss.backward()
        return loss, w.grad
    return f


def p_binary_classifier_plain(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, y, cw):
        loss = F.binary_cross_entropy_with_logits(x @ w, y.sigmoid(), reduction="sum")
        loss.backward()
        return loss, w.grad
    return f


def p_bce_probabilities(T: Any, F: Any) -> Callable[..., Any]:
    """BCE on probabilities (sigmoid, then binary_cross_entropy with a broadcast weight) and its backward."""
    def f(x, w, y, cw):
        p = (x @ w).sigmoid()
        loss = F.binary_cross_entropy(p, y.sigmoid(), weight=cw.abs())
        loss.backward()
        return loss, w.grad
    return f


def p_regression(T: Any, F: Any) -> Callable[..., Any]:
    """Huber loss on a linear prediction plus a KL term between log-distributions, and its backward."""
    def f(x, w, y, cw):
        h = x @ w
        loss = F.huber_loss(h, y, delta=0.5) + F.kl_div(y.log_softmax(1), cw.log_softmax(0).expand(3, 4),
                                                        reduction="batchmean", log_target=True)
        loss.backward()
        return loss, w.grad
    return f


def p_regression_huber_kl(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, y, cw):
        h = (x @ w).log_softmax(1)
        loss = F.kl_div(h, y.log_softmax(1), reduction="sum", log_target=True)
        loss.backward()
        return loss, w.grad
    return f


def p_contrastive(T: Any, F: Any) -> Callable[..., Any]:
    """A cosine-similarity contrastive loss: similarities of two embeddings ranked with margins."""
    def f(x, w, y, cw):
        e = x @ w
        sim = F.cosine_similarity(e, y)
        loss = F.margin_ranking_loss(sim, sim.detach().flip(0), cw[:3].sign(), margin=0.1)
        loss.backward()
        return loss, w.grad
    return f


def p_contrastive_forward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, cw):
        s = F.cosine_similarity(x, y, dim=0) + F.cosine_similarity(x, y, 1, 1e-6).sum()
        h = F.hinge_embedding_loss(x, y.sign(), margin=0.5) + F.soft_margin_loss(x, y.sign(), reduction="sum")
        m = F.margin_ranking_loss(x[0], y[0], cw.sign(), reduction="none")
        p = F.poisson_nll_loss(x, y.abs()) + F.poisson_nll_loss(x.exp(), y.abs(), log_input=False)
        c = F.cosine_embedding_loss(x, y, cw[:3].sign(), margin=0.2) + F.cosine_embedding_loss(x[0], y[0], cw[0].sign())
        return s, h, m, p, c
    return f


def p_losses_forward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, cw):
        a = F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), reduction="none")
        b = F.binary_cross_entropy_with_logits(x, y.sigmoid(), pos_weight=cw.abs(), reduction="none")
        c = F.huber_loss(x, y, reduction="sum") + F.huber_loss(x, y, weight=y.abs())
        d = F.kl_div(x, y, reduction="none", log_target=True)
        e = F.soft_margin_loss(x, y)
        return a, b, c, d, e
    return f


def p_activations(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, cw):
        a = F.selu(x) + F.celu(x, 0.5) + F.hardsigmoid(x * 3) + F.softsign(x) + F.tanhshrink(y)
        b = F.softmin(x, 1) * F.glu(y).repeat(1, 2) + F.glu(x[:2], 0).sum()
        c = F.threshold(x, 0.1, 2.0) + F.rms_norm(x, (4,), cw) + F.rms_norm(y, [3, 4], eps=1e-3)
        d = x.clone()
        F.celu(d, 1.5, inplace=True)
        F.threshold(d, 0.0, -1.0, inplace=True)
        F.hardsigmoid(d, inplace=True)
        F.selu(d, inplace=True)
        return a, b, c, d
    return f


def p_activations_backward(T: Any, F: Any) -> Callable[..., Any]:
    """An activation zoo in one chain (each result used once) and its backward."""
    def f(x, w, y, cw):
        h = F.selu(x @ w)
        h = F.celu(h, 0.7)
        h = F.hardsigmoid(h * 4)
        h = F.softsign(h)
        h = F.glu(h.repeat(1, 2))
        h = F.threshold(h, 0.05, -0.5)
        h = F.rms_norm(h, (4,), cw)
        h = F.tanhshrink(h)
        loss = F.softmin(h, 1).mul(y).sum()
        loss.backward()
        return loss, w.grad
    return f


def p_inplace_activations_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, y, cw):
        h = x @ w
        F.threshold(h, 0.1, 0.2, inplace=True)
        h = h * 2
        F.hardsigmoid(h, inplace=True)
        h = h * 3
        F.celu(h, 0.5, inplace=True)
        h = h + 1
        F.selu(h, inplace=True)
        loss = h.sum()
        loss.backward()
        return loss, w.grad
    return f


#: name -> (program, input shapes (float32), inputs requiring grad)
PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "contrastive_forward": (p_contrastive_forward, [(3, 4), (3, 4), (4,)], ()),
    "losses_forward": (p_losses_forward, [(3, 4), (3, 4), (4,)], ()),
    "activations": (p_activations, [(3, 4), (3, 4), (4,)], ()),
}

#: programs that call backward() themselves: gradients compared with torch's (w requires grad)
BACKWARD_PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "binary_classifier": (p_binary_classifier, [(3, 5), (5, 4), (3, 4), (4,)], (1,)),
    "binary_classifier_plain": (p_binary_classifier_plain, [(3, 5), (5, 4), (3, 4), (4,)], (1,)),
    "bce_probabilities": (p_bce_probabilities, [(3, 5), (5, 4), (3, 4), (4,)], (1,)),
    "regression": (p_regression, [(3, 5), (5, 4), (3, 4), (4,)], (1,)),
    "regression_kl": (p_regression_huber_kl, [(3, 5), (5, 4), (3, 4), (4,)], (1,)),
    "contrastive": (p_contrastive, [(3, 5), (5, 4), (3, 4), (4,)], (1,)),
    "activations_backward": (p_activations_backward, [(3, 5), (5, 4), (3, 4), (4,)], (1,)),
    "inplace_activations_backward": (p_inplace_activations_backward, [(3, 5), (5, 4), (3, 4), (4,)], (1,)),
}


#: pre-dispatch joint graphs through a CompositeImplicitAutograd op kept whole whose decomposition made tensors
#: autograd saved (kl_div's exp(target), rms_norm's rsqrt, cosine_similarity's clamped norms, margin_ranking_loss's
#: clamp_min_ input): torch bakes them as ``_tensor_constantN``; ours recomputes them (tracer/saved_inside.py)
_PRE_SAVED_INSIDE = {"regression_kl", "activations_backward", "contrastive"}


def _trace_both(torch: Any, prog: Any, shapes: list, rg: tuple[int, ...], config: str) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return K.trace_both(torch, prog, C.arrays(shapes, 0), rg, config)


def _same_targets(gm_t: Any, gm_o: Any, config: str, name: str) -> None:
    if config == "pre" and name in _PRE_SAVED_INSIDE:
        K.recomputes_saved_inside(gm_t, gm_o)
    else:
        assert C.targets(gm_o) == C.targets(gm_t)


# test_same_targets_as_torch, test_post_dispatch_code_matches_torch, test_replay_on_fresh_inputs_matches_eager,
# test_eager_values_match_torch, test_gradients_match_torch, test_compile_numpy_backend_matches_eager
globals().update(K.program_tests(PROGRAMS, BACKWARD_PROGRAMS, trace=_trace_both, same_targets=_same_targets))


#: pre-dispatch joint graphs of in-place activations: the clone of self that autograd saves for hardsigmoid_ /
#: threshold_ (made below the mode, by ADInplaceOrView) stays a ``_tensor_constantN``, as in torch: not replayable
_PRE_BAKED = {"inplace_activations_backward"}


@pytest.mark.parametrize(("config", "name"), [(c, n) for c in ("post", "pre", "core") for n in sorted(BACKWARD_PROGRAMS)
                                              if not (c == "pre" and n in _PRE_BAKED)])
def test_backward_graph_replays_gradients_on_fresh_inputs(torch: Any, config: str, name: str) -> None:
    """The joint graph, called on fresh data, gives the loss and w's gradient eager autograd gives."""
    prog, shapes, rg = BACKWARD_PROGRAMS[name]
    _, gm_o = _trace_both(torch, prog, shapes, rg, config)
    fresh = C.arrays(shapes, 2)
    expected = C.to_np(list(prog(D, DF)(*C.inputs(D, fresh, rg))))
    C.assert_close(expected, C.to_np(list(gm_o(*C.inputs(D, fresh, rg)))))


# --- kl_div without log_target calls aten.xlogy (the pointwise batch adds it) -------------------------------------


def test_kl_div_without_log_target_records_xlogy(torch: Any) -> None:
    from dispatcher.ops.native_functions import NATIVE_FUNCTIONS

    if not any(op.name == "xlogy.Tensor" for op in NATIVE_FUNCTIONS):
        pytest.skip("aten::xlogy.Tensor is not in this listing (added by the pointwise batch)")

    def prog(T: Any, F: Any) -> Callable[..., Any]:
        def f(x, y):
            return F.kl_div(x.log_softmax(1), y.softmax(1), reduction="batchmean")
        return f

    gm_t, gm_o = _trace_both(torch, prog, [(3, 4), (3, 4)], (), "post")
    assert gm_o.code.strip() == gm_t.code.strip()


# --- Python surface: the aten calls of each function, as torch's makes them ---------------------------------------

SURFACE_EXPRS = """
F.binary_cross_entropy(x.sigmoid(), y.sigmoid()) | F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), reduction='sum')
F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), weight=v.abs()) | F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), reduction='none')
F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), size_average=False)
F.binary_cross_entropy_with_logits(x, y.sigmoid()) | F.binary_cross_entropy_with_logits(x, y, reduction='none')
F.binary_cross_entropy_with_logits(x, y, weight=v, pos_weight=v) | F.binary_cross_entropy_with_logits(x, y, reduce=False)
F.huber_loss(x, y) | F.huber_loss(x, y, delta=2.0) | F.huber_loss(x, y, 'sum') | F.huber_loss(x, y, 'none', 0.5)
F.huber_loss(x, y, weight=y) | F.huber_loss(x, y, reduction='sum', weight=y) | F.huber_loss(x, v)
F.kl_div(x, y, reduction='batchmean', log_target=True) | F.kl_div(x, y, reduction='sum', log_target=True)
F.kl_div(x, y, reduction='none', log_target=True) | F.kl_div(x, y, log_target=True) | F.kl_div(v, v, 'batchmean')
F.kl_div(s0, s0, reduction='batchmean', log_target=True) | F.kl_div(x, y, reduce=False, log_target=True)
F.soft_margin_loss(x, y) | F.soft_margin_loss(x, y, reduction='none') | F.margin_ranking_loss(x, y, y.sign())
F.margin_ranking_loss(x, y, y.sign(), 0.5, reduction='sum') | F.hinge_embedding_loss(x, y.sign())
F.hinge_embedding_loss(x, y.sign(), 2.0, reduction='none') | F.poisson_nll_loss(x, y.abs())
F.poisson_nll_loss(x.exp(), y.abs(), log_input=False, full=True, reduction='sum')
F.cosine_similarity(x, y) | F.cosine_similarity(x, y, 0) | F.cosine_similarity(x, y, eps=1e-3) | F.cosine_similarity(x, v)
F.cosine_embedding_loss(x, y, v[:3].sign()) | F.cosine_embedding_loss(v, v, s0, 0.5, reduction='none')
F.gaussian_nll_loss(x, y, y.abs()) | F.gaussian_nll_loss(x, y, v[:3].abs(), full=True, reduction='sum')
F.gaussian_nll_loss(x, y, 1.5) | F.gaussian_nll_loss(x, y, y[:, 0].abs(), reduction='none')
F.cosine_similarity(x, xi) | F.selu(x) | F.selu(x.clone(), True) | F.celu(x) | F.celu(x, 0.5) | F.celu(x.clone(), 2., True)
F.hardsigmoid(x) | F.hardsigmoid(x.clone(), inplace=True) | F.softsign(x) | F.tanhshrink(x) | F.softmin(x, 1)
F.softmin(x, 0, dtype=T.float64) | F.softmin(x) | F.glu(x) | F.glu(x[:2], 0) | F.threshold(x, 0.5, 1.0)
F.threshold(x, 0, -2, inplace=True) | F.threshold(xi, 1, 7) | F.threshold_(x.clone(), 0.1, 0.0) | F.rms_norm(x, (4,))
F.rms_norm(x, [4], v) | F.rms_norm(x, (3, 4), eps=1e-3) | F.rms_norm(x.double(), (4,)) | F.rms_norm(x.half(), [4])
"""


@pytest.mark.parametrize("expr", _split(SURFACE_EXPRS))
def test_functional_calls_torchs_overloads(torch: Any, expr: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _run_both(torch, expr)


WARNING_EXPRS = """
F.kl_div(x, y, log_target=True) | F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), size_average=False)
F.huber_loss(x, v) | F.softmin(x) | F.soft_margin_loss(x, y, reduce=False)
"""


@pytest.mark.parametrize("expr", _split(WARNING_EXPRS))
def test_functional_warnings_match_torch(torch: Any, expr: str) -> None:
    def warned(lib: Any) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            eval(expr, make_inputs(lib))  # noqa: S307 - test table
        return [f"{w.category.__name__}: {w.message}" for w in caught]

    theirs = warned(torch)
    assert theirs
    assert warned(D) == theirs


ERROR_EXPRS = """
F.binary_cross_entropy(x, y) | F.binary_cross_entropy(x.sigmoid(), v.sigmoid()) | F.binary_cross_entropy(x.sigmoid(), y, reduction='avg')
F.binary_cross_entropy_with_logits(x, v) | F.binary_cross_entropy(xi, xi) | F.huber_loss(x, y, delta=0.0)
F.huber_loss(x, y, weight=v) | F.huber_loss(x, y, reduction='avg') | F.huber_loss(xi, xi)
F.kl_div(x, y, reduction='avg', log_target=True) | F.glu(s0) | F.glu(x[:, :3]) | F.glu(x, 2) | F.glu(xi)
F.celu(x, 0.0) | F.hardsigmoid(xi) | F.threshold(b, 0, 1) | F.rms_norm(x, (3,)) | F.rms_norm(x, (4,), v[:3])
F.rms_norm(x, ()) | F.rms_norm(xi, (4,)) | F.cosine_similarity(xi, xi) | F.margin_ranking_loss(x, v, y)
F.soft_margin_loss(xi, xi) | F.poisson_nll_loss(x, y, reduction='avg') | F.rms_norm(x, 4)
F.cosine_embedding_loss(x, y, y) | F.cosine_embedding_loss(x, y, s0) | F.gaussian_nll_loss(x, y, y)
F.gaussian_nll_loss(x, y, -1.0) | F.gaussian_nll_loss(x, y, v.abs()) | F.gaussian_nll_loss(x, y, y.abs(), reduction='x')
"""


@pytest.mark.parametrize("expr", _split(ERROR_EXPRS))
def test_functional_errors_match_torch(torch: Any, expr: str) -> None:
    K.same_error(torch, expr, make_inputs)
