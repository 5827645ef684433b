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
from .keyset import BACKEND_MASK, full_after_bits
from .tls import AUTOGRAD_AND_ADINPLACEORVIEW_RAW
from .tls import state as _tls

_AFTER_ADINPLACEORVIEW = full_after_bits(DispatchKey.ADInplaceOrView)


def autograd_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """Run below autograd and ADInplaceOrView (the AutoDispatchBelowADInplaceOrView guard, inlined)."""
    t = _tls
    added = AUTOGRAD_AND_ADINPLACEORVIEW_RAW & ~t.excluded
    if not added:
        return redispatch_bound(op, ks & _AFTER_ADINPLACEORVIEW, args, kwargs)
    t.excluded |= added
    t.exclude_mask = ~(t.excluded & ~BACKEND_MASK)
    try:
        return redispatch_bound(op, ks & _AFTER_ADINPLACEORVIEW, args, kwargs)
    finally:
        t.excluded &= ~added
        t.exclude_mask = ~(t.excluded & ~BACKEND_MASK)
