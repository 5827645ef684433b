"""Derivatives of the ``set_`` family: none. torch's derivatives.yaml lists ``set_`` with no formula, so torchgen
gives it a ``NotImplemented`` node: ``x.set_(y)`` on a tensor with history records the node (its edges: ``self``'s
previous history and, for ``set_.source_Tensor``, ``source``'s), and backward fails when it reaches it with
"derivative for set_ is not implemented".

Corresponds to the ``set_`` overloads of tools/autograd/derivatives.yaml (VariableType's ``set_`` kernels).
"""

from __future__ import annotations

from ..function import derivative


def _register(op: str, inputs: tuple[str, ...]) -> None:
    @derivative(op, "NotImplemented", inputs)
    def backward(ctx, grads, needs):
        raise RuntimeError("derivative for set_ is not implemented")


_register("set_.source_Storage", ("self",))
_register("set_.source_Storage_storage_offset", ("self",))
_register("set_.source_Tensor", ("self", "source"))
_register("set_", ("self",))
