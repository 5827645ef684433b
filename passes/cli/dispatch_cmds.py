"""``dispatchkit dispatch-table OP`` and ``dispatchkit explain OP --input ...``: the dispatcher's view of an op."""

from __future__ import annotations

import argparse
from typing import Any

from .loading import check_output_path, resolve_op
from .progress import Progress
from .specs import make_inputs, parse_input

__all__ = ["add_dispatch_parsers", "run_dispatch_table", "run_explain"]

_PICTURE = (".svg", ".html", ".htm")


def add_dispatch_parsers(sub: Any, common: Any) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("dispatch-table", help="print an operator's computed dispatch table (torch's format)",
                       parents=[common], formatter_class=raw,
                       description="Print the dispatch table the dispatcher computed for an operator from its "
                                   "registrations: one line per runtime key, in torch._C._dispatch_dump_table's "
                                   "format. --compact merges runs of keys served by the same kernel by the same "
                                   "rule; --svg draws the table as a grid coloured by the precedence rule that "
                                   "picked each kernel.",
                       epilog="examples:\n  dispatchkit dispatch-table aten.linear.default\n"
                              "  dispatchkit dispatch-table aten::add.Tensor --compact\n"
                              "  dispatchkit dispatch-table aten.relu --svg relu-table.svg")
    p.add_argument("op", metavar="OP", help="e.g. aten.linear.default, aten::add.Tensor, aten.relu")
    p.add_argument("--compact", action="store_true", help="merge runs of keys with the same entry")
    p.add_argument("--svg", metavar="PATH", help="draw the table (.svg, or .html for a page)")
    e = sub.add_parser("explain", help="print every dispatcher hop of one call", parents=[common],
                       formatter_class=raw,
                       description="Run one call of an operator on random inputs and print every dispatcher hop: "
                                   "where the keys came from, the key set, the key and kernel chosen and why, "
                                   "redispatches and nested calls (explain_dispatch). Exit status 1 when the call "
                                   "raised. --svg draws the hops as a diagram.",
                       epilog="examples:\n  dispatchkit explain aten.add.Tensor --input f32[2] --input f32[2]+grad\n"
                              "  dispatchkit explain aten.linear.default --input f32[2,3] --input f32[4,3] "
                              "--svg linear.svg")
    e.add_argument("op", metavar="OP", help="e.g. aten.add.Tensor")
    e.add_argument("--input", action="append", default=[], metavar="SPEC",
                   help="one per argument: f32[2], i64[4]:0..10, f32[3]+grad, or a number")
    e.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    e.add_argument("--svg", metavar="PATH", help="draw the hops (.svg, or .html for a page)")


def _save_picture(picture: Any, path: str) -> None:
    picture.save(path)
    print(f"wrote {path}")


def run_dispatch_table(args: argparse.Namespace, progress: Progress) -> int:
    if args.svg:
        check_output_path(args.svg, "--svg", _PICTURE)
    import passes

    table = passes.dispatch_table(resolve_op(args.op), compact=args.compact)
    print(str(table), end="\n")
    if args.svg:
        _save_picture(table.picture(), args.svg)
    return 0


def run_explain(args: argparse.Namespace, progress: Progress) -> int:
    from dispatcher import explain_dispatch

    if args.svg:
        check_output_path(args.svg, "--svg", _PICTURE)
    op = resolve_op(args.op)
    inputs = make_inputs([parse_input(s) for s in args.input], args.seed)
    explanation = explain_dispatch(op, *inputs)
    print(explanation)
    if args.svg:
        import passes

        _save_picture(passes.explain_picture(explanation), args.svg)
    return 1 if explanation.error is not None else 0
