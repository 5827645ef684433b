"""``nn.InstanceNorm1d`` / ``InstanceNorm2d`` / ``InstanceNorm3d`` (torch/nn/modules/instancenorm.py).

Built on ``_NormBase`` (batchnorm.py) with torch's other defaults: ``affine=False``, ``track_running_stats=False``.
The input may lack the batch dim (it is unsqueezed and squeezed back); a channel count differing from
``num_features`` is an error with affine parameters and a warning without.
"""

from __future__ import annotations

import warnings
from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _no_batch_dim = 0
    _dims = ""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() not in (self._no_batch_dim, self._no_batch_dim + 1):
            raise ValueError(f"expected {self._dims} input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        """A version-less state dict with running statistics for a module that tracks none: an error message."""
        version = local_metadata.get("version", None)
        if version is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var") if prefix + n in state_dict]
            if keys:
                klass = type(self).__name__
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with track_running_stats=False. If "
                    "state_dict is a checkpoint saved before 0.4.0, this may be expected because "
                    f"{klass} does not track running stats by default since 0.4.0. Please remove these keys "
                    "from state_dict. If the running stats are actually needed, instead set "
                    f"track_running_stats=True in {klass} to enable them. See the documentation of {klass} "
                    "for details.")
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features"
                                 f" ({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over a (N, C, L) or (C, L) input."""

    _no_batch_dim, _dims = 2, "2D or 3D"


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over a (N, C, H, W) or (C, H, W) input."""

    _no_batch_dim, _dims = 3, "3D or 4D"


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over a (N, C, D, H, W) or (C, D, H, W) input."""

    _no_batch_dim, _dims = 4, "4D or 5D"
