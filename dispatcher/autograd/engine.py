"""The autograd engine: run the backward graph from some outputs to the leaves.

Corresponds to torch/csrc/autograd/engine.cpp (single-threaded CPU path). The
engine counts, for every node reachable from the roots, how many edges point at
it; a node is *ready* when all of its gradients have arrived. Among ready
nodes, the one with the highest sequence number (the most recently created)
runs first, exactly PyTorch's ordering, and AccumulateGrad nodes run as soon as
they are ready. Right after a node runs, all the gradients it returned are fitted
to their inputs (``validate_outputs``: summed to the input's shape, converted to
its dtype), and only then added into the input buffers one by one. Gradients
arriving at the same input are summed through the
dispatcher (so a trace records it): with ``add_`` into the first one when nothing
else can see it, else ``add`` (``_accumulate``, PyTorch's rule). ``autograd.grad`` captures the
gradients of its inputs instead of accumulating into ``.grad``.
"""

from __future__ import annotations

import heapq
import itertools
import sys
from collections.abc import Sequence
from typing import Any

from ..aten_namespace import aten as _aten
from ..tensor import Tensor
from ..tls import per_thread
from .grad_mode import set_grad_enabled
from .graph import AccumulateGrad, Node, gradient_edge, graph_task_exec_info


def _dependencies(roots: Sequence[Node]) -> dict[Node, int]:
    deps: dict[Node, int] = {}
    seen = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
                if nxt not in seen:
                    stack.append(nxt)
    return deps


def _needed(roots: Sequence[Node], targets: set[Node]) -> set[Node]:
    """Nodes on some path from a root to a target (only those run when ``inputs`` restricts the work).

    An iterative post-order walk (a graph may be 100k nodes deep: no Python recursion)."""
    memo: dict[Node, bool] = {}
    for root in roots:
        if root in memo:
            continue
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, children_done = stack.pop()
            if children_done:  # every child is final: it was pushed above this entry
                memo[node] = node in targets or any(
                    memo.get(nxt, False) for nxt, _ in node.next_functions if nxt is not None)
                continue
            if node in memo:
                continue
            memo[node] = node in targets  # (provisional: marks the node visited)
            stack.append((node, True))
            stack.extend((nxt, False) for nxt, _ in node.next_functions if nxt is not None and nxt not in memo)
    return {n for n, ok in memo.items() if ok}


def sum_to(grad: Any, shape: tuple[int, ...]) -> Any:
    """Reduce a broadcast gradient to ``shape`` (ATen's ``sum_to``: sum(dims, keepdim=True), then view)."""
    sizes = grad._shape
    if tuple(sizes) == tuple(shape):
        return grad
    aten = _aten()
    if len(shape) == 0:
        return aten.sum.default(grad)
    leading = len(sizes) - len(shape)
    dims = list(range(leading)) + [
        i for i in range(leading, len(sizes)) if shape[i - leading] == 1 and sizes[i] != 1
    ]
    if dims:
        grad = aten.sum.dim_IntList(grad, dims, True)
    return aten.view.default(grad, list(shape)) if leading > 0 else grad


def _expected_shape(node: Node, nr: int) -> tuple[int, ...] | None:
    """The shape the gradient for input ``nr`` of ``node`` must have (its forward output's shape)."""
    if isinstance(node, AccumulateGrad):
        return tuple(node.variable._shape)
    meta = node.output_meta[nr] if nr < len(node.output_meta) else None
    return tuple(meta[0]) if meta is not None else None


def _expandable_to(shape: tuple[int, ...], desired: tuple[int, ...]) -> bool:
    """``at::is_expandable_to``: ``shape`` broadcasts to ``desired`` (validate_outputs' shape check)."""
    if len(shape) > len(desired):
        return False
    return all(s == 1 or s == d for s, d in zip(reversed(shape), reversed(desired)))


def _expected_dtype(node: Node, nr: int) -> Any:
    """The dtype the gradient for input ``nr`` of ``node`` must have (its forward output's dtype)."""
    if isinstance(node, AccumulateGrad):
        return node.variable._dtype
    meta = node.output_meta[nr] if nr < len(node.output_meta) else None
    return meta[1] if meta is not None else None


