"""``nn.utils.parametrize`` and ``parametrizations.weight_norm`` / ``spectral_norm`` against torch 2.13: the class
swap, repr, state dict layout, values and gradients from the same weights, ``cached``, removal, errors, and the make_fx
graphs of a parametrized forward + backward in the four configurations."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import copy_weights, fake_mode, own_targets, trace


def _symmetric(L: Any) -> Any:
    class Symmetric(L.nn.Module):
        def forward(self, x: Any) -> Any:
            return x.triu() + x.triu(1).transpose(-1, -2)

    return Symmetric()


def _make(L: Any, kind: str) -> Any:
    L.manual_seed(0)
    m = L.nn.Linear(4, 4)
    P = L.nn.utils.parametrizations
    if kind == "symmetric":
        L.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(L))
    elif kind == "weight_norm":
        P.weight_norm(m)
    elif kind == "weight_norm_dim1":
        P.weight_norm(m, dim=1)
    elif kind == "spectral_norm":
        P.spectral_norm(m)
    return m


def _x(L: Any, seed: int = 0) -> Any:
    return L.tensor(np.random.default_rng(seed).standard_normal((3, 4)).astype(np.float32))


KINDS = ["symmetric", "weight_norm", "weight_norm_dim1", "spectral_norm"]


@pytest.mark.parametrize("kind", KINDS)
def test_layout_values_and_grads_match_torch(torch: Any, kind: str) -> None:
    m_t, m_o = _make(torch, kind), _make(D, kind)
    assert repr(m_o) == repr(m_t)
    assert type(m_o).__name__ == type(m_t).__name__ == "ParametrizedLinear"
    assert list(m_o.state_dict()) == list(m_t.state_dict())
    assert [n for n, _ in m_o.named_parameters()] == [n for n, _ in m_t.named_parameters()]
    copy_weights(m_t, m_o)
    outs = []
    for L, m in ((torch, m_t), (D, m_o)):
        for step in range(2):  # (spectral norm: a power iteration per training forward)
            y = m(_x(L, step))
            (y * y).sum().backward()
        outs.append([y.detach().numpy(), m.weight.detach().numpy()]
                    + [p.grad.numpy() for p in m.parameters()] + [b.numpy() for b in m.buffers()])
    C.assert_close(outs[1], outs[0])


def test_cached_remove_and_type_before(torch: Any) -> None:
    out = []
    for L in (torch, D):
        pz = L.nn.utils.parametrize
        m = _make(L, "symmetric")
        with pz.cached():
            same = m.weight is m.weight
        fresh = m.weight is m.weight
        before = (pz.is_parametrized(m), pz.is_parametrized(m, "bias"), pz.type_before_parametrizations(m).__name__)
        w = m.weight.detach().numpy().copy()
        pz.remove_parametrizations(m, "weight")
        after = (type(m).__name__, list(m.state_dict()), pz.is_parametrized(m), type(m.weight).__name__)
        m2 = _make(L, "symmetric")
        orig = m2.parametrizations.weight.original.detach().numpy().copy()
        pz.remove_parametrizations(m2, "weight", leave_parametrized=False)
        out.append((same, fresh, before, after, np.allclose(m.weight.detach().numpy(), w),
                    np.allclose(m2.weight.detach().numpy(), orig)))
    assert out[1] == out[0]


def test_setting_the_parametrized_tensor_uses_right_inverse(torch: Any) -> None:
    out = []
    for L in (torch, D):
        m = _make(L, "weight_norm")
        target = L.tensor(np.arange(16, dtype=np.float32).reshape(4, 4) / 10)
        m.weight = target
        out.append([m.weight.detach().numpy(), m.parametrizations.weight.original0.detach().numpy()])
    C.assert_close(out[1], out[0])


def _bad_call(L: Any, case: str) -> Any:
    pz = L.nn.utils.parametrize

    class Slice(L.nn.Module):
        def forward(self, x: Any) -> Any:
            return x[:2]

    m = L.nn.Linear(4, 4)
    if case == "shape":
        return pz.register_parametrization(m, "weight", Slice())
    if case == "missing":
        return pz.register_parametrization(m, "nothing", Slice())
    if case == "remove_missing":
        return pz.remove_parametrizations(m, "weight")
    return pz.remove_parametrizations(L.nn.utils.parametrizations.weight_norm(m), "weight", leave_parametrized=False)


@pytest.mark.parametrize("case", ["shape", "missing", "remove_missing", "leave_sequence"])
def test_errors_match_torch(torch: Any, case: str) -> None:
    msgs = []
    for L in (torch, D):
        with pytest.raises(ValueError) as info:  # noqa: PT011 - compared below
            _bad_call(L, case)
        msgs.append(str(info.value).split("Linear(")[0])
    assert msgs[1] == msgs[0]


def _step(m: Any) -> Any:
    def step(x: Any) -> Any:
        y = m(x)
        y.sum().backward()
        return y

    return step


@pytest.mark.parametrize("config", ["post", "pre", "fake", "core"])
@pytest.mark.parametrize("kind", ["symmetric", "weight_norm", "spectral_norm"])
def test_parametrized_forward_backward_graph_matches_torch(torch: Any, kind: str, config: str) -> None:
    gms = []
    for L in (torch, D):
        if config == "fake":
            fm = fake_mode(L)
            with fm:
                m = _make(L, kind)
            args = [fm.from_tensor(_x(L))]
        else:
            m, args = _make(L, kind), [_x(L)]

        gms.append(trace(L, _step(m), args, config))
    gm_t, gm_o = gms
    assert (own_targets(gm_o) if config == "pre" else C.targets(gm_o)) == C.targets(gm_t)
    gm_o.graph.lint()


def test_legacy_weight_norm_matches_torch(torch: Any) -> None:
    out: list = []
    torch_state: dict = {}
    for L in (torch, D):
        L.manual_seed(0)
        m = L.nn.Linear(4, 3)
        with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
            L.nn.utils.weight_norm(m, dim=1)
        keys = list(m.state_dict())
        if L is D:
            m.load_state_dict({k: D.tensor(v.numpy()) for k, v in torch_state.items()})
        else:
            torch_state.update({k: v.detach().clone() for k, v in m.state_dict().items()})
        y = m(_x(L))
        y.sum().backward()
        grads = [m.weight_g.grad.numpy(), m.weight_v.grad.numpy()]
        with pytest.raises(RuntimeError) as info:
            L.nn.utils.weight_norm(m)
        L.nn.utils.remove_weight_norm(m)
        out.append((keys, str(info.value), list(m.state_dict()), [y.detach().numpy(), *grads, m.weight.detach().numpy()]))
    assert out[1][:3] == out[0][:3]
    C.assert_close(out[1][3], out[0][3])
