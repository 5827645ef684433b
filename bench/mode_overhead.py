"""Cost of one pass-through TorchDispatchMode: microseconds per op, ours vs torch in the same run.

Rows (4x4 float32 tensors, grad mode on, inputs not requiring grad, like eager inference code):

* ``a + b`` with no mode, and under one pass-through mode (``return func(*args, **kwargs)``); the
  difference is what the mode adds per op (PythonTLSSnapshot + the Python key's fallback + the
  handler call + the inner dispatch);
* the same for ``torch.ones(4, 4)`` (a factory function: the mode sees it before BackendSelect);
* ``a + b`` under two nested pass-through modes.

Timings are CPU time of the process (``time.process_time``), so time spent descheduled on a busy machine does
not count; the three configurations are measured in turn within each repeat and the figures are medians over
9 repeats (the "adds" line: median of the per-repeat differences), with the garbage collector frozen (see
eager_overhead.py).
Then the cost of one op under FakeTensorMode (``dispatcher.fake.FakeTensorMode`` vs
``torch._subclasses.fake_tensor.FakeTensorMode``; for torch the default configuration, its dispatch cache
included): 4x4 ``a + b``, ``a @ b``, ``a.t()`` on fakes made with ``mode.from_tensor`` and ``ones(4, 4)``, all
inside ``with mode:``; microseconds per op, medians over the repeats, both in the same run.
Run: ``.venv/bin/python bench/mode_overhead.py``. Targets: the mode adds <= 5 us per op (torch ~4.5 us); a
FakeTensorMode op <= 20 us (torch ~110 us).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
import timeit
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dispatcher  # noqa: E402
from dispatcher.fake import FakeTensorMode as OurFakeMode  # noqa: E402
from dispatcher.modes import TorchDispatchMode as OurMode  # noqa: E402

try:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeMode
    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode
except ImportError:  # the oracle is optional
    torch = None
    TorchMode = None
    TorchFakeMode = None

REPEAT = 9
NUMBER = 4000


def pass_through(base: type) -> type:
    class PassThrough(base):  # type: ignore[misc, valid-type]
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            return func(*args, **(kwargs or {}))

    return PassThrough


def timed_us(fn: Any, modes: list[Any]) -> float:
    """Microseconds per call of ``fn`` (one timeit run of NUMBER calls) with ``modes`` entered around it."""
    for m in modes:
        m.__enter__()
    try:
        return timeit.timeit(fn, number=NUMBER, timer=time.process_time) / NUMBER * 1e6
    finally:
        for m in reversed(modes):
            m.__exit__(None, None, None)


def measure(fn: Any, mode_cls: type) -> dict[int, list[float]]:
    """Per repeat, ``fn`` with 0, 1 and 2 pass-through modes, interleaved so load changes hit all three alike."""
    out: dict[int, list[float]] = {0: [], 1: [], 2: []}
    for n in out:
        timed_us(fn, [mode_cls() for _ in range(n)])  # warm caches
    for _ in range(REPEAT):
        for n in out:
            out[n].append(timed_us(fn, [mode_cls() for _ in range(n)]))
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    arrays = {k: rng.standard_normal((4, 4)).astype(np.float32) for k in ("a", "b")}
    impls: dict[str, tuple[Any, type]] = {"ours": (dispatcher, pass_through(OurMode))}
    if torch is not None:
        torch.set_num_threads(1)
        impls["torch"] = (torch, pass_through(TorchMode))
    gc.freeze()
    results: dict[str, dict[str, dict[int, list[float]]]] = {"a + b": {}, "ones(4, 4)": {}}
    for name, (m, mode_cls) in impls.items():
        a, b = (m.from_numpy(arrays[k].copy()) for k in ("a", "b"))
        results["a + b"][name] = measure(lambda a=a, b=b: a + b, mode_cls)
        results["ones(4, 4)"][name] = measure(lambda m=m: m.ones(4, 4), mode_cls)

    med = statistics.median
    print(f"{'per op (us, CPU time, median of ' + str(REPEAT) + ')':44s} {'ours':>9s} {'torch':>9s} {'ours/torch':>11s}")
    for row, per_impl in results.items():
        for n, label in ((0, "no mode"), (1, "1 pass-through mode"), (2, "2 nested pass-through modes")):
            cells = {name: med(v[n]) for name, v in per_impl.items()}
            a, b = cells.get("ours"), cells.get("torch")
            ratio = f"{a / b:11.2f}" if b else f"{'-':>11s}"
            print(f"{'4x4 ' + row if row == 'a + b' else row:12s} {label:31s} {a:9.2f} "
                  f"{b if b is not None else float('nan'):9.2f} {ratio}")
    print()
    for name in impls:
        parts = []
        for row in results:
            v = results[row][name]
            added = med([m1 - m0 for m0, m1 in zip(v[0], v[1])])
            second = med([m2 - m1 for m1, m2 in zip(v[1], v[2])])
            parts.append(f"{row}: +{added:.2f} us (a second mode +{second:.2f} us)")
        print(f"{name:6s} one pass-through mode adds  " + ";  ".join(parts))
    if torch is None:
        print("(torch not installed: torch column empty)")
    print("target: one pass-through mode adds <= 5 us per op (ours); torch ~4.5 us on the reference machine")
    print()
    fake_rows(arrays)


def fake_ops(m: Any, mode: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """The FakeTensorMode rows: op name -> a call on fakes of ``mode`` (to be run inside it)."""
    a, b = (mode.from_tensor(m.from_numpy(arrays[k].copy())) for k in ("a", "b"))
    return {"4x4 a + b": lambda: a + b, "4x4 a @ b": lambda: a @ b, "a.t() (a view)": lambda: a.t(),
            "ones(4, 4)": lambda: m.ones(4, 4)}


def measure_fake(m: Any, mode_cls: type, arrays: dict[str, np.ndarray]) -> dict[str, list[float]]:
    """Per row, microseconds per op inside ``with mode:``, one timeit run per repeat."""
    mode = mode_cls()
    ops = fake_ops(m, mode, arrays)
    out: dict[str, list[float]] = {name: [] for name in ops}
    with mode:
        for fn in ops.values():
            timeit.timeit(fn, number=NUMBER // 8, timer=time.process_time)  # warm caches
        for _ in range(REPEAT):
            for name, fn in ops.items():
                out[name].append(timeit.timeit(fn, number=NUMBER // 4, timer=time.process_time) / (NUMBER // 4) * 1e6)
    return out


def fake_rows(arrays: dict[str, np.ndarray]) -> None:
    impls: dict[str, tuple[Any, type]] = {"ours": (dispatcher, OurFakeMode)}
    if torch is not None:
        impls["torch"] = (torch, TorchFakeMode)
    results = {name: measure_fake(m, mode_cls, arrays) for name, (m, mode_cls) in impls.items()}
    med = statistics.median
    print(f"{'FakeTensorMode, per op (us, CPU time, median of ' + str(REPEAT) + ')':58s} {'ours':>9s} {'torch':>9s} "
          f"{'ours/torch':>11s}")
    for row in results["ours"]:
        a = med(results["ours"][row])
        b = med(results["torch"][row]) if "torch" in results else None
        ratio = f"{a / b:11.2f}" if b else f"{'-':>11s}"
        print(f"{row:58s} {a:9.2f} {b if b is not None else float('nan'):9.2f} {ratio}")
    print("target: a FakeTensorMode op <= 20 us (ours); torch ~110 us on the reference machine")


if __name__ == "__main__":
    main()
