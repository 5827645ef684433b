"""``nn.utils`` against torch 2.13: gradient clipping (norm types, foreach choices, errors, traced train steps in
the four make_fx configurations) and parameters as a vector."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import copy_weights, fake_mode, own_targets, trace
from tests.nn_oracle import regression_batch as _xy


def _model(L: Any) -> Any:
    L.manual_seed(0)
    return L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Tanh(), L.nn.Linear(4, 2))


def _both(torch: Any) -> tuple[Any, Any]:
    m_t, m_o = _model(torch), _model(D)
    copy_weights(m_t, m_o)
    return m_t, m_o


def _backward(L: Any, m: Any, scale: float = 10.0) -> None:
    x, y = _xy(L, 0)
    (L.nn.functional.mse_loss(m(x), y) * scale).backward()


@pytest.mark.parametrize(("norm_type", "foreach"), [(2.0, None), (1, False), (math.inf, None), ("inf", True),
                                                    (3.5, None), (0.5, False)])
@pytest.mark.parametrize("max_norm", [0.1, 1e3])
def test_clip_grad_norm_matches_torch(torch: Any, norm_type: Any, foreach: Any, max_norm: float) -> None:
    out = []
    for L, m in zip((torch, D), _both(torch), strict=True):
        _backward(L, m)
        total = L.nn.utils.clip_grad_norm_(m.parameters(), max_norm, norm_type=norm_type, foreach=foreach)
        out.append((np.float32([float(total)]), [p.grad.numpy().copy() for p in m.parameters()]))
    C.assert_close(out[1][0], out[0][0])
    C.assert_close(out[1][1], out[0][1])
    assert (max_norm < out[0][0][0]) == (not np.allclose(out[1][1][0], _grads_unclipped(torch)[0]))


def _grads_unclipped(torch: Any) -> list:
    m = _model(D)
    copy_weights(_model(torch), m)
    _backward(D, m)
    return [p.grad.numpy() for p in m.parameters()]


def test_total_norm_and_clip_with_norm_are_the_two_halves(torch: Any) -> None:
    out = []
    for L, m in zip((torch, D), _both(torch), strict=True):
        _backward(L, m)
        grads = [p.grad for p in m.parameters()]
        total = L.nn.utils.get_total_norm(grads, 2.0)
        L.nn.utils.clip_grads_with_norm_(m.parameters(), 0.3, total)
        out.append((float(total), float(L.nn.utils.get_total_norm([p.grad for p in m.parameters()])),
                    float(L.nn.utils.get_total_norm([]))))
    C.assert_close(np.float32(out[1]), np.float32(out[0]))
    assert abs(out[1][1] - 0.3) < 1e-4


@pytest.mark.parametrize("foreach", [None, False, True])
def test_clip_grad_value_matches_torch(torch: Any, foreach: Any) -> None:
    out = []
    for L, m in zip((torch, D), _both(torch), strict=True):
        _backward(L, m)
        L.nn.utils.clip_grad_value_(m.parameters(), 0.05, foreach=foreach)
        out.append([p.grad.numpy().copy() for p in m.parameters()])
    C.assert_close(out[1], out[0])
    assert np.abs(out[1][0]).max() == pytest.approx(0.05)


def test_nonfinite_error_and_warnings_match_torch(torch: Any) -> None:
    msgs = []
    for L in (torch, D):
        p = L.nn.Parameter(L.ones(3))
        p.grad = L.tensor([1.0, float("inf"), 0.0])
        with pytest.raises(RuntimeError) as info:
            L.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
        msgs.append(str(info.value))
        L.nn.utils.clip_grad_norm_(p, 1.0)  # no error by default: the gradient is scaled by the inf norm
        msgs.append(p.grad.isnan().tolist())
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.nn.utils.clip_grad_norm_((q for q in []), 1.0)
            L.nn.utils.clip_grad_norm([p], 1.0)
        msgs.append([(x.category.__name__, str(x.message)) for x in w])
    assert msgs[3:] == msgs[:3]


def _step_fn(L: Any, m: Any, norm_type: float, foreach: Any) -> Any:
    def step(x, y):
        loss = L.nn.functional.mse_loss(m(x), y)
        loss.backward()
        total = L.nn.utils.clip_grad_norm_(m.parameters(), 0.5, norm_type=norm_type, foreach=foreach)
        L.nn.utils.clip_grad_value_(m.parameters(), 0.1, foreach=foreach)
        return loss, total

    return step


@pytest.mark.parametrize("config", ["post", "pre", "fake", "core"])
@pytest.mark.parametrize(("norm_type", "foreach"), [(2.0, None), (math.inf, False)])
def test_traced_clip_step_matches_torch(torch: Any, config: str, norm_type: float, foreach: Any) -> None:
    """foreach=None on the CPU: ``_foreach_norm`` / ``_foreach_mul_`` for plain tensors, the per-tensor ops for
    FakeTensors (not a foreach-supported type), as torch decides."""
    gms = []
    for L in (torch, D):
        if config == "fake":
            fm = fake_mode(L)
            with fm:
                m = _model(L)
            args = [fm.from_tensor(a) for a in _xy(L, 0)]
        else:
            m, args = _model(L), _xy(L, 0)
        gms.append(trace(L, _step_fn(L, m, norm_type, foreach), args, config))
    gm_t, gm_o = gms
    theirs = C.targets(gm_t)
    assert (own_targets(gm_o) if config == "pre" else C.targets(gm_o)) == theirs
    uses_foreach = foreach is None and config != "fake"
    assert ("aten._foreach_norm.Scalar" in theirs) == uses_foreach
    gm_o.graph.lint()
    if config == "post":
        assert gm_o.code == gm_t.code


def test_replayed_clip_step_equals_eager(torch: Any) -> None:
    m = _model(D)
    gm = trace(D, _step_fn(D, m, 2.0, None), _xy(D, 0), "post")
    m.zero_grad()
    fresh = _xy(D, 3)
    replay = [t.detach().numpy().copy() for t in gm(*fresh)]
    eager = [t.detach().numpy() for t in _step_fn(D, m, 2.0, None)(*fresh)]
    C.assert_close(replay, eager)
    assert replay[1] > 0.5  # the total norm before clipping (so the clip did scale)


def test_parameters_to_vector_and_back(torch: Any) -> None:
    out = []
    for L, m in zip((torch, D), _both(torch), strict=True):
        v = L.nn.utils.parameters_to_vector(m.parameters())
        L.nn.utils.vector_to_parameters(v * 2, m.parameters())
        w = L.nn.utils.parameters_to_vector(m.parameters())
        with pytest.raises(TypeError) as info:
            L.nn.utils.vector_to_parameters([1.0], m.parameters())
        out.append((v.detach().numpy(), w.detach().numpy(), list(m[0].weight.shape), str(info.value),
                    type(m[0].weight).__name__))
    C.assert_close(list(out[1][:2]), list(out[0][:2]))
    assert out[1][2:] == out[0][2:]
