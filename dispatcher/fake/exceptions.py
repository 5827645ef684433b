"""The errors fake tensors raise, with torch's names (torch/_subclasses/fake_tensor.py).

* ``DataDependentOutputException(func)``: the op's *value* depends on data a fake tensor does not have
  (``.item()``, ``bool(t)``, ``t.tolist()``, ``float(t)`` all end in ``aten._local_scalar_dense``; also
  every op tagged ``data_dependent_output``). ``str(e)`` is the op, e.g. ``aten._local_scalar_dense.default``.
* ``DynamicOutputShapeException(func)``: the op's output *shape* depends on data (``nonzero``,
  ``masked_select``, indexing with a boolean mask: every op tagged ``dynamic_output_shape``).
* ``UnsupportedFakeTensorException(reason)``, ``UnsupportedOperatorException(func)``: what fake tensors
  cannot do here.
* ``MetadataMismatchError(reason)``: a result disagrees with its Meta kernel (see modes/meta_check.py).

NB: torch declares the first four as dataclasses; the fields, ``str`` and ``repr`` are the same here.
"""

from __future__ import annotations

from typing import Any

from ..modes.meta_check import MetadataMismatchError


class _FuncError(RuntimeError):
    """A RuntimeError about one op: ``str(e)`` is the op, ``e.func`` the OpOverload."""

    def __init__(self, func: Any) -> None:
        super().__init__(func)
        self.func = func

    def __repr__(self) -> str:
        return f"{type(self).__name__}(func={self.func!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.func is self.func  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), id(self.func)))


class DataDependentOutputException(_FuncError):
    """The op's output value depends on tensor data (raised under FakeTensorMode)."""


class DynamicOutputShapeException(_FuncError):
    """The op's output shape depends on tensor data (raised under FakeTensorMode)."""


class UnsupportedOperatorException(_FuncError):
    """The op cannot run on fake tensors (no Meta kernel and no fallback)."""


class UnsupportedFakeTensorException(RuntimeError):
    """A tensor cannot be turned into a fake tensor."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __repr__(self) -> str:
        return f"UnsupportedFakeTensorException(reason={self.reason!r})"


__all__ = [
    "DataDependentOutputException",
    "DynamicOutputShapeException",
    "MetadataMismatchError",
    "UnsupportedFakeTensorException",
    "UnsupportedOperatorException",
]
