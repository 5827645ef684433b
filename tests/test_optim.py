"""``optim.SGD`` against torch 2.13: updates, state, parameter groups, errors, hooks and traced steps.

torch's single-tensor SGD (``foreach=False``, its CPU default) is followed op for op, so the post-dispatch
graph of a step is torch's (checked for every option), and the weights after several steps equal torch's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tracer import make_fx

OPTIONS: dict[str, dict[str, Any]] = {
    "plain": {"lr": 0.1},
    "momentum": {"lr": 0.05, "momentum": 0.9},
    "dampening": {"lr": 0.05, "momentum": 0.5, "dampening": 0.3},
    "nesterov": {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1},
    "weight_decay": {"lr": 0.1, "weight_decay": 0.05},
    "maximize": {"lr": 0.1, "momentum": 0.9, "maximize": True},
}


def _data(L: Any, seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [L.tensor(rng.standard_normal((6, 4)).astype(np.float32)),
            L.tensor(rng.standard_normal((6, 2)).astype(np.float32))]


def _setup(L: Any, options: dict[str, Any], weights: dict | None = None) -> tuple[Any, Any, Callable[..., Any]]:
    nn = L.nn
    L.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
    if weights is not None:
        model.load_state_dict({k: L.tensor(v) for k, v in weights.items()})
    opt = L.optim.SGD(model.parameters(), **options)

    def step(x, y):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return model, opt, step


def _both(torch: Any, options: dict[str, Any]) -> tuple[tuple, tuple]:
    t = _setup(torch, options)
    weights = {k: v.detach().numpy().copy() for k, v in t[0].state_dict().items()}
    return t, _setup(D, options, weights)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_sgd_updates_match_torch(torch: Any, name: str) -> None:
    (m_t, o_t, s_t), (m_o, o_o, s_o) = _both(torch, OPTIONS[name])
    for i in range(5):
        C.assert_close(C.to_np(s_t(*_data(torch, i))), C.to_np(s_o(*_data(D, i))))
        C.assert_close([p.detach().numpy() for p in m_t.parameters()], [p.detach().numpy() for p in m_o.parameters()])
    assert len(o_o.state) == len(o_t.state)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_sgd_step_graph_matches_torch(torch: Any, name: str) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    (m_t, o_t, s_t), (m_o, o_o, s_o) = _both(torch, OPTIONS[name])
    s_t(*_data(torch, 0))
    s_o(*_data(D, 0))  # a second step: the momentum buffers exist
    gm_t = torch_make_fx(s_t)(*_data(torch, 1))
    gm_o = make_fx(s_o)(*_data(D, 1))
    assert gm_o.code == gm_t.code
    assert C.targets(gm_o) == C.targets(gm_t)


def test_param_groups_state_dict_and_repr(torch: Any) -> None:
    def run(L: Any) -> Any:
        nn = L.nn
        L.manual_seed(0)
        m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
        opt = L.optim.SGD([{"params": m[0].parameters()}, {"params": m[1].parameters(), "lr": 0.5}], lr=0.1,
                          momentum=0.9)
        m(L.ones(3, 2)).sum().backward()
        opt.step()
        sd = opt.state_dict()
        groups = [{k: v for k, v in g.items()} for g in sd["param_groups"]]
        opt2 = L.optim.SGD([{"params": m[0].parameters()}, {"params": m[1].parameters()}], lr=1.0)
        opt2.load_state_dict(sd)
        return (repr(opt), groups, sorted(sd["state"]), sorted(sd["state"][0]),
                [g["lr"] for g in opt2.param_groups], len(opt2.state),
                [float(opt2.state[p]["momentum_buffer"].sum()) == float(opt.state[p]["momentum_buffer"].sum())
                 for p in m.parameters()])

    theirs, ours = run(torch), run(D)
    assert ours == theirs


def test_named_params_and_add_param_group(torch: Any) -> None:
    def run(L: Any) -> Any:
        m = L.nn.Linear(2, 2)
        opt = L.optim.SGD(m.named_parameters(), lr=0.1)
        return opt.param_groups[0]["param_names"], len(opt.param_groups[0]["params"])

    assert run(D) == run(torch)


@pytest.mark.parametrize("case", ["lr", "momentum", "weight_decay", "nesterov", "empty", "tensor", "set",
                                  "non_leaf", "overlap", "not_tensor", "group_type"])
def test_sgd_errors_match_torch(torch: Any, case: str) -> None:
    def run(L: Any) -> Any:
        m = L.nn.Linear(2, 2)
        ps = list(m.parameters())
        SGD = L.optim.SGD
        if case == "lr":
            SGD(ps, lr=-1)
        elif case == "momentum":
            SGD(ps, momentum=-0.5)
        elif case == "weight_decay":
            SGD(ps, weight_decay=-1)
        elif case == "nesterov":
            SGD(ps, nesterov=True)
        elif case == "empty":
            SGD([], lr=0.1)
        elif case == "tensor":
            SGD(ps[0], lr=0.1)
        elif case == "set":
            SGD([{"params": set(ps)}], lr=0.1)
        elif case == "non_leaf":
            SGD([ps[0] * 2], lr=0.1)
        elif case == "overlap":
            SGD([{"params": ps}, {"params": ps[:1]}], lr=0.1)
        elif case == "not_tensor":
            SGD([1.0], lr=0.1)
        elif case == "group_type":
            SGD(ps, lr=0.1).add_param_group([ps[0]])

    msgs = []
    for L in (torch, D):
        with pytest.raises(Exception) as info:  # noqa: PT011 - compared below
            run(L)
        msgs.append((type(info.value).__name__, str(info.value)))
    assert msgs[1] == msgs[0]


def test_zero_grad_closure_and_hooks(torch: Any) -> None:
    def run(L: Any) -> Any:
        m = L.nn.Linear(2, 1)
        opt = L.optim.SGD(m.parameters(), lr=0.1)
        log = []
        opt.register_step_pre_hook(lambda o, args, kwargs: log.append("pre"))
        h = opt.register_step_post_hook(lambda o, args, kwargs: log.append("post"))

        def closure():
            opt.zero_grad()
            loss = m(L.ones(1, 2)).sum()
            loss.backward()
            return loss

        loss = opt.step(closure)
        h.remove()
        opt.step()
        grads = [p.grad is not None for p in m.parameters()]
        opt.zero_grad(set_to_none=False)
        zeros = [float(p.grad.abs().sum()) for p in m.parameters()]
        return type(loss).__name__, log, grads, zeros, L.is_grad_enabled(), opt.step.__name__

    assert run(D) == run(torch)


def test_step_leaves_grad_mode_as_it_was(torch: Any) -> None:
    m = D.nn.Linear(2, 1)
    opt = D.optim.SGD(m.parameters(), lr=0.1)
    m(D.ones(1, 2)).sum().backward()
    with D.no_grad():
        opt.step()
        assert not D.is_grad_enabled()
    opt.step()
    assert D.is_grad_enabled()
    assert m.weight.grad_fn is None  # the update made no autograd history


def test_unsupported_implementations_are_refused() -> None:
    with pytest.raises(NotImplementedError, match="fused=False"):
        D.optim.SGD(D.nn.Linear(1, 1).parameters(), fused=True)  # (foreach=True is supported: test_optim_foreach.py)
