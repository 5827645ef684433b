"""make_fx per-trace fast paths: stack traces reuse the frames above the trace, placeholder names from the code.

The frames above ``_trace`` are collected once per trace; each op walks only the frames below it. The texts
must be exactly what a full walk of the stack gives, for forward ops, backward ops, pre-dispatch traces and
grad-mode nodes.
"""

from __future__ import annotations

import functools
import inspect

import pytest

import dispatcher as D
import dispatcher.nn.functional as F
from tests import corpus as C
from tracer import make_fx
from tracer import proxy_tensor as P
from tracer import proxy_tracker as PT


def _full_walk(self: P._Tracer, root: object) -> None:
    """set_root_frame that never sets a root: every stack_trace walks the whole stack (the old behaviour)."""
    self._root_frame = None
    self._outer_frames, self._outer_key = [], []


def _traces(key: str, **kwargs: object) -> list[tuple[str, str | None]]:
    program, shapes, rg = C.PROGRAMS[key]

    def caller_of_make_fx() -> object:  # a user frame above the trace: must appear in every text
        return make_fx(program(D, F), **kwargs)(*C.inputs(D, C.arrays(shapes, seed=0), rg))

    gm = caller_of_make_fx()
    return [(n.name, n.meta.get("stack_trace")) for n in gm.graph.nodes]


@pytest.mark.parametrize(("key", "kwargs"), [
    ("train_step", {}),
    ("train_step", {"pre_dispatch": True}),
    ("transformer_block", {"pre_dispatch": True}),
    ("no_grad_region", {"pre_dispatch": True}),
    ("mlp", {"tracing_mode": "fake"}),
])
def test_stack_traces_match_a_full_walk(monkeypatch: pytest.MonkeyPatch, key: str, kwargs: dict) -> None:
    results = []
    for walk in (None, _full_walk):  # both traced from the same line, so the caller's frames read the same
        if walk is not None:
            monkeypatch.setattr(P._Tracer, "set_root_frame", walk)
            PT._TRACE_BY_OFFSET.clear()  # the shared text cache must not hide a difference
        results.append(_traces(key, **kwargs))
    fast, slow = results
    assert fast == slow
    texts = [t for _, t in fast if t is not None]
    assert texts, "no node got a stack trace"
    assert all("caller_of_make_fx" in t for t in texts)


def test_root_frame_is_dropped_after_the_trace() -> None:
    seen = []
    original = P._Tracer.set_root_frame

    def spy(self: P._Tracer, root: object) -> None:
        original(self, root)
        seen.append((self, root))

    P._Tracer.set_root_frame = spy
    try:
        make_fx(lambda x: x.sin())(D.randn(3))
        with pytest.raises(RuntimeError):
            make_fx(lambda x: bool(x > 0))(D.randn(3))  # a failing trace drops its frames too
    finally:
        P._Tracer.set_root_frame = original
    assert [root is None for _, root in seen] == [False, True, False, True]
    assert all(t._root_frame is None and t._outer_frames == [] for t, _ in seen)


def _signature_names(f: object, nargs: int) -> list[str]:
    """The placeholder names inspect.signature gives (the slow path of ``_placeholder_names``)."""
    params = list(inspect.signature(f).parameters.values())
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [params[i].name if i < len(params) and params[i].kind in positional else f"arg{i}" for i in range(nargs)]


def _closure_param(x, y):  # noqa: ANN001, ANN202 - both parameters are cells of the inner function
    return lambda: x + y


def _mixed(a, b, /, c, *rest, k=1, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
    local = a
    return local


@pytest.mark.parametrize("f", [_closure_param, _mixed, lambda u, v=2: u, lambda *args: args,
                               functools.partial(_mixed, 1), functools.wraps(_mixed)(lambda *a: a)])
def test_placeholder_names_match_inspect_signature(f: object) -> None:
    for nargs in range(5):
        assert P._placeholder_names(f, nargs) == _signature_names(f, nargs)
