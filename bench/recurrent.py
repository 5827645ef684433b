"""Eager forward of small recurrent models: ours vs torch 2.13 in the same run (issue 19).

Rows (float32, batch 8, 32 steps, input 16, hidden 32, no autograd unless said):

* ``nn.LSTM`` 1 layer, then 2 layers: torch takes oneDNN's ``mkldnn_rnn_layer`` per layer, ours the same op with a
  NumPy kernel (one matmul per step);
* the same 2-layer LSTM with autograd recording (parameters require grad): forward only;
* ``nn.GRU`` 1 layer: the decomposed cells (per step ``addmm`` + ``unsafe_split`` + in-place gates), dispatched op by
  op, where PyTorch runs its C++ loop;
* an LSTM language model (Embedding 100 x 16 -> 2-layer LSTM -> Linear to 100) with its cross-entropy loss.

Both libraries build the models with the same weights (ours load torch's ``state_dict``); the last column is the
largest difference of the outputs. Figures are medians of 7 repeats (each the mean of a few calls); torch runs on one
thread. Run: ``.venv/bin/python bench/recurrent.py``.
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
BATCH, STEPS, INPUT, HIDDEN, VOCAB = 8, 32, 16, 32, 100


def language_model(L: Any) -> Any:
    nn = L.nn

    class LanguageModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, INPUT)
            self.lstm = nn.LSTM(INPUT, HIDDEN, num_layers=2, batch_first=True)
            self.head = nn.Linear(HIDDEN, VOCAB)

        def forward(self, tokens: Any, targets: Any) -> Any:
            out, _ = self.lstm(self.embed(tokens))
            logits = self.head(out)
            return nn.functional.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))

    return LanguageModel()


ROWS = [
    ("LSTM, 1 layer", lambda L: L.nn.LSTM(INPUT, HIDDEN), False, "seq"),
    ("LSTM, 2 layers", lambda L: L.nn.LSTM(INPUT, HIDDEN, num_layers=2), False, "seq"),
    ("LSTM, 2 layers, autograd recording", lambda L: L.nn.LSTM(INPUT, HIDDEN, num_layers=2), True, "seq"),
    ("GRU, 1 layer", lambda L: L.nn.GRU(INPUT, HIDDEN), False, "seq"),
    ("LSTM language model + loss", language_model, False, "tokens"),
]


def inputs(L: Any, kind: str) -> list:
    rng = np.random.default_rng(0)
    if kind == "seq":
        return [L.tensor(rng.standard_normal((STEPS, BATCH, INPUT)).astype(np.float32))]
    return [L.tensor(rng.integers(0, VOCAB, (BATCH, STEPS))), L.tensor(rng.integers(0, VOCAB, (BATCH, STEPS)))]


def first(out: Any) -> Any:
    return out[0] if isinstance(out, tuple) else out


def timed(fn: Any) -> float:
    """Median over REPEAT of the mean time of one call, in microseconds."""
    fn()
    number = max(1, int(0.05 / max(timeit.timeit(fn, number=1), 1e-6)))
    return statistics.median(timeit.repeat(fn, number=number, repeat=REPEAT)) / number * 1e6


def run_row(make: Any, grad: bool, kind: str) -> tuple[float, float | None, float | None]:
    built = {}
    for L in ((torch, dispatcher) if torch is not None else (dispatcher,)):
        L.manual_seed(0)
        built[L] = make(L)
    if torch is not None:
        built[dispatcher].load_state_dict({k: dispatcher.tensor(v.detach().numpy().copy())
                                           for k, v in built[torch].state_dict().items()})
    results = {}
    for L, model in built.items():
        model.requires_grad_(grad)
        args = inputs(L, kind)
        if grad:
            results[L] = (timed(lambda m=model, a=args: m(*a)), first(model(*args)))
        else:
            with L.no_grad():
                results[L] = (timed(lambda m=model, a=args: m(*a)), first(model(*args)))
    ours_us, ours_out = results[dispatcher]
    if torch is None:
        return ours_us, None, None
    torch_us, torch_out = results[torch]
    diff = float(np.abs(np.asarray(ours_out.detach()._data, np.float64) - torch_out.detach().numpy()).max())
    return ours_us, torch_us, diff


def main() -> None:
    if torch is not None:
        torch.set_num_threads(1)
    print(f"batch {BATCH}, {STEPS} steps, input {INPUT}, hidden {HIDDEN}; median of {REPEAT} (us per forward)")
    print(f"{'model':<38} {'ours':>10} {'torch':>10} {'ours/torch':>11} {'max |diff|':>11}")
    for name, make, grad, kind in ROWS:
        ours_us, torch_us, diff = run_row(make, grad, kind)
        if torch_us is None:
            print(f"{name:<38} {ours_us:>10.0f} {'n/a':>10}")
        else:
            print(f"{name:<38} {ours_us:>10.0f} {torch_us:>10.0f} {ours_us / torch_us:>10.1f}x {diff:>11.1e}")


if __name__ == "__main__":
    main()
