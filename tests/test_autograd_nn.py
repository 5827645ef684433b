"""Derivatives of nn ops, views, shape ops, cat/stack/split and indexing, against torch.

Each case runs the same program in torch and in dispatcher, then backpropagates the same
random output gradients with ``autograd.grad``. Compared: the gradients (float64 and
float32), the ``grad_fn`` names, and the aten ops the backward pass calls as a logging
TorchDispatchMode sees them (``record_torch``) versus what ours makes (``record_ours``),
``aten.detach`` left out (ours has no modes yet; see tests/test_frontend.py). While
recording, ``dispatch_mode_enabled`` is patched on for ours, because under torch's logging
mode the formulas take their "tensor subclass" branches (``index_add`` for
``index_add_``, ``index_put`` for ``_index_put_impl_``); the branches without a mode are
checked separately. Also: double backward, list inputs and outputs, dropout, what is saved
(geometry, not the tensor) and the errors of missing derivatives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dispatcher
import dispatcher.nn.functional as DF
from dispatcher import autograd as dag
from dispatcher.ops import composite as decompositions
from tests.test_frontend import record_ours, record_torch

Prog = Callable[[Any, Any, dict], Any]


# --- running one program in both libraries -------------------------------------------------------


def _libs(torch: Any, lib: str) -> tuple[Any, Any]:
    return (torch, torch.nn.functional) if lib == "torch" else (dispatcher, DF)


def _inputs(T: Any, arrays: dict[str, np.ndarray], needs: list[str], dtype: Any) -> dict[str, Any]:
    p = {}
    for k, v in arrays.items():
        v = np.asarray(v)
        if v.dtype.kind == "f":
            v = v.astype(dtype)
        p[k] = T.tensor(v, requires_grad=k in needs)
    return p


def _outputs(out: Any) -> list[Any]:
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return [o for o in outs if o.requires_grad]


def _numpy(t: Any) -> np.ndarray | None:
    return None if t is None else np.asarray(t.detach().numpy())


def _strip(log: list) -> list:
    return [e for e in log if e[0] != "aten.detach.default"]


def recorded_grad(lib: str, torch: Any, monkeypatch: Any, outs: Any, ins: list, seeds: Any = None) -> tuple:
    """``autograd.grad(outs, ins, seeds)`` in ``lib``, and the ops its backward pass calls (as a mode sees them)."""
    holder: dict[str, Any] = {}
    if lib == "torch":
        log = record_torch(torch, lambda: holder.setdefault("g", torch.autograd.grad(outs, ins, seeds,
                                                                                      allow_unused=True)))
    else:
        with monkeypatch.context() as m:
            m.setattr(decompositions, "dispatch_mode_enabled", lambda: True)
            log, missing, error = record_ours(
                lambda: holder.setdefault("g", dag.grad(outs, ins, seeds, allow_unused=True)))
        assert error is None and missing is None, (missing, error)
    return [_numpy(g) for g in holder["g"]], _strip(log)


def run_both(torch: Any, monkeypatch: Any, prog: Prog, arrays: dict[str, np.ndarray], needs: list[str],
             dtype: Any = np.float64, pick: Callable[[list], list] | None = None) -> dict[str, tuple]:
    """grad_fn names, gradients of ``needs`` and backward logs, for torch and ours."""
    result = {}
    for lib in ("torch", "ours"):
        T, F = _libs(torch, lib)
        p = _inputs(T, arrays, needs, dtype)
        outs = _outputs(prog(T, F, p))
        if pick is not None:
            outs = pick(outs)
        rng = np.random.default_rng(1)
        seeds = [T.tensor(rng.standard_normal(tuple(o.shape)).astype(_numpy(o).dtype)) for o in outs]
        grads, log = recorded_grad(lib, torch, monkeypatch, outs, [p[k] for k in needs], seeds)
        result[lib] = ([type(o.grad_fn).__name__ for o in outs], grads, log)
    return result


def assert_same(result: dict[str, tuple], needs: list[str], rtol: float = 1e-7, atol: float = 1e-9,
                logs: bool = True) -> None:
    (tn, tg, tl), (on, og, ol) = result["torch"], result["ours"]
    assert on == tn
    for name, a, b in zip(needs, tg, og):
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.shape == b.shape and a.dtype == b.dtype, name
            np.testing.assert_allclose(b, a, rtol=rtol, atol=atol, err_msg=name)
    if logs:
        assert ol == tl, f"\n torch: {tl}\n ours:  {ol}"


# --- the cases ------------------------------------------------------------------------------------

R = np.random.default_rng(0)


def n(*shape: int) -> np.ndarray:
    return R.standard_normal(shape)


def idx(*values: Any) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def aten(T: Any) -> Any:
    return T.ops.aten


CASES: list[tuple[str, Prog, dict, list[str]]] = [
    # layer norm: with and without affine parameters, some of them not requiring grad
    ("layer_norm", lambda T, F, p: F.layer_norm(p["x"], [4], p["w"], p["b"]), dict(x=n(3, 4), w=n(4), b=n(4)),
     ["x", "w", "b"]),
    ("layer_norm_no_affine", lambda T, F, p: F.layer_norm(p["x"], [3, 4]), dict(x=n(2, 3, 4)), ["x"]),
    ("layer_norm_weight_only", lambda T, F, p: F.layer_norm(p["x"], [4], p["w"], p["b"]),
     dict(x=n(3, 4), w=n(4), b=n(4)), ["w"]),
    ("layer_norm_no_bias", lambda T, F, p: F.layer_norm(p["x"], [2, 4], p["w"], None, 1e-3),
     dict(x=n(3, 2, 4), w=n(2, 4)), ["x", "w"]),
    # nll_loss: each reduction, weight, ignore_index, 1-D input, 4-D input (nll_loss2d), 3-D (view + 2d)
    ("nll_mean", lambda T, F, p: F.nll_loss(p["x"], p["t"]), dict(x=n(3, 4), t=idx(1, 0, 3)), ["x"]),
    ("nll_sum", lambda T, F, p: F.nll_loss(p["x"], p["t"], reduction="sum"), dict(x=n(3, 4), t=idx(1, 0, 3)),
     ["x"]),
    ("nll_none_weight", lambda T, F, p: F.nll_loss(p["x"], p["t"], weight=p["c"], reduction="none"),
     dict(x=n(3, 4), t=idx(1, 0, 3), c=R.uniform(0.5, 2, 4)), ["x"]),
    ("nll_mean_weight_ignore", lambda T, F, p: F.nll_loss(p["x"], p["t"], weight=p["c"], ignore_index=1),
     dict(x=n(4, 4), t=idx(1, 0, 3, 1), c=R.uniform(0.5, 2, 4)), ["x"]),
    ("nll_1d", lambda T, F, p: F.nll_loss(p["x"], p["t"]), dict(x=n(5), t=np.array(2)), ["x"]),
    ("nll2d", lambda T, F, p: F.nll_loss(p["x"], p["t"]), dict(x=n(2, 3, 2, 2), t=R.integers(0, 3, (2, 2, 2))),
     ["x"]),
    ("nll2d_none_weight_ignore",
     lambda T, F, p: F.nll_loss(p["x"], p["t"], weight=p["c"], ignore_index=2, reduction="none"),
     dict(x=n(2, 3, 2, 2), t=R.integers(0, 3, (2, 2, 2)), c=R.uniform(0.5, 2, 3)), ["x"]),
    ("nll_3d", lambda T, F, p: F.nll_loss(p["x"], p["t"], reduction="sum"),
     dict(x=n(2, 3, 5), t=R.integers(0, 3, (2, 5))), ["x"]),
    # cross_entropy through its decomposition (log_softmax + nll_loss)
    ("cross_entropy", lambda T, F, p: F.cross_entropy(p["x"], p["t"]), dict(x=n(3, 4), t=idx(1, 0, 3)), ["x"]),
    ("cross_entropy_weight_ignore", lambda T, F, p: F.cross_entropy(p["x"], p["t"], weight=p["c"], ignore_index=0),
     dict(x=n(4, 5), t=idx(1, 0, 3, 4), c=R.uniform(0.5, 2, 5)), ["x"]),
    ("cross_entropy_2d", lambda T, F, p: F.cross_entropy(p["x"], p["t"], reduction="none"),
     dict(x=n(2, 3, 2, 2), t=R.integers(0, 3, (2, 2, 2))), ["x"]),
    # embedding
    ("embedding_padding", lambda T, F, p: F.embedding(p["i"], p["e"], padding_idx=1),
     dict(e=n(10, 4), i=idx([1, 2], [3, 1])), ["e"]),
    ("embedding_int32", lambda T, F, p: F.embedding(p["i"].int(), p["e"]), dict(e=n(5, 2), i=idx(4, 0, 4)),
     ["e"]),
    ("embedding_freq", lambda T, F, p: F.embedding(p["i"], p["e"], scale_grad_by_freq=True),
     dict(e=n(6, 3), i=idx(1, 2, 1, 5, 1)), ["e"]),
    # dtype copies
    ("to_float32", lambda T, F, p: p["x"].to(T.float32), dict(x=n(3, 4)), ["x"]),
    ("to_same_dtype_copy", lambda T, F, p: aten(T)._to_copy.default(p["x"]), dict(x=n(3, 4)), ["x"]),
    # cat / stack
    ("cat_sizes", lambda T, F, p: T.cat([p["x"], p["y"], p["z"]], 0), dict(x=n(3, 4), y=n(1, 4), z=n(2, 4)),
     ["x", "y", "z"]),
    ("cat_last_dim", lambda T, F, p: T.cat([p["x"], p["y"]], -1), dict(x=n(2, 3), y=n(2, 5)), ["x", "y"]),
    ("cat_partial", lambda T, F, p: T.cat([p["x"], p["y"]], 1), dict(x=n(2, 3), y=n(2, 2)), ["x"]),
    ("cat_legacy_empty", lambda T, F, p: T.cat([p["e"], p["x"], p["y"]], 1), dict(e=n(0), x=n(2, 3), y=n(2, 2)),
     ["e", "x", "y"]),
    ("cat_legacy_empty_middle", lambda T, F, p: T.cat([p["x"], p["e"], p["y"]], -1), dict(e=n(0), x=n(2, 3), y=n(2, 1)),
     ["e", "x", "y"]),
    ("stack", lambda T, F, p: T.stack([p["x"], p["y"]], 1), dict(x=n(3, 4), y=n(3, 4)), ["x", "y"]),
    ("stack_last", lambda T, F, p: T.stack([p["x"], p["y"], p["z"]], -1), dict(x=n(3), y=n(3), z=n(3)),
     ["x", "y", "z"]),
    # select / slice with negative indices and steps
    ("select_negative", lambda T, F, p: p["x"][-1], dict(x=n(3, 4)), ["x"]),
    ("select_1d", lambda T, F, p: p["x"][2], dict(x=n(4)), ["x"]),
    ("select_dim1", lambda T, F, p: aten(T).select.int(p["x"], 1, -2), dict(x=n(3, 4, 2)), ["x"]),
    ("slice_step", lambda T, F, p: p["x"][:, 1:-1:2], dict(x=n(3, 6)), ["x"]),
    ("slice_open_end", lambda T, F, p: p["x"][1:], dict(x=n(3, 4)), ["x"]),
    ("slice_negative_start", lambda T, F, p: p["x"][-2:, ::3], dict(x=n(4, 7)), ["x"]),
    ("slice_past_end", lambda T, F, p: aten(T).slice.Tensor(p["x"], 0, -100, 100, 2), dict(x=n(5, 2)), ["x"]),
    # squeeze / permute / alias / as_strided
    ("squeeze", lambda T, F, p: p["x"].squeeze(), dict(x=n(3, 1, 4, 1)), ["x"]),
    ("squeeze_dim", lambda T, F, p: p["x"].squeeze(-1), dict(x=n(3, 1, 4, 1)), ["x"]),
    ("squeeze_dim_not_one", lambda T, F, p: p["x"].squeeze(0), dict(x=n(3, 1, 4, 1)), ["x"]),
    ("squeeze_dims", lambda T, F, p: p["x"].squeeze((1, 3)), dict(x=n(3, 1, 4, 1)), ["x"]),
    ("squeeze_dims_negative", lambda T, F, p: p["x"].squeeze((-1, -3, 0)), dict(x=n(3, 1, 4, 1)), ["x"]),
    ("permute", lambda T, F, p: p["x"].permute(2, 0, 1), dict(x=n(2, 3, 4)), ["x"]),
    ("permute_negative", lambda T, F, p: p["x"].permute(-1, 0, 1), dict(x=n(2, 3, 4)), ["x"]),
    ("alias", lambda T, F, p: aten(T).alias.default(p["x"]) * 2, dict(x=n(3, 4)), ["x"]),
    ("as_strided", lambda T, F, p: aten(T).as_strided.default(p["x"], [2, 2], [1, 2]), dict(x=n(3, 4)), ["x"]),
    ("as_strided_offset", lambda T, F, p: aten(T).as_strided.default(p["x"], [2, 3], [4, 1], 5), dict(x=n(3, 4)),
     ["x"]),
    ("as_strided_output_overlap", lambda T, F, p: aten(T).as_strided.default(p["x"], [3, 3], [1, 1]),
     dict(x=n(3, 4)), ["x"]),
    ("as_strided_expanded_dims", lambda T, F, p: aten(T).as_strided.default(p["x"], [2, 3, 1], [0, 2, 5]),
     dict(x=n(3, 4)), ["x"]),
    ("as_strided_input_overlap",
     lambda T, F, p: aten(T).as_strided.default(p["x"].expand(3, 4), [2, 2], [1, 1]), dict(x=n(4)), ["x"]),
    ("as_strided_of_view", lambda T, F, p: aten(T).as_strided.default(p["x"][1:], [2], [3]), dict(x=n(3, 4)),
     ["x"]),
    ("as_strided_of_transposed", lambda T, F, p: aten(T).as_strided.default(p["x"].t(), [2, 2], [4, 1]),
     dict(x=n(3, 4)), ["x"]),
    # unbind / split (list outputs), all or some of them used
    ("unbind", lambda T, F, p: p["x"].unbind(1), dict(x=n(3, 4)), ["x"]),
    ("unbind_negative", lambda T, F, p: p["x"].unbind(-1), dict(x=n(2, 3)), ["x"]),
    ("split", lambda T, F, p: p["x"].split(3, 1), dict(x=n(3, 7)), ["x"]),
    ("split_negative_dim", lambda T, F, p: p["x"].split(2, -1), dict(x=n(2, 5)), ["x"]),
    ("split_with_sizes", lambda T, F, p: p["x"].split([1, 3], 0), dict(x=n(4, 2)), ["x"]),
    # indexing (repeated indices accumulate)
    ("index_select", lambda T, F, p: p["x"].index_select(1, T.tensor([0, 2, 2])), dict(x=n(3, 4)), ["x"]),
    ("index_repeated", lambda T, F, p: p["x"][T.tensor([0, 2, 0])], dict(x=n(3, 4)), ["x"]),
    ("index_two", lambda T, F, p: p["x"][T.tensor([0, 2, 0]), T.tensor([1, 1, 3])], dict(x=n(3, 4)), ["x"]),
    ("index_bool_mask", lambda T, F, p: p["x"][p["m"]], dict(x=n(3, 4), m=R.random((3, 4)) > 0.5), ["x"]),
    ("index_second_dim", lambda T, F, p: p["x"][:, T.tensor([[1, 1], [0, 3]])], dict(x=n(3, 4)), ["x"]),
    ("index_add", lambda T, F, p: aten(T).index_add.default(p["x"], 0, T.tensor([0, 2, 0]), p["s"], alpha=2),
     dict(x=n(3, 4), s=n(3, 4)), ["x", "s"]),
    ("index_add_scalar_source",
     lambda T, F, p: aten(T).index_add.default(p["x"], 0, T.tensor([0]), p["s"]), dict(x=n(), s=n()), ["x", "s"]),
    ("index_put", lambda T, F, p: aten(T).index_put.default(p["x"], [T.tensor([0, 2])], p["v"]),
     dict(x=n(3, 4), v=n(2, 4)), ["x", "v"]),
    ("index_put_accumulate", lambda T, F, p: aten(T).index_put.default(p["x"], [T.tensor([0, 0])], p["v"], True),
     dict(x=n(3, 4), v=n(2, 4)), ["x", "v"]),
    # dropout without randomness (p=0 in training, or eval): the mask is all True
    ("native_dropout_p0", lambda T, F, p: aten(T).native_dropout.default(p["x"], 0.0, True), dict(x=n(3, 4)),
     ["x"]),
    ("native_dropout_eval", lambda T, F, p: aten(T).native_dropout.default(p["x"], 0.5, False), dict(x=n(3, 4)),
     ["x"]),
    # views whose backward reshapes a gradient that cannot be viewed (clone + _unsafe_view)
    ("view_of_transposed_grad", lambda T, F, p: p["x"].view(4, 3).t(), dict(x=n(3, 4)), ["x"]),
    ("softmax", lambda T, F, p: F.softmax(p["x"], 1), dict(x=n(3, 4)), ["x"]),
    ("log_softmax", lambda T, F, p: F.log_softmax(p["x"], 0), dict(x=n(3, 4)), ["x"]),
    ("expand", lambda T, F, p: p["x"].expand(2, 3, 4), dict(x=n(3, 1)), ["x"]),
]

_PICKS: dict[str, Callable[[list], list]] = {
    "unbind": lambda outs: [outs[2]],
    "split": lambda outs: [outs[0], outs[2]],
    "split_with_sizes": lambda outs: [outs[1]],
}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradients_and_backward_ops_match_torch_float64(case: tuple, torch: Any, monkeypatch: Any) -> None:
    _, prog, arrays, needs = case
    assert_same(run_both(torch, monkeypatch, prog, arrays, needs), needs)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_torch_float32(case: tuple, torch: Any, monkeypatch: Any) -> None:
    _, prog, arrays, needs = case
    assert_same(run_both(torch, monkeypatch, prog, arrays, needs, dtype=np.float32), needs,
                rtol=2e-5, atol=2e-5, logs=False)


@pytest.mark.parametrize("name", sorted(_PICKS))
def test_list_outputs_with_some_gradients_undefined(name: str, torch: Any, monkeypatch: Any) -> None:
    """Outputs that get no gradient: zeros (unbind: zeros + expand; split: zeros of the piece) in torch's order."""
    _, prog, arrays, needs = next(c for c in CASES if c[0] == name)
    assert_same(run_both(torch, monkeypatch, prog, arrays, needs, pick=_PICKS[name]), needs)


