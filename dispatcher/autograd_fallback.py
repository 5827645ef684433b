"""The fallback on Autograd<Backend> keys for ops that have no autograd kernel.

Corresponds to autogradNotImplementedFallback in
torch/csrc/autograd/autograd_not_implemented_fallback.cpp (2.13's default mode
"warn"): run the op below autograd and ADInplaceOrView. The autograd machinery
(``requires_grad`` on outputs and the warning on backward) is added when the
autograd engine exists; until then ops simply pass through.
"""

from __future__ import annotations

from typing import Any

from .dispatch import redispatch_bound
from .keys import DispatchKey
from .keyset import full_after_bits
from .tls import AutoDispatchBelowADInplaceOrView

_AFTER_ADINPLACEORVIEW = full_after_bits(DispatchKey.ADInplaceOrView)


def autograd_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    with AutoDispatchBelowADInplaceOrView():
        return redispatch_bound(op, ks & _AFTER_ADINPLACEORVIEW, args, kwargs)
