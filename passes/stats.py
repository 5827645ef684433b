"""``op_stats(gm)``: per-op count, estimated FLOPs and bytes of a captured graph, as a table or a dict.

``print(op_stats(gm))`` prints one row per op (most FLOPs first, then most bytes, then most nodes) and a
total row, numbers in FlopCounterMode's format (``1.234M``); ``op_stats(gm).to_dict()`` gives
``{"aten.mm.default": {"count": 3, "flops": 6144, "bytes": 2304}, ...}``. The estimates are the ones of
passes/costs.py (torch's matmul formulas, one FLOP per element of elementwise ops and per input element
of reductions; bytes read + written, views free). The counterpart in torch is ``FlopCounterMode``'s
table, which runs the program instead of reading a graph.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from dispatcher.modes.flop_counter import convert_num_with_suffix, get_suffix_str
from dispatcher.op_overload import OpOverload
from tracer.node import pretty_target

from .costs import node_cost, node_kind
from .nx import _graph_of

__all__ = ["OpStat", "OpStats", "op_stats"]


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
        fs = get_suffix_str(self.total_flops)
        bs = get_suffix_str(self.total_bytes)
        body = [[r.op, r.kind, str(r.count), convert_num_with_suffix(r.flops, fs), convert_num_with_suffix(r.bytes, bs)]
                for r in self.rows]
        total = ["Total", "", str(self.total_count), convert_num_with_suffix(self.total_flops, fs),
                 convert_num_with_suffix(self.total_bytes, bs)]
        header = ["Op", "Kind", "Count", "FLOP", "Bytes"]
        table = [header, *body, total]
        widths = [max(len(row[i]) for row in table) for i in range(5)]

        def fmt(row: list[str]) -> str:
            return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))

        rule = "  ".join("-" * w for w in widths)
        return "\n".join([fmt(header), rule, *(fmt(r) for r in body), rule, fmt(total)])

    def __repr__(self) -> str:
        return f"<OpStats: {len(self.rows)} ops, {self.total_count} nodes, {self.total_flops} FLOPs>"


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