def _validate_output(node: Node, nr: int, grad: Any, source: Node | None = None, index: int = 0) -> Any:
    """One gradient bound for input ``nr`` of ``node``, made to fit it: a broadcast gradient is summed to the
    input's shape (``InputMetadata::maybe_reduce``), a gradient of another dtype is converted (``grad.to``)."""
    expected = _expected_shape(node, nr)
    if expected is not None and tuple(grad._shape) != expected:
        if source is not None and not _expandable_to(expected, tuple(grad._shape)):
            raise RuntimeError(
                f"Function {source.name()} returned an invalid gradient at index {index} - got "
                f"{list(grad._shape)} but expected shape compatible with {list(expected)}"
            )
        grad = sum_to(grad, expected)
    dtype = _expected_dtype(node, nr)
    if dtype is not None and grad._dtype is not dtype:
        grad = _aten().to.dtype(grad, dtype)
    return grad


def _validate_outputs(node: Node, grad_inputs: Any) -> Any:
    """engine.cpp's ``validate_outputs(fn.next_edges(), outputs)``: ``grad_inputs`` with each gradient made to fit.

    It runs on *all* of a node's gradients right after the node's ``apply`` (before its post hooks), and only then
    are they added into the input buffers one by one: so the ``sum`` reducing one input's broadcast gradient comes
    before the ``add`` accumulating another input's gradient with what was already buffered for it.
    """
    edges = node.next_functions
    fitted = None
    for i in range(min(len(edges), len(grad_inputs))):
        g = grad_inputs[i]
        nxt = edges[i][0]
        if g is not None and nxt is not None:
            new = _validate_output(nxt, edges[i][1], g, node, i)
            if new is not g:
                if fitted is None:
                    fitted = list(grad_inputs)
                fitted[i] = new
            del g, new
    if fitted is None:
        return grad_inputs
    return tuple(fitted) if isinstance(grad_inputs, tuple) else fitted


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return _aten().add.Tensor(a, b)


def _non_overlapping_and_dense(t: Any) -> bool:
    """Every element at its own offset, with no gaps (some permutation of the dims is row-major)."""
    if t._contiguous:
        return True
    expected = 1
    for size, stride in sorted(zip(t._shape, t._stride), key=lambda p: p[1]):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def _accumulate(old: Any, new: Any, grad_enabled: bool) -> Any:
    """Sum two gradients arriving at the same input (InputBuffer's ``accumulate``, input_buffer.cpp).

    Out of place (``add``) when grad mode is on (create_graph: the sum is differentiated too). Otherwise ``old``
    is updated in place (``add_``) when that cannot be observed: a plain tensor (no dispatch mode active, not a
    subclass, and ``new`` neither) with a non-overlapping dense layout, held by this buffer alone (its only
    references are the buffer and this call's names) and sharing its memory with nothing (``_storage_unique``). So a pre-dispatch trace records ``add_`` exactly where PyTorch's does.
    """
    if old is None:
        return new
    if new is None:
        return old
    if (not grad_enabled and type(old) is Tensor and type(new) is Tensor and not _decompositions().dispatch_mode_enabled()
            and old._base is None and sys.getrefcount(old) <= _OLD_REFS and _storage_unique(old)
            and _non_overlapping_and_dense(old)):
        return _aten().add_.Tensor(old, new)
    return _aten().add.Tensor(old, new)


_DECOMPOSITIONS: Any = None


def _decompositions() -> Any:
    """dispatcher.ops.composite (``dispatch_mode_enabled``: at::isTensorSubclassLike's mode test), imported on
    first use (at module level it would make an import cycle)."""
    global _DECOMPOSITIONS
    if _DECOMPOSITIONS is None:
        from ..ops import composite as decompositions

        _DECOMPOSITIONS = decompositions
    return _DECOMPOSITIONS


#: references to a buffered gradient nobody else holds, as sys.getrefcount counts them inside ``_accumulate``: the
#: buffer's slot, deliver's ``old``, the parameter and getrefcount's argument
_OLD_REFS = 4


def _storage_unique(t: Any) -> bool:
    """No other tensor uses ``t``'s memory (PyTorch: ``storage().use_count() == 1``). A view or a detached alias
    holds the same flat storage array (or a NumPy view of it, whose ``base`` is that array); a storage made lazily
    (``_flat`` None) has no such sharer yet."""
    flat = t._flat
    if flat is None:
        return True
    data = t._data
    own = 1 if data is not None and (data is flat or data.base is flat) else 0
    # references: t's slot, the local name, getrefcount's argument, and t's own array over it
    return sys.getrefcount(flat) <= 3 + own


