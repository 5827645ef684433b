"""NumPy lowerings of the matrix products: mm, bmm, matmul, mv, dot (``np.matmul``) and addmm, baddbmm, addmv
(``np.matmul`` then scaling and the added term, in place).

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: the mm lowerings of
torch/_inductor/kernel/mm.py, bmm.py.
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register, scaled, ufunc


@register("aten.mm.default", "aten.bmm.default", "aten.matmul.default", "aten.mv.default", "aten.dot.default")
def _mm(ctx: Any, a: dict) -> Lowering:
    other = a.get("mat2", a.get("other", a.get("vec", a.get("tensor"))))
    return ufunc("matmul", ctx.v(a["self"]), ctx.v(other), elementwise=False)


@register("aten.addmm.default", "aten.baddbmm.default", "aten.addmv.default")
def _addmm(ctx: Any, a: dict) -> Lowering:
    m1 = a.get("mat1", a.get("batch1", a.get("mat")))
    m2 = a.get("mat2", a.get("batch2", a.get("vec")))
    beta, alpha = a["beta"], a["alpha"]
    post = []
    if alpha != 1:
        post.append(f"np.multiply({{out}}, {ctx.v(alpha)}, out={{out}})")
    if beta != 0:
        post.append(f"np.add({{out}}, {scaled(ctx, a['self'], beta)}, out={{out}})")
    low = ufunc("matmul", ctx.v(m1), ctx.v(m2), elementwise=False)
    low.post = tuple(post)
    return low
