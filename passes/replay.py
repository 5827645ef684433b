"""``replay(gm, *args, check_against=fn)``: run a captured graph eagerly, optionally op by op against ``fn``.

Without ``check_against`` this is ``Interpreter(gm).run(*args)``. With a reference function, the
reference runs first, on copies of the inputs (same values, same ``requires_grad``, same random
state), under a recording ``TorchDispatchMode`` that keeps every op with a copy of its outputs: on
the pre-dispatch stack for a pre-dispatch graph (the ops ``make_fx(pre_dispatch=True)`` records), on
the Python key for a post-dispatch graph (CompositeImplicitAutograd ops that reach it are decomposed,
as make_fx does). The level is guessed from the graph (below); when the graph's ``OpOverload`` nodes
do not equal the recorded op sequence, the reference runs again at the other level and that one is
used if it matches. (Two recorders cannot share one run: a Python-key mode being active changes what
autograd does below the pre-dispatch stack.) ``lift_fresh`` is recorded by make_fx as
``lift_fresh_copy``, and data-dependent reads such as ``.item()`` of constants never become nodes, so
both are accounted for, and so are the nodes of a pre-dispatch graph recomputing what autograd saved inside
an op kept whole (``meta["saved_inside"]``: the reference ran them below its recorder). The graph then runs through an Interpreter that copies every op's outputs,
and the two are compared in order.

The first node whose value differs (or where the sequences diverge) raises ``ReplayMismatch``, an
``AssertionError`` naming the op, the node, the largest absolute difference and the user source line
from ``meta["stack_trace"]``. The final outputs are compared too.

A post-dispatch graph already holds autograd's work (its backward ops, ``detach`` calls), so it is
replayed on detached inputs (aliases of the caller's tensors: in-place updates still reach them); a
pre-dispatch graph replays under eager autograd on the inputs as given. The guess: a graph holding a
``_set_grad_enabled`` node or a CompositeImplicitAutograd op (such ops never survive post-dispatch
tracing) is pre-dispatch, any other is post-dispatch unless only the pre-dispatch recording matches;
``pre_dispatch=`` overrides it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from dispatcher.autograd.grad_mode import _set_grad_enabled
from dispatcher.keys import DispatchKey
from dispatcher.modes.dispatch_mode import TorchDispatchMode, _pop_mode, _push_mode
from dispatcher.op_overload import OpOverload
from dispatcher.random import get_rng_state, set_rng_state
from dispatcher.tensor import Tensor
from dispatcher.tls import EnablePreDispatch, EnablePythonDispatcher
from tracer import GraphModule, Node, pytree

from .interpreter import Interpreter

__all__ = ["ReplayMismatch", "replay"]


class ReplayMismatch(AssertionError):
    """A replayed graph disagrees with its reference function.

    Attributes: ``node`` (the graph node, or None for a final output), ``target`` (its op),
    ``reference_target`` (the op the reference ran at that position), ``max_abs_diff`` (None when
    shapes differ or the sequences diverged without comparable values), ``source_line`` (the user
    line that issued the op, or None).
    """

    def __init__(self, message: str, *, node: Node | None = None, target: Any = None, reference_target: Any = None,
                 max_abs_diff: float | None = None, source_line: str | None = None) -> None:
        super().__init__(message)
        self.node = node
        self.target = target
        self.reference_target = reference_target
        self.max_abs_diff = max_abs_diff
        self.source_line = source_line


# --- snapshots: copies of values at the moment an op produced them ----------------------------------------------

def _snapshot(value: Any) -> Any:
    """A NumPy copy of each tensor in ``value`` (None for tensors without data, e.g. fakes)."""
    if isinstance(value, Tensor):
        data = value._data
        return None if data is None else np.array(data, copy=True)
    if isinstance(value, (list, tuple)):
        return [_snapshot(v) for v in value]
    return value


#: ops whose result is uninitialized memory: their values are never compared
_UNINITIALIZED = frozenset({"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty",
                            "aten::new_empty_strided"})


def _compare(got: Any, expected: Any, rtol: float, atol: float) -> tuple[bool, float | None, str]:
    """(equal?, max abs difference or None, what differs) for two snapshots."""
    if isinstance(got, np.ndarray) or isinstance(expected, np.ndarray):
        if not (isinstance(got, np.ndarray) and isinstance(expected, np.ndarray)):
            return False, None, f"a tensor vs {type(expected if isinstance(got, np.ndarray) else got).__name__}"
        if got.shape != expected.shape:
            return False, None, f"shape {list(got.shape)} vs {list(expected.shape)}"
        if got.size == 0:
            return True, 0.0, ""
        kind = np.complex128 if np.iscomplexobj(got) or np.iscomplexobj(expected) else np.float64
        a, b = np.atleast_1d(got.astype(kind)), np.atleast_1d(expected.astype(kind))
        with np.errstate(invalid="ignore", over="ignore"):
            abs_diff = np.abs(a - b)
            abs_diff[a == b] = 0.0  # equal infinities
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            abs_diff[nan_a & nan_b] = 0.0  # NaN where the reference has NaN counts as equal
            nan_mismatch = bool((nan_a ^ nan_b).any())
            tol = atol + rtol * np.abs(np.where(nan_b, 0.0, b))
            ok = not nan_mismatch and bool(np.all(abs_diff <= tol))
        biggest = float("nan") if nan_mismatch else float(abs_diff.max())
        return ok, biggest, "" if ok else f"max abs difference {biggest:.6g}"
    if isinstance(got, list) and isinstance(expected, list):
        if len(got) != len(expected):
            return False, None, f"{len(got)} outputs vs {len(expected)}"
        worst: float | None = 0.0
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            ok, diff, what = _compare(g, e, rtol, atol)
            if not ok:
                return False, diff, f"output {i}: {what}"
            if diff is not None and worst is not None:
                worst = max(worst, diff)
        return True, worst, ""
    if got is None or expected is None:  # a tensor without data (fake) or an op returning None
        return True, None, ""
    if isinstance(got, float) and isinstance(expected, float):
        ok = bool(abs(got - expected) <= atol + rtol * abs(expected)) or (got != got and expected != expected)
        return ok, abs(got - expected), "" if ok else f"{got!r} vs {expected!r}"
    return got == expected, None, "" if got == expected else f"{got!r} vs {expected!r}"


# --- recording the reference -----------------------------------------------------------------------------------

class _OpRecorder(TorchDispatchMode):
    """Records ``(op, snapshot of its outputs)`` for every op reaching it (pre-dispatch or on the Python key)."""

    def __init__(self, pre_dispatch: bool) -> None:
        super().__init__(DispatchKey.PreDispatch if pre_dispatch else None)
        self.pre_dispatch = pre_dispatch
        self.records: list[tuple[OpOverload, Any]] = []

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        if not self.pre_dispatch and func.name() not in _NO_DECOMPOSE:
            with self:  # a CIA op reaching the Python key (autograd skipped): make_fx records its decomposition
                r = func.decompose(*args, **kwargs)
            if r is not NotImplemented:
                return r
        out = func(*args, **kwargs)
        self.records.append((func, _snapshot(out)))
        return out


_NO_DECOMPOSE = frozenset({"aten::size", "aten::stride", "aten::storage_offset"})


def _copy_input(a: Any) -> Any:
    """A tensor with ``a``'s values in new memory and ``a``'s ``requires_grad``; other values as they are."""
    if isinstance(a, Tensor) and a._data is not None:
        c = a.detach().clone()
        return c.requires_grad_() if a.requires_grad else c
    return a


def _record_reference(fn: Callable[..., Any], args: list, pre_dispatch: bool) -> tuple[Any, list]:
    """Run ``fn`` on copies of ``args`` under one recorder: (its result, snapshotted; the records).

    One level per run: a Python-key mode being active changes what autograd does below the
    pre-dispatch stack (saved tensors are then detached through the dispatcher), so the two
    recorders must not be stacked.
    """
    recorder = _OpRecorder(pre_dispatch)
    ref_args = pytree.tree_map(_copy_input, list(args))
    with contextlib.ExitStack() as stack:
        if pre_dispatch:
            stack.enter_context(EnablePythonDispatcher())
            stack.enter_context(EnablePreDispatch())
            _push_mode(recorder)
            stack.callback(_pop_mode, DispatchKey.PreDispatch)
        else:
            stack.enter_context(recorder)
        result = fn(*ref_args)
        result = _snapshot_tree(result)  # before the modes exit: nothing else may touch the values
    return result, _reference_ops(recorder.records)


def _snapshot_tree(tree: Any) -> Any:
    return pytree.tree_map(lambda v: _snapshot(v) if isinstance(v, Tensor) else v, tree)


# --- alignment --------------------------------------------------------------------------------------------------

def _normalized(op: Any) -> str:
    name = op.name() if isinstance(op, OpOverload) else str(op)
    return "aten::lift_fresh_copy" if name == "aten::lift_fresh" else name


def _reference_ops(records: list) -> list[tuple[OpOverload, Any]]:
    """The records a graph can hold: data-dependent reads (``item`` of a constant) never become nodes."""
    return [(op, snap) for op, snap in records if "data_dependent_output" not in op.tags]


def _graph_ops(gm: GraphModule) -> list[Node]:
    # (nodes recomputing a tensor autograd saved inside an op kept whole, tracer/saved_inside.py, redo work the
    # reference did below the pre-dispatch stack, which its recorder never sees: not compared)
    return [n for n in gm.graph.nodes
            if n.op == "call_function" and isinstance(n.target, OpOverload) and "saved_inside" not in n.meta]


def _same_sequence(nodes: list[Node], records: list) -> bool:
    return len(nodes) == len(records) and all(
        _normalized(n.target) == _normalized(op) for n, (op, _) in zip(nodes, records, strict=True))


def looks_pre_dispatch(gm: GraphModule) -> bool:
    """A ``_set_grad_enabled`` node or a CompositeImplicitAutograd op: only pre-dispatch graphs have them."""
    for n in gm.graph.nodes:
        if n.op != "call_function":
            continue
        if n.target is _set_grad_enabled:
            return True
        if isinstance(n.target, OpOverload) and n.target.name() not in _NO_DECOMPOSE and (
                DispatchKey.CompositeImplicitAutograd in n.target.kernels
                or DispatchKey.CompositeImplicitAutograd in n.target.py_kernels):
            return True
    return False


_FRAME_RE = re.compile(r'^\s*File "(.+)", line (\d+), in (.+)$')


def _source_line(node: Node) -> str | None:
    """``file:line in fn: code`` of the innermost user frame in ``meta["stack_trace"]``."""
    trace = node.meta.get("stack_trace")
    if not isinstance(trace, str):
        return None
    lines = trace.rstrip().split("\n")
    for i in range(len(lines) - 1, -1, -1):
        m = _FRAME_RE.match(lines[i])
        if m:
            code = lines[i + 1].strip() if i + 1 < len(lines) and not _FRAME_RE.match(lines[i + 1]) else ""
            return f"{m.group(1)}:{m.group(2)} in {m.group(3)}" + (f": {code}" if code else "")
    return None


class _SnapshotInterpreter(Interpreter):
    """Runs the graph and keeps a copy of every OpOverload node's outputs at the moment it ran."""

    def __init__(self, gm: GraphModule) -> None:
        super().__init__(gm)
        self.snapshots: dict[Node, Any] = {}

    def run_node(self, n: Node) -> Any:
        value = super().run_node(n)
        if n.op == "call_function" and isinstance(n.target, OpOverload):
            self.snapshots[n] = _snapshot(value)
        return value


