"""Pre-dispatch make_fx of functions that call backward through an op kept whole (tracer/saved_inside.py).

Before dispatch, ``layer_norm``, ``linear``, ``matmul``, ``cross_entropy_loss``, ``nll_loss_nd`` reach the
proxy mode whole and decompose below it; autograd saves tensors made in there (mean / rstd, ``t(weight)``,
total_weight). torch 2.13 bakes them into ``_tensor_constantN`` attributes; ours recomputes them from the op's
inputs. Each program is traced by both; ours must have no constant where torch has one, contain torch's op
sequence, and replay on *fresh* inputs (real and fake tracing) as eager runs, values that eager torch agrees with.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tracer import make_fx, saved_inside

# --- programs (against T = torch / dispatcher, F = its nn.functional) ------------------------------------------------


def p_layer_norm_grad(T: Any, F: Any) -> Any:
    def f(x, w, b):
        y = F.layer_norm(x, (4,), w, b)
        return T.autograd.grad(y.sin().sum(), [x, w, b])
    return f


def p_layer_norm_backward(T: Any, F: Any) -> Any:
    def f(x, w, b):
        y = F.layer_norm(x, (3, 4), w, b, 1e-3)
        y.sin().sum().backward()
        return y, x.grad, w.grad, b.grad
    return f


def p_broadcast_matmul_grad(T: Any, F: Any) -> Any:
    """A batched matmul with broadcasting expands and reshapes below the mode: bmm saves those inner tensors."""
    def f(a, b):
        return T.autograd.grad((a @ b).cos().sum(), [a, b])
    return f


def p_cross_entropy_backward(T: Any, F: Any) -> Any:
    def f(x, w, labels):
        loss = F.cross_entropy(x @ w, labels)
        loss.backward()
        return loss, w.grad
    return f


def p_log_softmax_nll_grad(T: Any, F: Any) -> Any:
    def f(x, labels):
        loss = F.nll_loss(F.log_softmax(x, -1), labels, reduction="sum")
        return T.autograd.grad(loss, [x])
    return f


def p_linear_3d_grad(T: Any, F: Any) -> Any:
    """3-d linear decomposes into views + mm below the mode: inner views are saved."""
    def f(x, w):
        y = F.linear(x, w)
        (gw,) = T.autograd.grad(y.tanh().sum(), [w])
        return gw
    return f


def p_nested_whole_ops(T: Any, F: Any) -> Any:
    """Whole ops feeding whole ops (linear -> layer_norm -> cross_entropy), all saving inside."""
    def f(x, w, g, labels):
        h = F.layer_norm(F.linear(x, w), (4,), g)
        loss = F.cross_entropy(F.linear(h, w.t()), labels)
        return T.autograd.grad(loss, [x, w, g])
    return f


def p_label_smoothing(T: Any, F: Any) -> Any:
    """cross_entropy with label smoothing writes in place (masked_fill_) on a tensor made inside it."""
    def f(x, labels):
        loss = F.cross_entropy(x, labels, label_smoothing=0.1)
        return T.autograd.grad(loss, [x])
    return f


def p_sdpa_causal_backward(T: Any, F: Any) -> Any:
    """sdpa on CPU runs the fused kernel below the mode; autograd saves its output and its logsumexp."""
    def f(q, k, v):
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y.sin().sum().backward()
        return y, q.grad, k.grad, v.grad
    return f


def p_sdpa_mask_grad(T: Any, F: Any) -> Any:
    def f(q, k, v, mask):
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.5)
        return T.autograd.grad(y.cos().sum(), [q, k, v])
    return f


def p_gpt_attention_backward(T: Any, F: Any) -> Any:
    """nanoGPT's CausalSelfAttention: qkv projection, heads by view + transpose, sdpa, merge, projection."""
    def f(x, w_attn, w_proj):
        b, seq, c = x.shape
        q, k, v = F.linear(x * 0.3, w_attn).split(c, dim=2)
        q, k, v = (t.view(b, seq, 2, c // 2).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = F.linear(y.transpose(1, 2).contiguous().view(b, seq, c), w_proj)
        y.tanh().mean().backward()
        return y, x.grad, w_attn.grad, w_proj.grad
    return f


def p_batch_norm_train_backward(T: Any, F: Any) -> Any:
    """Training batch norm updates the running statistics inside (native_batch_norm writes them, its schema does
    not say so): recomputed without that update, the running statistics are updated once, as in eager."""
    def f(x, w, b, running_mean, running_var):
        y = F.batch_norm(x, running_mean, running_var, w, b, training=True, momentum=0.3)
        y.tanh().sum().backward()
        return y, x.grad, w.grad, b.grad, running_mean, running_var
    return f


def p_instance_norm_grad(T: Any, F: Any) -> Any:
    def f(x, w, b):
        y = F.instance_norm(x, weight=w, bias=b)
        return T.autograd.grad(y.sin().sum(), [x, w, b])
    return f


#: name -> (program, input shapes, indices of inputs requiring grad)
PROGRAMS = {
    "sdpa_causal_backward": (p_sdpa_causal_backward, [(2, 3, 4, 8), (2, 3, 4, 8), (2, 3, 4, 8)], (0, 1, 2)),
    "sdpa_mask_grad": (p_sdpa_mask_grad, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), (4, 5)], (0, 1, 2)),
    "gpt_attention_backward": (p_gpt_attention_backward, [(2, 5, 8), (24, 8), (8, 8)], (0, 1, 2)),
    "batch_norm_train_backward": (p_batch_norm_train_backward, [(4, 3, 5), (3,), (3,), (3,), (3,)], (0, 1, 2)),
    "instance_norm_grad": (p_instance_norm_grad, [(2, 3, 5), (3,), (3,)], (0, 1, 2)),
    "layer_norm_grad": (p_layer_norm_grad, [(3, 4), (4,), (4,)], (0, 1, 2)),
    "layer_norm_backward": (p_layer_norm_backward, [(2, 3, 4), (3, 4), (3, 4)], (0, 1, 2)),
    "broadcast_matmul_grad": (p_broadcast_matmul_grad, [(2, 3, 4), (1, 4, 5)], (0, 1)),
    "cross_entropy_backward": (p_cross_entropy_backward, [(3, 4), (4, 5), ("i64", (3,), 5)], (1,)),
    "log_softmax_nll_grad": (p_log_softmax_nll_grad, [(3, 5), ("i64", (3,), 5)], (0,)),
    "linear_3d_grad": (p_linear_3d_grad, [(2, 3, 4), (5, 4)], (1,)),
    "nested_whole_ops": (p_nested_whole_ops, [(3, 4), (4, 4), (4,), ("i64", (3,), 4)], (0, 1, 2)),
    "label_smoothing": (p_label_smoothing, [(3, 5), ("i64", (3,), 5)], (0,)),
}


