"""make_fx on long programs: a 20,000-op chain traces, lints, names its nodes uniquely and runs (not timed).

Timing lives in bench/make_fx.py; this test guards what must hold at any size: nothing in the trace or
in the generated code is quadratic enough to time out, recursive enough to overflow the stack, or
unique only for small graphs.
"""

from __future__ import annotations

import numpy as np
import pytest

import dispatcher as D
from tracer import make_fx

N = 20_000  # ops in the chain (a multiple of 4)


def chain(x):
    for _ in range(N // 4):
        x = x + 1.0  # line A
        x = x * 0.5  # line B
        x = x.sin()  # line C
        x = x - 0.25  # line D
    return x


@pytest.fixture(scope="module")
def traced():
    x = D.randn(4)
    return make_fx(chain)(x), x


def test_chain_has_one_node_per_op_in_order(traced) -> None:
    gm, _ = traced
    nodes = list(gm.graph.nodes)
    assert len(gm.graph.nodes) == len(nodes) == N + 2
    assert nodes[0].op == "placeholder" and nodes[-1].op == "output"
    targets = [str(n.target) for n in nodes[1:-1]]
    assert targets[:4] == ["aten.add.Tensor", "aten.mul.Tensor", "aten.sin.default", "aten.sub.Tensor"]
    assert targets == targets[:4] * (N // 4)
    assert all(n.args[0] is prev for prev, n in zip(nodes[:-1], nodes[1:], strict=True))


def test_chain_lints_and_names_are_unique(traced) -> None:
    gm, _ = traced
    gm.graph.lint()
    names = [n.name for n in gm.graph.nodes]
    assert len(set(names)) == len(names)
    # FX's naming at scale: add, add_1, ..., add_4999 (no scan-and-retry artefacts)
    adds = [n for n in names if n == "add" or n.startswith("add_")]
    assert adds == ["add"] + [f"add_{i}" for i in range(1, N // 4)]


def test_chain_stack_traces_are_shared_per_line(traced) -> None:
    gm, _ = traced
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    traces = [n.meta["stack_trace"] for n in calls]
    # one string object per source line, not one per node (memory per node stays small)
    assert len({id(t) for t in traces}) == 4
    assert "line A" in traces[0] and "line D" in traces[3]
    assert all(n.meta["val"].shape == (4,) for n in calls)


def test_chain_graph_module_runs_like_eager(traced) -> None:
    gm, x = traced
    expected = chain(x)
    out = gm(x)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    other = D.randn(4)
    np.testing.assert_allclose(gm(other).numpy(), chain(other).numpy(), rtol=1e-5, atol=1e-6)