def _mismatch(node: Node, what: str, *, reference_target: Any = None, max_abs_diff: float | None = None,
              position: int | None = None, total: int = 0) -> ReplayMismatch:
    line = _source_line(node)
    where = f" (op {position + 1} of {total})" if position is not None else ""
    msg = f"replay differs from the reference at node {node.name}{where}: {node.target}: {what}"
    if line:
        msg += f"\n  user code: {line}"
    msg += f"\n  node: {node.format_node()}"
    return ReplayMismatch(msg, node=node, target=node.target, reference_target=reference_target,
                          max_abs_diff=max_abs_diff, source_line=line)


def _check(nodes: list[Node], snapshots: dict[Node, Any], records: list, rtol: float, atol: float) -> None:
    """Raise ReplayMismatch at the first node whose value differs or where the op sequences diverge."""
    for i, node in enumerate(nodes):
        if i >= len(records):
            raise _mismatch(node, f"the reference ran only {len(records)} ops; the graph runs more "
                            f"(from here: {', '.join(str(n.target) for n in nodes[i:i + 5])}...)",
                            position=i, total=len(nodes))
        op, expected = records[i]
        got = snapshots.get(node)
        if _normalized(op) != _normalized(node.target):
            ok, diff, what = _compare(got, expected, rtol, atol)
            values = f"; values: {what or 'equal'}" if diff is not None or what else ""
            raise _mismatch(node, f"the op sequences diverge here: the graph calls {node.target}, the reference "
                            f"called {op}{values}", reference_target=op, max_abs_diff=diff, position=i,
                            total=len(nodes))
        if node.target.name() in _UNINITIALIZED:
            continue
        ok, diff, what = _compare(got, expected, rtol, atol)
        if not ok:
            raise _mismatch(node, what, reference_target=op, max_abs_diff=diff, position=i, total=len(nodes))
    if len(records) > len(nodes):
        extra = ", ".join(str(op) for op, _ in records[len(nodes):len(nodes) + 5])
        last = nodes[-1] if nodes else None
        msg = (f"the reference ran {len(records) - len(nodes)} more ops than the graph holds "
               f"(after the graph's last op: {extra}...)")
        if last is None:
            raise ReplayMismatch(msg)
        raise _mismatch(last, msg, reference_target=records[len(nodes)][0], position=len(nodes) - 1,
                        total=len(nodes))


