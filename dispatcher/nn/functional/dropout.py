"""``nn.functional.dropout``, ``dropout1d`` / ``dropout2d`` / ``dropout3d``, ``alpha_dropout``,
``feature_alpha_dropout``.

Corresponds to torch/nn/functional.py's functions: the probability checked in Python, then ``aten.dropout`` /
``aten.feature_dropout`` / ``aten.alpha_dropout`` / ``aten.feature_alpha_dropout(input, p, training)``; the
channel-wise ones check (1d) or warn about (2d, 3d) the input's rank and add a batch dimension to unbatched input
as torch does.
"""

from __future__ import annotations

import warnings

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if inplace:
        raise NotImplementedError("dropout(inplace=True) is not supported by dispatchkit")
    return aten.dropout.default(input, p, training)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _no_inplace(name: str, inplace: bool) -> None:
    if inplace:
        raise NotImplementedError(f"{name}(inplace=True) is not supported by dispatchkit")


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero whole channels of (N, C, L) or (C, L) input."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    _no_inplace("dropout1d", inplace)
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze(0)
    result = aten.feature_dropout.default(input, p, training)
    return result if is_batched else result.squeeze(0)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero whole channels of (N, C, H, W) input (3-d input: torch's warning, treated as (N, C, L))."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and will result in "
                      "an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
    _no_inplace("dropout2d", inplace)
    return aten.feature_dropout.default(input, p, training)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and will result in "
                      "an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    _no_inplace("dropout3d", inplace)
    is_batched = inp_dim == 5
    if not is_batched:
        input = input.unsqueeze(0)
    result = aten.feature_dropout.default(input, p, training)
    return result if is_batched else result.squeeze(0)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:  # noqa: A002
    """Dropout keeping SELU's self-normalisation (mean and variance)."""
    _check_p(p)
    _no_inplace("alpha_dropout", inplace)
    return aten.alpha_dropout.default(input, p, training)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                          inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels."""
    _check_p(p)
    _no_inplace("feature_alpha_dropout", inplace)
    return aten.feature_alpha_dropout.default(input, p, training)
