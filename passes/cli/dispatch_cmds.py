"""``dispatchkit dispatch-table OP`` and ``dispatchkit explain OP --input ...``: the dispatcher's view of an op."""

from __future__ import annotations

import argparse
from typing import Any

from .loading import resolve_op
from .progress import Progress
from .specs import make_inputs, parse_input

__all__ = ["add_dispatch_parsers", "run_dispatch_table", "run_explain"]


def add_dispatch_parsers(sub: Any) -> None:
    p = sub.add_parser("dispatch-table", help="print an operator's computed dispatch table (torch's format)")
    p.add_argument("op", metavar="OP", help="e.g. aten.linear.default")
    e = sub.add_parser("explain", help="print every dispatcher hop of one call")
    e.add_argument("op", metavar="OP", help="e.g. aten.add.Tensor")
    e.add_argument("--input", action="append", default=[], metavar="SPEC",
                   help="one per argument: f32[2], i64[4]:0..10, f32[3]+grad, or a number")
    e.add_argument("--seed", type=int, default=0, help="seed of the random inputs")


def run_dispatch_table(args: argparse.Namespace, progress: Progress) -> int:
    print(resolve_op(args.op).dump_table())
    return 0


def run_explain(args: argparse.Namespace, progress: Progress) -> int:
    from dispatcher import explain_dispatch

    op = resolve_op(args.op)
    inputs = make_inputs([parse_input(s) for s in args.input], args.seed)
    explanation = explain_dispatch(op, *inputs)
    print(explanation)
    return 1 if explanation.error is not None else 0
