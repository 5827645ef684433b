"""The decomposition registry: ``register_decomposition`` and the global table it fills.

Corresponds to the registration half of torch/_decomp/__init__.py (``register_decomposition``,
``_add_op_to_registry``, ``global_decomposition_table``). A decomposition is a plain Python function
written with aten ops; registering it for an ``OpOverloadPacket`` registers it for every overload of
that packet, as PyTorch does. The family modules of this package (``arithmetic.py``, ``views.py``, ...) import
this module and register into ``global_decomposition_table``; the package's ``__init__.py`` builds the tables users
ask for.

NB: PyTorch keeps three tables ("post_autograd", "pre_autograd", "meta"); every decomposition here
is a post-autograd one, so there is a single table.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from dispatcher.op_overload import OpOverload, OpOverloadPacket

__all__ = ["global_decomposition_table", "register_decomposition", "overloads_of"]

#: OpOverload -> decomposition, filled by the family modules
global_decomposition_table: dict[OpOverload, Callable[..., Any]] = {}


def overloads_of(op: Any) -> list[OpOverload]:
    """``op`` itself for an OpOverload; every overload of a packet; a TypeError for anything else."""
    if isinstance(op, OpOverload):
        return [op]
    if isinstance(op, OpOverloadPacket):
        return [getattr(op, name) for name in op.overloads()]
    raise TypeError(f"expected an OpOverload or an OpOverloadPacket (e.g. aten.addmm.default or aten.addmm), "
                    f"got {type(op).__name__}: {op!r}")


def _flatten(op_or_ops: Any) -> list[OpOverload]:
    if isinstance(op_or_ops, (list, tuple, set, frozenset)):
        return [o for op in op_or_ops for o in overloads_of(op)]
    return overloads_of(op_or_ops)


#: OpOverload -> (module, line) of the module-level code that registered its decomposition (``dispatchkit where``
#: reads it: a decomposition made by a helper, e.g. an in-place form, is defined in the helper's file)
DECOMPOSITION_SITES: dict[OpOverload, tuple[str, int]] = {}


def _module_site() -> tuple[str, int]:
    frame = sys._getframe(2)
    while frame.f_back is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    return frame.f_globals.get("__name__", "?"), frame.f_lineno


def register_decomposition(op_or_ops: Any, registry: dict | None = None,
                           ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register ``fn`` as the decomposition of ``op_or_ops`` in ``registry`` (default: the global table).

    ``op_or_ops`` is an OpOverload, an OpOverloadPacket (all its overloads) or a list of them. Registering
    an op twice in the same registry is an error, as in PyTorch.
    """
    target = global_decomposition_table if registry is None else registry
    ops = _flatten(op_or_ops)
    site = _module_site()

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for op in ops:
            if op in target:
                raise RuntimeError(f"duplicate registrations for {op}")
            target[op] = fn
            if target is global_decomposition_table:
                DECOMPOSITION_SITES[op] = site
        return fn

    return register


def table_for(ops: Iterable[Any], table: dict[OpOverload, Callable[..., Any]]) -> dict[OpOverload, Callable[..., Any]]:
    """The entries of ``table`` for ``ops``: an OpOverload if it is in the table, a packet's overloads that are."""
    out: dict[OpOverload, Callable[..., Any]] = {}
    for op in ops:
        if isinstance(op, OpOverloadPacket):
            for overload in overloads_of(op):
                if overload in table:
                    out[overload] = table[overload]
        elif isinstance(op, OpOverload):
            if op in table:
                out[op] = table[op]
        else:
            overloads_of(op)  # raises the TypeError
    return out
