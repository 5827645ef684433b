"""make_fx(..., preserve=[ops]): CompositeImplicitAutograd ops kept whole in a post-dispatch trace."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from dispatcher.op_overload import namespace
from tests import corpus as C
from tracer import make_fx
from tracer.decompositions import core_aten_decompositions
from tracer.decompositions.preserve import PreservedOpBackwardError

aten = namespace("aten")


def _inputs(seed: int = 0, rg: tuple[int, ...] = ()) -> list[Any]:
    return C.inputs(D, C.arrays([(2, 3), (4, 3), (4,)], seed), rg)


def test_preserved_ops_are_one_node_and_the_rest_is_post_dispatch() -> None:
    f = C.p_linear_softmax_ln(D, DF)
    gm = make_fx(f, preserve=[aten.linear.default, aten.layer_norm])(*_inputs())
    # softmax.int is not preserved: it still decomposes to _softmax
    assert C.targets(gm) == ["aten.linear.default", "aten._softmax.default", "aten.layer_norm.default"]
    gm.graph.lint()
    assert all("val" in n.meta for n in gm.graph.nodes if n.op == "call_function")
    assert tuple(gm.graph.find_nodes(op="call_function", target=aten.linear.default)[0].meta["val"].shape) == (2, 4)
    fresh = _inputs(1)
    C.assert_close(C.to_np(f(*fresh)), C.to_np(gm(*fresh)))


def test_without_preserve_the_graph_is_unchanged(torch: Any) -> None:
    """The registrations made for a trace are gone afterwards (the same graph as torch's post-dispatch one)."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    f = C.p_linear_softmax_ln(D, DF)
    before = aten.linear.default.dump_table()
    make_fx(f, preserve=[aten.linear])(*_inputs())
    assert aten.linear.default.dump_table() == before
    arrays = C.arrays([(2, 3), (4, 3), (4,)], 0)
    gm_t = torch_make_fx(C.p_linear_softmax_ln(torch, torch.nn.functional))(*C.inputs(torch, arrays, ()))
    assert C.targets(make_fx(f)(*_inputs())) == C.targets(gm_t)


def test_registrations_are_removed_when_the_traced_function_raises() -> None:
    before = aten.linear.default.dump_table()

    def bad(x, w, b):
        DF.linear(x, w, b)
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        make_fx(bad, preserve=[aten.linear.default])(*_inputs())
    assert aten.linear.default.dump_table() == before
    assert C.targets(make_fx(lambda x, w, b: DF.linear(x, w, b))(*_inputs())) == ["aten.t.default",
                                                                                  "aten.addmm.default"]


def test_fake_mode_and_decomposition_table() -> None:
    f = C.p_linear_softmax_ln(D, DF)
    table = core_aten_decompositions()
    gm = make_fx(f, decomposition_table=table, tracing_mode="fake",
                 preserve=[aten.linear.default, aten.layer_norm.default])(*_inputs())
    # the table lowers nothing preserved; _softmax is core aten (not in the table)
    assert C.targets(gm) == ["aten.linear.default", "aten._softmax.default", "aten.layer_norm.default"]
    # without preserve the same table lowers linear's t to permute
    lowered = C.targets(make_fx(f, decomposition_table=table)(*_inputs()))
    assert lowered[:2] == ["aten.permute.default", "aten.addmm.default"]
    fresh = _inputs(2)
    C.assert_close(C.to_np(f(*fresh)), C.to_np(gm(*fresh)))


def test_table_entry_for_a_preserved_op_is_not_used() -> None:
    calls = []

    def my_linear(x, w, b=None):
        calls.append(1)
        return x

    gm = make_fx(lambda x, w, b: DF.linear(x, w, b), decomposition_table={aten.linear.default: my_linear},
                 preserve=[aten.linear.default])(*_inputs())
    assert C.targets(gm) == ["aten.linear.default"] and calls == []


def test_requires_grad_forward_works_and_backward_through_it_raises() -> None:
    f = C.p_linear_softmax_ln(D, DF)
    x, w, b = _inputs(0, rg=(1,))
    gm = make_fx(f, preserve=[aten.linear.default])(x, w, b)
    assert C.targets(gm)[0] == "aten.linear.default"
    # a post-dispatch graph holds autograd's work already: replayed without requires_grad
    fresh = _inputs(3)
    C.assert_close(C.to_np(f(*fresh)), C.to_np(gm(*fresh)))

    def joint(x, w, b):
        loss = DF.linear(x, w, b).sum()
        (gw,) = D.autograd.grad(loss, [w])
        return gw

    with pytest.raises(PreservedOpBackwardError, match=r"aten\.linear\.default was kept whole"):
        make_fx(joint, preserve=[aten.linear.default])(*_inputs(0, rg=(1,)))


def test_joint_graph_not_through_the_preserved_op_still_works() -> None:
    def f(x, w, b):
        y = DF.linear(x, w)  # preserved; none of its inputs requires grad
        loss = (y * b.sum()).sum()
        (gb,) = D.autograd.grad(loss, [b])
        return gb

    gm = make_fx(f, preserve=[aten.linear.default])(*_inputs(0, rg=(2,)))
    targets = C.targets(gm)
    assert targets.count("aten.linear.default") == 1 and "aten.addmm.default" not in targets
    gm.graph.lint()
    fresh = _inputs(4)
    expected = C.to_np(f(*_inputs(4, rg=(2,))))
    np.testing.assert_allclose(C.to_np(gm(*fresh)), expected, rtol=1e-5, atol=1e-6)


def test_pre_dispatch_already_keeps_cia_ops_whole() -> None:
    f = C.p_linear_softmax_ln(D, DF)
    gm = make_fx(f, pre_dispatch=True, preserve=[aten.linear.default],
                 decomposition_table={aten.linear.default: lambda *a: None})(*_inputs())
    assert C.targets(gm) == ["aten.linear.default", "aten.softmax.int", "aten.layer_norm.default"]


def test_other_threads_are_not_affected() -> None:
    seen: list[list[str]] = []
    started, release = threading.Event(), threading.Event()

    def other() -> None:
        started.wait(5)
        seen.append(C.targets(make_fx(lambda x, w: DF.linear(x, w))(*_inputs()[:2])))
        release.set()

    def f(x, w, b):
        started.set()
        release.wait(5)  # the other thread traces while this trace's registrations are in place
        return DF.linear(x, w, b)

    t = threading.Thread(target=other)
    t.start()
    gm = make_fx(f, preserve=[aten.linear.default])(*_inputs())
    t.join()
    assert C.targets(gm) == ["aten.linear.default"]
    assert seen == [["aten.t.default", "aten.mm.default"]]


@pytest.mark.parametrize("op", [aten.addmm.default, aten.mm, aten.add.Tensor])
def test_non_cia_ops_are_refused(op: Any) -> None:
    with pytest.raises(ValueError, match="only CompositeImplicitAutograd ops can be preserved") as e:
        make_fx(lambda x: x, preserve=[op])
    assert str(op) in str(e.value)


def test_not_an_op_is_refused() -> None:
    with pytest.raises(TypeError, match="expects OpOverloads or OpOverloadPackets"):
        make_fx(lambda x: x, preserve=["aten::linear"])
