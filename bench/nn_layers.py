"""Eager forward cost of the normalization, pooling and resizing layers, ours vs torch in the same run.

Each layer is built in both libraries (ours loads torch's state dict) and run on the same float32 input
(8, 16, 32, 32) (5-d layers: (4, 8, 8, 16, 16)) under ``no_grad``, torch on one thread; a row is the median of 7
repeats of a timed loop, in microseconds per call, plus the largest difference between the outputs (a sanity check).
A small CNN (F.conv2d + BatchNorm2d + ReLU + MaxPool2d, twice, then AdaptiveAvgPool2d and a linear head) closes the
table. Run: ``.venv/bin/python bench/nn_layers.py``.
"""

from __future__ import annotations

import statistics
import sys
import timeit
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dispatcher  # noqa: E402

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

REPEAT = 7

LAYERS = {
    "BatchNorm2d (train)": (lambda L: L.nn.BatchNorm2d(16), 4),
    "BatchNorm2d (eval)": (lambda L: L.nn.BatchNorm2d(16).eval(), 4),
    "GroupNorm(4, 16)": (lambda L: L.nn.GroupNorm(4, 16), 4),
    "InstanceNorm2d": (lambda L: L.nn.InstanceNorm2d(16), 4),
    "MaxPool2d(2)": (lambda L: L.nn.MaxPool2d(2), 4),
    "MaxPool2d(3, 2, 1)": (lambda L: L.nn.MaxPool2d(3, 2, 1), 4),
    "AvgPool2d(2)": (lambda L: L.nn.AvgPool2d(2), 4),
    "AdaptiveAvgPool2d(7)": (lambda L: L.nn.AdaptiveAvgPool2d(7), 4),
    "AdaptiveMaxPool2d(7)": (lambda L: L.nn.AdaptiveMaxPool2d(7), 4),
    "MaxPool3d(2)": (lambda L: L.nn.MaxPool3d(2), 5),
    "AvgPool3d(2)": (lambda L: L.nn.AvgPool3d(2), 5),
    "Upsample x2 nearest": (lambda L: L.nn.Upsample(scale_factor=2), 4),
    "Upsample x2 bilinear": (lambda L: L.nn.Upsample(scale_factor=2, mode="bilinear"), 4),
    "Upsample x2 bicubic": (lambda L: L.nn.Upsample(scale_factor=2, mode="bicubic"), 4),
    "PixelShuffle(2)": (lambda L: L.nn.PixelShuffle(2), 4),
}


def small_cnn(L: Any) -> Any:
    nn, F = L.nn, L.nn.functional

    class CNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w1, self.w2 = nn.Parameter(L.randn(16, 3, 3, 3) * 0.2), nn.Parameter(L.randn(32, 16, 3, 3) * 0.1)
            self.bn1, self.bn2 = nn.BatchNorm2d(16), nn.BatchNorm2d(32)
            self.head = nn.Linear(32, 10)

        def forward(self, x: Any) -> Any:
            x = F.max_pool2d(F.relu(self.bn1(F.conv2d(x, self.w1, None, 1, 1))), 2)
            x = F.max_pool2d(F.relu(self.bn2(F.conv2d(x, self.w2, None, 1, 1))), 2)
            return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))

    return CNN().eval()


def per_call_us(fn: Any) -> float:
    timer = timeit.Timer(fn)
    n, _ = timer.autorange()
    return statistics.median(timer.repeat(REPEAT, n)) / n * 1e6


def build(make: Any) -> tuple[Any, Any]:
    m_t = make(torch)
    m_o = make(dispatcher)
    m_o.load_state_dict({k: dispatcher.tensor(v.detach().numpy().copy()) for k, v in m_t.state_dict().items()})
    return m_t, m_o


def row(name: str, m_t: Any, m_o: Any, x: np.ndarray) -> None:
    xt, xo = torch.tensor(x), dispatcher.tensor(x)
    with torch.no_grad(), dispatcher.no_grad():
        diff = float(np.abs(m_t(xt).numpy() - m_o(xo).numpy()).max())
        ours, theirs = per_call_us(lambda: m_o(xo)), per_call_us(lambda: m_t(xt))
    print(f"| {name} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:.1f}x | {diff:.1e} |")


def main() -> None:
    if torch is None:
        print("torch is not installed: nothing to compare")
        return
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    inputs = {4: rng.standard_normal((8, 16, 32, 32)).astype(np.float32),
              5: rng.standard_normal((4, 8, 8, 16, 16)).astype(np.float32)}
    print("| layer | ours (µs) | torch (µs) | ratio | max diff |")
    print("|---|---|---|---|---|")
    for name, (make, rank) in LAYERS.items():
        x = inputs[rank] if "3d" not in name else inputs[5]
        if name.startswith(("BatchNorm", "GroupNorm", "InstanceNorm")) and rank == 4:
            x = inputs[4]
        m_t, m_o = build(make)
        if "train" in name:
            m_t.train(), m_o.train()
        row(name, m_t, m_o, x)
    torch.manual_seed(0)
    m_t, m_o = build(small_cnn)
    row("small CNN forward (8x3x32x32, eval)", m_t, m_o, rng.standard_normal((8, 3, 32, 32)).astype(np.float32))


if __name__ == "__main__":
    main()
