"""passes.replace_pattern: subgraph rewriting with match counts, overlap and escape rules, results vs eager,
and match counts against torch.fx.subgraph_rewriter.replace_pattern on the same aten graphs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from passes.replace_pattern import Match, replace_pattern
from tests import corpus as C
from tracer import make_fx


def _close(a: Any, b: Any) -> None:
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


# --- programs written once for both libraries ----------------------------------------------------------------------

def g_three_sites(T: Any) -> Callable[..., Any]:
    def f(x, y):
        a = x.sin().cos()
        b = y.sin().cos() * 2
        return (a + b).sin().cos() + 1
    return f


def g_chain(n: int) -> Callable[[Any], Callable[..., Any]]:
    def make(T: Any) -> Callable[..., Any]:
        def f(x):
            for _ in range(n):
                x = x + 1
            return x
        return f
    return make


def g_escaping(T: Any) -> Callable[..., Any]:
    def f(x):
        a = x.sin()
        b = a.cos()
        return b + a  # `a` is used outside a sin -> cos match
    return f


def g_twice(T: Any) -> Callable[..., Any]:
    def f(x, y):
        return (x + x) * (x + y)
    return f


def p_sin_cos(t):
    return t.sin().cos()


def r_cos_sin(t):
    return t.cos().sin()


def p_add_one_twice(t):
    return (t + 1) + 1


def r_add_two(t):
    return t + 2


def p_self_add(t):
    return t + t


def r_times_two(t):
    return t * 2


CASES: dict[str, tuple[Callable[[Any], Callable[..., Any]], list, Callable[..., Any], Callable[..., Any], int]] = {
    # name: (program, input shapes, pattern, replacement, expected count)
    "three_sites": (g_three_sites, [(3,), (3,)], p_sin_cos, r_cos_sin, 3),
    "chain3": (g_chain(3), [(3,)], p_add_one_twice, r_add_two, 1),
    "chain4": (g_chain(4), [(3,)], p_add_one_twice, r_add_two, 2),
    "chain5": (g_chain(5), [(3,)], p_add_one_twice, r_add_two, 2),
    "escaping": (g_escaping, [(3,)], p_sin_cos, r_cos_sin, 0),
    "same_input_twice": (g_twice, [(3,), (3,)], p_self_add, r_times_two, 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_counts_and_results(name: str) -> None:
    prog, shapes, pattern, replacement, count = CASES[name]
    args = C.inputs(D, C.arrays(shapes, 0), ())
    gm = make_fx(prog(D))(*args)
    before = gm.code
    expected = gm(*args)
    matches = replace_pattern(gm, pattern, replacement, example_inputs=(D.randn(3),))
    assert len(matches) == count
    assert all(isinstance(m, Match) for m in matches)
    gm.graph.lint()
    if count == 0:
        assert gm.code == before
        return
    assert gm.code != before
    for n in gm.graph.nodes:
        if n.op == "call_function":
            assert isinstance(n.meta["val"], D.Tensor)
    # the rewrite changes values only where the replacement differs from the pattern
    if name.startswith("chain") or name == "same_input_twice":
        _close(gm(*args), expected)  # equivalent rewrites keep the results


def test_three_sites_rewritten_like_eager() -> None:
    gm = make_fx(g_three_sites(D))(D.randn(3), D.randn(3))
    replace_pattern(gm, p_sin_cos, r_cos_sin, example_inputs=(D.randn(3),))

    def rewritten(x, y):
        return ((x.cos().sin() + y.cos().sin() * 2).cos().sin()) + 1
    x, y = D.randn(3), D.randn(3)
    _close(gm(x, y), rewritten(x, y))
    assert C.targets(gm).count("aten.sin.default") == 3
    assert C.targets(gm)[:2] == ["aten.cos.default", "aten.sin.default"]


def test_chain_replaces_the_first_pairs_in_graph_order() -> None:
    gm = make_fx(g_chain(5)(D))(D.randn(3))
    replace_pattern(gm, p_add_one_twice, r_add_two, example_inputs=(D.randn(3),))
    adds = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert [n.args[1] for n in adds] == [2, 2, 1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_counts_match_torch_subgraph_rewriter(torch: Any, name: str) -> None:
    from torch.fx import subgraph_rewriter
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    prog, shapes, pattern, replacement, count = CASES[name]
    arrays = C.arrays(shapes, 0)
    gm_t = torch_make_fx(prog(torch))(*C.inputs(torch, arrays, ()))
    example = torch.randn(3)
    theirs = subgraph_rewriter.replace_pattern(gm_t, torch_make_fx(pattern)(example), torch_make_fx(replacement)(example))
    assert len(theirs) == count
    gm = make_fx(prog(D))(*C.inputs(D, arrays, ()))
    ours = replace_pattern(gm, pattern, replacement, example_inputs=(D.randn(3),))
    assert len(ours) == len(theirs)
    assert sorted(C.targets(gm)) == sorted(C.targets(gm_t))


def test_post_dispatch_linear_to_mm_plus_add() -> None:
    x, w, b = D.randn(4, 3), D.randn(5, 3), D.randn(5)

    def model(x, w1, b1, w2, b2):
        return DF.linear(DF.relu(DF.linear(x, w1, b1)), w2, b2)

    def pattern(b, x, w):
        return D.ops.aten.addmm.default(b, x, D.ops.aten.t.default(w))

    def replacement(b, x, w):
        return D.mm(x, w.t()) + b

    w2, b2 = D.randn(2, 5), D.randn(2)
    gm = make_fx(model)(x, w, b, w2, b2)
    assert "aten.addmm.default" in C.targets(gm)
    matches = replace_pattern(gm, pattern, replacement, example_inputs=(b, x, w))
    assert len(matches) == 2
    assert "aten.addmm.default" not in C.targets(gm)
    assert C.targets(gm).count("aten.mm.default") == 2
    gm.graph.lint()
    _close(gm(x, w, b, w2, b2), model(x, w, b, w2, b2))
    # the matches name the anchors (the addmm nodes) and bind the pattern's inputs
    for m in matches:
        assert str(m.anchor.target) == "aten.addmm.default"
        assert sorted(p.name for p in m.nodes_map if p.op == "placeholder") == ["b_1", "w_1", "x_1"]


def test_pre_dispatch_patterns() -> None:
    x, w, b = D.randn(4, 3), D.randn(5, 3), D.randn(5)

    def model(x, w, b):
        return DF.relu(DF.linear(x, w, b)).sum()

    def pattern(x, w, b):
        return DF.relu(DF.linear(x, w, b))

    def replacement(x, w, b):
        return DF.gelu(DF.linear(x, w, b))

    gm = make_fx(model, pre_dispatch=True)(x, w, b)
    assert replace_pattern(gm, pattern, replacement, example_inputs=(x, w, b)) == []  # post-dispatch pattern
    matches = replace_pattern(gm, pattern, replacement, example_inputs=(x, w, b), pre_dispatch=True)
    assert len(matches) == 1
    assert C.targets(gm) == ["aten.linear.default", "aten.gelu.default", "aten.sum.default"]
    _close(gm(x, w, b), DF.gelu(DF.linear(x, w, b)).sum())


def test_graph_module_patterns_and_literals() -> None:
    def f(x):
        return x * 2 + x * 3 + x * 2.0
    gm = make_fx(f)(D.randn(3))
    pattern = make_fx(lambda t: t * 2)(D.randn(3))
    replacement = make_fx(lambda t: t + t)(D.randn(3))
    matches = replace_pattern(gm, pattern, replacement)
    assert len(matches) == 1  # `x * 3` has another literal, `x * 2.0` another type
    x = D.randn(3)
    _close(gm(x), f(x))
    assert C.targets(gm).count("aten.mul.Tensor") == 2


def test_multiple_outputs() -> None:
    def f(x):
        return x.sin() * x.cos()

    def pattern(t):
        return t.sin(), t.cos()

    def replacement(t):
        return t.cos(), t.sin()

    gm = make_fx(f)(D.randn(3))
    assert len(replace_pattern(gm, pattern, replacement, example_inputs=(D.randn(3),))) == 1
    x = D.randn(3)
    _close(gm(x), x.cos() * x.sin())
    gm.graph.lint()


def test_no_match_leaves_graph_untouched() -> None:
    gm = make_fx(lambda x: x.exp().sum())(D.randn(3))
    code = gm.code
    assert replace_pattern(gm, p_sin_cos, r_cos_sin, example_inputs=(D.randn(3),)) == []
    assert gm.code == code


def test_errors() -> None:
    gm = make_fx(lambda x: x.sin().cos())(D.randn(3))
    with pytest.raises(ValueError, match="example_inputs"):
        replace_pattern(gm, p_sin_cos, r_cos_sin)
    with pytest.raises(ValueError, match="replacement takes 2 inputs, the pattern 1"):
        replace_pattern(gm, p_sin_cos, lambda a, b: a + b, example_inputs=(D.randn(3),),
                        replacement_inputs=(D.randn(3), D.randn(3)))
    with pytest.raises(ValueError, match="returns 2 values, the pattern 1"):
        replace_pattern(gm, p_sin_cos, lambda t: (t.sin(), t.cos()), example_inputs=(D.randn(3),))
    with pytest.raises(TypeError, match="GraphModule or a function"):
        replace_pattern(gm, 3, r_cos_sin, example_inputs=(D.randn(3),))
    with pytest.raises(TypeError, match="expects a GraphModule"):
        replace_pattern(gm.graph, p_sin_cos, r_cos_sin, example_inputs=(D.randn(3),))
    with pytest.raises(ValueError, match="returns one of its inputs"):
        replace_pattern(gm, lambda t: t, r_cos_sin, example_inputs=(D.randn(3),))
