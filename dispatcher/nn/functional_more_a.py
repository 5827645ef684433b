"""``nn.functional`` activations and losses of the ops_a batch, with torch 2.13's signatures and argument handling.

Corresponds to the matching functions of torch/nn/functional.py: each calls the aten
op torch's function calls (the in-place overload for ``inplace=True``), passing the
arguments torch passes (``F.elu`` passes ``alpha``, ``F.softplus`` only what was
given). ``nn/functional.py`` re-exports ``__all__``.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .functional import _legacy_reduction, _reduction_enum  # (defined before nn/functional.py imports this module)

aten = namespace("aten")

__all__ = ["leaky_relu", "elu", "softplus", "hardtanh", "relu6", "hardswish", "logsigmoid", "mish", "l1_loss",
           "smooth_l1_loss"]

_NOT_GIVEN: Any = object()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return aten.leaky_relu_.default(input, negative_slope)
    return aten.leaky_relu.default(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return aten.elu_.default(input, alpha)
    return aten.elu.default(input, alpha)


def softplus(input: Tensor, beta: Any = _NOT_GIVEN, threshold: Any = _NOT_GIVEN) -> Tensor:  # noqa: A002
    """A builtin in torch (``torch._C._nn.softplus``): the schema's defaults (1, 20) when not given."""
    if not isinstance(input, Tensor):
        raise TypeError(f"softplus(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    args = [a for a in (beta, threshold) if a is not _NOT_GIVEN]
    if threshold is not _NOT_GIVEN and beta is _NOT_GIVEN:
        args = [1, threshold]
    return aten.softplus.default(input, *args)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return aten.hardtanh_.default(input, min_val, max_val)
    return aten.hardtanh.default(input, min_val, max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return aten.relu6_.default(input) if inplace else aten.relu6.default(input)


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """A builtin in torch (``torch._C._nn.log_sigmoid``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"log_sigmoid(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return aten.log_sigmoid.default(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return aten.mish_.default(input) if inplace else aten.mish.default(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return aten.hardswish_.default(input) if inplace else aten.hardswish.default(input)


# --- losses ------------------------------------------------------------------------------------------------------------




def _warn_size(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Broadcast, then ``l1_loss``; with ``weight``: the weighted absolute errors reduced in Python, as torch."""
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    a, b = aten.broadcast_tensors.default([input, target])
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        weighted = aten.mul.Tensor(aten.abs.default(aten.sub.Tensor(a, b)), weight)
        if reduction == "none":
            return weighted
        if reduction == "sum":
            return aten.sum.default(weighted)
        if reduction == "mean":
            return aten.div.Tensor(aten.sum.default(weighted), aten.sum.default(weight))
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return aten.l1_loss.default(a, b, _reduction_enum(reduction))


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Broadcast, then ``smooth_l1_loss`` (``l1_loss`` for ``beta == 0``)."""
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    a, b = aten.broadcast_tensors.default([input, target])
    enum = _reduction_enum(reduction)
    if beta == 0.0:
        return aten.l1_loss.default(a, b, enum)
    return aten.smooth_l1_loss.default(a, b, enum, float(beta))  # (a trace drops arguments equal to the defaults)
