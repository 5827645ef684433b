"""Interpreter, Transformer and replay(): graphs run node by node through the dispatcher.

Every corpus program is traced at both capture levels and replayed on fresh inputs with
``replay(gm, *inputs, check_against=program)``, which also checks every op's value against the
program run eagerly (same op sequence, same values); the result must equal eager execution.
Pre-dispatch graphs replay under eager autograd with the gradients of the original program.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from dispatcher.autograd.grad_mode import is_grad_enabled
from dispatcher.fake import FakeTensor, FakeTensorMode
from dispatcher.modes import LoggingTensorMode
from dispatcher.op_overload import OpOverload, namespace
from passes.interpreter import Interpreter, Transformer
from passes.replay import ReplayMismatch, replay
from tests import corpus as C
from tests.corpus import PROGRAMS
from tracer import make_fx

aten = namespace("aten")

#: pre-dispatch graphs calling backward through an op kept whole (layer_norm, cross_entropy, nll_loss_nd), which
#: saves activations inside itself: PyTorch bakes them into constants (wrong on fresh inputs); ours recomputes them
#: with nodes marked ``meta["saved_inside"]``, which replay() does not align with the reference's ops
_SAVED_INSIDE_WHOLE_OP = {"ln_backward_partial", "embedding_classifier", "log_softmax_nll_grad"}


def _trace(name: str, pre: bool, seed: int = 0) -> GraphModuleLike:
    prog, shapes, rg = PROGRAMS[name]
    return make_fx(prog(D, DF), pre_dispatch=pre)(*C.inputs(D, C.arrays(shapes, seed), rg))


GraphModuleLike = Any


def _as_list(x: Any) -> Any:
    return list(x) if isinstance(x, tuple) else x


# --- replay of the whole corpus ----------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["post", "pre"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_replay_matches_eager_op_by_op(name: str, level: str) -> None:
    pre = level == "pre"
    gm = _trace(name, pre)
    prog, shapes, rg = PROGRAMS[name]
    fresh = C.arrays(shapes, 1)
    if pre and name in _SAVED_INSIDE_WHOLE_OP:
        assert any("saved_inside" in n.meta for n in gm.graph.nodes)
    got = replay(gm, *C.inputs(D, fresh, rg), check_against=prog(D, DF))
    expected = prog(D, DF)(*C.inputs(D, fresh, rg))
    C.assert_close(_as_list(C.to_np(expected)), _as_list(C.to_np(got)))
    # the plain Interpreter gives the same result (post-dispatch graphs run without autograd)
    plain = Interpreter(gm).run(*C.inputs(D, fresh, rg if pre else ()))
    C.assert_close(_as_list(C.to_np(expected)), _as_list(C.to_np(plain)))


def _float_input_indices(arrays: list) -> tuple[int, ...]:
    def floats(a: Any) -> bool:
        if isinstance(a, np.ndarray):
            return a.dtype.kind == "f"
        if isinstance(a, list):
            return any(floats(e) for e in a)
        if isinstance(a, dict):
            return any(floats(e) for e in a.values())
        return False

    return tuple(i for i, a in enumerate(arrays) if floats(a))


def _loss(out: Any) -> Any:
    leaves = [t for t in _leaves(out) if isinstance(t, D.Tensor) and t.requires_grad]
    total = None
    for t in leaves:
        total = t.sum() if total is None else total + t.sum()
    return total


def _leaves(x: Any) -> list:
    if isinstance(x, (list, tuple)):
        return [e for v in x for e in _leaves(v)]
    if isinstance(x, dict):
        return [e for v in x.values() for e in _leaves(v)]
    return [x]


#: programs that call backward themselves (their gradients are their outputs, checked above)
_CALLS_BACKWARD = {n for n, (_, _, rg) in PROGRAMS.items() if rg}


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - _CALLS_BACKWARD))
def test_pre_dispatch_replay_under_eager_autograd_gives_eager_grads(name: str) -> None:
    gm = _trace(name, True)
    prog, shapes, _ = PROGRAMS[name]
    fresh = C.arrays(shapes, 2)
    everything = _float_input_indices(fresh)
    eager_in = C.inputs(D, fresh, everything)
    loss = _loss(prog(D, DF)(*eager_in))
    assert loss is not None, f"{name}: no output requires grad"
    replay_in = C.inputs(D, fresh, everything)
    replay_loss = _loss(replay(gm, *replay_in))
    try:
        loss.backward()
    except RuntimeError as e:  # eager autograd refuses (e.g. a saved tensor modified in place): so must the replay
        with pytest.raises(RuntimeError) as err:
            replay_loss.backward()
        assert str(err.value) == str(e)
        return
    replay_loss.backward()
    for a, b in zip(_leaves(eager_in), _leaves(replay_in), strict=True):
        if isinstance(a, D.Tensor) and a.requires_grad:
            assert (a.grad is None) == (b.grad is None)
            if a.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)


# --- Interpreter --------------------------------------------------------------------------------------------------


def test_subclass_overriding_run_node_counts_ops() -> None:
    class Counter(Interpreter):
        def __init__(self, gm: Any) -> None:
            super().__init__(gm)
            self.counts: dict[str, int] = {}

        def run_node(self, n: Any) -> Any:
            self.counts[n.op] = self.counts.get(n.op, 0) + 1
            return super().run_node(n)

    gm = _trace("mlp", False)
    _, shapes, _ = PROGRAMS["mlp"]
    interp = Counter(gm)
    interp.run(*C.inputs(D, C.arrays(shapes, 1), ()))
    expected: dict[str, int] = {}
    for n in gm.graph.nodes:
        expected[n.op] = expected.get(n.op, 0) + 1
    assert interp.counts == expected and interp.counts["call_function"] == 6


def test_subclass_overriding_call_function_swaps_an_op() -> None:
    def f(x):
        return x.sin() * 2

    class SinToCos(Interpreter):
        def call_function(self, target: Any, args: tuple, kwargs: dict) -> Any:
            if target is aten.sin.default:
                target = aten.cos.default
            return super().call_function(target, args, kwargs)

    x = D.randn(4)
    gm = make_fx(f)(x)
    np.testing.assert_allclose(SinToCos(gm).run(x).numpy(), (x.cos() * 2).numpy(), rtol=1e-6)
    np.testing.assert_allclose(Interpreter(gm).run(x).numpy(), f(x).numpy(), rtol=1e-6)


def test_replay_under_logging_mode_sees_the_graphs_ops() -> None:
    gm = _trace("linear_softmax_ln", False)
    _, shapes, _ = PROGRAMS["linear_softmax_ln"]
    args = C.inputs(D, C.arrays(shapes, 1), ())
    with LoggingTensorMode() as mode:
        replay(gm, *args)
    graph_ops = [n.target for n in gm.graph.nodes if n.op == "call_function" and isinstance(n.target, OpOverload)]
    assert [c.func for c in mode.calls] == graph_ops
    assert "aten.addmm.default" in mode.format()


def test_replay_under_fake_mode_computes_shapes_only() -> None:
    gm = _trace("transformer_block", False)
    _, shapes, _ = PROGRAMS["transformer_block"]
    real_in = C.inputs(D, C.arrays(shapes, 1), ())
    expected = PROGRAMS["transformer_block"][0](D, DF)(*real_in)
    with FakeTensorMode() as mode:
        fake_in = [mode.from_tensor(t) for t in real_in]
        out = replay(gm, *fake_in)
    assert isinstance(out, FakeTensor)
    assert tuple(out.shape) == tuple(expected.shape) and out.dtype == expected.dtype
    assert out.stride() == expected.stride()


def test_values_are_freed_after_their_last_use() -> None:
    class Watch(Interpreter):
        def __init__(self, gm: Any) -> None:
            super().__init__(gm)
            self.order = {n: i for i, n in enumerate(gm.graph.nodes)}
            self.last_use = {n: max((self.order[u] for u in n.users), default=-1) for n in gm.graph.nodes}
            self.max_live = 0

        def run_node(self, n: Any) -> Any:
            here = self.order[n]
            for m in self.env:  # nothing whose last use is behind us is still held
                assert self.last_use[m] >= here or not m.users, f"{m.name} kept after its last use"
            self.max_live = max(self.max_live, len(self.env))
            return super().run_node(n)

    gm = _trace("transformer_block", False)
    _, shapes, _ = PROGRAMS["transformer_block"]
    interp = Watch(gm)
    interp.run(*C.inputs(D, C.arrays(shapes, 1), ()))
    assert interp.max_live < len(gm.graph.nodes) // 2
    keep = Interpreter(gm, garbage_collect_values=False)
    keep.run(*C.inputs(D, C.arrays(shapes, 1), ()))
    assert len(keep.env) == len(gm.graph.nodes)


def test_nested_inputs_and_outputs_follow_the_graphs_pytree_info() -> None:
    gm = _trace("nested_in", False)
    xs, d = [D.randn(2), D.randn(2)], {"a": D.randn(2), "b": D.randn(3)}
    out = Interpreter(gm).run(xs, d)
    assert set(out) == {"s", "n"} and isinstance(out["n"], list)
    np.testing.assert_allclose(out["s"].numpy(), (xs[0] + xs[1] * d["a"]).numpy(), rtol=1e-6)
    flat = Interpreter(gm).run(xs[0], xs[1], d["a"], d["b"], enable_io_processing=False)
    assert isinstance(flat, list) and len(flat) == 2


def test_missing_input_and_failing_node_errors() -> None:
    def f(x, y):
        return x.sin() + y

    gm = make_fx(f)(D.randn(3), D.randn(3))
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter y_1"):
        Interpreter(gm).run(D.randn(3))
    with pytest.raises(RuntimeError) as err:  # shapes that do not broadcast: the note names the node and user line
        Interpreter(gm).run(D.randn(3), D.randn(4))
    notes = "\n".join(getattr(err.value, "__notes__", []))
    assert "While executing %add" in notes and "return x.sin() + y" in notes
    with pytest.raises(TypeError, match="expected a GraphModule"):
        Interpreter(f)  # type: ignore[arg-type]


def test_grad_mode_is_restored_when_a_pre_dispatch_graph_raises() -> None:
    def f(x, y):
        with D.no_grad():
            z = x + y
        return z * 2

    gm = make_fx(f, pre_dispatch=True)(D.randn(3), D.randn(3))
    assert any(getattr(n.target, "__name__", "") == "_set_grad_enabled" for n in gm.graph.nodes)
    with pytest.raises(RuntimeError):
        Interpreter(gm).run(D.randn(3), D.randn(5))
    assert is_grad_enabled()


# --- Transformer ------------------------------------------------------------------------------------------------


def test_identity_transformer_reproduces_the_graph() -> None:
    for name in ("transformer_block", "nested_in", "no_grad_region", "constants"):
        for pre in (False, True):
            gm = _trace(name, pre)
            new = Transformer(gm).transform()
            new.graph.lint()
            assert new.code == gm.code
            assert [n.meta.get("stack_trace") for n in new.graph.nodes] == \
                [n.meta.get("stack_trace") for n in gm.graph.nodes]


class _SwapOp(Transformer):
    """Replaces the ``which``-th call of ``old`` by ``new``."""

    def __init__(self, gm: Any, old: Any, new: Any, which: int = 0) -> None:
        super().__init__(gm)
        self.old, self.new, self.which, self.seen = old, new, which, 0

    def call_function(self, target: Any, args: tuple, kwargs: dict) -> Any:
        if target is self.old:
            self.seen += 1
            if self.seen - 1 == self.which:
                target = self.new
        return super().call_function(target, args, kwargs)


def test_transformer_swapping_an_op_recomputes_meta_and_lints() -> None:
    gm = _trace("mlp", False)
    new = _SwapOp(gm, aten.relu.default, aten.sigmoid.default).transform()
    new.graph.lint()
    sig = [n for n in new.graph.nodes if n.target is aten.sigmoid.default]
    assert len(sig) == 1 and isinstance(sig[0].meta["val"], FakeTensor)
    assert "stack_trace" in sig[0].meta and "F.relu(F.linear(x, w1, b1))" in sig[0].meta["stack_trace"]
    assert "torch.ops.aten.sigmoid.default" in new.code and "relu" not in new.code
    _, shapes, _ = PROGRAMS["mlp"]
    x, w1, b1, w2, b2 = C.inputs(D, C.arrays(shapes, 1), ())
    np.testing.assert_allclose(new(x, w1, b1, w2, b2).numpy(),
                               DF.linear(DF.linear(x, w1, b1).sigmoid(), w2, b2).sum(-1).numpy(), rtol=1e-5)


def test_transformer_can_drop_nodes() -> None:
    class DropDetach(Transformer):
        def call_function(self, target: Any, args: tuple, kwargs: dict) -> Any:
            if target is aten.detach.default:
                return args[0]
            return super().call_function(target, args, kwargs)

    gm = _trace("autograd_grad", False)
    assert aten.detach.default in [n.target for n in gm.graph.nodes]
    new = DropDetach(gm).transform()
    new.graph.lint()
    assert aten.detach.default not in [n.target for n in new.graph.nodes]
    prog, shapes, rg = PROGRAMS["autograd_grad"]
    fresh = C.arrays(shapes, 1)
    C.assert_close(_as_list(C.to_np(prog(D, DF)(*C.inputs(D, fresh, rg)))),
                   _as_list(C.to_np(new(*C.inputs(D, fresh, ())))))


# --- replay(check_against=...) reports the first bad node -----------------------------------------------------------


def _attention_program(T: Any, F: Any) -> Any:
    def f(q, k, v):
        s = q @ k.transpose(-2, -1)
        s = s / 4.0
        p = F.softmax(s, -1)
        return p @ v
    return f


def test_replay_mismatch_names_a_swapped_op_node() -> None:
    q, k, v = (D.randn(1, 2, 4, 8) for _ in range(3))
    gm = make_fx(_attention_program(D, DF))(q, k, v)
    bad = _SwapOp(gm, aten.div.Tensor, aten.mul.Tensor).transform()
    with pytest.raises(ReplayMismatch) as err:
        replay(bad, q, k, v, check_against=_attention_program(D, DF))
    e = err.value
    assert isinstance(e, AssertionError)
    assert e.node.name == "mul" and e.target is aten.mul.Tensor and e.reference_target is aten.div.Tensor
    assert e.max_abs_diff is not None and e.max_abs_diff > 0.1
    assert "s = s / 4.0" in e.source_line and "s = s / 4.0" in str(e)
    assert "diverge" in str(e) and "node mul" in str(e)


def test_replay_mismatch_names_the_first_node_with_a_wrong_value() -> None:
    q, k, v = (D.randn(1, 2, 4, 8) for _ in range(3))
    gm = make_fx(_attention_program(D, DF))(q, k, v)

    class WrongScale(Transformer):  # same ops, one wrong constant: only values can tell
        def call_function(self, target: Any, args: tuple, kwargs: dict) -> Any:
            if target is aten.div.Tensor:
                args = (args[0], 5.0)
            return super().call_function(target, args, kwargs)

    bad = WrongScale(gm).transform()
    assert [n.target for n in bad.graph.nodes] == [n.target for n in gm.graph.nodes]
    with pytest.raises(ReplayMismatch) as err:
        replay(bad, q, k, v, check_against=_attention_program(D, DF))
    e = err.value
    assert e.node.name == "div" and e.target is aten.div.Tensor and e.reference_target is aten.div.Tensor
    s = (q @ k.transpose(-2, -1)).numpy()
    np.testing.assert_allclose(e.max_abs_diff, np.abs(s / 4.0 - s / 5.0).max(), rtol=1e-4)
    assert "max abs difference" in str(e) and "s = s / 4.0" in str(e)
    # the same graph checked against itself passes, and replay returns the graph's outputs
    out = replay(gm, q, k, v, check_against=_attention_program(D, DF))
    np.testing.assert_allclose(out.numpy(), _attention_program(D, DF)(q, k, v).numpy(), rtol=1e-5)


def test_replay_reports_a_reference_that_runs_more_ops() -> None:
    def f(x):
        return x.sin()

    def longer(x):
        return x.sin().cos()

    x = D.randn(3)
    gm = make_fx(f)(x)
    with pytest.raises(ReplayMismatch, match="more ops than the graph holds"):
        replay(gm, x, check_against=longer)
    with pytest.raises(ReplayMismatch, match="the reference ran only 1 ops"):
        replay(make_fx(longer)(x), x, check_against=f)


def test_replay_final_outputs_are_compared() -> None:
    def f(x):
        return x.sin(), 3

    def g(x):
        return x.sin(), 4

    x = D.randn(3)
    with pytest.raises(ReplayMismatch, match="output 1"):
        replay(make_fx(f)(x), x, check_against=g)


def test_replay_with_random_ops_draws_what_the_reference_drew() -> None:
    def f(x):
        return DF.dropout(x, 0.5, training=True) + D.randn(3)

    x = D.randn(3)
    gm = make_fx(f)(x)
    out = replay(gm, x, check_against=f)  # would differ without the shared random state
    assert out.shape == (3,)


def test_replay_does_not_mutate_the_reference_inputs_twice() -> None:
    def f(x):
        return x.add_(1)

    x = D.zeros(3)
    gm = make_fx(f)(D.zeros(3))
    out = replay(gm, x, check_against=f)
    np.testing.assert_array_equal(x.numpy(), np.ones(3, np.float32))  # the graph ran once on x
    np.testing.assert_array_equal(out.numpy(), np.ones(3, np.float32))


def test_replay_argument_errors() -> None:
    gm = make_fx(lambda x: x.sin())(D.randn(2))
    with pytest.raises(TypeError, match="check_against must be a callable"):
        replay(gm, D.randn(2), check_against=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a GraphModule"):
        replay(copy.copy, D.randn(2))  # type: ignore[arg-type]
