"""The ``dispatchkit`` command line (also ``python -m tracer``).

Subcommands: ``demo`` (demo.py), ``trace`` (trace_cmd.py), ``show`` and ``replay`` (graph_cmds.py),
``dispatch-table`` and ``explain`` (dispatch_cmds.py), ``where`` (where_cmd.py). Input specifications are parsed in
specs.py, user files and operator names are found in loading.py, and progress messages for long
work go to stderr (progress.py; ``--quiet`` silences them). It lives in ``passes`` because it uses
every layer below; ``tracer/__main__.py`` only forwards to :func:`main`.
"""

from __future__ import annotations

import argparse
import sys

from .demo import add_demo_parser, run_demo
from .dispatch_cmds import add_dispatch_parsers, run_dispatch_table, run_explain
from .graph_cmds import add_graph_parsers, run_replay, run_show
from .loading import CliError
from .progress import Progress
from .specs import InputSpecError
from .trace_cmd import add_trace_parser, run_trace
from .where_cmd import add_where_parser, run_where

__all__ = ["build_parser", "main"]

_COMMANDS = {"demo": run_demo, "trace": run_trace, "show": run_show, "replay": run_replay,
             "dispatch-table": run_dispatch_table, "explain": run_explain, "where": run_where}


def build_parser(prog: str = "dispatchkit") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="dispatchkit: see how PyTorch captures graphs.")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress messages on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    add_demo_parser(sub)
    add_trace_parser(sub)
    add_graph_parsers(sub)
    add_dispatch_parsers(sub)
    add_where_parser(sub)
    return parser


def main(argv: list[str] | None = None, prog: str = "dispatchkit") -> int:
    """Run the command line; returns the exit status (0 ok, 1 a check failed, 2 bad usage or input)."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    progress = Progress(quiet=args.quiet)
    try:
        return _COMMANDS[args.command](args, progress)
    except (CliError, InputSpecError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `dispatchkit trace ... | head`
        return 0
