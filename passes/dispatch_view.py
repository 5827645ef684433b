"""The dispatcher drawn: a dispatch table as a grid, a key set as its bits, ``explain_dispatch``'s hops as a diagram.

* ``dispatch_table(op, compact=False)``: rows are the runtime keys that have an entry (dump order, as
  ``torch._C._dispatch_dump_table``), columns are where a kernel can come from, in the precedence order of
  dispatcher/dispatch_table.py (``compute_entry``): a kernel registered on the key, the
  CompositeExplicitAutogradNonFunctional / CompositeExplicitAutograd / CompositeImplicitAutogradNestedTensor /
  CompositeImplicitAutograd / Autograd / FuncTorchBatchedDecomposition aliases covering it, the key's backend
  fallback. The cell of the rule that picked the kernel is coloured (one colour per rule); other candidates that
  exist but lost are grey; a fallthrough is marked. ``compact=True`` merges runs of keys with the same entry
  ("AutogradOther ... AutogradNestedTensor (18 keys)"); ``str()`` is the text table (``dump_table``'s format, or
  its compact form).
* ``keyset_bits(ks)``: the 64-bit layout of a ``DispatchKeySet``: one cell per functionality bit (highest
  priority on the left) and one per backend bit, set bits filled, the key the set dispatches to outlined.
* ``explain_picture(explanation)``: each hop of ``explain_dispatch`` as a box (fresh calls indented by nesting,
  redispatches joined by arrows): where the keys came from, the key set, the key and kernel chosen and why.

Each returns a ``Picture`` (passes/inline.py): inline in Jupyter, ``.svg`` / ``.save()``. Importing ``passes``
inside IPython also registers HTML formatters, so that a ``DispatchKeySet`` or a ``DispatchExplanation`` left
as a cell's value is drawn (``register_ipython_formatters``). The command line draws them with
``dispatchkit dispatch-table OP --svg PATH`` and ``dispatchkit explain OP ... --svg PATH``. torch's
counterparts are text only (``_dispatch_dump_table``, ``DispatchKeySet.__repr__``).
"""

from __future__ import annotations

import os
import sys
from typing import Any
from xml.sax.saxutils import escape

from dispatcher.alias import is_included_in_alias
from dispatcher.dispatch_table import computed_table
from dispatcher.explain import DispatchExplanation, DispatchStep, PythonDispatcherStep
from dispatcher.keys import BACKENDS, NUM_BACKENDS, NUM_FUNCTIONALITIES, DispatchKey
from dispatcher.keyset import FUNCTIONALITY_SHIFT, DispatchKeySet, highest_priority_key
from dispatcher.registry import REGISTRY

from .dot import sanitize
from .inline import Picture, picture_html

__all__ = ["DispatchTableView", "dispatch_table", "explain_picture", "keyset_bits", "register_ipython_formatters"]

DK = DispatchKey

#: (column title, the alias key or None, the table tag of compute_entry that means "this column won", colour)
SOURCES: tuple[tuple[str, Any, tuple[str, ...], str], ...] = (
    ("kernel on the key", None, ("kernel",), "#7fb3e0"),
    ("CompositeExplicitAutogradNonFunctional", DK.CompositeExplicitAutogradNonFunctional,
     ("default backend kernel",), "#9fd4a3"),
    ("CompositeExplicitAutograd", DK.CompositeExplicitAutograd, ("default backend kernel",), "#7cc47f"),
    ("CompositeImplicitAutogradNestedTensor", DK.CompositeImplicitAutogradNestedTensor, ("nested kernel",),
     "#e4c7f0"),
    ("CompositeImplicitAutograd", DK.CompositeImplicitAutograd, ("math kernel", "ambiguous autogradother"),
     "#c9a2e6"),
    ("Autograd (alias)", DK.Autograd, ("autograd kernel",), "#f7b27a"),
    ("FuncTorchBatchedDecomposition", DK.FuncTorchBatchedDecomposition, ("batched kernel",), "#f4d35e"),
    ("backend fallback", "fallback", ("backend fallback",), "#d0d0d0"),
)
_AMBIGUOUS = "#e57373"
_FONT = 'font-family="Helvetica,Arial,sans-serif"'


