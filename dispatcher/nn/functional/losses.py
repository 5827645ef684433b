"""``nn.functional`` losses: mse / l1 / smooth_l1 / huber, cross_entropy / nll, binary_cross_entropy (with
logits), kl_div, poisson / gaussian nll, soft_margin / margin_ranking / hinge_embedding / cosine_embedding.

Corresponds to the matching functions of torch/nn/functional.py and torch/nn/_reduction.py, with torch 2.13's
signatures and Python-side work: the legacy ``size_average`` / ``reduce`` arguments, the reduction string ->
enum, the size checks and warnings, ``kl_div``'s 'batchmean' (a 'sum' divided in Python), the weighted forms
of ``l1_loss`` / ``huber_loss`` (reduced in Python), then the aten op torch's function calls (the C++
bindings with trailing default arguments left out, as the binding passes them).
"""

from __future__ import annotations

import warnings
from typing import Any

from ...op_overload import namespace
from ...tensor import Tensor

aten = namespace("aten")

__all__ = ["mse_loss", "cross_entropy", "nll_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "huber_loss", "kl_div", "soft_margin_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "poisson_nll_loss", "cosine_embedding_loss", "gaussian_nll_loss"]


# --- the reduction argument (torch/nn/_reduction.py) -------------------------------------------------------------------
# ``mse_loss``, ``cross_entropy``, ``nll_loss``, ``l1_loss`` and ``smooth_l1_loss`` map the legacy arguments without
# torch's deprecation warning (``_legacy_reduction``); the others warn, as torch does (``_legacy_get_string``).

#: ``torch.nn._reduction.get_enum``
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction: str) -> int:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _legacy_reduction(size_average: Any, reduce: Any) -> str:
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


_ENUM = {"none": 0, "mean": 1, "sum": 2}


def _get_enum(reduction: str) -> int:
    """``torch.nn._reduction.get_enum``."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=3)
        return 1
    if reduction not in _ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUM[reduction]


def _legacy_get_string(size_average: Any, reduce: Any, emit_warning: bool = True) -> str:
    """``torch.nn._reduction.legacy_get_string``: the reduction the legacy arguments mean, with torch's warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = ("mean" if size_average else "sum") if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=3)
    return ret


def _reduction(size_average: Any, reduce: Any, reduction: str) -> int:
    if size_average is not None or reduce is not None:
        return _get_enum(_legacy_get_string(size_average, reduce))
    return _get_enum(reduction)


def _size_warning(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


# --- mse / l1 / smooth_l1 / huber --------------------------------------------------------------------------------------
def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=2,
        )
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if weight is not None:
        raise NotImplementedError("mse_loss(weight=...) is not supported by dispatchkit")
    enum = _reduction_enum(reduction)
    a, b = aten.broadcast_tensors.default([input, target])
    return aten.mse_loss.default(a, b, enum) if enum != 1 else aten.mse_loss.default(a, b)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Broadcast, then ``l1_loss``; with ``weight``: the weighted absolute errors reduced in Python, as torch."""
    _size_warning(input, target)
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
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    a, b = aten.broadcast_tensors.default([input, target])
    enum = _reduction_enum(reduction)
    if beta == 0.0:
        return aten.l1_loss.default(a, b, enum)
    return aten.smooth_l1_loss.default(a, b, enum, float(beta))  # (a trace drops arguments equal to the defaults)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,  # noqa: A002
               weight: Tensor | None = None) -> Tensor:
    """Broadcast, then ``huber_loss``; with ``weight``: the unreduced loss times weight, reduced in Python."""
    _size_warning(input, target)
    a, b = aten.broadcast_tensors.default([input, target])
    if weight is None:
        enum = _get_enum(reduction)
        args: list[Any] = [a, b]
        if enum != 1 or delta != 1.0:
            args.append(enum)
        if delta != 1.0:
            args.append(float(delta))
        return aten.huber_loss.default(*args)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = aten.mul.Tensor(aten.huber_loss.default(a, b, _get_enum("none"), float(delta)), weight)
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return aten.sum.default(weighted)
    if reduction == "mean":
        return aten.mean.default(weighted)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# --- cross_entropy / nll / binary_cross_entropy / kl_div / poisson / gaussian -----------------------------------------
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,  # noqa: A002
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return aten.cross_entropy_loss.default(input, target, weight, _reduction_enum(reduction), ignore_index,
                                           label_smoothing)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,  # noqa: A002
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return aten.nll_loss_nd.default(input, target, weight, _reduction_enum(reduction), ignore_index)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                         size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Same sizes required; the weight expanded to the broadcast of target's and its shapes."""
    enum = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        from ...ops.meta_utils import broadcast_shapes

        weight = weight.expand(list(broadcast_shapes(tuple(target.shape), tuple(weight.shape))))
    args: list[Any] = [input, target]
    if weight is not None or enum != 1:
        args.append(weight)
    if enum != 1:
        args.append(enum)
    return aten.binary_cross_entropy.default(*args)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    enum = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return aten.binary_cross_entropy_with_logits.default(input, target, weight, pos_weight, enum)


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """``kl_div`` with 'batchmean' as a 'sum' divided by the batch size (and torch's warning for 'mean')."""
    if size_average is not None or reduce is not None:
        enum = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                stacklevel=2,
            )
        enum = _get_enum("sum") if reduction == "batchmean" else _get_enum(reduction)
    kwargs = {"log_target": True} if log_target else {}
    args: list[Any] = [input, target] + ([enum] if enum != 1 else [])
    reduced = aten.kl_div.default(*args, **kwargs)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = aten.div.Tensor(reduced, input.shape[0])
    return reduced


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,  # noqa: A002
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not a valid value for reduction")
    return aten.poisson_nll_loss.default(input, target, log_input, full, eps, _get_enum(reduction))


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False,  # noqa: A002
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Python in torch: checks var (data-dependent: ``any(var < 0)``), unsqueezes a var one dim short, clamps a
    clone of it to eps without grad, then ``0.5 * (log(var) + (input - target) ** 2 / var)`` (+ 0.5 log 2 pi)."""
    import math

    from ...api import torch_functions as T
    from ...autograd.grad_mode import no_grad

    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * T.ones_like(input)
    elif T.any(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = T.unsqueeze(var, -1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (T.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


# --- margin losses -----------------------------------------------------------------------------------------------------
def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
                     reduction: str = "mean") -> Tensor:
    enum = _reduction(size_average, reduce, reduction)
    return aten.soft_margin_loss.default(*([input, target] + ([enum] if enum != 1 else [])))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    enum = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return aten.margin_ranking_loss.default(input1, input2, target, margin, enum)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,  # noqa: A002
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    enum = _reduction(size_average, reduce, reduction)
    return aten.hinge_embedding_loss.default(input, target, margin, enum)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    enum = _reduction(size_average, reduce, reduction)
    return aten.cosine_embedding_loss.default(input1, input2, target, margin, enum)
