"""Drawings of module graphs (passes/collapse.py with passes/module_groups.py), and the inline pictures.

A 12-block transformer (about 770 nodes) is drawn as one cluster per block with its LayerNorm / attention / MLP
calls closed and named by path; nested clusters and left-to-right drawings are valid DOT; a parameter used by
several boxes is drawn at each use; GraphModule shows itself as a scrollable, width-fitted picture with only
``tracer`` imported (checked in a fresh interpreter); ``show`` and ``side_by_side`` make pictures.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

import dispatcher as D
import passes
from passes.collapse import drawing_graph
from passes.module_groups import choose_expanded, module_scopes
from tests.models import gpt, gpt_input
from tracer import make_fx

HAVE_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz's `dot` is not installed (apt-get install graphviz)")


@pytest.fixture(scope="module")
def gpt12():
    return make_fx(gpt(D, 12))(gpt_input(D))


def test_scopes_follow_the_module_tree(gpt12) -> None:
    nodes = list(gpt12.graph.nodes)
    top, owner = module_scopes(nodes)
    assert [s.fqn for s in top] == [""]  # make_fx(model): the model itself is the root call
    root = top[0]
    assert [c.fqn for c in root.children] == [f"layers.{i}" for i in range(12)] + ["ln_f", "head"]
    block = root.children[3]
    assert [c.fqn for c in block.children] == ["layers.3.ln1", "layers.3.attn", "layers.3.ln2", "layers.3.mlp"]
    assert block.cls == "Block" and block.title == "layers.3 (Block)"
    # intervals nest and every node of an interval is owned by it or a call inside it
    for s in root.walk():
        for i in range(s.start, s.end + 1):
            p = owner[i]
            while p is not None and p is not s:
                p = p.parent
            assert p is s
    assert owner[0] is None and owner[-1] is None  # the placeholder and the output
    # level by level: 12 blocks opened together, their children too only if they all fit
    opened = choose_expanded(top, 2, 100)
    assert root in opened and all(b in opened for b in root.children[:12])
    assert not any(c in opened for b in root.children[:12] for c in b.children)
    assert choose_expanded(top, 2, 20) == {root} and choose_expanded(top, 2, 10) == set()


def test_twelve_blocks_are_readable(gpt12) -> None:
    H, level = drawing_graph(passes.to_networkx(gpt12))
    assert level == "modules" and nx.is_directed_acyclic_graph(H)
    assert len(gpt12.graph.nodes) > 700 and H.number_of_nodes() <= 100
    first_lines = [a["lines"][0] for _, a in H.nodes(data=True)]
    for i in range(12):
        for part in ("ln1", "attn", "ln2", "mlp"):
            assert f"layers.{i}.{part}" in first_lines
    attn = next(a for _, a in H.nodes(data=True) if a["lines"][0] == "layers.5.attn")
    assert attn["lines"][1].startswith("Attention: ") and attn["kind"] == "module"
    assert attn["lines"][-1] == "f32[2, 8, 32]"  # what leaves the call, not its last node's value
    clusters = {tuple(t for _, t in a["clusters"]) for _, a in H.nodes(data=True) if a.get("clusters")}
    assert {(f"layers.{i} (Block)",) for i in range(12)} <= clusters
    # every edge runs between neighbouring parts: no edge spans more than one block
    index = {n: H.nodes[n]["lines"][0] for n in H.nodes}
    for u, v in H.edges:
        bu = re.match(r"layers\.(\d+)", index[u])
        bv = re.match(r"layers\.(\d+)", index[v])
        if bu and bv:
            assert 0 <= int(bv[1]) - int(bu[1]) <= 1


@needs_dot
def test_twelve_blocks_svg_and_left_to_right(gpt12) -> None:
    svg = passes.to_svg(gpt12)
    assert "layered fallback" not in svg
    root = ET.fromstring(svg)
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "layers.11 (Block)" in titles and "layers.11.mlp" in titles
    dot = passes.to_dot(gpt12, rankdir="LR")
    assert 'rankdir="LR"' in dot and dot.count("subgraph cluster_") == 14  # 12 blocks, ln_f, head
    proc = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True, timeout=60)
    assert proc.returncode == 0 and b"Warning" not in proc.stderr
    with pytest.raises(ValueError, match="rankdir"):
        passes.to_dot(gpt12, rankdir="sideways")


def test_parameters_are_drawn_at_their_use() -> None:
    # make_fx reads a module's parameter with a get_attr node at each use, inside the module's cluster
    nn = D.nn

    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc = nn.Linear(4, 4)
            self.dec = nn.Linear(4, 4)
            self.dec.weight = self.enc.weight  # one parameter used by two modules

        def forward(self, x):
            return self.dec(self.enc(x).relu())

    gm = make_fx(Tied())(D.randn(2, 4))
    reads = [n for n in gm.graph.nodes if n.op == "get_attr" and gm.fetch_attr(n.target) is gm.fetch_attr("_param_constant0")]
    H, _ = drawing_graph(passes.to_networkx(gm))
    assert sorted(H.nodes[n.name]["clusters"][-1][1] for n in reads) == ["dec (Linear)", "enc (Linear)"]

    # a weight passed in and read by every layer (a function-style model): one copy next to each use
    def layers(x, w):
        for _ in range(10):
            x = (x @ w).relu()
        return x

    gm = make_fx(layers)(D.randn(2, 4), D.randn(4, 4))
    H, level = drawing_graph(passes.to_networkx(gm))
    copies = [n for n in H.nodes if str(n).startswith("w_1@")]
    assert level == "none" and len(copies) == 10 and "w_1" not in H
    assert all(H.out_degree(c) == 1 and H.nodes[c]["lines"][0] == "w_1" for c in copies)
    assert nx.is_directed_acyclic_graph(H)
    H2, _ = drawing_graph(passes.to_networkx(gm), params_at_use=False)
    assert H2.out_degree("w_1") == 10
    H3, _ = drawing_graph(passes.to_networkx(gm), node_budget=len(H2) + 3)  # copies would exceed the budget
    assert H3.out_degree("w_1") == 10


def test_graph_without_module_stacks_is_unchanged() -> None:
    gm = make_fx(lambda x: (x * 2).relu().sum())(D.randn(3))
    H, level = drawing_graph(passes.to_networkx(gm))
    assert level == "none" and H.number_of_nodes() == len(gm.graph.nodes)
    assert not any(a.get("clusters") or a.get("cluster") for _, a in H.nodes(data=True))


def test_inline_picture_fits_and_scrolls(gpt12) -> None:
    html = gpt12._repr_html_()
    assert "max-height:520px;overflow:auto" in html and 'style="max-width:100%;height:auto"' in html
    assert "<?xml" not in html and "<!DOCTYPE" not in html
    assert "770 nodes, drawn as" in html and "passes.view(gm)" in html
    pic = passes.show(gpt12, rankdir="LR", max_height=300)
    assert "max-height:300px" in pic._repr_html_() and pic.svg.lstrip().startswith("<svg")
    two = passes.side_by_side(gpt12, make_fx(gpt(D, 1))(gpt_input(D)), titles=["12 blocks", "1 block"])
    assert two._repr_html_().count("dispatchkit-picture") == 2 and "12 blocks" in two._repr_html_()
    with pytest.raises(ValueError, match="2 graphs but 1 titles"):
        passes.side_by_side(gpt12, gpt12, titles=["a"])


def test_graph_module_renders_with_only_tracer_imported() -> None:
    code = ("import sys, dispatcher as D\nfrom tracer import make_fx\n"
            "gm = make_fx(lambda x: (x * 2).sin())(D.randn(3))\n"
            "assert 'passes' not in sys.modules\n"
            "h = gm._repr_html_(); s = gm._repr_svg_()\n"
            "assert '<svg' in h and 'overflow:auto' in h and s.lstrip().startswith('<svg')\nprint('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
