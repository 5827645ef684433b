"""Drawing captured graphs: graph -> networkx -> DOT text -> SVG / PNG, within a time budget.

``draw(gm, "out.svg")`` writes the drawing in the format the file name asks for (``.svg``, ``.png``,
``.dot`` / ``.gv``); ``to_dot(gm)`` returns the DOT text (always available, no Graphviz needed);
``to_svg(gm)`` returns SVG text. Boxes show the op, the node name, constant arguments and the value's
``f32[2, 3]``; colours tell the kind (placeholder, view, elementwise, reduction, matmul, backward op,
output, get_attr, other; in-place ops get a red border); edges carry the shapes flowing along them.
Beyond ``node_budget`` boxes the graph is collapsed (passes/collapse.py): module calls first (named by their
path, from ``meta["nn_module_stack"]``), then chains and blocks; boxes are clustered by module (or by user
function when there are no module stacks). ``rankdir="LR"`` lays the graph out from left to right.

Time budget: ``dot`` runs in a subprocess with a timeout (``layout_timeout``, default 6 s, shortened so that
preparation + layout stay within ``time_budget``, default 10 s), and drawings with more than ``LARGE``
boxes get Graphviz's layout limits (``nslimit``, ``nslimit1``, ``mclimit``, ``splines=line``, no edge
labels) and boxes feeding more than ``HUB_FANOUT`` boxes (a weight shared by every layer) are drawn
without their out-edges, noted in their label (each such edge runs down the whole drawing, and ``dot``
spends seconds routing hundreds of them). If ``dot`` still runs out of time, SVG falls back to the pure-Python layered layout of
passes/svg_layout.py (at most ``node_budget`` boxes: fast), so a graph gets its SVG within the time budget
as long as preparing the drawing (linear in the number of nodes) fits in it.
PNG has no such fallback: it is retried once with a quarter of the budget, then a ``DrawingTimeout`` is
raised. SVG and PNG need Graphviz's ``dot`` executable (``GraphvizNotFound`` otherwise, naming the
way out); ``engine="auto"`` (what ``GraphModule._repr_svg_`` uses) draws with the fallback layout instead.

``GraphModule._repr_svg_`` / ``_repr_html_`` (Jupyter) draw through passes/inline.py, which uses this module.
torch's counterpart: torch/fx/passes/graph_drawer.py (``FxGraphDrawer``, via pydot).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from .collapse import HUB_FANOUT as _HUB_FANOUT
from .collapse import drawing_graph, prune_hubs
from .dot import to_dot_text
from .nx import _build
from .svg_layout import layered_svg

__all__ = ["DrawingTimeout", "GraphvizNotFound", "draw", "render", "to_dot", "to_svg"]

#: boxes beyond which Graphviz gets layout limits and edges lose their labels
LARGE = 150
#: in large drawings, boxes feeding more boxes than this lose their out-edges (see collapse.prune_hubs)
HUB_FANOUT = _HUB_FANOUT
#: the layout limits for large drawings (Graphviz graph attributes)
LARGE_GRAPH_ATTRS = {"nslimit": "2", "nslimit1": "2", "mclimit": "0.3", "splines": "line", "searchsize": "10"}
FORMATS = {".svg": "svg", ".png": "png", ".dot": "dot", ".gv": "dot"}
#: seconds of ``time_budget`` kept for the layered fallback layout when ``dot`` runs out of time
FALLBACK_RESERVE = 1.0


class GraphvizNotFound(RuntimeError):
    """Graphviz's ``dot`` executable is needed (SVG / PNG) but is not on PATH.

    (Graphviz is run as a subprocess; the ``graphviz`` Python package is not used: DOT text is written by
    passes/dot.py, which escapes every label itself.)
    """

    def __init__(self, what: str) -> None:
        RuntimeError.__init__(self, f"{what} needs Graphviz's `dot` executable, which was not found on PATH. "
                                    "Install Graphviz (e.g. `apt-get install graphviz`), or write DOT text "
                                    "instead (a file name ending in .dot, or passes.to_dot(gm)).")


class DrawingTimeout(RuntimeError):
    """Graphviz did not lay the graph out within the time budget (PNG only; SVG falls back)."""


def _prepare(gm: Any, node_budget: int, cluster: bool | None) -> tuple[Any, str, bool]:
    if not isinstance(node_budget, int) or isinstance(node_budget, bool):
        raise TypeError(f"draw(node_budget=): expected an int, got {type(node_budget).__name__}")
    H, level = drawing_graph(_build(gm, costs=False, edge_attrs=False), node_budget=node_budget, cluster=cluster)
    large = H.number_of_nodes() > LARGE
    if large:
        prune_hubs(H, HUB_FANOUT)
    return H, level, large


def _name_of(gm: Any, name: str | None) -> str:
    if name is not None:
        return name
    return getattr(gm, "_class_name", None) or type(gm).__name__


def to_dot(gm: Any, name: str | None = None, *, node_budget: int = 300, cluster: bool | None = None,
           rankdir: str = "TB") -> str:
    """The DOT text of ``gm`` (GraphModule or Graph); needs no Graphviz. ``rankdir="LR"`` draws left to right."""
    H, _, large = _prepare(gm, node_budget, cluster)
    return to_dot_text(H, _name_of(gm, name), graph_attrs=LARGE_GRAPH_ATTRS if large else None,
                       edge_labels=not large, rankdir=rankdir)


def _dot_executable() -> str | None:
    return shutil.which("dot")


def _run_dot(text: str, fmt: str, timeout: float) -> bytes:
    exe = _dot_executable()
    if exe is None:
        raise GraphvizNotFound(f"rendering {fmt.upper()}")
    proc = subprocess.run([exe, f"-T{fmt}"], input=text.encode("utf-8"), capture_output=True, timeout=timeout,
                          check=False)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"dot -T{fmt} failed (exit status {proc.returncode}): {err[:2000]}")
    return proc.stdout


def to_svg(gm: Any, name: str | None = None, *, node_budget: int = 300, cluster: bool | None = None,
           layout_timeout: float = 6.0, time_budget: float = 10.0, engine: str = "dot", rankdir: str = "TB") -> str:
    """SVG text of ``gm``.

    ``engine``: ``"dot"`` (Graphviz; ``GraphvizNotFound`` when missing; the layered fallback when it times
    out), ``"layered"`` (the pure-Python layout only) or ``"auto"`` (``dot`` when installed, else layered).
    ``dot`` gets at most ``layout_timeout`` seconds, and less when preparing the drawing already used part
    of ``time_budget`` (``FALLBACK_RESERVE`` seconds are kept for the fallback layout). ``rankdir="LR"``
    draws from left to right.
    """
    if engine not in ("dot", "layered", "auto"):
        raise ValueError(f"to_svg(engine=): expected 'dot', 'layered' or 'auto', got {engine!r}")
    start = time.perf_counter()
    H, level, large = _prepare(gm, node_budget, cluster)
    title = _name_of(gm, name)
    if engine == "layered" or (engine == "auto" and _dot_executable() is None):
        return layered_svg(H, title, note="" if engine == "layered" else "Graphviz not installed", rankdir=rankdir)
    text = to_dot_text(H, title, graph_attrs=LARGE_GRAPH_ATTRS if large else None, edge_labels=not large,
                       rankdir=rankdir)
    timeout = min(layout_timeout, time_budget - (time.perf_counter() - start) - FALLBACK_RESERVE)
    if timeout <= 0:
        return layered_svg(H, title, note=f"no time left for dot within {time_budget:g} s", rankdir=rankdir)
    try:
        return _run_dot(text, "svg", timeout).decode("utf-8")
    except subprocess.TimeoutExpired:
        return layered_svg(H, title, note=f"dot took longer than {timeout:.3g} s", rankdir=rankdir)


def render(gm: Any, fmt: str, name: str | None = None, *, node_budget: int = 300, cluster: bool | None = None,
           layout_timeout: float = 6.0, time_budget: float = 10.0, rankdir: str = "TB") -> bytes:
    """The drawing as bytes in ``fmt`` (``"svg"``, ``"png"`` or ``"dot"``)."""
    if fmt == "dot":
        return to_dot(gm, name, node_budget=node_budget, cluster=cluster, rankdir=rankdir).encode("utf-8")
    if fmt == "svg":
        return to_svg(gm, name, node_budget=node_budget, cluster=cluster, layout_timeout=layout_timeout,
                      time_budget=time_budget, rankdir=rankdir).encode("utf-8")
    if fmt != "png":
        raise ValueError(f"render(fmt=): expected 'svg', 'png' or 'dot', got {fmt!r}")
    if _dot_executable() is None:
        raise GraphvizNotFound("rendering PNG")
    budget = node_budget
    for attempt in range(2):
        H, _, large = _prepare(gm, budget, cluster)
        text = to_dot_text(H, _name_of(gm, name), graph_attrs=LARGE_GRAPH_ATTRS if large else None,
                           edge_labels=not large, rankdir=rankdir)
        try:
            return _run_dot(text, "png", layout_timeout)
        except subprocess.TimeoutExpired:
            if attempt == 1:
                raise DrawingTimeout(f"dot -Tpng did not finish within {layout_timeout:g} s even with "
                                     f"node_budget={budget}; draw an .svg (it has a fallback layout) or pass a "
                                     "smaller node_budget") from None
            budget = max(1, budget // 4)
    raise AssertionError("unreachable")


def format_of(path: str | os.PathLike) -> str:
    """The drawing format a file name asks for (``svg``, ``png``, ``dot``); ValueError naming the choices."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ValueError(f"draw: cannot tell the format from the file name {str(path)!r}: expected a name ending "
                         f"in {', '.join(FORMATS)}")
    return fmt


def draw(gm: Any, path: str | os.PathLike, name: str | None = None, *, node_budget: int = 300,
         cluster: bool | None = None, layout_timeout: float = 6.0, time_budget: float = 10.0,
         rankdir: str = "TB") -> Path:
    """Write the drawing of ``gm`` to ``path``; the format comes from the extension (.svg, .png, .dot, .gv)."""
    p = Path(path)
    fmt = format_of(p)
    data = render(gm, fmt, name, node_budget=node_budget, cluster=cluster, layout_timeout=layout_timeout,
                  time_budget=time_budget, rankdir=rankdir)
    p.write_bytes(data)
    return p

