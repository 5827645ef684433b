"""``nn.functional.pad``, ``channel_shuffle`` and ``native_channel_shuffle``.

Corresponds to torch/nn/functional.py's ``pad``: the C++ binding of ``aten.pad`` (whose
CompositeImplicitAutograd kernel calls ``constant_pad_nd``, or for modes "reflect" / "replicate" / "circular" the
``reflection_pad*d`` / ``replication_pad*d`` / ``_pad_circular`` op of the padded dims' count), called with trailing
default arguments left out, as the binding does.
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["pad", "channel_shuffle", "native_channel_shuffle"]


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    """Pad the last ``len(pad) // 2`` dims (last dim first) with ``value`` or by reflection / replication / wrapping."""
    args: list[Any] = [list(pad)]
    if value is not None:
        args += [mode, value]
    elif mode != "constant":
        args.append(mode)
    return aten.pad.default(input, *args)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """``torch.channel_shuffle`` under its nn.functional name: ``aten.channel_shuffle``."""
    from ...api.shape import channel_shuffle as _channel_shuffle

    return _channel_shuffle(input, groups)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """``torch.native_channel_shuffle`` under its nn.functional name."""
    from ...api.shape import native_channel_shuffle as _native_channel_shuffle

    return _native_channel_shuffle(input, groups)
