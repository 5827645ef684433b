"""Graph IR cost per node: node creation, code generation, compile, lint and memory, ours vs torch.fx.

For a chain of N ``aten.add.Tensor(prev, 1)`` nodes (N = 1,000 / 10,000 / 100,000) it measures
what make_fx pays the IR for each op: creating the node (with meta["val"] and
meta["stack_trace"] set, as make_fx does), generating ``forward``'s source, building the
GraphModule, making it callable (codegen + compile) and ``lint()``; plus bytes allocated per
node (tracemalloc; torch's C++ allocations are not seen by it). torch.fx does the same work on
the same chain in the same run (``Graph.create_node`` with the name make_fx passes,
``python_code``, ``GraphModule`` construction, which generates and compiles). Timings are CPU
time (``time.process_time``), best of 3 (compiles: 1 run), so other processes on the machine
affect them less; compare the ratios.
Run: ``.venv/bin/python bench/graph_ir.py [N ...] [--no-torch]`` (``--no-torch`` measures ours in a
process without torch loaded: the garbage collector then has a much smaller heap to walk, as in a
real make_fx run, since the library never imports torch).
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dispatcher  # noqa: E402
from tracer import Graph, GraphModule, python_code  # noqa: E402

if "--no-torch" in sys.argv:  # ours alone: no torch heap for the garbage collector to walk
    torch = None
else:
    try:
        import torch
        import torch.fx
    except ImportError:  # the oracle is optional
        torch = None

STACK = 'File "model.py", line 12, in forward\n    y = x + 1'


def build_ours(n: int, val: object) -> Graph:
    g = Graph()
    add = dispatcher.ops.aten.add.Tensor
    cur = g.placeholder("x_1")
    cur.meta["val"] = val
    for _ in range(n):
        cur = g.create_node("call_function", add, (cur, 1))
        meta = cur.meta
        meta["val"] = val
        meta["stack_trace"] = STACK
    g.output(cur)
    return g


def build_torch(n: int, val: object):
    g = torch.fx.Graph()
    add = torch.ops.aten.add.Tensor
    cur = g.placeholder("x_1")
    cur.meta["val"] = val
    for _ in range(n):
        cur = g.create_node("call_function", add, (cur, 1), {}, name="add")
        cur.meta["val"] = val
        cur.meta["stack_trace"] = STACK
    g.output(cur)
    return g


def best_of(fn, repeat: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()  # CPU time: robust to other processes sharing the machine
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def bytes_per_node(build, n: int, val: object) -> float:
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    graph = build(n, val)
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del graph
    return used / n


def measure_ours(n: int) -> dict[str, float]:
    val = dispatcher.empty(2)
    t_build, g = best_of(lambda: build_ours(n, val))
    t_code, _ = best_of(lambda: python_code(g))
    t_gm, _ = best_of(lambda: GraphModule({}, g))
    t_ready, gm = best_of(lambda: (lambda m: (m.forward, m)[1])(GraphModule({}, g)), repeat=1)
    t_lint, _ = best_of(lambda: g.lint(check_meta=True))
    out = gm(dispatcher.zeros(2))
    assert out.tolist() == [float(n)] * 2, "the generated chain computes x + n"
    return {"create": t_build, "codegen": t_code, "gm": t_gm, "ready": t_ready, "lint": t_lint,
            "bytes": bytes_per_node(build_ours, n, val)}


def measure_torch(n: int) -> dict[str, float]:
    val = torch.empty(2)
    t_build, g = best_of(lambda: build_torch(n, val))
    t_code, _ = best_of(lambda: g.python_code("self"))
    t_ready, _ = best_of(lambda: torch.fx.GraphModule(torch.nn.Module(), g), repeat=1)
    t_lint, _ = best_of(lambda: g.lint())
    return {"create": t_build, "codegen": t_code, "gm": t_ready, "ready": t_ready, "lint": t_lint,
            "bytes": bytes_per_node(build_torch, n, val)}


def main(sizes: list[int]) -> None:
    print("microseconds per node (best of 3) and bytes allocated per node.")
    print("  create: nodes + meta; codegen: forward's source; gm: GraphModule(...) (ours defers codegen to first")
    print("  use, torch generates and compiles); ready: GraphModule(...) + codegen + compile, i.e. callable")
    header = f"{'N':>7} {'who':>6} {'create':>8} {'codegen':>8} {'gm':>8} {'ready':>8} {'lint':>8} {'bytes':>8}"
    print(header)
    for n in sizes:
        rows = [("ours", measure_ours(n))]
        if torch is not None:
            rows.append(("torch", measure_torch(n)))
        for who, r in rows:
            per = {k: (v / n * 1e6 if k != "bytes" else v) for k, v in r.items()}
            print(f"{n:>7} {who:>6} {per['create']:>8.2f} {per['codegen']:>8.2f} {per['gm']:>8.2f} "
                  f"{per['ready']:>8.2f} {per['lint']:>8.2f} {per['bytes']:>8.0f}")
        if torch is not None:
            o, t = rows[0][1], rows[1][1]
            ratios = [t[k] / o[k] for k in ("create", "codegen", "gm", "ready", "lint", "bytes")]
            print(f"{'':>7} {'torch/':>6} " + " ".join(f"{r:>7.1f}x" for r in ratios))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:] if a.isdigit()] or [1_000, 10_000, 100_000])