def test_list_input_edges_skip_tensors_that_need_no_grad() -> None:
    x = dispatcher.tensor(n(2, 3), requires_grad=True)
    c = dispatcher.tensor(n(1, 3))
    out = dispatcher.cat([x, c, x], 0)
    node = out.grad_fn
    assert type(node).__name__ == "CatBackward0" and len(node.next_functions) == 3
    assert node.next_functions[1] == (None, 0)
    assert node.next_functions[0][0] is node.next_functions[2][0]  # both edges to x's AccumulateGrad
    g = dispatcher.tensor(np.arange(15.0).reshape(5, 3))
    (gx,) = dag.grad(out, [x], g)
    np.testing.assert_array_equal(gx.numpy(), np.arange(15.0).reshape(5, 3)[:2] + np.arange(15.0).reshape(5, 3)[3:])


def test_list_output_nodes_have_one_output_per_tensor() -> None:
    x = dispatcher.tensor(n(3, 4), requires_grad=True)
    parts = x.split(2, 1)
    assert [p._output_nr for p in parts] == [0, 1]
    assert parts[0].grad_fn is parts[1].grad_fn and parts[0].grad_fn.num_outputs == 2


# --- branches without a dispatch mode ----------------------------------------------------------------


def _ops_without_mode(fn: Callable[[], Any]) -> list[str]:
    log, missing, error = record_ours(fn)
    assert missing is None and error is None
    return [e[0] for e in _strip(log)]


