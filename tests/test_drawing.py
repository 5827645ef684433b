"""Drawing captured graphs (passes/drawing.py, dot.py, collapse.py, svg_layout.py).

SVG for every corpus graph (post- and pre-dispatch) parses as XML with one node group per graph node;
labels show ops and shapes; colours follow the node kind; hostile strings in names, targets, constants
and stack traces never break the DOT (hypothesis, checked with Graphviz's own parser); a 10,000-node
graph collapses into a readable SVG within the budget; file formats, missing `dot` and timeouts give
clear errors or the fallback layout.
"""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dispatcher as D
import dispatcher.nn.functional as F
import passes
import passes.drawing as drawing
from passes.collapse import drawing_graph
from passes.dot import KIND_STYLE, escape_label, sanitize
from tests import corpus as C
from tracer import Graph, GraphModule, make_fx

SVG = "{http://www.w3.org/2000/svg}"
HAVE_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz's `dot` is not installed (apt-get install graphviz)")


def svg_nodes(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]


def svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def trace(name: str, pre_dispatch: bool = False) -> GraphModule:
    program, shapes, rg = C.PROGRAMS[name]
    return make_fx(program(D, F), pre_dispatch=pre_dispatch)(*C.inputs(D, C.arrays(shapes, 0), rg))


