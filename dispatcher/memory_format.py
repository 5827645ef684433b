"""``memory_format`` and ``layout`` values with PyTorch's names and codes.

Corresponds to c10/core/MemoryFormat.h and c10/core/Layout.h. Schema defaults
arrive in kernels as integer codes (``contiguous_format`` is 0); user code
passes these objects. ``as_memory_format`` / ``as_layout`` accept either.
"""

from __future__ import annotations

from typing import Any


class _NamedCode:
    """An enum value that prints as ``torch.<name>`` and compares equal to its c10 code."""

    __slots__ = ("name", "code")

    def __init__(self, name: str, code: int) -> None:
        self.name = name
        self.code = code

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, type(self)):
            return other.code == self.code
        return isinstance(other, int) and not isinstance(other, bool) and other == self.code

    def __hash__(self) -> int:
        return hash(self.code)


class memory_format(_NamedCode):  # noqa: N801 - PyTorch's name
    __slots__ = ()


class layout(_NamedCode):  # noqa: N801 - PyTorch's name
    __slots__ = ()


contiguous_format = memory_format("contiguous_format", 0)
preserve_format = memory_format("preserve_format", 1)
channels_last = memory_format("channels_last", 2)
channels_last_3d = memory_format("channels_last_3d", 3)
_FORMATS = {f.code: f for f in (contiguous_format, preserve_format, channels_last, channels_last_3d)}

strided = layout("strided", 0)
sparse_coo = layout("sparse_coo", 1)
_LAYOUTS = {0: strided, 1: sparse_coo}


def as_memory_format(value: Any, default: memory_format = preserve_format) -> memory_format:
    """A memory_format from an object, a code or None (``default``)."""
    if value is None:
        return default
    if isinstance(value, memory_format):
        return value
    return _FORMATS[int(value)]


def as_layout(value: Any) -> layout:
    """A layout from an object, a code or None (strided)."""
    if value is None:
        return strided
    if isinstance(value, layout):
        return value
    return _LAYOUTS[int(value)]
