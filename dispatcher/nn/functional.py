"""``dispatcher.nn.functional``: PyTorch's ``torch.nn.functional`` for the supported subset.

Corresponds to torch/nn/functional.py. Each function does the Python-side work
PyTorch's does (argument checks, the reduction string -> enum, the implicit
softmax dim, embedding's padding_idx normalisation, mse_loss's broadcasting)
and then calls the same aten op: ``linear`` -> ``aten.linear``, ``softmax`` ->
``aten.softmax.int``, ``cross_entropy`` -> ``aten.cross_entropy_loss`` with the
reduction as an int, ``dropout`` -> ``aten.dropout``, and so on.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = [
    "linear", "relu", "gelu", "silu", "softmax", "log_softmax", "layer_norm", "dropout", "mse_loss",
    "cross_entropy", "nll_loss", "embedding", "sigmoid", "tanh",
]

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


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    if bias is None:
        return aten.linear.default(input, weight)
    return aten.linear.default(input, weight, bias)


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return aten.relu_.default(input) if inplace else aten.relu.default(input)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    if approximate == "none":
        return aten.gelu.default(input)
    return aten.gelu.default(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        raise NotImplementedError("silu(inplace=True) is not supported by dispatchkit")
    return aten.silu.default(input)


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return aten.sigmoid.default(input)


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return aten.tanh.default(input)


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    if dtype is None:
        return aten.softmax.int(input, dim)
    return aten.softmax.int(input, dim, _dt.from_code(dtype))


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    if dtype is None:
        return aten.log_softmax.int(input, dim)
    return aten.log_softmax.int(input, dim, _dt.from_code(dtype))


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return aten.layer_norm.default(input, shape, weight, bias, eps)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if inplace:
        raise NotImplementedError("dropout(inplace=True) is not supported by dispatchkit")
    return aten.dropout.default(input, p, training)


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


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # noqa: A002
              max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        raise NotImplementedError("embedding(max_norm=...) is not supported by dispatchkit")
    return aten.embedding.default(weight, input, padding_idx, scale_grad_by_freq, sparse)


# --- the functions of the later op batches (functional_more_*.py), re-exported here ---
from . import functional_loss, functional_more_a, functional_more_b  # noqa: E402 (functional_loss: loss batch)

for _more in (functional_more_a, functional_more_b, functional_loss,):
    for _name in _more.__all__:
        globals()[_name] = getattr(_more, _name)
    __all__ += _more.__all__
del _more, _name

from . import functional_attn  # noqa: E402  (attn batch: scaled_dot_product_attention, one_hot)

for _name in functional_attn.__all__:
    globals()[_name] = getattr(functional_attn, _name)
__all__ += functional_attn.__all__
# --- conv batch (functional_conv.py): convolution, pooling, batch / instance / group norm ---
from . import functional_conv  # noqa: E402

for _name in functional_conv.__all__:
    globals()[_name] = getattr(functional_conv, _name)
__all__ += functional_conv.__all__
del _name
