"""nn resizing layers against torch: Upsample / F.interpolate in the modes nearest, nearest-exact, linear,
bilinear, bicubic, trilinear, area (size vs scale_factor, align_corners, recompute_scale_factor),
UpsamplingNearest2d / UpsamplingBilinear2d, PixelShuffle / PixelUnshuffle: values, gradients, make_fx graphs in the
four configurations, replay, and errors; plus a small U-Net-like down / up path."""

from __future__ import annotations

import pytest

import dispatcher as D
from tests.nn_oracle import check_module, check_same_error, randn

torch = pytest.importorskip("torch")


def _inputs(*shape: int):  # noqa: ANN202
    return lambda L, seed: [randn(L, seed, *shape)]


X3, X4, X5 = _inputs(2, 3, 5), _inputs(2, 3, 4, 5), _inputs(1, 2, 3, 4, 3)

RESIZE_CASES = {
    "nearest1d": (lambda L: L.nn.Upsample(scale_factor=2), X3),
    "nearest2d_size": (lambda L: L.nn.Upsample(size=(7, 9)), X4),
    "nearest2d_fraction": (lambda L: L.nn.Upsample(scale_factor=(1.5, 2.3)), X4),
    "nearest3d": (lambda L: L.nn.Upsample(scale_factor=(2, 1, 1.5)), X5),
    "nearest_exact1d": (lambda L: L.nn.Upsample(size=8, mode="nearest-exact"), X3),
    "nearest_exact2d": (lambda L: L.nn.Upsample(scale_factor=1.7, mode="nearest-exact"), X4),
    "nearest_exact3d": (lambda L: L.nn.Upsample(size=(5, 3, 6), mode="nearest-exact"), X5),
    "linear": (lambda L: L.nn.Upsample(scale_factor=2.5, mode="linear"), X3),
    "linear_ac": (lambda L: L.nn.Upsample(size=9, mode="linear", align_corners=True), X3),
    "bilinear": (lambda L: L.nn.Upsample(scale_factor=2, mode="bilinear"), X4),
    "bilinear_ac_down": (lambda L: L.nn.Upsample(size=(3, 2), mode="bilinear", align_corners=True), X4),
    "bilinear_recompute": (lambda L: L.nn.Upsample(scale_factor=1.6, mode="bilinear", recompute_scale_factor=True),
                           X4),
    "bicubic": (lambda L: L.nn.Upsample(scale_factor=(2, 1.5), mode="bicubic"), X4),
    "bicubic_ac": (lambda L: L.nn.Upsample(size=(6, 7), mode="bicubic", align_corners=True), X4),
    "trilinear": (lambda L: L.nn.Upsample(scale_factor=2, mode="trilinear"), X5),
    "trilinear_ac": (lambda L: L.nn.Upsample(size=(4, 2, 5), mode="trilinear", align_corners=True), X5),
    "area": (lambda L: L.nn.Upsample(size=(2, 3), mode="area"), X4),
    "nearest_module": (lambda L: L.nn.UpsamplingNearest2d(scale_factor=3), X4),
    "bilinear_module": (lambda L: L.nn.UpsamplingBilinear2d(size=(5, 8)), X4),
    "pixel_shuffle": (lambda L: L.nn.PixelShuffle(2), _inputs(2, 8, 3, 4)),
    "pixel_shuffle_5d": (lambda L: L.nn.PixelShuffle(3), _inputs(2, 1, 9, 2, 2)),
    "pixel_unshuffle": (lambda L: L.nn.PixelUnshuffle(2), _inputs(2, 3, 4, 6)),
}


@pytest.mark.parametrize("case", list(RESIZE_CASES))
def test_resize_module_matches_torch(case: str) -> None:
    make, make_inputs = RESIZE_CASES[case]
    check_module(torch, make, make_inputs)


