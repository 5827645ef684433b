"""The module tree of a captured graph, from ``node.meta["nn_module_stack"]``: which nodes each module call made.

``module_scopes(nodes)`` turns the module stacks make_fx records (tracer/module_stack.py) into a tree of
``Scope``s, one per module *call* (a module called twice gives two scopes, keys ``act`` and ``act@1``). A
call's nodes are the graph-order interval from its first to its last recorded node: calls nest, so intervals
nest, and a node with no stack of its own inside a call's interval (a constant read there) belongs to the
innermost call around it. Contracting any set of non-overlapping intervals keeps a graph acyclic, which is
what lets the drawing and the viewer collapse a module into one box.

``choose_expanded(scopes, free, budget)`` picks which calls to show opened so that the drawing has at most
``budget`` boxes: level by level from the outermost calls, a whole level at a time (a call shown closed is
one box, named by its module path: ``layers.3.attn``).

Used by passes/collapse.py (drawings) and passes/viewer.py (the interactive viewer). PyTorch has no
counterpart for graphs; torch.export's ``unflatten`` rebuilds a module hierarchy from the same metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Scope", "choose_expanded", "module_scopes"]


@dataclass(eq=False)
class Scope:
    """One module call: its nn_module_stack key, path, class, place in the tree and its nodes."""

    key: str  #: nn_module_stack key, unique per call ("L__self__layers.0.act@1")
    fqn: str  #: the module's path ("layers.0.act"; "" for the traced module itself)
    cls: str  #: the module's class name, without its Python module ("GELU")
    parent: Scope | None
    depth: int
    start: int = -1  #: graph index of its first node
    end: int = -1  #: graph index of its last node
    children: list[Scope] = field(default_factory=list)
    direct: list[str] = field(default_factory=list)  #: names of the nodes in this call and in no call below it
    size: int = 0  #: nodes in the whole interval

    @property
    def title(self) -> str:
        """``layers.3.attn (Attention)``; the traced module itself is ``(root) Model``."""
        return f"{self.fqn} ({self.cls})" if self.fqn else f"(root) {self.cls}"

    @property
    def call_suffix(self) -> str:
        """``@1`` for a module's second call in the trace, else ``""``."""
        at = self.key.rfind("@")
        return self.key[at:] if at > 0 and self.key[at + 1:].isdigit() else ""

    def walk(self) -> list[Scope]:
        """This call and every call below it, depth first."""
        out = [self]
        for c in self.children:
            out.extend(c.walk())
        return out


def _stack_entries(stack: Any) -> list[tuple[str, str, str]]:
    """(key, fqn, class name) of a recorded nn_module_stack, outermost first; [] for anything malformed."""
    if not isinstance(stack, dict):
        return []
    out = []
    for key, value in stack.items():
        if not (isinstance(key, str) and isinstance(value, (tuple, list)) and len(value) == 2):
            return []
        fqn, cls = value
        cls_name = cls.__qualname__ if isinstance(cls, type) else str(cls)
        out.append((key, str(fqn), cls_name.rpartition(".")[2]))
    return out


def module_scopes(nodes: list[Any], names: list[str] | None = None) -> tuple[list[Scope], list[Scope | None]]:
    """The top-level module calls of ``nodes`` (graph order) and, per node, the innermost call it belongs to.

    ``names``: what to list in ``Scope.direct`` for each node (default: the node names). Returns
    ``([], [None, ...])`` when no node carries an nn_module_stack.
    """
    if names is None:
        names = [n.name for n in nodes]
    by_key: dict[str, Scope] = {}
    top: list[Scope] = []
    for i, node in enumerate(nodes):
        parent = None
        for key, fqn, cls in _stack_entries(node.meta.get("nn_module_stack")):
            scope = by_key.get(key)
            if scope is None or scope.parent is not parent:
                if scope is not None:  # the same key under another parent (a malformed stack): a new scope
                    key = f"{key}#{i}"
                scope = by_key[key] = Scope(key, fqn, cls, parent, 0 if parent is None else parent.depth + 1,
                                            start=i)
                (parent.children if parent is not None else top).append(scope)
            scope.end = i
            parent = scope
    owner: list[Scope | None] = [None] * len(nodes)
    if not top:
        return top, owner
    # parents' intervals must cover their children's (true for recorded stacks; enforce it for edited graphs)
    for scope in reversed(sorted(by_key.values(), key=lambda s: s.depth)):
        if scope.parent is not None:
            scope.parent.start = min(scope.parent.start, scope.start)
            scope.parent.end = max(scope.parent.end, scope.end)
    # sweep: the innermost open interval owns each index (intervals that overlap without nesting are cut)
    ordered = sorted(by_key.values(), key=lambda s: (s.start, -s.end, s.depth))
    active: list[Scope] = []
    k = 0
    for i in range(len(nodes)):
        while active and active[-1].end < i:
            active.pop()
        while k < len(ordered) and ordered[k].start == i:
            s = ordered[k]
            if not active or s.end <= active[-1].end:
                active.append(s)
            k += 1
        if active:
            owner[i] = active[-1]
            active[-1].direct.append(names[i])
    for scope in by_key.values():
        scope.size = 0
    for s in owner:
        p = s
        while p is not None:
            p.size += 1
            p = p.parent
    _drop_empty(top)
    return top, owner


def _drop_empty(scopes: list[Scope]) -> None:
    scopes[:] = [s for s in scopes if s.size > 0]
    for s in scopes:
        _drop_empty(s.children)


def choose_expanded(top: list[Scope], free: int, budget: int) -> set[Scope]:
    """The calls to show opened so that the boxes (``free`` nodes outside any call + one per closed call + the
    nodes of opened calls) stay within ``budget``.

    Level by level from the outermost calls: all the calls of a level are opened together when the drawing
    still fits, else none of them (so that repeated blocks look alike: twelve ``layers.N`` boxes, or twelve
    opened blocks, never five of each); a level with a single call is always opened when it fits.
    """
    count = free + len(top)
    expanded: set[Scope] = set()
    level = list(top)
    while level:
        delta = sum(len(s.direct) + len(s.children) - 1 for s in level)
        if count + delta > budget:
            break
        count += delta
        expanded.update(level)
        level = [c for s in level for c in s.children]
    return expanded
