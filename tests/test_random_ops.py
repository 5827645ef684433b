"""Random sampling against torch 2.13: ``randint`` (all overloads), ``randint_like``, ``randperm``, ``multinomial``,
``randn`` / ``rand`` with ``generator=``, ``bernoulli`` forms, ``as_strided`` / ``as_strided_`` /
``as_strided_scatter``. Our numbers are not torch's stream (PCG64, not mt19937): values are compared by their
distribution (ranges, permutations, frequencies), and exactly for reproducibility under a seeded ``Generator``;
dtypes, shapes, errors and make_fx graphs in the four configurations are compared with torch's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import fake_mode, trace


def _program(L: Any) -> Any:
    def f(p: Any, x: Any) -> tuple:
        g = L.Generator().manual_seed(3)
        return (L.multinomial(p, 2), L.multinomial(p, 5, replacement=True, generator=g), L.randperm(5),
                L.randint(3, 10, (2, 3)), L.randint(10, (2,), generator=g), L.randn(2, 3, generator=g),
                L.rand(2, generator=g, dtype=L.float64), L.as_strided(x, (2, 2), (1, 2), 1),
                x.clone().as_strided_((3,), (2,)), L.bernoulli(x.sigmoid()), x.clone().bernoulli_(x.sigmoid()),
                x.clone().bernoulli_(0.3), L.as_strided_scatter(x, L.ones(2, 2), (2, 2), (1, 2), 1),
                L.randint_like(x, 5), L.randperm(4, generator=g, dtype=L.float32), L.randint(-2, 2, (3,), generator=g))

    return f


def _inputs(L: Any) -> list:
    return [L.tensor([0.1, 0.5, 0.2, 0.2, 0.3]), L.tensor(np.linspace(-1, 1, 6).astype(np.float32))]


@pytest.mark.parametrize("config", ["post", "pre", "fake", "core"])
def test_graphs_match_torch(torch: Any, config: str) -> None:
    gms = []
    for L in (torch, D):
        args = _inputs(L)
        if config == "fake":
            fm = fake_mode(L)
            args = [fm.from_tensor(a) for a in args]
        gms.append(trace(L, _program(L), args, config))
    assert C.targets(gms[1]) == C.targets(gms[0])
    gms[1].graph.lint()


def test_results_have_torch_dtypes_shapes_and_deterministic_parts(torch: Any) -> None:
    outs = [_program(L)(*_inputs(L)) for L in (torch, D)]
    assert [(str(o.dtype).split(".")[1], tuple(o.shape), o.stride()) for o in outs[1]] == \
        [(str(o.dtype).split(".")[1], tuple(o.shape), o.stride()) for o in outs[0]]
    for i in (7, 8, 12):  # as_strided, as_strided_, as_strided_scatter: no randomness
        C.assert_close(outs[1][i].numpy(), outs[0][i].numpy())


def test_generator_reproducible_and_separate_from_default() -> None:
    def draws(seed: int) -> list:
        g = D.Generator().manual_seed(seed)
        return [D.randint(0, 100, (8,), generator=g).tolist(), D.randperm(8, generator=g).tolist(),
                D.multinomial(D.ones(6), 3, generator=g).tolist(), D.randn(3, generator=g).tolist(),
                D.rand(2, generator=g).tolist(), D.ones(4).bernoulli_(D.full((4,), 0.5), generator=g).tolist()]

    D.manual_seed(0)
    before = D.rand(3).tolist()
    a = draws(5)
    D.manual_seed(0)
    b = draws(5)
    assert a == b != draws(6)
    D.manual_seed(0)
    assert D.rand(3).tolist() == before  # the generator's draws left the default generator alone


def test_distributions() -> None:
    D.manual_seed(1)
    r = D.randint(-3, 4, (20000,)).numpy()
    assert r.min() == -3 and r.max() == 3 and r.dtype == np.int64
    np.testing.assert_allclose(np.bincount(r + 3) / r.size, np.full(7, 1 / 7), atol=0.015)
    p = D.randperm(50).numpy()
    assert sorted(p.tolist()) == list(range(50)) and p.tolist() != list(range(50))
    probs = np.array([0.1, 0.6, 0.3])
    w = D.multinomial(D.tensor(probs * 7), 30000, replacement=True).numpy()
    np.testing.assert_allclose(np.bincount(w, minlength=3) / w.size, probs, atol=0.015)
    first = np.array([D.multinomial(D.tensor(probs), 1).item() for _ in range(3000)])
    np.testing.assert_allclose(np.bincount(first, minlength=3) / first.size, probs, atol=0.03)
    rows = D.multinomial(D.tensor([[1.0, 1.0, 1.0, 0.0], [0.0, 2.0, 1.0, 1.0]]), 3).numpy()
    assert all(len(set(row)) == 3 for row in rows) and 3 not in rows[0] and 0 not in rows[1]
    assert D.multinomial(D.tensor([1.0, 0.0, 0.0]), 1).item() == 0
    b = D.zeros(20000).bernoulli_(D.tensor([0.2, 0.9]).repeat(10000)).numpy().reshape(-1, 2)
    np.testing.assert_allclose(b.mean(axis=0), [0.2, 0.9], atol=0.02)


@pytest.mark.parametrize("case", [
    "randint_empty_range", "randint_low_high", "randint_neg_size", "randperm_neg", "randperm_bool", "mn_dims",
    "mn_too_many", "mn_negative", "mn_zero_sum", "mn_int", "mn_zero_samples", "mn_nan", "mn_repl_negative",
    "mn_repl_inf", "mn_repl_zero_row", "bernoulli_p", "as_strided_oob", "as_strided_neg", "scatter_size",
])
def test_errors_match_torch(torch: Any, case: str) -> None:
    calls = {
        "randint_empty_range": lambda L: L.randint(0, (2,)),
        "randint_low_high": lambda L: L.randint(5, 3, (2,)),
        "randint_neg_size": lambda L: L.randint(5, (-1,)),
        "randperm_neg": lambda L: L.randperm(-1),
        "randperm_bool": lambda L: L.randperm(3, dtype=L.bool),
        "mn_dims": lambda L: L.multinomial(L.ones(2, 2, 2), 1),
        "mn_too_many": lambda L: L.multinomial(L.ones(3), 4),
        "mn_negative": lambda L: L.multinomial(L.tensor([1.0, -1.0]), 1),
        "mn_zero_sum": lambda L: L.multinomial(L.zeros(3), 1),
        "mn_int": lambda L: L.multinomial(L.ones(3, dtype=L.long), 1),
        "mn_zero_samples": lambda L: L.multinomial(L.ones(3), 0),
        "mn_nan": lambda L: L.multinomial(L.tensor([1.0, float("nan")]), 1),
        "mn_repl_negative": lambda L: L.multinomial(L.tensor([1.0, -1.0]), 3, True),
        "mn_repl_inf": lambda L: L.multinomial(L.tensor([1.0, float("inf")]), 3, True),
        "mn_repl_zero_row": lambda L: L.multinomial(L.tensor([[1.0, 0.0], [0.0, 0.0]]), 3, True),
        "bernoulli_p": lambda L: L.ones(3).bernoulli_(L.tensor([0.5, 2.0, 0.1])),
        "as_strided_oob": lambda L: L.ones(6).as_strided_((4, 4), (1, 2)),
        "as_strided_neg": lambda L: L.as_strided(L.ones(6), (2,), (-1,)),
        "scatter_size": lambda L: L.as_strided_scatter(L.ones(6), L.ones(3), (2,), (1,)),
    }
    msgs = []
    for L in (torch, D):
        with pytest.raises((RuntimeError, NotImplementedError)) as info:
            calls[case](L)
        msgs.append((type(info.value).__name__, str(info.value).split("\n")[0]))
    assert msgs[1] == msgs[0]


def test_as_strided_inplace_and_scatter_values(torch: Any) -> None:
    outs = []
    for L in (torch, D):
        x = L.arange(12.0)
        v = x.as_strided((3, 2), (3, 1), 2)
        y = x.clone()
        r = y.as_strided_((2, 3), (1, 2), 1)
        s = L.as_strided_scatter(x.view(3, 4), L.full((2, 2), -1.0), (2, 2), (4, 1), 5)
        outs.append((v.numpy(), (r is y, tuple(y.shape), y.stride(), y.storage_offset()), y.numpy(), s.numpy()))
    C.assert_close(outs[1][0], outs[0][0])
    assert outs[1][1] == outs[0][1]
    C.assert_close(outs[1][2], outs[0][2])
    C.assert_close(outs[1][3], outs[0][3])


def test_as_strided_scatter_backward_matches_torch(torch: Any) -> None:
    def f(L: Any) -> Any:
        def g(x: Any, s: Any) -> Any:
            y = L.as_strided_scatter(x * 2, s, (2, 2), (1, 2), 1)
            (y * L.arange(6.0)).sum().backward()
            return y

        return g

    out, gms = [], []
    for L in (torch, D):
        x, s = L.ones(6, requires_grad=True), L.ones(2, 2, requires_grad=True)
        y = f(L)(x, s)
        out.append([y.detach().numpy(), x.grad.numpy(), s.grad.numpy(), type(y.grad_fn).__name__])
        gms.append(trace(L, f(L), [L.ones(6, requires_grad=True), L.ones(2, 2, requires_grad=True)], "post"))
    C.assert_close(out[1][:3], out[0][:3])
    assert out[1][3] == out[0][3] == "AsStridedScatterBackward0"
    assert C.targets(gms[1]) == C.targets(gms[0])
