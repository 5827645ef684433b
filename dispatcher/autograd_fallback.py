"""The fallback on Autograd<Backend> keys for ops that have no autograd kernel.

Corresponds to autogradNotImplementedFallback in
torch/csrc/autograd/autograd_not_implemented_fallback.cpp (2.13's default mode
"warn"): run the op below autograd and ADInplaceOrView. The autograd machinery
(``requires_grad`` on outputs and the warning on backward) is added when the
autograd engine exists; until then ops simply pass through.
"""

from __future__ import annotations

from typing import Any

from .dispatch import redispatch_excluding
from .keys import DispatchKey
from .keyset import full_after_bits
from .tls import AUTOGRAD_AND_ADINPLACEORVIEW_RAW

_AFTER_ADINPLACEORVIEW = full_after_bits(DispatchKey.ADInplaceOrView)


def autograd_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """Run below autograd and ADInplaceOrView (PyTorch's AutoDispatchBelowADInplaceOrView + redispatch)."""
    return redispatch_excluding(op, ks, _AFTER_ADINPLACEORVIEW, AUTOGRAD_AND_ADINPLACEORVIEW_RAW, args, kwargs)
