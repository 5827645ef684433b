"""make_fx against torch 2.13's make_fx: op sequences, generated code, replay on fresh inputs.

Each program is written once against a namespace ``T`` (torch, or the ``dispatcher`` package)
and ``F`` (its ``nn.functional``), traced by both libraries on the same data; the
``call_function`` target sequences (``str(node.target)``) must be identical, the graph must
lint, and the GraphModule, called on *fresh* inputs, must match eager execution.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tests.corpus import PROGRAMS
from tracer import make_fx


def _trace_both(torch: Any, name: str, **kw: Any) -> tuple[Any, Any]:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    prog, shapes, rg = PROGRAMS[name]
    arrays = C.arrays(shapes, 0)
    gm_t = torch_make_fx(prog(torch, torch.nn.functional), **kw)(*C.inputs(torch, arrays, rg))
    gm_o = make_fx(prog(D, DF), **kw)(*C.inputs(D, arrays, rg))
    return gm_t, gm_o


# --- tests ---------------------------------------------------------------------------------------------------------------


#: pre-dispatch graphs calling backward through an op kept whole (layer_norm, linear, cross_entropy_loss,
#: nll_loss_nd): what autograd saved inside the op (native_layer_norm's mean / rstd, linear's t(weight),
#: nll_loss_forward's total_weight) is never seen by the mode. PyTorch bakes it into ``_tensor_constantN``
#: attributes (values of the example inputs; under fake tracing, fake constants), so its graph is wrong on other
#: inputs; ours recomputes it from the op's inputs (tracer/saved_inside.py): torch's op sequence with the
#: recomputing nodes inserted, on purpose (see _assert_recomputes_saved_inside)
_PRE_SAVED_INSIDE = {"ln_backward_partial", "embedding_classifier", "log_softmax_nll_grad"}


def _assert_recomputes_saved_inside(gm_t: Any, gm_o: Any) -> None:
    """Ours: no ``_tensor_constant`` where torch bakes one, and torch's ops in the same order, plus the ops that
    recompute the saved tensors (each carrying a value and a stack trace)."""
    assert [n for n in gm_t.graph.nodes if n.op == "get_attr"] != []
    assert [n for n in gm_o.graph.nodes if n.op == "get_attr"] == []
    ours, theirs = C.targets(gm_o), C.targets(gm_t)
    it = iter(ours)
    assert all(t in it for t in theirs), (theirs, ours)  # torch's sequence is a subsequence of ours
    assert len(ours) > len(theirs)


@pytest.mark.parametrize(("config", "name"), [
    (config, name) for config in ("post", "pre", "fake", "pre_fake") for name in sorted(PROGRAMS)
])
def test_same_ops_as_torch_and_replays(torch: Any, name: str, config: str) -> None:
    kw = {"post": {}, "pre": {"pre_dispatch": True}, "fake": {"tracing_mode": "fake"},
          "pre_fake": {"pre_dispatch": True, "tracing_mode": "fake"}}[config]
    if name == "captured_global" and "fake" in config:  # a real tensor met by fake tracing: the same error
        with pytest.raises(AssertionError) as theirs:
            _trace_both(torch, name, **kw)
        with pytest.raises(AssertionError) as ours:
            make_fx(C.p_captured_global(D, DF), **kw)(D.randn(3))
        assert str(ours.value).split(" Found in")[0] == str(theirs.value).split(" Found in")[0]
        return
    gm_t, gm_o = _trace_both(torch, name, **kw)
    if config.startswith("pre") and name in _PRE_SAVED_INSIDE:
        _assert_recomputes_saved_inside(gm_t, gm_o)
    else:
        assert C.targets(gm_o) == C.targets(gm_t)
    gm_o.graph.lint()
    placeholders = [n.name for n in gm_o.graph.nodes if n.op == "placeholder"]
    assert placeholders == [n.name for n in gm_t.graph.nodes if n.op == "placeholder"]
    # every call_function node carries a value and (when recorded) where it came from
    for n in gm_o.graph.nodes:
        if n.op == "call_function" and n.target.__name__ != "_set_grad_enabled":
            assert "val" in n.meta
    # replay on fresh inputs vs eager (a post-dispatch graph already holds autograd's work: replayed without it)
    prog, shapes, rg = PROGRAMS[name]
    fresh = C.arrays(shapes, 1)
    expected = C.to_np(prog(D, DF)(*C.inputs(D, fresh, rg)))
    got = C.to_np(gm_o(*C.inputs(D, fresh, rg if config.startswith("pre") else ())))
    C.assert_close(expected if isinstance(expected, list) else expected, got if not isinstance(got, tuple) else list(got))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_code_matches_torch(torch: Any, name: str) -> None:
    gm_t, gm_o = _trace_both(torch, name)
    assert gm_o.code.strip() == gm_t.code.strip()


#: pre-dispatch graphs of functions calling backward: PyTorch bakes the activations autograd saved into
#: ``_tensor_constantN`` attributes, ours reads the traced nodes (see test_pre_dispatch_joint_graph_tracks_...)
_PRE_SAVED_TRACKED = {"autograd_grad", "train_step", "log_softmax_nll_grad", "mlp_train_rg"}
@pytest.mark.parametrize("name", [n for n in sorted(PROGRAMS) if n not in _PRE_SAVED_TRACKED | _PRE_SAVED_INSIDE])
def test_pre_dispatch_code_matches_torch(torch: Any, name: str) -> None:
    gm_t, gm_o = _trace_both(torch, name, pre_dispatch=True)
    assert gm_o.code.strip() == gm_t.code.strip()


@pytest.mark.parametrize("name", ["linear_softmax_ln", "mlp", "attention", "no_grad_region"])
def test_pre_dispatch_replay_gives_eager_grads(torch: Any, name: str) -> None:
    prog, shapes, _ = PROGRAMS[name]
    arrays = C.arrays(shapes, 0)
    gm = make_fx(prog(D, DF), pre_dispatch=True)(*C.inputs(D, arrays, ()))
    everything = tuple(i for i, a in enumerate(arrays) if isinstance(a, np.ndarray))
    fresh = C.arrays(shapes, 2)
    eager_in = C.inputs(D, fresh, everything)
    prog(D, DF)(*eager_in).sum().backward()
    replay_in = C.inputs(D, fresh, everything)
    gm(*replay_in).sum().backward()
    for a, b in zip(eager_in, replay_in, strict=True):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pre", [False, True], ids=["post", "pre"])
def test_tensor_constructors_record_torch_ops(torch: Any, pre: bool) -> None:
    """tensor() ends with detach_ (seen before dispatch only) and copies arrays / tensors with to(copy=True);
    as_tensor and list indices do not detach (tensor_new.cpp)."""
    import warnings

    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    def prog(T: Any) -> Any:
        def f(x):
            a = T.tensor(np.ones(2, dtype=np.float32))
            b = T.tensor(x)
            c = T.as_tensor([1.0, 2.0])
            d = T.tensor([1, 2], dtype=T.float32)
            return x + a + b + c + d + x[[1, 0]]
        return f

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm_t = torch_make_fx(prog(torch), pre_dispatch=pre)(torch.randn(2))
        gm_o = make_fx(prog(D), pre_dispatch=pre)(D.randn(2))
    assert gm_o.code == gm_t.code
    assert ("aten.detach_.default" in C.targets(gm_o)) == pre


def test_pre_dispatch_records_every_grad_mode_setting(torch: Any) -> None:
    """Nested no_grad, enable_grad where grad is on, set_grad_enabled: one node per setting, as torch."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    def prog(T: Any) -> Any:
        def f(x):
            with T.no_grad():
                with T.no_grad():
                    y = x.sin()
            with T.enable_grad():
                z = x.cos()
            T.set_grad_enabled(True)
            return y + z
        return f

    gm_t = torch_make_fx(prog(torch), pre_dispatch=True)(torch.randn(3))
    gm_o = make_fx(prog(D), pre_dispatch=True)(D.randn(3))
    assert gm_o.code == gm_t.code
    assert C.targets(gm_o) == C.targets(gm_t)  # str(target) as torch's: <built-in function _set_grad_enabled>
    assert C.targets(gm_o).count("<built-in function _set_grad_enabled>") == 7