def run_backward(
    outputs: Sequence[Any],
    grad_outputs: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Any] | None = None,
    allow_unused: bool = False,
    accumulate_grad: bool = True,
) -> tuple[Any, ...] | None:
    """Backpropagate ``grad_outputs`` from ``outputs``.

    accumulate_grad=True (``backward``): add into ``.grad`` of the leaves (only of
    ``inputs`` when given). accumulate_grad=False (``autograd.grad``): return the
    gradients of ``inputs``, touching no ``.grad``.
    """
    roots: list[tuple[Node, int]] = []
    for i, out in enumerate(outputs):
        node, nr = gradient_edge(out)
        if node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append((node, nr))

    capture: dict[tuple[Node, int], int] = {}  # input edge -> position in the result
    targets: set[Node] = set()
    if inputs is not None:
        for k, t in enumerate(inputs):
            node, nr = gradient_edge(t)
            if node is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            if not accumulate_grad:  # only autograd.grad returns them (and a kept reference stops stealing)
                capture.setdefault((node, nr), k)
            targets.add(node)

    root_nodes = [n for n, _ in roots]
    deps = _dependencies(root_nodes)
    needed = _needed(root_nodes, targets) if inputs is not None else None

    buffers: dict[Node, list[Any]] = {}

    def deliver(node: Node, nr: int, grad: Any) -> None:
        """Add ``grad`` (already validated) into ``node``'s input buffer slot ``nr`` (InputBuffer::add)."""
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * max(node.num_outputs, nr + 1)
        old = buf[nr]
        buf[nr] = grad if old is None else _accumulate(old, grad, per_thread.s.grad_enabled)

    for (node, nr), grad in zip(roots, grad_outputs):
        deliver(node, nr, _validate_output(node, nr, grad) if grad is not None else None)

    results: list[Any] = [None] * (len(inputs) if inputs is not None else 0)
    counter = itertools.count()
    ready: list[tuple[int, int, Node]] = []
    queued = set()
    for node in root_nodes:
        if deps.get(node, 0) == 0 and node not in queued:
            heapq.heappush(ready, (-node._sequence_nr, next(counter), node))
            queued.add(node)

    with set_grad_enabled(create_graph), graph_task_exec_info(needed):
        while ready:
            _, _, node = heapq.heappop(ready)
            grads = buffers.pop(node, [None] * node.num_outputs)
            for hook in node._pre_hooks:
                new = hook(grads)
                if new is not None:
                    grads = list(new)
            # autograd.grad: capture gradients arriving at an input's edge.
            for nr, g in enumerate(grads):
                pos = capture.get((node, nr))
                if pos is not None:
                    results[pos] = g
            run = needed is None or node in needed
            if isinstance(node, AccumulateGrad):
                run = accumulate_grad and (inputs is None or node in targets)
            elif not accumulate_grad and node in targets and not any(
                nxt is not None and nxt in (needed or ()) for nxt, _ in node.next_functions
            ):
                run = False
            grad_inputs: Sequence[Any] = ()
            if run:
                if all(g is None for g in grads) and not isinstance(node, AccumulateGrad):
                    grad_inputs = [None] * len(node.next_functions)
                else:
                    grad_inputs = _validate_outputs(node, node.apply(grads))
                for hook in node._hooks:
                    new = hook(grad_inputs, grads)
                    if new is not None:
                        grad_inputs = new
                if not retain_graph:
                    node.release_saved()
            grad_inputs = list(grad_inputs)
            for i, (nxt, nr) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                if run and i < len(grad_inputs) and grad_inputs[i] is not None:
                    g, grad_inputs[i] = grad_inputs[i], None  # handed over (C++ moves it): the list keeps no reference
                    deliver(nxt, nr, g)
                    del g
                deps[nxt] -= 1
                if deps[nxt] == 0 and nxt not in queued:
                    heapq.heappush(ready, (-nxt._sequence_nr, next(counter), nxt))
                    queued.add(nxt)

    if inputs is None or accumulate_grad:
        return None
    for g in results:
        if g is None and not allow_unused:
            raise RuntimeError(
                "One of the differentiated Tensors appears to not have been used in the graph. Set "
                "allow_unused=True if this is the desired behavior."
            )
    return tuple(results)
