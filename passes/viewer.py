"""The interactive graph viewer: one self-contained HTML file (no network at view time) for any graph.

``passes.view(gm)`` returns a ``Viewer``; ``.save("g.html")`` writes the page, and in Jupyter it shows inline
(in an ``<iframe srcdoc>``, so its script runs isolated from the notebook). ``passes.view([pre, post],
titles=[...])`` puts two graphs side by side with the matching nodes linked. The page (passes/viewer.js and
viewer.css, inlined) lays the graph out itself, in layers, so that it can re-lay it out when a module group is
opened or closed. In the page:

* drag to pan, the wheel (or + / -) to zoom, "fit" to see everything;
* module calls (``meta["nn_module_stack"]``, see passes/module_groups.py) are groups: a closed group is one box
  named by its path ("layers.3.attn"), click it to open it; an open group is a framed area, click its title to
  close it; the module tree on the right opens and closes them too; groups start closed above a size budget
  (the same level-by-level rule as the drawings);
* search by op or node name: matches are highlighted (closed groups show how many they hold), Enter jumps to
  the next one, opening the groups around it;
* click a node for its details: target, arguments (FX's format), shape / dtype, module path, the user function
  and the stack trace;
* with two graphs, clicking a node highlights and centres its matches in the other graph: nodes with the same
  name and target (before / after a pass), else nodes issued by the same user source line in the same module
  call (pre- vs post-dispatch: ``linear`` <-> ``t`` + ``addmm``), placeholders by position, output to output.

Every string from the graph reaches the page as JSON (with ``<``, ``>`` and ``&`` escaped) and is put into the
page with ``textContent`` only, never as markup. torch's counterpart: none (torch.fx draws static files;
model-explorer style viewers are separate tools).
"""

from __future__ import annotations

import html
import json
import operator
import os
from importlib import resources
from typing import Any

from dispatcher.op_overload import OpOverload
from tracer.node import Node, pretty_target

from .costs import short_target, user_frame
from .dot import sanitize
from .module_groups import Scope, choose_expanded, module_scopes
from .nx import _build

__all__ = ["Viewer", "graph_data", "match_nodes", "view"]

#: the viewer opens module groups level by level while the page has at most this many boxes
VIEW_BUDGET = 120
_TEXT_LIMIT = 2000


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _text(value: Any, limit: int = _TEXT_LIMIT) -> str:
    """Printable text for the page: unprintable characters escaped, long text cut (see passes/dot.py)."""
    if value is None:
        return ""
    if isinstance(value, str) and "\n" in value:
        return "\n".join(sanitize(line, limit) for line in value.split("\n"))[:limit * 4]
    return sanitize(value, limit)


def _format(node: Any) -> str:
    try:
        return node.format_node() if node.op != "output" else f"output {node.args!r}"
    except Exception as e:  # noqa: BLE001 - a constant whose __str__ raises must not break the page
        return f"{node.name} (arguments not printable: {type(e).__name__})"


def _short(node: Any) -> str:
    """What a box shows first: ``addmm``, ``add.Tensor`` (``.default`` dropped), else the node's name."""
    if node.op != "call_function":
        return node.name
    text = short_target(node)
    return text[:-8] if text.endswith(".default") else text


def _full_target(node: Any) -> str:
    """``aten.addmm.default``, ``operator.getitem``, an attribute path, or the opcode."""
    if node.op == "call_function":
        return str(node.target) if isinstance(node.target, OpOverload) else pretty_target(node.target)
    if node.op in ("get_attr", "call_method", "call_module"):
        return f"{node.op} {node.target}"
    return node.op