def dot_parses(text: str) -> str:
    proc = subprocess.run(["dot", "-Tsvg"], input=text.encode("utf-8"), capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert b"Warning" not in proc.stderr, proc.stderr.decode("utf-8", "replace")
    return proc.stdout.decode("utf-8")


# --- the corpus -------------------------------------------------------------------------------------------------


@needs_dot
@pytest.mark.parametrize("pre_dispatch", [False, True], ids=["post", "pre"])
@pytest.mark.parametrize("name", sorted(C.PROGRAMS))
def test_corpus_svg_renders(name: str, pre_dispatch: bool) -> None:
    gm = trace(name, pre_dispatch)
    svg = passes.to_svg(gm)
    assert "dispatchkit layered fallback" not in svg
    assert len(svg_nodes(svg)) == len(gm.graph.nodes)
    texts = "\n".join(svg_texts(svg))
    for node in gm.graph.find_nodes(op="placeholder"):
        assert node.name in texts


def test_labels_show_op_name_shape_and_constants() -> None:
    gm = trace("mlp")
    dot = passes.to_dot(gm)
    assert "addmm" in dot and "f32[3, 8]" in dot  # op and the output shape of F.linear(x, w1, b1)
    x = D.randn(2, 3)
    gm = make_fx(lambda x: D.sum(x * 2.5, [1], keepdim=True))(x)
    dot = passes.to_dot(gm)
    assert "other=2.5" in dot and "dim=[1], keepdim=True" in dot and "f32[2, 1]" in dot


def test_colours_follow_kinds() -> None:
    def f(x, w):
        return (x @ w).t().relu().sum()

    gm = make_fx(f)(D.randn(2, 3), D.randn(3, 4))
    H, level = drawing_graph(passes.to_networkx(gm))
    assert level == "none"
    kinds = {H.nodes[n]["lines"][0]: H.nodes[n]["kind"] for n in H.nodes}
    assert kinds["mm"] == "matmul" and kinds["t"] == "view" and kinds["relu"] == "elementwise"
    assert kinds["sum"] == "reduction" and kinds["x_1"] == "placeholder" and kinds["output"] == "output"
    dot = passes.to_dot(gm)
    for kind in ("matmul", "view", "elementwise", "reduction", "placeholder"):
        assert f'fillcolor="{KIND_STYLE[kind]}"' in dot


def test_backward_ops_and_inplace_are_marked() -> None:
    gm = trace("train_step")
    G = passes.to_networkx(gm)
    assert any(a["kind"] == "backward" for _, a in G.nodes(data=True))  # threshold_backward etc.
    gm = trace("inplace_view")
    H, _ = drawing_graph(passes.to_networkx(gm))
    assert any(a["mutates"] for _, a in H.nodes(data=True))  # add_ / mul_ get the red border


def test_edges_carry_shapes() -> None:
    gm = make_fx(lambda x: x.sum(0).exp())(D.randn(5, 7))
    H, _ = drawing_graph(passes.to_networkx(gm))
    labels = {a["label"] for _, _, a in H.edges(data=True)}
    assert {"f32[5, 7]", "f32[7]"} <= labels
    assert 'xlabel="f32[5, 7]"' in passes.to_dot(gm)
    # an edge into getitem carries the element it picks, not the whole tuple
    gm = make_fx(lambda x: x.max(0)[1])(D.randn(5, 7))
    H, _ = drawing_graph(passes.to_networkx(gm))
    assert "i64[7]" in {a["label"] for _, _, a in H.edges(data=True)}
    assert "[1]" in passes.to_dot(gm)


# --- escaping ---------------------------------------------------------------------------------------------------


def test_escape_label_keeps_text_literal() -> None:
    assert escape_label(['a\\N "q"', "&lt;"]) == 'a\\\\N \\"q\\"\\n&amp;lt;'
    assert sanitize("a\x00b\nc\ud800") == "a\\x00b\\x0ac\\ud800"
    assert sanitize("x" * 100, limit=10) == "x" * 9 + "…"


HOSTILE = st.one_of(
    st.sampled_from(['"', "\\", "\\N", "\\G\\l\\", "<b>x</b>", "<<TABLE>>", "{a|b}", "|", "a\nb", "]", "}",
                     'x" ];\n digraph H { ', "&lt;&amp;&#65;", "ij,jk->ik", "\x00", "\u2028", "\ud800", "日本語 ∑",
                     "'; DROP", "\\\\\\", "/*", "//", "#", "-- ->", "\t", " ", ""]),
    st.text(max_size=30),
)


def weird_function(name: str, qualname: str):
    def fn(*args, **kwargs):
        return None

    fn.__name__ = name
    fn.__qualname__ = qualname
    fn.__module__ = name
    return fn


def hostile_graph(a: str, b: str, c: str, d: str) -> Graph:
    g = Graph()
    x = g.placeholder("x")
    x.name = a  # names normally are sanitized identifiers; the drawing must not rely on it
    y = g.call_function(weird_function(b, c), (x, d, {a: b, "k": [c, 1.5]}), {"eq": d})
    y.meta["stack_trace"] = f'  File "{a}", line 3, in {b}\n    {c}\n'
    z = g.get_attr(c if c else "attr")
    w = g.call_function(weird_function(d, a), (y, z))
    w.meta["stack_trace"] = f'  File "{d}.py", line 1, in {c}\n    {d}\n'
    w.name = b
    g.output((w, d))
    return g


@needs_dot
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE, HOSTILE, HOSTILE, HOSTILE)
def test_hostile_strings_never_break_the_drawing(a: str, b: str, c: str, d: str) -> None:
    g = hostile_graph(a, b, c, d)
    for cluster in (False, True):
        text = passes.to_dot(g, name=a, cluster=cluster)
        svg = dot_parses(text)
        assert len(svg_nodes(svg)) == len(g.nodes)
        # every label line is shown literally (after sanitizing), e.g. the weird function's name
        texts = svg_texts(svg)
        assert sanitize(b if b.strip() else "") in "\n".join(texts) or not b.strip()
    assert len(svg_nodes(passes.to_svg(g, engine="layered"))) == len(g.nodes)


# --- large graphs -----------------------------------------------------------------------------------------------


def _attn_part(x, w):
    return F.relu(x @ w) * 0.5 + x


def _mlp_part(x, w):
    return (x @ w).sigmoid().tanh() - x


def _big_program(steps: int):
    def f(x, w):
        for i in range(steps):
            x = _attn_part(x, w) if i % 2 == 0 else _mlp_part(x, w)
        return x
    return f


@pytest.fixture(scope="module")
def big_gm() -> GraphModule:
    return make_fx(_big_program(2500), tracing_mode="fake")(D.randn(4, 4), D.randn(4, 4))