def test_index_backward_without_mode_uses_index_put_impl(torch: Any) -> None:
    x = dispatcher.tensor(n(3, 4), requires_grad=True)
    i = dispatcher.tensor([0, 2, 0])
    out = x[i]
    g = dispatcher.tensor(n(3, 4))
    holder = {}
    ops = _ops_without_mode(lambda: holder.setdefault("g", dag.grad(out, [x], g)))
    assert ops == ["aten.new_zeros.default", "aten._index_put_impl_.default"]
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    (expected,) = torch.autograd.grad(tx[torch.tensor([0, 2, 0])], [tx], torch.tensor(g.numpy()))
    np.testing.assert_allclose(holder["g"][0].numpy(), expected.numpy())


def test_index_select_backward_without_mode_uses_index_add_(torch: Any) -> None:
    x = dispatcher.tensor(n(3, 4), requires_grad=True)
    out = x.index_select(1, dispatcher.tensor([3, 3, 0]))
    g = dispatcher.tensor(n(3, 3))
    holder = {}
    ops = _ops_without_mode(lambda: holder.setdefault("g", dag.grad(out, [x], g)))
    assert ops == ["aten.new_zeros.default", "aten.index_add_.default"]
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    (expected,) = torch.autograd.grad(tx.index_select(1, torch.tensor([3, 3, 0])), [tx], torch.tensor(g.numpy()))
    np.testing.assert_allclose(holder["g"][0].numpy(), expected.numpy())


