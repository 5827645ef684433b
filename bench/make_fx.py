"""make_fx trace cost per node and memory per node, ours vs torch's make_fx, in each tracing mode.

Programs: elementwise chains of 1,000 / 10,000 / 100,000 ops (``+ 1.0``, ``* 0.5``, ``sin``,
``- 0.25`` in turn), and from the shared corpus (tests/corpus.py) a small MLP, a transformer
block (B=1, S=16, D=64, 4 heads) and an MLP training step (forward, ``backward()``, SGD update), and a
two-block transformer written with ``nn.Module``s (tests/models.py), whose trace records ``nn_module_stack``.
Modes: post-dispatch ``real``, ``fake`` (``tracing_mode="fake"``), ``pre`` (``pre_dispatch=True``)
and ``core_aten`` (post-dispatch with ``core_aten_decompositions()``; skipped with a note when
``tracer.decompositions.core_aten_decompositions`` does not exist). Both libraries trace with
their own defaults: ours records stack traces (``record_stack_traces=True``), torch's make_fx
does not (its default is ``False``).

Time: CPU time (``time.process_time``) of ``make_fx(f, ...)(*inputs)``, which includes building the
GraphModule, divided by the number of nodes of the graph it made; ours and torch's runs are
interleaved and the table shows medians. A run of a small program (corpus programs, below 1,000 ops)
is a batch of ``--batch`` back-to-back traces on fresh inputs built beforehand, with the cyclic GC
collected before the batch and paused during it (``timeit``'s rule, for both libraries): ``warm`` is the
median over every trace but a batch's first, the steady per-node cost; ``cold`` is the median of the
first traces, which start right after a full collection (CPython empties its free lists and the walk
evicts the caches: a fixed cost of a few hundred µs per trace, which weighs on a 12-node graph; torch
pays it too, but it is a smaller share of its time). A chain run is one trace (both columns). A global
warm-up traces a short chain and every small program once in every mode first, so one-time costs
(imports, caches) are not counted.
Memory (chain of ``--mem-nodes`` ops): tracemalloc's peak during the trace and what is still
allocated afterwards with the GraphModule alive (``retained``), per node. tracemalloc sees only
Python allocations, which undercounts torch (its tensors and FakeTensors live in C++), so the RSS
delta per node is measured too, each (library, mode) in a fresh child process after a warm-up.

Run: ``.venv/bin/python bench/make_fx.py [--quick] [--max-nodes N] [--torch-max-nodes N]
[--repeats R] [--batch K] [--no-torch] [--no-rss] [--full]``. The default run takes about 3 minutes of CPU time (torch's
10,000-op chain only in ``real`` mode: ~20 s a mode; ``--full`` adds the other modes, ~1 more minute); ``--quick``
(chains up to 1,000 ops, 3 repeats) well under one.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

MODES = ("real", "fake", "pre", "core_aten")


# --- the two libraries --------------------------------------------------------------------------------------------


class Lib:
    """One library's make_fx, namespace and decomposition table, behind the same small interface."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "ours":
            import dispatcher
            import dispatcher.nn.functional as functional
            from tracer import make_fx

            self.T, self.F, self.make_fx = dispatcher, functional, make_fx
            try:
                from tracer.decompositions import core_aten_decompositions
            except ImportError:
                core_aten_decompositions = None
        else:
            import torch
            import torch.nn.functional as functional
            from torch._decomp import core_aten_decompositions
            from torch.fx.experimental.proxy_tensor import make_fx

            self.T, self.F, self.make_fx = torch, functional, make_fx
        self._core_aten = core_aten_decompositions
        self._core_table: dict | None = None

    def has_mode(self, mode: str) -> bool:
        return mode != "core_aten" or self._core_aten is not None

    def mode_kwargs(self, mode: str) -> dict[str, Any]:
        if mode == "fake":
            return {"tracing_mode": "fake"}
        if mode == "pre":
            return {"pre_dispatch": True}
        if mode == "core_aten":
            if self._core_table is None:
                self._core_table = self._core_aten()
            return {"decomposition_table": self._core_table}
        return {}

    def trace(self, program: Program, mode: str) -> tuple[float, Any]:
        """(CPU seconds, GraphModule) of one make_fx call on fresh inputs (GC collected first, paused during)."""
        times, gm = self.trace_batch(program, mode, 1)
        return times[0], gm

    def trace_batch(self, program: Program, mode: str, k: int) -> tuple[list[float], Any]:
        """CPU seconds of ``k`` back-to-back make_fx calls, each on fresh inputs built beforehand, and the last
        GraphModule. The cyclic GC is collected before the batch and paused during it, as ``timeit`` does, so
        neither library pays for the other's garbage; the first trace of a batch starts cold."""
        builds = [program.build(self) for _ in range(k)]
        kwargs = self.mode_kwargs(mode)
        gc.collect()
        was_enabled = gc.isenabled()
        gc.disable()
        times, gm = [], None
        try:
            for f, args in builds:
                gm = None
                start = time.process_time()
                gm = self.make_fx(f, **kwargs)(*args)
                times.append(time.process_time() - start)
        finally:
            if was_enabled:
                gc.enable()
        return times, gm