def test_stack_trace_points_at_user_line() -> None:
    def f(x):
        y = x.sin()  # the sin line
        return y * 2

    gm = make_fx(f)(D.randn(3))
    (sin,) = gm.graph.find_nodes(op="call_function", target=D.ops.aten.sin.default)
    assert "the sin line" in sin.meta["stack_trace"]
    assert "proxy_tensor.py" not in sin.meta["stack_trace"]
    gm = make_fx(f, record_stack_traces=False)(D.randn(3))
    assert all("stack_trace" not in n.meta for n in gm.graph.nodes)


def test_decomposition_table_applies_where_the_op_reaches_the_mode(torch: Any) -> None:
    aten_t = torch.ops.aten
    aten = D.ops.aten

    def my_addmm(b, x, w, beta=1, alpha=1):
        return x.mm(w) + b

    def my_linear(x, w, b):
        return x.mm(w.t()) + b

    f_o = C.p_linear_softmax_ln(D, DF)
    f_t = C.p_linear_softmax_ln(torch, torch.nn.functional)
    arrays = C.arrays([(2, 3), (4, 3), (4,)], 0)
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    for table_o, table_t, pre in [
        ({aten.addmm.default: my_addmm}, {aten_t.addmm.default: my_addmm}, False),
        ({aten.linear.default: my_linear}, {aten_t.linear.default: my_linear}, False),
        ({aten.linear.default: my_linear}, {aten_t.linear.default: my_linear}, True),
    ]:
        gm_o = make_fx(f_o, decomposition_table=table_o, pre_dispatch=pre)(*C.inputs(D, arrays, ()))
        gm_t = torch_make_fx(f_t, decomposition_table=table_t, pre_dispatch=pre)(*C.inputs(torch, arrays, ()))
        assert C.targets(gm_o) == C.targets(gm_t)
        gm_o.graph.lint()


