"""make_fx's cyclic-GC pause: CPU time per node with the pause (``tracer.proxy_tensor.PAUSE_GC = True``, the default)
and without it, interleaved in one process.

Programs: the MLP training step and the transformer block of tests/corpus.py, and a 1,000-op elementwise chain.
Each repeat traces every program once with the pause and once without (CPU time of ``make_fx(f)(*inputs)`` divided
by the graph's node count); the table gives the median, minimum and maximum per node.

Run: ``.venv/bin/python bench/gc_pause.py [repeats]`` (default 15, about a minute).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dispatcher as D  # noqa: E402
import dispatcher.nn.functional as F  # noqa: E402
import tracer.proxy_tensor as P  # noqa: E402
from tests import corpus  # noqa: E402
from tracer import make_fx  # noqa: E402


def chain(x: Any) -> Any:
    y = x
    for i in range(1000):
        y = (y + 1.0) if i % 2 else y.sin()
    return y


def main(repeats: int) -> None:
    progs: dict[str, tuple[Any, Any]] = {}
    for key in ("train_step", "transformer_block"):
        program, shapes, rg = corpus.PROGRAMS[key]
        arrays = corpus.arrays(shapes, seed=0)
        progs[key] = (program(D, F), lambda arrays=arrays, rg=rg: corpus.inputs(D, arrays, rg))
    progs["chain 1k"] = (chain, lambda: (D.ones(4),))
    for fn, inputs in progs.values():  # warm-up
        make_fx(fn)(*inputs())
    res: dict[tuple[str, bool], list[float]] = {(k, p): [] for k in progs for p in (True, False)}
    try:
        for _ in range(repeats):
            for pause in (True, False):
                P.PAUSE_GC = pause
                for key, (fn, inputs) in progs.items():
                    args = inputs()
                    t = time.process_time()
                    gm = make_fx(fn)(*args)
                    res[(key, pause)].append((time.process_time() - t) / len(gm.graph.nodes) * 1e6)
                    del gm
    finally:
        P.PAUSE_GC = True
    print("| program | pause: median / min / max µs per node | no pause: median / min / max |")
    print("|---|---|---|")
    for key in progs:
        on, off = res[(key, True)], res[(key, False)]
        print(f"| {key} | {statistics.median(on):.1f} / {min(on):.1f} / {max(on):.1f} | "
              f"{statistics.median(off):.1f} / {min(off):.1f} / {max(off):.1f} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