def _trace(lib: Any, name: str, seed: int = 0, **kw: Any) -> Any:
    prog, shapes, rg = PROGRAMS[name]
    if lib is D:
        return make_fx(prog(D, DF), pre_dispatch=True, **kw)(*C.inputs(D, C.arrays(shapes, seed), rg))
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    return torch_make_fx(prog(lib, lib.nn.functional), pre_dispatch=True, **kw)(
        *C.inputs(lib, C.arrays(shapes, seed), rg))


def _get_attrs(gm: Any) -> list[str]:
    return [n.target for n in gm.graph.nodes if n.op == "get_attr"]


@pytest.mark.parametrize("mode", ["real", "fake"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_saved_inside_whole_op_is_recomputed(torch: Any, name: str, mode: str) -> None:
    gm_t = _trace(torch, name, tracing_mode=mode)
    gm_o = _trace(D, name, tracing_mode=mode)
    assert _get_attrs(gm_t) != []  # torch bakes what autograd saved inside the whole op
    assert _get_attrs(gm_o) == []
    ours, theirs = C.targets(gm_o), C.targets(gm_t)
    it = iter(ours)
    assert all(t in it for t in theirs), (theirs, ours)  # torch's ops in the same order, plus the recomputation
    marked = [n for n in gm_o.graph.nodes if "saved_inside" in n.meta]
    assert len(marked) == len(ours) - len(theirs) > 0  # every extra node is marked as recomputing
    gm_o.graph.lint()
    for n in gm_o.graph.nodes:
        if n.op == "call_function" and n.target.__name__ != "_set_grad_enabled":
            assert "val" in n.meta and "stack_trace" in n.meta, n
    # replay on fresh inputs: eager (ours) and eager torch agree with it
    prog, shapes, rg = PROGRAMS[name]
    fresh = C.arrays(shapes, 7)
    expected = C.to_np(list(prog(D, DF)(*C.inputs(D, fresh, rg))))
    C.assert_close(expected, C.to_np(list(gm_o(*C.inputs(D, fresh, rg)))))
    C.assert_close(C.to_np(list(prog(torch, torch.nn.functional)(*C.inputs(torch, fresh, rg)))), expected)
    if mode == "real":  # op by op against eager (the marked nodes redo work done below the reference's recorder)
        from passes.replay import replay

        replay(gm_o, *C.inputs(D, fresh, rg), check_against=prog(D, DF))


@pytest.mark.parametrize("mode", ["real", "fake"])
def test_recomputed_nodes_read_the_whole_ops_inputs(mode: str) -> None:
    """layer_norm: native_layer_norm recomputed from the traced x, w, b; its mean / rstd feed the backward op;
    the nodes point at the user's forward line."""
    gm = _trace(D, "layer_norm_grad", tracing_mode=mode)
    aten = D.ops.aten
    (nln,) = gm.graph.find_nodes(op="call_function", target=aten.native_layer_norm.default)
    assert [a.name if hasattr(a, "name") else a for a in nln.args] == ["x_1", [4], "w_1", "b_1", 1e-05]
    (bwd,) = gm.graph.find_nodes(op="call_function", target=aten.native_layer_norm_backward.default)
    mean, rstd = bwd.args[3], bwd.args[4]
    assert (mean.target.__name__, mean.args) == ("getitem", (nln, 1))
    assert (rstd.target.__name__, rstd.args) == ("getitem", (nln, 2))
    assert "F.layer_norm(x, (4,), w, b)" in nln.meta["stack_trace"]
    assert nln.meta["saved_inside"] == mean.meta["saved_inside"] == "aten.layer_norm.default"
    assert tuple(mean.meta["val"].shape) == (3, 1)
    # inserted at the first use: after the forward's ops, right before the backward op
    order = list(gm.graph.nodes)
    assert order.index(nln) > order.index(next(iter(gm.graph.find_nodes(op="call_function",
                                                                         target=aten.layer_norm.default))))
    assert order.index(rstd) < order.index(bwd)


def test_replay_under_eager_autograd_gives_eager_grads(torch: Any) -> None:
    """The recomputed post-autograd ops run under autograd too: gradients of the replayed graph's outputs match
    eager's (and torch's)."""
    def prog(T: Any, F: Any) -> Any:
        def f(x, w, b):
            y = F.layer_norm(x, (4,), w, b)
            (gx,) = T.autograd.grad(y.sin().sum(), [x], create_graph=True)
            return gx * y
        return f

    shapes = [(3, 4), (4,), (4,)]
    gm = make_fx(prog(D, DF), pre_dispatch=True)(*C.inputs(D, C.arrays(shapes, 0), (0, 1, 2)))
    assert _get_attrs(gm) == []
    fresh = C.arrays(shapes, 3)
    eager_in, replay_in, torch_in = (C.inputs(lib, fresh, (0, 1, 2)) for lib in (D, D, torch))
    prog(D, DF)(*eager_in).sum().backward()
    gm(*replay_in).sum().backward()
    prog(torch, torch.nn.functional)(*torch_in).sum().backward()
    for a, b, t in zip(eager_in, replay_in, torch_in, strict=True):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


def _count_records(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    seen: list[Any] = []
    record = saved_inside.SavedInside.record

    def spy(self: Any, func: Any, *rest: Any) -> Any:
        seen.append(func)
        return record(self, func, *rest)

    monkeypatch.setattr(saved_inside.SavedInside, "record", spy)
    return seen


@pytest.mark.parametrize("mode", ["real", "fake"])
def test_grad_off_records_nothing_and_matches_torch(torch: Any, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """No grad (no input requires it, or grad mode off): nothing is recorded and the graph is torch's."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    seen = _count_records(monkeypatch)

    def prog(T: Any, F: Any) -> Any:
        def f(x, w, b, labels):
            h = F.layer_norm(F.linear(x, w), (4,), b)
            with T.no_grad():
                g = h.view(3, 2, 2) @ w[:2].view(1, 2, 4)
            return F.cross_entropy(h, labels), g
        return f

    arrays = C.arrays([(3, 4), (4, 4), (4,), ("i64", (3,), 4)], 0)
    for rg in ((), (1,)):  # no input requires grad; then w does, but the matmul runs under no_grad
        gm_o = make_fx(prog(D, DF), pre_dispatch=True, tracing_mode=mode)(*C.inputs(D, arrays, rg))
        gm_t = torch_make_fx(prog(torch, torch.nn.functional), pre_dispatch=True, tracing_mode=mode)(
            *C.inputs(torch, arrays, rg))
        assert gm_o.code == gm_t.code
        if not rg:
            assert seen == []
    # with w requiring grad: linear, layer_norm and cross_entropy were recorded, the matmul (no grad) was not
    assert D.ops.aten.mm.default in seen and D.ops.aten.native_layer_norm.default in seen
    assert D.ops.aten.bmm.default not in seen


@pytest.mark.parametrize("name", ["linear_softmax_ln", "mlp", "transformer_block", "residual_layer_norm"])
def test_graph_without_backward_is_unchanged(torch: Any, name: str) -> None:
    """Inputs requiring grad but no backward traced: the recording emits nothing, the code is torch's."""
    prog, shapes, _ = C.PROGRAMS[name]
    arrays = C.arrays(shapes, 0)
    everything = tuple(i for i, a in enumerate(arrays) if isinstance(a, np.ndarray))
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    for mode in ("real", "fake"):
        gm_o = make_fx(prog(D, DF), pre_dispatch=True, tracing_mode=mode)(*C.inputs(D, arrays, everything))
        gm_t = torch_make_fx(prog(torch, torch.nn.functional), pre_dispatch=True, tracing_mode=mode)(
            *C.inputs(torch, arrays, everything))
        assert gm_o.code == gm_t.code


def test_recording_does_not_outlive_the_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store of recorded ops (and the tensors made inside the whole ops) dies with the trace."""
    stores: list[Any] = []
    init = saved_inside.SavedInside.__init__

    def spy(self: Any, tracer: Any) -> None:
        init(self, tracer)
        stores.append(weakref.ref(self))

    monkeypatch.setattr(saved_inside.SavedInside, "__init__", spy)
    inner: list[Any] = []

    def f(x, w, b):
        y = F_layer_norm(x, w, b)
        (gx,) = D.autograd.grad(y.sum(), [x])
        inner.append(weakref.ref(y.grad_fn))
        return gx

    F_layer_norm = lambda x, w, b: DF.layer_norm(x, (4,), w, b)  # noqa: E731
    gm = make_fx(f, pre_dispatch=True)(*C.inputs(D, C.arrays([(3, 4), (4,), (4,)], 0), (0, 1, 2)))
    gc.collect()
    assert len(stores) == 1 and stores[0]() is None
    assert inner[0]() is None  # the autograd graph (and the mean / rstd it saved) is gone too
    assert _get_attrs(gm) == []


def _shifted_sin(x: Any) -> Any:
    """A CompositeImplicitAutograd kernel writing in place on a tensor it made, which sin then saves."""
    y = x.mul(2.0)
    z = y.exp()  # saved (as exp's output) before y changes
    y.add_(1.0)
    return z * y.sin()


def _norm_tanh(F: Any) -> Any:
    """A CompositeImplicitAutograd kernel calling other ops kept whole (layer_norm, linear) below the mode."""
    def kernel(x, w):
        return F.linear(F.layer_norm(x, (x.shape[-1],)), w).tanh()
    return kernel


@pytest.fixture(scope="module")
def shifted_sin_op(torch: Any) -> Any:
    """``saved_inside_test::shifted_sin`` and ``::norm_tanh`` defined in both libraries with the same CIA kernels."""
    from dispatcher.library import Library

    libs = []
    for lib, F in ((torch.library.Library("saved_inside_test", "DEF"), torch.nn.functional),
                   (Library("saved_inside_test", "DEF"), DF)):
        lib.define("shifted_sin(Tensor x) -> Tensor")
        lib.impl("shifted_sin", _shifted_sin, "CompositeImplicitAutograd")
        lib.define("norm_tanh(Tensor x, Tensor w) -> Tensor")
        lib.impl("norm_tanh", _norm_tanh(F), "CompositeImplicitAutograd")
        libs.append(lib)
    yield
    for lib in libs:
        lib._destroy()


@pytest.mark.parametrize("mode", ["real", "fake"])
def test_in_place_inside_a_whole_op(torch: Any, shifted_sin_op: Any, mode: str) -> None:
    """A user op kept whole whose kernel writes in place: each saved tensor is recomputed at the version autograd
    saved it (exp's input before add_, sin's after)."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    def prog(T: Any) -> Any:
        def f(x):
            y = T.ops.saved_inside_test.shifted_sin(x)
            return T.autograd.grad(y.sum(), [x])
        return f

    arrays = C.arrays([(3,)], 0)
    gm_t = torch_make_fx(prog(torch), pre_dispatch=True, tracing_mode=mode)(*C.inputs(torch, arrays, (0,)))
    gm_o = make_fx(prog(D), pre_dispatch=True, tracing_mode=mode)(*C.inputs(D, arrays, (0,)))
    assert _get_attrs(gm_t) != [] and _get_attrs(gm_o) == []
    aten = D.ops.aten
    order = [n.target for n in gm_o.graph.nodes if n.op == "call_function"]
    # the write comes after exp read its input, before sin reads it
    assert order.index(aten.exp.default) < order.index(aten.add_.Tensor) < order.index(aten.cos.default)
    fresh = C.arrays([(3,)], 4)
    expected = C.to_np(list(prog(D)(*C.inputs(D, fresh, (0,)))))
    C.assert_close(expected, C.to_np(list(gm_o(*C.inputs(D, fresh, (0,))))))
    C.assert_close(C.to_np(list(prog(torch)(*C.inputs(torch, fresh, (0,))))), expected)


@pytest.mark.parametrize("mode", ["real", "fake"])
def test_whole_ops_nested_in_a_whole_op(torch: Any, shifted_sin_op: Any, mode: str) -> None:
    """A user op kept whole whose kernel calls layer_norm and linear: everything runs below the mode; the mean /
    rstd, the normalized input, ``t(w)`` and the tanh output saved in there are recomputed."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    def prog(T: Any) -> Any:
        def f(x, w):
            y = T.ops.saved_inside_test.norm_tanh(x, w)
            return T.autograd.grad((y * y).sum(), [x, w])
        return f

    shapes = [(3, 4), (5, 4)]
    arrays = C.arrays(shapes, 0)
    gm_t = torch_make_fx(prog(torch), pre_dispatch=True, tracing_mode=mode)(*C.inputs(torch, arrays, (0, 1)))
    gm_o = make_fx(prog(D), pre_dispatch=True, tracing_mode=mode)(*C.inputs(D, arrays, (0, 1)))
    assert _get_attrs(gm_t) != [] and _get_attrs(gm_o) == []
    names = {n.meta["saved_inside"] for n in gm_o.graph.nodes if "saved_inside" in n.meta}
    assert names == {"saved_inside_test.norm_tanh.default"}
    fresh = C.arrays(shapes, 4)
    expected = C.to_np(list(prog(D)(*C.inputs(D, fresh, (0, 1)))))
    C.assert_close(expected, C.to_np(list(gm_o(*C.inputs(D, fresh, (0, 1))))))
    C.assert_close(C.to_np(list(prog(torch)(*C.inputs(torch, fresh, (0, 1))))), expected)


def test_user_mode_below_the_whole_op_turns_recording_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's mode on the Python-key stack sees (and may replace) the ops inside the whole op: nothing is
    recorded, the saved tensors stay constants (PyTorch's behaviour) and the graph still runs."""
    from dispatcher.modes import TorchDispatchMode

    seen = _count_records(monkeypatch)
    inner: list[str] = []

    class Watch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            inner.append(str(func))
            return func(*args, **(kwargs or {}))

    prog, shapes, rg = PROGRAMS["layer_norm_grad"]
    with Watch():
        gm = make_fx(prog(D, DF), pre_dispatch=True)(*C.inputs(D, C.arrays(shapes, 0), rg))
    assert seen == [] and "aten.native_layer_norm.default" in inner
    assert len(_get_attrs(gm)) == 2  # mean and rstd
    same = C.arrays(shapes, 0)  # (right on the example inputs only)
    C.assert_close(C.to_np(list(prog(D, DF)(*C.inputs(D, same, rg)))), C.to_np(list(gm(*C.inputs(D, same, rg)))))


def _grad_of(prog: Any, T: Any, F: Any) -> Any:
    """``prog`` followed by autograd.grad of a loss over its float outputs w.r.t. every input requiring grad."""
    f = prog(T, F)

    def g(*args):
        out = f(*args)
        outs = out if isinstance(out, (tuple, list)) else [out]
        loss = sum((o * o).sum() for o in outs if o.dtype.is_floating_point)
        return T.autograd.grad(loss, [a for a in args if a.requires_grad])
    return g


@pytest.mark.parametrize("mode", ["real", "fake"])
@pytest.mark.parametrize("name", ["attention", "gelu_silu_mlp", "linear_softmax_ln", "masked_attention", "mlp",
                                  "multi_head_attention", "residual_layer_norm", "transformer_block"])
def test_corpus_models_with_backward_replay_on_fresh_inputs(torch: Any, name: str, mode: str) -> None:
    """The corpus' forward models (linear, matmul, layer_norm, softmax kept whole) with a backward through them:
    no constant, and the graph's gradients on fresh inputs are eager's (and torch's)."""
    prog, shapes, _ = C.PROGRAMS[name]
    arrays = C.arrays(shapes, 0)
    rg = tuple(i for i, a in enumerate(arrays) if isinstance(a, np.ndarray) and a.dtype.kind == "f")
    gm = make_fx(_grad_of(prog, D, DF), pre_dispatch=True, tracing_mode=mode)(*C.inputs(D, arrays, rg))
    assert _get_attrs(gm) == []
    assert any("saved_inside" in n.meta for n in gm.graph.nodes)
    gm.graph.lint()
    fresh = C.arrays(shapes, 5)
    expected = C.to_np(list(_grad_of(prog, D, DF)(*C.inputs(D, fresh, rg))))
    for a, b in zip(expected, C.to_np(list(gm(*C.inputs(D, fresh, rg)))), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
    theirs = C.to_np(list(_grad_of(prog, torch, torch.nn.functional)(*C.inputs(torch, fresh, rg))))
    for a, t in zip(expected, theirs, strict=True):
        np.testing.assert_allclose(a, t, rtol=1e-3, atol=1e-5 + 2e-4 * np.abs(t).max())  # float32 sums in another order


# --- every op kept whole, on the op table's samples ------------------------------------------------------------------

#: ops kept whole whose traced graph legitimately keeps a constant, for the given sample: why
_BAKED = {
    ("dropout", 2): "p=1 in training: the mask is drawn (a random call), baked as in PyTorch",
    ("instance_norm", 1): "the per-instance copies of the running statistics, written inside by native_batch_norm "
                          "and saved for its backward, which does not read them in training",
}
#: ops kept whole whose samples cannot be traced for a backward: why
_NOT_TRACEABLE = {
    "cumprod_backward": "reads a value (.item()) to branch on zeros: data-dependent control flow",
    "tensor_split.tensor_indices_or_sections": "the split points are tensor data: the output shapes depend on it",
}


def _whole_op_samples() -> list[tuple[str, int]]:
    from dispatcher.ops.native_functions import CIA, NATIVE_FUNCTIONS
    from tests.op_samples import OPS

    out = []
    for od in NATIVE_FUNCTIONS:
        info = OPS.get(od.name)
        if od.kind != CIA or info is None or info.random or od.name.endswith("_") or od.name in _NOT_TRACEABLE:
            continue
        out += [(od.name, i) for i in range(len(info.samples))]
    return out


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, D.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for e in x for t in _leaves(e)]
    return []


def _refill(x: Any, it: Any) -> Any:
    if isinstance(x, D.Tensor):
        return next(it)
    if isinstance(x, (list, tuple)):
        return type(x)(_refill(e, it) for e in x)
    return x


@pytest.mark.parametrize(("name", "index"), _whole_op_samples())
def test_every_op_kept_whole_replays_its_backward_on_fresh_inputs(name: str, index: int) -> None:
    """Each op kept whole before dispatch, called on its samples with the floating inputs requiring grad (only the
    first when autograd refuses the others: running statistics, probability targets), then autograd.grad of a loss:
    the graph recomputes whatever autograd saved inside the op (no ``_tensor_constant``, but for the reasons in
    ``_BAKED``) and gives eager's gradients on fresh inputs."""
    from dispatcher.op_overload import namespace
    from tests.op_samples import OPS, build

    base, _, overload = name.partition(".")
    op = getattr(getattr(namespace("aten"), base), overload or "default")
    sample = OPS[name].samples[index]
    args0, kwargs0 = build(sample, "cpu", 0)
    if not any(t.dtype.is_floating_point for t in _leaves((args0, kwargs0))):
        pytest.skip("no floating-point input to differentiate")

    def f(*ts: Any) -> Any:
        it = iter(ts)
        out = op(*_refill(args0, it), **{k: _refill(v, it) for k, v in kwargs0.items()})
        outs = [o for o in _leaves(out) if o.requires_grad and o.dtype.is_floating_point]
        if not outs:
            pytest.skip("no differentiable output")
        loss = sum((o.float() * 1.3).sin().sum() for o in outs)
        return D.autograd.grad(loss, [t for t in ts if t.requires_grad], allow_unused=True)

    def inputs(seed: int, all_floats: bool) -> list[Any]:
        a, k = build(sample, "cpu", seed)
        out, first = [], True
        for t in _leaves((a, k)):
            if t.dtype in (D.float32, D.float64) and (all_floats or first):
                t.requires_grad_()
                first = False
            out.append(t)
        return out

    all_floats = True
    try:
        f(*inputs(0, True))
    except RuntimeError:
        all_floats = False
        try:
            f(*inputs(0, False))
        except RuntimeError as e:  # torch rejects it too (e.g. kron's view of a transposed input)
            pytest.skip(f"the sample fails eagerly: {e}")
    gm = make_fx(f, pre_dispatch=True)(*inputs(0, all_floats))
    if (name, index) in _BAKED:
        assert _get_attrs(gm) != []
    else:
        assert _get_attrs(gm) == []
    gm.graph.lint()
    for expected, got in zip(f(*inputs(3, all_floats)), gm(*inputs(3, all_floats)), strict=True):
        if expected is None:
            assert got is None
        else:
            np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