# --- dropout with a random mask --------------------------------------------------------------------


@pytest.mark.parametrize(("p", "train", "scale"), [(0.3, True, 1 / 0.7), (1.0, True, 0.0), (0.5, None, 1.0)])
def test_native_dropout_backward_uses_the_mask_and_scale(p: float, train: Any, scale: float, torch: Any) -> None:
    """grad * mask * scale; with ``train=None`` the forward drops out but the formula's scale is 1 (as in torch)."""
    x = dispatcher.tensor(n(4, 5), requires_grad=True)
    out, mask = dispatcher.ops.aten.native_dropout.default(x, p, train)
    assert type(out.grad_fn).__name__ == "NativeDropoutBackward0" and not mask.requires_grad
    g = dispatcher.tensor(n(4, 5))
    holder = {}
    log, _, _ = record_ours(lambda: holder.setdefault("g", dag.grad(out, [x], g)))
    np.testing.assert_allclose(holder["g"][0].numpy(), g.numpy() * mask.numpy() * scale)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    t_out, _ = torch.ops.aten.native_dropout.default(tx, p, train)
    tg = torch.tensor(g.numpy())
    expected = record_torch(torch, lambda: torch.autograd.grad(t_out, [tx], tg))
    assert _strip(log) == _strip(expected)


