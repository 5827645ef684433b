"""The ``dispatchkit`` command line (also ``python -m tracer``).

Subcommands: ``demo`` (demo.py), ``trace`` (trace_cmd.py), ``show`` and ``replay`` (graph_cmds.py),
``dispatch-table`` and ``explain`` (dispatch_cmds.py), ``where`` (where_cmd.py). Input specifications are parsed in
specs.py, user files and operator names are found in loading.py, and progress messages for long
work go to stderr (progress.py; ``--quiet`` silences them). It lives in ``passes`` because it uses
every layer below; ``tracer/__main__.py`` only forwards to :func:`main`.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from .demo import add_demo_parser, run_demo
from .dispatch_cmds import add_dispatch_parsers, run_dispatch_table, run_explain
from .graph_cmds import add_graph_parsers, run_replay, run_show, run_view
from .loading import CliError, one_line
from .progress import Progress
from .specs import InputSpecError
from .trace_cmd import add_trace_parser, run_trace
from .where_cmd import add_where_parser, run_where

__all__ = ["build_parser", "main", "version"]

_COMMANDS = {"demo": run_demo, "trace": run_trace, "show": run_show, "replay": run_replay, "view": run_view,
             "dispatch-table": run_dispatch_table, "explain": run_explain, "where": run_where}

#: set to 1 to get the Python traceback of an unexpected error instead of the one-line message
TRACEBACK_ENV = "DISPATCHKIT_TRACEBACK"


def version() -> str:
    """The installed distribution's version (the package's ``__version__`` when run from a checkout)."""
    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        return dist_version("dispatchkit")
    except PackageNotFoundError:
        from passes import __version__

        return __version__


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``PROG: error: MESSAGE (see PROG COMMAND --help)``, exit status 2."""

    def error(self, message: str) -> NoReturn:
        hint = f"{self.prog} --help"
        self.exit(2, f"{self.prog.split()[0]}: error: {one_line(message)} (see {hint})\n")


def build_parser(prog: str = "dispatchkit") -> argparse.ArgumentParser:
    parser = _Parser(prog=prog, description="dispatchkit: see how PyTorch captures graphs: trace a function with "
                                            "make_fx, draw and save its graph, replay it, and look inside the "
                                            "dispatcher.",
                     epilog="examples:\n"
                            f"  {prog} demo\n"
                            f"  {prog} trace model.py:f --input f32[2,3] --input f32[4,3] --pre-dispatch --html f.html\n"
                            f"  {prog} dispatch-table aten.linear.default --compact\n"
                            f"  {prog} explain aten.add.Tensor --input f32[2] --input f32[2]+grad --svg add.svg\n"
                            f"run '{prog} COMMAND --help' for each command's options",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress messages on stderr")
    parser.add_argument("--version", action="version", version=f"dispatchkit {version()}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="no progress messages on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    add_demo_parser(sub, common)
    add_trace_parser(sub, common)
    add_graph_parsers(sub, common)
    add_dispatch_parsers(sub, common)
    add_where_parser(sub, common)
    return parser


def main(argv: list[str] | None = None, prog: str = "dispatchkit") -> int:
    """Run the command line; returns the exit status (0 ok, 1 a check failed, 2 bad usage or input)."""
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version (0) or a usage error (2, already printed on one line)
        return int(e.code or 0)
    progress = Progress(quiet=args.quiet)
    try:
        return _COMMANDS[args.command](args, progress)
    except (CliError, InputSpecError) as e:
        print(f"{prog}: error: {one_line(str(e))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `dispatchkit trace ... | head`
        return 0
    except KeyboardInterrupt:
        print(f"{prog}: error: interrupted", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - anything else: one line too (the traceback on request)
        if os.environ.get(TRACEBACK_ENV) == "1":
            raise
        print(f"{prog}: error: {type(e).__name__}: {one_line(str(e))} (set {TRACEBACK_ENV}=1 for the traceback)",
              file=sys.stderr)
        return 2
