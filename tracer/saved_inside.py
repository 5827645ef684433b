"""Pre-dispatch ``make_fx``: recompute the tensors autograd saved *inside* an op kept whole.

No PyTorch counterpart: PyTorch's pre-dispatch trace of a function that calls backward bakes such tensors
into the graph as ``_tensor_constantN`` attributes (their values on the example inputs), so the graph is
wrong on other inputs. Before dispatch, ``layer_norm``, ``linear``, ``cross_entropy_loss``, ``matmul`` ... reach
the proxy mode whole and run their CompositeImplicitAutograd decomposition *below* it: the tensors made in
there (``native_layer_norm``'s mean and rstd, ``linear``'s ``t(weight)``, ``nll_loss_forward``'s total_weight)
are never seen by the tracer, yet autograd saves them and the backward ops traced later read them.

Two halves:

* recording (``should_record`` / ``recording``): while such an op runs below the pre-dispatch mode, with grad
  on and some tensor input requiring grad, a small ``InsideRecorder`` TorchDispatchMode sits on top of the
  (post-autograd, Python-key) mode stack, above the fake mode if there is one. For each op that runs inside
  it stores an ``_Entry``: the op, its arguments with each tensor replaced by a reference (an ``_Inner``: the
  output of an earlier entry; an ``_Outer``: a tensor from outside, held as the node it was traced as when
  there is one), and the outputs' ``meta["val"]``. No graph node is made. Outputs are indexed by
  ``_alias_key`` (version counter, geometry, dtype) with the version they had, because autograd unpacks a
  saved output as a detached alias (a new object on the same memory). Nothing is recorded while a user's mode
  is on the Python-key stack: it would run below the recorder and may replace the ops.
* recomputation (``SavedInside.node_for``): when a tensor the tracer does not know is used as an argument,
  ``_Tracer.to_arg`` asks here before making a ``_tensor_constantN``. If the tensor is (an alias of) a
  recorded output, unmodified since, the entries it depends on are emitted as ``call_function`` nodes at the
  point of first use (their inputs already exist), in the order they ran (in-place ops included), each with
  ``meta["val"]``, the whole op's ``stack_trace`` and ``meta["saved_inside"]`` (the whole op's name, e.g.
  ``"aten.layer_norm.default"``; passes/replay.py skips such nodes, which its pre-dispatch reference never
  sees); then that node is used. The recomputed nodes are post-autograd ops (``native_layer_norm`` +
  ``getitem``) inside a pre-dispatch graph; they run under eager autograd as well. Calls that draw random
  numbers (a ``nondeterministic_seeded`` op not turned deterministic by its arguments: ``native_dropout`` in
  training, whose mask is saved; but not sdpa's ``_scaled_dot_product_flash_attention_for_cpu`` with
  ``dropout_p=0``, whose logsumexp is saved) are not recomputed: a new draw would differ from the value autograd
  saved, so such a tensor stays a ``_tensor_constantN``, as in PyTorch. An op writing to arguments its schema
  does not mark (``native_batch_norm`` updating the running statistics in training) is recomputed without those
  writes (``_WITHOUT_UNANNOTATED_WRITES``).

The store lives on the tracer and dies with it (nothing outlives the trace); entries hold the version counters
they index (so that the ids stay unique) and, for outside tensors that were not traced, the tensors.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from dispatcher.modes.dispatch_mode import TorchDispatchMode
from dispatcher.tensor import Tensor
from dispatcher.tls import per_thread

__all__ = ["InsideRecorder", "SavedInside", "recording", "should_record"]


def _alias_key(t: Any) -> tuple:
    """(version counter id, shape, stride, offset, dtype): the same memory read the same way (as alias_index)."""
    return (id(t._version_counter), t._shape, t._stride, t._storage_offset, t._dtype)


class _Inner:
    """An argument that is output ``index`` (None: the only output) of an earlier recorded op."""

    __slots__ = ("entry", "index")

    def __init__(self, entry: _Entry, index: int | None) -> None:
        self.entry = entry
        self.index = index


class _Outer:
    """An argument from outside the recorded ops: its node if it was traced, else the tensor itself."""

    __slots__ = ("counter", "version", "node", "tensor")

    def __init__(self, counter: Any, version: int, node: Any, tensor: Any) -> None:
        self.counter = counter
        self.version = version
        self.node = node
        self.tensor = tensor


class _Whole:
    """An op kept whole that was recorded (its name is ``meta["saved_inside"]`` of the recomputing nodes) and its
    stack trace."""

    __slots__ = ("func", "trace")

    def __init__(self, func: Any, trace: str | None) -> None:
        self.func = func
        self.trace = trace


class _Entry:
    """One op that ran inside an op kept whole; ``node`` is its node (getitem nodes for several outputs) once
    emitted."""

    __slots__ = ("seq", "func", "args", "kwargs", "meta", "multi", "whole", "node", "writes")

    def __init__(self, seq: int, func: Any, args: tuple, kwargs: dict, meta: Any, multi: bool, whole: _Whole,
                 writes: tuple) -> None:
        self.seq = seq
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.meta = meta
        self.multi = multi
        #: the op kept whole it ran inside, and that op's stack trace
        self.whole = whole
        self.node: Any = None
        #: the _Inner arguments this op writes to (an in-place op): emitting it changes their entries' values
        self.writes = writes


#: argument types that are never containers nor tensors (passed as they are)
_ATOMS = frozenset({int, float, bool, complex, str, type(None)})

def _argument(func: Any, args: tuple, kwargs: dict, name: str) -> tuple[bool, Any]:
    """(found, value) of the schema argument ``name`` in a recorded call (positional, keyword or its default)."""
    if name in kwargs:
        return True, kwargs[name]
    schema = getattr(func, "_schema", None)
    for i, a in enumerate(schema.arguments if schema is not None else ()):
        if a.name == name:
            if i < len(args) and not a.kwarg_only:
                return True, args[i]
            return a.has_default, a.default
    return False, None


def _draws_random(func: Any, args: tuple, kwargs: dict) -> bool:
    """Does this *call* draw random numbers? torch tags an op ``nondeterministic_seeded`` when some of its calls
    do; an argument may turn that off: ``dropout_p=0`` (``_scaled_dot_product_flash_attention_for_cpu``, whose
    logsumexp autograd saves), ``train=False`` (``native_dropout``)."""
    if "nondeterministic_seeded" not in func.tags:
        return False
    found, p = _argument(func, args, kwargs, "dropout_p")
    if found and p == 0:
        return False
    found, train = _argument(func, args, kwargs, "train")
    return not (found and train is False)


def _batch_norm_without_stats_update(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``native_batch_norm`` in training updates ``running_mean`` / ``running_var`` in place (its schema does not
    mark it); its outputs (output, save_mean, save_invstd) come from the batch alone, so it is recomputed with
    the running statistics left out: the same values, and the statistics are not updated a second time."""
    training = args[5] if len(args) > 5 else kwargs.get("training")
    if not training:
        return args, kwargs  # (evaluation: the statistics are read, not written)
    args = tuple(None if i in (3, 4) else a for i, a in enumerate(args))
    kwargs = {k: None if k in ("running_mean", "running_var") else v for k, v in kwargs.items()}
    return args, kwargs


