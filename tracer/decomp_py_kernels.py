"""Decompositions that are also Python-dispatcher kernels (``py_impl``): what they change under the Python dispatcher.

Corresponds to the entries of torch/_decomp/decompositions.py stacked with ``@op.py_impl(DispatchKey.X)``:
importing torch._decomp registers them as kernels that the Python dispatcher prefers over the C++ ones, so they
run wherever it is on, i.e. in a pre-dispatch ``make_fx`` (and in ``op.decompose()``, which prefers a Python
CompositeImplicitAutograd kernel). Post-dispatch tracing, with the Python dispatcher off, keeps the C++-like
kernels of dispatcher/ops.

* ``aten.dropout``: at CompositeImplicitAutograd and Autograd, ``native_dropout(input, p, train)[0]`` when
  training with ``p != 0``, else ``input.clone()``. The C++ kernel (Dropout.cpp) returns ``input`` itself in
  that case; before dispatch the op reaches the proxy mode whole and this kernel runs below it, so the
  difference shows in the graph as a separate value per ``dropout`` node (the clone) rather than one shared
  with the input.
"""

from __future__ import annotations

from typing import Any

from dispatcher.keys import DispatchKey
from dispatcher.op_overload import namespace

from .decomp_registry import register_decomposition

aten = namespace("aten")


@register_decomposition(aten.dropout)
@aten.dropout.default.py_impl(DispatchKey.CompositeImplicitAutograd)
@aten.dropout.default.py_impl(DispatchKey.Autograd)
def dropout(input: Any, p: float, train: bool | None) -> Any:  # noqa: A002 - the schema's name
    if train and p != 0:
        return aten.native_dropout.default(input, p, train)[0]
    return input.clone()
