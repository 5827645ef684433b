"""Training: one AdamW step over a GPT-sized parameter set, and make_fx of a whole GPT train step, ours vs torch.

1. ``optimizer.step()`` of ``AdamW`` (lr 3e-4, weight decay 0.1) over the parameters of a GPT-style model with
   ``--layers`` blocks of width ``--dim`` (embedding, per block: LayerNorm, qkv and output projections, MLP of 4x
   width; about 12·dim² parameters a block): single-tensor (torch's CPU default) and ``foreach=True``. Wall time per
   step, median of ``--repeats`` steps after two warm-up steps.
2. ``make_fx`` of one train step of the character GPT of tests/test_training_e2e.py (forward, cross-entropy,
   ``backward()``, ``clip_grad_norm_``, AdamW ``step()``, ``zero_grad``), in ``real`` and ``pre`` mode, on fresh
   models: CPU time of the trace (``time.process_time``) and the number of graph nodes, median over ``--repeats``.

torch runs with one intra-op thread (``torch.set_num_threads(1)``), as our NumPy kernels do. Run:
``.venv/bin/python bench/training.py [--quick] [--no-torch]``; the default takes about a minute.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import dispatcher as D  # noqa: E402


def _gpt_params(L: Any, layers: int, dim: int, vocab: int = 512) -> list:
    rng = np.random.default_rng(0)
    shapes = [(vocab, dim), (256, dim)]
    for _ in range(layers):
        shapes += [(dim,), (dim,), (3 * dim, dim), (3 * dim,), (dim, dim), (dim,), (dim,), (dim,),
                   (4 * dim, dim), (4 * dim,), (dim, 4 * dim), (dim,)]
    shapes += [(dim,), (dim,)]
    params = []
    for s in shapes:
        p = L.nn.Parameter(L.tensor(rng.standard_normal(s).astype(np.float32) * 0.02))
        p.grad = L.tensor(rng.standard_normal(s).astype(np.float32) * 1e-3)
        params.append(p)
    return params


def adamw_step(L: Any, layers: int, dim: int, foreach: bool, repeats: int) -> tuple[float, int]:
    params = _gpt_params(L, layers, dim)
    opt = L.optim.AdamW(params, lr=3e-4, weight_decay=0.1, foreach=foreach)
    for _ in range(2):
        opt.step()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        opt.step()
        times.append(time.perf_counter() - t)
    return statistics.median(times), sum(p.numel() for p in params)


def trace_train_step(L: Any, mode: str, repeats: int) -> tuple[float, int]:
    from tests.nn_oracle import trace
    from tests.test_training_e2e import char_batch, gpt_training

    times, nodes = [], 0
    for _ in range(repeats):
        _, _, _, step = gpt_training(L)
        args = char_batch(L, 0)
        t = time.process_time()
        gm = trace(L, step, args, "pre" if mode == "pre" else "post")
        times.append(time.process_time() - t)
        nodes = len(list(gm.graph.nodes))
    return statistics.median(times), nodes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a small parameter set, 3 repeats")
    ap.add_argument("--no-torch", action="store_true", help="ours only")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    layers, dim, repeats = (2, 64, 3) if a.quick else (a.layers, a.dim, a.repeats)
    libs: list[tuple[str, Any]] = [("ours", D)]
    if not a.no_torch:
        try:
            import torch

            torch.set_num_threads(1)
            libs.append(("torch", torch))
        except ImportError:
            print("(torch not installed: ours only)")
    print(f"## AdamW step, {layers} blocks of width {dim}")
    print("| implementation | params | " + " | ".join(name for name, _ in libs) + " |")
    print("|---|---|" + "---|" * len(libs))
    for foreach in (False, True):
        cells, n = [], 0
        for _, L in libs:
            t, n = adamw_step(L, layers, dim, foreach, repeats)
            cells.append(f"{t * 1e3:.1f} ms")
        label = "foreach=True" if foreach else "single-tensor (CPU default)"
        print(f"| {label} | {n / 1e6:.2f} M | " + " | ".join(cells) + " |")
    print("\n## make_fx of a character-GPT train step (forward, backward, clip_grad_norm_, AdamW step)")
    print("| mode | " + " | ".join(f"{name} (nodes)" for name, _ in libs) + " |")
    print("|---|" + "---|" * len(libs))
    for mode in ("real", "pre"):
        cells = []
        for _, L in libs:
            t, nodes = trace_train_step(L, mode, repeats)
            cells.append(f"{t * 1e3:.0f} ms ({nodes})")
        print(f"| {mode} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
