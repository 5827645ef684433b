"""Deep graphs (issue 18): no walk of the autograd engine, the tracer or the graph passes recurses per node.

A 100k-node autograd chain goes through ``autograd.grad`` and ``backward(inputs=)`` (the engine's reachability walk
restricted to ``inputs`` used to recurse and hit RecursionError beyond ~990 nodes). The traced joint graphs
(make_fx of forward + backward, post- and pre-dispatch) and everything done with them (code, printing, lint,
running, replay, CSE / DCE, DOT, the analyses, serialization, deletion, GC) run with the recursion limit
lowered to 400 on 800-op chains: a walk recursing once per node would need 800 frames (1,600+ nodes), so passing
there proves the walks iterative whatever the depth, and keeps the test short. (A 50,000-op joint graph, 100,005
nodes, traced, printed and linted in 89 s on the shared VM: docs/tracing.md.)
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tracer import make_fx


def test_100k_node_chain_grad_and_backward_inputs() -> None:
    x = D.tensor([0.5, -1.5], requires_grad=True)
    w = D.tensor([2.0, 3.0], requires_grad=True)
    y = x * w
    for _ in range(100_000):
        y = -y  # an even number of negations: y == x * w
    (gx,) = D.autograd.grad(y.sum(), [x], retain_graph=True)
    np.testing.assert_array_equal(gx.numpy(), [2.0, 3.0])
    y.sum().backward(inputs=[w])
    assert x.grad is None
    np.testing.assert_array_equal(w.grad.numpy(), [0.5, -1.5])
    del y
    gc.collect()


@pytest.fixture
def low_recursion_limit() -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


_N = 800


def _grad_chain(x: Any) -> Any:
    y = x
    for _ in range(_N):
        y = y * 1.0
    return D.autograd.grad(y.sum(), [x])


def _backward_chain(x: Any) -> Any:
    y = x
    for _ in range(_N):
        y = y.sin()
    y.sum().backward()
    return x.grad


@pytest.mark.parametrize(("fn", "config"), [(_grad_chain, "real"), (_backward_chain, "pre_dispatch")],
                         ids=["autograd.grad-real", "backward-pre_dispatch"])
def test_deep_joint_graph_traces_prints_runs_and_serializes(low_recursion_limit: None, fn: Any, config: str) -> None:
    from passes import nx as graph_analyses
    from passes.cse import common_subexpression_elimination
    from passes.dce import dead_code_elimination
    from passes.drawing import to_dot
    from passes.replay import replay
    from passes.serialize import dumps, loads

    def inputs() -> Any:
        return D.tensor([0.25, -0.5], requires_grad=True)

    gm = make_fx(fn, pre_dispatch=config == "pre_dispatch")(inputs())
    assert len(gm.graph.nodes) > 2 * _N
    gm.graph.lint()
    assert gm.print_readable(print_output=False).count("\n") > 2 * _N
    expected = fn(inputs())
    got = gm(inputs())
    np.testing.assert_allclose(got[0].numpy() if isinstance(got, (list, tuple)) else got.numpy(),
                               expected[0].numpy() if isinstance(expected, (list, tuple)) else expected.numpy())
    replay(gm, inputs())
    common_subexpression_elimination(gm)
    dead_code_elimination(gm)
    assert to_dot(gm).startswith("digraph")
    graph_analyses.critical_path(gm)
    graph_analyses.liveness(gm)
    loaded = loads(dumps(gm))
    loaded.print_readable(print_output=False)
    again = loaded(inputs())
    np.testing.assert_allclose(again[0].numpy() if isinstance(again, (list, tuple)) else again.numpy(),
                               got[0].numpy() if isinstance(got, (list, tuple)) else got.numpy())
    del gm, loaded
    gc.collect()
