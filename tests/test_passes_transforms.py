"""Graph transforms: dead-code elimination, CSE, shape propagation, decomposition, side-effect classification.

Every transform must keep ``lint()`` clean and the results of every corpus program (both capture levels) equal
to eager execution on fresh inputs. The side-effect cases are tested one by one, and DCE is compared with
torch 2.13's ``Graph.eliminate_dead_code`` on the same programs.
"""

from __future__ import annotations

import copy
import operator
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from dispatcher.autograd.grad_mode import _set_grad_enabled
from dispatcher.fake import FakeTensor, FakeTensorMode
from dispatcher.op_overload import OpOverload, namespace
from passes import side_effects as S
from passes.cse import common_subexpression_elimination
from passes.dce import dead_code_elimination
from passes.decompose import decompose
from passes.interpreter import Interpreter
from passes.replay import replay
from passes.shape_prop import TensorMetadata, shape_propagation
from tests import corpus as C
from tests.corpus import PROGRAMS
from tracer import Graph, GraphModule, make_fx

aten = namespace("aten")

#: see tests/test_interpreter.py: pre-dispatch graphs whose replay is wrong because of a make_fx limitation
_SAVED_INSIDE_WHOLE_OP = {"ln_backward_partial", "embedding_classifier"}


def _trace(name: str, pre: bool) -> GraphModule:
    prog, shapes, rg = PROGRAMS[name]
    return make_fx(prog(D, DF), pre_dispatch=pre)(*C.inputs(D, C.arrays(shapes, 0), rg))


def _as_list(x: Any) -> Any:
    return list(x) if isinstance(x, tuple) else x