# --- programs ---------------------------------------------------------------------------------------------------


def chain(n: int) -> Callable[[Any, Any], Callable[..., Any]]:
    """An elementwise chain of ``n`` ops (n a multiple of 4)."""
    def program(T: Any, F: Any) -> Callable[..., Any]:
        def f(x):
            for _ in range(n // 4):
                x = x + 1.0
                x = x * 0.5
                x = x.sin()
                x = x - 0.25
            return x
        return f
    return program


class Program:
    """A program (written against ``T`` / ``F``) with its NumPy input data."""

    def __init__(self, label: str, program: Callable[..., Any], shapes: list, rg: tuple[int, ...],
                 ops: int | None = None, skip_modes: tuple[str, ...] = ()) -> None:
        from tests import corpus

        self.label, self.program, self.rg, self.ops = label, program, rg, ops
        #: modes the program cannot be traced in (a model with real parameters: not under fake inputs)
        self.skip_modes = skip_modes
        self._corpus = corpus
        self.arrays = corpus.arrays(shapes, seed=0)

    def build(self, lib: Lib) -> tuple[Callable[..., Any], list]:
        """The function and fresh inputs (a training step updates its weights in place)."""
        return self.program(lib.T, lib.F), self._corpus.inputs(lib.T, self.arrays, self.rg)


def programs(sizes: list[int]) -> list[Program]:
    from tests import corpus

    out = [Program(f"chain {n // 1000}k" if n >= 1000 else f"chain {n}", chain(n), [(4,)], (), ops=n)
           for n in sizes]
    for label, key in (("mlp", "mlp"), ("transformer block", "transformer_block"), ("mlp train step", "train_step")):
        program, shapes, rg = corpus.PROGRAMS[key]
        out.append(Program(label, program, shapes, rg))
    # an nn.Module model (tests/models.py): make_fx records nn_module_stack at every module call
    from tests.models import DIM, SEQ, gpt

    out.append(Program("gpt 2 blocks (nn)", lambda T, F: gpt(T, 2), [(2, SEQ, DIM)], (), skip_modes=("fake",)))
    return out


# --- timing -----------------------------------------------------------------------------------------------------


def time_runs(libs: list[Lib], program: Program, mode: str, repeats: dict[str, int], batch: int) -> dict[str, Any]:
    """Interleaved batches of each library: medians of µs per node (warm: every trace of a batch but its first;
    cold: the first trace of each batch, which follows a full collection), node counts, failures."""
    warm: dict[str, list[float]] = {lib.name: [] for lib in libs}
    cold: dict[str, list[float]] = {lib.name: [] for lib in libs}
    nodes: dict[str, int] = {}
    errors: dict[str, str] = {}
    for i in range(max(repeats.values())):
        for lib in libs:
            if i >= repeats[lib.name] or lib.name in errors:
                continue
            try:
                times, gm = lib.trace_batch(program, mode, batch)
            except Exception as e:  # noqa: BLE001 - reported in the table, the benchmark goes on
                errors[lib.name] = f"{type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"
                continue
            n = nodes[lib.name] = len(gm.graph.nodes)
            cold[lib.name].append(times[0] / n * 1e6)
            warm[lib.name].extend(t / n * 1e6 for t in (times[1:] or times))
            del gm

    def medians(d: dict[str, list[float]]) -> dict[str, float]:
        return {k: statistics.median(v) for k, v in d.items() if v}

    return {"us": medians(warm), "cold": medians(cold), "runs": {k: len(v) for k, v in cold.items()},
            "nodes": nodes, "errors": errors}


# --- memory -----------------------------------------------------------------------------------------------------


def tracemalloc_per_node(lib: Lib, program: Program, mode: str) -> tuple[float, float]:
    """(peak, retained) bytes per node allocated by Python during one trace."""
    f, args = program.build(lib)
    kwargs = lib.mode_kwargs(mode)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        gm = lib.make_fx(f, **kwargs)(*args)
        del f, args
        peak = tracemalloc.get_traced_memory()[1]
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    n = len(gm.graph.nodes)
    return (peak - base) / n, (retained - base) / n


def _rss_kib() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("VmRSS not found in /proc/self/status")


def rss_child(lib_name: str, mode: str, n: int) -> None:
    """Child process: print the RSS delta per node of a chain trace (GraphModule alive), after a warm-up."""
    lib = Lib(lib_name)
    lib.trace(Program("warm-up", chain(400), [(4,)], ()), mode)
    program = Program("chain", chain(n), [(4,)], ())
    gc.collect()
    before = _rss_kib()
    _, gm = lib.trace(program, mode)
    gc.collect()
    after = _rss_kib()
    print(json.dumps({"rss_per_node": (after - before) * 1024 / len(gm.graph.nodes)}))


def rss_per_node(lib_name: str, mode: str, n: int) -> float | None:
    cmd = [sys.executable, __file__, "--rss-child", lib_name, mode, str(n)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    if done.returncode != 0:
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])["rss_per_node"]


