"""``torch.nn.functional`` additions of the ops_b batch: ``pad`` (constant mode) and ``normalize``.

Corresponds to torch/nn/functional.py: ``pad`` is the C++ binding of ``aten.pad`` (whose
CompositeImplicitAutograd kernel calls ``constant_pad_nd``), called with trailing default
arguments left out as the binding does; ``normalize`` is Python: ``input / input.norm(p, dim,
keepdim=True).clamp_min(eps).expand_as(input)``.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["pad", "normalize"]


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    """Pad the last ``len(pad) // 2`` dims (last dim first); only mode "constant" has its ops listed."""
    args: list[Any] = [list(pad)]
    if value is not None:
        args += [mode, value]
    elif mode != "constant":
        args.append(mode)
    return aten.pad.default(input, *args)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,  # noqa: A002
              out: Any = None) -> Tensor:
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``)."""
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not supported by dispatchkit")
    norm = input.norm(p, dim, keepdim=True)
    denom = norm.clamp_min(eps).expand_as(input)
    return input / denom
