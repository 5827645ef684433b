"""``nn.functional.pad``.

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

__all__ = ["pad"]


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    """Pad the last ``len(pad) // 2`` dims (last dim first) with ``value`` or by reflection / replication / wrapping."""
    args: list[Any] = [list(pad)]
    if value is not None:
        args += [mode, value]
    elif mode != "constant":
        args.append(mode)
    return aten.pad.default(input, *args)