def test_dropout_create_graph_uses_differentiable_ops(torch: Any, monkeypatch: Any) -> None:
    """With create_graph, infinitely_differentiable_native_dropout_backward: _to_copy, mul.Scalar, mul."""

    def prog(T: Any, F: Any, p: dict) -> Any:
        grad = torch.autograd.grad if T is torch else dag.grad
        out = aten(T).native_dropout.default(p["x"], 0.0, True)[0]
        (gx,) = grad(out * out, [p["x"]], T.ones_like(out), create_graph=True)
        return gx

    assert_same(run_both(torch, monkeypatch, prog, dict(x=n(3, 4)), ["x"]), ["x"])


# --- double backward ----------------------------------------------------------------------------


def second_order(torch: Any, monkeypatch: Any, prog: Prog, arrays: dict, needs: list[str],
                 wrt: list[str]) -> dict[str, tuple]:
    """First-order gradients (create_graph) of ``prog``'s output w.r.t. ``needs``, with a seed ``gseed`` that
    requires grad; then the logged second backward of them (random seeds) w.r.t. ``wrt`` (in needs, or "gseed")."""
    result = {}
    for lib in ("torch", "ours"):
        T, F = _libs(torch, lib)
        grad = torch.autograd.grad if lib == "torch" else dag.grad
        p = _inputs(T, arrays, needs, np.float64)
        out = prog(T, F, p)
        rng = np.random.default_rng(2)
        p["gseed"] = T.tensor(rng.standard_normal(tuple(out.shape)), requires_grad=True)
        firsts = [f for f in grad(out, [p[k] for k in needs], p["gseed"], create_graph=True) if f.requires_grad]
        seeds = [T.tensor(rng.standard_normal(tuple(f.shape))) for f in firsts]
        grads, log = recorded_grad(lib, torch, monkeypatch, firsts, [p[k] for k in wrt], seeds)
        result[lib] = ([type(f.grad_fn).__name__ for f in firsts], grads, log)
    return result


