"""``FlopCounterMode``: count the floating-point operations of the aten ops run in a block.

Corresponds to torch/utils/flop_counter.py. ``with FlopCounterMode() as fc: ...`` runs the block under a
TorchDispatchMode that, for each op with a formula, adds the op's FLOPs (computed from the argument and
output shapes) to a per-op total; ``fc.get_total_flops()``, ``fc.get_flop_counts()`` (``{"Global":
{aten.mm: n, ...}}``, keyed by OpOverloadPacket as in torch) and ``fc.get_table()`` report them, and the
table is printed on exit when ``display=True`` (torch's default).

What is counted, by default exactly torch's set (so totals equal torch's FlopCounterMode on the same
program): the matrix products ``mm``, ``addmm``, ``bmm``, ``baddbmm`` with torch's formulas (2 FLOPs per
multiply-add: ``2*m*n*k`` for (m, k) @ (k, n), times the batch for bmm; the bias add of addmm / baddbmm is
not counted). ``matmul``, ``linear``, attention written with ``@`` ... count through the ops they decompose
to. torch does *not* count ``mv`` / ``dot`` (a matmul of a matrix and a vector) nor elementwise ops; two
options add them:

* ``count_vector_products=True``: ``mv`` (``2*m*n``) and ``dot`` (``2*n``);
* ``count_elementwise=True``: every op tagged ``pointwise`` counts the number of elements of its output.

An op without a formula whose CompositeImplicitAutograd kernel reaches the mode (e.g. ``aten.matmul``
called inside another mode's handler) is decomposed under the mode, so the products inside are counted,
as torch does. NB: torch's per-``nn.Module`` breakdown (``mods``, ``depth``) needs ``nn.Module``, which
dispatchkit does not have: everything is counted under "Global".
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from ..op_overload import OpOverloadPacket, namespace
from ..tensor import Tensor
from .dispatch_mode import TorchDispatchMode

aten = namespace("aten")

#: OpOverloadPacket -> formula(*args, out_val=..., **kwargs) -> int: the built-in set, torch's
flop_registry: dict[Any, Callable[..., int]] = {}
#: the formulas counted only with ``count_vector_products=True``
vector_product_registry: dict[Any, Callable[..., int]] = {}


def get_shape(x: Any) -> Any:
    return tuple(x.shape) if isinstance(x, Tensor) else x


def _map_shapes(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return type(x)(_map_shapes(e) for e in x)
    if isinstance(x, dict):
        return {k: _map_shapes(v) for k, v in x.items()}
    return get_shape(x)


def shape_wrapper(f: Callable[..., int]) -> Callable[..., int]:
    """Call a formula written on shapes: every tensor argument (and ``out_val``) replaced by its shape."""

    def formula(*args: Any, out_val: Any = None, **kwargs: Any) -> int:
        return f(*_map_shapes(args), out_shape=_map_shapes(out_val), **_map_shapes(kwargs))

    formula.__name__ = getattr(f, "__name__", "formula")
    formula.__doc__ = f.__doc__
    return formula


def register_flop_formula(targets: Any, get_raw: bool = False,
                          registry: dict[Any, Callable[..., int]] | None = None) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Decorator: ``f`` counts the FLOPs of the OpOverloadPacket(s) ``targets``.

    ``f`` receives the op's arguments with tensors replaced by their shapes and ``out_shape=`` (with
    ``get_raw=True``: the tensors themselves and ``out_val=``).
    """
    table = flop_registry if registry is None else registry

    def register(f: Callable[..., int]) -> Callable[..., int]:
        formula = f if get_raw else shape_wrapper(f)
        for target in targets if isinstance(targets, (list, tuple)) else (targets,):
            if not isinstance(target, OpOverloadPacket):
                raise ValueError(f"register_flop_formula(targets): expected each target to be OpOverloadPacket "
                                 f"(i.e. torch.ops.mylib.foo), got {target} which is of type {type(target)}")
            if target in table:
                raise RuntimeError(f"duplicate registrations for {target}")
            table[target] = formula
        return formula

    return register


@register_flop_formula(aten.mm)
def mm_flop(a_shape: tuple, b_shape: tuple, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    """(m, k) @ (k, n): m*n dot products of length k, 2 FLOPs per multiply-add."""
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"matmul: inner dimensions must match (k == k2), got {k} and {k2}")
    return 2 * m * n * k


@register_flop_formula(aten.addmm)
def addmm_flop(self_shape: tuple, a_shape: tuple, b_shape: tuple, out_shape: Any = None, **kwargs: Any) -> int:
    """The product only (the bias add is not counted, as in torch)."""
    return mm_flop(a_shape, b_shape)


@register_flop_formula(aten.bmm)
def bmm_flop(a_shape: tuple, b_shape: tuple, out_shape: Any = None, **kwargs: Any) -> int:
    """(b, m, k) @ (b, k, n): b matrix products."""
    b, m, k = a_shape
    b2, k2, n = b_shape
    if b != b2:
        raise AssertionError(f"bmm: batch dimensions must match (b == b2), got {b} and {b2}")
    if k != k2:
        raise AssertionError(f"bmm: inner dimensions must match (k == k2), got {k} and {k2}")
    return 2 * b * m * n * k


@register_flop_formula(aten.baddbmm)
def baddbmm_flop(self_shape: tuple, a_shape: tuple, b_shape: tuple, out_shape: Any = None, **kwargs: Any) -> int:
    return bmm_flop(a_shape, b_shape)


