"""``nn.init`` against torch 2.13: every public function exists; the deterministic fills (constant / ones / zeros /
eye / dirac) and the gains equal torch's; the random ones draw from the same distributions (bounds, moments,
orthogonality, zeros per column); errors and deprecation warnings are torch's."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher as D


def test_every_torch_init_function_exists(torch: Any) -> None:
    theirs = {n for n in dir(torch.nn.init) if not n.startswith("_") and callable(getattr(torch.nn.init, n))
              and getattr(getattr(torch.nn.init, n), "__module__", "") == "torch.nn.init"}
    assert theirs - set(dir(D.nn.init)) == set()


@pytest.mark.parametrize(("nonlinearity", "param"), [("linear", None), ("conv2d", None), ("sigmoid", None),
                                                      ("tanh", None), ("relu", None), ("leaky_relu", None),
                                                      ("leaky_relu", 0.2), ("selu", None)])
def test_gains_match_torch(torch: Any, nonlinearity: str, param: Any) -> None:
    assert D.nn.init.calculate_gain(nonlinearity, param) == torch.nn.init.calculate_gain(nonlinearity, param)


@pytest.mark.parametrize("case", ["constant", "ones", "zeros", "eye", "dirac3", "dirac4_groups", "dirac5"])
def test_deterministic_fills_match_torch(torch: Any, case: str) -> None:
    def run(L: Any) -> Any:
        init = L.nn.init
        shape, fn = {"constant": ((3, 4), lambda t: init.constant_(t, 0.25)), "ones": ((2, 3), init.ones_),
                     "zeros": ((2, 3), init.zeros_), "eye": ((3, 5), init.eye_),
                     "dirac3": ((4, 3, 5), init.dirac_), "dirac4_groups": ((6, 2, 3, 3), lambda t: init.dirac_(t, 3)),
                     "dirac5": ((2, 2, 3, 3, 3), init.dirac_)}[case]
        t = L.nn.Parameter(L.empty(*shape))
        r = fn(t)
        return r is t, t.requires_grad, t.detach().numpy().copy()

    (same_t, rg_t, v_t), (same_o, rg_o, v_o) = run(torch), run(D)
    assert (same_o, rg_o) == (same_t, rg_t)
    np.testing.assert_array_equal(v_o, v_t)


def test_random_fills_have_the_distributions() -> None:
    init = D.nn.init
    D.manual_seed(0)
    w = init.trunc_normal_(D.empty(20000), mean=0.5, std=1.0, a=-0.5, b=1.0).numpy()
    assert w.min() >= -0.5 and w.max() <= 1.0 and abs(w.mean() - 0.3) < 0.05  # (the truncated mean is ~0.29)
    w = init.trunc_normal_(D.empty(20000), a=2.0, b=3.0).numpy()  # the rejection-sampling branch (p <= 0.3)
    assert w.min() >= 2.0 and w.max() <= 3.0 and abs(w.mean() - 2.316) < 0.02  # E[X | 2 <= X <= 3] = 2.316
    q = init.orthogonal_(D.empty(4, 3, 2), gain=2.0).numpy().reshape(4, 6)
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(4), atol=1e-5)
    s = init.sparse_(D.empty(10, 6), sparsity=0.3, std=0.5).numpy()
    assert ((s == 0).sum(axis=0) == 3).all()
    x = init.xavier_uniform_(D.empty(300, 200), gain=2.0).numpy()
    assert np.abs(x).max() <= 2.0 * math.sqrt(6 / 500) and abs(x.std() - 2.0 * math.sqrt(2 / 500)) < 2e-3
    k = init.kaiming_normal_(D.empty(400, 300), mode="fan_out", nonlinearity="relu").numpy()
    assert abs(k.std() - math.sqrt(2 / 400)) < 2e-3


@pytest.mark.parametrize("case", ["eye_3d", "dirac_2d", "dirac_groups", "orthogonal_1d", "sparse_3d", "fan_1d",
                                  "mode", "gain", "leaky_param"])
def test_errors_match_torch(torch: Any, case: str) -> None:
    def run(L: Any) -> str:
        init = L.nn.init
        call = {"eye_3d": lambda: init.eye_(L.empty(2, 2, 2)), "dirac_2d": lambda: init.dirac_(L.empty(2, 2)),
                "dirac_groups": lambda: init.dirac_(L.empty(5, 2, 3), 2),
                "orthogonal_1d": lambda: init.orthogonal_(L.empty(3)),
                "sparse_3d": lambda: init.sparse_(L.empty(2, 2, 2), 0.1),
                "fan_1d": lambda: init.xavier_uniform_(L.empty(3)),
                "mode": lambda: init.kaiming_uniform_(L.empty(3, 3), mode="fan_middle"),
                "gain": lambda: init.calculate_gain("swish"),
                "leaky_param": lambda: init.calculate_gain("leaky_relu", "x")}[case]
        with pytest.raises(ValueError) as info:  # noqa: PT011 - compared below
            call()
        return str(info.value)

    assert run(D) == run(torch)


def test_deprecated_spellings_warn_as_torch(torch: Any) -> None:
    out = []
    for L in (torch, D):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t = L.nn.init.constant(L.empty(2), 3.0)
            L.nn.init.xavier_normal(L.empty(2, 2))
        out.append((t.tolist(), [(x.category.__name__, str(x.message)) for x in w]))
    assert out[1] == out[0]
