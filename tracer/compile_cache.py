"""The compile cache of ``tracer.compile``: captured segments keyed by structure and input metadata; stats.

Plays the role of Dynamo's per-frame cache entries and guards (torch/_dynamo/cache_size.py, guards.py) and of
``torch._dynamo.utils.counters``. A segment's key is its graph's structure (each node's op, target, and
arguments with nodes replaced by their positions and constants by their values) plus, for every placeholder,
the real input's shape, strides, dtype and requires_grad, plus the grad mode the graph starts in. A later
segment with the same key reuses the compiled backend function. A miss at a position (the n-th graph of a
call) that has compiled before is a *recompile*, reported with the first difference found, in Dynamo's guard
wording (``tensor 'x' size mismatch at index 0. expected 4, actual 8``).
"""

from __future__ import annotations

import threading
from typing import Any

from .graph import Node

__all__ = ["CacheEntry", "SegmentCache", "compile_stats", "input_meta", "segment_key"]


class CacheEntry:
    """A compiled segment: the backend's callable, the GraphModule it was given, the key's input metadata."""

    __slots__ = ("fn", "gm", "metas", "names", "hits")

    def __init__(self, fn: Any, gm: Any, metas: list[tuple], names: list[str]) -> None:
        self.fn = fn
        self.gm = gm
        self.metas = metas
        self.names = names
        self.hits = 0


def input_meta(t: Any) -> tuple:
    """(shape, strides, dtype, requires_grad) of a real input tensor."""
    return (tuple(t._shape), tuple(t._stride), t._dtype, bool(t.requires_grad))


def _freeze(value: Any, index: dict[Node, int]) -> Any:
    cls = type(value)
    if cls is Node:
        return ("node", index[value])
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (cls, tuple(_freeze(v, index) for v in value))
    if isinstance(value, (tuple, list)):  # immutable_list (node args) included
        return ("list" if isinstance(value, list) else "tuple", tuple(_freeze(v, index) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _freeze(v, index)) for k, v in value.items()))
    if cls is slice:
        return ("slice", _freeze(value.start, index), _freeze(value.stop, index), _freeze(value.step, index))
    if cls is float and value != value:
        return (float, "nan")
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (cls, value)


def segment_key(graph: Any, inputs: list, grad_mode: bool) -> tuple[tuple, list[tuple]]:
    """(key, input metadata) of a captured segment."""
    index: dict[Node, int] = {}
    parts: list[Any] = []
    metas: list[tuple] = []
    for i, node in enumerate(graph.nodes):
        index[node] = i
        if node.op == "placeholder":
            meta = input_meta(inputs[node.meta["_index"]])
            metas.append(meta)
            parts.append(("placeholder", meta))
        else:
            parts.append((node.op, _freeze(node.target, index), _freeze(node.args, index),
                          _freeze(node.kwargs, index)))
    parts.append(("grad_mode", grad_mode))
    return tuple(parts), metas


def _diff_reason(names: list[str], old: list[tuple], new: list[tuple]) -> str:
    """The first guard that failed, in Dynamo's wording."""
    if len(old) == len(new):
        for name, a, b in zip(names, old, new, strict=True):
            if len(a[0]) != len(b[0]):
                return f"tensor '{name}' rank mismatch. expected {len(a[0])}, actual {len(b[0])}"
            for d, (x, y) in enumerate(zip(a[0], b[0], strict=True)):
                if x != y:
                    return f"tensor '{name}' size mismatch at index {d}. expected {x}, actual {y}"
            if a[2] != b[2]:
                return f"tensor '{name}' dtype mismatch. expected {a[2]}, actual {b[2]}"
            if a[3] != b[3]:
                return f"tensor '{name}' requires_grad mismatch. expected {a[3]}, actual {b[3]}"
            for d, (x, y) in enumerate(zip(a[1], b[1], strict=True)):
                if x != y:
                    return f"tensor '{name}' stride mismatch at index {d}. expected {x}, actual {y}"
        return "the captured graph changed (different operations, constants or grad mode)"
    return f"the captured graph changed ({len(old)} inputs before, {len(new)} now)"


