"""``nn.functional`` activations: relu / relu6 / leaky_relu / elu / selu / celu / gelu / silu / mish, sigmoid /
hardsigmoid / logsigmoid / tanh / hardtanh / tanhshrink, hardswish, softplus / softsign, softmax / softmin /
log_softmax, glu, threshold.

Corresponds to the matching functions of torch/nn/functional.py (and the torch._C._nn builtins it re-exports),
with torch 2.13's signatures and argument handling: each calls the aten op torch's function calls (the
in-place overload for ``inplace=True``), passing the arguments torch passes (``F.elu`` passes ``alpha``,
``F.softplus`` only what was given); ``softmax`` / ``log_softmax`` / ``softmin`` without ``dim`` warn and
pick the implicit dim as torch does.
"""

from __future__ import annotations

import warnings
from typing import Any

from ... import dtypes as _dt
from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "leaky_relu", "elu", "softplus",
           "hardtanh", "relu6", "hardswish", "logsigmoid", "mish", "selu", "celu", "hardsigmoid", "softsign",
           "tanhshrink", "softmin", "glu", "threshold", "threshold_"]

_NOT_GIVEN: Any = object()


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return aten.relu_.default(input) if inplace else aten.relu.default(input)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    if approximate == "none":
        return aten.gelu.default(input)
    return aten.gelu.default(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        raise NotImplementedError("silu(inplace=True) is not supported by dispatchkit")
    return aten.silu.default(input)


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return aten.sigmoid.default(input)


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return aten.tanh.default(input)


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    if dtype is None:
        return aten.softmax.int(input, dim)
    return aten.softmax.int(input, dim, _dt.from_code(dtype))


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    if dtype is None:
        return aten.log_softmax.int(input, dim)
    return aten.log_softmax.int(input, dim, _dt.from_code(dtype))


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    """``softmax(-input)`` along dim (torch's implicit-dim warning when dim is None)."""
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call to include dim=X "
                      "as an argument.", stacklevel=_stacklevel)
        dim = 0 if input.dim() in (0, 1, 3) else 1
    neg = aten.neg.default(input)
    if dtype is None:
        return aten.softmax.int(neg, dim)
    return aten.softmax.int(neg, dim, _dt.from_code(dtype))


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


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return aten.selu_.default(input) if inplace else aten.selu.default(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return aten.celu_.default(input, alpha) if inplace else aten.celu.default(input, alpha)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return aten.hardsigmoid_.default(input) if inplace else aten.hardsigmoid.default(input)


def softsign(input: Tensor) -> Tensor:  # noqa: A002
    """``input / (input.abs() + 1)``."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    """``input - input.tanh()``."""
    return input - input.tanh()


def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return aten.glu.default(input, dim)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return aten.threshold_.default(input, threshold, value)
    return aten.threshold.default(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    return aten.threshold_.default(input, threshold, value)
