"""``no_dispatch`` and ``all_same_mode``: torch/utils/_mode_utils.py under its own name."""

from __future__ import annotations

from typing import Any

from ..modes.dispatch_mode import no_dispatch


def all_same_mode(modes: list[Any]) -> bool:
    """Every entry is the same mode object (``None`` counts as different)."""
    return all(modes[0] is m for m in modes) if modes and modes[0] is not None else False


__all__ = ["all_same_mode", "no_dispatch"]
