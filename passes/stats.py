"""``op_stats(gm)``: per-op count, estimated FLOPs and bytes of a captured graph, as a table or a dict.

``print(op_stats(gm))`` prints one row per op (most FLOPs first, then most bytes, then most nodes) and a
total row, each number in its own readable unit (``312``, ``1.23 M`` FLOPs; ``780 B``, ``1.5 KiB``: not
FlopCounterMode's one suffix per column, which printed small rows as ``0.000K``); in Jupyter the table is
HTML, with a bar for each op's share of the FLOPs (``_repr_html_``); ``op_stats(gm).to_dict()`` gives
``{"aten.mm.default": {"count": 3, "flops": 6144, "bytes": 2304}, ...}``. The estimates are the ones of
passes/costs.py (torch's matmul formulas, one FLOP per element of elementwise ops and per input element
of reductions; bytes read + written, views free). The counterpart in torch is ``FlopCounterMode``'s
table, which runs the program instead of reading a graph.
"""

from __future__ import annotations

import html
from typing import Any, NamedTuple

from dispatcher.op_overload import OpOverload
from tracer.node import pretty_target

from .costs import node_cost, node_kind
from .nx import _graph_of

__all__ = ["OpStat", "OpStats", "op_stats", "readable_bytes", "readable_count"]


def readable_count(n: float) -> str:
    """``312``, ``4.1 K``, ``1.25 M``, ``3 G``: three significant digits, decimal suffixes (FLOPs, counts)."""
    n = float(n)
    for factor, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " K")):
        if abs(n) >= factor:
            return f"{n / factor:.3g}{suffix}"
    return f"{n:.3g}" if n != int(n) else str(int(n))


def readable_bytes(n: float) -> str:
    """``780 B``, ``1.5 KiB``, ``2.34 MiB``: three significant digits, binary units."""
    n = float(n)
    for factor, suffix in ((1 << 40, " TiB"), (1 << 30, " GiB"), (1 << 20, " MiB"), (1 << 10, " KiB")):
        if abs(n) >= factor:
            return f"{n / factor:.3g}{suffix}"
    return f"{int(n)} B"


class OpStat(NamedTuple):
    """One row: the op, its kind, how many nodes call it, and their summed estimates."""

    op: str
    kind: str
    count: int
    flops: int
    bytes: int


def _op_name(node: Any) -> str:
    target = node.target
    if isinstance(target, OpOverload):
        return str(target)
    return pretty_target(target)


class OpStats:
    """The table ``op_stats`` returns: ``rows`` (OpStat, sorted), totals, ``str()`` and ``to_dict()``."""

    def __init__(self, rows: list[OpStat]) -> None:
        self.rows = sorted(rows, key=lambda r: (-r.flops, -r.bytes, -r.count, r.op))
        self.total_count = sum(r.count for r in rows)
        self.total_flops = sum(r.flops for r in rows)
        self.total_bytes = sum(r.bytes for r in rows)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{op: {"kind", "count", "flops", "bytes"}}`` in table order."""
        return {r.op: {"kind": r.kind, "count": r.count, "flops": r.flops, "bytes": r.bytes} for r in self.rows}

    def __getitem__(self, op: str) -> OpStat:
        for r in self.rows:
            if r.op == op:
                return r
        raise KeyError(f"op_stats: no node calls {op!r}; ops in the graph: {[r.op for r in self.rows]}")

    def __len__(self) -> int:
        return len(self.rows)

    def __str__(self) -> str:
        body = [[r.op, r.kind, str(r.count), readable_count(r.flops), readable_bytes(r.bytes)] for r in self.rows]
        total = ["Total", "", str(self.total_count), readable_count(self.total_flops),
                 readable_bytes(self.total_bytes)]
        header = ["Op", "Kind", "Count", "FLOP", "Bytes"]
        table = [header, *body, total]
        widths = [max(len(row[i]) for row in table) for i in range(5)]

        def fmt(row: list[str]) -> str:
            return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))

        rule = "  ".join("-" * w for w in widths)
        return "\n".join([fmt(header), rule, *(fmt(r) for r in body), rule, fmt(total)])

    def __repr__(self) -> str:
        return (f"<OpStats: {len(self.rows)} ops, {self.total_count} nodes, {readable_count(self.total_flops)} FLOPs, "
                f"{readable_bytes(self.total_bytes)}>")

    def _repr_html_(self) -> str:
        """The table for Jupyter: readable units, the kind's colour, a bar for each op's share of the FLOPs."""
        from .dot import KIND_STYLE

        cell = 'style="padding:2px 8px;text-align:{}"'
        rows = []
        for r in self.rows:
            share = r.flops / self.total_flops if self.total_flops else 0.0
            colour = KIND_STYLE.get(r.kind, "#ffffff")
            rows.append(
                f"<tr><td {cell.format('left')}><code>{html.escape(r.op)}</code></td>"
                f'<td {cell.format("left")}><span style="background:{colour};border:1px solid #999;padding:0 4px">'
                f"{html.escape(r.kind)}</span></td><td {cell.format('right')}>{r.count}</td>"
                f"<td {cell.format('right')} title=\"{r.flops:,} FLOPs\">{readable_count(r.flops)}</td>"
                f"<td {cell.format('right')} title=\"{r.bytes:,} bytes\">{readable_bytes(r.bytes)}</td>"
                f'<td {cell.format("left")}><div style="background:#4a7bd0;height:9px;width:{share * 120:.1f}px">'
                f"</div></td></tr>")
        head = "".join(f"<th {cell.format(a)}>{h}</th>" for h, a in (
            ("op", "left"), ("kind", "left"), ("nodes", "right"), ("FLOPs", "right"), ("bytes moved", "right"),
            ("share of FLOPs", "left")))
        total = (f"<tr style=\"border-top:1px solid #999;font-weight:bold\"><td {cell.format('left')}>total</td>"
                 f"<td></td><td {cell.format('right')}>{self.total_count}</td>"
                 f"<td {cell.format('right')}>{readable_count(self.total_flops)}</td>"
                 f"<td {cell.format('right')}>{readable_bytes(self.total_bytes)}</td><td></td></tr>")
        return (f'<table class="dispatchkit-op-stats" style="border-collapse:collapse;font-size:12px">'
                f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}{total}</tbody></table>"
                '<div style="font-size:11px;color:#666">estimates (passes/costs.py): FLOPs with FlopCounterMode\'s '
                "formulas for products, one per element otherwise; bytes read + written, views free</div>")


def op_stats(gm: Any) -> OpStats:
    """Count, estimated FLOPs and bytes per op of the call nodes of ``gm`` (a GraphModule or Graph)."""
    graph = _graph_of(gm)
    acc: dict[str, list[Any]] = {}
    for node in graph.nodes:
        if node.op in ("placeholder", "get_attr", "output"):
            continue
        cost = node_cost(node)
        name = _op_name(node)
        row = acc.setdefault(name, [node_kind(node), 0, 0, 0])
        row[1] += 1
        row[2] += cost.flops
        row[3] += cost.bytes
    return OpStats([OpStat(op, kind, count, flops, nbytes) for op, (kind, count, flops, nbytes) in acc.items()])
