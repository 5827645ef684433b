"""Eager forward of a small CNN classifier, ours vs torch in the same run (issue 19).

The model (written once against a module parameter ``m``, ``torch`` or ``dispatcher``, as ``nn`` modules with the
same weights): Conv2d(1, 8, 3, padding=1) - ReLU - max_pool2d(2) - Conv2d(8, 16, 3) - ReLU - flatten -
Linear(16 * 12 * 12, 10), on MNIST-shaped inputs (N, 1, 28, 28) for N = 1 and N = 16; then its second convolution
and its pooling alone (where the time goes), a ConvTranspose2d(16, 8, 2, stride=2) up-sampling step, and the CNN's
training step (forward + ``.sum().backward()``, autograd on). The forwards run under
``no_grad``, each library on one thread (``torch.set_num_threads(1)``; NumPy's BLAS limited to one thread through
``OPENBLAS_NUM_THREADS`` before it loads). Each figure is the median of
``REPEAT`` repeats of the best-sized loop, in microseconds per call; the ratio is ours / torch; the last column is
the largest difference between the outputs (a sanity check). Run: ``.venv/bin/python bench/cnn_eager.py``.
"""

from __future__ import annotations

import os
import statistics
import sys
import timeit
from pathlib import Path
from typing import Any

# one BLAS thread, as torch gets one thread below: both sides single-threaded (set before NumPy loads OpenBLAS)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dispatcher  # noqa: E402

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

REPEAT = 7


def make_cnn(m: Any) -> Any:
    F = m.nn.functional

    class SmallCNN(m.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = m.nn.Conv2d(1, 8, 3, padding=1)
            self.conv2 = m.nn.Conv2d(8, 16, 3)
            self.fc = m.nn.Linear(16 * 12 * 12, 10)

        def forward(self, x: Any) -> Any:
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.relu(self.conv2(x))
            return self.fc(m.flatten(x, 1))

    return SmallCNN()


def make_up(m: Any) -> Any:
    return m.nn.ConvTranspose2d(16, 8, 2, stride=2)


def make_conv2(m: Any) -> Any:
    return m.nn.Conv2d(8, 16, 3)


def make_pool(m: Any) -> Any:
    class Pool(m.nn.Module):
        def forward(self, x: Any) -> Any:
            return m.nn.functional.max_pool2d(x, 2)

    return Pool()


def _copy_weights(src: Any, dst: Any) -> None:
    dst.load_state_dict({k: dispatcher.tensor(v.detach().numpy().copy()) for k, v in src.state_dict().items()})


def _time(fn: Any) -> float:
    """Median microseconds per call."""
    number = 1
    while timeit.timeit(fn, number=number) < 0.05 and number < 10_000:
        number *= 2
    return statistics.median(timeit.repeat(fn, number=number, repeat=REPEAT)) / number * 1e6


def rows() -> list[tuple[str, float, float | None, float | None]]:
    rng = np.random.default_rng(0)
    out = []
    if torch is not None:
        torch.manual_seed(0)
        torch.set_num_threads(1)
    for name, build, shape in [("small CNN forward, N=1", make_cnn, (1, 1, 28, 28)),
                               ("small CNN forward, N=16", make_cnn, (16, 1, 28, 28)),
                               ("its Conv2d(8, 16, 3) alone, 8x14x14, N=16", make_conv2, (16, 8, 14, 14)),
                               ("its max_pool2d(2) alone, 8x28x28, N=16", make_pool, (16, 8, 28, 28)),
                               ("ConvTranspose2d(16, 8, 2, stride=2), 16x12x12, N=16", make_up, (16, 16, 12, 12))]:
        x = rng.standard_normal(shape).astype(np.float32)
        ours = build(dispatcher)
        x_o = dispatcher.from_numpy(x.copy())
        if torch is not None:
            theirs = build(torch)
            _copy_weights(theirs, ours)
            x_t = torch.from_numpy(x.copy())
        with dispatcher.no_grad():
            t_ours = _time(lambda m=ours, a=x_o: m(a))
            y_o = ours(x_o).numpy()
        t_torch = diff = None
        if torch is not None:
            with torch.no_grad():
                t_torch = _time(lambda m=theirs, a=x_t: m(a))
                diff = float(np.abs(theirs(x_t).numpy() - y_o).max())
        out.append((name, t_ours, t_torch, diff))
    out.append(_train_row(rng))
    return out


def _train_step(model: Any, x: Any) -> Any:
    """Gradients reset, forward, ``.sum().backward()``; returns the first convolution's weight gradient."""
    for p in model.parameters():
        p.grad = None
    model(x).sum().backward()
    return model.conv1.weight.grad


def _train_row(rng: np.random.Generator) -> tuple[str, float, float | None, float | None]:
    """The CNN's training step (autograd on: convolution_backward, max_pool2d_with_indices_backward, ...)."""
    x = rng.standard_normal((16, 1, 28, 28)).astype(np.float32)
    ours = make_cnn(dispatcher)
    x_o = dispatcher.from_numpy(x.copy())
    t_ours = _time(lambda: _train_step(ours, x_o))
    if torch is None:
        return ("small CNN training step (forward + backward), N=16", t_ours, None, None)
    theirs = make_cnn(torch)
    _copy_weights(theirs, ours)
    x_t = torch.from_numpy(x.copy())
    t_torch = _time(lambda: _train_step(theirs, x_t))
    diff = float(np.abs(_train_step(theirs, x_t).numpy() - _train_step(ours, x_o).numpy()).max())
    return ("small CNN training step (forward + backward), N=16", t_ours, t_torch, diff)


def main() -> None:
    print("| eager (no_grad, but the training step) | ours µs | torch µs | ours / torch | max abs diff |")
    print("|---|---|---|---|---|")
    for name, t_ours, t_torch, diff in rows():
        if t_torch is None:
            print(f"| {name} | {t_ours:.0f} | n/a | n/a | n/a |")
        else:
            print(f"| {name} | {t_ours:.0f} | {t_torch:.0f} | {t_ours / t_torch:.1f}x | {diff:.1e} |")


if __name__ == "__main__":
    main()
