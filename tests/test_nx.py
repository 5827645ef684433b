"""networkx views and analyses (passes/nx.py) on small hand-built graphs whose answers are worked out by hand.

Every expected value below is derived in the comment next to it from the graph's structure and sizes,
not copied from our output.
"""

from __future__ import annotations

import operator

import networkx as nx
import pytest

import dispatcher as D
import dispatcher.nn.functional as F
import passes
from dispatcher.op_overload import namespace
from tests import corpus as C
from tracer import Graph, make_fx

aten = namespace("aten")


class Builder:
    """Hand-built graphs with meta["val"] set to real tensors of the given shapes (float32: 4 bytes)."""

    def __init__(self) -> None:
        self.g = Graph()

    def inp(self, name: str, *shape: int):
        n = self.g.placeholder(name)
        n.meta["val"] = D.empty(*shape)
        return n

    def op(self, target, args, *shape, name=None):
        n = self.g.call_function(target, tuple(args), name=name)
        n.meta["val"] = D.empty(*shape) if shape else None
        return n

    def out(self, *nodes):
        self.g.output(tuple(nodes) if len(nodes) > 1 else nodes[0])
        return self.g


def diamond():
    b = Builder()
    x = b.inp("x", 10)
    a = b.op(aten.exp.default, [x], 10, name="a")
    c = b.op(aten.sin.default, [x], 10, name="b")
    d = b.op(aten.add.Tensor, [a, c], 10, name="c")
    return b.out(d)


def test_to_networkx_attributes() -> None:
    b = Builder()
    x = b.inp("x", 2, 3)
    w = b.inp("w", 3, 4)
    mm = b.op(aten.mm.default, [x, w], 2, 4, name="mm")
    t = b.op(aten.t.default, [mm], 4, 2, name="t")
    g = b.out(t)
    G = passes.to_networkx(g)
    assert set(G.nodes) == {"x", "w", "mm", "t", "output"}
    assert set(G.edges) == {("x", "mm"), ("w", "mm"), ("mm", "t"), ("t", "output")}
    a = G.nodes["mm"]
    assert (a["op"], a["target"], a["kind"], a["shape"], a["dtype"]) == ("call_function", "mm.default", "matmul",
                                                                         (2, 4), "float32")
    assert a["flops"] == 2 * 2 * 4 * 3  # (2,3)@(3,4): 2*m*n*k
    assert a["bytes"] == (6 + 12) * 4 + 8 * 4  # reads x and w, writes the 2x4 result
    assert G.nodes["t"]["kind"] == "view" and G.nodes["t"]["bytes"] == 0 and G.nodes["t"]["flops"] == 0
    assert G.nodes["x"]["kind"] == "placeholder" and G.nodes["output"]["kind"] == "output"
    assert G.edges["mm", "t"]["shape"] == (2, 4) and G.edges["mm", "t"]["label"] == "f32[2, 4]"
    assert G.nodes["mm"]["node"] is mm


def test_to_networkx_on_corpus_matches_the_graph() -> None:
    for name in ("transformer_block", "train_step", "multi_output"):
        program, shapes, rg = C.PROGRAMS[name]
        gm = make_fx(program(D, F))(*C.inputs(D, C.arrays(shapes, 0), rg))
        G = passes.to_networkx(gm)
        assert G.number_of_nodes() == len(gm.graph.nodes)
        pairs = {(i.name, n.name) for n in gm.graph.nodes for i in n.all_input_nodes}
        assert set(G.edges) == pairs
        assert nx.is_directed_acyclic_graph(G)


def test_topological_generations_and_parallelism() -> None:
    # x feeds a and b (independent), c needs both, then the output
    g = diamond()
    assert passes.topological_generations(g) == [["x"], ["a", "b"], ["c"], ["output"]]
    assert passes.parallelism_profile(g) == [1, 2, 1, 1]


def test_critical_path_by_given_cost() -> None:
    g = diamond()
    cost = {"x": 0, "a": 1, "b": 5, "c": 2, "output": 0}
    # (nodes of cost 0 at either end may or may not be listed: they do not change the total)
    path, total = passes.critical_path(g, cost=lambda a: cost[a["node"].name])
    assert [n for n in path if cost[n]] == ["b", "c"] and total == 5 + 2
    cost["a"] = 9
    path, total = passes.critical_path(g, cost=lambda a: cost[a["node"].name])
    assert [n for n in path if cost[n]] == ["a", "c"] and total == 11
    # the first node's own cost counts: two independent inputs, the costlier one starts the path
    b = Builder()
    p = b.inp("p", 1)
    q = b.inp("q", 1)
    r = b.op(aten.add.Tensor, [p, q], 1, name="r")
    g2 = b.out(r)
    weights = {"p": 1, "q": 7, "r": 1, "output": 0}
    path, total = passes.critical_path(g2, cost=lambda a: weights[a["node"].name])
    assert path[:2] == ["q", "r"] and total == 8


def test_critical_path_by_estimated_flops() -> None:
    # branch 1: a (8,8)@(8,8) matmul = 2*8*8*8 = 1024 FLOPs; branch 2: 10 elementwise ops on 64 elements = 640
    b = Builder()
    x = b.inp("x", 8, 8)
    m = b.op(aten.mm.default, [x, x], 8, 8, name="m")
    e = x
    for i in range(10):
        e = b.op(aten.exp.default, [e], 8, 8, name=f"e{i}")
    s = b.op(aten.add.Tensor, [m, e], 8, 8, name="s")
    g = b.out(s)
    path, total = passes.critical_path(g, cost="flops")
    assert path[:3] == ["x", "m", "s"] and total == 1024 + 64
    with pytest.raises(ValueError, match="expected 'time', 'flops', 'bytes'"):
        passes.critical_path(g, cost="seconds")


