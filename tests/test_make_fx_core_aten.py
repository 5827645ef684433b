"""The 4th make_fx configuration of issue 6: post-dispatch tracing lowered with core_aten_decompositions().

Every program of tests/corpus.py is traced by torch 2.13's make_fx with torch's
``core_aten_decompositions()`` and by ours with ``tracer.decompositions.core_aten_decompositions()``:
the ``call_function`` target sequences and the generated code must be identical, the graph must lint, and
the graph replayed on fresh inputs must equal eager execution.
"""

from __future__ import annotations

from typing import Any

import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tests.corpus import PROGRAMS
from tracer import make_fx
from tracer.decompositions import core_aten_decompositions

#: program -> why the graph cannot equal torch's (strict xfails)
_KNOWN: dict[str, str] = {}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=_KNOWN[n]) if n in _KNOWN else ())
    for n in sorted(PROGRAMS)])
def test_core_aten_graph_equals_torch_and_replays(torch: Any, name: str) -> None:
    from torch._decomp import core_aten_decompositions as torch_core
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    prog, shapes, rg = PROGRAMS[name]
    arrays = C.arrays(shapes, 0)
    gm_t = torch_make_fx(prog(torch, torch.nn.functional), decomposition_table=torch_core())(
        *C.inputs(torch, arrays, rg))
    gm_o = make_fx(prog(D, DF), decomposition_table=core_aten_decompositions())(*C.inputs(D, arrays, rg))
    assert C.targets(gm_o) == C.targets(gm_t)
    assert gm_o.code.strip() == gm_t.code.strip()  # arguments, names and liveness too
    gm_o.graph.lint()
    fresh = C.arrays(shapes, 1)
    expected = C.to_np(prog(D, DF)(*C.inputs(D, fresh, rg)))
    got = C.to_np(gm_o(*C.inputs(D, fresh, ())))
    C.assert_close(expected, list(got) if isinstance(got, tuple) else got)


def test_core_aten_lowers_what_plain_post_dispatch_keeps(torch: Any) -> None:
    """The table changes the graph: t -> permute, sum -> sum.dim_IntList, threshold_backward -> le + where."""
    prog, shapes, rg = PROGRAMS["autograd_grad"]
    arrays = C.arrays(shapes, 0)
    plain = C.targets(make_fx(prog(D, DF))(*C.inputs(D, arrays, rg)))
    lowered = C.targets(make_fx(prog(D, DF), decomposition_table=core_aten_decompositions())(
        *C.inputs(D, arrays, rg)))
    assert "aten.t.default" in plain and "aten.t.default" not in lowered
    assert "aten.threshold_backward.default" in plain
    assert "aten.threshold_backward.default" not in lowered and "aten.le.Scalar" in lowered
    assert "aten.sum.default" not in lowered and "aten.sum.dim_IntList" in lowered