#: ops writing to arguments their schema does not mark -> the same call without those writes (used to recompute)
_WITHOUT_UNANNOTATED_WRITES: dict[str, Any] = {"aten.native_batch_norm.default": _batch_norm_without_stats_update}

#: op -> positions (args) and names (kwargs) of the arguments its schema writes to (``Tensor(a!)``)
_WRITES: dict[Any, tuple[frozenset, frozenset]] = {}


def _written(func: Any) -> tuple[frozenset, frozenset]:
    w = _WRITES.get(func)
    if w is None:
        schema = getattr(func, "_schema", None)
        arguments = schema.arguments if schema is not None else []
        positions = frozenset(i for i, a in enumerate(arguments) if a.is_write and not a.kwarg_only)
        names = frozenset(a.name for a in arguments if a.is_write)
        w = _WRITES[func] = (positions, names)
    return w


def _geometry(t: Tensor) -> tuple:
    return (t._shape, t._stride, t._storage_offset, t._dtype.itemsize)


def _elements(geometry: tuple) -> Any:
    """The byte offsets into the storage of the elements a tensor of this geometry reads (a set)."""
    shape, stride, offset, size = geometry
    if 0 in shape:
        return set()
    idx = np.full((), offset, dtype=np.int64)
    for n, st in zip(shape, stride, strict=True):
        idx = np.add.outer(idx, np.arange(n, dtype=np.int64) * st)
    return set((idx.ravel() * size).tolist())


