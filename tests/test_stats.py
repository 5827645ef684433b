"""``op_stats`` (passes/stats.py) and the cost estimates behind it (passes/costs.py).

Matrix-product FLOPs read from a captured graph must equal what torch's ``FlopCounterMode`` counts when
torch runs the same program (the oracle); elementwise FLOPs must equal what our ``FlopCounterMode`` with
``count_elementwise=True`` counts while running it; the small cases are worked out by hand.
"""

from __future__ import annotations

import pytest

import dispatcher as D
import dispatcher.nn.functional as F
import passes
from dispatcher.modes.flop_counter import FlopCounterMode
from dispatcher.op_overload import namespace
from passes.costs import node_cost, node_kind
from tests import corpus as C
from tracer import Graph, make_fx

aten = namespace("aten")
TORCH_COUNTED = {"mm", "addmm", "bmm", "baddbmm"}


def test_hand_built_table() -> None:
    g = Graph()
    x = g.placeholder("x")
    x.meta["val"] = D.empty(4, 5)
    w = g.placeholder("w")
    w.meta["val"] = D.empty(5, 6)
    mm = g.call_function(aten.mm.default, (x, w))
    mm.meta["val"] = D.empty(4, 6)
    r1 = g.call_function(aten.relu.default, (mm,))
    r1.meta["val"] = D.empty(4, 6)
    r2 = g.call_function(aten.relu.default, (r1,))
    r2.meta["val"] = D.empty(4, 6)
    s = g.call_function(aten.sum.default, (r2,))
    s.meta["val"] = D.empty(())
    g.output(s)
    st = passes.op_stats(g)
    d = st.to_dict()
    assert list(d) == ["aten.mm.default", "aten.relu.default", "aten.sum.default"]  # most FLOPs first
    assert d["aten.mm.default"] == {"kind": "matmul", "count": 1, "flops": 2 * 4 * 6 * 5,
                                    "bytes": (20 + 30 + 24) * 4}
    # two relus: 24 elements each, read 24 floats and write 24 floats each
    assert d["aten.relu.default"] == {"kind": "elementwise", "count": 2, "flops": 48, "bytes": 2 * 48 * 4}
    # a reduction: one FLOP per input element; reads 24 floats, writes 1
    assert d["aten.sum.default"] == {"kind": "reduction", "count": 1, "flops": 24, "bytes": 25 * 4}
    assert st.total_count == 4 and st.total_flops == 240 + 48 + 24
    text = str(st)
    lines = text.splitlines()
    assert lines[0].split() == ["Op", "Kind", "Count", "FLOP", "Bytes"]
    assert lines[2].split()[:3] == ["aten.mm.default", "matmul", "1"]
    assert lines[-1].split()[:2] == ["Total", "4"]
    assert lines[-1].split()[2:] == ["312", "780", "B"]  # each number in its own readable unit
    assert st["aten.relu.default"].count == 2
    with pytest.raises(KeyError, match="no node calls 'aten.add.Tensor'"):
        st["aten.add.Tensor"]


def test_views_and_getitem_cost_nothing() -> None:
    gm = make_fx(lambda x: x.t().reshape(-1).max(0))(D.randn(3, 4))
    for node in gm.graph.nodes:
        if node_kind(node) == "view" or getattr(node.target, "__name__", "") == "getitem":
            assert node_cost(node) == (0, 0, 0)
    st = passes.op_stats(gm).to_dict()
    assert st["aten.t.default"]["bytes"] == 0 and st["operator.getitem"]["bytes"] == 0


@pytest.mark.parametrize("name", ["mlp", "attention", "transformer_block", "train_step", "autograd_grad"])
def test_matmul_flops_equal_torch_flop_counter(torch, name: str) -> None:
    from torch.utils.flop_counter import FlopCounterMode as TorchFlopCounterMode

    program, shapes, rg = C.PROGRAMS[name]
    arrays = C.arrays(shapes, 0)
    gm = make_fx(program(D, F))(*C.inputs(D, arrays, rg))
    ours = sum(r.flops for r in passes.op_stats(gm).rows if r.op.split(".")[1] in TORCH_COUNTED)
    with TorchFlopCounterMode(display=False) as fc:
        program(torch, torch.nn.functional)(*C.inputs(torch, arrays, rg))
    assert ours == fc.get_total_flops() > 0


@pytest.mark.parametrize("name", ["transformer_block", "mlp", "train_step"])
def test_elementwise_flops_equal_flop_counter_mode(name: str) -> None:
    program, shapes, rg = C.PROGRAMS[name]
    arrays = C.arrays(shapes, 0)
    gm = make_fx(program(D, F))(*C.inputs(D, arrays, rg))
    with FlopCounterMode(display=False, count_elementwise=True) as fc:
        program(D, F)(*C.inputs(D, arrays, rg))
    counted = {str(k): v for k, v in fc.get_flop_counts()["Global"].items()}
    ours: dict[str, int] = {}
    for r in passes.op_stats(gm).rows:
        if r.kind == "elementwise":
            packet = r.op.rsplit(".", 1)[0]
            ours[packet] = ours.get(packet, 0) + r.flops
    assert ours  # the programs have elementwise ops
    for packet, flops in ours.items():
        assert counted.get(packet) == flops, packet


def test_op_stats_totals_match_networkx_view() -> None:
    program, shapes, rg = C.PROGRAMS["transformer_block"]
    gm = make_fx(program(D, F))(*C.inputs(D, C.arrays(shapes, 0), rg))
    st = passes.op_stats(gm)
    G = passes.to_networkx(gm)
    assert st.total_flops == sum(a["flops"] for _, a in G.nodes(data=True))
    assert st.total_bytes == sum(a["bytes"] for _, a in G.nodes(data=True))
    assert st.total_count == sum(1 for n in gm.graph.nodes if n.op == "call_function")
    assert repr(st).startswith("<OpStats: ")


@pytest.mark.parametrize("name", ["mlp", "attention", "transformer_block", "linear_softmax_ln"])
def test_pre_dispatch_products_count_like_their_decomposition(name: str) -> None:
    # pre-dispatch graphs keep matmul / linear whole; their FLOPs must equal the mm / bmm / addmm they become
    program, shapes, rg = C.PROGRAMS[name]
    arrays = C.arrays(shapes, 0)

    def matmul_flops(pre: bool) -> int:
        gm = make_fx(program(D, F), pre_dispatch=pre)(*C.inputs(D, arrays, rg))
        return sum(r.flops for r in passes.op_stats(gm).rows if r.kind == "matmul")

    assert matmul_flops(True) == matmul_flops(False) > 0


def test_matmul_flops_broadcasting() -> None:
    from passes.costs import matmul_flops

    assert matmul_flops((2, 3), (3, 4)) == 2 * 2 * 4 * 3
    assert matmul_flops((5, 1, 2, 3), (4, 3, 2)) == 5 * 4 * (2 * 2 * 2 * 3)  # batch (5, 1) x (4,) -> (5, 4)
    assert matmul_flops((3,), (3,)) == 6 and matmul_flops((2, 3), (3,)) == 12
