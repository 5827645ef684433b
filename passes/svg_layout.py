"""A simple layered SVG layout in pure Python: the fallback when Graphviz's ``dot`` is too slow or absent.

``layered_svg(H)`` draws a drawing graph (see passes/dot.py) without Graphviz: each box sits in the row of
its topological generation (``networkx.topological_generations``), boxes of a row side by side in graph
order, edges as straight lines with arrow heads. It is linear in the size of the graph, so it always
finishes; the result is less pretty than ``dot``'s. Every text is XML-escaped after the same sanitizing
the DOT labels get, so no string from the graph can break the document. The output has the same
structure as ``dot``'s for nodes (``<g class="node"><title>..</title>...</g>``), so tools that count or
find nodes in ``dot``'s SVG work on it too. No torch counterpart.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

import networkx as nx

from .dot import KIND_STYLE, sanitize

__all__ = ["layered_svg"]

_CHAR_W = 6.2  # px per character at font-size 10 (Helvetica, rough)
_LINE_H = 13.0
_PAD = 8.0
_GAP_X = 20.0
_GAP_Y = 36.0


def _attr(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def layered_svg(H: nx.DiGraph, title: str = "G", note: str = "", rankdir: str = "TB") -> str:
    """SVG text for drawing graph ``H`` laid out in rows by topological generation (columns for ``rankdir="LR"``)."""
    lr = rankdir == "LR"
    try:
        rows = [list(gen) for gen in nx.topological_generations(H)]
    except nx.NetworkXUnfeasible:  # a cycle (not produced by our drawings): one box per row
        rows = [[n] for n in H.nodes]
    order = {n: i for i, n in enumerate(H.nodes)}
    size: dict = {}
    for n, a in H.nodes(data=True):
        lines = [sanitize(line) for line in a.get("lines", [str(n)])]
        w = max((len(line) for line in lines), default=1) * _CHAR_W + 2 * _PAD
        h = len(lines) * _LINE_H + _PAD
        size[n] = (w, h, lines)
    pos: dict = {}
    y = _PAD
    width = 0.0
    for row in rows:
        row.sort(key=order.__getitem__)
        x = _PAD
        row_h = 0.0
        for n in row:
            w, h, _ = size[n]
            if lr:  # a generation is a column: boxes stacked downwards, generations side by side
                pos[n] = (y, x)
                x += h + _GAP_X / 2
                row_h = max(row_h, w)
            else:
                pos[n] = (x, y)
                x += w + _GAP_X
                row_h = max(row_h, h)
        width = max(width, x)
        y += row_h + (_GAP_Y * 1.5 if lr else _GAP_Y)
    height = y
    if lr:
        width, height = height, width
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}pt" height="{height:.0f}pt" '
           f'viewBox="0 0 {width:.0f} {height:.0f}">',
           f"<!-- layout: dispatchkit layered fallback{_attr(' (' + sanitize(note) + ')') if note else ''} -->",
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
           'orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555555"/></marker></defs>',
           f'<g id="graph0" class="graph"><title>{escape(sanitize(title))}</title>']
    for i, (u, v) in enumerate(H.edges):
        (xu, yu), (wu, hu, _) = pos[u], size[u]
        (xv, yv), (wv, _, _) = pos[v], size[v]
        hv = size[v][1]
        x1, y1, x2, y2 = ((xu + wu, yu + hu / 2, xv, yv + hv / 2) if lr else (xu + wu / 2, yu + hu, xv + wv / 2, yv))
        out.append(f'<g id="edge{i + 1}" class="edge"><line x1="{x1:.1f}" y1="{y1:.1f}" '
                   f'x2="{x2:.1f}" y2="{y2:.1f}" stroke="#555555" stroke-width="0.8" '
                   'marker-end="url(#arrow)"/></g>')
    for i, (n, a) in enumerate(H.nodes(data=True)):
        (x, y0), (w, h, lines) = pos[n], size[n]
        fill = KIND_STYLE.get(a.get("kind", "other"), KIND_STYLE["other"])
        stroke = ' stroke="#c0392b" stroke-width="2.5"' if a.get("mutates") else ' stroke="#000000"'
        out.append(f'<g id="node{i + 1}" class="node"><title>n{i}</title>')
        if a.get("tooltip"):
            out.append(f"<desc>{escape(sanitize(a['tooltip'], limit=400))}</desc>")
        out.append(f'<rect x="{x:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" fill="{fill}"{stroke}/>')
        for j, line in enumerate(lines):
            out.append(f'<text x="{x + w / 2:.1f}" y="{y0 + _PAD / 2 + (j + 0.8) * _LINE_H:.1f}" text-anchor="middle" '
                       f'font-family="Helvetica,sans-Serif" font-size="10">{escape(line)}</text>')
        out.append("</g>")
    out.append("</g></svg>")
    return "\n".join(out) + "\n"