def _span(geometry: tuple) -> tuple[int, int]:
    """[first, last) byte offsets spanned (empty for no element)."""
    shape, stride, offset, size = geometry
    if 0 in shape:
        return (0, 0)
    lo = offset + sum((n - 1) * st for n, st in zip(shape, stride, strict=True) if st < 0)
    hi = offset + sum((n - 1) * st for n, st in zip(shape, stride, strict=True) if st > 0) + 1
    return (lo * size, hi * size)


def _overlap(a: tuple, b: tuple) -> bool:
    """Do two tensors on one storage share an element (``unsafe_split``'s chunks do not)?"""
    if a == b:
        return True
    lo_a, hi_a, lo_b, hi_b = *_span(a), *_span(b)
    if hi_a <= lo_b or hi_b <= lo_a:
        return False
    ea, eb = _elements(a), _elements(b)
    return not ea.isdisjoint(eb)


class SavedInside:
    """What ran inside the ops kept whole of one pre-dispatch trace, and the nodes recomputing it."""

    def __init__(self, tracer: Any) -> None:
        self.tracer = tracer
        #: _alias_key(output) -> (its version counter, version after the op, entry, output index)
        self.by_key: dict[tuple, tuple[Any, int, _Entry, int | None]] = {}
        self._seq = 0
        #: keys of outputs of the last op if it wrote to its arguments: the version counter is bumped above the
        #: recorder (ADInplaceOrView), after the op returns, so their version is read at the next op or at exit
        self._pending: list[tuple] = []
        #: id(storage) -> (the storage, [(entry, output index)] of the recorded outputs on it): a write through
        #: one of them (``unsafe_split``'s chunks, whose version counters are their own) changes the others
        self.by_storage: dict[int, tuple[Any, list[tuple[_Entry, int | None, tuple]]]] = {}

    # --- recording -----------------------------------------------------------------------------
    def _lookup(self, t: Any) -> tuple[_Entry, int | None] | None:
        hit = self.by_key.get(_alias_key(t))
        if hit is None:
            return None
        counter, version, entry, index = hit
        if counter is not t._version_counter or counter.version != version:
            return None  # the memory was written since: no longer that op's value
        return entry, index

    def _ref(self, a: Any) -> Any:
        """``a`` with each tensor replaced by an _Inner / _Outer reference."""
        if isinstance(a, Tensor):
            # a traced tensor (the whole op's inputs, its outputs once tracked) is read from its node; only what
            # the tracer does not know is an inner value to recompute
            tracer = self.tracer
            node = tracer.tensor_tracker.get(a)
            if node is None and tracer.alias_index is not None:
                node = tracer._alias_of(a)
            if node is None:
                hit = self._lookup(a)
                if hit is not None:
                    return _Inner(*hit)
            counter = a._version_counter
            return _Outer(counter, counter.version, node, a if node is None else None)
        if isinstance(a, (list, tuple)):
            return type(a)(self._ref(e) for e in a)
        if isinstance(a, dict):
            return {k: self._ref(v) for k, v in a.items()}
        return a

    def settle(self) -> None:
        """Read the versions of what the last op wrote to, now that they have been bumped."""
        for key in self._pending:
            counter, _, entry, index = self.by_key[key]
            self.by_key[key] = (counter, counter.version, entry, index)
        self._pending.clear()

    def record(self, func: Any, args: tuple, kwargs: dict, whole: _Whole) -> Any:
        """Run ``func`` (below the recorder) and store it as an entry."""
        if self._pending:
            self.settle()
        ref = self._ref
        ref_args = tuple([a if a.__class__ in _ATOMS else ref(a) for a in args])
        ref_kwargs = {k: v if v.__class__ in _ATOMS else ref(v) for k, v in kwargs.items()} if kwargs else {}
        out = func(*args, **kwargs)
        multi = isinstance(out, (tuple, list))
        if not multi and not isinstance(out, Tensor):
            return out
        if str(func) in _WITHOUT_UNANNOTATED_WRITES:
            ref_args, ref_kwargs = _WITHOUT_UNANNOTATED_WRITES[str(func)](ref_args, ref_kwargs)
        positions, names = _WRITES.get(func) or _written(func)
        writes = ()
        if positions or names:
            writes = tuple(r for i, r in enumerate(ref_args) if i in positions and isinstance(r, _Inner))
            writes += tuple(r for k, r in ref_kwargs.items() if k in names and isinstance(r, _Inner))
            written = [a for i, a in enumerate(args) if i in positions and isinstance(a, Tensor)]
            written += [a for k, a in kwargs.items() if k in names and isinstance(a, Tensor)]
            seen = {(id(r.entry), r.index) for r in writes}
            for t in written:
                shared = self.by_storage.get(id(t._storage)) if t._storage is not None else None
                for e, i, geometry in shared[1] if shared is not None else ():
                    if (id(e), i) not in seen and _overlap(geometry, _geometry(t)):
                        seen.add((id(e), i))
                        writes += (_Inner(e, i),)
        self._seq += 1
        entry = _Entry(self._seq, func, ref_args, ref_kwargs, self.tracer.meta_val(out), multi, whole, writes)
        for index, t in (enumerate(out) if multi else ((None, out),)):
            if isinstance(t, Tensor):
                counter = t._version_counter
                key = _alias_key(t)
                self.by_key[key] = (counter, counter.version, entry, index)
                storage = t._storage
                if storage is not None:
                    self.by_storage.setdefault(id(storage), (storage, []))[1].append((entry, index, _geometry(t)))
                if positions or names:
                    self._pending.append(key)
        return out

    # --- recomputation -------------------------------------------------------------------------
    def node_for(self, t: Any) -> Any:
        """The node recomputing ``t`` if it is (an alias of) an output recorded inside a whole op, else None."""
        hit = self._lookup(t)
        if hit is None:
            return None
        entry, index = hit
        needed: dict[int, _Entry] = {}
        if not self._collect(entry, needed, index):
            return None
        for e in sorted(needed.values(), key=lambda e: e.seq):  # the order they ran in (in-place ops included)
            self._emit(e)
        return entry.node[index] if entry.multi else entry.node

    def _collect(self, entry: _Entry, needed: dict[int, _Entry], index: int | None = None) -> bool:
        """Gather the entries not yet emitted that output ``index`` of ``entry`` depends on; False if an outside
        input changed."""
        if entry.seq in needed:
            return True
        node = entry.node
        if node is not None and (not entry.multi or index is None or node[index] is not None):
            return True
        if _draws_random(entry.func, entry.args, entry.kwargs):
            return False  # a new draw would not give the value autograd saved (dropout's mask): left baked
        needed[entry.seq] = entry
        stack = [entry.args, entry.kwargs]
        while stack:
            a = stack.pop()
            if isinstance(a, _Inner):
                if not self._collect(a.entry, needed, a.index):
                    return False
            elif isinstance(a, _Outer):
                if a.counter.version != a.version:
                    return False  # written since the op ran: its node no longer holds the value used
            elif isinstance(a, (list, tuple)):
                stack.extend(a)
            elif isinstance(a, dict):
                stack.extend(a.values())
        return True

    def _arg(self, a: Any) -> Any:
        if isinstance(a, _Inner):
            node = a.entry.node
            return node[a.index] if a.entry.multi else node
        if isinstance(a, _Outer):
            return a.node if a.node is not None else self.tracer.to_arg(a.tensor)
        if isinstance(a, (list, tuple)):
            return type(a)(self._arg(e) for e in a)
        if isinstance(a, dict):
            return {k: self._arg(v) for k, v in a.items()}
        return a

    def _emit(self, entry: _Entry) -> None:
        graph = self.tracer.graph
        args = tuple(self._arg(a) for a in entry.args)
        kwargs = {k: self._arg(v) for k, v in entry.kwargs.items()}
        whole = entry.whole
        name = str(whole.func)
        node = graph.create_node("call_function", entry.func, args, kwargs)
        node.meta["val"] = entry.meta
        node.meta["saved_inside"] = name
        if whole.trace is not None:
            node.meta["stack_trace"] = whole.trace
        if entry.multi:
            items = []
            for i, val in enumerate(entry.meta):
                item = graph.create_node("call_function", operator.getitem, (node, i))
                item.meta["val"] = val
                item.meta["saved_inside"] = name
                if whole.trace is not None:
                    item.meta["stack_trace"] = whole.trace
                items.append(item)
            node = items
        # an in-place op changes the value behind the nodes of what it wrote to: a later use of their former
        # value recomputes it (only the output written: ``unsafe_split``'s other chunks keep their nodes)
        for w in entry.writes:
            if w.entry is entry or w.entry.node is None:
                continue
            if w.entry.multi and w.index is not None:
                items = list(w.entry.node)
                items[w.index] = None
                w.entry.node = items
            else:
                w.entry.node = None
        entry.node = node