def graph_data(gm: Any, title: str | None = None, budget: int = VIEW_BUDGET) -> dict[str, Any]:
    """The JSON-able description of ``gm`` the page draws: nodes, module scopes, which scopes start open."""
    G = _build(gm, costs=False, edge_attrs=False)
    attrs = sorted(G.nodes(data=True), key=lambda kv: kv[1]["index"])
    keys = [k for k, _ in attrs]
    index = {k: i for i, k in enumerate(keys)}
    top, owner = module_scopes([a["node"] for _, a in attrs], keys)
    scopes: list[Scope] = [s for t in top for s in t.walk()]
    sid = {s: i for i, s in enumerate(scopes)}
    free = sum(1 for o in owner if o is None)
    opened = choose_expanded(top, free, budget) if len(keys) > budget else set(scopes)
    nodes = []
    for i, (key, a) in enumerate(attrs):
        node = a["node"]
        stack = node.meta.get("nn_module_stack")
        frame = user_frame(node)
        nodes.append({
            "name": _text(node.name, 200),
            "op": node.op,
            "target": _text(_full_target(node), 300),
            "short": _text(_short(node), 80),
            "kind": a["kind"],
            "label": _text(a["label"], 200),
            "format": _text(_format(node)),
            "stack": _text(node.meta.get("stack_trace") or ""),
            "fn": _text(node.meta.get("user_fn") or (frame[2] if frame else ""), 200),
            "module": _text(next(reversed(stack.values()))[0] if isinstance(stack, dict) and stack else "", 300),
            "scope": sid[owner[i]] if owner[i] is not None else -1,
            "inputs": sorted({index[k] for k in G.predecessors(key)}),
        })
    return {
        "title": _text(title if title is not None else getattr(gm, "_class_name", None) or type(gm).__name__, 200),
        "nodes": nodes,
        "scopes": [{"fqn": _text(s.fqn + s.call_suffix, 300), "cls": _text(s.cls, 200), "title": _text(s.title, 300),
                    "parent": sid[s.parent] if s.parent is not None else -1, "start": s.start, "end": s.end,
                    "size": s.size, "children": [sid[c] for c in s.children]} for s in scopes],
        "open": sorted(sid[s] for s in opened),
    }


def _source_key(node: Any) -> tuple | None:
    frame = user_frame(node)
    if frame is None:
        return None
    stack = node.meta.get("nn_module_stack")
    call = next(reversed(stack)) if isinstance(stack, dict) and stack else None
    return (frame[0], frame[1], call)


def _base(node: Any) -> str:
    """The op's name for anchoring (``layer_norm`` for ``aten.native_layer_norm.default``; a getitem: its producer's)."""
    if node.target is operator.getitem and node.args and isinstance(node.args[0], Node):
        return _base(node.args[0])
    target = node.target
    if isinstance(target, OpOverload):
        name = target.name_without_overload().split("::")[-1]
    else:
        name = getattr(target, "__name__", str(target))
    return name.removeprefix("native_").strip("_")


def _related(a: str, b: str) -> bool:
    return bool(a) and bool(b) and (a in b or b in a)


def _align(xs: list[Any], ys: list[Any]) -> dict[Any, list[Any]]:
    """Match the nodes one source line issued in two graphs: ops of the same name are anchors, in order (``relu``
    <-> ``relu``, ``layer_norm`` <-> ``native_layer_norm``); the ops between two anchors on one side match those
    between the same anchors on the other (``linear`` <-> ``t``, ``addmm``)."""
    anchors: list[tuple[int, int]] = []
    j0 = 0
    for i, x in enumerate(xs):
        bx = _base(x)
        for j in range(j0, len(ys)):
            if _related(bx, _base(ys[j])):
                anchors.append((i, j))
                j0 = j + 1
                break
    out: dict[Any, list[Any]] = {x: [] for x in xs}
    bounds = [(-1, -1), *anchors, (len(xs), len(ys))]
    for (i0, j0), (i1, j1) in zip(bounds, bounds[1:]):
        if (i1, j1) != (len(xs), len(ys)):
            out[xs[i1]].append(ys[j1])
            # getitems of an anchored multi-output op go with it
        seg_x, seg_y = xs[i0 + 1:i1], ys[j0 + 1:j1]
        for x in seg_x:
            out[x].extend(seg_y)
    for x, matched in out.items():
        extra = [y for y in ys if y.target is operator.getitem and y.args and y.args[0] in matched]
        out[x] = list(dict.fromkeys([*matched, *extra]))
    return out