def test_cia_op_reaching_the_mode_is_decomposed(torch: Any) -> None:
    """With autograd skipped, ``linear`` reaches the proxy mode whole; post-dispatch decomposes it (§6.3 step 3)."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from dispatcher.tls import AutoDispatchBelowAutograd

    arrays = C.arrays([(2, 3), (4, 3)], 0)
    with torch.inference_mode():
        gm_t = torch_make_fx(lambda x, w: torch.nn.functional.linear(x, w))(*C.inputs(torch, arrays, ()))
    with AutoDispatchBelowAutograd():
        gm_o = make_fx(lambda x, w: DF.linear(x, w))(*C.inputs(D, arrays, ()))
    assert C.targets(gm_o) == C.targets(gm_t) == ["aten.t.default", "aten.mm.default"]
    with AutoDispatchBelowAutograd():  # pre-dispatch keeps it whole
        gm_p = make_fx(lambda x, w: DF.linear(x, w), pre_dispatch=True)(*C.inputs(D, arrays, ()))
    assert C.targets(gm_p) == ["aten.linear.default"]


def test_bad_tracing_mode() -> None:
    with pytest.raises(AssertionError, match="Unexpected tracing type: bogus"):
        make_fx(lambda x: x, tracing_mode="bogus")


def test_pre_dispatch_joint_graph_tracks_saved_activations(torch: Any) -> None:
    """PyTorch bakes the relu output autograd saved into a _tensor_constant; ours reads the traced node."""
    gm_t, gm_o = _trace_both(torch, "autograd_grad", pre_dispatch=True)
    assert [n.target for n in gm_t.graph.nodes if n.op == "get_attr"] == ["_tensor_constant0"]
    assert [n for n in gm_o.graph.nodes if n.op == "get_attr"] == []
    (tb,) = gm_o.graph.find_nodes(op="call_function", target=D.ops.aten.threshold_backward.default)
    assert tb.args[1].name == "relu"
    prog, shapes, rg = PROGRAMS["autograd_grad"]
    fresh = C.arrays(shapes, 5)
    expected = C.to_np(prog(D, DF)(*C.inputs(D, fresh, rg)))
    C.assert_close(expected, C.to_np(list(gm_o(*C.inputs(D, fresh, rg)))))


def _dd_item(x):
    return x * x.sum().item()  # dd: item


def _dd_bool(x):
    return x * 2 if bool(x.sum() > 0) else x  # dd: bool


def _dd_if(x):
    if x.sum() > 0:  # dd: if
        return x * 2
    return x


def _dd_tolist(x):
    return x * x.tolist()[0]  # dd: tolist


def _dd_float(x):
    return x * float(x.amax())  # dd: float


def _dd_nonzero(x):
    return x.nonzero() + 1  # dd: nonzero


def _dd_mask(x):
    return x[x > 0]  # dd: mask


#: name -> (function, the op named in the error); the first five need a value, the last two an output shape
_DATA_DEPENDENT = {"item": (_dd_item, "aten._local_scalar_dense.default"),
                   "bool": (_dd_bool, "aten._local_scalar_dense.default"),
                   "if": (_dd_if, "aten._local_scalar_dense.default"),
                   "tolist": (_dd_tolist, "aten._local_scalar_dense.default"),
                   "float": (_dd_float, "aten._local_scalar_dense.default"),
                   "nonzero": (_dd_nonzero, "aten.nonzero.default"),
                   "mask": (_dd_mask, "aten.index.Tensor (through aten.nonzero.default)")}


@pytest.mark.parametrize("pre", [False, True], ids=["post", "pre"])
@pytest.mark.parametrize("case", sorted(_DATA_DEPENDENT))
def test_fake_tracing_data_dependent_error_points_at_user_line(case: str, pre: bool) -> None:
    from dispatcher.fake import DataDependentOutputException, DynamicOutputShapeException
    from tracer import TracingError

    f, op = _DATA_DEPENDENT[case]
    if pre and op == "aten._local_scalar_dense.default":  # before dispatch, .item() etc. reach the mode whole
        op = "aten.item.default (through aten._local_scalar_dense.default)"
    with pytest.raises(TracingError) as err:
        make_fx(f, tracing_mode="fake", pre_dispatch=pre)(D.randn(3))
    msg = str(err.value)
    assert isinstance(err.value, RuntimeError)
    assert msg.startswith(f"make_fx(tracing_mode='fake') cannot trace {op}: its "), msg
    shape = case in ("nonzero", "mask")
    assert ("output shape depends on tensor data" if shape else "value depends on tensor data") in msg
    # the user's frame: file, line and source text of the line in the traced function
    line = f.__code__.co_firstlineno + 1
    assert f'File "{__file__}", line {line}, in {f.__name__}' in msg
    assert f"# dd: {case}" in msg
    expected = DynamicOutputShapeException if shape else DataDependentOutputException
    assert type(err.value.__cause__) is expected


@pytest.mark.parametrize("case", ["item", "bool", "if", "float"])
def test_real_tracing_value_of_traced_tensor_raises_torch_error(torch: Any, case: str) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from tracer import TracingError

    f, _ = _DATA_DEPENDENT[case]
    with pytest.raises(RuntimeError) as torch_err:
        torch_make_fx(f)(torch.randn(3))
    with pytest.raises(TracingError) as ours:
        make_fx(f)(D.randn(3))
    head, _, where = str(ours.value).partition("\n")
    assert head == str(torch_err.value)  # torch's text, then the user's line
    assert f'File "{__file__}"' in where and f"# dd: {case}" in where
    # pre-dispatch: is_nonzero / item reach the mode whole (torch's error names aten.item.default)
    with pytest.raises(RuntimeError) as torch_err:
        torch_make_fx(f, pre_dispatch=True)(torch.randn(3))
    with pytest.raises(TracingError) as ours:
        make_fx(f, pre_dispatch=True)(D.randn(3))
    head, _, where = str(ours.value).partition("\n")
    assert head == str(torch_err.value) and f"# dd: {case}" in where


@pytest.mark.parametrize("case", ["tolist", "nonzero", "mask"])
def test_real_tracing_reads_real_data_like_torch(torch: Any, case: str) -> None:
    """With real tensors, .tolist() bakes the values and nonzero / boolean masks are traced (as torch)."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    f, _ = _DATA_DEPENDENT[case]
    arrays = C.arrays([(3,)], 0)
    gm_t = torch_make_fx(f)(*C.inputs(torch, arrays, ()))
    gm_o = make_fx(f)(*C.inputs(D, arrays, ()))
    assert C.targets(gm_o) == C.targets(gm_t)
    x = D.tensor(arrays[0])
    C.assert_close(C.to_np(f(x)), C.to_np(gm_o(x)))