DOUBLE = [
    ("select", lambda T, F, p: p["x"][1], dict(x=n(3, 4)), ["x"], ["gseed"]),
    ("slice", lambda T, F, p: p["x"][:, 1::2], dict(x=n(3, 4)), ["x"], ["gseed"]),
    ("embedding", lambda T, F, p: F.embedding(p["i"], p["e"], padding_idx=1), dict(e=n(6, 4), i=idx([1, 2], [3, 1])),
     ["e"], ["gseed"]),
    ("embedding_no_padding", lambda T, F, p: F.embedding(p["i"], p["e"]), dict(e=n(6, 4), i=idx(1, 2, 1)),
     ["e"], ["gseed"]),
    ("nll_loss", lambda T, F, p: F.nll_loss(p["x"], p["t"], weight=p["c"]),
     dict(x=n(3, 4), t=idx(1, 0, 3), c=R.uniform(0.5, 2, 4)), ["x"], ["x", "gseed"]),
    ("nll_loss_grad_output_only", lambda T, F, p: F.nll_loss(p["x"], p["t"], reduction="sum"),
     dict(x=n(3, 4), t=idx(1, 0, 3)), ["x"], ["gseed"]),  # self's zeros_like is not computed (not asked for)
    ("nll_loss2d", lambda T, F, p: F.nll_loss(p["x"], p["t"], reduction="none"),
     dict(x=n(2, 3, 2, 2), t=R.integers(0, 3, (2, 2, 2))), ["x"], ["x", "gseed"]),
    ("index_select", lambda T, F, p: p["x"].index_select(0, T.tensor([2, 2])), dict(x=n(3, 4)), ["x"], ["gseed"]),
    ("layer_norm", lambda T, F, p: F.layer_norm(p["x"], [4], p["w"], p["b"]), dict(x=n(3, 4), w=n(4), b=n(4)),
     ["x", "w", "b"], ["x", "w", "gseed"]),
    ("layer_norm_no_affine", lambda T, F, p: F.layer_norm(p["x"], [2, 3]), dict(x=n(2, 2, 3)), ["x"],
     ["x", "gseed"]),
    ("layer_norm_input_only", lambda T, F, p: F.layer_norm(p["x"], [4], p["w"], p["b"]),
     dict(x=n(3, 4), w=n(4), b=n(4)), ["x"], ["x", "gseed"]),
]


