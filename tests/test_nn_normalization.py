"""nn normalization layers against torch: BatchNorm1d/2d/3d (running statistics, momentum None, eval,
track_running_stats=False, affine=False), InstanceNorm1d/2d/3d, GroupNorm, RMSNorm, LocalResponseNorm, and a
residual block with batch norm: values, gradients, make_fx graphs in the four configurations, replay, running
buffers after training steps, errors."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import CONFIGS, build_both, check_eager, check_graphs, check_module, check_same_error, randn

torch = pytest.importorskip("torch")


def _inputs(*shape: int):  # noqa: ANN202
    return lambda L, seed: [randn(L, seed, *shape)]


NORM_CASES = {
    "bn1d_2d": (lambda L: L.nn.BatchNorm1d(5), _inputs(4, 5)),
    "bn1d_3d": (lambda L: L.nn.BatchNorm1d(3, affine=False), _inputs(2, 3, 6)),
    "bn2d": (lambda L: L.nn.BatchNorm2d(3), _inputs(2, 3, 4, 5)),
    "bn2d_eval": (lambda L: L.nn.BatchNorm2d(3, eps=1e-3).eval(), _inputs(2, 3, 4, 5)),
    "bn2d_untracked": (lambda L: L.nn.BatchNorm2d(3, track_running_stats=False, bias=False), _inputs(2, 3, 4, 5)),
    "bn2d_untracked_eval": (lambda L: L.nn.BatchNorm2d(3, track_running_stats=False).eval(), _inputs(2, 3, 4, 5)),
    "bn3d": (lambda L: L.nn.BatchNorm3d(2, momentum=0.3), _inputs(2, 2, 3, 3, 3)),
    "in1d": (lambda L: L.nn.InstanceNorm1d(3), _inputs(2, 3, 7)),
    "in1d_nobatch": (lambda L: L.nn.InstanceNorm1d(3, affine=True), _inputs(3, 7)),
    "in2d_tracked": (lambda L: L.nn.InstanceNorm2d(3, affine=True, track_running_stats=True), _inputs(2, 3, 4, 4)),
    "in2d_tracked_eval": (lambda L: L.nn.InstanceNorm2d(3, track_running_stats=True).eval(), _inputs(2, 3, 4, 4)),
    "in3d": (lambda L: L.nn.InstanceNorm3d(2, affine=True), _inputs(2, 2, 3, 3, 3)),
    "gn": (lambda L: L.nn.GroupNorm(2, 4), _inputs(2, 4, 3, 3)),
    "gn_noaffine": (lambda L: L.nn.GroupNorm(1, 3, eps=1e-3, affine=False), _inputs(2, 3, 5)),
    "rms": (lambda L: L.nn.RMSNorm(6), _inputs(2, 3, 6)),
    "rms_eps_2d": (lambda L: L.nn.RMSNorm([3, 6], eps=1e-4, elementwise_affine=False), _inputs(2, 3, 6)),
    "lrn_3d": (lambda L: L.nn.LocalResponseNorm(3), _inputs(2, 5, 6)),
    "lrn_4d": (lambda L: L.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), _inputs(2, 5, 3, 4)),
}


@pytest.mark.parametrize("case", list(NORM_CASES))
def test_norm_module_matches_torch(case: str) -> None:
    make, make_inputs = NORM_CASES[case]
    check_module(torch, make, make_inputs)


def _buffers(m) -> dict:  # noqa: ANN001
    return {k: C.to_np(v) for k, v in m.state_dict().items()}


@pytest.mark.parametrize("make", [
    lambda L: L.nn.BatchNorm2d(3),
    lambda L: L.nn.BatchNorm2d(3, momentum=None),
    lambda L: L.nn.BatchNorm1d(4, momentum=0.5, affine=False),
    lambda L: L.nn.InstanceNorm2d(3, track_running_stats=True),
    lambda L: L.nn.InstanceNorm1d(4, momentum=None, track_running_stats=True),
], ids=["bn2d", "bn2d_cumulative", "bn1d", "in2d", "in1d_cumulative"])
def test_running_stats_after_training_steps(make) -> None:  # noqa: ANN001
    """Three training steps, then eval: the buffers (incl. num_batches_tracked) and the eval output equal torch's."""
    m_t, _, m_o, _ = build_both(torch, make, lambda L, s: [])
    shape = (4, m_o.num_features, 3, 3) if "2d" in type(m_o).__name__ else (4, m_o.num_features, 5)
    for step in range(3):
        x_t, x_o = randn(torch, step, *shape), randn(D, step, *shape)
        C.assert_close(C.to_np(m_t(x_t)), C.to_np(m_o(x_o)))
    bt, bo = _buffers(m_t), _buffers(m_o)
    assert list(bt) == list(bo)
    for k in bt:
        C.assert_close(bt[k], bo[k])
    steps = 3 if "Batch" in type(m_o).__name__ else 0  # instance norm keeps the count at 0
    assert int(m_o.num_batches_tracked) == steps and m_o.num_batches_tracked.dtype == D.int64
    m_t.eval(), m_o.eval()
    x_t, x_o = randn(torch, 9, *shape), randn(D, 9, *shape)
    C.assert_close(C.to_np(m_t(x_t)), C.to_np(m_o(x_o)))
    assert int(m_o.num_batches_tracked) == steps


