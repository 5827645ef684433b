"""The autograd engine: run the backward graph from some outputs to the leaves.

Corresponds to torch/csrc/autograd/engine.cpp (single-threaded CPU path). The
engine counts, for every node reachable from the roots, how many edges point at
it; a node is *ready* when all of its gradients have arrived. Among ready
nodes, the one with the highest sequence number (the most recently created)
runs first, exactly PyTorch's ordering, and AccumulateGrad nodes run as soon as
they are ready. Gradients arriving at the same input are summed with ``add``
(through the dispatcher, so a trace records it). ``autograd.grad`` captures the
gradients of its inputs instead of accumulating into ``.grad``.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from typing import Any

from .grad_mode import set_grad_enabled
from .graph import AccumulateGrad, Node, gradient_edge, graph_task_exec_info


def _aten() -> Any:
    from ..op_overload import namespace

    return namespace("aten")


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
    """Nodes on some path from a root to a target (only those run when ``inputs`` restricts the work)."""
    memo: dict[Node, bool] = {}

    def reaches(node: Node) -> bool:
        if node in memo:
            return memo[node]
        memo[node] = node in targets
        result = node in targets
        for nxt, _ in node.next_functions:
            if nxt is not None and reaches(nxt):
                result = True
        memo[node] = result
        return result

    for r in roots:
        reaches(r)
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


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return _aten().add.Tensor(a, b)


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

    def deliver(node: Node, nr: int, grad: Any, source: tuple[Node, int] | None = None) -> None:
        expected = _expected_shape(node, nr)
        if expected is not None and grad is not None and tuple(grad._shape) != expected:
            if source is not None and not _expandable_to(expected, tuple(grad._shape)):
                raise RuntimeError(
                    f"Function {source[0].name()} returned an invalid gradient at index {source[1]} - got "
                    f"{list(grad._shape)} but expected shape compatible with {list(expected)}"
                )
            grad = sum_to(grad, expected)
        dtype = _expected_dtype(node, nr) if grad is not None else None
        if dtype is not None and grad._dtype is not dtype:  # validate_outputs: grad.to(input's dtype)
            grad = _aten().to.dtype(grad, dtype)
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * max(node.num_outputs, nr + 1)
        buf[nr] = _add(buf[nr], grad)

    for (node, nr), grad in zip(roots, grad_outputs):
        deliver(node, nr, grad)

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
                    grad_inputs = node.apply(grads)
                for hook in node._hooks:
                    new = hook(grad_inputs, grads)
                    if new is not None:
                        grad_inputs = new
                if not retain_graph:
                    node.release_saved()
            for i, (nxt, nr) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                if run and i < len(grad_inputs) and grad_inputs[i] is not None:
                    deliver(nxt, nr, grad_inputs[i], (node, i))
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