class _Stats:
    """The process-wide counts of ``compile_stats()``.

    The warm-call functions of compile_hot.py count a hit with one plain increment of their compiled function's
    own ``hot_hits`` (no lock, nothing global): the global figure adds up, on read, the hot hits of every live
    compiled function since the last ``reset()`` (``_hot_live`` holds each one's stats object and its count at
    that reset) and those of functions collected since (``hot_hits``, folded in by ``retire``).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._hot_live: dict[int, list[Any]] = {}  # id(stats) -> [stats object, its hot_hits at the last reset]
        self.reset()

    def reset(self) -> None:
        self.hits = 0
        self.misses = 0
        self.recompiles = 0
        self.whole_call_hits = 0
        self.hot_hits = 0  # hot hits of compiled functions retired since the last reset
        self.reasons: list[str] = []
        for pair in self._hot_live.values():
            pair[1] = pair[0].hot_hits

    def track_hot(self, fn_stats: Any) -> None:
        """Count ``fn_stats.hot_hits`` (a compiled function's warm-call hits) in the global figures."""
        with self.lock:
            self._hot_live[id(fn_stats)] = [fn_stats, fn_stats.hot_hits]

    def retire(self, fn_stats: Any) -> None:
        """The compiled function owning ``fn_stats`` is gone: keep its hot hits, forget the object."""
        with self.lock:
            pair = self._hot_live.pop(id(fn_stats), None)
            if pair is not None:
                self.hot_hits += pair[0].hot_hits - pair[1]

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            hot = self.hot_hits + sum(st.hot_hits - base for st, base in self._hot_live.values())
            return {"hits": self.hits + hot, "misses": self.misses, "recompiles": self.recompiles,
                    "whole_call_hits": self.whole_call_hits + hot, "recompile_reasons": list(self.reasons)}


STATS = _Stats()


def compile_stats() -> dict[str, Any]:
    """Counts since the last ``tracer.reset()``: ``hits`` (segments reusing a compiled function, whole-call fast
    path included), ``misses`` (backend compiles), ``recompiles`` (misses at a graph position compiled before)
    with ``recompile_reasons``, and ``whole_call_hits`` (calls that skipped Python entirely)."""
    return STATS.snapshot()


class SegmentCache:
    """One compiled function's cache: key -> CacheEntry, and the keys seen at each graph position."""

    def __init__(self) -> None:
        self.entries: dict[tuple, CacheEntry] = {}
        self.by_position: dict[int, CacheEntry] = {}  # the last entry compiled at each position
        # held while a segment compiles: threads missing on the same key wait and find the entry (one compile)
        self._compiling = threading.RLock()

    def lookup(self, key: tuple, position: int, stats: Any) -> CacheEntry | None:
        entry = self.entries.get(key)
        self._count(entry, stats)
        return entry

    def _count(self, entry: CacheEntry | None, stats: Any) -> None:
        with STATS.lock:
            if entry is not None:
                entry.hits += 1
                STATS.hits += 1
                stats.hits += 1
            else:
                STATS.misses += 1
                stats.misses += 1

    def get_or_compile(self, key: tuple, position: int, stats: Any, build: Any) -> CacheEntry:
        """The entry of ``key``, compiled by ``build()`` (and added) on a miss. Thread-safe: a hit reads the dict
        without a lock; a miss re-checks under the compile lock, so threads calling a compiled function at once
        compile each segment once and count one miss (the others wait for it and count a hit)."""
        entry = self.entries.get(key)
        if entry is None:
            with self._compiling:
                entry = self.entries.get(key)
                if entry is None:
                    self._count(None, stats)
                    entry = build()
                    self.add(key, entry, position, stats)
                    return entry
        self._count(entry, stats)
        return entry

    def add(self, key: tuple, entry: CacheEntry, position: int, stats: Any) -> str | None:
        """Store ``entry``; return the recompile reason when this position had compiled before."""
        with self._compiling:
            before = self.by_position.get(position)
            self.entries[key] = entry
            self.by_position[position] = entry
        if before is None:
            return None
        reason = _diff_reason(entry.names, before.metas, entry.metas)
        with STATS.lock:
            STATS.recompiles += 1
            STATS.reasons.append(reason)
            stats.recompiles += 1
            stats.reasons.append(reason)
        return reason

    def clear(self) -> None:
        with self._compiling:
            self.entries.clear()
            self.by_position.clear()