def test_batchnorm_state_dict_and_reset() -> None:
    m = D.nn.BatchNorm2d(2, affine=False)
    assert list(m.state_dict()) == ["running_mean", "running_var", "num_batches_tracked"]
    assert list(D.nn.BatchNorm2d(2, track_running_stats=False).state_dict()) == ["weight", "bias"]
    m(randn(D, 0, 3, 2, 2, 2))
    m.reset_running_stats()
    assert np.array_equal(C.to_np(m.running_var), np.ones(2)) and int(m.num_batches_tracked) == 0
    # an old (version 1) state dict without the count loads, keeping ours
    sd = OrderedDict((k, v) for k, v in m.state_dict().items() if k != "num_batches_tracked")
    sd._metadata = {"": {"version": 1}}  # type: ignore[attr-defined]
    assert repr(m.load_state_dict(sd)) == "<All keys matched successfully>"


def test_momentum_none_is_data_dependent_under_make_fx() -> None:
    """``1 / float(num_batches_tracked)`` reads a tensor: tracing raises in both libraries."""
    from tests.nn_oracle import trace
    from tracer import make_fx

    m_t, a_t, m_o, a_o = build_both(torch, lambda L: L.nn.BatchNorm2d(3, momentum=None), _inputs(2, 3, 2, 2))
    with pytest.raises(RuntimeError):
        trace(torch, m_t, a_t, "post")
    with pytest.raises(Exception, match="_local_scalar_dense|data-dependent|value out of a tracing tensor"):
        make_fx(m_o)(*a_o)


ERROR_CASES = {
    "bn2d_dim": (lambda L: L.nn.BatchNorm2d(3), _inputs(3, 4)),
    "bn1d_dim": (lambda L: L.nn.BatchNorm1d(3), _inputs(3, 4, 5, 6)),
    "bn3d_dim": (lambda L: L.nn.BatchNorm3d(3), _inputs(3, 4, 5, 6)),
    "bn_one_value": (lambda L: L.nn.BatchNorm1d(3), _inputs(1, 3)),
    "bn_features": (lambda L: L.nn.BatchNorm2d(4), _inputs(2, 3, 2, 2)),
    "in2d_dim": (lambda L: L.nn.InstanceNorm2d(3), _inputs(3, 4)),
    "in_affine_features": (lambda L: L.nn.InstanceNorm1d(4, affine=True), _inputs(2, 3, 5)),
    "in_one_spatial": (lambda L: L.nn.InstanceNorm1d(3), _inputs(2, 3, 1)),
    "gn_groups": (lambda L: L.nn.GroupNorm(2, 4), _inputs(2, 3, 4)),
    "rms_shape": (lambda L: L.nn.RMSNorm(5), _inputs(2, 4)),
    "lrn_dim": (lambda L: L.nn.LocalResponseNorm(2), _inputs(2, 4)),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_norm_errors_match_torch(case: str) -> None:
    check_same_error(torch, *ERROR_CASES[case])


def test_group_norm_constructor_error_and_instance_norm_warning() -> None:
    for L in (torch, D):
        with pytest.raises(ValueError, match=r"num_channels \(5\) must be divisible by num_groups \(2\)"):
            L.nn.GroupNorm(2, 5)
        with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
            L.nn.InstanceNorm1d(4)(randn(L, 0, 2, 3, 5))


# --- a residual block with batch norm ------------------------------------------------------------------------------


def _make_block(L):  # noqa: ANN001, ANN202
    """conv3x3-BN-ReLU-conv3x3-BN plus the input, then ReLU (a ResNet basic block), with our own conv layer built on
    F.conv2d so the block needs only what this issue builds."""
    nn, F = L.nn, L.nn.functional

    class Conv(nn.Module):
        def __init__(self, c_in: int, c_out: int) -> None:
            super().__init__()
            self.weight = nn.Parameter(L.randn(c_out, c_in, 3, 3) * 0.2)

        def forward(self, x):  # noqa: ANN001, ANN202
            return F.conv2d(x, self.weight, None, 1, 1)

    class Block(nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.conv1, self.bn1 = Conv(c, c), nn.BatchNorm2d(c)
            self.conv2, self.bn2 = Conv(c, c), nn.BatchNorm2d(c)

        def forward(self, x):  # noqa: ANN001, ANN202
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + x)

    return Block(3)


@pytest.mark.parametrize("mode", ["train", "eval"])
def test_residual_block_with_batch_norm(mode: str) -> None:
    def make(L):  # noqa: ANN001, ANN202
        m = _make_block(L)
        return m.eval() if mode == "eval" else m

    check_eager(torch, make, _inputs(2, 3, 5, 5))
    check_graphs(torch, make, _inputs(2, 3, 5, 5), CONFIGS)