def _short_debug(debug: str) -> str:
    """``pointwise.py`` for ``registered at dispatcher/ops/pointwise.py``."""
    text = debug.removeprefix("registered at ").strip()
    return os.path.basename(text.split(":")[0]) or text


class _Row:
    def __init__(self, keys: list[DispatchKey], kernel: Any, tag: str, cells: list[str | None], won: int) -> None:
        self.keys, self.kernel, self.tag, self.cells, self.won = keys, kernel, tag, cells, won

    @property
    def name(self) -> str:
        if len(self.keys) == 1:
            return self.keys[0].name
        return f"{self.keys[0].name} \u2026 {self.keys[-1].name} ({len(self.keys)} keys)"

    def signature(self) -> tuple:
        return (self.kernel.debug, self.kernel.is_fallthrough, self.tag, self.won)


def _rows(op: Any) -> list[_Row]:
    rows = []
    for key, (kernel, tag) in computed_table(op).items():
        cells: list[str | None] = []
        won = -1
        for i, (_, alias, tags, _) in enumerate(SOURCES):
            if alias is None:
                kernels = op.kernels.get(key)
                cell = _short_debug(kernels[-1].debug) if kernels else None
            elif alias == "fallback":
                fb = REGISTRY.fallbacks[key]
                cell = _short_debug(fb.debug) if fb is not None else None
            else:
                kernels = op.kernels.get(alias)
                covers = key == DK.Undefined or is_included_in_alias(key, alias)
                cell = _short_debug(kernels[-1].debug) if kernels and covers else None
            cells.append(cell)
            if won < 0 and tag in tags and cell is not None:
                won = i
        if won >= 0 and kernel.is_fallthrough:
            cells[won] = "fallthrough"
        rows.append(_Row([key], kernel, tag, cells, won))
    return rows


def _compact(rows: list[_Row]) -> list[_Row]:
    out: list[_Row] = []
    for r in rows:
        if out and out[-1].signature() == r.signature():  # the same kernel (site) by the same rule
            last = out[-1]
            last.keys.append(r.keys[0])
            last.cells = [a if a is not None else b for a, b in zip(last.cells, r.cells)]  # candidates of any key
        else:
            out.append(_Row(list(r.keys), r.kernel, r.tag, list(r.cells), r.won))
    return out


class DispatchTableView:
    """An operator's computed dispatch table: ``str()`` is the text, ``.svg`` the grid, inline in Jupyter."""

    def __init__(self, op: Any, compact: bool = False) -> None:
        self.op = op
        self.compact = compact
        rows = _rows(op)
        self.rows = _compact(rows) if compact else rows

    def __str__(self) -> str:
        lines = []
        for r in self.rows:
            fallthrough = "fallthrough " if r.kernel.is_fallthrough else ""
            lines.append(f"{r.name}: {fallthrough}{r.kernel.debug} [{r.tag}]")
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"<dispatch table of {self.op.name()}: {len(self.rows)} rows>"

    @property
    def svg(self) -> str:
        return _table_svg(self.op.name(), self.rows)

    def picture(self) -> Picture:
        return Picture(picture_html(self.svg, caption=f"dispatch table of {self.op.name()}"), self.svg,
                       f"dispatch table of {self.op.name()}")

    def _repr_html_(self) -> str:
        return self.picture()._repr_html_()

    def save(self, path: str | os.PathLike) -> str:
        return self.picture().save(path)


def dispatch_table(op: Any, compact: bool = False) -> DispatchTableView:
    """The computed dispatch table of ``op`` (an OpOverload), drawable (see the module docstring)."""
    return DispatchTableView(op, compact)


