"""``Tensor.random_`` (``random_.from`` / ``.to`` / default), ``exponential_``, ``geometric_``, ``cauchy_``,
``log_normal_`` and ``torch.randint``'s keyword forms against torch 2.13.

Our numbers are not torch's stream (PCG64, not mt19937): values are checked by their distribution (ranges and
moments of a few thousand seeded draws, against the distributions' own figures), and exactly for reproducibility
under a seed; dtypes, shapes, strides, errors (class and message, CPU and meta), warnings, autograd nodes and
make_fx graphs (post / pre-dispatch / fake / core-aten, replayed) are compared with torch's.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import fake_mode, trace

# --- errors ------------------------------------------------------------------------------------------------------

ERRORS = {
    # random_: from < to, the dtype's limits (its C++ type names), the float casts, the dtypes each path handles
    "from_ge_to": lambda L: L.empty(3).random_(5, 3),
    "to_negative": lambda L: L.empty(3).random_(-1),
    "to_zero_aten": lambda L: L.ops.aten.random_.to(L.empty(3), 0),
    "uint8_from": lambda L: L.empty(3, dtype=L.uint8).random_(-1, 3),
    "uint8_to": lambda L: L.empty(3, dtype=L.uint8).random_(0, 257),
    "int8_from": lambda L: L.empty(3, dtype=L.int8).random_(-129, 3),
    "bool_to": lambda L: L.empty(3, dtype=L.bool).random_(0, 3),
    "bool_from_open": lambda L: L.empty(3, dtype=L.bool).random_(2, None),
    "int32_from_open": lambda L: L.empty(3, dtype=L.int32).random_(2 ** 31, None),
    "half_casted": lambda L: L.empty(3, dtype=L.float16).random_(65500, 65504),
    "half_to_bounds": lambda L: L.empty(3, dtype=L.float16).random_(65504, 65600),
    "half_from_bounds": lambda L: L.empty(3, dtype=L.float16).random_(-70000, 0),
    "half_to_inc": lambda L: L.empty(3, dtype=L.float16).random_(2048, None),
    "complex_default": lambda L: L.empty(3, dtype=L.complex64).random_(),
    "complex_from_to": lambda L: L.empty(3, dtype=L.complex64).random_(0, 3),
    "complex_open": lambda L: L.empty(3, dtype=L.complex64).random_(3, None),
    "full_range_int32": lambda L: L.empty(3, dtype=L.int32).random_(-2 ** 63, None),
    "full_range_half": lambda L: L.empty(3, dtype=L.float16).random_(-2 ** 63, None),
    "empty_from_ge_to": lambda L: L.empty(0).random_(5, 3),
    "overlap_random": lambda L: L.empty(1).expand(3).random_(),
    "overlap_before_range": lambda L: L.empty(1).expand(3).random_(5, 3),
    # the samplers: parameter first, then empty / overlap / dtype in the CPU kernels' order
    "exp_zero": lambda L: L.empty(3).exponential_(0),
    "exp_nan": lambda L: L.empty(3).exponential_(float("nan")),
    "exp_empty_bad": lambda L: L.empty(0).exponential_(-1.5),
    "exp_long": lambda L: L.empty(3, dtype=L.int64).exponential_(),
    "exp_bool": lambda L: L.empty(3, dtype=L.bool).exponential_(),
    "exp_overlap": lambda L: L.empty(1, dtype=L.int64).expand(3).exponential_(),
    "exp_param_before_overlap": lambda L: L.empty(1).expand(3).exponential_(-1),
    "geo_zero": lambda L: L.empty(3).geometric_(0),
    "geo_one": lambda L: L.empty(3).geometric_(1),
    "geo_bool": lambda L: L.empty(3, dtype=L.bool).geometric_(0.5),
    "geo_complex": lambda L: L.empty(3, dtype=L.complex64).geometric_(0.5),
    "cauchy_sigma": lambda L: L.empty(3).cauchy_(0, -1),
    "cauchy_long": lambda L: L.empty(3, dtype=L.int64).cauchy_(),
    "cauchy_empty_long": lambda L: L.empty(0, dtype=L.int64).cauchy_(),
    "cauchy_dtype_before_overlap": lambda L: L.empty(1, dtype=L.int64).expand(3).cauchy_(),
    "lognormal_std": lambda L: L.empty(3).log_normal_(1, 0),
    "lognormal_long": lambda L: L.empty(3, dtype=L.int64).log_normal_(),
    "lognormal_overlap": lambda L: L.empty(1, dtype=L.int64).expand(3).log_normal_(),
    # meta: random_ checks nothing; the refs' meta functions check the dtype first, in their own words
    "meta_exp_long": lambda L: L.empty(3, device="meta", dtype=L.int64).exponential_(-1),
    "meta_exp_rate": lambda L: L.empty(3, device="meta").exponential_(0),
    "meta_geo_bool": lambda L: L.empty(3, device="meta", dtype=L.bool).geometric_(2),
    "meta_geo_p": lambda L: L.empty(3, device="meta").geometric_(2),
    "meta_cauchy_long": lambda L: L.empty(3, device="meta", dtype=L.int64).cauchy_(0, -1),
    "meta_cauchy_sigma": lambda L: L.empty(3, device="meta").cauchy_(0, 0),
    "meta_lognormal_long": lambda L: L.empty(3, device="meta", dtype=L.int64).log_normal_(),
    "meta_lognormal_std": lambda L: L.empty(3, device="meta").log_normal_(1, 0),
    # the bindings (PyTorch's argument parser)
    "random_float": lambda L: L.empty(3).random_(1.5),
    "random_bool": lambda L: L.empty(3).random_(True),
    "random_float_tensor": lambda L: L.empty(3).random_(L.tensor(3.0)),
    "random_three": lambda L: L.empty(3).random_(2, 3, 4),
    "random_none": lambda L: L.empty(3).random_(None, 3),
    "random_from_kw_only": lambda L: L.empty(3).random_(**{"from": 1}),
    "random_unknown_kw": lambda L: L.empty(3).random_(from_=3),
    "random_twice": lambda L: L.empty(3).random_(1, 2, to=3),
    "random_generator_int": lambda L: L.empty(3).random_(generator=1),
    "exp_two": lambda L: L.empty(3).exponential_(2, 3),
    "exp_str": lambda L: L.empty(3).exponential_("a"),
    "exp_kw_str": lambda L: L.empty(3).exponential_(lambd="a"),
    "exp_rate_kw": lambda L: L.empty(3).exponential_(rate=2),
    "geo_missing": lambda L: L.empty(3).geometric_(),
    "cauchy_three": lambda L: L.empty(3).cauchy_(1, 2, 3),
    "randint_low_only": lambda L: L.randint(low=1, size=(2,)),
    "randint_size_only": lambda L: L.randint(size=(2,)),
    "randint_one": lambda L: L.randint(3),
    "randint_float_high": lambda L: L.randint(1.5, (2,)),
    "randint_float_second": lambda L: L.randint(1, 2.5, (2,)),
    "randint_size_int_kw": lambda L: L.randint(high=3, size=2),
    "randint_size_int": lambda L: L.randint(3, 2),
    "randint_extra": lambda L: L.randint(3, (2,), 4),
    "randint_low_kw_after": lambda L: L.randint(3, size=[2], low=1),
    "randint_foo": lambda L: L.randint(3, [2], foo=1),
    "randint_bool": lambda L: L.randint(True, (2,)),
    "randint_elem": lambda L: L.randint(3, (2, "a")),
    "randint_low_none": lambda L: L.randint(high=3, size=(2,), low=None),
    "randint_empty_range": lambda L: L.randint(high=-2, size=(2,)),
    "randint_requires_grad_long": lambda L: L.randint(3, (2,), requires_grad=True),
    "random_overflow": lambda L: L.empty(3).random_(2 ** 63),
    "random_from_overflow": lambda L: L.empty(3).random_(-2 ** 63 - 1, 3),
    "randint_overflow": lambda L: L.randint(2 ** 63, (2,)),
    "half_from_rounds_to_inf": lambda L: L.empty(3, dtype=L.float16).random_(-65520, 0),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(torch: Any, case: str) -> None:
    got = []
    for L in (torch, D):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:  # noqa: PT011 - the class is compared with torch's
                ERRORS[case](L)
        got.append((type(info.value).__name__, str(info.value).split("\n")[0]))
    assert got[1] == got[0]


# --- results: dtype / shape / stride / identity, accepted calls --------------------------------------------------

CALLS = {
    "default_f32": lambda L: L.empty(3, 4).random_(),
    "default_bool": lambda L: L.empty(3, dtype=L.bool).random_(),
    "default_transposed": lambda L: L.empty(3, 4, dtype=L.int16).t().random_(),
    "to": lambda L: L.empty(5).random_(3),
    "to_kw": lambda L: L.empty(5).random_(to=3),
    "from_to": lambda L: L.empty(5, dtype=L.int8).random_(-128, 128),
    "from_to_kw": lambda L: L.empty(5).random_(**{"from": 1, "to": 3}),
    "from_none": lambda L: L.empty(5, dtype=L.uint8).random_(5, None),
    "full_range": lambda L: L.empty(5, dtype=L.int64).random_(-2 ** 63, None),
    "int_tensor_to": lambda L: L.empty(3).random_(L.tensor(3)),
    "generator": lambda L: L.empty(3).random_(1, 3, generator=L.Generator()),
    "meta_unchecked": lambda L: L.empty(3, device="meta", dtype=L.uint8).random_(0, 300),
    "exp_half": lambda L: L.empty(3, dtype=L.float16).exponential_(lambd=2),
    "exp_true": lambda L: L.empty(3).exponential_(True),
    "exp_empty_long": lambda L: L.empty(0, dtype=L.int64).exponential_(),
    "geo_long": lambda L: L.empty(4, dtype=L.int64).geometric_(0.5),
    "geo_tensor_p": lambda L: L.empty(3).geometric_(L.tensor(0.5)),
    "cauchy_kw": lambda L: L.empty(2, 3, dtype=L.float64).t().cauchy_(median=1, sigma=2),
    "lognormal_std_kw": lambda L: L.empty(3).log_normal_(std=0.5),
    "meta_geo_transposed": lambda L: L.empty(3, 4, device="meta").t().geometric_(0.2),
    "randint_kw": lambda L: L.randint(high=3, size=(2,)),
    "randint_low_kw": lambda L: L.randint(low=1, high=3, size=(2,)),
    "randint_high_kw": lambda L: L.randint(1, high=3, size=(2, 2)),
    "randint_all_kw_shuffled": lambda L: L.randint(high=3, low=1, size=[2, 2]),
    "randint_generator_none": lambda L: L.randint(high=3, size=(2,), generator=None),
    "randint_float": lambda L: L.randint(3, (2,), dtype=L.float32, requires_grad=True),
    "randint_size_obj": lambda L: L.randint(3, L.Size([2, 2])),
    "randint_meta": lambda L: L.randint(3, (2,), device="meta"),
}


def _describe(t: Any) -> tuple:
    return str(t.dtype).split(".")[1], tuple(t.shape), t.stride(), t.device.type, t.requires_grad


@pytest.mark.parametrize("case", list(CALLS))
def test_results_match_torch(torch: Any, case: str) -> None:
    assert _describe(CALLS[case](D)) == _describe(CALLS[case](torch))


def test_in_place_returns_self_and_bumps_version() -> None:
    x = D.empty(4)
    for call in (lambda t: t.random_(), lambda t: t.random_(3), lambda t: t.random_(1, 4), lambda t: t.exponential_(),
                 lambda t: t.geometric_(0.5), lambda t: t.cauchy_(), lambda t: t.log_normal_()):
        v = x._version
        assert call(x) is x and x._version == v + 1


def test_float_range_warning_matches_torch(torch: Any) -> None:
    msgs = []
    for L in (torch, D):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.empty(3).random_(0, 2 ** 24 + 2)
        msgs.append([str(m.message).split(" (Triggered")[0] for m in w])
    assert msgs[1] == msgs[0] and len(msgs[0]) == 1


# --- distributions ---------------------------------------------------------------------------------------------------

N = 20000


def test_random_ranges() -> None:
    D.manual_seed(7)
    f = D.empty(N).random_().numpy()
    assert f.min() >= 0 and f.max() <= 2 ** 24 and abs(f.mean() / 2 ** 23 - 1) < 0.02
    h = D.empty(N, dtype=D.float16).random_().numpy()
    assert h.min() >= 0 and h.max() <= 2048 and h.max() > 2000
    i8 = D.empty(N, dtype=D.int8).random_().numpy()
    assert i8.min() == 0 and i8.max() == 127
    b = D.empty(N, dtype=D.bool).random_().numpy()
    assert abs(b.mean() - 0.5) < 0.02
    i64 = D.empty(N, dtype=D.int64).random_().numpy()
    assert i64.min() >= 0 and i64.max() > 2 ** 62
    r = D.empty(N, dtype=D.int64).random_(-3, 4).numpy()
    np.testing.assert_allclose(np.bincount(r + 3, minlength=7) / N, np.full(7, 1 / 7), atol=0.012)
    t = D.empty(N).random_(5).numpy()
    assert set(np.unique(t)) == {0.0, 1.0, 2.0, 3.0, 4.0}
    o = D.empty(N, dtype=D.int8).random_(100, None).numpy()
    assert o.min() == 100 and o.max() == 127
    full = D.empty(N, dtype=D.int64).random_(-2 ** 63, None).numpy()
    assert full.min() < -2 ** 62 and full.max() > 2 ** 62
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^11\), 2\^11\]"):
        big = D.empty(N, dtype=D.float16).random_(0, 2050).numpy()
    assert big.max() < 2050


def test_sampler_moments() -> None:
    D.manual_seed(11)
    e = D.empty(N, dtype=D.float64).exponential_(2.0).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.02 and abs(e.var() - 0.25) < 0.03
    g = D.empty(N, dtype=D.int64).geometric_(0.3).numpy()
    assert g.min() == 1 and abs(g.mean() - 1 / 0.3) < 0.1 and abs(np.mean(g == 1) - 0.3) < 0.02
    c = D.empty(N, dtype=D.float64).cauchy_(1.0, 2.0).numpy()
    q1, med, q3 = np.quantile(c, [0.25, 0.5, 0.75])  # quartiles of Cauchy(m, s): m - s, m, m + s
    assert abs(med - 1.0) < 0.1 and abs(q1 + 1.0) < 0.15 and abs(q3 - 3.0) < 0.15
    ln = np.log(D.empty(N, dtype=D.float64).log_normal_(0.5, 0.25).numpy())
    assert abs(ln.mean() - 0.5) < 0.01 and abs(ln.std() - 0.25) < 0.01
    assert D.empty(5).exponential_(float("inf")).tolist() == [0.0] * 5


def test_seeded_reproducibility() -> None:
    def draws(gen: Any = None) -> list:
        kw = {} if gen is None else {"generator": gen}
        return [D.empty(6).random_(**kw).tolist(), D.empty(6).random_(9, **kw).tolist(),
                D.empty(6, dtype=D.int32).random_(-4, 4, **kw).tolist(), D.empty(6).exponential_(**kw).tolist(),
                D.empty(6).geometric_(0.4, **kw).tolist(), D.empty(6).cauchy_(**kw).tolist(),
                D.empty(6).log_normal_(**kw).tolist(), D.randint(high=9, size=(6,), **kw).tolist()]

    D.manual_seed(3)
    a = draws()
    D.manual_seed(3)
    assert draws() == a
    g1, g2 = D.Generator().manual_seed(5), D.Generator().manual_seed(5)
    D.manual_seed(0)
    before = D.rand(3).tolist()
    assert draws(g1) == draws(g2) != a
    D.manual_seed(0)
    assert D.rand(3).tolist() == before  # seeded generators leave the default one alone


# --- autograd ----------------------------------------------------------------------------------------------------


def test_autograd_nodes_and_zero_grads_match_torch(torch: Any) -> None:
    calls = [lambda y: y.random_(), lambda y: y.random_(5), lambda y: y.random_(1, 5), lambda y: y.random_(1, None),
             lambda y: y.exponential_(), lambda y: y.geometric_(0.3), lambda y: y.cauchy_(), lambda y: y.log_normal_()]
    out = []
    for L in (torch, D):
        rows = []
        for call in calls:
            x = L.ones(3, requires_grad=True)
            z = call(x * 2)
            (z * L.arange(3.0)).sum().backward()
            rows.append((type(z.grad_fn).__name__, x.grad.tolist()))
        out.append(rows)
    assert out[1] == out[0]
    assert [r[0] for r in out[1]][:4] == ["RandomBackward2", "RandomBackward1", "RandomBackward0", "RandomBackward0"]


# --- make_fx -----------------------------------------------------------------------------------------------------


def _program(L: Any) -> Any:
    def f(x: Any, i: Any) -> tuple:
        return (x.clone().random_(), x.clone().random_(5), i.clone().random_(to=7), x.clone().exponential_(2.0),
                x.clone().geometric_(0.3), i.clone().geometric_(p=0.5), x.clone().cauchy_(1.0, 2.0),
                x.clone().cauchy_(0, 1.0), x.clone().log_normal_(), x.clone().log_normal_(0.0, 0.5),
                (x * 2).exponential_(), L.randint(high=3, size=(2,)), L.randint(low=1, high=3, size=(2,),
                                                                                dtype=L.float32),
                L.randint(high=3, size=(2,), generator=None))

    return f


@pytest.mark.parametrize("config", ["post", "pre", "fake", "core"])
def test_graphs_match_torch_and_replay(torch: Any, config: str) -> None:
    gms = []
    for L in (torch, D):
        args = [L.ones(3), L.ones(3, dtype=L.int64)]
        if config == "fake":
            fm = fake_mode(L)
            args = [fm.from_tensor(a) for a in args]
        gms.append(trace(L, _program(L), args, config))
    assert C.targets(gms[1]) == C.targets(gms[0])
    gms[1].graph.lint()
    def calls(gm: Any) -> list:
        return [(n.args[1:], {k: str(v).replace("dispatcher", "torch") for k, v in n.kwargs.items()})
                for n in gm.graph.nodes if n.op == "call_function"]

    assert calls(gms[1]) == calls(gms[0])
    fresh = [D.zeros(4), D.zeros(4, dtype=D.int64)]
    D.manual_seed(21)
    eager = _program(D)(*fresh)
    D.manual_seed(21)
    replay = gms[1](*fresh)
    for a, b in zip(eager, replay, strict=True):
        assert _describe(a) == _describe(b) and a.tolist() == b.tolist()


def test_random_from_graph_is_valid_code(torch: Any) -> None:
    """torch 2.13 records ``aten.random_.from`` but its generated code spells it ``torch.ops.aten.random_.from``, a
    SyntaxError (``from`` is a keyword): make_fx of any ``random_(from, to)`` fails there. Ours records the same
    node and names the overload through a global, so the graph runs."""
    def f(L: Any) -> Any:
        return lambda x: (x.clone().random_(-3, 4), x.clone().random_(2, None))

    with pytest.raises(SyntaxError):
        trace(torch, f(torch), [torch.ones(3)], "post")
    gm = trace(D, f(D), [D.ones(3)], "post")
    assert C.targets(gm) == ["aten.clone.default", "aten.random_.from", "aten.clone.default", "aten.random_.from"]
    D.manual_seed(4)
    eager = f(D)(D.ones(5))
    D.manual_seed(4)
    replay = gm(D.ones(5))
    assert [t.tolist() for t in replay] == [t.tolist() for t in eager]
    assert set(replay[0].tolist()) <= set(range(-3, 4))