def match_nodes(a: Any, b: Any) -> list[list[int]]:
    """For each node of graph ``a`` (graph order), the indices of its matching nodes in graph ``b`` (see the
    module docstring: same name and target; else same source line and module call, aligned on op names;
    placeholders by position)."""
    na, nb = list(getattr(a, "graph", a).nodes), list(getattr(b, "graph", b).nodes)
    pos_b = {n: i for i, n in enumerate(nb)}
    names_b = {(n.name, str(n.target)): n for n in nb}
    calls = ("call_function", "call_method", "call_module", "get_attr")
    same_a = {n for n in na if (n.name, str(n.target)) in names_b}
    same_b = {names_b[(n.name, str(n.target))] for n in same_a}
    groups_a: dict[tuple, list[Any]] = {}
    groups_b: dict[tuple, list[Any]] = {}
    for nodes, groups, same in ((na, groups_a, same_a), (nb, groups_b, same_b)):
        for n in nodes:
            if n.op in calls and n not in same:
                key = _source_key(n)
                if key is not None:
                    groups.setdefault(key, []).append(n)
    aligned: dict[Any, list[Any]] = {}
    for key, xs in groups_a.items():
        aligned.update(_align(xs, groups_b.get(key, [])))
    placeholders_b = [n for n in nb if n.op == "placeholder"]
    out: list[list[int]] = []
    ph = 0
    for n in na:
        if n.op == "placeholder":
            out.append([pos_b[placeholders_b[ph]]] if ph < len(placeholders_b) else [])
            ph += 1
        elif n.op == "output":
            out.append([i for i, m in enumerate(nb) if m.op == "output"])
        elif n in same_a:
            out.append([pos_b[names_b[(n.name, str(n.target))]]])
        else:
            out.append(sorted(pos_b[m] for m in aligned.get(n, [])))
    return out


def _json_for_script(data: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` characters at all."""
    return (json.dumps(data, ensure_ascii=True, separators=(",", ":"))
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


class Viewer:
    """The viewer page of one or two graphs: ``.html`` (the text), ``.save(path)``, inline in Jupyter."""

    def __init__(self, page: str, title: str) -> None:
        self.html = page
        self.title = title

    def save(self, path: str | os.PathLike) -> str:
        """Write the page (one file, nothing else needed to view it); returns the path."""
        p = os.fspath(path)
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(self.html)
        return p

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" style="width:100%;height:640px;'
                'border:1px solid #ddd" sandbox="allow-scripts"></iframe>')

    def __repr__(self) -> str:
        return f"<Viewer: {self.title} ({len(self.html)} characters of HTML)>"


def view(graphs: Any, titles: list[str] | None = None, *, budget: int = VIEW_BUDGET) -> Viewer:
    """The interactive viewer of a GraphModule, or of a list of two shown side by side with matches linked."""
    gms = list(graphs) if isinstance(graphs, (list, tuple)) else [graphs]
    if not 1 <= len(gms) <= 2:
        raise ValueError(f"view: expected one graph or a list of two, got {len(gms)}")
    if titles is not None and len(titles) != len(gms):
        raise ValueError(f"view: {len(gms)} graphs but {len(titles)} titles")
    data = {"graphs": [graph_data(gm, titles[i] if titles else None, budget) for i, gm in enumerate(gms)],
            "links": []}
    if len(gms) == 2:
        data["links"] = [match_nodes(gms[0], gms[1]), match_nodes(gms[1], gms[0])]
    title = " vs ".join(g["title"] for g in data["graphs"])
    page = ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)} - dispatchkit viewer</title>\n"
            f"<style>\n{_asset('viewer.css')}</style>\n</head><body>\n"
            f"<script type=\"application/json\" id=\"dk-data\">{_json_for_script(data)}</script>\n"
            f"<script>\n{_asset('viewer.js')}</script>\n</body></html>\n")
    return Viewer(page, title)