def _table_svg(title: str, rows: list[_Row]) -> str:
    key_w = max([len(r.name) for r in rows] + [12]) * 6.4 + 16
    col_w, row_h, head_h, top = 118.0, 18.0, 150.0, 44.0
    width = key_w + col_w * len(SOURCES) + 10
    height = top + head_h + row_h * len(rows) + 46
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" class="dk-dispatch-table">',
           '<rect width="100%" height="100%" fill="#ffffff"/>',
           f'<text x="8" y="18" {_FONT} font-size="14" font-weight="bold">{escape(sanitize(title, 120))}: '
           'dispatch table</text>',
           f'<text x="8" y="36" {_FONT} font-size="11" fill="#444">rows: runtime keys with an entry; columns: where '
           'a kernel can come from, highest precedence on the left; coloured: the rule that picked the kernel</text>']
    y0 = top + head_h
    for j, (name, _, _, colour) in enumerate(SOURCES):
        x = key_w + j * col_w + col_w / 2
        out.append(f'<rect x="{key_w + j * col_w + 2:.1f}" y="{y0 - 14:.1f}" width="{col_w - 4:.1f}" height="10" '
                   f'fill="{colour}"/>')
        out.append(f'<text transform="translate({x:.1f},{y0 - 18:.1f}) rotate(-40)" {_FONT} font-size="11">'
                   f'{escape(name)}</text>')
    for i, r in enumerate(rows):
        y = y0 + i * row_h
        if i % 2 == 0:
            out.append(f'<rect x="0" y="{y:.1f}" width="{width:.0f}" height="{row_h}" fill="#f6f7f9"/>')
        out.append(f'<text x="8" y="{y + 13:.1f}" {_FONT} font-size="11" class="dk-key">{escape(r.name)}</text>')
        for j, cell in enumerate(r.cells):
            if cell is None:
                continue
            x = key_w + j * col_w
            won = j == r.won
            colour = (_AMBIGUOUS if r.tag == "ambiguous autogradother" else SOURCES[j][3]) if won else "#eeeeee"
            stroke = ' stroke="#333333" stroke-width="1.2"' if won else ""
            out.append(f'<g class="dk-cell{" dk-won" if won else ""}" data-key="{escape(r.keys[0].name)}" '
                       f'data-source="{escape(SOURCES[j][0])}"><rect x="{x + 2:.1f}" y="{y + 2:.1f}" '
                       f'width="{col_w - 4:.1f}" height="{row_h - 4:.1f}" rx="3" fill="{colour}"{stroke}/>'
                       f'<text x="{x + col_w / 2:.1f}" y="{y + 12.5:.1f}" text-anchor="middle" {_FONT} font-size="9" '
                       f'fill="{"#111" if won else "#888"}">{escape(sanitize(cell, 22))}</text></g>')
    y = y0 + len(rows) * row_h + 18
    out.append(f'<text x="8" y="{y:.1f}" {_FONT} font-size="10" fill="#555">grey: a candidate that exists but lost '
               'to a rule further left (or, for CompositeImplicitAutograd, to a backend kernel behind the key); '
               'red: ambiguous AutogradOther</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- key sets ---------------------------------------------------------------------------------------------------------
def keyset_bits(ks: DispatchKeySet | int) -> Picture:
    """The bits of a key set: functionalities (highest priority first) and backends; the dispatch key outlined."""
    raw = ks.raw_repr() if isinstance(ks, DispatchKeySet) else int(ks)
    ks = DispatchKeySet.from_raw_repr(raw)
    cell, label_h, x0 = 19.0, 175.0, 90.0
    funcs = list(range(NUM_FUNCTIONALITIES - 1, 0, -1))  # highest priority on the left
    width = x0 + cell * len(funcs) + 20
    height = 40 + label_h + cell + 100 + cell + 60
    chosen = DispatchKey(highest_priority_key(raw)) if raw else None
    top_func = (raw >> NUM_BACKENDS).bit_length() if raw else 0
    top_backend = (raw & ((1 << NUM_BACKENDS) - 1)).bit_length() - 1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" class="dk-keyset">',
           '<rect width="100%" height="100%" fill="#ffffff"/>',
           f'<text x="8" y="18" {_FONT} font-size="13" font-weight="bold">{escape(sanitize(repr(ks), 160))}</text>',
           f'<text x="8" y="34" {_FONT} font-size="11" fill="#444">raw 0x{raw:016x}; dispatches to '
           f'{escape(chosen.name if chosen else "(nothing: empty set)")}</text>']
    y = 40 + label_h
    out.append(f'<text x="8" y="{y + 13:.1f}" {_FONT} font-size="11">functionality</text>')
    for i, f in enumerate(funcs):
        x = x0 + i * cell
        bit = 1 << (FUNCTIONALITY_SHIFT + f)
        on = bool(raw & bit)
        name = DispatchKey(f).name
        out.append(f'<text transform="translate({x + 13:.1f},{y - 4:.1f}) rotate(-70)" {_FONT} font-size="10" '
                   f'fill="{"#111" if on else "#999"}">{escape(name)}</text>')
        stroke = ' stroke="#c0392b" stroke-width="2.5"' if on and f == top_func else ' stroke="#bbbbbb"'
        out.append(f'<rect class="dk-bit{" dk-on" if on else ""}" data-key="{escape(name)}" x="{x:.1f}" y="{y:.1f}" '
                   f'width="{cell - 2:.1f}" height="{cell - 2:.1f}" fill="{"#2e86c1" if on else "#ffffff"}"{stroke}/>')
    out.append(f'<text x="{x0:.1f}" y="{y + cell + 14:.1f}" {_FONT} font-size="10" fill="#555">\u2190 higher '
               'priority (bit 63)</text>')
    out.append(f'<text x="{x0 + cell * len(funcs):.1f}" y="{y + cell + 14:.1f}" text-anchor="end" {_FONT} '
               'font-size="10" fill="#555">lower priority (bit 16) \u2192</text>')
    y2 = y + cell + 100
    out.append(f'<text x="8" y="{y2 + 13:.1f}" {_FONT} font-size="11">backend</text>')
    for b in range(NUM_BACKENDS - 1, -1, -1):
        i = NUM_BACKENDS - 1 - b
        x = x0 + i * cell
        on = bool(raw >> b & 1)
        out.append(f'<text transform="translate({x + 13:.1f},{y2 - 4:.1f}) rotate(-70)" {_FONT} font-size="10" '
                   f'fill="{"#111" if on else "#999"}">{escape(BACKENDS[b])}</text>')
        stroke = ' stroke="#c0392b" stroke-width="2.5"' if on and b == top_backend else ' stroke="#bbbbbb"'
        out.append(f'<rect class="dk-bit{" dk-on" if on else ""}" data-key="{escape(BACKENDS[b])}" x="{x:.1f}" '
                   f'y="{y2:.1f}" width="{cell - 2:.1f}" height="{cell - 2:.1f}" '
                   f'fill="{"#27ae60" if on else "#ffffff"}"{stroke}/>')
    keys = ", ".join(k.name for k in ks) or "(none)"
    out.append(f'<text x="8" y="{y2 + cell + 22:.1f}" {_FONT} font-size="11">runtime keys: '
               f'{escape(sanitize(keys, 200))}</text>')
    out.append(f'<text x="8" y="{y2 + cell + 40:.1f}" {_FONT} font-size="10" fill="#555">a per-backend key (CPU, '
               'AutogradCPU, ...) sets a functionality bit and a backend bit; outlined: the highest of each, which '
               'together name the key the set dispatches to</text>')
    out.append("</svg>")
    svg = "\n".join(out) + "\n"
    return Picture(picture_html(svg, caption="key set bits"), svg, repr(ks))


