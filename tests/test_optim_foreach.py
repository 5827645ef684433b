"""``foreach=True`` optimizers against torch 2.13: the multi-tensor updates (``_multi_tensor_adam`` & co., which torch
runs on CPU tensors when asked) give torch's parameters and state, and a traced train step records torch's
``_foreach_*`` ops in the four make_fx configurations; plus the ``torch._foreach_*`` bindings' overload choice and
list checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import copy_weights, fake_mode, mlp_training_step, own_targets, trace
from tests.nn_oracle import regression_batch as _xy

OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "sgd_momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "sgd_nesterov_wd_max": ("SGD", {"lr": 0.1, "momentum": 0.5, "nesterov": True, "weight_decay": 0.1,
                                    "maximize": True}),
    "adam": ("Adam", {"lr": 0.05}),
    "adam_l2_max": ("Adam", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    "adamw_amsgrad": ("AdamW", {"lr": 0.05, "weight_decay": 0.2, "amsgrad": True}),
    "adagrad": ("Adagrad", {"lr": 0.1, "lr_decay": 0.05}),
    "adagrad_wd": ("Adagrad", {"lr": 0.1, "weight_decay": 0.1}),
    "rmsprop_centered_momentum": ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    "rmsprop": ("RMSprop", {"lr": 0.01, "maximize": True}),
    "adadelta": ("Adadelta", {"lr": 0.5, "weight_decay": 0.1}),
    "adadelta_max": ("Adadelta", {"maximize": True}),
}


def _setup(L: Any, name: str, foreach: bool = True) -> tuple[Any, Any, Callable[..., Any]]:
    cls, kw = OPTIONS[name]
    return mlp_training_step(L, lambda params: getattr(L.optim, cls)(params, foreach=foreach, **kw))


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_foreach_updates_match_torch_and_single_tensor(torch: Any, name: str) -> None:
    runs = [_setup(torch, name), _setup(D, name), _setup(D, name, foreach=False)]
    copy_weights(runs[0][0], runs[1][0])
    copy_weights(runs[0][0], runs[2][0])
    for i in range(3):
        losses = [C.to_np(step(*_xy(L, i))) for L, (_, _, step) in zip((torch, D, D), runs, strict=True)]
        C.assert_close(losses[1], losses[0])
        C.assert_close(losses[2], losses[0])
    params = [[p.detach().numpy() for p in m.parameters()] for m, _, _ in runs]
    C.assert_close(params[1], params[0])
    C.assert_close(params[2], params[0])
    (_, o_t, _), (m_o, o_o, _) = runs[0], runs[1]
    for p_t, p_o in zip(runs[0][0].parameters(), m_o.parameters(), strict=True):
        st, so = o_t.state[p_t], o_o.state[p_o]
        assert sorted(so) == sorted(st)
        C.assert_close([st[k].numpy() for k in sorted(st)], [so[k].numpy() for k in sorted(so)])
    assert o_o.state_dict()["param_groups"][0]["foreach"] is True


def _trace_both(torch: Any, name: str, config: str) -> tuple[Any, Any]:
    gms = []
    for L in (torch, D):
        if config == "fake":
            fm = fake_mode(L)
            with fm:
                model, opt, step = _setup(L, name)
            args = [fm.from_tensor(a) for a in _xy(L, 0)]
        else:
            model, opt, step = _setup(L, name)
            args = _xy(L, 0)
        gms.append(trace(L, step, args, config))
    return gms[0], gms[1]


# (Adagrad under "fake": torch 2.13 itself fails, its state made at construction under another FakeTensorMode meets
# the real ``torch.tensor(1.0)`` of the step increment: "Please convert all Tensors to FakeTensors first")
GRAPH_CASES = [(name, config) for name in ["sgd_nesterov_wd_max", "adamw_amsgrad", "adam_l2_max", "adagrad_wd",
                                           "rmsprop_centered_momentum", "adadelta_max"]
               for config in ["post", "pre", "fake", "core"] if (name, config) != ("adagrad_wd", "fake")]


@pytest.mark.parametrize(("name", "config"), GRAPH_CASES)
def test_foreach_step_graph_matches_torch(torch: Any, name: str, config: str) -> None:
    gm_t, gm_o = _trace_both(torch, name, config)
    theirs = C.targets(gm_t)
    assert any(t.startswith("aten._foreach_") for t in theirs)
    assert (own_targets(gm_o) if config == "pre" else C.targets(gm_o)) == theirs
    gm_o.graph.lint()
    if config == "post":
        assert gm_o.code == gm_t.code


def test_replayed_foreach_step_updates_like_eager() -> None:
    model, opt, step = _setup(D, "adamw_amsgrad")
    start = [p.detach().numpy().copy() for p in model.parameters()]
    gm = trace(D, step, _xy(D, 0), "post")

    def reset() -> None:
        with D.no_grad():
            for p, v in zip(model.parameters(), start, strict=True):
                p.copy_(D.tensor(v))
        opt.state.clear()

    reset()
    fresh = _xy(D, 3)
    with D.set_grad_enabled(False):
        loss_replay = gm(*fresh).detach().numpy().copy()
    replayed = [p.detach().numpy().copy() for p in model.parameters()]
    reset()
    C.assert_close(step(*fresh).detach().numpy(), loss_replay)
    C.assert_close([p.detach().numpy() for p in model.parameters()], replayed)
    assert not np.allclose(start[0], replayed[0])


def test_foreach_bindings_and_checks_match_torch(torch: Any) -> None:
    out = []
    for L in (torch, D):
        a = [L.tensor([1.0, 4.0]), L.tensor([9.0])]
        res = [L._foreach_add(a, 1.0), L._foreach_add(a, a, alpha=2), L._foreach_add(a, L.tensor(0.5)),
               L._foreach_mul(a, [2.0, 3.0]), L._foreach_sqrt(a), L._foreach_norm(a, float("inf")),
               L._foreach_addcdiv(a, a, a, [1.0, 2.0]), L._foreach_lerp(a, [L.zeros(2), L.zeros(1)], 0.25)]
        L._foreach_maximum_(a, [L.tensor([2.0, 2.0]), L.tensor([10.0])])
        L._foreach_clamp_max_(a, 3.0)
        res.append(a)
        errors = []
        for fn, bad_args in ((L._foreach_add_, ([], 1.0)), (L._foreach_add_, (a, a[:1])),
                             (L._foreach_mul_, (a, [1.0])), (L._foreach_norm, (a, "fro"))):
            with pytest.raises((RuntimeError, TypeError)) as info:
                fn(*bad_args)
            errors.append((type(info.value).__name__, str(info.value)))
        out.append(([[t.numpy() for t in r] for r in res], errors, a[0]._version))
    C.assert_close(out[1][0], out[0][0])
    assert out[1][1:] == out[0][1:]


def test_foreach_ops_under_autograd_match_torch(torch: Any) -> None:
    """With grad mode on and tensors requiring grad: torch's leaf error, and gradients flow through the lists."""
    out = []
    for L in (torch, D):
        leaf = L.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            L._foreach_mul_([leaf], 2.0)
        a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 1
        L._foreach_mul_([b], 3.0)
        r = L._foreach_addcmul(L._foreach_mul([b], 2.0), [a], [a], 0.5)
        r[0].sum().backward()
        out.append((str(info.value), a.grad.tolist(), b._version, type(b.grad_fn).__name__))
    assert out[1] == out[0]