@needs_dot
def test_10000_node_graph_collapses_within_budget(big_gm: GraphModule) -> None:
    assert len(big_gm.graph.nodes) >= 10_000
    svg = passes.to_svg(big_gm, node_budget=300)  # (its time is measured in bench/passes.py)
    boxes = svg_nodes(svg)
    assert 20 <= len(boxes) <= 300
    texts = "\n".join(svg_texts(svg))
    assert " ops: " in texts and "mm" in texts
    assert "feeds" in texts  # the weight shared by all 5,000 matmuls: its edges are not drawn


def test_collapse_steps() -> None:
    gm = make_fx(_big_program(30), tracing_mode="fake")(D.randn(4, 4), D.randn(4, 4))
    G = passes.to_networkx(gm)
    n = G.number_of_nodes()
    H, level = drawing_graph(G, node_budget=n)
    assert level == "none" and H.number_of_nodes() == n
    # step 1 merges relu -> mul -> add and sigmoid -> tanh -> sub into one box per call
    H, level = drawing_graph(G, node_budget=n - 1)
    assert level == "elementwise"
    assert H.number_of_nodes() == 3 + 30 * 2  # x, w, output; per call: mm + one elementwise box
    group_lines = [a["lines"][0] for _, a in H.nodes(data=True) if a.get("group")]
    assert "3 elementwise ops: relu, mul.Tensor, add.Tensor" in group_lines
    # step 2 also folds each mm into its group; step 3 merges consecutive boxes into blocks
    H, level = drawing_graph(G, node_budget=40)
    assert level == "chains" and H.number_of_nodes() == 33
    H, level = drawing_graph(G, node_budget=10)
    assert level == "blocks" and H.number_of_nodes() <= 10
    for Hx in (H,):
        import networkx as nx
        assert nx.is_directed_acyclic_graph(Hx)


def test_prune_hubs() -> None:
    import networkx as nx

    from passes.collapse import prune_hubs

    H = nx.DiGraph()
    H.add_node("hub", lines=["w"])
    for i in range(5):
        H.add_node(i, lines=[str(i)])
        H.add_edge("hub", i)
        if i:
            H.add_edge(i - 1, i)
    assert prune_hubs(H, 5) == 0 and H.out_degree("hub") == 5
    assert prune_hubs(H, 4) == 5
    assert H.out_degree("hub") == 0 and H.nodes["hub"]["lines"] == ["w", "feeds 5 boxes (edges not drawn)"]
    assert H.number_of_edges() == 4  # the chain stays


def test_far_over_budget_cuts_blocks_directly() -> None:
    import networkx as nx

    from passes.collapse import DIRECT_BLOCKS

    gm = make_fx(_big_program(30), tracing_mode="fake")(D.randn(4, 4), D.randn(4, 4))
    G = passes.to_networkx(gm)
    budget = 2
    assert G.number_of_nodes() > DIRECT_BLOCKS * budget
    H, level = drawing_graph(G, node_budget=budget)
    assert level == "blocks" and H.number_of_nodes() <= budget and nx.is_directed_acyclic_graph(H)
    # the blocks cover every node exactly once, in graph order
    counts = [int(a["lines"][0].split(" ")[0]) for _, a in H.nodes(data=True)]
    assert sum(counts) == G.number_of_nodes()


def test_time_budget_spent_goes_to_the_fallback() -> None:
    gm = trace("mlp")
    svg = passes.to_svg(gm, engine="auto" if not HAVE_DOT else "dot", time_budget=0.0)
    assert "layered fallback" in svg and len(svg_nodes(svg)) == len(gm.graph.nodes)


def test_clusters_group_by_user_function() -> None:
    gm = make_fx(_big_program(4), tracing_mode="fake")(D.randn(4, 4), D.randn(4, 4))
    H, _ = drawing_graph(passes.to_networkx(gm), cluster=True)
    titles = [a["cluster"][1] for _, a in H.nodes(data=True) if a.get("cluster")]
    assert {t.split(" ")[0] for t in titles} == {"_attn_part", "_mlp_part"}
    runs = {a["cluster"][0] for _, a in H.nodes(data=True) if a.get("cluster")}
    assert len(runs) == 4  # one cluster per call
    assert passes.to_dot(gm, cluster=True).count("subgraph cluster_") == 4
    assert "subgraph" not in passes.to_dot(gm)  # small graphs are not clustered by default


