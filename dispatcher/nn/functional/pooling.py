"""``nn.functional`` pooling: max_pool1d / max_pool2d, avg_pool1d / avg_pool2d, adaptive_avg_pool1d /
adaptive_avg_pool2d, the 3-d ops, adaptive max pooling (``return_indices``), max_unpool2d, lp_pool1d / lp_pool2d.

Corresponds to torch/nn/functional.py and the builtins it re-exports: ``avg_pool2d`` is
``torch._C._nn.avg_pool2d``; ``max_pool1d`` / ``max_pool2d`` dispatch on ``return_indices`` to the
``*_with_indices`` op (``stride=None`` becomes ``[]``); an int for an ``int[N]`` argument is repeated N
times, as PyTorch's argument parser does; ``adaptive_avg_pool2d`` fills ``None`` entries of the output size
from the input.
"""

from __future__ import annotations

from typing import Any

from ...api.arguments import check_tensor as _check_tensor
from ...api.arguments import expand_ints
from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _pool_args(n: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any) -> tuple[Any, Any, Any, Any]:
    stride = [] if stride is None else stride
    return (expand_ints(kernel_size, n), expand_ints(stride, n), expand_ints(padding, n),
            expand_ints(dilation, n))


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    args = _pool_args(1, kernel_size, stride, padding, dilation)
    if return_indices:
        return aten.max_pool1d_with_indices.default(input, *args, ceil_mode)
    return aten.max_pool1d.default(input, *args, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    args = _pool_args(2, kernel_size, stride, padding, dilation)
    if return_indices:
        return aten.max_pool2d_with_indices.default(input, *args, ceil_mode)
    return aten.max_pool2d.default(input, *args, ceil_mode)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    _check_tensor("avg_pool1d", 1, "input", input)
    kernel_size, stride, padding, _ = _pool_args(1, kernel_size, stride, padding, 1)
    return aten.avg_pool1d.default(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    _check_tensor("avg_pool2d", 1, "input", input)
    kernel_size, stride, padding, _ = _pool_args(2, kernel_size, stride, padding, 1)
    return aten.avg_pool2d.default(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                   divisor_override)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    _check_tensor("adaptive_avg_pool1d", 1, "input", input)
    return aten.adaptive_avg_pool1d.default(input, expand_ints(output_size, 1))


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """``_list_with_default``: ``None`` entries of the output size take the input's size there."""
    if not isinstance(output_size, int):
        sizes = input.size()
        k = len(output_size)
        output_size = [sizes[len(sizes) - k + i] if v is None else v for i, v in enumerate(output_size)]
    return aten.adaptive_avg_pool2d.default(input, expand_ints(output_size, 2))


# --- 3-d pooling, adaptive max pooling, unpooling, power-average pooling (issue 19) ----------------------------------


def _list_with_default(out_size: Any, defaults: Any) -> Any:
    """torch/nn/modules/utils.py: ``None`` entries of an output size take the input's size there."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, list(defaults)[-len(out_size):])]


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    args = _pool_args(3, kernel_size, stride, padding, dilation)
    if return_indices:
        return aten.max_pool3d_with_indices.default(input, *args, ceil_mode)
    return aten.max_pool3d.default(input, *args, ceil_mode)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    _check_tensor("avg_pool3d", 1, "input", input)
    kernel_size, stride, padding, _ = _pool_args(3, kernel_size, stride, padding, 1)
    return aten.avg_pool3d.default(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                   divisor_override)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    output_size = _list_with_default(output_size, input.size())
    return aten.adaptive_avg_pool3d.default(input, expand_ints(output_size, 3))


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    out = aten.adaptive_max_pool1d.default(input, expand_ints(output_size, 1))
    return out if return_indices else out[0]


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    output_size = _list_with_default(output_size, input.size())
    out = aten.adaptive_max_pool2d.default(input, expand_ints(output_size, 2))
    return out if return_indices else out[0]


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    output_size = _list_with_default(output_size, input.size())
    out = aten.adaptive_max_pool3d.default(input, expand_ints(output_size, 3))
    return out if return_indices else out[0]


def _unpool_output_size(input: Tensor, kernel_size: list[int], stride: list[int], padding: list[int],  # noqa: A002
                        output_size: Any) -> list[int]:
    """torch's ``_unpool_output_size``: the size max pooling came from, or a given one within a stride of it."""
    input_size = input.size()
    n = len(kernel_size)
    default = [(input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        ret = default
    else:
        output_size = list(output_size)
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = output_size
    for d in range(n):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return ret


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    kernel_size = expand_ints(kernel_size, 2)
    stride_ = expand_ints(stride, 2) if stride is not None else kernel_size
    padding = expand_ints(padding, 2)
    size = _unpool_output_size(input, kernel_size, stride_, padding, output_size)
    return aten.max_unpool2d.default(input, indices, size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """torch's Python: ``max_unpool2d`` of the input and indices with a trailing width of 1, squeezed off."""
    kernel_size = expand_ints(kernel_size, 1)
    stride_ = expand_ints(stride, 1) if stride is not None else kernel_size
    padding = expand_ints(padding, 1)
    size = list(_unpool_output_size(input, kernel_size, stride_, padding, output_size)) + [1]
    return aten.max_unpool2d.default(input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


def _lp_pool(n: int, input: Tensor, norm_type: float, kernel_size: Any, stride: Any,  # noqa: A002
             ceil_mode: bool) -> Tensor:
    """torch's ``lp_pool1d/2d/3d``: ``(sign(avg) * relu(|avg|) * window size) ** (1 / p)`` of the average of
    ``input ** p``; ``p = ±inf`` is a max pool of ``|input|``."""
    import math

    from .activations import relu

    max_pool, avg_pool = {1: (max_pool1d, avg_pool1d), 2: (max_pool2d, avg_pool2d), 3: (max_pool3d, avg_pool3d)}[n]
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    size = kernel_size if n == 1 else math.prod(expand_ints(kernel_size, n))
    return (out.sign() * relu(out.abs())).mul(size).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None,  # noqa: A002
              ceil_mode: bool = False) -> Tensor:
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,  # noqa: A002
              ceil_mode: bool = False) -> Tensor:
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,  # noqa: A002
              ceil_mode: bool = False) -> Tensor:
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
