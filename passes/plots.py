"""Small SVG plots of graph analyses: live bytes per node (``Liveness.plot_svg()``, shown in Jupyter).

Written by hand (no plotting library): a step plot of ``Liveness.live_bytes`` over the nodes in graph order,
a horizontal line at the peak with the node it happens at, readable byte units on the axis
(passes/stats.py ``readable_bytes``), and a ``<title>`` tooltip per node giving its name and live bytes.
torch's counterpart: none (``torch.cuda.memory`` has its own visualizer for recorded allocations).
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from .dot import sanitize
from .stats import readable_bytes

__all__ = ["liveness_svg"]

_FONT = 'font-family="Helvetica,Arial,sans-serif"'


def liveness_svg(live: Any, width: int | None = None, height: int = 220) -> str:
    """The step plot of ``live`` (a ``Liveness``) as SVG text."""
    values = list(live.live_bytes)
    n = len(values)
    width = width or max(480, min(1400, 3 * n + 120))
    left, right, top, bottom = 78.0, 16.0, 26.0, 34.0
    pw, ph = width - left - right, height - top - bottom
    peak = max(values, default=0) or 1
    step = pw / max(n, 1)

    def y_of(v: float) -> float:
        return top + ph - ph * v / peak

    points = [f"{left:.1f},{top + ph:.1f}"]
    for i, v in enumerate(values):
        points.append(f"{left + i * step:.1f},{y_of(v):.1f}")
        points.append(f"{left + (i + 1) * step:.1f},{y_of(v):.1f}")
    points.append(f"{left + n * step:.1f},{top + ph:.1f}")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'class="dk-liveness">', '<rect width="100%" height="100%" fill="#ffffff"/>',
           f'<text x="{left:.0f}" y="16" {_FONT} font-size="12" font-weight="bold">live bytes per node '
           f'(peak {escape(readable_bytes(live.peak_bytes))} at {escape(sanitize(live.peak_node or "-", 60))})</text>']
    for frac in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = top + ph - ph * frac
        out.append(f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{left + pw:.1f}" y2="{y:.1f}" stroke="#eeeeee"/>')
        out.append(f'<text x="{left - 6:.1f}" y="{y + 4:.1f}" text-anchor="end" {_FONT} font-size="10" '
                   f'fill="#555">{escape(readable_bytes(peak * frac if live.peak_bytes else 0))}</text>')
    out.append(f'<polygon points="{" ".join(points)}" fill="#a9c5ee" stroke="#2e5fa8" stroke-width="1"/>')
    if n:
        i = values.index(max(values))
        x = left + (i + 0.5) * step
        out.append(f'<line x1="{left:.1f}" y1="{top:.1f}" x2="{left + pw:.1f}" y2="{top:.1f}" stroke="#c0392b" '
                   'stroke-dasharray="4 3"/>')
        out.append(f'<circle cx="{x:.1f}" cy="{top:.1f}" r="3.5" fill="#c0392b" class="dk-peak"/>')
    for i, (name, v) in enumerate(zip(live.order, values)):  # hover targets: one transparent column per node
        out.append(f'<rect x="{left + i * step:.1f}" y="{top:.1f}" width="{max(step, 0.5):.2f}" height="{ph:.1f}" '
                   f'fill="transparent"><title>{escape(sanitize(name, 80))}: {escape(readable_bytes(v))}</title>'
                   "</rect>")
    out.append(f'<line x1="{left:.1f}" y1="{top + ph:.1f}" x2="{left + pw:.1f}" y2="{top + ph:.1f}" stroke="#333"/>')
    out.append(f'<text x="{left:.1f}" y="{height - 10:.1f}" {_FONT} font-size="10" fill="#555">'
               f'{escape(sanitize(live.order[0] if n else "", 40))}</text>')
    out.append(f'<text x="{left + pw:.1f}" y="{height - 10:.1f}" text-anchor="end" {_FONT} font-size="10" '
               f'fill="#555">{escape(sanitize(live.order[-1] if n else "", 40))}</text>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 10:.1f}" text-anchor="middle" {_FONT} font-size="10" '
               f'fill="#555">nodes in graph order ({n})</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
