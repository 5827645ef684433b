"""Normalization: ``torch.batch_norm`` / ``instance_norm`` / ``group_norm`` / ``layer_norm`` / ``rms_norm``.

Corresponds to the python_torch_functions.cpp bindings of these ops, which take every argument positionally
(``cudnn_enabled`` included). The ``nn.functional`` versions, with their Python-side checks, are in
``dispatcher/nn/functional/normalization.py``.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["native_layer_norm", "native_batch_norm", "native_group_norm", "batch_norm", "instance_norm", "group_norm", "layer_norm", "rms_norm"]


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
               running_var: Tensor | None, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    return aten.batch_norm.default(input, weight, bias, running_mean, running_var, training, momentum, eps,
                                   cudnn_enabled)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    return aten.instance_norm.default(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                                      eps, cudnn_enabled)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor:
    return aten.group_norm.default(input, num_groups, weight, bias, eps, cudnn_enabled)


# --- issue 20: weight normalization (``torch._weight_norm``, ``torch.norm_except_dim``) ---------------------------
def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``torch._weight_norm``: ``v * (g / ||v||)``, the norm over every dimension but ``dim``."""
    return aten._weight_norm.default(v, g, dim)


def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:  # noqa: A002 - torch's name
    """``torch.norm_except_dim``: the ``pow``-norm of ``v`` over every dimension but ``dim``."""
    return aten.norm_except_dim.default(v, pow, dim)


__all__ += ["_weight_norm", "norm_except_dim"]


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Tensor:
    """``torch.layer_norm``: ``aten.layer_norm`` (CompositeImplicitAutograd: kept whole before dispatch)."""
    return aten.layer_norm.default(input, list(normalized_shape), weight, bias, eps, cudnn_enable)


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,  # noqa: A002
             eps: float | None = None) -> Tensor:
    """``torch.rms_norm``: ``aten.rms_norm`` (CompositeImplicitAutograd)."""
    return aten.rms_norm.default(input, list(normalized_shape), weight, eps)


def native_layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    return tuple(aten.native_layer_norm.default(input, list(normalized_shape), weight, bias, eps))


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool, momentum: float,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    return tuple(aten.native_batch_norm.default(input, weight, bias, running_mean, running_var, training, momentum,
                                                eps))


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int,  # noqa: A002, N803
                      HxW: int, group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803
    return tuple(aten.native_group_norm.default(input, weight, bias, N, C, HxW, group, eps))
