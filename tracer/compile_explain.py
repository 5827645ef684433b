"""``tracer.explain(fn)(*args)``: how ``tracer.compile`` splits ``fn`` into graphs, and why.

Corresponds to ``torch._dynamo.explain`` (torch/_dynamo/eval_frame.py) and ``ExplainOutput``
(torch/_dynamo/backends/debugging.py). The call runs ``fn`` once under capture with a recording eager backend
and no caching. As in PyTorch, ``graph_break_count`` is ``graph_count - 1``, ``ops_per_graph`` lists the
targets of each graph's ``call_function`` nodes only (tensor methods, ``call_method``, are not counted), and
``break_reasons`` holds one entry per graph that ended at a break; we deduplicate entries with the same
reason at the same user line (a loop breaking at one line is reported once).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .compile import CompiledFunction
from .compile_call_sites import format_location

__all__ = ["BreakReason", "ExplainOutput", "explain"]


class BreakReason(NamedTuple):
    """Why a graph ended: the reason (PyTorch's wording where it has one) and the user's (file, line, function)."""

    reason: str
    location: tuple[str, int, str] | None

    def __str__(self) -> str:
        return f"{self.reason} ({format_location(self.location)})"


class ExplainOutput:
    """``graphs`` (GraphModules), ``graph_count``, ``graph_break_count``, ``break_reasons``, ``op_count``,
    ``ops_per_graph`` (call_function targets), ``out`` (fn's result)."""

    def __init__(self, graphs: list[Any], reasons: list[BreakReason], out: Any) -> None:
        self.graphs = graphs
        self.graph_count = len(graphs)
        self.graph_break_count = max(len(graphs) - 1, 0)
        self.break_reasons = reasons
        self.ops_per_graph = [[n.target for n in gm.graph.nodes if n.op == "call_function"] for gm in graphs]
        self.op_count = sum(len(ops) for ops in self.ops_per_graph)
        self.out = out

    def op_names_per_graph(self) -> list[list[str]]:
        """Every call node of each graph by name (functions, operators and methods): ``[["sin"], ["cos", "add"]]``."""
        return [[n.target if n.op == "call_method" else getattr(n.target, "__name__", str(n.target))
                 for n in gm.graph.nodes if n.op in ("call_function", "call_method")] for gm in self.graphs]

    def __str__(self) -> str:
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, r in enumerate(self.break_reasons):
            lines.append(f"  Break Reason {i + 1}:\n    Reason: {r.reason}\n    User Stack:\n      "
                         f"{format_location(r.location)}")
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph):
            lines.append(f"  Ops {i + 1}:")
            lines.extend(f"    {getattr(op, '__name__', op)}" for op in ops)
        return "\n".join(lines) + "\n"

    __repr__ = __str__


def explain(fn: Callable[..., Any]) -> Callable[..., ExplainOutput]:
    """``explain(fn)(*args, **kwargs)`` runs ``fn`` once under capture and reports its graphs and breaks."""
    if not callable(fn):
        raise TypeError(f"explain: expected a callable, got {type(fn).__name__}")
    inner = fn._orig_fn if isinstance(fn, CompiledFunction) else fn

    def run(*args: Any, **kwargs: Any) -> ExplainOutput:
        graphs: list[Any] = []
        reasons: list[BreakReason] = []
        seen: set[tuple] = set()

        def on_graph(gm: Any, reason: str | None, loc: Any) -> None:
            graphs.append(gm)
            if reason is not None and (reason, loc) not in seen:
                seen.add((reason, loc))
                reasons.append(BreakReason(reason, loc))

        cf = CompiledFunction(inner, "eager", False, whole_call_cache=False)
        cf._on_graph = on_graph
        out = cf(*args, **kwargs)
        return ExplainOutput(graphs, reasons, out)

    return run
