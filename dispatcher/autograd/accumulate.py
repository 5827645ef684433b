"""Adding a gradient into a leaf's ``.grad``, as AccumulateGrad does in PyTorch.

Corresponds to torch/csrc/autograd/functions/accumulate_grad.h. The first
gradient is stored as ``new_grad.detach()`` (PyTorch "steals" the buffer; a
trace shows the ``detach``); later ones are added in place (``add_``) when grad
mode is off, or out of place when it is on (``create_graph=True``). All through
the dispatcher, so tracing sees it.
"""

from __future__ import annotations

from typing import Any

from .grad_mode import is_grad_enabled


def _aten() -> Any:
    from ..op_overload import namespace

    return namespace("aten")


def accumulate_grad(variable: Any, new_grad: Any) -> None:
    if new_grad is None:
        return
    aten = _aten()
    old = variable.grad
    if old is None:
        if is_grad_enabled():
            variable.grad = aten.clone.default(new_grad)
        else:
            variable.grad = aten.detach.default(new_grad)
    elif is_grad_enabled():
        variable.grad = aten.add.Tensor(old, new_grad)
    else:
        aten.add_.Tensor(old, new_grad)
