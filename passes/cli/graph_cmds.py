"""``dispatchkit show graph.json`` and ``dispatchkit replay graph.json --input ...``: work on saved graphs."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .loading import CliError, check_output_path
from .progress import Progress
from .specs import make_inputs, parse_input
from .trace_cmd import add_output_options, check_outputs, write_outputs

__all__ = ["add_graph_parsers", "load_graph", "run_replay", "run_show", "run_view", "summarize"]


def add_graph_parsers(sub: Any, common: Any) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("show", help="print a saved graph; optionally draw it, view it and print op statistics",
                       parents=[common], formatter_class=raw,
                       description="Load a graph saved by `trace --save` (nothing in the file is executed) and print "
                                   "it; optionally draw it, write the interactive viewer and print op statistics.",
                       epilog="examples:\n  dispatchkit show f.json --stats\n  dispatchkit show f.json --svg f.svg "
                              "--html f.html")
    p.add_argument("path", metavar="GRAPH.json")
    add_output_options(p)
    r = sub.add_parser("replay", help="run a saved graph eagerly on random inputs", parents=[common],
                       formatter_class=raw,
                       description="Run a saved graph through the dispatcher on random inputs of the traced shapes "
                                   "and print a summary of each output.",
                       epilog="example:\n  dispatchkit replay f.json --input f32[2,3] --input f32[4,3] "
                              "--input f32[4]")
    r.add_argument("path", metavar="GRAPH.json")
    r.add_argument("--input", action="append", default=[], metavar="SPEC",
                   help="one per graph input: f32[4,8], i64[4]:0..10, f32[3]+grad, or a number")
    r.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    v = sub.add_parser("view", help="write the interactive viewer of one saved graph, or of two side by side",
                       parents=[common], formatter_class=raw,
                       description="Write one self-contained HTML page to look at saved graphs: pan and zoom, open "
                                   "and close module groups, search, node details; with two graphs (pre- vs "
                                   "post-dispatch, before vs after a pass) the matching nodes are linked.",
                       epilog="examples:\n  dispatchkit view f.json -o f.html\n"
                              "  dispatchkit view pre.json post.json -o compare.html")
    v.add_argument("paths", metavar="GRAPH.json", nargs="+", help="one or two saved graphs")
    v.add_argument("-o", "--out", metavar="PATH", required=True, help="the page to write (.html)")


def load_graph(path: str) -> Any:
    import passes

    if not os.path.isfile(path):
        raise CliError(f"no such file: {path!r}")
    try:
        return passes.load(path)
    except (ValueError, OSError) as e:
        raise CliError(f"cannot load {path}: {e}") from e


def run_show(args: argparse.Namespace, progress: Progress) -> int:
    check_outputs(args)
    gm = load_graph(args.path)
    print(gm.code if args.code else gm.print_readable(print_output=False))
    write_outputs(gm, args, progress)
    return 0


def summarize(value: Any) -> str:
    """A short description of an output: dtype/shape and the first values of a tensor."""
    from dispatcher import Tensor

    if isinstance(value, Tensor):
        flat = value.detach().reshape(-1)
        shown = ", ".join(f"{float(flat[i].item()):.4g}" for i in range(min(6, flat.numel())))
        more = ", ..." if flat.numel() > 6 else ""
        return f"tensor {str(value.dtype).rpartition('.')[2]}{list(value.shape)} [{shown}{more}]"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(summarize(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {summarize(v)}" for k, v in value.items()) + "}"
    return repr(value)


def run_replay(args: argparse.Namespace, progress: Progress) -> int:
    gm = load_graph(args.path)
    expected = [n for n in gm.graph.nodes if n.op == "placeholder"]
    specs = [parse_input(s) for s in args.input]
    if len(specs) != len(expected):
        names = ", ".join(n.name for n in expected)
        raise CliError(f"the graph takes {len(expected)} inputs ({names}); got {len(specs)} --input")
    inputs = make_inputs(specs, args.seed)
    for node, spec, value in zip(expected, specs, inputs, strict=True):
        val = node.meta.get("val")
        if val is not None and spec.is_tensor and tuple(val.shape) != tuple(value.shape):
            raise CliError(f"input {node.name} was traced with shape {list(val.shape)}, got {spec.text}")
    with progress.stage("replaying"):
        try:
            out = gm(*inputs)
        except Exception as e:  # noqa: BLE001 - reported with the op that failed
            raise CliError(f"replay failed: {type(e).__name__}: {e}") from e
    outs = out if isinstance(out, (list, tuple)) else (out,)
    for i, o in enumerate(outs):
        print(f"output {i}: {summarize(o)}")
    return 0


def run_view(args: argparse.Namespace, progress: Progress) -> int:
    import passes

    if len(args.paths) > 2:
        raise CliError(f"view takes one or two graphs, got {len(args.paths)}")
    check_output_path(args.out, "--out", (".html", ".htm"))
    graphs = [load_graph(p) for p in args.paths]
    titles = [os.path.splitext(os.path.basename(p))[0] for p in args.paths]
    with progress.stage(f"writing the viewer {args.out}"):
        passes.view(graphs, titles=titles).save(args.out)
    print(f"wrote {args.out}")
    return 0
