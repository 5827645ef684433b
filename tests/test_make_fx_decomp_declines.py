"""A decomposition returning ``NotImplemented`` declines: make_fx goes on with the op (torch's
``maybe_handle_decomp``; ``test_partial_decomp`` in torch's test_proxy_tensor.py).

The entry has run under the mode (whatever it traced before declining stays in the graph, as in torch); then the op
is handled as if the table had no entry: recorded, or, post-dispatch, decomposed by its CompositeImplicitAutograd
kernel. Before, the mode returned the entry's NotImplemented and the call failed with "Multiple dispatch failed".
"""

from __future__ import annotations

from typing import Any

import pytest

import dispatcher as D
from tests import corpus as C
from tracer import make_fx
from tracer.decompositions import core_aten_decompositions


def _addmm(T: Any) -> Any:
    def addmm(a, b, c, beta=1, alpha=1):
        if beta == 1 and alpha == 1:
            return NotImplemented
        return beta * a + alpha * (b @ c)
    return addmm


def _linear(T: Any) -> Any:
    def linear(x, w, b=None):
        if b is None:
            return NotImplemented  # kept whole before dispatch, decomposed by its own kernel after
        return T.ops.aten.add.Tensor(T.ops.aten.matmul.default(x, T.ops.aten.t.default(w)), b)
    return linear


def _mul_after_work(T: Any) -> Any:
    def mul(a, b):
        a.sum()  # traced before the entry declines: it stays in the graph
        return NotImplemented
    return mul


def _recursive_addmm(T: Any) -> Any:
    def addmm(a, b, c, beta=1, alpha=1):
        if beta == 1 and alpha == 1:
            return NotImplemented
        return T.ops.aten.addmm.default(a * beta, b, c * alpha)  # the same op again: declined, then recorded
    return addmm


#: name -> (program(T), {op name: decomposition(T)}, input shapes)
CASES = {
    "partial_addmm": (lambda T: lambda a, b, c: T.addmm(a, b, c) + T.addmm(a, b, c, beta=2, alpha=1),
                      {"addmm": _addmm}, [(5, 5), (5, 5), (5, 5)]),
    "linear_without_bias_declines": (lambda T: lambda x, w, b: T.nn.functional.linear(x, w) + T.nn.functional.linear(
        x, w, b), {"linear": _linear}, [(3, 4), (2, 4), (2,)]),
    "work_before_declining": (lambda T: lambda x, y: x * y, {"mul.Tensor": _mul_after_work}, [(3,), (3,)]),
    "same_op_inside": (lambda T: lambda a, b, c: T.addmm(a, b, c, alpha=3), {"addmm": _recursive_addmm},
                       [(2, 2), (2, 2), (2, 2)]),
}
CONFIGS = {"post": {}, "pre": {"pre_dispatch": True}, "fake": {"tracing_mode": "fake"}}


def _table(T: Any, entries: dict) -> dict:
    out = {}
    for name, make in entries.items():
        base, _, overload = name.partition(".")
        out[getattr(getattr(T.ops.aten, base), overload or "default")] = make(T)
    return out


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_declining_decomposition_matches_torch(torch: Any, name: str, config: str) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    prog, entries, shapes = CASES[name]
    arrays = C.arrays(shapes, 0)
    gm_t = torch_make_fx(prog(torch), decomposition_table=_table(torch, entries), **CONFIGS[config])(
        *C.inputs(torch, arrays, ()))
    gm_o = make_fx(prog(D), decomposition_table=_table(D, entries), **CONFIGS[config])(*C.inputs(D, arrays, ()))
    assert C.targets(gm_o) == C.targets(gm_t)
    if config == "post":
        assert gm_o.code == gm_t.code
    gm_o.graph.lint()
    fresh = C.arrays(shapes, 1)
    expected = C.to_np(prog(D)(*C.inputs(D, fresh, ())))
    C.assert_close(expected, C.to_np(gm_o(*C.inputs(D, fresh, ()))))
    C.assert_close(C.to_np(prog(torch)(*C.inputs(torch, fresh, ()))), expected)


def test_partial_decomp() -> None:
    """torch's test: one of the two addmm calls is decomposed, the other kept."""
    prog = CASES["partial_addmm"][0](D)
    inps = [D.randn(5, 5) for _ in range(3)]
    plain = make_fx(prog)(*inps)
    decomposed = make_fx(prog, decomposition_table=_table(D, {"addmm": _addmm}))(*inps)
    assert C.targets(plain).count("aten.addmm.default") == 2
    assert C.targets(decomposed).count("aten.addmm.default") == 1
    C.assert_close(plain(*inps).numpy(), decomposed(*inps).numpy())


def test_declining_entry_in_the_core_aten_table() -> None:
    """A user entry merged into the core-aten table declines: the core decomposition does not run for it (the
    table holds the user's entry), the op is recorded whole."""
    table = dict(core_aten_decompositions())
    table[D.ops.aten.addmm.default] = _addmm(D)
    gm = make_fx(lambda a, b, c: D.addmm(a, b, c) * 2, decomposition_table=table)(*[D.randn(2, 2)] * 3)
    assert C.targets(gm) == ["aten.addmm.default", "aten.mul.Tensor"]
