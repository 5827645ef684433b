"""Pictures of the dispatcher and of analyses (passes/dispatch_view.py, passes/stats.py, passes/plots.py).

The dispatch-table grid colours exactly the cell of the rule ``compute_entry`` used for every key (checked
against ``computed_table``'s reasons for several operators, a custom op with a fallthrough and an ambiguous
AutogradOther registration); the compact table covers every key once; key-set pictures show exactly the set's
bits; the explain diagram has one box per hop; op statistics read in units; the liveness plot marks the peak.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

import dispatcher as D
import passes
from dispatcher import DispatchKey, DispatchKeySet, Library
from dispatcher.dispatch_table import computed_table
from passes.stats import readable_bytes, readable_count
from tracer import make_fx

SVG = "{http://www.w3.org/2000/svg}"

#: compute_entry's reasons -> the column title whose cell must be coloured
RULE_COLUMN = {"kernel": "kernel on the key", "math kernel": "CompositeImplicitAutograd",
               "ambiguous autogradother": "CompositeImplicitAutograd", "autograd kernel": "Autograd (alias)",
               "backend fallback": "backend fallback", "nested kernel": "CompositeImplicitAutogradNestedTensor",
               "batched kernel": "FuncTorchBatchedDecomposition"}


def won_cells(svg: str) -> dict[str, str]:
    root = ET.fromstring(svg)
    return {g.get("data-key"): g.get("data-source") for g in root.iter(f"{SVG}g")
            if "dk-won" in (g.get("class") or "")}


@pytest.mark.parametrize("name", ["aten.add.Tensor", "aten.linear.default", "aten.t.default", "aten.zeros.default",
                                  "aten.relu_.default"])
def test_table_grid_colours_the_rule_that_won(name: str) -> None:
    ns, op_name, overload = name.split(".")
    op = getattr(getattr(D.ops, ns), op_name)
    op = getattr(op, overload)
    table = computed_table(op)
    won = won_cells(passes.dispatch_table(op).svg)
    assert set(won) == {k.name for k in table}
    for key, (_, tag) in table.items():
        expected = RULE_COLUMN.get(tag)
        if tag == "default backend kernel":
            assert won[key.name] in ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd")
        else:
            assert won[key.name] == expected, (key, tag)
    assert str(passes.dispatch_table(op)) == op.dump_table()  # the text is torch's format


def test_custom_op_fallthrough_and_ambiguous_autogradother() -> None:
    lib = Library("dkpic", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x, "CompositeImplicitAutograd")
    lib.impl("f", lambda x: x, "SparseCPU")  # a backend mapped to AutogradOther: ambiguous there
    lib.impl("f", lambda x: x, "CPU")
    op = D.ops.dkpic.f.default
    view = passes.dispatch_table(op)
    won = won_cells(view.svg)
    assert won["CPU"] == "kernel on the key" and won["AutogradOther"] == "CompositeImplicitAutograd"
    assert 'fill="#e57373"' in view.svg  # ambiguous: red
    assert "fallthrough" in view.svg  # BackendSelect's fallback is a fallthrough
    # compact: every key once, runs of equal entries merged
    compact = str(passes.dispatch_table(op, compact=True))
    assert len(compact.splitlines()) < len(str(view).splitlines())
    counted = 0
    for line in compact.splitlines():
        m = re.search(r"\((\d+) keys\):", line)
        counted += int(m[1]) if m else 1
    assert counted == len(computed_table(op))
    assert "<dispatch table of dkpic::f" in repr(view) and "dispatchkit-picture" in view._repr_html_()


def test_keyset_bits_are_the_sets_bits() -> None:
    ks = DispatchKeySet([DispatchKey.CPU, DispatchKey.AutogradCPU, DispatchKey.Python, DispatchKey.Meta])
    root = ET.fromstring(passes.keyset_bits(ks).svg)
    on = {r.get("data-key") for r in root.iter(f"{SVG}rect") if "dk-on" in (r.get("class") or "")}
    assert on == {"Dense", "AutogradFunctionality", "Python", "CPU", "Meta"}
    outlined = {r.get("data-key") for r in root.iter(f"{SVG}rect") if r.get("stroke") == "#c0392b"}
    assert outlined == {"AutogradFunctionality", "Meta"}  # together: AutogradMeta, what the set dispatches to
    assert ks.highest_priority_type_id() == DispatchKey.AutogradMeta
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "dispatches to AutogradMeta" in texts
    assert "dispatches to (nothing: empty set)" in passes.keyset_bits(DispatchKeySet()).svg


def test_explain_picture_has_one_box_per_hop() -> None:
    x = D.randn(2, 3, requires_grad=True)
    e = D.explain_dispatch(D.ops.aten.mul.Tensor, x, x)
    root = ET.fromstring(passes.explain_picture(e).svg)
    hops = [g.get("data-how") for g in root.iter(f"{SVG}g") if g.get("class") == "dk-hop"]
    assert hops[:-1] == [s.how for s in e.steps] and hops[-1] == "end"
    assert "redispatch" in hops
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert any(t.startswith("\u2192 AutogradCPU") for t in texts) and any(t.startswith("returned") for t in texts)
    bad = D.explain_dispatch(D.ops.aten.mm.default, D.randn(2, 3), D.randn(2, 3))
    assert any(t.startswith("raised RuntimeError") for t in
               (t.text or "" for t in ET.fromstring(passes.explain_picture(bad).svg).iter(f"{SVG}text")))


def test_ipython_formatters_draw_key_sets_and_explanations() -> None:
    pytest.importorskip("IPython", reason="IPython is not installed")
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        from passes.dispatch_view import register_ipython_formatters

        assert register_ipython_formatters()
        data, _ = shell.display_formatter.format(DispatchKeySet(DispatchKey.CPU))
        assert "dk-keyset" in data["text/html"]
        data, _ = shell.display_formatter.format(D.explain_dispatch(D.ops.aten.neg.default, D.randn(2)))
        assert "dk-explain" in data["text/html"]
    finally:
        InteractiveShell.clear_instance()


def test_readable_units_and_op_stats_html() -> None:
    assert [readable_count(n) for n in (0, 312, 4096, 1_250_000, 3e9)] == ["0", "312", "4.1 K", "1.25 M", "3 G"]
    assert [readable_bytes(n) for n in (780, 1536, 5 << 20)] == ["780 B", "1.5 KiB", "5 MiB"]
    gm = make_fx(lambda x, w: (x @ w).relu().sum())(D.randn(64, 64), D.randn(64, 64))
    st = passes.op_stats(gm)
    text = str(st)
    assert "0.000" not in text and "524 K" in text  # 2*64*64*64 FLOPs, in its own unit
    html = st._repr_html_()
    assert html.count("<tr>") == len(st.rows) + 1 and "524 K" in html and 'title="524,288 FLOPs"' in html
    assert "532 K FLOPs" in repr(st)  # with the relu and the sum


def test_liveness_repr_is_short_and_plot_marks_the_peak() -> None:
    def f(x):
        for _ in range(40):
            x = (x * 2).relu()
        return x

    gm = make_fx(f)(D.randn(32, 32))
    live = passes.liveness(gm)
    assert len(repr(live)) < 120 and "peak_bytes=" in repr(live) and "nodes=82" in repr(live)
    root = ET.fromstring(live.plot_svg())
    assert len([c for c in root.iter(f"{SVG}circle") if c.get("class") == "dk-peak"]) == 1
    tips = [t.text for t in root.iter(f"{SVG}title")]
    assert len(tips) == len(live.order) and tips[0].startswith("x_1: 4 KiB")
    assert "dispatchkit-picture" in live._repr_html_()