def _addmm_decomp(bias: Any, x: Any, w: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    return aten.add.Tensor(aten.mm.default(x, w), bias)


def _linear_decomp(x: Any, w: Any, b: Any = None) -> Any:
    y = x @ w.t()  # `@` is matmul, CompositeImplicitAutograd
    return y if b is None else y + b


_TABLE = {aten.addmm.default: _addmm_decomp, aten.linear.default: _linear_decomp}

TRANSFORMS = {
    "dce": lambda gm: dead_code_elimination(copy.deepcopy(gm)),
    "cse": lambda gm: common_subexpression_elimination(copy.deepcopy(gm)),
    "shape_propagation": lambda gm: shape_propagation(copy.deepcopy(gm)),
    "decompose": lambda gm: decompose(gm, _TABLE),
}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("level", ["post", "pre"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_transform_keeps_lint_clean_and_results_equal(name: str, level: str, transform: str) -> None:
    pre = level == "pre"
    gm = _trace(name, pre)
    new = TRANSFORMS[transform](gm)
    new.graph.lint()
    prog, shapes, rg = PROGRAMS[name]
    fresh = C.arrays(shapes, 1)
    expected = C.to_np(prog(D, DF)(*C.inputs(D, fresh, rg)))
    got = C.to_np(new(*C.inputs(D, fresh, rg if pre else ())))
    if pre and name in _SAVED_INSIDE_WHOLE_OP:  # the traced graph itself is wrong on fresh inputs: same as before
        got_before = C.to_np(gm(*C.inputs(D, fresh, rg)))
        C.assert_close(_as_list(got_before), _as_list(got))
        return
    C.assert_close(_as_list(expected), _as_list(got))
    if transform == "decompose":
        targets = {n.target for n in new.graph.nodes}
        assert aten.addmm.default not in targets and aten.linear.default not in targets
        if not pre:  # a post-dispatch graph stays post-dispatch: the matmul the decomposition calls is decomposed
            assert aten.matmul.default not in targets


# --- dead-code elimination ----------------------------------------------------------------------------------------


def _targets(gm: GraphModule) -> list[Any]:
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def test_dce_removes_dead_pure_ops_and_keeps_effects() -> None:
    def f(x, y):
        dead = x.sin() * 2  # noqa: F841 - dead pure ops
        c = x.clone()
        c.add_(1)  # in-place on a dead clone: kept, and the clone with it
        y.mul_(2)  # in-place on an input
        x.view(-1)  # a view of an input, unused
        D.rand_like(x)  # a random op, unused
        with D.no_grad():
            z = x.cos()
        return z + y

    gm = make_fx(f, pre_dispatch=True)(D.randn(2, 3), D.randn(2, 3))
    before = _targets(gm)
    assert aten.sin.default in before and aten.mul.Tensor in before
    dead_code_elimination(gm)
    gm.graph.lint()
    after = _targets(gm)
    assert aten.sin.default not in after and aten.mul.Tensor not in after  # dead pure ops removed
    for kept in (aten.clone.default, aten.add_.Tensor, aten.mul_.Tensor, aten.view.default, aten.rand_like.default):
        assert kept in after, kept
    assert after.count(_set_grad_enabled) == 2
    assert "sin" not in gm.code
    # the options: torch's rules for views of inputs; random ops treated as pure
    dead_code_elimination(gm, keep_input_aliases=False)
    assert aten.view.default not in _targets(gm) and aten.rand_like.default in _targets(gm)
    dead_code_elimination(gm, impure_random=False)
    assert aten.rand_like.default not in _targets(gm) and aten.add_.Tensor in _targets(gm)
    x, y = D.randn(2, 3), D.randn(2, 3)
    y0 = y.clone()
    np.testing.assert_allclose(gm(x, y).numpy(), (x.cos() + y0 * 2).numpy(), rtol=1e-6)
    np.testing.assert_allclose(y.numpy(), (y0 * 2).numpy(), rtol=1e-6)  # the input mutation survived


def test_dce_custom_is_impure_node() -> None:
    gm = make_fx(lambda x: (x.sin(), x.cos())[1])(D.randn(3))
    dead_code_elimination(gm, is_impure_node=lambda n: n.op in ("placeholder", "output") or n.target is aten.sin.default)
    assert aten.sin.default in _targets(gm)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dce_removes_what_torch_removes(torch: Any, name: str) -> None:
    """With torch's rule for views of inputs, our DCE erases exactly the nodes torch's eliminate_dead_code erases."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    gm_o = _trace(name, False)
    prog, shapes, rg = PROGRAMS[name]
    gm_t = torch_make_fx(prog(torch, torch.nn.functional))(*C.inputs(torch, C.arrays(shapes, 0), rg))
    assert C.targets(gm_o) == C.targets(gm_t)
    names_t = [n.name for n in gm_t.graph.nodes]
    gm_t.graph.eliminate_dead_code()
    kept_t = {n.name for n in gm_t.graph.nodes}
    dead_code_elimination(gm_o, keep_input_aliases=False)
    kept_o = {n.name for n in gm_o.graph.nodes}
    assert kept_o == kept_t & set(names_t)


# --- common-subexpression elimination ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_cse_merges_what_torch_merges_on_functional_graphs(torch: Any, name: str) -> None:
    """On graphs without in-place ops, our CSE leaves the ops torch's fx_graph_cse leaves."""
    from torch._functorch.compile_utils import fx_graph_cse
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    gm_o = _trace(name, False)
    prog, shapes, rg = PROGRAMS[name]
    gm_t = torch_make_fx(prog(torch, torch.nn.functional))(*C.inputs(torch, C.arrays(shapes, 0), rg))
    if any(isinstance(n.target, torch._ops.OpOverload) and n.target._schema.is_mutable for n in gm_t.graph.nodes):
        # torch's CSE is meant for functional graphs only; ours must leave every mutation where it was
        def mutations(gm: Any) -> list[str]:
            return [n.name for n in gm.graph.nodes if n.op == "call_function" and S.is_mutable(n.target)]

        before = mutations(gm_o)
        assert before  # the program does mutate here too
        common_subexpression_elimination(gm_o)
        gm_o.graph.lint()
        assert mutations(gm_o) == before
        return
    merged_t = fx_graph_cse(gm_t.graph)
    common_subexpression_elimination(gm_o)
    gm_o.graph.lint()
    assert C.targets(gm_o) == [C.target_str(n.target) for n in merged_t.nodes if n.op == "call_function"]


def test_cse_merges_duplicates_and_their_getitems() -> None:
    def f(x):
        a = x.sin() + x.sin()
        m1, i1 = x.max(dim=0)
        m2, i2 = x.max(dim=0)
        return a, m1 + m2, i1 + i2

    x = D.randn(3, 4)
    gm = make_fx(f)(x)
    common_subexpression_elimination(gm)
    gm.graph.lint()
    t = _targets(gm)
    assert t.count(aten.sin.default) == 1 and t.count(aten.max.dim) == 1 and t.count(operator.getitem) == 2
    for a, b in zip(gm(x), f(x), strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_cse_never_merges_random_inplace_or_differently_typed_constants() -> None:
    def f(x):
        r = D.rand_like(x) + D.rand_like(x)  # random: two draws
        c = x.clone()
        c.add_(1)
        c.add_(1)  # in-place: both kept
        k = (x * 1) + (x * 1.0) + (x * True)  # 1, 1.0 and True are different constants
        z = (x * 0.0) + (x * -0.0)
        return r, c, k, z

    gm = make_fx(f)(D.randn(3))
    common_subexpression_elimination(gm)
    gm.graph.lint()
    t = _targets(gm)
    assert t.count(aten.rand_like.default) == 2 and t.count(aten.add_.Tensor) == 2
    assert t.count(aten.mul.Tensor) == 5


def test_cse_respects_mutation_regions_and_mutated_values() -> None:
    def f(x):
        y = x.clone()
        a = y.sin()
        y.add_(1)
        b = y.sin()  # y changed in between: not the same value as a
        p = x.clone()
        q = x.clone()  # the same expression as p, but p is modified below: must stay separate
        p.mul_(2)
        return a, b, p, q

    x = D.randn(3)
    gm = make_fx(f)(x)
    common_subexpression_elimination(gm)
    gm.graph.lint()
    t = _targets(gm)
    assert t.count(aten.sin.default) == 2 and t.count(aten.clone.default) == 3
    for a, b in zip(gm(x), f(x), strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_cse_keeps_separate_outputs_and_grad_mode_regions() -> None:
    def f(x):
        with D.no_grad():
            a = x.cos()
        b = x.cos()  # same expression, but a is computed without grad: never merged across _set_grad_enabled
        return a, b, x.exp(), x.exp()  # two returned tensors stay two tensors

    x = D.randn(3, requires_grad=True)
    gm = make_fx(f, pre_dispatch=True)(x)
    common_subexpression_elimination(gm)
    gm.graph.lint()
    t = _targets(gm)
    assert t.count(aten.cos.default) == 2 and t.count(aten.exp.default) == 2
    a, b, e1, e2 = gm(x)
    assert not a.requires_grad and b.requires_grad and e1 is not e2


def test_cse_compares_kwargs_and_lists_structurally() -> None:
    def f(x):
        s1 = x.sum([0], keepdim=True)
        s2 = x.sum([0], keepdim=True)
        s3 = x.sum([0], keepdim=False)
        return s1 + s2, s3

    x = D.randn(2, 3)
    gm = make_fx(f)(x)
    common_subexpression_elimination(gm)
    assert _targets(gm).count(aten.sum.dim_IntList) == 2


# --- shape propagation --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["post", "pre"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_shape_propagation_reproduces_make_fx_metadata(name: str, level: str) -> None:
    gm = _trace(name, level == "pre")
    expected = {n.name: n.meta.get("val") for n in gm.graph.nodes}
    for n in gm.graph.nodes:
        if n.op != "placeholder":
            n.meta.pop("val", None)
    prog, shapes, rg = PROGRAMS[name]
    shape_propagation(gm, *C.inputs(D, C.arrays(shapes, 3), rg if level == "pre" else ()))
    gm.graph.lint()
    for n in gm.graph.nodes:
        want = expected[n.name]
        if n.op == "output" or want is None:
            continue
        got = n.meta["val"]
        pairs = list(zip(got, want, strict=True)) if isinstance(want, (list, tuple)) else [(got, want)]
        for g, w in pairs:
            if isinstance(w, D.Tensor):
                assert isinstance(g, FakeTensor), n.name
                assert (tuple(g.shape), g.stride(), g.dtype) == (tuple(w.shape), w.stride(), w.dtype), n.name
        if isinstance(want, D.Tensor):
            tm = n.meta["tensor_meta"]
            assert isinstance(tm, TensorMetadata) and tm.shape == tuple(want.shape) and tm.dtype == want.dtype


def test_shape_propagation_computes_nothing() -> None:
    def f(x, w):
        return DF.softmax(x @ w, -1).sum(0)

    gm = make_fx(f)(D.randn(4, 8), D.randn(8, 3))
    with FakeTensorMode() as mode:
        big_x, big_w = mode.from_tensor(D.empty(4096, 8192)), mode.from_tensor(D.empty(8192, 4096))
    shape_propagation(gm, big_x, big_w)  # a real 4096x8192 @ 8192x4096 would need 256 MB per operand
    assert all(isinstance(n.meta["val"], FakeTensor) for n in gm.graph.nodes if n.op == "call_function")
    out = gm.graph.output_node().args[0]
    assert tuple(out.meta["val"].shape) == (4096,) and tuple(out.meta["tensor_meta"].shape) == (4096,)
    # without inputs, the placeholders' own values (here: the big ones just propagated) are used
    gm2 = make_fx(f)(D.randn(4, 8), D.randn(8, 3))
    for n in gm2.graph.nodes:
        if n.op != "placeholder":
            n.meta.clear()
    shape_propagation(gm2)
    gm2.graph.lint()
    assert tuple(gm2.graph.output_node().args[0].meta["val"].shape) == (3,)


# --- decompose ------------------------------------------------------------------------------------------------------------


def test_decompose_keeps_the_capture_level_and_stack_traces() -> None:
    def f(x, w, b):
        with D.no_grad():
            s = x.sum()
        return DF.relu(DF.linear(x, w, b)) + s

    x, w, b = D.randn(2, 3), D.randn(4, 3), D.randn(4)
    pre = make_fx(f, pre_dispatch=True)(x, w, b)
    new = decompose(pre, {aten.relu.default: lambda t: aten.clamp_min.default(t, 0.0)})
    new.graph.lint()
    t = _targets(new)
    assert aten.linear.default in t and aten.relu.default not in t and aten.clamp_min.default in t
    assert t.count(_set_grad_enabled) == 2
    clamp = next(n for n in new.graph.nodes if n.target is aten.clamp_min.default)
    assert "DF.relu(DF.linear(x, w, b))" in clamp.meta["stack_trace"]
    assert [n.name for n in new.graph.nodes if n.op == "placeholder"] == ["x_1", "w_1", "b_1"]
    np.testing.assert_allclose(new(x, w, b).numpy(), f(x, w, b).numpy(), rtol=1e-6)
    post = make_fx(f)(x, w, b)
    new_post = decompose(post, _TABLE)
    assert aten.addmm.default not in _targets(new_post) and aten.mm.default in _targets(new_post)
    assert _set_grad_enabled not in _targets(new_post)
    np.testing.assert_allclose(new_post(x, w, b).numpy(), f(x, w, b).numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="decomposition_table must be a dict"):
        decompose(post, [_TABLE])  # type: ignore[arg-type]


def test_decompose_with_real_inputs_and_replay_check() -> None:
    prog, shapes, rg = PROGRAMS["transformer_block"]
    args = C.inputs(D, C.arrays(shapes, 0), rg)
    gm = make_fx(prog(D, DF))(*args)
    new = decompose(gm, _TABLE, *args)
    assert aten.addmm.default not in _targets(new)
    fresh = C.inputs(D, C.arrays(shapes, 1), rg)
    C.assert_close(C.to_np(replay(new, *fresh)), C.to_np(prog(D, DF)(*fresh)))


# --- side-effect classification ---------------------------------------------------------------------------------------


def test_side_effect_classification_from_schemas() -> None:
    assert S.mutated_arguments(aten.add_.Tensor) == ("self",) and S.is_mutable(aten.add_.Tensor)
    assert not S.is_mutable(aten.add.Tensor) and not S.is_mutable(operator.getitem)
    assert S.returned_aliases(aten.view.default) == ("self",) and S.returned_aliases(aten.split.Tensor) == ("self",)
    assert S.returned_aliases(aten.add.Tensor) == (None,)
    assert S.returned_aliases(aten.native_layer_norm.default) == (None, None, None)
    assert S.is_random(aten.randn.default) and S.is_random(aten.native_dropout.default)
    assert not S.is_random(aten.add.Tensor)
    assert S.has_side_effects(_set_grad_enabled) and S.has_side_effects(operator.setitem)
    assert not S.has_side_effects(aten.add.Tensor)

    def probe() -> None:
        pass

    S.register_side_effect(probe)
    assert S.has_side_effects(probe)


def test_side_effect_classification_agrees_with_torch(torch: Any) -> None:
    """is_mutable / is_random / returned aliases for every op of our listing, against torch's schemas and tags."""
    checked = 0
    for qualified in sorted(namespace("aten")):
        packet = getattr(aten, qualified)
        for overload in packet.overloads():
            ours = getattr(packet, overload)
            if not isinstance(ours, OpOverload) or ours._schema is None:
                continue
            theirs = getattr(getattr(torch.ops.aten, qualified), overload, None)
            if theirs is None:
                continue
            assert S.is_mutable(ours) == theirs._schema.is_mutable, ours
            assert S.is_random(ours) == (torch.Tag.nondeterministic_seeded in theirs.tags), ours
            for mine, r in zip(S.returned_aliases(ours), theirs._schema.returns, strict=True):
                if r.alias_info is None:
                    assert mine is None, ours
                elif r.alias_info.before_set:
                    assert mine == next(a.name for a in theirs._schema.arguments
                                        if a.alias_info is not None and a.alias_info.before_set & r.alias_info.before_set)
                else:  # torch's Python schema hides a list's element annotation (Tensor(a)[]): some argument
                    assert mine is not None, ours
            checked += 1
    assert checked > 150


def test_alias_roots_follow_views_and_inplace_results() -> None:
    def f(x):
        v = x.view(-1)
        a, b = x.split(1)
        c = x.clone()
        d = c.add_(1).t()
        return v, a, b, d

    gm = make_fx(f)(D.randn(2, 2))
    roots = S.alias_roots(gm.graph)
    by_name = {n.name: n for n in gm.graph.nodes}
    x = by_name["x_1"]
    for name in ("view", "split", "getitem", "getitem_1"):
        assert roots[by_name[name]] is x, name
    assert roots[by_name["add_"]] is by_name["clone"] and roots[by_name["t"]] is by_name["clone"]
    assert roots[by_name["clone"]] is by_name["clone"]


# --- linear time (bench/passes.py times the big graphs) -----------------------------------------------------------------


def _chain(n: int) -> GraphModule:
    g = Graph()
    x = g.placeholder("x")
    cur = x
    for i in range(n):
        cur = g.call_function(aten.add.Tensor, (cur, x if i % 2 else 1.0))
        g.call_function(aten.mul.Tensor, (cur, 2.0))  # dead
    g.output(cur)
    return GraphModule({}, g)


def test_dce_and_cse_on_large_chains() -> None:
    # (their linear scaling is measured in bench/passes.py, not timed here)
    big = dead_code_elimination(_chain(16000))
    big.graph.lint()
    assert sum(1 for n in big.graph.nodes if n.op == "call_function") == len(
        [n for n in _chain(16000).graph.nodes if n.op == "call_function"]) // 2
    common_subexpression_elimination(_chain(16000)).graph.lint()
    gm = dead_code_elimination(_chain(100))
    assert len(gm.graph.nodes) == 102
    x = D.randn(3)
    Interpreter(gm).run(x)