def test_dominators() -> None:
    g = diamond()
    # every path from the input to c goes through x only (a and b are alternatives)
    assert passes.dominators(g) == {"x": None, "a": "x", "b": "x", "c": "x", "output": "c"}
    b = Builder()
    x = b.inp("x", 3)
    y = b.inp("y", 3)
    s = b.op(aten.add.Tensor, [x, y], 3, name="s")
    e = b.op(aten.exp.default, [s], 3, name="e")
    n = b.op(aten.neg.default, [e], 3, name="n")
    g2 = b.out(n, e)
    # s is reached from two inputs: only the virtual source dominates it; e and everything after: chains
    assert passes.dominators(g2) == {"x": None, "y": None, "s": None, "e": "s", "n": "e", "output": "e"}


def test_liveness_frees_after_last_use() -> None:
    # x -> a -> b -> c, 100 floats each (400 bytes)
    b = Builder()
    x = b.inp("x", 100)
    a = b.op(aten.exp.default, [x], 100, name="a")
    bb = b.op(aten.exp.default, [a], 100, name="b")
    c = b.op(aten.exp.default, [bb], 100, name="c")
    g = b.out(c)
    lv = passes.liveness(g)
    # with the input held by the caller: x | x+a | x+a+b, then a freed | x+b+c, then b freed | output
    assert lv.live_bytes == [400, 800, 1200, 1200, 800]
    assert lv.peak_bytes == 1200 and lv.peak_node == "b"
    assert lv.freed_after == {"b": ["a"], "c": ["b"]}
    lv = passes.liveness(g, include_inputs=False)
    # without it: a | a+b (x's 0 bytes) | b+c
    assert lv.peak_bytes == 800


def test_liveness_views_share_their_base_storage() -> None:
    b = Builder()
    x = b.inp("x", 10, 10)  # 400 bytes
    a = b.op(aten.exp.default, [x], 10, 10, name="a")  # +400
    v = b.op(aten.t.default, [a], 10, 10, name="v")  # a view: no new storage, keeps a alive
    e = b.op(aten.exp.default, [x], 10, 10, name="e")  # +400
    c = b.op(aten.add.Tensor, [v, e], 10, 10, name="c")  # +400; then a (through v) and e are dead
    g = b.out(c)
    lv = passes.liveness(g)
    assert lv.live_bytes == [400, 800, 800, 1200, 1600, 800]
    assert lv.peak_bytes == 1600 and lv.peak_node == "c"
    assert sorted(lv.freed_after["c"]) == ["a", "e"]
    # an in-place op writes into its input: no new storage either
    b2 = Builder()
    x = b2.inp("x", 10)
    y = b2.op(aten.exp.default, [x], 10, name="y")
    z = b2.op(aten.mul_.Tensor, [y, x], 10, name="z")
    g2 = b2.out(z)
    assert passes.liveness(g2).live_bytes == [40, 80, 80, 80]


def test_liveness_multi_output() -> None:
    # native_layer_norm returns (out, mean, rstd): three storages; only out is used after getitem
    b = Builder()
    x = b.inp("x", 4, 8)  # 128 bytes
    ln = b.g.call_function(aten.native_layer_norm.default, (x, [8], None, None, 1e-5))
    ln.meta["val"] = (D.empty(4, 8), D.empty(4, 1), D.empty(4, 1))  # 128 + 16 + 16
    out = b.g.call_function(operator.getitem, (ln, 0))
    out.meta["val"] = ln.meta["val"][0]
    r = b.op(aten.relu.default, [out], 4, 8, name="r")  # +128
    g = b.out(r)
    lv = passes.liveness(g)
    # x | x + the three results (128 + 160) | getitem: same, then the tuple dies with the unused mean and rstd |
    # 256 + r, then out (ln[0]) is dead | output: x + r
    assert lv.live_bytes == [128, 288, 288, 384, 256]
    assert lv.peak_bytes == 384
    assert sorted(lv.freed_after[out.name]) == [f"{ln.name}[1]", f"{ln.name}[2]"]
    assert lv.freed_after["r"] == [f"{ln.name}[0]"]


def test_op_histogram() -> None:
    g = diamond()
    assert passes.op_histogram(g) == {"exp.default": 1, "sin.default": 1, "add.Tensor": 1}
    assert passes.op_histogram(g, by="kind") == {"elementwise": 3}
    with pytest.raises(ValueError, match="by="):
        passes.op_histogram(g, by="size")


def test_duplicate_names_do_not_merge_nodes() -> None:
    b = Builder()
    x = b.inp("x", 2)
    y = b.op(aten.exp.default, [x], 2, name="y")
    y.name = "x"  # an invalid graph (lint refuses it), drawn and analysed anyway
    g = b.out(y)
    G = passes.to_networkx(g)
    assert G.number_of_nodes() == 3 and G.number_of_edges() == 2


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="expected a Graph or a GraphModule, got list"):
        passes.to_networkx([1, 2])
