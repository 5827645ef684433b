"""Checks shared by the op-coverage tests (tests/test_ops_*.py): one program, torch's and ours.

A program is written once against ``T`` / ``F`` (torch or ``dispatcher``) as in tests/corpus.py. ``trace_both``
traces it with both libraries' ``make_fx`` in one configuration ("post", "pre", "fake", or "core": post-dispatch with
the core-aten decompositions); the other helpers compare replays, eager results and ``tracer.compile``'s values.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
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


def _no_marks(config: str, name: str) -> list[Any]:
    return []


def program_tests(programs: dict[str, tuple], backward_programs: dict[str, tuple], *,
                  traced_only: dict[str, tuple] | None = None,
                  trace: Any = None,
                  marks: Any = _no_marks,
                  skip_targets: Any = frozenset(),
                  no_compile: Any = frozenset(),
                  same_targets: Any = None,
                  quiet: bool = False) -> dict[str, Any]:
    """The six tests every op-coverage file runs over its program tables, for ``globals().update(...)``:

    ``test_same_targets_as_torch`` (every config x every program), ``test_post_dispatch_code_matches_torch``,
    ``test_replay_on_fresh_inputs_matches_eager`` ("post" and "core", forward programs),
    ``test_eager_values_match_torch``, ``test_gradients_match_torch`` (the backward programs) and
    ``test_compile_numpy_backend_matches_eager``; inputs are ``C.arrays(shapes, seed)`` with seeds 0 (traces),
    1 (replays), 5 (eager values), 3 (gradients) and 4 (compile).

    ``traced_only``: more programs only traced (the first two tests); ``trace(torch, prog, shapes, rg, config)``
    replaces the seed-0 ``trace_both``; ``marks(config, name)`` gives the marks of the first test (``config``) and
    the second (``"code"``); ``skip_targets`` the (config, name) pairs the first test leaves out; ``no_compile`` the
    programs the last leaves out; ``same_targets(gm_t, gm_o, config, name)`` the first test's comparison (by
    default: the same ``C.targets``); ``quiet``: the replay, eager-value and compile runs ignore UserWarnings."""
    every = {**programs, **backward_programs, **(traced_only or {})}

    def trace_pair(torch: Any, prog: Any, shapes: list, rg: tuple[int, ...], config: str) -> tuple[Any, Any]:
        if trace is not None:
            return trace(torch, prog, shapes, rg, config)
        return trace_both(torch, prog, C.arrays(shapes, 0), rg, config)

    @contextlib.contextmanager
    def quieted() -> Iterator[None]:
        with warnings.catch_warnings():
            if quiet:
                warnings.simplefilter("ignore", UserWarning)
            yield

    @pytest.mark.parametrize(("config", "name"), [pytest.param(c, n, marks=marks(c, n))
                                                  for c in CONFIGS for n in sorted(every)
                                                  if (c, n) not in skip_targets])
    def test_same_targets_as_torch(torch: Any, config: str, name: str) -> None:
        prog, shapes, rg = every[name]
        gm_t, gm_o = trace_pair(torch, prog, shapes, rg, config)
        if same_targets is not None:
            same_targets(gm_t, gm_o, config, name)
        else:
            assert C.targets(gm_o) == C.targets(gm_t)
        gm_o.graph.lint()

    @pytest.mark.parametrize("name", [pytest.param(n, marks=marks("code", n)) for n in sorted(every)])
    def test_post_dispatch_code_matches_torch(torch: Any, name: str) -> None:
        prog, shapes, rg = every[name]
        gm_t, gm_o = trace_pair(torch, prog, shapes, rg, "post")
        assert gm_o.code.strip() == gm_t.code.strip()

    @pytest.mark.parametrize(("config", "name"), [(c, n) for c in ("post", "core") for n in sorted(programs)])
    def test_replay_on_fresh_inputs_matches_eager(torch: Any, config: str, name: str) -> None:
        prog, shapes, rg = programs[name]
        _, gm_o = trace_pair(torch, prog, shapes, rg, config)
        with quieted():
            replay_matches_eager(gm_o, prog, C.arrays(shapes, 1), rg)

    @pytest.mark.parametrize("name", sorted(programs))
    def test_eager_values_match_torch(torch: Any, name: str) -> None:
        prog, shapes, rg = programs[name]
        with quieted():
            same_eager_results(torch, prog, C.arrays(shapes, 5), rg)

    @pytest.mark.parametrize("name", sorted(backward_programs))
    def test_gradients_match_torch(torch: Any, name: str) -> None:
        prog, shapes, rg = backward_programs[name]
        same_eager_results(torch, prog, C.arrays(shapes, 3), rg)

    @pytest.mark.parametrize("name", sorted(set(programs) - set(no_compile)))
    def test_compile_numpy_backend_matches_eager(name: str) -> None:
        prog, shapes, rg = programs[name]
        with quieted():
            compile_matches_eager(prog, C.arrays(shapes, 4), rg)

    tests = [test_same_targets_as_torch, test_post_dispatch_code_matches_torch,
             test_replay_on_fresh_inputs_matches_eager, test_eager_values_match_torch, test_gradients_match_torch,
             test_compile_numpy_backend_matches_eager]
    return {t.__name__: t for t in tests}


def torch_function_names(torch: Any, shape: tuple[int, ...], calls: Any) -> list[str]:
    """The names of the functions a TorchFunctionMode sees while ``calls(T, x)`` runs (``x = T.ones(*shape)``, made
    before the mode), torch's; ours are asserted to be the same."""
    from torch.overrides import TorchFunctionMode

    def run(T: Any, mode_cls: Any) -> list[str]:
        seen: list[str] = []

        class Log(mode_cls):
            def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                seen.append(getattr(func, "__name__", str(func)))
                return func(*args, **(kwargs or {}))

        x = T.ones(*shape)
        with Log():
            calls(T, x)
        return seen

    want = run(torch, TorchFunctionMode)
    assert run(D, D.TorchFunctionMode) == want
    return want