# --- formats, errors, time budget ----------------------------------------------------------------------------------


@needs_dot
def test_draw_picks_format_from_file_name(tmp_path) -> None:
    gm = trace("attention")
    svg = passes.draw(gm, tmp_path / "g.svg").read_text()
    assert len(svg_nodes(svg)) == len(gm.graph.nodes)
    assert (passes.draw(gm, tmp_path / "g.PNG").read_bytes()[:8]) == b"\x89PNG\r\n\x1a\n"
    dot = passes.draw(gm, str(tmp_path / "g.dot")).read_text()
    assert dot.startswith("digraph") and dot == passes.to_dot(gm)
    with pytest.raises(ValueError, match=r"cannot tell the format.*'.*g\.jpeg'.*\.svg"):
        passes.draw(gm, tmp_path / "g.jpeg")


def test_missing_dot_is_a_clear_error_and_dot_text_still_works(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(drawing, "_dot_executable", lambda: None)
    gm = trace("mlp")
    with pytest.raises(passes.GraphvizNotFound, match="needs Graphviz's `dot` executable.*\\.dot"):
        passes.draw(gm, tmp_path / "g.svg")
    with pytest.raises(passes.GraphvizNotFound, match="PNG"):
        passes.draw(gm, tmp_path / "g.png")
    assert passes.draw(gm, tmp_path / "g.gv").read_text().startswith("digraph")
    # Jupyter's hook falls back to the pure-Python layout
    svg = gm._repr_svg_()
    assert "layered fallback" in svg and len(svg_nodes(svg)) == len(gm.graph.nodes)


@needs_dot
def test_repr_svg_for_jupyter() -> None:
    gm = trace("linear_softmax_ln")
    svg = gm._repr_svg_()
    assert svg.lstrip().startswith("<?xml") or "<svg" in svg
    assert len(svg_nodes(svg)) == len(gm.graph.nodes)


@needs_dot
def test_layout_timeout_falls_back_to_layered_svg(monkeypatch) -> None:
    gm = trace("transformer_block")

    def slow(text, fmt, timeout):
        raise subprocess.TimeoutExpired(["dot"], timeout)

    monkeypatch.setattr(drawing, "_run_dot", slow)
    svg = passes.to_svg(gm, layout_timeout=0.01)
    assert "dot took longer than 0.01 s" in svg
    assert len(svg_nodes(svg)) == len(gm.graph.nodes)
    with pytest.raises(passes.DrawingTimeout, match="node_budget"):
        passes.render(gm, "png", layout_timeout=0.01)


@needs_dot
def test_real_dot_timeout_is_enforced() -> None:
    # a tiny timeout makes the real subprocess time out; the SVG still comes back (fallback layout)
    gm = make_fx(_big_program(200), tracing_mode="fake")(D.randn(4, 4), D.randn(4, 4))
    svg = passes.to_svg(gm, node_budget=2000, layout_timeout=0.05)
    assert "layered fallback" in svg
    assert len(svg_nodes(svg)) == len(gm.graph.nodes)


def test_layered_layout_is_valid_xml_for_hostile_graph() -> None:
    g = hostile_graph("<&>", '"\\N', "]]>", "\x00\ud800")
    svg = passes.to_svg(g, engine="layered")
    assert len(svg_nodes(svg)) == len(g.nodes)


def test_bad_arguments() -> None:
    gm = trace("mlp")
    with pytest.raises(ValueError, match="engine"):
        passes.to_svg(gm, engine="neato")
    with pytest.raises(ValueError, match="node_budget"):
        passes.to_dot(gm, node_budget=0)
    with pytest.raises(TypeError, match="expected a Graph or a GraphModule"):
        passes.to_dot(np.zeros(3))
