"""make_fx against torch 2.13's make_fx: op sequences, generated code, replay on fresh inputs.

Each program is written once against a namespace ``T`` (torch, or the ``dispatcher`` package)
and ``F`` (its ``nn.functional``), traced by both libraries on the same data; the
``call_function`` target sequences (``str(node.target)``) must be identical, the graph must
lint, and the GraphModule, called on *fresh* inputs, must match eager execution.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tracer import make_fx

# --- programs --------------------------------------------------------------------------------------------------------


def p_linear_softmax_ln(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, b):
        return F.layer_norm(F.softmax(F.linear(x, w, b), -1), (4,))
    return f


def p_mlp(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w1, b1, w2, b2):
        h = F.relu(F.linear(x, w1, b1))
        return F.linear(h, w2, b2).sum(-1)
    return f


def p_attention(T: Any, F: Any) -> Callable[..., Any]:
    def f(q, k, v):
        s = (q @ k.transpose(-2, -1)) / 4.0
        return F.softmax(s, -1) @ v
    return f


def p_inplace_view(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        x = x.clone()
        x.add_(y)
        v = x.view(-1)
        return v.mul_(2)
    return f


def p_nested_out(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        return (x.sin(), [x.cos(), {"k": x + 1}], 7)
    return f


def p_scalars(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, n, s):
        return x * n + s
    return f


def p_constants(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        return x * 3 + T.tensor([1.0, 2.0]) + T.tensor([1.0, 2.0, 3.0]).sum() + T.ones(2)
    return f


def p_multi_output(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        a, b = x.max(dim=1)
        parts = x.split(2, dim=0)
        return a + b.float(), parts[0].sum() + parts[1].mean()
    return f


def p_autograd_grad(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        loss = F.relu(x @ w).sum()
        (gw,) = T.autograd.grad(loss, [w])
        return loss, gw
    return f


def p_backward_grad(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        loss = (x * w).sum()
        loss.backward()
        return w.grad
    return f


def p_no_grad_region(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        with T.no_grad():
            y = x.sin()
        return y + x.cos()
    return f


def p_transformer_block(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, wq, wk, wv, wo, w1, w2, g, b):
        B, S, Dm = x.shape
        h = F.layer_norm(x, (Dm,), g, b)
        q = F.linear(h, wq).view(B, S, 4, Dm // 4).transpose(1, 2)
        k = F.linear(h, wk).view(B, S, 4, Dm // 4).transpose(1, 2)
        v = F.linear(h, wv).view(B, S, 4, Dm // 4).transpose(1, 2)
        a = F.softmax(q @ k.transpose(-2, -1) * (Dm // 4) ** -0.5, dim=-1) @ v
        x = x + F.linear(a.transpose(1, 2).reshape(B, S, Dm), wo)
        return x + F.linear(F.gelu(F.linear(F.layer_norm(x, (Dm,)), w1)), w2)
    return f


def p_train_step(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, w1, w2):
        loss = ((F.relu(x @ w1) @ w2 - y) ** 2).mean()
        loss.backward()
        with T.no_grad():
            w1.sub_(w1.grad * 0.1)
            w2.sub_(w2.grad * 0.1)
        return loss, w1, w2
    return f


def p_views_inplace(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y[0].mul_(3)
        y[:, 1:].add_(1)
        z = y.t().contiguous().unsqueeze(0)
        return z.expand(2, 3, 2).sum(0), y.unbind(1)
    return f


def p_cat_stack_where(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        c = T.cat([x, y], dim=0)
        s = T.stack([x, y]).amax(0)
        return T.where(c > 0, c, T.zeros_like(c)), s.exp()
    return f


def p_item_of_constant(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        return x * T.tensor(3.0).item()
    return f


def p_nested_in(T: Any, F: Any) -> Callable[..., Any]:
    def f(xs, d):
        return {"s": xs[0] + xs[1] * d["a"], "n": [d["b"].neg()]}
    return f


_GLOBALS: dict[Any, Any] = {}


def p_captured_global(T: Any, F: Any) -> Callable[..., Any]:
    if T not in _GLOBALS:
        _GLOBALS[T] = (T.arange(3.0), T.ones(2, 2))
    g, out_const = _GLOBALS[T]

    def f(x):
        return x * g + g.sum(), out_const
    return f


def p_ln_backward_partial(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, b):
        y = F.layer_norm(x, (4,), w, b)
        (gx,) = T.autograd.grad(y.sin().sum(), [x])
        return gx
    return f


# name -> (program, input shapes, which inputs require grad)
PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "linear_softmax_ln": (p_linear_softmax_ln, [(2, 3), (4, 3), (4,)], ()),
    "linear_softmax_ln_rg": (p_linear_softmax_ln, [(2, 3), (4, 3), (4,)], (0,)),
    "mlp": (p_mlp, [(3, 5), (8, 5), (8,), (2, 8), (2,)], ()),
    "attention": (p_attention, [(1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8)], ()),
    "inplace_view": (p_inplace_view, [(2, 3), (2, 3)], ()),
    "nested_out": (p_nested_out, [(3,)], ()),
    "scalars": (p_scalars, [(2,), 3, 0.5], ()),
    "constants": (p_constants, [(2,)], ()),
    "multi_output": (p_multi_output, [(4, 3)], ()),
    "autograd_grad": (p_autograd_grad, [(2, 3), (3, 4)], (1,)),
    "backward_grad": (p_backward_grad, [(2, 3), (2, 3)], (1,)),
    "no_grad_region": (p_no_grad_region, [(3,)], (0,)),
    "transformer_block": (p_transformer_block, [(1, 16, 64)] + [(64, 64)] * 4 + [(128, 64), (64, 128), (64,), (64,)],
                          ()),
    "train_step": (p_train_step, [(4, 3), (4, 2), (3, 5), (5, 2)], (2, 3)),
    "views_inplace": (p_views_inplace, [(2, 3)], ()),
    "cat_stack_where": (p_cat_stack_where, [(2, 3), (2, 3)], ()),
    "item_of_constant": (p_item_of_constant, [(3,)], ()),
    "nested_in": (p_nested_in, [[(2,), (2,)], {"a": (2,), "b": (3,)}], ()),
    "captured_global": (p_captured_global, [(3,)], ()),
    "ln_backward_partial": (p_ln_backward_partial, [(2, 4), (4,), (4,)], (0,)),
}


# --- helpers -----------------------------------------------------------------------------------------------------------


def _arrays(shapes: list, seed: int) -> list:
    rng = np.random.default_rng(seed)

    def make(s: Any) -> Any:
        if isinstance(s, tuple):
            return rng.standard_normal(s).astype(np.float32)
        if isinstance(s, list):
            return [make(e) for e in s]
        if isinstance(s, dict):
            return {k: make(v) for k, v in s.items()}
        return s

    return [make(s) for s in shapes]


def _inputs(lib: Any, arrays: list, rg: tuple[int, ...]) -> list:
    def make(a: Any, grad: bool) -> Any:
        if isinstance(a, np.ndarray):
            t = lib.tensor(a.copy())
            return t.requires_grad_() if grad else t
        if isinstance(a, list):
            return [make(e, grad) for e in a]
        if isinstance(a, dict):
            return {k: make(v, grad) for k, v in a.items()}
        return a

    return [make(a, i in rg) for i, a in enumerate(arrays)]


def _target_str(t: Any) -> str:
    if t is operator.getitem:
        return "<built-in function getitem>"
    if getattr(t, "__name__", None) == "_set_grad_enabled":
        return "_set_grad_enabled"
    return str(t)


def _targets(gm: Any) -> list[str]:
    return [_target_str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


def _to_np(x: Any) -> Any:
    if hasattr(x, "detach"):
        return np.asarray(x.detach().numpy())
    if isinstance(x, (list, tuple)):
        return [_to_np(e) for e in x]
    if isinstance(x, dict):
        return {k: _to_np(v) for k, v in x.items()}
    return x


def _assert_close(a: Any, b: Any) -> None:
    if isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_close(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _assert_close(a[k], b[k])
    else:
        assert a == b


def _trace_both(torch: Any, name: str, **kw: Any) -> tuple[Any, Any]:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    prog, shapes, rg = PROGRAMS[name]
    arrays = _arrays(shapes, 0)
    gm_t = torch_make_fx(prog(torch, torch.nn.functional), **kw)(*_inputs(torch, arrays, rg))
    gm_o = make_fx(prog(D, DF), **kw)(*_inputs(D, arrays, rg))
    return gm_t, gm_o


# --- tests ---------------------------------------------------------------------------------------------------------------


#: ``torch.tensor(...)`` ends with ``detach_()`` (tensor_new.cpp), which a pre-dispatch trace records; our
#: ``dispatcher.tensor`` does not call ``aten.detach_`` (a dispatcher/creation.py change, outside the tracer)
_TENSOR_LITERAL_DETACH = pytest.mark.xfail(strict=True, reason="dispatcher.tensor() does not call aten.detach_")
#: layer_norm stays whole before dispatch, so native_layer_norm's mean / rstd, saved inside it for backward,
#: are never seen by the mode: baked in as constants, as PyTorch does (the replay on fresh inputs is wrong)
_SAVED_INSIDE_WHOLE_OP = pytest.mark.xfail(strict=True, reason="activations saved inside an op kept whole")
_KNOWN_DIFFERENCES = {("pre", "ln_backward_partial"): _SAVED_INSIDE_WHOLE_OP,
                      ("pre_fake", "ln_backward_partial"): _SAVED_INSIDE_WHOLE_OP}
_KNOWN_DIFFERENCES |= {(c, n): _TENSOR_LITERAL_DETACH for c in ("pre", "pre_fake") for n in ("constants", "item_of_constant")}


@pytest.mark.parametrize(("config", "name"), [
    pytest.param(config, name, marks=_KNOWN_DIFFERENCES.get((config, name), ()))
    for config in ("post", "pre", "fake", "pre_fake") for name in sorted(PROGRAMS)
])
def test_same_ops_as_torch_and_replays(torch: Any, name: str, config: str) -> None:
    kw = {"post": {}, "pre": {"pre_dispatch": True}, "fake": {"tracing_mode": "fake"},
          "pre_fake": {"pre_dispatch": True, "tracing_mode": "fake"}}[config]
    if name == "captured_global" and "fake" in config:  # a real tensor met by fake tracing: the same error
        with pytest.raises(AssertionError) as theirs:
            _trace_both(torch, name, **kw)
        with pytest.raises(AssertionError) as ours:
            make_fx(p_captured_global(D, DF), **kw)(D.randn(3))
        assert str(ours.value).split(" Found in")[0] == str(theirs.value).split(" Found in")[0]
        return
    gm_t, gm_o = _trace_both(torch, name, **kw)
    assert _targets(gm_o) == _targets(gm_t)
    gm_o.graph.lint()
    placeholders = [n.name for n in gm_o.graph.nodes if n.op == "placeholder"]
    assert placeholders == [n.name for n in gm_t.graph.nodes if n.op == "placeholder"]
    # every call_function node carries a value and (when recorded) where it came from
    for n in gm_o.graph.nodes:
        if n.op == "call_function" and n.target.__name__ != "_set_grad_enabled":
            assert "val" in n.meta
    # replay on fresh inputs vs eager (a post-dispatch graph already holds autograd's work: replayed without it)
    prog, shapes, rg = PROGRAMS[name]
    fresh = _arrays(shapes, 1)
    expected = _to_np(prog(D, DF)(*_inputs(D, fresh, rg)))
    got = _to_np(gm_o(*_inputs(D, fresh, rg if config.startswith("pre") else ())))
    _assert_close(expected if isinstance(expected, list) else expected, got if not isinstance(got, tuple) else list(got))


@pytest.mark.parametrize("name", ["linear_softmax_ln", "linear_softmax_ln_rg", "inplace_view", "nested_out",
                                  "autograd_grad", "mlp", "nested_in", "multi_output", "backward_grad",
                                  "captured_global", "ln_backward_partial",
                                  pytest.param("views_inplace", marks=pytest.mark.xfail(
                                      strict=True, reason="decompositions.py passes clone(memory_format=0)"))])
def test_code_matches_torch(torch: Any, name: str) -> None:
    gm_t, gm_o = _trace_both(torch, name)
    assert gm_o.code.strip() == gm_t.code.strip()


@pytest.mark.parametrize("name", ["linear_softmax_ln", "mlp", "attention", "no_grad_region", "views_inplace",
                                  "nested_in"])
def test_pre_dispatch_code_matches_torch(torch: Any, name: str) -> None:
    gm_t, gm_o = _trace_both(torch, name, pre_dispatch=True)
    # the one spelling difference: grad-mode nodes call our grad_mode module (PyTorch: torch._C)
    ours = gm_o.code.replace("torch.autograd.grad_mode._set_grad_enabled", "torch._C._set_grad_enabled")
    assert ours.strip() == gm_t.code.strip()


@pytest.mark.parametrize("name", ["linear_softmax_ln", "mlp", "attention", "no_grad_region"])
def test_pre_dispatch_replay_gives_eager_grads(torch: Any, name: str) -> None:
    prog, shapes, _ = PROGRAMS[name]
    arrays = _arrays(shapes, 0)
    gm = make_fx(prog(D, DF), pre_dispatch=True)(*_inputs(D, arrays, ()))
    everything = tuple(i for i, a in enumerate(arrays) if isinstance(a, np.ndarray))
    fresh = _arrays(shapes, 2)
    eager_in = _inputs(D, fresh, everything)
    prog(D, DF)(*eager_in).sum().backward()
    replay_in = _inputs(D, fresh, everything)
    gm(*replay_in).sum().backward()
    for a, b in zip(eager_in, replay_in, strict=True):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)


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

    f_o = p_linear_softmax_ln(D, DF)
    f_t = p_linear_softmax_ln(torch, torch.nn.functional)
    arrays = _arrays([(2, 3), (4, 3), (4,)], 0)
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    for table_o, table_t, pre in [
        ({aten.addmm.default: my_addmm}, {aten_t.addmm.default: my_addmm}, False),
        ({aten.linear.default: my_linear}, {aten_t.linear.default: my_linear}, False),
        ({aten.linear.default: my_linear}, {aten_t.linear.default: my_linear}, True),
    ]:
        gm_o = make_fx(f_o, decomposition_table=table_o, pre_dispatch=pre)(*_inputs(D, arrays, ()))
        gm_t = torch_make_fx(f_t, decomposition_table=table_t, pre_dispatch=pre)(*_inputs(torch, arrays, ()))
        assert _targets(gm_o) == _targets(gm_t)


def test_cia_op_reaching_the_mode_is_decomposed(torch: Any) -> None:
    """With autograd skipped, ``linear`` reaches the proxy mode whole; post-dispatch decomposes it (§6.3 step 3)."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from dispatcher.tls import AutoDispatchBelowAutograd

    arrays = _arrays([(2, 3), (4, 3)], 0)
    with torch.inference_mode():
        gm_t = torch_make_fx(lambda x, w: torch.nn.functional.linear(x, w))(*_inputs(torch, arrays, ()))
    with AutoDispatchBelowAutograd():
        gm_o = make_fx(lambda x, w: DF.linear(x, w))(*_inputs(D, arrays, ()))
    assert _targets(gm_o) == _targets(gm_t) == ["aten.t.default", "aten.mm.default"]
    with AutoDispatchBelowAutograd():  # pre-dispatch keeps it whole
        gm_p = make_fx(lambda x, w: DF.linear(x, w), pre_dispatch=True)(*_inputs(D, arrays, ()))
    assert _targets(gm_p) == ["aten.linear.default"]


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
    fresh = _arrays(shapes, 5)
    expected = _to_np(prog(D, DF)(*_inputs(D, fresh, rg)))
    _assert_close(expected, _to_np(list(gm_o(*_inputs(D, fresh, rg)))))


def test_data_dependent_item_raises(torch: Any) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from tracer import TracingError

    with pytest.raises(RuntimeError) as torch_err:
        torch_make_fx(lambda x: x * x.sum().item())(torch.randn(2))
    with pytest.raises(TracingError) as ours:
        make_fx(lambda x: x * x.sum().item())(D.randn(2))
    assert str(ours.value) == str(torch_err.value)

    def g(x):
        return x * x.sum().item()  # the data-dependent line

    with pytest.raises(TracingError, match="(?s)cannot trace aten._local_scalar_dense.default.*data-dependent line"):
        make_fx(g, tracing_mode="fake")(D.randn(2))


def test_fake_mode_graph_equals_real_mode_graph() -> None:
    prog, shapes, rg = PROGRAMS["transformer_block"]
    arrays = _arrays(shapes, 0)
    real = make_fx(prog(D, DF))(*_inputs(D, arrays, rg))
    fake = make_fx(prog(D, DF), tracing_mode="fake")(*_inputs(D, arrays, rg))
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
    assert _targets(gm) == ["aten.cos.default"]  # the user mode ran above the proxy mode
    assert seen == [(["ProxyTorchDispatchMode"], "aten.sin.default")]