def test_pre_dispatch_bool_of_tensor_is_not_baked() -> None:
    """is_nonzero reaching a pre-dispatch proxy mode is traced as (x != 0).item() and so refused (proxy_call)."""
    from tracer import TracingError

    with pytest.raises(TracingError):
        make_fx(_dd_if, pre_dispatch=True)(D.ones(3))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        make_fx(lambda x: bool(x), pre_dispatch=True)(D.ones(3))


def test_tracing_error_leaves_no_dangling_node() -> None:
    from tracer import TracingError

    def f(x):
        y = x.sin()
        try:
            y.nonzero()
        except TracingError:
            pass
        return y.cos()

    gm = make_fx(f, tracing_mode="fake")(D.randn(3))
    assert C.targets(gm) == ["aten.sin.default", "aten.cos.default"]
    gm.graph.lint()


def test_fake_mode_graph_equals_real_mode_graph() -> None:
    prog, shapes, rg = PROGRAMS["transformer_block"]
    arrays = C.arrays(shapes, 0)
    real = make_fx(prog(D, DF))(*C.inputs(D, arrays, rg))
    fake = make_fx(prog(D, DF), tracing_mode="fake")(*C.inputs(D, arrays, rg))
    assert fake.code == real.code
    for a, b in zip(real.graph.nodes, fake.graph.nodes, strict=True):
        va, vb = a.meta.get("val"), b.meta.get("val")
        if isinstance(va, D.Tensor):
            assert (va.shape, va.stride(), va.dtype) == (vb.shape, vb.stride(), vb.dtype)


