"""In-place forms of pointwise decompositions: the out-of-place decomposition, then ``aten.copy_`` into self.

Corresponds to ``register_inplace`` in torch/_decomp/decompositions.py. ``_register_inplace(inplace_op, outplace)``
registers, for ``inplace_op``, a function named after it that calls the out-of-place *decomposition* ``outplace``
and copies its result into ``self`` with ``aten.copy_.default``; arithmetic.py (``frac_``, ``nan_to_num_``),
comparison.py (``heaviside_``) and transcendental.py (``logit_``, ``xlogy_``) use it. (The in-place activations
have their own variant in activations.py: it calls the out-of-place *op*, decomposed again by the table, and
copies with ``Tensor.copy_``.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition

aten = namespace("aten")


def _register_inplace(inplace_op: Any, outplace: Callable[..., Tensor]) -> None:
    @register_decomposition(inplace_op)
    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return aten.copy_.default(self, outplace(self, *args, **kwargs))

    inplace.__name__ = inplace.__qualname__ = inplace_op.name().split("::")[1].replace(".", "_")
