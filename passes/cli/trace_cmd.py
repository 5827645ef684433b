"""``dispatchkit trace FILE.py:FUNCTION --input f32[4,8] ...``: trace a user's function and write what was asked for."""

from __future__ import annotations

import argparse
import os
import traceback
from typing import Any

from .loading import CliError, check_output_path, load_function, resolve_op
from .progress import Progress
from .specs import make_inputs, parse_input

__all__ = ["add_output_options", "add_trace_parser", "check_outputs", "run_trace", "trace_with_options",
           "user_location"]

EXAMPLES = """examples:
  dispatchkit trace model.py:f --input f32[2,3] --input f32[4,3] --input f32[4]
  dispatchkit trace model.py:f --input f32[2,3] --input f32[4,3] --input f32[4] --pre-dispatch --svg f.svg
  dispatchkit trace model.py:train_step --input f32[4,8] --input i64[4]:0..2 --html step.html --save step.json
  dispatchkit trace model.py:f --input f32[8,8] --fake --decompose core --stats"""


def add_output_options(p: Any) -> None:
    """``--svg``, ``--html``, ``--stats``, ``--code`` (shared by trace and show)."""
    p.add_argument("--svg", metavar="PATH", help="draw the graph (.svg, .dot, .gv or .png, from the name)")
    p.add_argument("--html", metavar="PATH", help="write the interactive viewer (one self-contained .html file)")
    p.add_argument("--stats", action="store_true", help="print per-op statistics")
    p.add_argument("--code", action="store_true", help="print the generated Python code instead of print_readable()")


def check_outputs(args: argparse.Namespace) -> None:
    """Every output path is checked before any work is done (tracing can take long)."""
    if getattr(args, "svg", None):
        check_output_path(args.svg, "--svg", (".svg", ".dot", ".gv", ".png"))
    if getattr(args, "html", None):
        check_output_path(args.html, "--html", (".html", ".htm"))
    if getattr(args, "save", None):
        check_output_path(args.save, "--save", (".json",))


def add_trace_parser(sub: Any, common: Any) -> None:
    p = sub.add_parser("trace", help="trace FILE.py:FUNCTION on random inputs of the given shapes", parents=[common],
                       description="Trace a function with make_fx on random inputs of the given shapes, print its "
                                   "graph (print_readable, or --code), and optionally draw it, write the interactive "
                                   "viewer, save it as JSON and print op statistics. Output paths are checked "
                                   "before tracing.",
                       epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="FILE.py:FUNCTION")
    p.add_argument("--input", action="append", default=[], metavar="SPEC",
                   help="one per positional argument: f32[4,8], i64[4]:0..10, f32[3]+grad, or a number")
    p.add_argument("--pre-dispatch", action="store_true", help="record before autograd and decompositions")
    p.add_argument("--fake", action="store_true", help="trace with fake tensors (shapes only, no data)")
    p.add_argument("--decompose", choices=("none", "core"), default="none",
                   help="core: apply the core-aten decomposition table")
    p.add_argument("--preserve", action="append", default=[], metavar="OP",
                   help="keep this CompositeImplicitAutograd op whole (e.g. aten.linear.default)")
    add_output_options(p)
    p.add_argument("--save", metavar="PATH", help="save the graph as versioned JSON (.json; constants in .npz)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")


def user_location(exc: BaseException, path: str) -> str:
    """``FILE:LINE: source`` of the innermost frame of ``exc``'s traceback inside the user's file ``path``."""
    wanted = os.path.abspath(path)
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(frame.filename) == wanted:
            found = f"{path}:{frame.lineno}: {(frame.line or '').strip()}"
    return found


def trace_with_options(fn: Any, inputs: list[Any], *, pre_dispatch: bool = False, fake: bool = False,
                       decompose: str = "none", preserve: list[Any] | None = None) -> Any:
    """make_fx with the command line's knobs (a GraphModule)."""
    from tracer import make_fx

    table = None
    if decompose == "core":
        from tracer.decompositions import core_aten_decompositions

        table = core_aten_decompositions()
    kwargs: dict[str, Any] = {"pre_dispatch": pre_dispatch, "tracing_mode": "fake" if fake else "real"}
    if preserve:
        kwargs["preserve"] = preserve
    return make_fx(fn, table, **kwargs)(*inputs)


def run_trace(args: argparse.Namespace, progress: Progress) -> int:
    check_outputs(args)
    fn = load_function(args.target)
    path, _, name = args.target.rpartition(":")
    specs = [parse_input(s) for s in args.input]
    preserve = [resolve_op(p) for p in args.preserve]
    inputs = make_inputs(specs, args.seed)
    with progress.stage(f"tracing {name}"):
        try:
            gm = trace_with_options(fn, inputs, pre_dispatch=args.pre_dispatch, fake=args.fake,
                                    decompose=args.decompose, preserve=preserve)
        except CliError:
            raise
        except Exception as e:  # noqa: BLE001 - the user's function failed: say where
            where = user_location(e, path)
            raise CliError(f"tracing {name} failed: {type(e).__name__}: {e}" + (f" (at {where})" if where else "")
                           ) from e
    progress.note(f"{sum(1 for _ in gm.graph.nodes)} nodes")
    print(gm.code if args.code else gm.print_readable(print_output=False))
    write_outputs(gm, args, progress)
    return 0


def write_outputs(gm: Any, args: argparse.Namespace, progress: Progress) -> None:
    """``--stats``, ``--svg``, ``--html`` and ``--save`` (shared by trace and show)."""
    import passes

    if getattr(args, "stats", False):
        print(passes.op_stats(gm))
    if getattr(args, "svg", None):
        with progress.stage(f"drawing {args.svg}"):
            try:
                passes.draw(gm, args.svg)
            except passes.GraphvizNotFound as e:
                raise CliError(str(e)) from e
        print(f"wrote {args.svg}")
    if getattr(args, "html", None):
        with progress.stage(f"writing the viewer {args.html}"):
            passes.view(gm).save(args.html)
        print(f"wrote {args.html}")
    if getattr(args, "save", None):
        passes.save(gm, args.save)
        print(f"wrote {args.save}")