def replay(gm: GraphModule, *args: Any, check_against: Callable[..., Any] | None = None, rtol: float = 1e-5,
           atol: float = 1e-6, pre_dispatch: bool | None = None) -> Any:
    """Run ``gm`` eagerly on ``args`` and return its result (see the module docstring).

    With ``check_against`` (the function the graph was traced from, or any function issuing the same
    ops), also run it on copies of ``args`` and raise ``ReplayMismatch`` at the first op whose value
    differs beyond ``rtol`` / ``atol`` (as ``numpy.allclose``), where the op sequences diverge, or when
    the final outputs differ. ``pre_dispatch`` says at which level the graph was captured (default:
    the level whose op sequence the graph matches).
    """
    if not isinstance(gm, GraphModule):
        raise TypeError(f"replay: expected a GraphModule, got {type(gm).__name__}")
    if check_against is None:
        return Interpreter(gm).run(*args)
    if not callable(check_against):
        raise TypeError(f"replay: check_against must be a callable (the reference function), got "
                        f"{type(check_against).__name__}")
    rng = get_rng_state()
    nodes = _graph_ops(gm)
    level = looks_pre_dispatch(gm) if pre_dispatch is None else pre_dispatch
    expected_out, records = _record_reference(check_against, list(args), level)
    if pre_dispatch is None and not _same_sequence(nodes, records):
        set_rng_state(rng)
        other_out, other_records = _record_reference(check_against, list(args), not level)
        if _same_sequence(nodes, other_records):
            level, expected_out, records = not level, other_out, other_records
    pre_dispatch = level
    graph_args = list(args) if pre_dispatch else pytree.tree_map(
        lambda a: a.detach() if isinstance(a, Tensor) else a, list(args))
    set_rng_state(rng)  # the graph's random ops draw what the reference's drew
    interp = _SnapshotInterpreter(gm)
    result = interp.run(*graph_args)
    _check(nodes, interp.snapshots, records, rtol, atol)
    got_out = _snapshot_tree(result)
    got_leaves, expected_leaves = pytree.tree_leaves(got_out), pytree.tree_leaves(expected_out)
    if len(got_leaves) != len(expected_leaves):
        raise ReplayMismatch(f"replay: the graph returned {len(got_leaves)} values, the reference "
                             f"{len(expected_leaves)}")
    for i, (g, e) in enumerate(zip(got_leaves, expected_leaves, strict=True)):
        ok, diff, what = _compare(g, e, rtol, atol)
        if not ok:
            raise ReplayMismatch(f"replay: output {i} (in flattened order) differs from the reference: {what}",
                                 max_abs_diff=diff)
    return result
