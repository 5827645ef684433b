"""The lowering table's core: ``Lowering`` (the NumPy code one graph node becomes), ``LOWERINGS`` and its helpers.

Used by numpy_codegen.py; the rules themselves live beside this module, one module per op family. A *lowering
rule* receives the node's arguments bound by name to the op's schema (defaults filled in) and returns a
``Lowering``: what to write and what kind of value it makes, which is what the code generator needs for its alias
analysis and buffer reuse:

* ``ufunc``   one NumPy ufunc call ``np.<name>(operands)``: the generator may add ``out=`` (writing into
              a dead temporary) and ``dtype=`` (when NumPy's promotion differs from PyTorch's);
* ``fresh``   an expression producing a new array (``np.where``, a kernel of numpy_kernels.py, ...);
* ``view``    a NumPy view of ``sources[0]`` (``a.reshape``, ``a.transpose``, slicing);
* ``alias``   the very same array (``detach``, ``alias``, a no-op ``expand``);
* ``inplace`` writes into ``sources[0]`` and returns it (``np.add(a, b, out=a)``);
* ``multi_fresh`` / ``multi_view`` a tuple of new arrays / of views of ``sources[0]``, read by getitem nodes.

Rules never see tensors: arguments are graph Nodes (arrays at run time) or constants. ``ctx`` turns
them into source text (``ctx.v``) and gives their metadata (``ctx.meta``). A rule may decline (return None, or
raise); an op without a rule runs through the dispatcher (the generator's fallback). ``lowering_for`` also
finds the rule of an in-place op (``add_``) from its functional form. PyTorch's counterpart is Inductor's
lowering table (torch/_inductor/lowering.py: ``lowerings``, ``register_lowering``), which targets loops instead
of NumPy calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["LOWERINGS", "Lowering", "Rule", "binary_rule", "lowering_for", "op_base", "register", "register_binary",
           "register_unary", "scaled", "ufunc", "unary_rule"]


class Lowering:
    """How one node is computed; see the module docstring for the kinds."""

    __slots__ = ("kind", "expr", "sources", "post", "elementwise", "dtype_kw", "cast", "view_op", "reads")

    def __init__(self, kind: str, expr: str, sources: tuple = (), post: tuple[str, ...] = (),
                 elementwise: bool = True) -> None:
        self.kind = kind  #: ufunc / fresh / view / alias / inplace / multi_fresh / multi_view / fallback
        self.expr = expr  #: the expression; for ``ufunc``: "np.<name>(<operands>" without the closing paren
        self.sources = sources  #: the Nodes a view / alias / in-place result shares memory with
        self.post = post  #: statements run after the assignment, with ``{out}`` naming the result
        self.elementwise = elementwise  #: ufunc only: may write into an operand that dies at this node
        self.dtype_kw = ""  #: ufunc only, set by the generator: ", dtype=..." where NumPy would promote differently
        self.cast = ""  #: set by the generator: the NumPy dtype the result is cast to (non-ufunc kinds)
        self.view_op: tuple | None = None  #: views: ("reshape", shape) or ("transpose", perm), for folding chains
        self.reads: tuple | None = None  #: set by the generator when the code reads other nodes than the args

    def __repr__(self) -> str:
        return f"Lowering({self.kind}, {self.expr!r})"


Rule = Callable[[Any, dict], "Lowering | None"]
LOWERINGS: dict[str, Rule] = {}


def register(*names: str) -> Callable[[Rule], Rule]:
    """Decorator: the rule of every op name in ``names``."""
    def deco(fn: Rule) -> Rule:
        for n in names:
            LOWERINGS[n] = fn
        return fn
    return deco


def ufunc(name: str, *operands: str, elementwise: bool = True) -> Lowering:
    """``np.<name>(operands)`` as a ufunc Lowering."""
    return Lowering("ufunc", f"np.{name}({', '.join(operands)}", elementwise=elementwise)


def op_base(ctx: Any) -> str:
    """The op's name without overload, e.g. ``aten::max``."""
    return ctx.node.target.name().split(".")[0]


def scaled(ctx: Any, x: Any, alpha: Any) -> str:
    """``x``, or ``x`` times ``alpha`` when ``alpha`` is not 1."""
    return ctx.v(x) if alpha == 1 else f"np.multiply({ctx.v(x)}, {ctx.v(alpha)})"


def unary_rule(np_name: str) -> Rule:
    """``np.<np_name>(self)``."""
    return lambda ctx, a: ufunc(np_name, ctx.v(a["self"]))


def binary_rule(np_name: str) -> Rule:
    """``np.<np_name>(self, other)``."""
    return lambda ctx, a: ufunc(np_name, ctx.v(a["self"]), ctx.v(a["other"]))


def register_unary(table: dict[str, str]) -> None:
    """``aten.<op>.default`` -> ``np.<ufunc>(self)`` for each ``op: ufunc`` of ``table``."""
    for name, uf in table.items():
        LOWERINGS[f"aten.{name}.default"] = unary_rule(uf)


def register_binary(table: dict[str, str], overloads: tuple[str, ...]) -> None:
    """``aten.<op>.<overload>`` -> ``np.<ufunc>(self, other)`` for each ``op: ufunc`` of ``table`` and overload."""
    for name, uf in table.items():
        for overload in overloads:
            LOWERINGS[f"aten.{name}.{overload}"] = binary_rule(uf)


def lowering_for(name: str) -> tuple[Rule | None, bool]:
    """The rule for an op name such as ``aten.add_.Tensor`` and whether it is the in-place form of a functional rule."""
    rule = LOWERINGS.get(name)
    if rule is not None:
        return rule, False
    ns, op, overload = name.split(".")
    if op.endswith("_") and not op.endswith("__"):
        functional = LOWERINGS.get(f"{ns}.{op[:-1]}.{overload}")
        if functional is not None:
            return functional, True
    return None, False
