"""NumPy lowerings of the embedding ops: embedding (``np.take`` of rows) and embedding_dense_backward (``np.add.at``
into zeros).

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: the embedding lowerings and
decompositions Inductor uses (torch/_inductor/lowering.py, torch/_decomp/decompositions.py).
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register


@register("aten.embedding.default")
def _embedding(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.take({ctx.v(a['weight'])}, {ctx.v(a['indices'])}, axis=0)")


@register("aten.embedding_dense_backward.default")
def _embedding_dense_backward(ctx: Any, a: dict) -> Lowering | None:
    if a["scale_grad_by_freq"]:
        return None
    g, out = a["grad_output"], ctx.meta(ctx.node)
    width = out.shape[-1]
    post = [f"np.add.at({{out}}, {ctx.v(a['indices'])}.reshape(-1), {ctx.v(g)}.reshape(-1, {width}))"]
    if a["padding_idx"] >= 0:
        post.append(f"{{out}}[{a['padding_idx']}] = 0")
    return Lowering("fresh", f"np.zeros({ctx.shape(ctx.node)}, dtype={ctx.np_dtype(out.dtype)})", post=tuple(post))