# --- report -----------------------------------------------------------------------------------------------------


def fmt(x: float | None, spec: str = ".1f") -> str:
    return "-" if x is None else format(x, spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="chains up to 1,000 ops, 3 repeats, no RSS children")
    parser.add_argument("--max-nodes", type=int, default=100_000, help="longest chain traced by ours")
    parser.add_argument("--torch-max-nodes", type=int, default=10_000, help="longest chain traced by torch")
    parser.add_argument("--repeats", type=int, default=3, help="runs per (program, mode) below 10,000 ops")
    parser.add_argument("--batch", type=int, default=8,
                        help="back-to-back traces per run of a program below 1,000 ops (chains: 1)")
    parser.add_argument("--mem-nodes", type=int, default=1000, help="chain length for the memory columns")
    parser.add_argument("--no-torch", action="store_true", help="measure ours only (torch not imported)")
    parser.add_argument("--no-rss", action="store_true", help="skip the RSS child processes")
    parser.add_argument("--full", action="store_true", help="torch's 10,000-op chain in every mode, not only real")
    parser.add_argument("--rss-child", nargs=3, metavar=("LIB", "MODE", "N"), help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.rss_child:
        rss_child(opts.rss_child[0], opts.rss_child[1], int(opts.rss_child[2]))
        return
    if opts.quick:
        opts.max_nodes, opts.repeats, opts.no_rss = min(opts.max_nodes, 1000), 3, True
    wall = time.perf_counter()
    libs = [Lib("ours")]
    if not opts.no_torch:
        try:
            libs.append(Lib("torch"))
        except ImportError:
            print("torch is not installed: measuring ours only")
    ours = libs[0]
    modes = [m for m in MODES if ours.has_mode(m)]
    if "core_aten" not in modes:
        print("note: tracer.decompositions.core_aten_decompositions does not exist yet; core_aten column skipped")
    sizes = [n for n in (1_000, 10_000, 100_000) if n <= opts.max_nodes]
    progs = programs(sizes)

    # warm-up: one-time costs (lazy imports, op caches, fake-mode setup) are not part of per-node cost
    warm = [Program("warm-up", chain(100), [(4,)], ())] + [p for p in progs if p.ops is None]
    for lib in libs:
        for mode in modes:
            for p in warm:
                try:
                    lib.trace(p, mode)
                except Exception:  # noqa: BLE001, S110 - the timed runs report it
                    pass

    results: dict[tuple[str, str], dict[str, Any]] = {}
    print("\nmake_fx: µs per node (CPU time; ours and torch interleaved, GC paused during a run)")
    print(f"runs of {opts.batch} back-to-back traces for programs below 1,000 ops: 'warm' = median over the traces "
          "after a run's first,\n'cold' = median of each run's first trace, which follows a full GC collection; "
          "chains: one trace a run (both)")
    print(f"{'program':<18} {'mode':<9} {'nodes':>7} {'ours':>8} {'torch':>8} {'torch/ours':>10} | "
          f"{'cold ours':>9} {'torch':>8} {'ratio':>6} {'runs':>6}")
    for p in progs:
        for mode in modes:
            if mode in p.skip_modes:
                continue
            torch_too = p.ops is None or p.ops < 10_000 or (p.ops <= opts.torch_max_nodes and (
                mode == "real" or opts.full))  # torch's long chains take ~20 s a mode: real only unless --full
            run_libs = [lib for lib in libs if lib.name == "ours" or torch_too]
            base = opts.repeats if (p.ops or 0) < 10_000 else (3 if p.ops < 100_000 else 1)
            repeats = {lib.name: base if lib.name == "ours" or (p.ops or 0) < 10_000 else 1 for lib in run_libs}
            batch = 1 if p.ops else max(1, opts.batch)
            r = results[(p.label, mode)] = time_runs(run_libs, p, mode, repeats, batch)
            o, t = r["us"].get("ours"), r["us"].get("torch")
            co, ct = r["cold"].get("ours"), r["cold"].get("torch")
            ratio = f"{t / o:.1f}x" if o and t else "-"
            cold_ratio = f"{ct / co:.1f}x" if co and ct else "-"
            counts = sorted({r["nodes"].get(lib.name) for lib in libs} - {None})
            nodes = "/".join(str(c) for c in counts) or "-"
            runs = "/".join(str(r["runs"].get(lib.name, 0)) for lib in libs)
            print(f"{p.label:<18} {mode:<9} {nodes:>7} {fmt(o):>8} {fmt(t):>8} {ratio:>10} | "
                  f"{fmt(co):>9} {fmt(ct):>8} {cold_ratio:>6} {runs:>6}", flush=True)
            for who, err in r["errors"].items():
                print(f"{'':<18} {'':<9} {who} failed: {err}")

    print("\nscaling (ours, µs per node by chain length; flat = linear time)")
    print(f"{'mode':<9} " + " ".join(f"{n:>9}" for n in sizes) + f" {'last/first':>10}")
    for mode in modes:
        us = [results[(p.label, mode)]["us"].get("ours") for p in progs if p.ops]
        last = f"{us[-1] / us[0]:.2f}" if us and us[0] and us[-1] else "-"
        print(f"{mode:<9} " + " ".join(f"{fmt(u):>9}" for u in us) + f" {last:>10}")

    n = opts.mem_nodes
    print(f"\nmemory per node, chain of {n} ops (bytes; tracemalloc sees Python allocations only, RSS sees all)")
    print(f"{'mode':<9} {'ours peak':>10} {'retained':>9} {'RSS':>8} | {'torch peak':>10} {'retained':>9} {'RSS':>8}")
    mem_prog = Program("chain", chain(n), [(4,)], ())
    for mode in modes:
        row = []
        for lib in libs:
            peak, kept = tracemalloc_per_node(lib, mem_prog, mode)
            rss = None if opts.no_rss else rss_per_node(lib.name, mode, n)
            row.append(f"{peak:>10.0f} {kept:>9.0f} {fmt(rss, '.0f'):>8}")
        print(f"{mode:<9} " + " | ".join(row), flush=True)
    for column, title in (("us", "slowest ratio per mode"), ("cold", "slowest cold ratio per mode")):
        worst: dict[str, tuple[float, str]] = {}
        for (label, mode), r in results.items():
            o, t = r[column].get("ours"), r[column].get("torch")
            if o and t:
                worst[mode] = min(worst.get(mode, (float("inf"), "")), (t / o, label))
        if worst:
            print(f"{'' if column == 'cold' else chr(10)}{title}: "
                  + ", ".join(f"{m} {v:.1f}x ({lbl})" for m, (v, lbl) in worst.items()))
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"total {time.perf_counter() - wall:.0f} s wall, "
          f"{time.process_time() + children.ru_utime + children.ru_stime:.0f} s CPU (children included)")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
