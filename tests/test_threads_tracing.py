"""make_fx and compile() from several threads (issue 18): the cyclic-GC pause of make_fx is one process-wide count
under a lock (the collector is back on only when the last running trace ends, and only if a trace turned it off),
and compile()'s caches compile a function once however many threads call it."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import tracer.proxy_tensor as proxy_tensor
from tracer import make_fx


@pytest.fixture
def gc_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        (gc.enable if was else gc.disable)()


def _body(x: Any) -> Any:
    return (x.sin() * 2.0 + 1.0).sum()


def test_gc_is_paused_during_a_trace_and_restored(gc_on: None) -> None:
    seen = []
    make_fx(lambda x: seen.append(gc.isenabled()) or _body(x))(D.ones(3))
    assert seen == [False] and gc.isenabled()
    gc.disable()
    make_fx(lambda x: seen.append(gc.isenabled()) or _body(x))(D.ones(3))
    assert not gc.isenabled()  # off before: stays off
    gc.enable()


def test_gc_enabled_by_the_traced_code_stays_enabled(gc_on: None) -> None:
    def f(x: Any) -> Any:
        gc.enable()
        return _body(x)

    make_fx(f)(D.ones(3))
    assert gc.isenabled()


def test_gc_pause_knob_off(gc_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proxy_tensor, "PAUSE_GC", False)
    seen = []
    make_fx(lambda x: seen.append(gc.isenabled()) or _body(x))(D.ones(3))
    assert seen == [True]


def test_a_trace_ending_in_one_thread_keeps_the_pause_of_another(gc_on: None) -> None:
    """A's trace starts (the collector goes off), B's starts inside it, A's ends: the collector stays off for B
    (the bug: A turned it back on under B), and is back on once B's ends."""
    a_inside, b_inside, a_done = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def traced_a(x: Any) -> Any:
        a_inside.set()
        assert b_inside.wait(30)
        return _body(x)

    def traced_b(x: Any) -> Any:
        b_inside.set()
        assert a_done.wait(30)
        seen["b_after_a"] = gc.isenabled()
        return _body(x)

    def thread_a() -> None:
        seen["a"] = make_fx(traced_a)(D.ones(3))
        seen["a_after"] = gc.isenabled()
        a_done.set()

    def thread_b() -> None:
        assert a_inside.wait(30)
        seen["b"] = make_fx(traced_b)(D.ones(3))

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert "a" in seen and "b" in seen
    assert seen["a_after"] is False and seen["b_after_a"] is False
    assert gc.isenabled()  # the last trace turned it back on


def test_many_threads_tracing_leave_the_gc_as_they_found_it(gc_on: None) -> None:
    errors: list[BaseException] = []
    graphs: list[Any] = []

    def work(seed: int) -> None:
        try:
            for i in range(4):
                gm = make_fx(_body)(D.ones(3) * (seed + i))
                graphs.append(gm)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors and len(graphs) == 24
    assert gc.isenabled() and proxy_tensor._gc_pauses == 0
    x = D.tensor(np.linspace(-1, 1, 3).astype(np.float32))
    for gm in graphs:
        np.testing.assert_allclose(gm(x).numpy(), _body(x).numpy(), rtol=1e-6)


def _compiled_body(x: Any, w: Any) -> Any:
    y = x
    for _ in range(12):
        y = (y @ w).tanh()
    if y.sum() > -1e9:  # a graph break (always taken): two segments per call
        y = y * 2.0
    return y.relu().sum()


def test_compile_shared_by_threads_compiles_each_segment_once() -> None:
    """6 threads calling one compiled function at once (thread switches forced often, a backend slow to compile):
    as many compilations as a serial run (2 segments), no recompile, and eager's values."""
    import sys
    import time

    from tracer import compile as compile_fn

    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((4, 8)).astype(np.float32), (rng.standard_normal((8, 8)) * 0.1).astype(np.float32))
            for _ in range(6)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        compiles: list[int] = []

        def slow_backend(gm: Any, example_inputs: Any) -> Any:
            compiles.append(1)
            time.sleep(0.05)  # the window in which the other threads miss on the same segment
            return gm

        for _ in range(2):
            compiles.clear()
            g = compile_fn(_compiled_body, backend=slow_backend)
            barrier = threading.Barrier(6)
            results: dict[int, list[float]] = {}
            errors: list[BaseException] = []

            def work(i: int, g: Any = g, barrier: Any = barrier, results: Any = results, errors: Any = errors) -> None:
                try:
                    barrier.wait(30)
                    x, w = data[i]
                    results[i] = [g(D.tensor(x), D.tensor(w)).item() for _ in range(4)]
                except BaseException as e:  # noqa: BLE001 - reported below
                    errors.append(e)

            threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            assert not errors
            stats = g.stats()
            assert stats["misses"] == 2 and stats["recompiles"] == 0 and len(compiles) == 2, stats
            for i, (x, w) in enumerate(data):
                expected = _compiled_body(D.tensor(x), D.tensor(w)).item()
                assert results[i] == pytest.approx([expected] * 4, rel=1e-5)
    finally:
        sys.setswitchinterval(old)
