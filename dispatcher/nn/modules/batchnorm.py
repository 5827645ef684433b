"""``nn.BatchNorm1d`` / ``BatchNorm2d`` / ``BatchNorm3d`` and their common base ``_NormBase``
(torch/nn/modules/batchnorm.py).

``_NormBase`` holds what batch and instance norm share: the affine ``weight`` (ones) / ``bias`` (zeros), the
running-statistics buffers ``running_mean`` (zeros), ``running_var`` (ones) and ``num_batches_tracked`` (an
int64 0-dim count), ``_version = 2`` and the loading of older state dicts without the count. In training with
tracked statistics, ``forward`` bumps the count in place (``aten.add_.Tensor``, as torch's graphs show) and, for
``momentum=None``, uses the cumulative average ``1 / num_batches_tracked`` as the momentum.
"""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from .linear import _empty

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


def _zeros(n: int, device: Any = None, dtype: Any = None) -> Tensor:
    from ...api.factories import zeros

    return zeros(n, device=device, dtype=dtype)


def _ones(n: int, device: Any = None, dtype: Any = None) -> Tensor:
    from ...api.factories import ones

    return ones(n, device=device, dtype=dtype)


def _count(device: Any = None) -> Tensor:
    from ... import dtypes
    from ...api.factories import zeros

    return zeros((), dtype=dtypes.int64, device=device)


class _NormBase(Module):
    """Common base of ``_InstanceNorm`` and ``_BatchNorm``."""

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(_empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(_empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", _zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", _ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", _count(device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        """A state dict of version < 2 has no ``num_batches_tracked``: keep ours (or a fresh 0)."""
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                nbt = self.num_batches_tracked
                state_dict[key] = nbt if nbt is not None and nbt.device.type != "meta" else _count()
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        # batch statistics in training, and in eval when there are no running buffers
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_buffers else None,
                            self.running_var if use_buffers else None, self.weight, self.bias, bn_training, factor,
                            self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch norm over a 2-d (N, C) or 3-d (N, C, L) input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch norm over a 4-d (N, C, H, W) input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch norm over a 5-d (N, C, D, H, W) input."""

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")