def same_graph_and_replay(torch: Any, programs: Any, name: str, config: str) -> tuple[Any, Any, list, tuple]:
    """Program ``name`` of the table ``programs(T, F) -> {name: (fn, shapes, rg)}``, traced by both libraries in
    ``config``: the same targets (and code in "post" / "core"), a graph that lints, and our graph on fresh (seed 1)
    inputs (requiring grad in "pre" only) equal to our eager result. Returns ``(torch's fn, ours, shapes, rg)``."""
    f_t, shapes, rg = programs(torch, torch.nn.functional)[name]
    f_o = programs(D, DF)[name][0]
    gm_t, gm_o = trace_both(torch, lambda T, F: f_t if T is torch else f_o, C.arrays(shapes, 0), rg, config)
    assert C.targets(gm_o) == C.targets(gm_t)
    if config in ("post", "core"):
        assert gm_o.code == gm_t.code
    gm_o.graph.lint()
    fresh = C.arrays(shapes, 1)
    expected = C.to_np(f_o(*C.inputs(D, fresh, rg)))
    C.assert_close(expected, C.to_np(gm_o(*C.inputs(D, fresh, rg if config == "pre" else ()))))
    return f_t, f_o, shapes, rg


def recomputes_saved_inside(gm_t: Any, gm_o: Any) -> None:
    """A pre-dispatch graph where torch bakes what autograd saved inside an op kept whole as a ``_tensor_constant``
    and ours recomputes it (tracer/saved_inside.py): no ``get_attr`` in ours, torch's ops in order within ours (a
    subsequence), plus the recomputing ones."""
    assert [n for n in gm_t.graph.nodes if n.op == "get_attr"] != []
    assert [n for n in gm_o.graph.nodes if n.op == "get_attr"] == []
    ours, theirs = C.targets(gm_o), C.targets(gm_t)
    it = iter(ours)
    assert all(t in it for t in theirs), (theirs, ours)
    assert len(ours) > len(theirs)
