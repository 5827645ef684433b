"""``dispatchkit where OP``: where each piece of an operator is defined, and its op family.

The command-line face of :func:`tracer.op_sources.where` (schema, kernels per key, meta, derivative
formula, decompositions and torch-level functions, each as ``file:line``). PyTorch has no counterpart:
there the pieces live in native_functions.yaml, ATen's .cpp files, derivatives.yaml, torch/_decomp and
torch/_tensor.py, and one finds them with grep.
"""

from __future__ import annotations

import argparse
from typing import Any

from .loading import CliError
from .progress import Progress

__all__ = ["add_where_parser", "run_where"]


def add_where_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "where", parents=[common], help="where an op's schema, kernels, derivative, decompositions and torch-level function are",
        description="Print, for an operator, where each of its pieces is defined (file:line) and its op family.",
        epilog="examples:\n  dispatchkit where aten.logaddexp\n  dispatchkit where aten.conv2d\n"
               "  dispatchkit where add.Tensor",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("op", metavar="OP", help="an op name: aten.logaddexp, aten::add.Tensor, add.Tensor, mylib.foo")


def run_where(args: argparse.Namespace, progress: Progress) -> int:
    from tracer.op_sources import describe

    try:
        print(describe(args.op))
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None
    return 0
