"""Dropout: ``native_dropout`` / ``native_dropout_backward`` kernels and the CompositeImplicitAutograd ``dropout``.

Corresponds to aten/src/ATen/native/Dropout.cpp and its CPU kernel. ``dropout`` is PyTorch's ``_dropout_impl``:
``self`` itself with ``p == 0`` or not training, else ``empty_like`` + ``bernoulli_(1 - p)`` + ``div_(1 - p)`` +
``mul``; ``feature_dropout`` draws one noise value per (batch, channel) (``new_empty`` of shape ``(N, C, 1, ...)``);
``alpha_dropout`` / ``feature_alpha_dropout`` keep the mean and variance of SELU activations (the noise turned into
a scale ``a`` and a shift ``b``: ``input * noise + b``). ``native_dropout`` draws its mask from the dispatcher's generators (dispatcher/random.py) and scales the
kept values by ``1 / (1 - p)``; ``native_dropout_backward`` is ``grad_output * mask * scale``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, device
from .composite import _STRIDED, _fmt_double, _op
from .kernel_dtypes import _can_cast, is_meta
from .kernel_registry import impl
from .meta_utils import TensorMeta, elementwise_strides, materialize, preserve_format_strides, scalar_type_name

_META = device("meta")
aten = namespace("aten")


@impl("native_dropout", "CPU", "Meta")
def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:  # noqa: A002
    if input.numel() == 0:  # PyTorch returns the input itself and an empty_like(input) mask of its dtype
        empty = TensorMeta(input._shape, input._stride, input._dtype)
        return input, materialize(empty, lambda: np.zeros(input._shape, input._dtype.np_dtype), input)
    like = TensorMeta(input._shape, preserve_format_strides(input), input._dtype)  # clone / empty_like(input)
    mask_meta = TensorMeta(like.shape, like.stride, _dt.bool)
    if train is not None and not train:
        return (
            materialize(like, lambda: input._data.copy(), input),
            materialize(mask_meta, lambda: np.ones(input._shape, np.bool_), input),
        )
    mask_like = Tensor._empty(like.shape, _dt.bool, _META, like.stride)
    like = TensorMeta(like.shape, elementwise_strides(like.shape, (input, mask_like)), like.dtype)  # input * mask
    p1m = 1.0 - p
    if not 0.0 <= p1m <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p1m:g}")
    if not _can_cast(_dt.float32, input._dtype):
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {scalar_type_name(input._dtype)}"
        )
    scale = 0.0 if p1m == 0 else 1.0 / p1m
    if is_meta(input):
        return materialize(like, None, input), materialize(mask_meta, None, input)
    from ..random import default_generator

    keep = default_generator().draw(lambda g: g.random(input._shape) < p1m)
    cd = np.dtype(np.float32 if input._dtype is _dt.float16 else input._dtype.np_dtype)
    out = (input._data * keep).astype(cd, copy=False) * cd.type(scale)
    return materialize(like, out, input), materialize(mask_meta, keep, input)


@impl("native_dropout_backward", "CPU", "Meta")
def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    """``grad_output * mask * scale``, as Dropout.cpp computes it (TensorIterator promotion and strides)."""
    return aten.mul.Tensor(aten.mul.Tensor(grad_output, mask), scale)


@impl("dropout", "CompositeImplicitAutograd")
def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return _dropout_impl(input, p, train, feature=False, alpha=False)


def _dropout_impl(input: Tensor, p: float, train: bool, feature: bool, alpha: bool) -> Tensor:  # noqa: A002
    """Dropout.cpp's ``_dropout_impl<feature_dropout, alpha_dropout, inplace=false>``."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {_fmt_double(p)}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = _op("zeros")([], dtype=input._dtype, layout=_STRIDED, device=input._device)
        return _op("mul.Tensor")(input, zero)
    if feature:  # make_feature_noise
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        noise = _op("new_empty")(input, [input._shape[0], input._shape[1]] + [1] * (input.dim() - 2))
    else:
        noise = _op("empty_like")(input)
    _op("bernoulli_.float")(noise, 1 - p)
    if not alpha:
        _op("div_.Scalar")(noise, 1 - p)
        return _op("mul.Tensor")(input, noise)
    alpha_ = 1.7580993408473766
    a = 1.0 / ((alpha_ * alpha_ * p + 1) * (1 - p)) ** 0.5
    b = _op("add.Scalar")(noise, -1)
    _op("mul_.Scalar")(b, alpha_ * a)
    _op("add_.Scalar")(b, alpha_ * a * p)
    _op("mul_.Scalar")(noise, a)
    return _op("add_.Tensor")(_op("mul.Tensor")(input, noise), b)


@impl("feature_dropout", "CompositeImplicitAutograd")
def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return _dropout_impl(input, p, train, feature=True, alpha=False)


@impl("alpha_dropout", "CompositeImplicitAutograd")
def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return _dropout_impl(input, p, train, feature=False, alpha=True)


@impl("feature_alpha_dropout", "CompositeImplicitAutograd")
def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return _dropout_impl(input, p, train, feature=True, alpha=True)
