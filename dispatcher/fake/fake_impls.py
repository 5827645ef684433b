"""Rules for ops a Meta kernel cannot handle alone under FakeTensorMode.

Corresponds to torch/_subclasses/fake_impls.py (``register_op_impl`` and the ``data_dep`` / ``dyn_shape`` /
``index_tensor`` rules). A rule is ``rule(mode, func, args, kwargs)``; it returns the result, raises, or
returns ``NotImplemented`` to let the mode run the Meta kernel. Rules are found per op (by name) or by a
predicate on the op (its tags), the per-op ones first:

* an op tagged ``data_dependent_output`` (``_local_scalar_dense``: ``.item()``, ``bool()``, ``tolist()``,
  ``float()``) raises ``DataDependentOutputException(func)``: its value depends on data;
* an op tagged ``dynamic_output_shape`` (``nonzero``, ``masked_select``) raises
  ``DynamicOutputShapeException(func)``: its output size depends on data;
* ``index.Tensor`` with a boolean (or uint8) mask among the indices turns the mask into indices with
  ``nonzero`` under the mode, as torch's meta does, so it raises ``DynamicOutputShapeException`` for
  ``aten.nonzero.default``.

Constant fakes never reach these rules: the mode computes ops on constants for real first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes as _dt
from ..op_overload import namespace
from .exceptions import DataDependentOutputException, DynamicOutputShapeException

Rule = Callable[[Any, Any, tuple, dict], Any]

#: "aten::index.Tensor" -> rule
OP_RULES: dict[str, Rule] = {}
#: (predicate on the op, rule), tried in order after OP_RULES
PREDICATE_RULES: list[tuple[Callable[[Any], bool], Rule]] = []


def register_op_impl(target: str | Callable[[Any], bool]) -> Callable[[Rule], Rule]:
    """Decorator: ``rule`` handles the op named ``target`` ("aten::index.Tensor"), or every op ``target(op)`` accepts.

    NB: rules are looked up once per op and cached by the mode; register them before the op first runs.
    """

    def register(rule: Rule) -> Rule:
        if isinstance(target, str):
            OP_RULES[target] = rule
        else:
            PREDICATE_RULES.append((target, rule))
        return rule

    return register


def find_handler(op: Any) -> Rule | None:
    rule = OP_RULES.get(op.name())
    if rule is not None:
        return rule
    for predicate, rule in PREDICATE_RULES:
        if predicate(op):
            return rule
    return None


@register_op_impl(lambda op: "data_dependent_output" in op.tags)
def data_dep(mode: Any, func: Any, args: tuple, kwargs: dict) -> Any:
    raise DataDependentOutputException(func)


@register_op_impl(lambda op: "dynamic_output_shape" in op.tags)
def dyn_shape(mode: Any, func: Any, args: tuple, kwargs: dict) -> Any:
    raise DynamicOutputShapeException(func)


@register_op_impl("aten::index.Tensor")
def index_tensor(mode: Any, func: Any, args: tuple, kwargs: dict) -> Any:
    """Boolean masks become indices through ``nonzero`` (data-dependent); other indices: the Meta kernel."""
    indices = args[1] if len(args) > 1 else kwargs.get("indices", ())
    for index in indices:
        if index is not None and index.dtype in (_dt.bool, _dt.uint8):
            with mode:
                namespace("aten").nonzero.default(index)
    return NotImplemented


__all__ = ["OP_RULES", "PREDICATE_RULES", "data_dep", "dyn_shape", "find_handler", "index_tensor", "register_op_impl"]
