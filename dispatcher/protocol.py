"""The small protocol by which an argument takes part in dispatch.

Any object whose class defines an integer attribute ``_key_set`` (the raw 64-bit
``DispatchKeySet`` representation, see ``keyset.py``) is *tensor-like*: the
dispatcher ORs its key set into the call's key set, exactly as PyTorch ORs the
key sets of every ``Tensor`` argument (c10/core/DispatchKeyExtractor.h). The
``Tensor`` class of ``dispatcher.tensor`` is one such class; tests use tiny
stand-ins so that the dispatcher can be exercised without tensors.
"""

from __future__ import annotations

from typing import Any


def is_tensor_like(obj: Any) -> bool:
    """True when ``obj`` carries a dispatch key set (a Tensor or a stand-in)."""
    return hasattr(type(obj), "_key_set") or hasattr(obj, "_key_set")


def raw_key_set(obj: Any) -> int:
    """The raw key-set bits of a tensor-like object (0 for anything else)."""
    return getattr(obj, "_key_set", 0)
