"""Core-aten decompositions of the dropout ops: ``native_dropout_backward``, and ``dropout``, also a Python-dispatcher
kernel (``py_impl``).

Corresponds to the entries of torch/_decomp/decompositions.py for these ops:

* ``native_dropout_backward`` (in PyTorch 2.13's ``core_aten_decompositions()``): ``grad * (mask * scale)``,
  cloned contiguous;
* ``aten.dropout``: registered in the global table and, as torch/_decomp stacks ``@aten.dropout.default.py_impl``
  on it, as a Python kernel at CompositeImplicitAutograd and Autograd. Importing the table registers those kernels,
  which the Python dispatcher prefers over the C++ ones, so they run wherever it is on, i.e. in a pre-dispatch
  ``make_fx`` (and in ``op.decompose()``, which prefers a Python CompositeImplicitAutograd kernel). Post-dispatch
  tracing, with the Python dispatcher off, keeps the C++-like kernels of dispatcher/ops. The kernel is
  ``native_dropout(input, p, train)[0]`` when training with ``p != 0``, else ``input.clone()``. The C++ kernel
  (Dropout.cpp) returns ``input`` itself in that case; before dispatch the op reaches the proxy mode whole and this
  kernel runs below it, so the difference shows in the graph as a separate value per ``dropout`` node (the clone)
  rather than one shared with the input.
"""

from __future__ import annotations

from typing import Any

from dispatcher.keys import DispatchKey
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition

aten = namespace("aten")


@register_decomposition(aten.native_dropout_backward.default)
def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    from dispatcher.memory_format import contiguous_format

    return (grad_output * (mask.type_as(grad_output) * scale)).clone(memory_format=contiguous_format)


@register_decomposition(aten.dropout)
@aten.dropout.default.py_impl(DispatchKey.CompositeImplicitAutograd)
@aten.dropout.default.py_impl(DispatchKey.Autograd)
def dropout(input: Any, p: float, train: bool | None) -> Any:  # noqa: A002 - the schema's name
    if train and p != 0:
        return aten.native_dropout.default(input, p, train)[0]
    return input.clone()