@pytest.mark.parametrize("case", DOUBLE, ids=[c[0] for c in DOUBLE])
def test_double_backward_matches_torch(case: tuple, torch: Any, monkeypatch: Any) -> None:
    name, prog, arrays, needs, wrt = case
    if name == "index_select" and "index_add_" not in dag.DERIVATIVES:
        pytest.skip("index_add_ has no (in-place) derivative registered yet (autograd/derivatives/indexing.py)")
    assert_same(second_order(torch, monkeypatch, prog, arrays, needs, wrt), wrt, rtol=1e-6, atol=1e-9)


def test_native_dropout_backward_double_backward(torch: Any, monkeypatch: Any) -> None:
    def prog(T: Any, F: Any, p: dict) -> Any:
        return aten(T).native_dropout_backward.default(p["g"], p["m"] > 0, 2.5)

    arrays = dict(g=n(3, 4), m=n(3, 4))
    assert_same(second_order(torch, monkeypatch, prog, arrays, ["g"], ["gseed"]), ["gseed"])


def test_missing_derivatives_raise_torch_errors() -> None:
    g = dispatcher.tensor(n(3), requires_grad=True)
    m = dispatcher.tensor([1.0, 0.0, 1.0], requires_grad=True)
    out = dispatcher.ops.aten.native_dropout_backward.default(g, m, 2.0)
    with pytest.raises(NotImplementedError, match=r"^the derivative for 'native_dropout_backward: mask' is not "):
        out.sum().backward()
    x = dispatcher.tensor(n(2, 4), requires_grad=True)
    mean = dispatcher.tensor(np.zeros((2, 1)), requires_grad=True)
    out = dispatcher.ops.aten.native_layer_norm_backward.default(
        dispatcher.tensor(n(2, 4)), x, [4], mean, dispatcher.ones(2, 1, dtype=dispatcher.float64), None, None,
        [True, False, False])[0]
    with pytest.raises(NotImplementedError, match="native_layer_norm_backward mean"):
        out.sum().backward()


# --- what is saved ------------------------------------------------------------------------------------


