"""``tracer.compile(fn, backend="eager", fullgraph=False)``: the front end of graph capture with graph breaks.

Corresponds to ``torch.compile`` / torch/_dynamo/eval_frame.py (``optimize``, ``OptimizedModule``-like
wrapper, ``reset``). Calling the compiled function runs ``fn`` under a capture session (compile_capture.py):
torch-level calls build graphs lazily, graph breaks compile (compile_cache.py) and run them, and the result
equals eager's. ``compile`` works as ``compile(fn)``, ``@compile`` and ``@compile(backend=...)``.

Whole-call fast path (Dynamo's "guards pass, skip the frame's Python"): when a call captured exactly one graph
with no break, read no tensor other than its arguments and returned only graph outputs, arguments and
immutable constants, the next call whose arguments have the same metadata (shapes, strides, dtypes,
requires_grad, aliasing, the same non-tensor values) and the same grad mode calls the compiled graph directly.
NB: unlike Dynamo we do not guard on globals or closure variables and do not replay Python side effects
(``print("...")``, appending to a list) on such calls; call ``tracer.reset()`` after changing what ``fn``
reads besides its arguments, or pass ``compile(..., whole_call_cache=False)``.

Warm calls: the fast entry hit last (or stored last) also has a generated function (compile_hot.py) that checks
the same guard on flat positional arguments directly and calls the compiled graph, before any pytree work or
hashing; on a miss the generic path above decides.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable
from typing import Any

from dispatcher.autograd import grad_mode as _grad_mode
from dispatcher.tensor import Tensor

from . import compile_markers as _markers
from . import pytree
from .backends import lookup_backend
from .compile_cache import STATS, CacheEntry, SegmentCache, segment_key
from .compile_capture import Session, Unsupported
from .compile_hot import MISS, make_hot_call
from .compile_lazy import LazyTensor
from .graph_module import GraphModule

__all__ = ["CompiledFunction", "Unsupported", "compile", "reset"]

_ALL: weakref.WeakSet = weakref.WeakSet()
_IMMUTABLE = (int, float, bool, str, complex, type(None), bytes)
_FAST_LIMIT = 64  # argument signatures remembered per compiled function for the whole-call fast path


class _FnStats:
    def __init__(self) -> None:
        self.hits = 0
        self.misses = 0
        self.recompiles = 0
        self.whole_call_hits = 0
        self.hot_hits = 0  # whole-call hits counted by compile_hot.py's functions
        self.reasons: list[str] = []


class _FastEntry:
    __slots__ = ("entry", "input_map", "out_leaves", "out_spec", "grad0", "hot")

    def __init__(self, entry: CacheEntry, input_map: list[int], out_leaves: list[tuple], out_spec: Any,
                 grad0: bool) -> None:
        self.entry = entry
        self.grad0 = grad0  # the grad mode the graph starts in (it restores it at its end)
        self.input_map = input_map  # placeholder i reads flat argument input_map[i]
        self.out_leaves = out_leaves  # ("out", i) | ("arg", j) | ("const", value)
        self.out_spec = out_spec
        self.hot: Callable[[tuple], Any] | None = None  # compile_hot.py's function (flat positional calls only)


class CompiledFunction:
    """What ``tracer.compile(fn)`` returns: call it like ``fn``. ``stats()`` gives this function's cache counts."""

    def __init__(self, fn: Callable[..., Any], backend: Any = "eager", fullgraph: bool | str = False,
                 whole_call_cache: bool = True) -> None:
        if not callable(fn):
            raise TypeError(f"tracer.compile: expected a callable, got {type(fn).__name__}")
        if fullgraph not in (True, False, "allow_declared"):
            raise ValueError(f"tracer.compile: fullgraph must be True, False or 'allow_declared', got {fullgraph!r}")
        self._orig_fn = fn
        self.backend = backend
        self._backend = lookup_backend(backend)
        self.fullgraph = fullgraph
        self._hot: Callable[[tuple], Any] | None = None  # the warm-call function of the fast entry hit last
        self.whole_call_cache = whole_call_cache
        self.cache = SegmentCache()
        self._fast: dict[tuple, _FastEntry] = {}
        self._stats = _FnStats()
        STATS.track_hot(self._stats)  # compile_stats() adds up this function's warm-call hits on read
        weakref.finalize(self, STATS.retire, self._stats)
        self._on_graph: Callable[..., Any] | None = None  # explain's recorder
        try:
            self._signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            self._signature = None
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]
        _ALL.add(self)

    @property
    def whole_call_cache(self) -> bool:
        """Whether calls may skip capture when a whole-call fast entry matches (see the module docstring)."""
        return self._whole_call_cache

    @whole_call_cache.setter
    def whole_call_cache(self, on: bool) -> None:
        self._whole_call_cache = bool(on)
        if not on:
            self._hot = None

    def stats(self) -> dict[str, Any]:
        s = self._stats
        return {"hits": s.hits + s.hot_hits, "misses": s.misses, "recompiles": s.recompiles,
                "whole_call_hits": s.whole_call_hits + s.hot_hits, "recompile_reasons": list(s.reasons)}

    def reset(self) -> None:
        """Forget this function's compiled segments."""
        self.cache.clear()
        self._fast.clear()
        self._hot = None

    # --- calling -------------------------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        hot = self._hot  # None unless the whole-call cache is on and explain() is not recording (see below)
        if hot is not None and not kwargs:
            out = hot(args)
            if out is not MISS:
                return out
        fn = self._orig_fn
        if _markers._tls.disabled_depth:
            return fn(*args, **kwargs)  # inside a disable()d call: everything runs eagerly
        if _markers._tls.session is not None:
            return fn(*args, **kwargs)  # a compiled function called while capturing is inlined (as Dynamo does)
        flat, spec = pytree.tree_flatten((args, kwargs))
        guard = self._guard_key(flat, spec) if self.whole_call_cache and self._on_graph is None else None
        if guard is not None:
            fast = self._fast.get(guard)
            if fast is not None:
                if fast.hot is not None:
                    self._hot = fast.hot
                return self._run_fast(fast, flat)
        names = self._input_names(args, kwargs)
        session = Session(self, self.fullgraph, names)
        with session:
            result = fn(*args, **kwargs)
            result = session.finish(result)
        if guard is not None:
            self._maybe_store_fast(guard, session, args, kwargs, flat, result)
        return result

    def _input_names(self, args: tuple, kwargs: dict) -> dict[int, str]:
        names: dict[int, str] = {}
        try:
            bound = self._signature.bind(*args, **kwargs) if self._signature is not None else None
        except TypeError:
            bound = None
        items = list(bound.arguments.items()) if bound is not None else [(f"arg{i}", a) for i, a in enumerate(args)]
        for pname, value in items:
            leaves, _ = pytree.tree_flatten(value)
            for i, leaf in enumerate(leaves):
                if isinstance(leaf, Tensor) and id(leaf) not in names:
                    names[id(leaf)] = pname if len(leaves) == 1 else f"{pname}_{i}"
        return names

    # --- segments (called by Session.flush) ------------------------------------------------------------------------
    def _run_segment(self, session: Session, seg: Any, reason: str | None, loc: Any) -> Any:
        key, metas = segment_key(seg.graph, seg.inputs, bool(seg.grad0))
        position = len(session.flushes)

        def build() -> CacheEntry:
            gm = GraphModule({}, seg.graph)
            fn = self._backend(gm, list(seg.inputs))
            if not callable(fn):
                raise TypeError(f"tracer.compile: backend {self.backend!r} returned {type(fn).__name__}, expected a "
                                "callable")
            names = [n.name for n in seg.graph.nodes if n.op == "placeholder"]
            return CacheEntry(fn, gm, metas, names)

        entry = self.cache.get_or_compile(key, position, self._stats, build)
        outputs_of = [n for n in seg.graph.output_node().args[0]]
        session.flushes.append({"entry": entry, "reason": reason, "loc": loc, "inputs": list(seg.inputs),
                                "n_outputs": len(outputs_of), "grad0": bool(seg.grad0)})
        if self._on_graph is not None:
            self._on_graph(entry.gm, reason, loc)
        out = entry.fn(*seg.inputs)
        if isinstance(out, Tensor):
            out = (out,)
        session.flushes[-1]["outputs"] = list(out)
        return out

    # --- the whole-call fast path ----------------------------------------------------------------------------------
    def _guard_key(self, flat: list, spec: Any) -> tuple | None:
        """The whole-call guard: the arguments' structure, the grad mode, and per flat argument its class and
        metadata (tensors: shape, strides, dtype, requires_grad, the first argument that is the
        same object and the first sharing its storage) or its type and value (immutable constants)."""
        parts: list[Any] = [spec, _grad_mode.is_grad_enabled()]
        first_of: dict[int, int] = {}
        storage_of: dict[int, int] = {}
        for i, a in enumerate(flat):
            if isinstance(a, Tensor):
                if type(a) is not Tensor:
                    return None
                storage = id(a._flat) if a._flat is not None else id(a)
                parts.append(("T", tuple(a._shape), tuple(a._stride), a._dtype,
                              bool(a.requires_grad), first_of.setdefault(id(a), i),
                              storage_of.setdefault(storage, i)))
            elif isinstance(a, _IMMUTABLE):
                parts.append((type(a), a))
            else:
                return None
        return tuple(parts)

    def _maybe_store_fast(self, guard: tuple, session: Session, args: tuple, kwargs: dict, flat: list,
                          result: Any) -> None:
        if len(session.flushes) != 1 or session.breaks or session.used_frames:
            return
        flush = session.flushes[0]
        arg_index = {id(a): i for i, a in reversed(list(enumerate(flat))) if isinstance(a, Tensor)}
        input_map = []
        for t in flush["inputs"]:
            j = arg_index.get(id(t))
            if j is None:
                return  # the graph reads a tensor that is not an argument (a global, a closure, a new tensor)
            input_map.append(j)
        outs = flush.get("outputs", [])
        out_index = {id(o): i for i, o in enumerate(outs)}
        leaves, out_spec = pytree.tree_flatten(result)
        out_leaves: list[tuple] = []
        used = set()
        for leaf in leaves:
            if isinstance(leaf, Tensor):
                if id(leaf) in arg_index:
                    out_leaves.append(("arg", arg_index[id(leaf)]))
                    continue
                i = _index_of_become(leaf, outs, out_index)
                if i is None:
                    return
                used.add(i)
                out_leaves.append(("out", i))
            elif isinstance(leaf, _IMMUTABLE):
                out_leaves.append(("const", leaf))
            else:
                return
        if len(used) != len(outs):
            return  # a graph output went somewhere else than the result (a global, a list): keep running Python
        if len(self._fast) >= _FAST_LIMIT:  # like Dynamo's cache_size_limit: forget the oldest signature
            oldest = self._fast.pop(next(iter(self._fast)))
            if oldest.hot is not None and oldest.hot is self._hot:
                self._hot = None
        fast = _FastEntry(flush["entry"], input_map, out_leaves, out_spec, flush["grad0"])
        if not kwargs and len(args) == len(flat) and all(a is b for a, b in zip(args, flat)):
            fast.hot = make_hot_call(guard, args, input_map, out_leaves, out_spec, flush["grad0"], fast.entry,
                                     self._stats)
            self._hot = fast.hot
        self._fast[guard] = fast

    def _run_fast(self, fast: _FastEntry, flat: list) -> Any:
        entry = fast.entry
        entry.hits += 1
        STATS.hits += 1  # plain increments, as on the warm path (compile_hot.py)
        STATS.whole_call_hits += 1
        self._stats.hits += 1
        self._stats.whole_call_hits += 1
        if fast.grad0 == _grad_mode.is_grad_enabled():
            out = entry.fn(*[flat[j] for j in fast.input_map])
        else:
            with _grad_mode.set_grad_enabled(fast.grad0):
                out = entry.fn(*[flat[j] for j in fast.input_map])
        if isinstance(out, Tensor):
            out = (out,)
        leaves = []
        for kind, v in fast.out_leaves:
            leaves.append(out[v] if kind == "out" else flat[v] if kind == "arg" else v)
        return pytree.tree_unflatten(leaves, fast.out_spec)


