"""Graph-pass timings: SVG rendering (ours vs torch's FxGraphDrawer) and DCE / CSE / shape propagation /
serialization on 10,000- and 100,000-node graphs.

Drawing: the transformer block of the shared corpus (tests/corpus.py, post-dispatch make_fx, ~70 nodes)
and a 1,000-op elementwise chain (``+ 1.0``, ``* 0.5``, ``sin``, ``- 0.25`` in turn), each traced by both
libraries' make_fx from the same program. Ours: ``passes.to_svg(gm)`` (graph -> networkx -> DOT ->
``dot -Tsvg``), once with the default node budget (the chain collapses into a few boxes) and once with
every node drawn (``node_budget`` above the node count). torch's: ``FxGraphDrawer(gm, name)
.get_dot_graph().create_svg()`` (pydot; skipped with a note when pydot is missing). Wall time, median of
``--repeats`` runs, ours then torch's, in the same process. Targets: a 1,000-node chain renders
in <= 1 s; any graph gets an SVG within 10 s.

Passes: graphs built directly with the Graph API (building is not timed) of N nodes in steps of four:
``a = add(x, 1.0); b = add(x, 1.0)`` (a duplicate for CSE), ``d = mul(a, 2.0)`` (dead, for DCE),
``x = mul(a, b)``, with ``meta["val"]`` set. Each pass runs on a fresh graph: ``dead_code_elimination``,
``common_subexpression_elimination``, ``shape_propagation`` (fake tensors), ``serialize.save`` + ``load``,
and ours: ``to_networkx``, ``op_stats`` and ``to_svg`` (the whole drawing, collapsed to the node budget).
A pass that does not exist yet prints "n/a (not yet available)". Target: linear scaling (the ratio of
the per-node times at 100,000 and 10,000 nodes is printed).

Run: ``.venv/bin/python bench/passes.py [--quick] [--repeats R] [--max-nodes N] [--only drawing|passes]``.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import dispatcher as D  # noqa: E402
import dispatcher.nn.functional as DF  # noqa: E402
import passes  # noqa: E402
from dispatcher.op_overload import namespace  # noqa: E402
from tests import corpus as C  # noqa: E402
from tracer import Graph, GraphModule, make_fx  # noqa: E402

aten = namespace("aten")


def median_time(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def chain(T: Any, n: int) -> Callable[[Any], Any]:
    def f(x):
        for _ in range(n // 4):
            x = x + 1.0
            x = x * 0.5
            x = x.sin()
            x = x - 0.25
        return x
    return f


# --- drawing ------------------------------------------------------------------------------------------------------


def torch_drawer() -> tuple[Any, Any, str | None]:
    try:
        import torch
        from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx
        from torch.fx.passes.graph_drawer import FxGraphDrawer
    except ImportError as e:
        return None, None, f"torch not available ({e})"
    try:
        import pydot  # noqa: F401
    except ImportError:
        return None, None, "pydot not installed (pip install pydot)"
    return torch, (torch_make_fx, FxGraphDrawer), None


def bench_drawing(repeats: int) -> None:
    print("SVG rendering (wall time, median)")
    torch, tools, why = torch_drawer()
    cases = []
    program, shapes, rg = C.PROGRAMS["transformer_block"]
    arrays = C.arrays(shapes, 0)
    cases.append(("transformer block", lambda T, F: program(T, F), lambda lib: C.inputs(lib, arrays, rg)))
    x = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    cases.append(("1,000-op chain", lambda T, F: chain(T, 1000), lambda lib: [lib.tensor(x.copy())]))
    print(f"{'graph':<20} {'nodes':>6}  {'ours (default)':>15}  {'ours (all nodes)':>17}  {'torch FxGraphDrawer':>20}")
    for label, make_program, make_inputs in cases:
        gm = make_fx(make_program(D, DF))(*make_inputs(D))
        n = len(gm.graph.nodes)
        ours = median_time(lambda gm=gm: passes.to_svg(gm), repeats)
        ours_all = median_time(lambda gm=gm, n=n: passes.to_svg(gm, node_budget=n + 1), repeats)
        if tools is not None:
            torch_make_fx, FxGraphDrawer = tools
            tgm = torch_make_fx(make_program(torch, torch.nn.functional))(*make_inputs(torch))

            def draw_theirs(tgm: Any = tgm, drawer: Any = FxGraphDrawer) -> Any:
                return drawer(tgm, "g").get_dot_graph().create_svg()

            theirs = f"{median_time(draw_theirs, repeats):.3f} s"
        else:
            theirs = f"n/a: {why}"
        print(f"{label:<20} {n:>6}  {ours:>13.3f} s  {ours_all:>15.3f} s  {theirs:>20}")
    big = make_fx(chain(D, 10_000), tracing_mode="fake")(D.randn(4, 4))
    t = median_time(lambda: passes.to_svg(big), 1)
    print(f"{'10,000-op chain':<20} {len(big.graph.nodes):>6}  {t:>13.3f} s  (collapsed; target: any graph < 10 s)")


# --- passes on big graphs ---------------------------------------------------------------------------------------------


def synthetic(n: int) -> GraphModule:
    """About ``n`` nodes: steps of add / duplicate add / dead mul / mul, meta["val"] set."""
    val = D.empty(4, 4)
    g = Graph()
    x = g.placeholder("x")
    x.meta["val"] = val
    for _ in range(max(1, (n - 2) // 4)):
        a = g.call_function(aten.add.Tensor, (x, 1.0))
        b = g.call_function(aten.add.Tensor, (x, 1.0))
        d = g.call_function(aten.mul.Tensor, (a, 2.0))
        x = g.call_function(aten.mul.Tensor, (a, b))
        for node in (a, b, d, x):
            node.meta["val"] = val
    g.output(x)
    return GraphModule({}, g)


def lookup(module: str, name: str) -> Callable[..., Any] | None:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def bench_passes(sizes: list[int], repeats: int) -> None:
    dce = lookup("passes.dce", "dead_code_elimination") or lookup("passes", "dead_code_elimination")
    cse = lookup("passes.cse", "common_subexpression_elimination") or lookup("passes", "common_subexpression_elimination")
    prop = lookup("passes.shape_prop", "shape_propagation") or lookup("passes", "shape_propagation")
    save = lookup("passes.serialize", "save")
    load = lookup("passes.serialize", "load")
    tmp = Path(tempfile.mkdtemp(prefix="bench_passes_"))

    def roundtrip(gm: GraphModule) -> None:
        save(gm, tmp / "g.json")
        load(tmp / "g.json")

    jobs: list[tuple[str, Callable[[GraphModule], Any] | None]] = [
        ("dead_code_elimination", dce), ("common_subexpression_elimination", cse),
        ("shape_propagation", (lambda gm: prop(gm)) if prop else None),
        ("serialize save + load", roundtrip if save and load else None),
        ("to_networkx", passes.to_networkx), ("op_stats", passes.op_stats),
        ("to_svg (collapsed drawing)", passes.to_svg),
    ]
    print("\nPasses on synthetic graphs (wall time, median; per node in µs)")
    header = f"{'pass':<34}" + "".join(f"{f'{n:,} nodes':>24}" for n in sizes) + "   scaling"
    print(header)
    for label, fn in jobs:
        if fn is None:
            print(f"{label:<34}n/a (not yet available)")
            continue
        cells = []
        per_node = []
        for n in sizes:
            times = []
            nodes = 0
            for _ in range(repeats):
                gm = synthetic(n)
                nodes = len(gm.graph.nodes)
                start = time.perf_counter()
                fn(gm)
                times.append(time.perf_counter() - start)
            t = statistics.median(times)
            per_node.append(t / nodes * 1e6)
            cells.append(f"{t:8.3f} s ({per_node[-1]:5.1f} µs)")
        scaling = f"x{per_node[-1] / per_node[0]:.2f} per node" if len(per_node) > 1 else ""
        print(f"{label:<34}" + "".join(f"{c:>24}" for c in cells) + f"   {scaling}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 repeat, graphs up to 10,000 nodes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-nodes", type=int, default=100_000)
    parser.add_argument("--only", choices=["drawing", "passes"], help="run one of the two parts")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    repeats = 1 if args.quick else args.repeats
    sizes = [n for n in (10_000, 100_000) if n <= (10_000 if args.quick else args.max_nodes)]
    if args.only != "passes":
        bench_drawing(repeats)
    if args.only != "drawing":
        bench_passes(sizes, 1 if args.quick else min(repeats, 3))


if __name__ == "__main__":
    main()
