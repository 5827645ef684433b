"""Cost of the ``__torch_function__`` protocol (dispatcher/modes/function_mode.py), in microseconds per call.

1. Hot path, no function mode and plain tensors: ``a + b``, ``a @ b`` and ``a.sum()`` (4x4 float32) with
   the public callables wrapped ("wrapped", the normal state) and with Tensor's wrappers swapped back for
   the raw implementations ("raw", as before the protocol existed). Both states alternate inside each
   repeat; medians over the repeats. Medians over 75 interleaved repeats. The difference is what the wrappers cost while nothing is armed
   (one attribute check each, plus the kernels' own internal ``t.dim()`` calls, which are wrapped too).
2. ``a + b`` under one pass-through TorchFunctionMode, ours vs ``torch.overrides.TorchFunctionMode``
   (minus each library's no-mode time).

Timings are CPU time of the process (``time.process_time``) with the garbage collector frozen.
Run: ``.venv/bin/python bench/function_mode_overhead.py``. Target: the hot path adds <= 0.3 us to ``a + b``.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dispatcher  # noqa: E402
from dispatcher.tensor import Tensor  # noqa: E402

REPEATS = 25
N = 2000


def per_call(f: Callable[[], Any], n: int = N) -> float:
    t0 = time.process_time()
    for _ in range(n):
        f()
    return (time.process_time() - t0) / n * 1e6


def _raw_attributes() -> tuple[dict[str, Any], dict[str, Any]]:
    wrapped = dict(vars(Tensor))
    raw: dict[str, Any] = {}
    for name, v in wrapped.items():
        if hasattr(v, "__torch_function_impl__"):
            raw[name] = v.__torch_function_impl__
        elif isinstance(v, property) and v.fget is not None and hasattr(v.fget, "__wrapped__"):
            raw[name] = property(v.fget.__wrapped__, v.fset, v.fdel)
    return wrapped, raw


def hot_path() -> None:
    a, b = dispatcher.randn(4, 4), dispatcher.randn(4, 4)
    wrapped, raw = _raw_attributes()
    rows = {"a + b": lambda: a + b, "a @ b": lambda: a @ b, "a.sum()": lambda: a.sum()}
    times: dict[tuple[str, str], list[float]] = {(k, s): [] for k in rows for s in ("raw", "wrapped")}
    for _ in range(3 * REPEATS):
        for k, f in rows.items():  # raw and wrapped back to back for each row, so load drifts hit both
            for state, attrs in (("raw", raw), ("wrapped", wrapped)):
                for name in raw:
                    setattr(Tensor, name, attrs[name])
                times[(k, state)].append(per_call(f, N // 2))
    for k in rows:
        r, w = statistics.median(times[(k, "raw")]), statistics.median(times[(k, "wrapped")])
        print(f"  {k:8s} raw {r:6.2f} us   wrapped {w:6.2f} us   adds {w - r:+.2f} us")


def one_mode() -> None:
    ours_a, ours_b = dispatcher.randn(4, 4), dispatcher.randn(4, 4)

    class Ours(dispatcher.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            return func(*args, **(kwargs or {}))

    rows: list[tuple[str, Callable[[], Any], Any]] = [("ours", lambda: ours_a + ours_b, Ours)]
    try:
        import torch
        from torch.overrides import TorchFunctionMode

        ta, tb = torch.randn(4, 4), torch.randn(4, 4)

        class Theirs(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                return func(*args, **(kwargs or {}))

        rows.append(("torch", lambda: ta + tb, Theirs))
    except ImportError:
        print("  (torch not installed: ours only)")
    for label, f, mode_cls in rows:
        plain, moded = [], []
        for _ in range(REPEATS):
            plain.append(per_call(f))
            with mode_cls():
                moded.append(per_call(f))
        p, m = statistics.median(plain), statistics.median(moded)
        print(f"  {label:6s} a + b: no mode {p:6.2f} us, one pass-through function mode {m:6.2f} us "
              f"(adds {m - p:.2f} us)")


if __name__ == "__main__":
    for _ in range(500):
        dispatcher.ones(2) + 1
    gc.collect()
    gc.freeze()
    print("hot path (no function mode, plain tensors):")
    hot_path()
    print("one pass-through TorchFunctionMode:")
    one_mode()
