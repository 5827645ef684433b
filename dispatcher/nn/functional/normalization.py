"""``nn.functional`` normalization: layer_norm, batch_norm, instance_norm, group_norm, rms_norm, normalize,
local_response_norm.

Corresponds to the matching functions of torch/nn/functional.py: ``batch_norm`` / ``instance_norm`` /
``group_norm`` check the batch (spatial) size in Python first, as torch's functions do, then call the aten op
with ``cudnn_enabled=True``; ``rms_norm`` leaves out trailing arguments not given; ``normalize`` is Python:
``input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)``.
"""

from __future__ import annotations

import math
from typing import Any

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["layer_norm", "batch_norm", "instance_norm", "group_norm", "rms_norm", "normalize", "local_response_norm"]


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return aten.layer_norm.default(input, shape, weight, bias, eps)


def _verify_batch_size(size: Any) -> None:
    if size[0] * math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,  # noqa: A002
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-05) -> Tensor:
    if training:
        _verify_batch_size(input.size())
    return aten.batch_norm.default(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,  # noqa: A002
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-05) -> Tensor:
    if use_input_stats:
        size = input.size()
        if math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")
    return aten.instance_norm.default(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                                      True)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-05) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    size = input.size()
    _verify_batch_size([size[0] * size[1] // num_groups, num_groups, *size[2:]])
    return aten.group_norm.default(input, num_groups, weight, bias, eps, True)


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,  # noqa: A002
             eps: float | None = None) -> Tensor:
    if isinstance(normalized_shape, int):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    args: list[Any] = [input, list(normalized_shape)]
    if weight is not None or eps is not None:
        args.append(weight)
    if eps is not None:
        args.append(eps)
    return aten.rms_norm.default(*args)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,  # noqa: A002
              out: Any = None) -> Tensor:
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``)."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    from ...op_overload import namespace

    return namespace("aten").div.out(input, denom, out=out)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,  # noqa: A002
                        k: float = 1.0) -> Tensor:
    """torch's Python: the squares averaged over ``size`` neighbouring channels (zero-padded, an
    ``avg_pool2d`` / ``avg_pool3d`` with a window along the channels), ``input / (k + alpha * avg) ** beta``."""
    from .pooling import avg_pool2d, avg_pool3d
    from .shape import pad

    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
