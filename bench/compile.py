"""The "numpy" backend against eager and hand-written NumPy: microseconds per call, all in the same run.

Programs (from tests/corpus.py, the same functions the tests compile):

* ``transformer_block``: B=1, S=16, D=64, 4 heads (layer_norm, q/k/v projections, softmax attention, output
  projection, a gelu MLP of width 128, residuals);
* ``mlp``: batch 8, 32 -> 64 -> relu -> 10, summed over the last dim.

Columns, per program:

* ``ours eager``      the function run by our eager front end (``dispatcher``);
* ``compile numpy``   ``tracer.compile(fn, backend="numpy")`` with a warm cache (the guard check of
                      tracer.compile plus the generated code); falls back to calling ``numpy_backend(fn,
                      inputs)``'s result directly (labelled) when ``tracer.compile`` is not importable;
* ``numpy_backend``   the generated function called directly (no tracer.compile front end);
* ``hand NumPy``      the same program written by hand in NumPy (float32 throughout, the same erf);
* ``torch eager``     torch 2.13 on one thread, ``no_grad``;
* ``torch gm``        torch's ``make_fx`` GraphModule of the program, called (a replay of aten ops).

Weights are standard normal scaled by 1/sqrt(fan_in). Timing: every round times ``NUMBER`` calls of each
column in turn (interleaved, so the machine's speed changes hit all columns alike); a figure is the median
over ``ROUNDS`` rounds. Targets: numpy backend within 1.3x of hand-written NumPy, faster than torch eager.
Run: ``.venv/bin/python bench/compile.py``.
"""

from __future__ import annotations

import gc
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dispatcher as D  # noqa: E402
import dispatcher.nn.functional as DF  # noqa: E402
from tests import corpus as C  # noqa: E402
from tracer.backends import numpy_kernels as K  # noqa: E402
from tracer.backends.numpy_backend import numpy_backend  # noqa: E402

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

ROUNDS = 31
NUMBER = {"transformer_block": 20, "mlp": 200}
SHAPES = {
    "transformer_block": [(1, 16, 64)] + [(64, 64)] * 4 + [(128, 64), (64, 128), (64,), (64,)],
    "mlp": [(8, 32), (64, 32), (64,), (10, 64), (10,)],
}


def arrays(name: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    out = []
    for s in SHAPES[name]:
        a = rng.standard_normal(s).astype(np.float32)
        out.append(a / np.float32(math.sqrt(s[-1])) if len(s) == 2 else a)
    return out


# --- hand-written NumPy -----------------------------------------------------------------------------------------------
def _ln(x: np.ndarray, g: np.ndarray | None = None, b: np.ndarray | None = None) -> np.ndarray:
    m = x.mean(-1, keepdims=True)
    y = x - m
    y /= np.sqrt(np.square(y).mean(-1, keepdims=True) + np.float32(1e-5))
    if g is not None:
        y *= g
        y += b
    return y


def hand_transformer_block(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray, wo: np.ndarray,
                           w1: np.ndarray, w2: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    bsz, s, dm = x.shape
    h = _ln(x, g, b).reshape(s, dm)
    q = (h @ wq.T).reshape(bsz, s, 4, dm // 4).transpose(0, 2, 1, 3)
    k = (h @ wk.T).reshape(bsz, s, 4, dm // 4).transpose(0, 2, 1, 3)
    v = (h @ wv.T).reshape(bsz, s, 4, dm // 4).transpose(0, 2, 1, 3)
    sc = (q @ k.transpose(0, 1, 3, 2)) * np.float32((dm // 4) ** -0.5)
    e = np.exp(sc - sc.max(-1, keepdims=True))
    e /= e.sum(-1, keepdims=True)
    a = (e @ v).transpose(0, 2, 1, 3).reshape(s, dm)
    x = x + (a @ wo.T).reshape(bsz, s, dm)
    u = _ln(x).reshape(s, dm) @ w1.T
    u = np.float32(0.5) * u * (np.float32(1) + K.erf(u * np.float32(1 / math.sqrt(2))))
    return x + (u @ w2.T).reshape(bsz, s, dm)


def hand_mlp(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray) -> np.ndarray:
    h = np.maximum(x @ w1.T + b1, 0)
    return (h @ w2.T + b2).sum(-1)


HAND = {"transformer_block": hand_transformer_block, "mlp": hand_mlp}


# --- measuring ----------------------------------------------------------------------------------------------------------
def interleaved(fns: dict[str, Any], number: int) -> dict[str, float]:
    """Median microseconds per call of each function, timed in turn ``ROUNDS`` times."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(ROUNDS):
        for k, f in fns.items():
            t0 = time.perf_counter()
            for _ in range(number):
                f()
            times[k].append((time.perf_counter() - t0) / number * 1e6)
    return {k: statistics.median(v) for k, v in times.items()}


def contenders(name: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    arr = arrays(name)
    prog = C.PROGRAMS[name][0]
    ours_in = [D.tensor(a) for a in arr]
    fn = numpy_backend(prog(D, DF), ours_in)
    fns: dict[str, Any] = {"ours eager": lambda: prog(D, DF)(*ours_in)}
    label = "compile numpy"
    try:
        import tracer

        compiled = tracer.compile(prog(D, DF), backend="numpy")
        compiled(*ours_in)
        compiled(*ours_in)  # warm: captured, compiled, cached
        fns[label] = lambda: compiled(*ours_in)
    except (ImportError, AttributeError) as e:
        label = "numpy_backend (tracer.compile unavailable)"
        print(f"note: tracer.compile not importable ({e}); timing numpy_backend's function directly")
    fns["numpy_backend"] = lambda: fn(*ours_in)
    np_in = [a.copy() for a in arr]
    hand = HAND[name]
    fns["hand NumPy"] = lambda: hand(*np_in)
    outputs = {k: f() for k, f in fns.items()}
    if torch is not None:
        from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

        t_in = [torch.from_numpy(a.copy()) for a in arr]
        t_prog = prog(torch, torch.nn.functional)
        with torch.no_grad():
            gm = torch_make_fx(t_prog)(*t_in)

        def torch_eager() -> Any:
            with torch.no_grad():
                return t_prog(*t_in)

        def torch_gm() -> Any:
            with torch.no_grad():
                return gm(*t_in)

        fns["torch eager"] = torch_eager
        fns["torch gm"] = torch_gm
        outputs["torch eager"] = torch_eager()
    return fns, outputs, label


def _np(x: Any) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "detach"):
        return x.detach().numpy()
    return np.asarray(x)


def main() -> None:
    gc.freeze()
    if torch is not None:
        torch.set_num_threads(1)
    for name in ("transformer_block", "mlp"):
        fns, outputs, label = contenders(name)
        ref = _np(outputs["ours eager"])
        worst = max(float(np.max(np.abs(_np(v) - ref))) for v in outputs.values())
        res = interleaved(fns, NUMBER[name])
        print(f"\n{name}: us per call (median of {ROUNDS} interleaved rounds of {NUMBER[name]} calls); "
              f"max |difference| between columns' outputs: {worst:.1e}")
        for k, v in res.items():
            print(f"  {k:45s} {v:10.1f}")
        hand = res["hand NumPy"]
        compiled = res.get(label, res["numpy_backend"])
        line = f"  {label} / hand NumPy = {compiled / hand:.2f} (target <= 1.3)"
        line += f";  numpy_backend / hand NumPy = {res['numpy_backend'] / hand:.2f}"
        if "torch eager" in res:
            line += f";  {label} / torch eager = {compiled / res['torch eager']:.2f} (target < 1)"
        print(line)


if __name__ == "__main__":
    main()
