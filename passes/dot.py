"""DOT text for a drawing, built by hand (no Graphviz needed), with every label escaped.

``to_dot_text(H)`` writes the Graphviz DOT source of a *drawing graph*: a ``networkx.DiGraph`` whose nodes
carry ``lines`` (label lines, raw text), ``kind`` (a KINDS entry, which picks the colour), ``tooltip``,
``cluster`` (None, a title, or a ``(key, title)`` tuple: boxes with equal keys share a cluster) or
``clusters`` (nested clusters: a list of ``(key, title)`` pairs, outermost first),
``mutates`` (a thick red border) and ``group`` (a double border: the box stands for several nodes), and
whose edges may carry ``label`` (raw text). passes/drawing.py builds that graph from a captured graph.

Escaping: DOT node ids are generated (``n0``, ``n1``, ...), never taken from the graph. Every label is a
*quoted* DOT string (never an HTML-like ``<...>`` label, never a record shape, so ``< > | { }`` mean
nothing), built by ``escape_label``: characters that are not printable (control characters, NUL, line and
paragraph separators, lone surrogates, ...) become visible ``\\x..`` / ``\\u....`` escapes first, overlong
text is shortened, then every backslash is doubled (so Graphviz's own escapes ``\\N``, ``\\G``, ``\\l``
... stay literal text), double quotes are escaped and ``&`` becomes ``&amp;`` (Graphviz decodes HTML
entities in labels); line breaks are the only ``\\n`` we emit.
torch's counterpart, torch/fx/passes/graph_drawer.py, builds DOT through pydot with record shapes.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

__all__ = ["KIND_STYLE", "escape_label", "sanitize", "to_dot_text"]

#: fill colour per node kind (passes/costs.py KINDS)
KIND_STYLE = {
    "placeholder": "#a6d8f0",
    "get_attr": "#d9d2e9",
    "view": "#eeeeee",
    "elementwise": "#c9e7b6",
    "reduction": "#ffe08a",
    "matmul": "#f7b27a",
    "backward": "#f4a6b7",
    "other": "#ffffff",
    "output": "#a6d8f0",
    "group": "#d5ecc8",
    "module": "#dfe6f6",
}

#: the longest label line we keep (longer text is cut with an ellipsis)
MAX_LINE = 60


def sanitize(text: Any, limit: int = MAX_LINE) -> str:
    """``text`` as one printable line: unprintable characters as ``\\x..``/``\\u....`` escapes, cut at ``limit``."""
    if not isinstance(text, str):
        try:
            text = str(text)
        except Exception as e:  # noqa: BLE001 - a hostile __str__ must not break a drawing
            text = f"<unprintable {type(text).__name__}: {type(e).__name__}>"
    if text.isprintable():  # the common case (surrogates and control characters are not printable)
        return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"
    out = []
    for ch in text:
        if ch.isprintable() and not ("\ud800" <= ch <= "\udfff"):
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        if len(out) > limit:
            break
    result = "".join(out)
    return result if len(result) <= limit else result[: max(0, limit - 1)] + "…"


def escape_label(lines: list[Any] | str, limit: int = MAX_LINE, entities: bool = True) -> str:
    """A DOT quoted-string body showing ``lines`` literally, one per line (see the module docstring).

    ``entities``: also write ``&`` as ``&amp;`` (Graphviz turns ``&lt;``, ``&#65;`` ... in labels into the
    characters they name; this keeps them literal). Off for strings that are not labels (the graph's name).
    """
    if isinstance(lines, str):
        lines = lines.split("\n")
    parts = []
    for line in lines:
        text = sanitize(line, limit).replace("\\", "\\\\").replace('"', '\\"')
        parts.append(text.replace("&", "&amp;") if entities else text)
    return "\\n".join(parts)


class _ClusterTree:
    """Nested clusters: boxes directly in this cluster and the clusters inside it, keyed by (key, title)."""

    def __init__(self) -> None:
        self.members: list[Any] = []
        self.children: dict[tuple[Any, str], _ClusterTree] = {}

    def add(self, path: list[tuple[Any, str]], node: Any) -> None:
        t = self
        for key, title in path:
            t = t.children.setdefault((key, str(title)), _ClusterTree())
        t.members.append(node)


def _attrs(**attrs: Any) -> str:
    items = []
    for key, value in attrs.items():
        if value is None:
            continue
        items.append(f'{key}="{value}"')
    return "[" + ", ".join(items) + "]" if items else ""


def to_dot_text(H: nx.DiGraph, name: str = "G", *, graph_attrs: dict[str, Any] | None = None,
                edge_labels: bool = True, rankdir: str = "TB") -> str:
    """The DOT source of drawing graph ``H`` (see the module docstring).

    ``graph_attrs`` adds graph attributes (layout limits such as ``nslimit``); their values are escaped too.
    ``rankdir``: ``"TB"`` (inputs at the top) or ``"LR"`` (inputs on the left).
    """
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"rankdir: expected 'TB', 'LR', 'BT' or 'RL', got {rankdir!r}")
    ids = {n: f"n{i}" for i, n in enumerate(H.nodes)}
    out = [f'digraph "{escape_label([name], entities=False)}" {{',
           '  charset="UTF-8";', f'  rankdir="{rankdir}";', '  newrank="true";',
           '  node [shape="box", style="rounded,filled", fontname="Helvetica", fontsize="10", '
           'margin="0.08,0.04", height="0.3"];',
           '  edge [fontname="Helvetica", fontsize="8", color="#555555", arrowsize="0.6"];']
    for key, value in (graph_attrs or {}).items():
        out.append(f'  {key}="{escape_label([value])}";')

    def node_line(n: Any, a: dict[str, Any]) -> str:
        kind = a.get("kind", "other")
        mutates = a.get("mutates", False)
        return "  " + ids[n] + " " + _attrs(
            label=escape_label(a.get("lines", [n])),
            tooltip=escape_label(a.get("tooltip", ""), limit=400) if a.get("tooltip") else None,
            fillcolor=KIND_STYLE.get(kind, KIND_STYLE["other"]),
            penwidth="2.5" if mutates else None,
            color="#c0392b" if mutates else None,
            peripheries="2" if a.get("group") else None,
        ) + ";"

    clusters: dict[Any, list[Any]] = {}
    tree = _ClusterTree()
    for n, a in H.nodes(data=True):
        c = a.get("cluster")
        path = a.get("clusters")
        if path:
            tree.add(list(path), n)
        elif c is None:
            out.append(node_line(n, a))
        else:
            clusters.setdefault(c, []).append(n)
    for i, (key, members) in enumerate(clusters.items()):
        title = key[-1] if isinstance(key, tuple) else key
        out.append(f"  subgraph cluster_{i} {{")
        out.append(f'    label="{escape_label([title])}"; style="dashed"; color="#888888"; fontname="Helvetica"; '
                   'fontsize="9";')
        out.extend("  " + node_line(n, H.nodes[n]) for n in members)
        out.append("  }")
    counter = [len(clusters)]

    def emit(t: _ClusterTree, depth: int) -> None:
        pad = "  " * depth
        for n in t.members:
            out.append(pad + node_line(n, H.nodes[n]))
        for (_, title), child in t.children.items():
            counter[0] += 1
            out.append(f"{pad}subgraph cluster_{counter[0]} {{")
            out.append(f'{pad}  label="{escape_label([title])}"; style="rounded,dashed"; color="#7a8bb0"; '
                       'fontname="Helvetica"; fontsize="9"; labeljust="l";')
            emit(child, depth + 1)
            out.append(pad + "}")

    emit(tree, 1)
    for u, v, a in H.edges(data=True):
        label = a.get("label") if edge_labels else None
        # xlabel: placed after layout (a `label` becomes a virtual node dot must rank: ~2x slower)
        out.append(f"  {ids[u]} -> {ids[v]} " + _attrs(xlabel=escape_label([label], limit=40) if label else None) + ";")
    out.append("}")
    return "\n".join(out) + "\n"
