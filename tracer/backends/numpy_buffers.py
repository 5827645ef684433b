"""The numpy code generator's memory planning: alias analysis, liveness and buffer reuse.

Nodes whose arrays share memory (views, aliases, in-place results, fallback results, and anything the check
run found sharing memory) form one storage class (a union-find, ``_DSU``). A class is *pinned* when it holds an
input, a constant, a fallback value or an output. A ufunc node writes (``out=``) into the array of an unpinned
class that is dead by then, holds as many elements of the same dtype, and was made fresh by the generated code
itself; elementwise ufuncs may take a buffer that dies at that very node (NumPy handles the overlap), matmul
only one that died before. Steps 3 and 4 of numpy_codegen.py's ``NumpyCodegen.generate``.

PyTorch counterpart: Inductor's buffer reuse from liveness (torch/_inductor/scheduler.py, the ``ReuseLine``s
of torch/_inductor/codegen/wrapper.py, torch/_inductor/codegen/memory_planning.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..node import Node
from .numpy_nodes import flat_nodes

if TYPE_CHECKING:
    from .numpy_codegen import NumpyCodegen

__all__ = ["plan_buffers"]


class _DSU:
    """Union-find over node indices (storage classes)."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, i: int) -> int:
        p = self.parent.setdefault(i, i)
        while p != self.parent[p]:
            self.parent[p] = self.parent[self.parent[p]]
            p = self.parent[p]
        self.parent[i] = p
        return p

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def plan_buffers(gen: NumpyCodegen) -> dict[Node, str]:
    """The alias analysis (``gen.dsu``: storage classes, ``gen.pinned``: their pinned roots) and the ``out=``
    buffer of each ufunc node that reuses a dead one (node -> buffer text)."""
    dsu = _DSU()
    idx = gen.index
    pinned_members: set[int] = set()
    for n in gen.nodes:
        i = idx[n]
        dsu.find(i)
        if n.op in ("placeholder", "get_attr"):
            pinned_members.add(i)
        low = gen.lowering.get(n)
        if low is None:
            continue
        if low.kind in ("view", "alias", "inplace", "multi_view", "fallback"):
            for s in low.sources:
                dsu.union(i, idx[s])
        if low.kind == "fallback":
            pinned_members.add(i)
        if low.kind == "getitem":
            parent = gen.lowering.get(n.args[0])
            if parent is not None and parent.kind in ("multi_view", "fallback"):
                dsu.union(i, idx[n.args[0]])
        for s in gen.shares.get(n, ()):
            dsu.union(i, idx[s])
    output = gen.nodes[-1]
    for a in flat_nodes(output.args):
        pinned_members.add(idx[a])
    pinned = {dsu.find(i) for i in pinned_members}
    last_use: dict[int, int] = {}
    for n in gen.nodes:
        i = idx[n]
        r = dsu.find(i)
        last_use[r] = max(last_use.get(r, i), i)
        for a in flat_nodes((n.args, n.kwargs)):
            ra = dsu.find(idx[a])
            last_use[ra] = max(last_use.get(ra, i), i)
    gen.dsu, gen.pinned = dsu, pinned
    # a class can lend its buffer when it is unpinned and its root array was made fresh here
    owner: dict[int, Node] = {}
    used = gen.used
    for n in gen.nodes:
        r = dsu.find(idx[n])
        if r == idx[n] and n in gen.fresh_ok and r not in pinned and n in used:
            owner[r] = n
    dies_at: dict[int, list[int]] = {}
    for r in owner:
        dies_at.setdefault(last_use[r], []).append(r)
    free: dict[tuple, list[tuple[str, int]]] = {}  # (numel, dtype) -> dead buffers (variable, died at)
    buffer_var: dict[int, str] = {r: gen.var[n] for r, n in owner.items()}
    buffer_shape = {gen.var[n]: tuple(n.meta["val"].shape) for n in owner.values()}
    out_buffers: dict[Node, str] = {}
    for n in gen.nodes:
        i = idx[n]
        low = gen.lowering.get(n)
        # a receiver may be pinned (an output takes over the dead buffer for good: it never returns to the pool)
        if low is not None and low.kind == "ufunc" and n in gen.fresh_ok and dsu.find(i) == i and n in used:
            key = _key(n.meta["val"])
            candidates = free.get(key, [])
            now = list(candidates)
            if low.elementwise:
                now += [(buffer_var[r], i) for r in dies_at.get(i, []) if _key(owner[r].meta["val"]) == key]
            if now:
                var, died = now[0]
                if (var, died) in candidates:
                    candidates.remove((var, died))
                else:
                    dies_at[i] = [r for r in dies_at[i] if buffer_var[r] != var]
                shape = tuple(n.meta["val"].shape)
                # a buffer of another shape is seen through a reshape (a view: the buffers are fresh row-major
                # arrays; were it ever a copy, the ufunc would write into the copy, still correct)
                out_buffers[n] = var if buffer_shape[var] == shape else f"{var}.reshape({shape!r})"
                buffer_var[i] = var
        for r in dies_at.get(i, []):
            free.setdefault(_key(owner[r].meta["val"]), []).append((buffer_var[r], i))
    return out_buffers


def _key(val: Any) -> tuple:
    """Buffers are interchangeable when they hold as many elements of the same dtype."""
    n = 1
    for s in val.shape:
        n *= int(s)
    return n, np.dtype(val.dtype.np_dtype)
