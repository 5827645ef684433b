"""``dispatchkit demo`` (what ``make demo`` runs): the built-in transformer block, captured both ways.

Traces ``tracer.examples.transformer_block`` post-dispatch (after autograd and decompositions: ``t`` +
``addmm``...) and pre-dispatch (``linear``, ``softmax.int``, ``layer_norm`` kept whole), prints both
graphs, writes both drawings and a side-by-side HTML page into the output folder, replays both
graphs on fresh inputs against eager execution (the pre-dispatch graph also under autograd,
comparing gradients), and prints the dispatcher's path for one ``aten.linear`` call.
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
from typing import Any

import numpy as np

from .loading import CliError
from .progress import Progress

__all__ = ["add_demo_parser", "run_demo"]


def add_demo_parser(sub: Any, common: Any) -> None:
    p = sub.add_parser("demo", help="trace the built-in transformer block both ways, draw, replay, explain",
                       parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="What `make demo` runs: trace a built-in example post- and pre-dispatch, print "
                                   "both graphs, write both drawings, a side-by-side page and the interactive viewer "
                                   "of the two graphs (matching nodes linked) into the output folder, replay both "
                                   "graphs against eager execution and explain one aten.linear call.",
                       epilog="examples:\n  dispatchkit demo\n  dispatchkit demo --out /tmp/demo --example mlp")
    p.add_argument("--out", default="dispatchkit-demo", metavar="DIR", help="output folder (default: %(default)s)")
    p.add_argument("--example", default="transformer_block", help="built-in example to trace (default: %(default)s)")


def _max_diff(a: Any, b: Any) -> float:
    return float(np.max(np.abs(a.detach().numpy().astype(np.float64) - b.detach().numpy().astype(np.float64))))


def _page(title: str, panels: list[tuple[str, str, str]], viewer: str = "") -> str:
    cols = "\n".join(
        f'<div class="col"><h2>{html.escape(name)}</h2><p><a href="{html.escape(svg)}">{html.escape(svg)}</a></p>'
        f'<img src="{html.escape(svg)}" alt="{html.escape(name)} graph"><pre>{html.escape(code)}</pre></div>'
        for name, svg, code in panels)
    return ("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + html.escape(title) + "</title>\n"
            "<style>body{font-family:sans-serif;margin:1em}.row{display:flex;gap:1em}.col{flex:1;min-width:0}"
            "img{max-width:100%;border:1px solid #ccc}pre{font-size:11px;overflow:auto;background:#f6f6f6;"
            "padding:.5em}</style></head>\n<body><h1>" + html.escape(title) + "</h1>\n"
            + (f'<p>Interactive: <a href="{html.escape(viewer)}">{html.escape(viewer)}</a> (both graphs, matching '
               "nodes linked)</p>\n" if viewer else "") + "<div class=\"row\">\n" + cols
            + "\n</div></body></html>\n")


def run_demo(args: argparse.Namespace, progress: Progress) -> int:
    import dispatcher as D
    import passes
    from tracer import make_fx
    from tracer.examples import EXAMPLES, example_inputs

    if args.example not in EXAMPLES:
        raise CliError(f"unknown example {args.example!r}; the examples are {', '.join(sorted(EXAMPLES))}")
    fn = EXAMPLES[args.example].fn
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise CliError(f"--out {args.out!r}: cannot create the folder: {e.strerror or e}") from e
    have_dot = shutil.which("dot") is not None
    ext = "svg" if have_dot else "dot"
    graphs = {}
    for level, pre in (("post-dispatch", False), ("pre-dispatch", True)):
        with progress.stage(f"tracing {args.example} ({level})"):
            gm = make_fx(fn, pre_dispatch=pre)(*example_inputs(args.example, seed=0, requires_grad=False))
        graphs[level] = gm
        ops = sum(1 for n in gm.graph.nodes if n.op == "call_function")
        print(f"\n===== {args.example}, {level}: {ops} call_function nodes =====")
        print(gm.print_readable(print_output=False))
    panels = []
    for level, gm in graphs.items():
        path = os.path.join(args.out, f"{level}.{ext}")
        with progress.stage(f"drawing {path}"):
            passes.draw(gm, path)
        panels.append((level, os.path.basename(path), gm.code))
    viewer = os.path.join(args.out, "viewer.html")
    with progress.stage(f"writing the viewer {viewer}"):
        passes.view([graphs["pre-dispatch"], graphs["post-dispatch"]],
                    titles=["pre-dispatch", "post-dispatch"]).save(viewer)
    page = os.path.join(args.out, "index.html")
    with open(page, "w", encoding="utf-8") as fh:
        fh.write(_page(f"dispatchkit: {args.example}, post- vs pre-dispatch", panels, "viewer.html"))
    print(f"\nwrote {', '.join(os.path.join(args.out, p[1]) for p in panels)}, {viewer} and {page}"
          + ("" if have_dot else " (no `dot` found: DOT files instead of SVG; install graphviz for SVG)"))

    ok = True
    fresh = example_inputs(args.example, seed=1, requires_grad=False)
    expected = fn(*fresh)
    for level, gm in graphs.items():
        diff = _max_diff(gm(*fresh), expected)
        good = diff <= 1e-4
        ok &= good
        print(f"replay of the {level} graph on fresh inputs vs eager: max |diff| = {diff:.2e} "
              f"({'match' if good else 'MISMATCH'})")
    eager_in = example_inputs(args.example, seed=2, requires_grad=True)
    replay_in = example_inputs(args.example, seed=2, requires_grad=True)
    fn(*eager_in).sum().backward()
    graphs["pre-dispatch"](*replay_in).sum().backward()
    grad_diff = max(_max_diff(a.grad, b.grad) for a, b in zip(eager_in, replay_in, strict=True) if a.grad is not None)
    good = grad_diff <= 1e-4
    ok &= good
    print(f"pre-dispatch graph replayed under autograd: gradients vs eager max |diff| = {grad_diff:.2e} "
          f"({'match' if good else 'MISMATCH'})")

    print("\n===== the dispatcher's path for one aten.linear call =====")
    x, w = D.randn(2, 3), D.randn(4, 3)
    print(D.explain_dispatch(D.ops.aten.linear.default, x, w))
    return 0 if ok else 1