def _index_of_become(leaf: Any, outs: list, out_index: dict[int, int]) -> int | None:
    """Which backend output a result tensor is (a LazyTensor became a copy of it, sharing its storage)."""
    i = out_index.get(id(leaf))
    if i is not None:
        return i
    for j, o in enumerate(outs):
        if (type(leaf) is not LazyTensor and leaf._data is o._data and leaf._flat is o._flat  # _flat may be None
                and leaf._shape == o._shape
                and leaf._stride == o._stride and leaf._storage_offset == o._storage_offset
                and leaf._dtype == o._dtype and leaf.__dict__.get("_grad_fn") is o.__dict__.get("_grad_fn")):
            return j
    return None


def compile(fn: Callable[..., Any] | None = None, *, backend: Any = "eager",  # noqa: A001 - torch's name
            fullgraph: bool | str = False, whole_call_cache: bool = True) -> Any:
    """Capture ``fn``'s tensor operations into graphs, breaking where Python needs data; run them with ``backend``.

    ``backend``: "eager", "aot_eager", "numpy" or a callable ``backend(gm, example_inputs) -> callable``.
    ``fullgraph=True`` turns every graph break into ``Unsupported``; ``"allow_declared"`` allows the breaks the
    user asked for (``graph_break()``, ``disable``d functions, ``disallow_in_graph``-ed callables) and rejects
    the others (data-dependent Python). Usable as ``compile(fn)``, ``@compile`` and ``@compile(backend=...)``.
    """
    if fn is None:
        return lambda f: CompiledFunction(f, backend, fullgraph, whole_call_cache)
    return CompiledFunction(fn, backend, fullgraph, whole_call_cache)


def reset() -> None:
    """Forget every compiled segment and zero ``compile_stats()`` (``torch._dynamo.reset``); marks stay."""
    for cf in list(_ALL):
        cf.reset()
    with STATS.lock:
        STATS.reset()
