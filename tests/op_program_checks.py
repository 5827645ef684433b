"""Checks shared by the op-coverage tests (tests/test_ops_*.py): one program, torch's and ours.

A program is written once against ``T`` / ``F`` (torch or ``dispatcher``) as in tests/corpus.py. ``trace_both``
traces it with both libraries' ``make_fx`` in one configuration ("post", "pre", "fake", or "core": post-dispatch with
the core-aten decompositions); the other helpers compare replays, eager results and ``tracer.compile``'s values.
"""

from __future__ import annotations

from typing import Any

import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
import tracer
from tests import corpus as C
from tracer import make_fx
from tracer.decompositions import core_aten_decompositions

#: configuration -> make_fx keywords ("core": the decomposition tables, filled in by trace_both)
CONFIGS: dict[str, dict[str, Any]] = {
    "post": {},
    "pre": {"pre_dispatch": True},
    "fake": {"tracing_mode": "fake"},
    "core": {},
}


def trace_both(torch: Any, prog: Any, arrays: list, rg: tuple[int, ...], config: str) -> tuple[Any, Any]:
    """(torch's GraphModule, ours) of ``prog`` traced on ``arrays`` (inputs ``rg`` requiring grad)."""
    from torch._decomp import core_aten_decompositions as torch_core
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    kw_t, kw_o = dict(CONFIGS[config]), dict(CONFIGS[config])
    if config == "core":
        kw_t["decomposition_table"], kw_o["decomposition_table"] = torch_core(), core_aten_decompositions()
    gm_t = torch_make_fx(prog(torch, torch.nn.functional), **kw_t)(*C.inputs(torch, arrays, rg))
    gm_o = make_fx(prog(D, DF), **kw_o)(*C.inputs(D, arrays, rg))
    return gm_t, gm_o


def replay_matches_eager(gm: Any, prog: Any, fresh: list, rg: tuple[int, ...]) -> None:
    """Our graph of ``prog``, called on ``fresh`` arrays (nothing requiring grad), gives eager's results."""
    expected = C.to_np(prog(D, DF)(*C.inputs(D, fresh, rg)))
    C.assert_close(expected, C.to_np(gm(*C.inputs(D, fresh, ()))))


def same_eager_results(torch: Any, prog: Any, arrays: list, rg: tuple[int, ...]) -> None:
    """``prog`` run eagerly by torch and by us gives the same values (gradients, when it returns them)."""
    theirs = C.to_np(prog(torch, torch.nn.functional)(*C.inputs(torch, arrays, rg)))
    C.assert_close(theirs, C.to_np(prog(D, DF)(*C.inputs(D, arrays, rg))))


def compile_matches_eager(prog: Any, arrays: list, rg: tuple[int, ...]) -> None:
    """``tracer.compile(prog, backend="numpy")`` gives eager's values."""
    expected = C.to_np(prog(D, DF)(*C.inputs(D, arrays, rg)))
    C.assert_close(expected, C.to_np(tracer.compile(prog(D, DF), backend="numpy")(*C.inputs(D, arrays, rg))))


def same_error(torch: Any, expr: str, make_inputs: Any) -> None:
    """``expr`` raises the same exception type, with the same first line, in torch and here."""
    with pytest.raises(Exception) as theirs:  # noqa: PT011 - compared below
        eval(expr, make_inputs(torch))  # noqa: S307 - test table
    with pytest.raises(Exception) as ours:  # noqa: PT011 - compared below
        eval(expr, make_inputs(D))  # noqa: S307 - test table
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