def _unet(L):  # noqa: ANN001, ANN202
    """A small U-Net-like path: down with max pooling, up with bilinear upsampling and a pixel shuffle, skip
    connections by concatenation, group norm."""
    nn, F = L.nn, L.nn.functional

    class Down(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.GroupNorm(2, 4)
            self.w = nn.Parameter(L.randn(4, 4, 3, 3) * 0.2)

        def forward(self, x):  # noqa: ANN001, ANN202
            return F.relu(self.norm(F.conv2d(x, self.w, None, 1, 1)))

    class UNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc1, self.enc2 = Down(), Down()
            self.pool = nn.MaxPool2d(2)
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
            self.shuffle = nn.PixelShuffle(2)
            self.bn = nn.BatchNorm2d(9)

        def forward(self, x):  # noqa: ANN001, ANN202
            s1 = self.enc1(x)
            s2 = self.enc2(self.pool(s1))
            up = self.up(s2)
            sh = self.shuffle(L.cat([s2, s2], 1))  # (N, 2, H, W)
            return self.bn(L.cat([s1, up, sh[:, :1]], 1))

    return UNet()


def test_unet_like_path() -> None:
    check_module(torch, _unet, _inputs(2, 4, 6, 8))


ERROR_CASES = {
    "align_corners_nearest": (lambda L: L.nn.Upsample(scale_factor=2, align_corners=True), X4),
    "size_and_rank": (lambda L: L.nn.Upsample(size=(2, 3, 4)), X4),
    "no_size": (lambda L: L.nn.Upsample(), X4),
    "recompute_with_size": (lambda L: L.nn.Upsample(size=3, recompute_scale_factor=True), X4),
    "bilinear_3d": (lambda L: L.nn.Upsample(scale_factor=2, mode="bilinear"), X3),
    "linear_4d": (lambda L: L.nn.Upsample(scale_factor=2, mode="linear"), X4),
    "bad_mode": (lambda L: L.nn.Upsample(scale_factor=2, mode="cubic"), X4),
    "two_dims": (lambda L: L.nn.Upsample(scale_factor=2), _inputs(3, 4)),
    "shuffle_channels": (lambda L: L.nn.PixelShuffle(2), _inputs(1, 6, 2, 2)),
    "unshuffle_height": (lambda L: L.nn.PixelUnshuffle(2), _inputs(1, 2, 3, 4)),
    "shuffle_dims": (lambda L: L.nn.PixelShuffle(2), _inputs(4, 4)),
    "zero_size": (lambda L: L.nn.Upsample(scale_factor=0.1), X4),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_resize_errors_match_torch(case: str) -> None:
    check_same_error(torch, *ERROR_CASES[case])


def test_upsample_repr_keeps_float_factors() -> None:
    for L in (torch, D):
        assert repr(L.nn.Upsample(scale_factor=(2, 3), mode="bilinear")) == \
            "Upsample(scale_factor=(2.0, 3.0), mode='bilinear')"
        assert repr(L.nn.UpsamplingBilinear2d(size=4)) == "UpsamplingBilinear2d(size=4, mode='bilinear')"


BACKWARD_CHAINS = {
    "2d": (lambda L: L.nn.Sequential(L.nn.BatchNorm2d(3), L.nn.MaxPool2d(2), L.nn.Upsample(scale_factor=2,
                                                                                          mode="bilinear"),
                                     L.nn.AdaptiveMaxPool2d(3), L.nn.AvgPool2d(2, ceil_mode=True),
                                     L.nn.PixelShuffle(1)), (2, 3, 6, 6)),
    "3d": (lambda L: L.nn.Sequential(L.nn.InstanceNorm3d(3, affine=True), L.nn.MaxPool3d(2, stride=1),
                                     L.nn.Upsample(scale_factor=2), L.nn.AdaptiveAvgPool3d(3),
                                     L.nn.AvgPool3d(2, ceil_mode=True), L.nn.GroupNorm(1, 3),
                                     L.nn.Upsample(scale_factor=1.5, mode="trilinear"), L.nn.AdaptiveMaxPool3d(2)),
           (2, 3, 4, 5, 4)),
}


def _grads_of(L, m):  # noqa: ANN001, ANN202
    def grads(x):  # noqa: ANN001, ANN202
        return L.autograd.grad(m(x).sum(), [x, *m.parameters()])

    return grads


@pytest.mark.parametrize("chain", list(BACKWARD_CHAINS))
@pytest.mark.parametrize("config", ["post", "core"])
def test_backward_graphs_match_torch(chain: str, config: str) -> None:
    """make_fx of ``autograd.grad`` through the layers: the backward ops (``*_backward``, or their core-aten
    decompositions) in torch's order."""
    from tests.nn_oracle import own_targets, trace

    make, shape = BACKWARD_CHAINS[chain]
    targets = []
    for L in (torch, D):
        L.manual_seed(0)
        m = make(L)
        x = randn(L, 0, *shape).requires_grad_(True)

        targets.append(own_targets(trace(L, _grads_of(L, m), [x], config)))
    assert targets[1] == targets[0]
    assert any("backward" in t for t in targets[0]) or config == "core"