def test_meta_val_does_not_keep_values_alive() -> None:
    import gc
    import weakref

    kept = []

    def f(x):
        y = x.sin()
        kept.append(weakref.ref(y))
        return y.cos()

    gm = make_fx(f)(D.randn(3))
    gc.collect()
    assert kept[0]() is None
    (sin,) = gm.graph.find_nodes(op="call_function", target=D.ops.aten.sin.default)
    assert isinstance(sin.meta["val"], D.fake.FakeTensor) and sin.meta["val"].shape == (3,)


def test_errors_in_the_traced_function_restore_state() -> None:
    from dispatcher.autograd import grad_mode
    from dispatcher.modes import _len_torch_dispatch_stack, _len_torch_dispatch_stack_pre_dispatch
    from dispatcher.tls import tls_local_include_set

    before = (tls_local_include_set(), type(grad_mode._state).__dict__["enabled"], D.is_grad_enabled())

    def f(x):
        with D.no_grad():
            raise ValueError("boom")

    for kw in ({}, {"pre_dispatch": True}, {"tracing_mode": "fake"}):
        with pytest.raises(ValueError, match="boom"):
            make_fx(f, **kw)(D.randn(2))
        assert _len_torch_dispatch_stack() == 0 and _len_torch_dispatch_stack_pre_dispatch() == 0
        assert (tls_local_include_set(), type(grad_mode._state).__dict__["enabled"], D.is_grad_enabled()) == before


def test_user_mode_entered_before_make_fx_runs_first() -> None:
    from dispatcher.modes import TorchDispatchMode, _get_current_dispatch_mode_stack

    seen = []

    class Rename(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(([type(m).__name__ for m in _get_current_dispatch_mode_stack()], str(func)))
            if func is D.ops.aten.sin.default:
                return D.ops.aten.cos.default(*args)
            return func(*args, **(kwargs or {}))

    x = D.randn(2)
    with Rename():
        gm = make_fx(lambda x: x.sin())(x)
    assert C.targets(gm) == ["aten.cos.default"]  # the user mode ran above the proxy mode
    assert seen == [(["ProxyTorchDispatchMode"], "aten.sin.default")]
