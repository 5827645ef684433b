"""nn pooling layers against torch: MaxPool1d/2d/3d (return_indices, ceil_mode, dilation, padding),
AvgPool1d/2d/3d (count_include_pad, divisor_override, ceil_mode), AdaptiveAvgPool1d/2d/3d,
AdaptiveMaxPool1d/2d/3d (return_indices), MaxUnpool1d/2d, LPPool1d/2d/3d: values, gradients, make_fx graphs in the
four configurations, replay, and errors (class and message)."""

from __future__ import annotations

import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import check_module, check_same_error, randn

torch = pytest.importorskip("torch")


def _inputs(*shape: int):  # noqa: ANN202
    return lambda L, seed: [randn(L, seed, *shape)]


X3, X4, X5 = _inputs(2, 3, 9), _inputs(2, 3, 7, 8), _inputs(2, 2, 5, 6, 7)

POOL_CASES = {
    "max1d": (lambda L: L.nn.MaxPool1d(3, stride=2, padding=1), X3),
    "max1d_indices_ceil": (lambda L: L.nn.MaxPool1d(2, ceil_mode=True, return_indices=True), X3),
    "max2d_dilated": (lambda L: L.nn.MaxPool2d(3, stride=(2, 1), padding=1, dilation=2, return_indices=True), X4),
    "max3d": (lambda L: L.nn.MaxPool3d(2), X5),
    "max3d_ceil_pad": (lambda L: L.nn.MaxPool3d((2, 3, 2), stride=2, padding=1, ceil_mode=True,
                                                return_indices=True), X5),
    "max3d_dilated_nobatch": (lambda L: L.nn.MaxPool3d(2, stride=1, dilation=(1, 2, 2)), _inputs(2, 4, 5, 6)),
    "avg1d": (lambda L: L.nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), X3),
    "avg2d": (lambda L: L.nn.AvgPool2d(3, stride=2, padding=1), X4),
    "avg2d_divisor_ceil": (lambda L: L.nn.AvgPool2d(2, ceil_mode=True, divisor_override=3), X4),
    "avg3d": (lambda L: L.nn.AvgPool3d(2), X5),
    "avg3d_pad_exclude": (lambda L: L.nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False,
                                                   ceil_mode=True), X5),
    "avg3d_divisor": (lambda L: L.nn.AvgPool3d((1, 2, 3), stride=(1, 2, 2), divisor_override=4), X5),
    "adaptive_avg2d": (lambda L: L.nn.AdaptiveAvgPool2d((3, None)), X4),
    "adaptive_avg3d": (lambda L: L.nn.AdaptiveAvgPool3d((2, 4, 3)), X5),
    "adaptive_avg3d_1": (lambda L: L.nn.AdaptiveAvgPool3d(1), X5),
    "adaptive_max1d": (lambda L: L.nn.AdaptiveMaxPool1d(4), X3),
    "adaptive_max1d_indices": (lambda L: L.nn.AdaptiveMaxPool1d(5, return_indices=True), X3),
    "adaptive_max2d": (lambda L: L.nn.AdaptiveMaxPool2d((3, 5), return_indices=True), X4),
    "adaptive_max2d_none": (lambda L: L.nn.AdaptiveMaxPool2d((None, 3)), X4),
    "adaptive_max3d": (lambda L: L.nn.AdaptiveMaxPool3d((2, 4, 3)), X5),
    "adaptive_max3d_indices": (lambda L: L.nn.AdaptiveMaxPool3d(3, return_indices=True), _inputs(2, 5, 6, 7)),
    "lp1d": (lambda L: L.nn.LPPool1d(2, 3, stride=2), _inputs(2, 3, 9)),
    "lp2d": (lambda L: L.nn.LPPool2d(3, (2, 3)), X4),
    "lp3d": (lambda L: L.nn.LPPool3d(2, 2, stride=(1, 2, 2)), X5),
}