def test_geometry_only_formulas_survive_in_place_changes_like_torch(torch: Any) -> None:
    """index_select saves self's sizes (no version check); nll_loss saves self (version-checked)."""
    for T in (torch, dispatcher):
        x = T.tensor(n(2, 4), requires_grad=True)
        y = x * 1
        z = y.index_select(0, T.tensor([1]))
        with (torch.no_grad() if T is torch else dag.no_grad()):
            y.add_(1)
        z.sum().backward()
        np.testing.assert_array_equal(np.asarray(x.grad.numpy()), [[0, 0, 0, 0], [1, 1, 1, 1]])
        y = x * 1
        z = (torch.nn.functional if T is torch else DF).nll_loss(y, T.tensor([1, 2]))
        with (torch.no_grad() if T is torch else dag.no_grad()):
            y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()


# --- random shapes ------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_cat_split_select_slice_random_shapes(torch: Any, data: Any) -> None:
    ndim = data.draw(st.integers(1, 3))
    shape = data.draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim))
    dim = data.draw(st.integers(-ndim, ndim - 1))
    other = list(shape)
    other[dim] = data.draw(st.integers(1, 3))
    start = data.draw(st.integers(-5, 5))
    end = data.draw(st.one_of(st.none(), st.integers(-5, 6)))
    step = data.draw(st.integers(1, 3))
    index = data.draw(st.integers(-shape[dim], shape[dim] - 1))
    split = data.draw(st.integers(1, shape[dim] + other[dim]))
    a, b = np.random.default_rng(3).standard_normal(shape), np.random.default_rng(4).standard_normal(other)

    def prog(T: Any) -> tuple[Any, Any, Any]:
        ta, tb = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        joined = T.cat([ta, tb], dim)
        pieces = joined.split(split, dim)
        out = (pieces[0] * 2).sum() + T.ops.aten.slice.Tensor(ta, dim, start, end, step).sum()
        out = out + T.ops.aten.select.int(ta, dim, index).sum() * 3
        grad = torch.autograd.grad if T is torch else dag.grad
        return grad(out, [ta, tb])

    expected = prog(torch)
    got = prog(dispatcher)
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)


# --- meta tensors -------------------------------------------------------------------------------------

META = {
    "layer_norm": (lambda T, F, x: F.layer_norm(x, [4], None, None), (3, 4)),
    "nll_loss": (lambda T, F, x: F.nll_loss(x, T.tensor([1, 0, 3], device="meta")), (3, 4)),
    "cat": (lambda T, F, x: T.cat([x, x], 1), (3, 4)),
    "as_strided_overlap": (lambda T, F, x: T.ops.aten.as_strided.default(x, [3, 3], [1, 1]), (3, 4)),
    "as_strided_input_overlap": (lambda T, F, x: T.ops.aten.as_strided.default(x.expand(3, 4), [2, 2], [1, 1]),
                                 (4,)),
    "index_select": (lambda T, F, x: x.index_select(0, T.tensor([0, 0], device="meta")), (3, 4)),
    "index": (lambda T, F, x: x[T.tensor([0, 0], device="meta")], (3, 4)),
    "unbind": (lambda T, F, x: x.unbind(0)[1], (3, 4)),
    "split": (lambda T, F, x: x.split(2, 1)[1], (3, 4)),
    "select": (lambda T, F, x: x[1], (3, 4)),
    "slice": (lambda T, F, x: x[:, 1::2], (3, 4)),
    "embedding": (lambda T, F, x: F.embedding(T.tensor([1, 2], device="meta"), x), (3, 4)),
}


@pytest.mark.parametrize("name", sorted(META))
def test_backward_on_meta_tensors_matches_torch(name: str, torch: Any) -> None:
    prog, shape = META[name]
    got = []
    for T, F, grad in ((torch, torch.nn.functional, torch.autograd.grad), (dispatcher, DF, dag.grad)):
        x = T.empty(shape, device="meta", dtype=T.float32).requires_grad_(True)
        out = prog(T, F, x)
        (gx,) = grad(out, [x], T.empty(tuple(out.shape), device="meta", dtype=T.float32))
        got.append((tuple(gx.shape), str(gx.dtype), tuple(gx.stride()), str(gx.device)))
    assert got[0] == got[1]
