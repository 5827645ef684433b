"""``torch.backends.mha``: the switch for the fast path of MultiheadAttention and TransformerEncoder(Layer).

Corresponds to torch/backends/mha/__init__.py: one module-level flag, on by default.
"""

from __future__ import annotations

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_is_fastpath_enabled: bool = True


def get_fastpath_enabled() -> bool:
    """Whether nn.MultiheadAttention / TransformerEncoderLayer may take their fast path (when the inputs allow)."""
    return _is_fastpath_enabled


def set_fastpath_enabled(value: bool) -> None:
    """Allow (True) or forbid (False) the fast path."""
    global _is_fastpath_enabled
    _is_fastpath_enabled = value