@register_flop_formula(aten.mv, registry=vector_product_registry)
def mv_flop(a_shape: tuple, v_shape: tuple, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    """(m, n) @ (n,): m dot products of length n (not counted by torch)."""
    m, n = a_shape
    return 2 * m * n


@register_flop_formula(aten.dot, registry=vector_product_registry)
def dot_flop(a_shape: tuple, b_shape: tuple, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    """One dot product of length n (not counted by torch)."""
    return 2 * a_shape[0]


def _elementwise_flop(out_val: Any) -> int:
    total = 0
    for t in out_val if isinstance(out_val, (list, tuple)) else (out_val,):
        if isinstance(t, Tensor):
            total += t.numel()
    return total


# --- the table (torch's number format: 1.234K, 12.000M, ...) ------------------------------------------------------
SUFFIXES = ["", "K", "M", "B", "T"]


def get_suffix_str(number: int) -> str:
    """The suffix for a total: one step down when the leading group would be a single digit (1001M, not 1.001B)."""
    return SUFFIXES[max(0, min(len(SUFFIXES) - 1, (len(str(number)) - 2) // 3))]


def convert_num_with_suffix(number: int, suffix: str) -> str:
    return f"{number / 1000 ** SUFFIXES.index(suffix):.3f}{suffix}"


def convert_to_percent_str(num: int, denom: int) -> str:
    return "0%" if denom == 0 else f"{num / denom:.2%}"


def _render_table(rows: list[list[str]]) -> str:
    header = ["Module", "FLOP", "% Total"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    lines = [f"{header[0]:<{widths[0]}}  {header[1]:>{widths[1]}}  {header[2]:>{widths[2]}}",
             "  ".join("-" * w for w in widths)]
    lines += [f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}" for r in rows]
    return "\n".join(lines)


class FlopCounterMode:
    """Count FLOPs per op in a ``with`` block (see the module docstring).

    ``FlopCounterMode(mods=None, depth=2, display=True, custom_mapping=None, *, count_elementwise=False,
    count_vector_products=False)``; ``custom_mapping`` maps OpOverloadPackets to extra formulas (written on
    shapes, unless made with ``register_flop_formula(..., get_raw=True)``). Not re-entrant.
    """

    def __init__(self, mods: Any = None, depth: int = 2, display: bool = True,
                 custom_mapping: dict[Any, Callable[..., int]] | None = None, *, count_elementwise: bool = False,
                 count_vector_products: bool = False) -> None:
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it", stacklevel=2)
        self.flop_counts: dict[str, dict[Any, int]] = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.count_elementwise = count_elementwise
        self.flop_registry = dict(flop_registry)
        if count_vector_products:
            self.flop_registry.update(vector_product_registry)
        for k, v in (custom_mapping or {}).items():
            self.flop_registry[k] = v if getattr(v, "_get_raw", False) else shape_wrapper(v)
        self.mode: _FlopCounterMode | None = None

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict[str, dict[Any, int]]:
        """``{"Global": {OpOverloadPacket: flops}}`` (a copy)."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth: int | None = None) -> str:
        """The counts as a table: the total, then one `` - aten.mm`` row per op, with the share of the total."""
        total = self.get_total_flops()
        suffix = get_suffix_str(total)
        rows: list[list[str]] = []
        if "Global" in self.flop_counts:
            rows.append(["Global", convert_num_with_suffix(total, suffix), convert_to_percent_str(total, total)])
            for op, n in self.flop_counts["Global"].items():
                rows.append([f" - {op}", convert_num_with_suffix(n, suffix), convert_to_percent_str(n, total)])
        if not rows:
            rows = [["Global", "0", "0%"]]
        return _render_table(rows)

    def __enter__(self) -> FlopCounterMode:
        self.flop_counts.clear()
        self.mode = _FlopCounterMode(self)
        self.mode.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.mode is None:
            raise AssertionError("Internal error: FlopCounter.__exit__ called but mode is None")
        self.mode.__exit__(*exc)
        self.mode = None
        if self.display:
            print(self.get_table(self.depth))

    def _count_flops(self, packet: Any, out: Any, args: tuple, kwargs: dict) -> Any:
        formula = self.flop_registry.get(packet)
        if formula is not None:
            self.flop_counts["Global"][packet] += formula(*args, **kwargs, out_val=out)
        return out


class _FlopCounterMode(TorchDispatchMode):
    """The dispatch mode behind ``FlopCounterMode``: runs each op, then adds its count."""

    def __init__(self, counter: FlopCounterMode) -> None:
        super().__init__()
        self.counter = counter

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        counter = self.counter
        packet = func.overloadpacket
        if packet not in counter.flop_registry:
            with self:  # an op without a formula: count what its CompositeImplicitAutograd kernel calls
                r = func.decompose(*args, **kwargs)
            if r is not NotImplemented:
                return r
        out = func(*args, **kwargs)
        if counter.count_elementwise and packet not in counter.flop_registry and "pointwise" in func.tags:
            counter.flop_counts["Global"][packet] += _elementwise_flop(out)
            return out
        return counter._count_flops(packet, out, args, kwargs)


__all__ = [
    "FlopCounterMode",
    "addmm_flop",
    "baddbmm_flop",
    "bmm_flop",
    "dot_flop",
    "flop_registry",
    "mm_flop",
    "mv_flop",
    "register_flop_formula",
    "shape_wrapper",
    "vector_product_registry",
]
