"""Losses: ``torch.kl_div``, ``margin_ranking_loss``, ``hinge_embedding_loss``, ``cosine_embedding_loss``,
``poisson_nll_loss`` (the torch-level functions; ``nn.functional``'s are in dispatcher/nn/functional).

Corresponds to the python_torch_functions.cpp bindings of these CompositeImplicitAutograd ops. NB: their
``reduction`` defaults to 0 (``'none'``): the Python argument parser reads the schema's default ``Mean`` as 0, so
``torch.kl_div(x, y)`` is elementwise and a trace records ``kl_div(x, y, 0)``, as torch's.
"""

from __future__ import annotations

from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["binary_cross_entropy_with_logits", "kl_div", "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "poisson_nll_loss"]


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:  # noqa: A002
    return aten.kl_div.default(input, target, reduction, log_target=log_target)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    return aten.margin_ranking_loss.default(input1, input2, target, margin, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0) -> Tensor:  # noqa: A002
    return aten.hinge_embedding_loss.default(input, target, margin, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    return aten.cosine_embedding_loss.default(input1, input2, target, margin, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,  # noqa: A002
                     reduction: int) -> Tensor:
    return aten.poisson_nll_loss.default(input, target, log_input, full, eps, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                     pos_weight: Tensor | None = None, reduction: int = 0) -> Tensor:
    return aten.binary_cross_entropy_with_logits.default(input, target, weight, pos_weight, reduction)
