"""tracer.compile's controls: markers (forms, order, weak references, logging), fullgraph, explain, cache, errors."""

from __future__ import annotations

import gc
import logging
import sys
import types
import weakref

import numpy as np
import pytest

import dispatcher as D
import tracer
from tracer.compile_markers import _reset_markers


@pytest.fixture(autouse=True)
def _clean():
    tracer.reset()
    yield
    _reset_markers()
    tracer.reset()


def _recorder():
    graphs = []

    def rec(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    return graphs, rec


def _names(gm):
    return [n.target if n.op == "call_method" else getattr(n.target, "__name__", str(n.target))
            for n in gm.graph.nodes if n.op in ("call_function", "call_method")]


def _x():
    return D.tensor([0.5, -1.0, 2.0, 0.25])


# --- disable -------------------------------------------------------------------------------------------------------


def test_disable_does_not_mutate_and_logs(caplog):
    def helper(x):
        return x * 3

    d = tracer.disable(helper)
    assert d is not helper and d.__wrapped__ is helper
    assert not hasattr(helper, "_tracer_disabled_fn")
    graphs, rec = _recorder()

    def f(x):
        return d(x.sin()).cos()

    with caplog.at_level(logging.INFO, logger="tracer.compile"):
        out = tracer.compile(f, backend=rec)(_x())
    np.testing.assert_allclose(out.numpy(), f(_x()).numpy(), rtol=1e-6)
    assert [_names(g) for g in graphs] == [["sin"], ["cos"]]
    assert any("helper" in r.getMessage() and "eagerly" in r.getMessage() for r in caplog.records)


def test_disable_context_manager():
    graphs, rec = _recorder()

    def f(x):
        y = x.sin()
        with tracer.disable():
            z = y * 2  # eager
        return z.cos()

    out = tracer.compile(f, backend=rec)(_x())
    np.testing.assert_allclose(out.numpy(), f(_x()).numpy(), rtol=1e-6)
    assert [_names(g) for g in graphs] == [["sin"], ["cos"]]


def test_disable_as_decorator_factory_and_any_order():
    @tracer.disable()
    def a(x):
        return x + 1

    @tracer.allow_in_graph
    @tracer.disable
    def b(x):
        return x + 2

    graphs, rec = _recorder()

    def f(x):
        return b(a(x.sin())).cos()

    out = tracer.compile(f, backend=rec)(_x())
    np.testing.assert_allclose(out.numpy(), f(_x()).numpy(), rtol=1e-6)
    # the disable wrapper wins whatever the order: both run eagerly
    assert [_names(g) for g in graphs] == [["sin"], ["cos"]]


def test_disabled_function_called_outside_compile_and_compiled_inside_disabled():
    inner = tracer.compile(lambda x: x.sin() + 1)
    d = tracer.disable(lambda x: inner(x))
    np.testing.assert_allclose(d(_x()).numpy(), (_x().sin() + 1).numpy(), rtol=1e-6)
    assert tracer.compile_stats()["misses"] == 0  # everything under a disabled call runs eagerly


def test_disable_module(caplog):
    mod = types.ModuleType("h7_fake_pkg.helpers")
    exec("def triple(x):\n    return x * 3\n", mod.__dict__)
    sys.modules["h7_fake_pkg.helpers"] = mod
    try:
        tracer.disable_module("h7_fake_pkg")
        graphs, rec = _recorder()

        def f(x):
            return mod.triple(x.sin()).cos()

        with caplog.at_level(logging.INFO, logger="tracer.compile"):
            out = tracer.compile(f, backend=rec)(_x())
        np.testing.assert_allclose(out.numpy(), f(_x()).numpy(), rtol=1e-6)
        assert [_names(g) for g in graphs] == [["sin"], ["cos"]]
        assert any("h7_fake_pkg" in r.getMessage() for r in caplog.records)
    finally:
        del sys.modules["h7_fake_pkg.helpers"]
    with pytest.raises(ValueError, match="dotted module name"):
        tracer.disable_module("not a module")


# --- allow / disallow ------------------------------------------------------------------------------------------------


def test_markers_are_weak():
    def weird(x):
        return x * 2

    ref = weakref.ref(weird)
    assert tracer.allow_in_graph(weird) is weird
    from tracer import compile_markers as M
    assert M.is_allowed_code(weird.__code__) is weird
    code = weird.__code__
    del weird
    gc.collect()
    assert ref() is None
    assert code not in M._allowed_codes

    def g(x):
        return x

    tracer.disable(g)
    r2 = weakref.ref(g)
    del g
    gc.collect()
    assert r2() is None


def test_disallow_rejects_python_functions():
    with pytest.raises(RuntimeError, match="disallow_in_graph is expected to be used on an already allowed callable"):
        tracer.disallow_in_graph(lambda x: x)


def test_disallow_aten_overload_warns_and_does_not_affect_operators():
    graphs, rec = _recorder()
    with pytest.warns(UserWarning, match="torch-function level"):
        tracer.disallow_in_graph(D.ops.aten.add.Tensor)

    def f(x, y):
        return (x + y).sin()

    tracer.compile(f, backend=rec)(_x(), _x())
    assert [_names(g) for g in graphs] == [["add", "sin"]]  # `x + y` is Tensor.add: still in the graph

    graphs.clear()
    tracer.reset()

    def g(x, y):  # a direct call of the overload does break
        return D.ops.aten.add.Tensor(x.cos(), y).sin()

    out = tracer.compile(g, backend=rec)(_x(), _x())
    np.testing.assert_allclose(out.numpy(), g(_x(), _x()).numpy(), rtol=1e-6)
    assert [_names(g) for g in graphs] == [["cos"], ["sin"]]


def test_disallow_op_namespace():
    lib = D.Library("h7ns", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CPU")
    lib.impl("twice", lambda x: x * 2, "Meta")
    graphs, rec = _recorder()

    def f(x):
        return D.ops.h7ns.twice.default(x.sin()).cos()

    tracer.compile(f, backend=rec)(_x())
    assert [_names(g) for g in graphs] == [["sin", "twice.default", "cos"]]
    graphs.clear()
    tracer.reset()
    tracer.disallow_in_graph(D.ops.h7ns)
    out = tracer.compile(f, backend=rec)(_x())
    np.testing.assert_allclose(out.numpy(), f(_x()).numpy(), rtol=1e-6)
    assert [_names(g) for g in graphs] == [["sin"], ["cos"]]


# --- fullgraph -----------------------------------------------------------------------------------------------------


def test_fullgraph_errors_name_reason_and_line():
    def f(x):
        y = x.sin()
        tracer.graph_break()
        return y

    with pytest.raises(tracer.Unsupported, match=r"Call to `tracer.graph_break\(\)`") as info:
        tracer.compile(f, fullgraph=True)(_x())
    assert f'line {f.__code__.co_firstlineno + 2}, in f' in str(info.value)
    # nothing is left behind: no session, no mode, no profiler
    from dispatcher.modes.function_mode import _len_torch_function_stack
    assert _len_torch_function_stack() == 0 and sys.getprofile() is None


def test_fullgraph_allow_declared():
    def declared(x):
        y = x.sin()
        tracer.graph_break()
        return y.cos()

    def accidental(x):
        y = x.sin()
        return y * y.sum().item()

    out = tracer.compile(declared, fullgraph="allow_declared")(_x())
    np.testing.assert_allclose(out.numpy(), declared(_x()).numpy(), rtol=1e-6)
    with pytest.raises(tracer.Unsupported, match="Tensor.item"):
        tracer.compile(accidental, fullgraph="allow_declared")(_x())
    with pytest.raises(ValueError, match="fullgraph"):
        tracer.compile(declared, fullgraph="yes")


# --- explain, cache, backends ------------------------------------------------------------------------------------------


def test_explain_dedups_reasons_and_graphs_print():
    def f(x):
        for _ in range(3):
            x = x.sin()
            tracer.graph_break()
        return x + 1

    e = tracer.explain(f)(_x())
    assert e.graph_count == 4 and e.graph_break_count == 3
    assert len(e.break_reasons) == 1  # same reason, same line
    assert e.ops_per_graph[-1] == [__import__("operator").add]
    assert "sin" in e.graphs[0].code
    assert "Graph Count: 4" in str(e)


def test_cache_hits_recompiles_and_reasons():
    cf = tracer.compile(lambda x: (x.sin() * 2).sum(0))
    cf(D.randn(4, 3))
    cf(D.randn(4, 3))
    cf(D.randn(5, 3))
    s = tracer.compile_stats()
    assert s["misses"] == 2 and s["hits"] == 1 and s["recompiles"] == 1
    assert s["recompile_reasons"] == ["tensor 'x' size mismatch at index 0. expected 4, actual 5"]
    tracer.reset()
    assert tracer.compile_stats()["misses"] == 0


def test_callable_backend_and_bad_backends():
    seen = []

    def backend(gm, example_inputs):
        seen.append([tuple(t.shape) for t in example_inputs])
        return gm.forward

    out = tracer.compile(backend=backend)(lambda x: x.cos())(_x())
    np.testing.assert_allclose(out.numpy(), _x().cos().numpy(), rtol=1e-6)
    assert seen == [[(4,)]]
    with pytest.raises(ValueError, match="Invalid backend"):
        tracer.compile(lambda x: x, backend="nope")
    with pytest.raises(TypeError, match="backend"):
        tracer.compile(lambda x: x, backend=3)


def test_aot_eager_lowers_to_aten():
    graphs = []
    from tracer.backends import aot_eager

    def rec(gm, example_inputs):
        fn = aot_eager(gm, example_inputs)
        graphs.append(fn.__self__)
        return fn

    import dispatcher.nn.functional as F
    out = tracer.compile(lambda x, w: F.linear(x, w).relu(), backend=rec)(D.randn(2, 3), D.randn(4, 3))
    assert out.shape == (2, 4)
    targets = [str(n.target) for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert targets == ["aten.t.default", "aten.mm.default", "aten.relu.default"]


def test_lazy_tensor_left_over_after_error_explains():
    kept = []

    def f(x):
        y = x.sin()
        kept.append(y)
        raise KeyError("boom")

    with pytest.raises(KeyError):
        tracer.compile(f)(_x())
    with pytest.raises(RuntimeError, match="never computed"):
        kept[0] + 1


def test_inplace_on_inputs_and_python_side_effects():
    def f(x, log):
        x.add_(1)
        log.append(x.shape[0])
        return x * 2

    x = _x()
    log = []
    out = tracer.compile(f)(x, log)
    np.testing.assert_allclose(x.numpy(), _x().numpy() + 1, rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), (_x().numpy() + 1) * 2, rtol=1e-6)
    assert log == [4]


@pytest.mark.parametrize("how,reason", [
    ("print", "Failed to trace builtin operator `print`"),
    ("tolist", "Tensor.tolist() with non-integer tensor"),
    ("numpy", "Unsupported Tensor.numpy() call (it needs data)"),
    ("asarray", "Data dependent operator"),
    ("float", "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
])
def test_data_dependent_breaks(how, reason, capsys):
    def f(x):
        y = x.sin()
        if how == "print":
            print(y)
            k = 1.0
        elif how == "tolist":
            k = y.tolist()[0]
        elif how == "numpy":
            k = float(y.numpy()[0])
        elif how == "asarray":
            k = float(np.asarray(y)[0])
        else:
            k = float(y.sum())
        return y.cos() * k

    e = tracer.explain(f)(_x())
    assert (e.graph_count, [r.reason for r in e.break_reasons]) == (2, [reason])
    assert e.break_reasons[0].location[1] > f.__code__.co_firstlineno
    np.testing.assert_allclose(tracer.compile(f)(_x()).numpy(), f(_x()).numpy(), rtol=1e-6)


def test_compiled_function_called_inside_compiled_is_inlined():
    inner = tracer.compile(lambda x: x.sin() + 1)
    graphs, rec = _recorder()
    out = tracer.compile(lambda x: inner(x.cos()) * 2, backend=rec)(_x())
    np.testing.assert_allclose(out.numpy(), ((_x().cos().sin() + 1) * 2).numpy(), rtol=1e-6)
    assert [_names(g) for g in graphs] == [["cos", "sin", "add", "mul"]]


def test_explain_of_a_compiled_function_and_graph_lint():
    cf = tracer.compile(lambda x: x.sin().sum(0) + x.cos())
    e = tracer.explain(cf)(D.randn(3))
    assert e.graph_count == 1 and e.graph_break_count == 0 and e.break_reasons == []
    e.graphs[0].graph.lint()
    assert "sin" in e.graphs[0].print_readable(print_output=False)


def test_aot_eager_pre_dispatch_when_inputs_require_grad():
    from tracer.backends import aot_eager
    made = []

    def rec(gm, example_inputs):
        fn = aot_eager(gm, example_inputs)
        made.append(fn.__self__)
        return fn

    import dispatcher.nn.functional as F
    w = D.randn(4, 3, requires_grad=True)
    out = tracer.compile(lambda x, w: F.linear(x, w).relu().sum(), backend=rec)(D.randn(2, 3), w)
    out.backward()
    assert made[0].aot_pre_dispatch is True
    assert "aten.linear.default" in [str(n.target) for n in made[0].graph.nodes if n.op == "call_function"]
    assert w.grad is not None and w.grad.shape == (4, 3)


def test_thread_isolation():
    import threading

    results = {}

    def work(i):
        cf = tracer.compile(lambda x: x * i + x.sin())
        results[i] = cf(D.full((3,), float(i))).numpy()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        np.testing.assert_allclose(results[i], (D.full((3,), float(i)) * i + D.full((3,), float(i)).sin()).numpy(),
                                   rtol=1e-6)


def test_explain_graphs_are_drawable_by_passes():
    import passes

    def f(x):
        y = x.sin()
        tracer.graph_break()
        return (y.cos() + 1).relu()

    e = tracer.explain(f)(_x())
    dots = [passes.to_dot(gm) for gm in e.graphs]
    assert "sin" in dots[0] and "cos" in dots[1] and "add" in dots[1]


def test_print_breaks_the_graph_like_dynamo(torch, capsys):
    """Dynamo cannot trace ``print`` (of anything): the graph ends before the call, which runs eagerly, in order."""
    import torch._dynamo

    def prog(T):
        def f(x):
            y = x * 2
            print("between")
            z = y + 1
            print("tensor:", z.shape[0])
            return z.sin()
        return f

    class Rec:
        def __init__(self):
            self.counts = []

        def __call__(self, gm, example_inputs):
            self.counts.append(len([n for n in gm.graph.nodes if n.op == "call_function"]))
            return gm.forward

    rt, ro = Rec(), Rec()
    torch._dynamo.reset()
    torch.compile(prog(torch), backend=rt)(torch.ones(3))
    theirs = capsys.readouterr().out
    out = tracer.compile(prog(D), backend=ro)(D.ones(3))
    assert ro.counts == rt.counts == [1, 1, 0]  # (z.sin() is a call_method node)
    assert capsys.readouterr().out == theirs == "between\ntensor: 3\n"
    np.testing.assert_allclose(out.numpy(), np.sin(np.full(3, 3.0, np.float32)), rtol=1e-6)
    e = tracer.explain(prog(D))(D.ones(3))
    assert [r.reason for r in e.break_reasons] == ["Failed to trace builtin operator `print`"] * 2
    with pytest.raises(tracer.Unsupported, match="print"):
        tracer.compile(prog(D), fullgraph="allow_declared")(D.ones(3))


def test_requires_grad_on_an_intermediate_breaks_before_the_call(torch):
    """A leaf made inside the graph that backward() then uses: Dynamo breaks at requires_grad_() (the tensor
    leaks out of the graph at the backward break), so autograd accumulates into the tensor the user holds."""
    import torch._dynamo as dynamo

    def f(T, x):
        w = x.clone().requires_grad_()
        y = (w * w).sum()
        y.backward()
        return w.grad * 2

    dynamo.reset()
    theirs = dynamo.explain(lambda x: f(torch, x))(torch.arange(4, dtype=torch.float32))
    ours = tracer.explain(lambda x: f(D, x))(D.arange(4, dtype=D.float32))
    assert ours.graph_count == theirs.graph_count == 3  # clone | mul, sum | grad * 2
    assert [r.reason for r in ours.break_reasons] == [str(r.reason).splitlines()[0] for r in theirs.break_reasons]
    assert ours.break_reasons[0].reason == "requires_grad_() intermediate leaked as output"
    for backend in ("eager", "numpy"):
        tracer.reset()
        got = tracer.compile(lambda x: f(D, x), backend=backend)(D.arange(4, dtype=D.float32))
        np.testing.assert_allclose(got.numpy(), np.arange(4, dtype=np.float32) * 4)
