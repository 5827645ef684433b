"""The ``_foreach_*`` kernels: one op over lists of tensors (what multi-tensor optimizers and gradient clipping call).

Corresponds to aten/src/ATen/native/ForeachOpsKernels.cpp (the "slow" kernels, PyTorch's CPU path) and the checks of
ForeachUtils.h. Like PyTorch's, every kernel is CompositeExplicitAutograd: a loop calling the per-tensor op
(``_foreach_add_.List`` calls ``add_.Tensor`` on each pair), so a mode or make_fx sees the one ``_foreach_*`` call and
nothing inside it. In-place overloads return nothing (schema ``-> ()``); out-of-place ones return a list.
The list checks are PyTorch's: a non-empty first list, lists of equal length, as many scalars as tensors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .kernel_registry import impl
from .meta_utils import can_cast, scalar_type_name
from .tensor_iterator import _C_TYPE_NAMES

aten = namespace("aten")


def _check(self: list[Tensor], *others: list[Any], scalars: list[Any] | None = None) -> None:
    """``check_foreach_api_restrictions``: at least one tensor, equal lengths, one scalar per tensor."""
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in others:
        if len(other) != len(self):
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(self)} and {len(other)}")
    if scalars is not None and len(scalars) != len(self):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")


def _pair(name: str, fn: Callable[..., Any], inplace_fn: Callable[..., Any], check: Callable[..., None]) -> None:
    """Register ``_foreach_<name>`` (a list of results) and ``_foreach_<name>_`` (in place, nothing returned)."""
    base, _, overload = name.partition(".")
    suffix = f".{overload}" if overload else ""

    @impl(f"_foreach_{base}{suffix}", "CompositeExplicitAutograd")
    def functional(self: list[Tensor], *args: Any, **kwargs: Any) -> list[Tensor]:
        check(self, *args, **kwargs)
        return [fn(i, t, *args, **kwargs) for i, t in enumerate(self)]

    @impl(f"_foreach_{base}_{suffix}", "CompositeExplicitAutograd")
    def inplace(self: list[Tensor], *args: Any, **kwargs: Any) -> None:
        check(self, *args, **kwargs)
        for i, t in enumerate(self):
            inplace_fn(i, t, *args, **kwargs)


def _no_check(self: list[Tensor], *args: Any, **kwargs: Any) -> None:
    _check(self)


def _lists_check(self: list[Tensor], *args: Any, **kwargs: Any) -> None:
    _check(self, *[a for a in args if isinstance(a, (list, tuple)) and (not a or isinstance(a[0], Tensor))])


def _scalars_check(self: list[Tensor], *args: Any, **kwargs: Any) -> None:
    tensor_lists = [a for a in args[:-1] if isinstance(a, (list, tuple))]
    _check(self, *tensor_lists, scalars=list(args[-1]))


# --- unary -------------------------------------------------------------------------------------------------------
_pair("neg", lambda i, t: aten.neg.default(t), lambda i, t: aten.neg_.default(t), _no_check)
_pair("sqrt", lambda i, t: aten.sqrt.default(t), lambda i, t: aten.sqrt_.default(t), _no_check)

# --- add / mul / div: Scalar, List, Tensor, ScalarList -----------------------------------------------------------
_pair("add.Scalar", lambda i, t, s: aten.add.Scalar(t, s), lambda i, t, s: aten.add_.Scalar(t, s), _no_check)
_pair("add.List", lambda i, t, o, alpha=1: aten.add.Tensor(t, o[i], alpha=alpha),
      lambda i, t, o, alpha=1: aten.add_.Tensor(t, o[i], alpha=alpha), _lists_check)
_pair("add.Tensor", lambda i, t, o, alpha=1: aten.add.Tensor(t, o, alpha=alpha),
      lambda i, t, o, alpha=1: aten.add_.Tensor(t, o, alpha=alpha), _no_check)
_pair("mul.Scalar", lambda i, t, s: aten.mul.Scalar(t, s), lambda i, t, s: aten.mul_.Scalar(t, s), _no_check)
_pair("mul.List", lambda i, t, o: aten.mul.Tensor(t, o[i]), lambda i, t, o: aten.mul_.Tensor(t, o[i]), _lists_check)
_pair("mul.Tensor", lambda i, t, o: aten.mul.Tensor(t, o), lambda i, t, o: aten.mul_.Tensor(t, o), _no_check)
_pair("mul.ScalarList", lambda i, t, s: aten.mul.Scalar(t, s[i]), lambda i, t, s: aten.mul_.Scalar(t, s[i]),
      _scalars_check)
_pair("div.List", lambda i, t, o: aten.div.Tensor(t, o[i]), lambda i, t, o: aten.div_.Tensor(t, o[i]), _lists_check)
_pair("div.ScalarList", lambda i, t, s: aten.div.Scalar(t, s[i]), lambda i, t, s: aten.div_.Scalar(t, s[i]),
      _scalars_check)

# --- lerp / addcmul / addcdiv / maximum ----------------------------------------------------------------------------
_pair("lerp.Scalar", lambda i, t, e, w: aten.lerp.Scalar(t, e[i], w), lambda i, t, e, w: aten.lerp_.Scalar(t, e[i], w),
      _lists_check)
_pair("addcmul.Scalar", lambda i, t, a, b, value=1: aten.addcmul.default(t, a[i], b[i], value=value),
      lambda i, t, a, b, value=1: aten.addcmul_.default(t, a[i], b[i], value=value), _lists_check)
_pair("addcdiv.Scalar", lambda i, t, a, b, value=1: aten.addcdiv.default(t, a[i], b[i], value=value),
      lambda i, t, a, b, value=1: aten.addcdiv_.default(t, a[i], b[i], value=value), _lists_check)
_pair("addcdiv.ScalarList", lambda i, t, a, b, s: aten.addcdiv.default(t, a[i], b[i], value=s[i]),
      lambda i, t, a, b, s: aten.addcdiv_.default(t, a[i], b[i], value=s[i]), _scalars_check)
_pair("maximum.List", lambda i, t, o: aten.maximum.default(t, o[i]),
      lambda i, t, o: aten.maximum.out(t, o[i], out=t), _lists_check)


# --- clamp_min_ / clamp_max_ (gradient clipping by value) and norm (clipping by norm) -----------------------------
@impl("_foreach_clamp_min_.Scalar", "CompositeExplicitAutograd")
def _foreach_clamp_min_(self: list[Tensor], scalar: Any) -> None:
    _check(self)
    for t in self:
        aten.clamp_min_.default(t, scalar)


@impl("_foreach_clamp_max_.Scalar", "CompositeExplicitAutograd")
def _foreach_clamp_max_(self: list[Tensor], scalar: Any) -> None:
    _check(self)
    for t in self:
        out = aten.clamp_max.default(t, scalar)
        if not can_cast(out._dtype, t._dtype):  # a float bound on an integral tensor: clamp_max_'s cast check
            raise RuntimeError(f"result type {scalar_type_name(out._dtype)} can't be cast to the desired output "
                               f"type {_C_TYPE_NAMES[t._dtype.name]}")
        aten.copy_.default(t, out)


@impl("_foreach_norm.Scalar", "CompositeExplicitAutograd")
def _foreach_norm(self: list[Tensor], ord: Any = 2, dtype: Any = None) -> list[Tensor]:  # noqa: A002 - schema name
    """Each tensor's vector norm of order ``ord`` (``linalg_vector_norm`` of the whole tensor)."""
    _check(self)
    return [aten.linalg_vector_norm.default(t, ord, dtype=dtype) for t in self]
