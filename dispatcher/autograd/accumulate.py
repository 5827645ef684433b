"""Adding a gradient into a leaf's ``.grad``, as AccumulateGrad does in PyTorch.

Corresponds to torch/csrc/autograd/functions/accumulate_grad.h and
utils/grad_layout_contract.h. All through the dispatcher, so a mode sees the
same ops as PyTorch's:

* first gradient, grad mode off, the gradient is not referenced elsewhere
  ("stealable") and has the leaf's strides (the *layout contract*): keep it,
  as ``new_grad.detach()``;
* first gradient otherwise: a copy with the leaf's strides
  (``new_empty_strided`` + ``copy_``; ``clone`` for a leaf that is not dense);
* later gradients: ``grad += new`` (``add_``) with grad mode off, ``grad + new``
  (``add``) with it on (``create_graph=True``).

Stealing matters beyond speed: the gradient a user passed to ``backward`` may reach
a leaf unchanged, and must not become (an alias of) that leaf's ``.grad``.
"""

from __future__ import annotations

import sys
from typing import Any

from ..aten_namespace import aten as _aten
from .grad_mode import is_grad_enabled

#: references the engine keeps to a gradient while AccumulateGrad runs, besides the node's own
#: (the loop variable of its capture scan). More means someone else holds it: not stealable.
#: tests/test_autograd_inplace_views.py pins this against torch (fresh grads detach, user grads copy).
_ENGINE_REFS = 1


def engine_holds_only(new_grad: Any) -> bool:
    """``is_tensor_stealable``: no reference to ``new_grad`` besides AccumulateGrad's and the engine's.

    Called from ``AccumulateGrad.apply`` with the gradient taken out of the engine's buffer;
    the 3 subtracted are that frame's local, this function's argument and getrefcount's.
    """
    return sys.getrefcount(new_grad) - 3 <= _ENGINE_REFS


def _dense(t: Any) -> bool:
    global _is_dense
    if _is_dense is None:
        from ..ops.meta_utils import is_non_overlapping_and_dense as _is_dense
    return _is_dense(t._shape, t._stride)


_is_dense: Any = None  #: ops.meta_utils.is_non_overlapping_and_dense, imported on first use


def obeys_layout_contract(grad: Any, variable: Any) -> bool:
    """Does ``grad`` have the strides ``.grad`` of ``variable`` should have (the leaf's own, if it is dense)?"""
    if _dense(variable):
        for size, gs, vs in zip(grad._shape, grad._stride, variable._stride):
            if size != 1:
                if gs != vs:
                    return False
            elif gs == 0:
                return False
        return True
    return grad.is_contiguous()


def clone_obey_contract(new_grad: Any, variable: Any) -> Any:
    aten = _aten()
    if _dense(variable):
        out = aten.new_empty_strided.default(new_grad, list(variable._shape), list(variable._stride),
                                             dtype=variable._dtype, layout=_strided(), device=variable._device)
        return aten.copy_.default(out, new_grad)
    from ..memory_format import contiguous_format

    return aten.clone.default(new_grad, memory_format=contiguous_format)


def _strided() -> Any:
    from ..memory_format import strided

    return strided


def accumulate_grad(variable: Any, new_grad: Any, stealable: bool = False) -> None:
    """Add ``new_grad`` into ``variable.grad`` (PyTorch's ``AccumulateGrad::accumulateGrad``)."""
    if new_grad is None:
        return
    aten = _aten()
    old = variable._grad
    grad_mode = is_grad_enabled()
    if old is None:
        if not grad_mode and stealable and obeys_layout_contract(new_grad, variable):
            variable._grad = aten.detach.default(new_grad)
        else:
            variable._grad = clone_obey_contract(new_grad, variable)
    elif not grad_mode:
        aten.add_.Tensor(old, new_grad)
    else:
        variable._grad = aten.add.Tensor(old, new_grad)
