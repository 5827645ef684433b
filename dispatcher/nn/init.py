"""``nn.init``: the in-place initialisers layers use for their parameters.

Corresponds to torch/nn/init.py. Same algorithms and the same bounds (fans, gains) as PyTorch,
run under ``no_grad`` with our random ops (``uniform_`` / ``normal_`` on the default generator,
seeded by ``manual_seed``); the drawn values differ from PyTorch's (another generator). Every function
of torch.nn.init is here, the deprecated spellings without the underscore included (with PyTorch's
FutureWarning). NB: ``orthogonal_`` factorizes with NumPy's QR (there is no ``linalg_qr`` op here).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "constant_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_", "uniform_",
    "xavier_normal_", "xavier_uniform_", "zeros_", "eye_", "trunc_normal_", "dirac_", "orthogonal_", "sparse_",
    "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
    "kaiming_normal", "orthogonal", "sparse",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for ``nonlinearity`` (1 for linear and sigmoid, 5/3 for tanh, sqrt(2) for relu, ...)."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill ``tensor`` with draws from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill ``tensor`` with draws from N(mean, std**2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D ``tensor`` with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from ..api.factories import eye

    with no_grad():
        tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Any = None) -> Tensor:
    """He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Any = None) -> Tensor:
    """He normal: N(0, std**2) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Any = None) -> Tensor:
    """Normal draws truncated to ``[a, b]`` (PyTorch 2.13's sampler: redraws outside the bounds when the interval
    holds more than 30% of the mass, otherwise rejection sampling of uniform draws against the density)."""
    from .. import empty_like, where

    if tensor.device.type == "meta":
        return tensor

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            lo = tensor.new_tensor(a, device="cpu").item()
            hi = tensor.new_tensor(b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = where(mask, empty_like(result).normal_(mean, std, generator=generator), result)
            if tensor is not result:
                tensor.copy_(result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2
            candidates = empty_like(tensor)
            accept_buf = empty_like(tensor)
            tensor.uniform_(a, b, generator=generator)
            candidates.copy_(tensor)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
            if pending.any():
                result = tensor
                while True:
                    candidates.uniform_(a, b, generator=generator)
                    result = where(pending, candidates, result)
                    candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                    pending = where(pending, accept_buf.uniform_(generator=generator).log_().gt(candidates), pending)
                    if not pending.any():
                        break
                tensor.copy_(result)
        return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity of a convolution: zeros, one 1 at the centre of each (group's) matching in/out channel pair."""
    dimensions = tensor.dim()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.device.type == "meta":
        return tensor
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    with no_grad():
        tensor.zero_()
        centre = tuple(s // 2 for s in sizes[2:])
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_chans_per_grp + d, d, *centre)] = 1
    return tensor


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix (trailing dimensions flattened): Q of the QR factorization of normal draws,
    its columns' signs fixed by R's diagonal, times ``gain``."""
    import numpy as np

    from ..api.from_data import tensor as as_tensor

    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.device.type == "meta":
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    if rows < cols:
        flattened.t_()
    q_np, r_np = np.linalg.qr(flattened.numpy().astype(np.float64))  # NB: torch.linalg.qr, an aten op in PyTorch
    q = as_tensor(q_np.astype(flattened.numpy().dtype))
    q *= as_tensor(np.sign(np.diag(r_np)).astype(q_np.dtype)).to(q.dtype)
    if rows < cols:
        q.t_()
    with no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Normal draws N(0, std**2) with ``ceil(sparsity * rows)`` zeros per column, at random rows."""
    from .. import randperm

    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.device.type == "meta":
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            row_indices = randperm(rows)
            zero_indices = row_indices[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _make_deprecate(meth: Any) -> Any:
    """The old spelling without the trailing underscore: PyTorch's FutureWarning, then ``meth``."""
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"{old_name}(...): deprecated, see ``{new_name}``."
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