@pytest.mark.parametrize("case", list(POOL_CASES))
def test_pool_module_matches_torch(case: str) -> None:
    make, make_inputs = POOL_CASES[case]
    check_module(torch, make, make_inputs)


def _unpool(L):  # noqa: ANN001, ANN202
    class PoolUnpool(L.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pool = L.nn.MaxPool2d(2, stride=2, return_indices=True)
            self.unpool = L.nn.MaxUnpool2d(2, stride=2)

        def forward(self, x):  # noqa: ANN001, ANN202
            out, idx = self.pool(x)
            return self.unpool(out, idx, output_size=x.size())

    return PoolUnpool()


def test_max_unpool2d_round_trip() -> None:
    check_module(torch, _unpool, _inputs(2, 3, 5, 7))


def _unpool1d(L):  # noqa: ANN001, ANN202
    class PoolUnpool1d(L.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pool = L.nn.MaxPool1d(3, stride=2, return_indices=True)
            self.unpool = L.nn.MaxUnpool1d(3, stride=2)

        def forward(self, x):  # noqa: ANN001, ANN202
            out, idx = self.pool(x)
            return self.unpool(out, idx)

    return PoolUnpool1d()


def test_max_unpool1d_round_trip() -> None:
    check_module(torch, _unpool1d, _inputs(2, 3, 9))


def test_max_pool_indices_equal_torch() -> None:
    for make, shape in ((lambda L: L.nn.MaxPool3d(3, stride=2, padding=1, return_indices=True), (2, 2, 5, 6, 7)),
                        (lambda L: L.nn.AdaptiveMaxPool2d((3, 4), return_indices=True), (2, 3, 7, 9)),
                        (lambda L: L.nn.AdaptiveMaxPool3d((2, 3, 4), return_indices=True), (1, 2, 5, 6, 7))):
        m_t, m_o = make(torch), make(D)
        (v_t, i_t), (v_o, i_o) = m_t(randn(torch, 1, *shape)), m_o(randn(D, 1, *shape))
        C.assert_close(C.to_np(v_t), C.to_np(v_o))
        assert (C.to_np(i_t) == C.to_np(i_o)).all() and i_o.dtype == D.int64


ERROR_CASES = {
    "max3d_dim": (lambda L: L.nn.MaxPool3d(2), _inputs(3, 4, 5)),
    "max3d_pad": (lambda L: L.nn.MaxPool3d(2, padding=2), X5),
    "max3d_small": (lambda L: L.nn.MaxPool3d(7), _inputs(1, 2, 3, 3, 3)),
    "avg3d_small": (lambda L: L.nn.AvgPool3d(4), _inputs(1, 2, 3, 5, 5)),
    "avg3d_dim": (lambda L: L.nn.AvgPool3d(2), _inputs(3, 4, 5)),
    "adaptive_avg3d_dim": (lambda L: L.nn.AdaptiveAvgPool3d(2), _inputs(3, 4, 5)),
    "adaptive_max2d_dim": (lambda L: L.nn.AdaptiveMaxPool2d(2), _inputs(3, 4)),
    "adaptive_max3d_dim": (lambda L: L.nn.AdaptiveMaxPool3d(2), _inputs(3, 4, 5)),
    "adaptive_max1d_dim": (lambda L: L.nn.AdaptiveMaxPool1d(2), _inputs(1, 2, 3, 4)),
    "adaptive_max2d_none_dim": (lambda L: L.nn.AdaptiveMaxPool2d((None, 2)), _inputs(4, 5)),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_pool_errors_match_torch(case: str) -> None:
    check_same_error(torch, *ERROR_CASES[case])


def test_unpool_output_size_error() -> None:
    for L in (torch, D):
        x = randn(L, 0, 1, 1, 2, 2)
        idx = L.zeros(1, 1, 2, 2, dtype=L.int64)
        with pytest.raises(ValueError, match=r'invalid output_size "\[9, 9\]" \(dim 0 must be between 2 and 6\)'):
            L.nn.MaxUnpool2d(2)(x, idx, output_size=[9, 9])
