"""The warm-call entry of ``tracer.compile``: one generated Python function per whole-call cache entry.

Dynamo turns a frame's guards into one check function (torch/_dynamo/guards.py, ``GuardManager``) that runs
before the cached code. Here, when ``CompiledFunction`` stores a whole-call fast entry (compile.py) for a call
with only positional arguments that are all leaves (tensors or immutable constants), ``make_hot_call`` writes
that entry's guard, the call of the compiled graph and the building of the result as one straight-line function
``hot(args) -> result | MISS``. A ``MISS`` sends the call down the generic path (pytree flattening, the hashed
guard key of compile.py), which is the authority: the hot function only answers when the generic path would hit
the same entry, so results never depend on which path ran.

What the generated guard checks (everything the generic key of ``CompiledFunction._guard_key`` encodes):

* no capture session and no ``disable``d call running on this thread, and the same grad mode (both read from
  the thread's dispatch state, ``dispatcher.tls``: ``capture_depth`` and ``grad_enabled``, one thread-local read);
* the same number of positional arguments and no keyword arguments;
* per tensor argument: the exact class ``Tensor`` (subclasses miss), shape, strides, dtype and
  ``requires_grad`` (own flag, or a view of a base that requires grad). Not the storage offset, as Dynamo's
  tensor guards: a compiled graph reads its inputs' elements wherever they start;
* per constant argument: the same type and an equal value (``1``, ``1.0`` and ``True`` differ);
* aliasing: hot functions are only made when every tensor argument was a distinct object with its own storage,
  and the guard checks that this still holds: the arguments' storages (``_flat``) are distinct objects, or, when
  some are not materialized yet (None: such a tensor has no views, it can only alias by being the same
  object), the generic comparison of storage-or-tensor ids finds no two equal.

The call of the compiled graph skips the grad-mode switch when the graph starts in the caller's grad mode, and
calls the backend's ``unchecked`` entry (numpy backend: the generated code without its own input checks) when
the guard above already proves what that entry assumes. A hit is one plain increment (no lock) of the compiled
function's ``hot_hits``, which ``stats()`` and, summed over compiled functions, ``compile_stats()`` add to
``hits`` and ``whole_call_hits``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dispatcher.tensor import Tensor
from dispatcher.tls import per_thread

from . import pytree

__all__ = ["MISS", "make_hot_call"]

MISS = object()  #: what a hot function returns when its guard fails
_PAIRWISE = 6  # up to this many tensor arguments, storages are compared pair by pair


def _as_tuple(out: Any) -> Any:
    return (out,) if isinstance(out, Tensor) else out


def _shares_storage(tensors: tuple) -> bool:
    """Do two of ``tensors`` share a storage (or are the same object)?"""
    return len({id(t) if t._flat is None else id(t._flat) for t in tensors}) != len(tensors)


def make_hot_call(guard: tuple, args: tuple, input_map: list[int], out_leaves: list[tuple], out_spec: Any,
                  grad0: bool, entry: Any, stats: Any) -> Callable[[tuple], Any] | None:
    """The generated warm-call function of one fast entry, or None when the call's shape does not allow one.

    ``guard`` is the generic key (spec, grad mode, one part per flat argument) computed for ``args`` before the
    call that stored the entry; ``input_map``, ``out_leaves``, ``out_spec`` and ``grad0`` are the entry's (see
    compile.py ``_FastEntry``); ``stats`` is the compiled function's stats object, whose ``hot_hits`` counts each
    hot call (compile_cache.STATS adds those up for ``compile_stats()``).
    """
    parts = guard[2:]
    if len(parts) != len(args):
        return None
    grad_mode = guard[1]
    env: dict[str, Any] = {"_MISS": MISS, "_Tensor": Tensor, "_pt": per_thread,
                           "_as_tuple": _as_tuple, "_shares_storage": _shares_storage}
    params = [f"a{i}" for i in range(len(args))]
    lines = ["def hot(args):"]
    if params:
        lines += ["    try:", f"        {', '.join(params)}{',' if len(params) == 1 else ''} = args",
                  "    except ValueError:", "        return _MISS"]
    else:
        lines += ["    if args:", "        return _MISS"]
    # one read of the thread's dispatch state: no capture session or disable()d call running, the same grad mode
    lines += ["    s = _pt.s",
              f"    if s.capture_depth or {'not ' if grad_mode else ''}s.grad_enabled:", "        return _MISS"]
    tensors: list[int] = []
    metas: dict[int, tuple] = {}
    for i, part in enumerate(parts):
        a = f"a{i}"
        if part[0] == "T":
            _, shape, stride, dtype, requires_grad, first, storage_first = part
            if first != i or storage_first != i:
                return None  # an argument aliases another: the generic key handles that pattern
            tensors.append(i)
            metas[i] = (shape, stride, dtype, requires_grad)
            env[f"_d{i}"] = dtype
            # requires_grad: own flag, or a view of a base that requires grad. Both fields are class defaults
            # (False, None) that a tensor overrides in its __dict__: an empty __dict__ answers "no" at once.
            rg = f"{a}._requires_grad or {a}._base is not None and {a}._base._requires_grad"
            rg = f"not ({rg})" if requires_grad else f"{a}.__dict__ and ({rg})"
            lines.append(f"    if ({a}.__class__ is not _Tensor or {a}._shape != {_ints(shape)} or "
                         f"{a}._stride != {_ints(stride)} or {a}._dtype is not _d{i} or {rg}):")
            lines.append("        return _MISS")
        else:
            cls, value = part
            env[f"_t{i}"], env[f"_c{i}"] = cls, value
            lines.append(f"    if {a}.__class__ is not _t{i} or {a} != _c{i}:")
            lines.append("        return _MISS")
    if len(tensors) > 1:
        tup = ", ".join(f"a{i}" for i in tensors)
        if len(tensors) <= _PAIRWISE:  # a few `is` tests are cheaper than building a set of ids
            lines += [f"    f{i} = a{i}._flat" for i in tensors]
            pairs = " or ".join(f"f{i} is f{j}" for n, i in enumerate(tensors) for j in tensors[n + 1:])
            lines += [f"    if ({pairs}) and _shares_storage(({tup},)):", "        return _MISS"]
        else:
            flats = ", ".join(f"id(a{i}._flat)" for i in tensors)
            lines += [f"    if len({{{flats}}}) != {len(tensors)} and _shares_storage(({tup},)):",
                      "        return _MISS"]
    env["_stats"] = stats
    lines.append("    _stats.hot_hits += 1")
    env["_fn"] = _callee(entry.fn, [metas.get(j) for j in input_map])
    call = f"_fn({', '.join(f'a{j}' for j in input_map)})"
    if bool(grad0) == bool(grad_mode):
        lines.append(f"    out = {call}")
    else:  # the graph starts in another grad mode (fn entered no_grad() first): switch, restore on exceptions
        lines += [f"    s.grad_enabled = {bool(grad0)}", "    try:", f"        out = {call}",
                  "    finally:", f"        s.grad_enabled = {bool(grad_mode)}"]
    lines.append("    if out.__class__ is not tuple:")
    lines.append("        out = _as_tuple(out)")
    lines.append(f"    return {_result_text(out_leaves, out_spec, env)}")
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<tracer.compile warm call>", "exec"), env)
    hot = env["hot"]
    hot.code = source
    return hot


def _ints(values: tuple) -> str:
    return repr(tuple(int(v) for v in values))


def _callee(fn: Any, metas: list[tuple | None]) -> Any:
    """``fn.unchecked`` when the guard proves what it assumes (exact Tensors, these shapes / strides / dtypes,
    no input requiring grad), else ``fn`` itself."""
    unchecked = getattr(fn, "unchecked", None)
    expected = getattr(fn, "unchecked_metas", None)
    if unchecked is None or expected is None or len(expected) != len(metas):
        return fn
    for m, e in zip(metas, expected, strict=True):
        if m is None or m[3] or (tuple(m[0]), tuple(m[1]), m[2]) != (tuple(e[0]), tuple(e[1]), e[2]):
            return fn
    return unchecked


def _result_text(out_leaves: list[tuple], out_spec: Any, env: dict[str, Any]) -> str:
    """The expression rebuilding the call's result from ``out`` (the graph's outputs) and the arguments."""
    texts = []
    for n, (kind, v) in enumerate(out_leaves):
        if kind == "out":
            texts.append(f"out[{int(v)}]")
        elif kind == "arg":
            texts.append(f"a{int(v)}")
        else:
            env[f"_k{n}"] = v
            texts.append(f"_k{n}")
    it = iter(texts)

    def build(spec: Any) -> str | None:
        if spec.type is None:
            return next(it)
        if spec.type is tuple or spec.type is list:
            inner = [build(c) for c in spec.children()]
            if any(t is None for t in inner):
                return None
            if spec.type is list:
                return f"[{', '.join(inner)}]"
            return f"({', '.join(inner)}{',' if len(inner) == 1 else ''})"
        return None

    text = build(out_spec)
    if text is not None:
        return text
    env["_unflatten"], env["_out_spec"] = pytree.tree_unflatten, out_spec
    return f"_unflatten([{', '.join(texts)}], _out_spec)"