class InsideRecorder(TorchDispatchMode):
    """Records every op that runs while an op kept whole runs below the pre-dispatch mode (module docstring).

    Invisible to at::isTensorSubclassLike's mode test (``dispatch_mode_enabled``): in PyTorch no mode is active
    there, so decompositions take their in-place paths (``attn.add_(mask)``), and so must they here."""

    _invisible_to_subclass_checks = True

    def __init__(self, store: SavedInside, whole: _Whole) -> None:
        super().__init__()
        self.store = store
        self.whole = whole

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        return self.store.record(func, args, kwargs or {}, self.whole)

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self.store.settle()


def should_record(args: tuple, kwargs: dict) -> bool:
    """Can tensors made inside this op be saved by autograd: grad on and some tensor input requiring grad?

    Not while a user's mode is on the Python-key stack: the recorder would sit above it and store the ops as
    issued, not as that mode ran them (it may replace them); such saved tensors stay constants, as in PyTorch.
    """
    s = per_thread.s
    if not s.grad_enabled:
        return False
    for m in s.dispatch_mode_stack:
        if getattr(m, "_mode_key", None) is None:
            return False
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            if a.requires_grad:
                return True
        elif isinstance(a, (list, tuple)):
            if any(isinstance(e, Tensor) and e.requires_grad for e in a):
                return True
    return False


def recording(tracer: Any, func: Any, trace: str | None) -> InsideRecorder:
    """The recorder to enter around ``func``, an op kept whole issued at ``trace`` (the tracer's store is made on
    first use)."""
    store = tracer.saved_inside
    if store is None:
        store = tracer.saved_inside = SavedInside(tracer)
    return InsideRecorder(store, _Whole(func, trace))
