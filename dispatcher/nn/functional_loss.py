"""``torch.nn.functional`` losses and activations of the loss batch, with torch 2.13's signatures and Python-side work.

Corresponds to the matching functions of torch/nn/functional.py: the legacy ``size_average`` / ``reduce``
arguments (with torch's deprecation warning), the reduction string -> enum, the size checks and warnings,
``kl_div``'s 'batchmean' (a 'sum' divided in Python), ``huber_loss``'s weighted form, then the aten op torch's
function calls (the C++ bindings with trailing default arguments left out, as the binding passes them).
``nn/functional.py`` re-exports ``__all__``.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "huber_loss", "kl_div", "soft_margin_loss",
    "margin_ranking_loss", "hinge_embedding_loss", "poisson_nll_loss", "cosine_embedding_loss", "gaussian_nll_loss", "cosine_similarity", "selu", "celu",
    "hardsigmoid", "softsign", "tanhshrink", "softmin", "glu", "threshold", "threshold_", "rms_norm",
]

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


# --- losses ---------------------------------------------------------------------------------------------------------


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                         size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Same sizes required; the weight expanded to the broadcast of target's and its shapes."""
    enum = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        from ..ops.meta_utils import broadcast_shapes

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


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,  # noqa: A002
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not a valid value for reduction")
    return aten.poisson_nll_loss.default(input, target, log_input, full, eps, _get_enum(reduction))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    enum = _reduction(size_average, reduce, reduction)
    return aten.cosine_embedding_loss.default(input1, input2, target, margin, enum)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False,  # noqa: A002
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Python in torch: checks var (data-dependent: ``any(var < 0)``), unsqueezes a var one dim short, clamps a
    clone of it to eps without grad, then ``0.5 * (log(var) + (input - target) ** 2 / var)`` (+ 0.5 log 2 pi)."""
    import math

    from .. import functional as T
    from ..autograd.grad_mode import no_grad

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


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """A builtin in torch (``torch.cosine_similarity``): trailing defaults left out."""
    args: list[Any] = [x1, x2]
    if dim != 1 or eps != 1e-8:
        args.append(dim)
    if eps != 1e-8:
        args.append(eps)
    return aten.cosine_similarity.default(*args)


# --- activations --------------------------------------------------------------------------------------------------------


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


