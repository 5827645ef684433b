"""Pictures for Jupyter: graphs drawn inline in a box that fits the page.

A ``GraphModule`` shows itself as a drawing in a notebook (``GraphModule._repr_html_`` / ``_repr_svg_`` call
``graph_html`` / ``graph_svg`` here, with only ``tracer`` imported: see tracer/graph_module.py). The drawing
is scaled to the width of the output cell and sits in a box of at most ``options["max_height"]`` pixels that
scrolls, so a 3,000-point-tall graph does not fill the page. ``show(gm, rankdir="LR")`` gives the same
picture with other settings (left to right, another height or node budget); ``side_by_side(a, b)`` puts two
or more graphs next to each other (pre- vs post-dispatch, before vs after a pass), each in its own box.

Every object returned here is a ``Picture``: ``_repr_html_`` for Jupyter, ``.svg`` / ``.html`` for the text,
``.save(path)`` to write it. Drawing uses passes/drawing.py with ``engine="auto"`` (Graphviz's ``dot`` when
installed, else the pure-Python layout). torch's counterpart: none (``FxGraphDrawer`` writes files only).
"""

from __future__ import annotations

import html
import os
import re
from typing import Any

from .drawing import to_svg

__all__ = ["Picture", "graph_html", "graph_svg", "options", "picture_html", "show", "side_by_side"]

#: defaults of the inline pictures (GraphModule's display hook uses them): change them for a whole notebook
options: dict[str, Any] = {"max_height": 520, "rankdir": "TB", "node_budget": 300}

_PROLOG = re.compile(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*", re.S)
_SVG_OPEN = re.compile(r"<svg\b")


def strip_prolog(svg: str) -> str:
    """SVG text without its XML declaration, DOCTYPE and leading comments (so that it can sit inside HTML)."""
    return _PROLOG.sub("", svg, count=1)


def fit_width(svg: str) -> str:
    """``svg`` scaled down to the width of its container (never up), keeping its proportions."""
    return _SVG_OPEN.sub('<svg style="max-width:100%;height:auto"', strip_prolog(svg), count=1)


def picture_html(body: str, max_height: int | None = None, caption: str = "") -> str:
    """``body`` (inline SVG or HTML) in a box at most ``max_height`` px tall that scrolls, with a caption."""
    h = options["max_height"] if max_height is None else max_height
    cap = (f'<div style="font:11px sans-serif;color:#555;margin:2px 0">{html.escape(caption)}</div>'
           if caption else "")
    return (f'<div class="dispatchkit-picture">{cap}<div style="max-height:{int(h)}px;overflow:auto;'
            'border:1px solid #ddd;border-radius:3px;padding:4px;background:#fff">' + body + "</div></div>")


class Picture:
    """A picture for Jupyter (``_repr_html_``) that can also be saved (``.save("x.html")`` / ``"x.svg"``)."""

    def __init__(self, html_text: str, svg: str | None = None, title: str = "picture") -> None:
        self.html = html_text
        self.svg = svg
        self.title = title

    def _repr_html_(self) -> str:
        return self.html

    def save(self, path: str | os.PathLike) -> str:
        """Write ``.svg`` (the drawing alone) or ``.html`` (a page with the picture); returns the path."""
        p = os.fspath(path)
        if p.lower().endswith(".svg"):
            if self.svg is None:
                raise ValueError(f"{self.title}: this picture has several drawings; save it as .html")
            text = self.svg
        elif p.lower().endswith((".html", ".htm")):
            text = ('<!doctype html>\n<html><head><meta charset="utf-8"><title>' + html.escape(self.title)
                    + "</title></head><body>" + self.html + "</body></html>\n")
        else:
            raise ValueError(f"Picture.save: expected a file name ending in .svg or .html, got {p!r}")
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(text)
        return p

    def __repr__(self) -> str:
        return f"<Picture: {self.title}>"


def _caption(gm: Any, svg: str) -> str:
    graph = getattr(gm, "graph", gm)
    n = len(graph.nodes)
    boxes = svg.count('class="node"')
    name = getattr(gm, "_class_name", None) or type(gm).__name__
    text = f"{name}: {n} nodes"
    if boxes and boxes < n:
        text += f", drawn as {boxes} boxes (modules and chains collapsed; passes.view(gm) opens them)"
    return text


def graph_svg(gm: Any, *, rankdir: str | None = None, node_budget: int | None = None) -> str:
    """The drawing of ``gm`` as SVG text without XML prolog (what ``GraphModule._repr_svg_`` returns)."""
    return strip_prolog(to_svg(gm, engine="auto", rankdir=rankdir or options["rankdir"],
                               node_budget=node_budget or options["node_budget"]))


def graph_html(gm: Any, *, rankdir: str | None = None, node_budget: int | None = None,
               max_height: int | None = None) -> str:
    """The drawing of ``gm`` fitted to the cell width in a scrollable box (what ``_repr_html_`` returns)."""
    svg = graph_svg(gm, rankdir=rankdir, node_budget=node_budget)
    return picture_html(fit_width(svg), max_height, _caption(gm, svg))


def show(gm: Any, *, rankdir: str | None = None, node_budget: int | None = None,
         max_height: int | None = None) -> Picture:
    """``gm``'s picture with other settings: ``rankdir="LR"`` (left to right), ``max_height`` px, ``node_budget``."""
    svg = graph_svg(gm, rankdir=rankdir, node_budget=node_budget)
    name = getattr(gm, "_class_name", None) or type(gm).__name__
    return Picture(picture_html(fit_width(svg), max_height, _caption(gm, svg)), svg, name)


def side_by_side(*gms: Any, titles: list[str] | None = None, rankdir: str | None = None,
                 node_budget: int | None = None, max_height: int | None = None) -> Picture:
    """Two or more graphs next to each other, each in its own scrollable box, with a title above each."""
    if not gms:
        raise ValueError("side_by_side: expected at least one graph")
    if titles is not None and len(titles) != len(gms):
        raise ValueError(f"side_by_side: {len(gms)} graphs but {len(titles)} titles")
    cols = []
    for i, gm in enumerate(gms):
        title = titles[i] if titles else (getattr(gm, "_class_name", None) or f"graph {i + 1}")
        svg = graph_svg(gm, rankdir=rankdir, node_budget=node_budget)
        cols.append('<div style="flex:1;min-width:0"><div style="font:bold 12px sans-serif;margin:2px 0">'
                    + html.escape(title) + "</div>" + picture_html(fit_width(svg), max_height, _caption(gm, svg))
                    + "</div>")
    body = '<div style="display:flex;gap:8px;align-items:flex-start">' + "".join(cols) + "</div>"
    return Picture(body, None, " | ".join(titles or []) or "graphs")