# --- explain_dispatch -------------------------------------------------------------------------------------------------
def explain_picture(explanation: DispatchExplanation) -> Picture:
    """``explain_dispatch``'s hops as a diagram (see the module docstring)."""
    boxes: list[tuple[int, list[tuple[str, str]], str]] = []  # depth, [(text, style)], kind
    for step in explanation.steps:
        if isinstance(step, PythonDispatcherStep):
            boxes.append((step.depth, [(f"python dispatcher: {step.key} is handled by {step.handler}", "")], "py"))
            continue
        assert isinstance(step, DispatchStep)
        lines = [(f"{step.how} {step.op}", "b")]
        if step.how != "redispatch" and step.tensor_keys is not None:
            lines.append((f"tensor keys: {', '.join(step.tensor_keys) or '(none)'}", ""))
            if step.tls_included:
                lines.append((f"+ TLS included: {', '.join(step.tls_included)}", "g"))
            if step.tls_excluded:
                lines.append((f"- TLS excluded: {', '.join(step.tls_excluded)}", "r"))
        if step.fallthrough_skipped:
            lines.append((f"- fallthrough: {', '.join(step.fallthrough_skipped)}", "r"))
        lines.append((f"= {step.key_set}", ""))
        lines.append((f"\u2192 {step.key}: {step.kernel}", "b"))
        lines.append((f"[{step.reason}] registered on {step.registered_on}", "s"))
        boxes.append((step.depth, lines, step.how))
    end = (f"raised {type(explanation.error).__name__}: {str(explanation.error).splitlines()[0] if str(explanation.error) else ''}"
           if explanation.error is not None else f"returned {sanitize(repr(explanation.result), 120)}")
    boxes.append((0, [(end, "b")], "end"))
    line_h, pad, indent, gap = 14.0, 6.0, 28.0, 18.0
    width = 40.0
    for depth, lines, _ in boxes:
        width = max(width, depth * indent + max(len(sanitize(t, 160)) for t, _ in lines) * 6.2 + 2 * pad + 20)
    y = 34.0
    body = []
    fills = {"call": "#eaf2fb", "redispatch": "#fdf3e6", "call_boxed_for_dispatch_key": "#f0e9f8", "py": "#f3eefa",
             "end": "#eef7ee"}
    prev: tuple[float, float, float, int] | None = None
    for depth, lines, kind in boxes:
        x = 8 + depth * indent
        h = len(lines) * line_h + 2 * pad
        w = max(len(sanitize(t, 160)) for t, _ in lines) * 6.2 + 2 * pad
        if prev is not None:
            px, py, pw, pdepth = prev
            ax = min(px, x) + 14
            label = "redispatch" if kind == "redispatch" else ("nested call" if depth > pdepth else "")
            body.append(f'<line x1="{ax:.1f}" y1="{py:.1f}" x2="{ax:.1f}" y2="{y - 2:.1f}" stroke="#777" '
                        'marker-end="url(#dk-ar)"/>')
            if label:
                body.append(f'<text x="{ax + 6:.1f}" y="{(py + y) / 2 + 3:.1f}" {_FONT} font-size="9" '
                            f'fill="#777">{label}</text>')
        body.append(f'<g class="dk-hop" data-how="{escape(kind)}"><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" '
                    f'height="{h:.1f}" rx="4" fill="{fills.get(kind, "#ffffff")}" stroke="#888"/>')
        for j, (text, style) in enumerate(lines):
            colour = {"g": "#1e7b34", "r": "#a93226", "s": "#666666"}.get(style, "#111111")
            weight = ' font-weight="bold"' if style == "b" else ""
            body.append(f'<text x="{x + pad:.1f}" y="{y + pad + (j + 0.8) * line_h:.1f}" {_FONT} font-size="11" '
                        f'fill="{colour}"{weight}>{escape(sanitize(text, 160))}</text>')
        body.append("</g>")
        prev = (x, y + h, w, depth)
        y += h + gap
    height = y + 4
    svg = "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" class="dk-explain">',
        '<defs><marker id="dk-ar" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker></defs>',
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        f'<text x="8" y="20" {_FONT} font-size="13" font-weight="bold">dispatch path of '
        f'{escape(sanitize(explanation.op, 120))}</text>',
        *body, "</svg>"]) + "\n"
    return Picture(picture_html(svg, caption=f"explain_dispatch({explanation.op})"), svg,
                   f"dispatch path of {explanation.op}")


# --- Jupyter ---------------------------------------------------------------------------------------------------------
def register_ipython_formatters() -> bool:
    """In IPython, draw DispatchKeySet and DispatchExplanation values as pictures (text/html); False elsewhere."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    shell = get() if get is not None else None
    if shell is None:
        return False
    html_formatter = shell.display_formatter.formatters["text/html"]
    html_formatter.for_type(DispatchKeySet, lambda ks: keyset_bits(ks)._repr_html_())
    html_formatter.for_type(DispatchExplanation, lambda e: explain_picture(e)._repr_html_())
    return True
