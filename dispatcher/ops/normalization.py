"""Normalization kernels: ``native_batch_norm`` / ``native_layer_norm`` / ``native_group_norm`` and their backward
ops, and the CompositeImplicitAutograd ``batch_norm``, ``instance_norm``, ``layer_norm``, ``group_norm``,
``rms_norm``.

Corresponds to aten/src/ATen/native/Normalization.cpp (``batch_norm`` -> ``_batch_norm_impl_index`` ->
``native_batch_norm``, ``instance_norm``), layer_norm.cpp (``layer_norm`` -> ``native_layer_norm``, ``rms_norm``)
and group_norm.cpp. What a post-dispatch trace sees of ``batch_norm``: the ``reserve`` buffer
``_batch_norm_impl_index`` makes (``empty([0], dtype=uint8)``, unused on CPU) and ``native_batch_norm``. In
training, ``native_batch_norm`` updates ``running_mean`` / ``running_var`` *in place* although its schema does not
say so (no ``Tensor(a!)``), and without bumping their version counters: both exactly as PyTorch does. Statistics
and outputs are computed in float64 and rounded once to the output dtype; ``rms_norm`` computes in opmath
(float32 for half precision) with aten ops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import dtypes as _dt
from ..memory_format import contiguous_format, strided
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from . import tensor_iterator as _pw
from .composite import _aten, _op
from .kernel_dtypes import _expected_scalar_type, _f64, is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, scalar_type_name
from .tensor_iterator import _is_float

aten = namespace("aten")


def _sizes(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _meta(shape: Sequence[int], dtype: _dt.dtype) -> TensorMeta:
    shape = tuple(shape)
    return TensorMeta(shape, contiguous_strides(shape), dtype)


def _param_dtype(input: Tensor, *params: Tensor | None) -> _dt.dtype:  # noqa: A002
    """``param_scalar_type``: float32 for a reduced-precision input with float32 parameters ("mixed type")."""
    if input._dtype is _dt.float16 and any(p is not None and p._dtype is _dt.float32 for p in params):
        return _dt.float32
    return input._dtype


def _check_param_dtypes(input: Tensor, mixed_by: tuple, params: tuple) -> None:  # noqa: A002
    """The CPU kernels' parameter dtypes (aten/src/ATen/native/mixed_type.h, then the kernels' typed accessors):
    parameters in ``mixed_by`` of another dtype than the input make a "mixed type" call, whose ``params`` must
    all be float32 for a reduced-precision input; otherwise every parameter has the input's dtype."""
    if input._data is None:
        return
    if any(p is not None and p._dtype is not input._dtype for p in mixed_by):
        for p in params:
            if p is not None and p._dtype is not _dt.float32:
                raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input._dtype is not _dt.float16:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for p in params:
        if p is not None and p._dtype is not input._dtype:
            raise RuntimeError(f"expected scalar type {scalar_type_name(input._dtype)} but found "
                               f"{scalar_type_name(p._dtype)}")


def _check_vectors(**params: Tensor | None) -> None:
    """Per-channel parameters read through a 1-d accessor (TensorAccessor's rank check)."""
    for p in params.values():
        if p is not None and p._data is not None and p.dim() != 1:
            raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has {p.dim()}")


def _torch_check(cond: bool, text: str) -> None:
    """TORCH_CHECK(cond) without a message: PyTorch prints the condition."""
    if not cond:
        raise RuntimeError(f"Expected {text} to be true, but got false.  (Could this error message be improved?  If "
                           "so, please report an enhancement request to PyTorch.)")


def _check_channels(c: int, **params: Tensor | None) -> None:
    """Per-channel parameters hold one value per channel (batch_norm's "running_mean should contain 4 elements not
    5"; PyTorch's native kernels read past the end of a shorter one without checking: ours refuse)."""
    for name, p in params.items():
        if p is not None and p.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {p.numel()}")


def _channel_view(a: np.ndarray, ndim: int) -> np.ndarray:
    """A per-channel vector shaped to broadcast over (N, C, *spatial)."""
    return a.reshape(1, -1, *([1] * (ndim - 2)))


# --- native_batch_norm -------------------------------------------------------------------------------------------


@impl("native_batch_norm", "CPU", "Meta")
def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool, momentum: float,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    if input.dim() < 2:
        raise RuntimeError(f"batch_norm(): expected input to have at least 2 dimensions, but got {input.dim()}")
    c = input._shape[1]
    stat_dtype = _param_dtype(input, weight, bias, running_mean, running_var)
    out_meta = _meta(input._shape, input._dtype)
    stat_meta = _meta((c,) if training else (0,), stat_dtype)
    if is_meta(input):
        return (materialize(out_meta, None, input), materialize(stat_meta, None, input),
                materialize(stat_meta, None, input))
    if not input._dtype.is_floating_point:
        raise not_implemented("batch_norm", input._dtype)
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    _check_param_dtypes(input, (weight, bias), (weight, bias, running_mean, running_var))
    _check_vectors(running_mean=running_mean, running_var=running_var)
    _check_channels(c, weight=weight, bias=bias, running_mean=running_mean, running_var=running_var)
    x = _f64(input)
    axes = (0, *range(2, input.dim()))
    n = x.size // c if c else 0
    with np.errstate(invalid="ignore", divide="ignore"):
        if training:
            mean = x.mean(axis=axes)
            var = ((x - _channel_view(mean, x.ndim)) ** 2).mean(axis=axes)
            invstd = 1.0 / np.sqrt(var + eps)
            if running_mean is not None:
                new = momentum * mean + (1 - momentum) * _f64(running_mean)
                running_mean._data[...] = new.astype(running_mean._data.dtype)
            if running_var is not None:
                unbiased = var * n / (n - 1) if n > 1 else np.full_like(var, np.inf if n == 1 else np.nan)
                new = momentum * unbiased + (1 - momentum) * _f64(running_var)
                running_var._data[...] = new.astype(running_var._data.dtype)
        else:
            mean = _f64(running_mean)
            invstd = 1.0 / np.sqrt(_f64(running_var) + eps)
        y = (x - _channel_view(mean, x.ndim)) * _channel_view(invstd, x.ndim)
    if weight is not None:
        y = y * _channel_view(_f64(weight), x.ndim)
    if bias is not None:
        y = y + _channel_view(_f64(bias), x.ndim)
    if training:
        stats = (materialize(stat_meta, mean, input), materialize(stat_meta, invstd, input))
    else:
        stats = (materialize(stat_meta, np.zeros(0), input), materialize(stat_meta, np.zeros(0), input))
    return (materialize(out_meta, y, input), *stats)


@impl("native_batch_norm_backward", "CPU", "Meta")
def native_batch_norm_backward(grad_out: Tensor, input: Tensor, weight: Tensor | None,  # noqa: A002
                               running_mean: Tensor | None, running_var: Tensor | None, save_mean: Tensor | None,
                               save_invstd: Tensor | None, train: bool, eps: float,
                               output_mask: Sequence[bool]) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    c = input._shape[1]
    param_dtype = weight._dtype if weight is not None else input._dtype
    metas = (
        _meta(input._shape, input._dtype) if output_mask[0] else None,
        _meta((c,), param_dtype) if output_mask[1] else None,
        _meta((c,), param_dtype) if output_mask[2] else None,
    )
    if is_meta(input):
        return tuple(None if m is None else materialize(m, None, input) for m in metas)  # type: ignore[return-value]
    if not input._dtype.is_floating_point:
        raise not_implemented("batch_norm_backward_cpu", input._dtype)
    _check_param_dtypes(input, (weight,), (weight, running_mean, running_var, save_mean, save_invstd))
    if grad_out._dtype is not input._dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._dtype)} but found "
                           f"{scalar_type_name(grad_out._dtype)}")
    _check_vectors(running_mean=running_mean, running_var=running_var, save_mean=save_mean, save_invstd=save_invstd)
    if grad_out._shape != input._shape:
        raise RuntimeError(f"native_batch_norm_backward: expected grad_out of size {list(input._shape)}, but got "
                           f"{list(grad_out._shape)}")
    stats = {"save_mean": save_mean, "save_invstd": save_invstd} if train else {"running_mean": running_mean,
                                                                                 "running_var": running_var}
    _check_channels(c, weight=weight, **stats)
    x, g = _f64(input), _f64(grad_out)
    nd = x.ndim
    axes = (0, *range(2, nd))
    with np.errstate(invalid="ignore", divide="ignore"):
        if train:
            mean, invstd = _f64(save_mean), _f64(save_invstd)
        else:
            mean, invstd = _f64(running_mean), 1.0 / np.sqrt(_f64(running_var) + eps)
        xhat = (x - _channel_view(mean, nd)) * _channel_view(invstd, nd)
        w = _f64(weight) if weight is not None else np.ones(c)
        grad_input = grad_weight = grad_bias = None
        if output_mask[0]:
            if train:
                gi = g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True)
            else:
                gi = g
            gi = gi * _channel_view(invstd * w, nd)
            grad_input = materialize(metas[0], gi, input)
        if output_mask[1]:
            grad_weight = materialize(metas[1], (g * xhat).sum(axis=axes), input)
        if output_mask[2]:
            grad_bias = materialize(metas[2], g.sum(axis=axes), input)
    return grad_input, grad_weight, grad_bias


# --- batch_norm / instance_norm (CompositeImplicitAutograd) ------------------------------------------------------


def _check_num_features(name: str, expected: int, actual: int) -> None:
    """``check_dims_match_num_input_features``."""
    if actual != expected:
        raise RuntimeError(f"{name} should contain {expected} elements not {actual}")


@impl("batch_norm", "CompositeImplicitAutograd")
def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
               running_var: Tensor | None, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    """``batch_norm`` -> ``_batch_norm_impl_index`` (the CPU path: a reserve buffer, then ``native_batch_norm``)."""
    num_features = input._shape[1] if input.dim() > 1 else 0
    if input.numel() == 0:
        # an empty input: no statistics; a clone (with the affine parameters applied) keeps the gradient chain
        aten.empty.memory_format([0], dtype=_dt.uint8, layout=strided, device=input._device)
        acc = _dt.float32 if input._dtype is _dt.float16 else _dt.float64  # toAccumulateType (CPU: double)
        for _ in ("save_mean", "save_invstd"):
            aten.empty.memory_format([num_features], dtype=acc, layout=strided, device=input._device)
        out = aten.clone.default(input)
        if weight is not None:
            out = aten.mul.Tensor(out, aten.select.int(weight, 0, 0))
        if bias is not None:
            out = aten.add.Tensor(out, aten.select.int(bias, 0, 0))
        return out
    if running_mean is not None:
        _check_num_features("running_mean", num_features, running_mean.numel())
    elif not training:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if running_var is not None:
        _check_num_features("running_var", num_features, running_var.numel())
    elif not training:
        raise RuntimeError("running_var must be defined in evaluation mode")
    if weight is not None:
        _check_num_features("weight", num_features, weight.numel())
    if bias is not None:
        _check_num_features("bias", num_features, bias.numel())
    aten.empty.memory_format([0], dtype=_dt.uint8, layout=strided, device=input._device)  # the reserve buffer
    return aten.native_batch_norm.default(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


@impl("instance_norm", "CompositeImplicitAutograd")
def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,  # noqa: A002
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """Batch norm of the input viewed as one batch of ``N * C`` channels; the running statistics get the mean over
    the batch of the per-instance updates."""
    if not (use_input_stats or (running_mean is not None and running_var is not None)):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = input._shape[0], input._shape[1]
    shape = [1, b * c, *input._shape[2:]]

    def repeat(t: Tensor | None) -> Tensor | None:
        return None if t is None else aten.repeat.default(t, [b])

    weight_, bias_ = repeat(weight), repeat(bias)
    running_mean_, running_var_ = repeat(running_mean), repeat(running_var)
    reshaped = aten.view.default(aten.contiguous.default(input), shape)
    out = aten.batch_norm.default(reshaped, weight_, bias_, running_mean_, running_var_, use_input_stats, momentum,
                                  eps, cudnn_enabled)
    if use_input_stats and running_mean is not None:
        aten.copy_.default(aten.alias.default(running_mean),
                           aten.mean.dim(aten.view.default(running_mean_, [b, c]), [0]))
    if use_input_stats and running_var is not None:
        aten.copy_.default(aten.alias.default(running_var),
                           aten.mean.dim(aten.view.default(running_var_, [b, c]), [0]))
    return aten.view.default(out, list(input._shape))


# --- group norm ----------------------------------------------------------------------------------------------------


def _check_group_norm_inputs(input: Tensor, weight: Tensor | None, bias: Tensor | None, c: int,  # noqa: A002
                             num_groups: int) -> None:
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {_sizes(input._shape)} and num_groups={num_groups}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and not (p.dim() == 1 and p.numel() == c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {_sizes(p._shape)} and input of shape "
                               f"{_sizes(input._shape)}")


@impl("native_group_norm", "CPU", "Meta")
def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int,  # noqa: A002, N803
                      HxW: int, group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803
    _check_group_norm_inputs(input, weight, bias, C, group)
    _torch_check(input.numel() == N * C * HxW, "X.numel() == N * C * HxW")
    stat_dtype = _param_dtype(input, weight, bias)
    out_meta, stat_meta = _meta(input._shape, input._dtype), _meta((N, group), stat_dtype)
    if is_meta(input):
        return (materialize(out_meta, None, input), materialize(stat_meta, None, input),
                materialize(stat_meta, None, input))
    if not input._dtype.is_floating_point:
        raise not_implemented("GroupNormKernelImpl", input._dtype)
    _check_param_dtypes(input, (weight,), (weight, bias))
    x = _f64(input).reshape(N, group, -1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.mean(axis=-1)
        var = ((x - mean[..., None]) ** 2).mean(axis=-1)
        rstd = 1.0 / np.sqrt(var + eps)
        y = ((x - mean[..., None]) * rstd[..., None]).reshape(N, C, HxW)
    if weight is not None:
        y = y * _f64(weight).reshape(1, C, 1)
    if bias is not None:
        y = y + _f64(bias).reshape(1, C, 1)
    return (materialize(out_meta, y.reshape(input._shape), input), materialize(stat_meta, mean, input),
            materialize(stat_meta, rstd, input))


@impl("native_group_norm_backward", "CPU", "Meta")
def native_group_norm_backward(grad_out: Tensor, input: Tensor, mean: Tensor, rstd: Tensor,  # noqa: A002
                               weight: Tensor | None, N: int, C: int, HxW: int, group: int,  # noqa: N803
                               output_mask: Sequence[bool]) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    if grad_out.numel() != N * C * HxW:
        raise RuntimeError(f"Expect dY to have {N * C * HxW} elements.")
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expect X to have {N * C * HxW} elements.")
    _torch_check(mean.numel() == N * group, "mean.numel() == N * group")
    _torch_check(rstd.numel() == N * group, "rstd.numel() == N * group")
    _torch_check(weight is None or weight.numel() == C, "!gamma.defined() || gamma.numel() == C")
    param_dtype = weight._dtype if weight is not None else input._dtype
    metas = (
        _meta(input._shape, input._dtype) if output_mask[0] else None,
        _meta((C,), param_dtype) if output_mask[1] else None,
        _meta((C,), param_dtype) if output_mask[2] else None,
    )
    if is_meta(input):
        return tuple(None if m is None else materialize(m, None, input) for m in metas)  # type: ignore[return-value]
    if not input._dtype.is_floating_point:
        raise not_implemented("GroupNormBackwardKernelImpl", input._dtype)
    if grad_out._dtype is not input._dtype:
        raise RuntimeError("Expected scalar types of X and dY are same.")
    _check_param_dtypes(input, (weight,), (weight, mean, rstd))
    d = C // group
    x = _f64(input).reshape(N, group, d, HxW)
    g = _f64(grad_out).reshape(N, group, d, HxW)
    mu = _f64(mean).reshape(N, group, 1, 1)
    rs = _f64(rstd).reshape(N, group, 1, 1)
    xhat = (x - mu) * rs
    w = _f64(weight).reshape(1, group, d, 1) if weight is not None else np.ones((1, group, d, 1))
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        gx = g * w
        count = d * HxW
        if count:
            gi = rs * (gx - gx.mean(axis=(2, 3), keepdims=True) - xhat * (gx * xhat).mean(axis=(2, 3), keepdims=True))
        else:
            gi = gx
        grad_input = materialize(metas[0], gi.reshape(input._shape), input)
    if output_mask[1]:
        grad_weight = materialize(metas[1], (g * xhat).sum(axis=(0, 3)).reshape(C), input)
    if output_mask[2]:
        grad_bias = materialize(metas[2], g.sum(axis=(0, 3)).reshape(C), input)
    return grad_input, grad_weight, grad_bias


@impl("group_norm", "CompositeImplicitAutograd")
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor:
    if input.dim() < 2:  # (nn.functional.group_norm checks this in Python first)
        n = max(input.dim(), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got 1)")
    n, c = input._shape[0], input._shape[1]
    _check_group_norm_inputs(input, weight, bias, c, num_groups)
    hxw = math.prod(input._shape[2:])
    x = aten.contiguous.default(input)
    gamma = None if weight is None else aten.contiguous.default(weight)
    beta = None if bias is None else aten.contiguous.default(bias)
    return aten.native_group_norm.default(x, gamma, beta, n, c, hxw, num_groups, eps)[0]


# --- layer norm ---------------------------------------------------------------------------------------


def _check_layer_norm_inputs(
    input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None, bias: Tensor | None  # noqa: A002
) -> tuple[int, int]:
    """PyTorch's ``_check_layer_norm_inputs``: returns (M, N), the outer and normalized element counts."""
    ns = [int(s) for s in normalized_shape]
    if len(ns) < 1:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but "
            f"got normalized_shape = {ns}"
        )
    if weight is not None and list(weight._shape) != ns:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight._shape)} and normalized_shape = {ns}"
        )
    if bias is not None and list(bias._shape) != ns:
        raise RuntimeError(
            f"Expected bias to be of same shape as normalized_shape, but got bias of shape {list(bias._shape)} "
            f"and normalized_shape = {ns}"
        )
    ndim = input.dim()
    if ndim < len(ns) or list(input._shape[ndim - len(ns):]) != ns:
        expected = "".join(f", {s}" for s in ns)
        raise RuntimeError(
            f"Given normalized_shape={ns}, expected input with shape [*{expected}], but got input of "
            f"size{list(input._shape)}"
        )
    axis = ndim - len(ns)
    m = math.prod(input._shape[:axis])
    n = math.prod(input._shape[axis:])
    return m, n


def _layer_norm_param_dtype(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> _dt.dtype:  # noqa: A002
    """The dtype of mean / rstd: float32 for half input with float32 parameters ("mixed type"), else the input's."""
    param = weight if weight is not None else bias
    if param is None or param._dtype is input._dtype:
        return input._dtype
    for p in (weight, bias):
        if p is not None and p._dtype is not _dt.float32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input._dtype is not _dt.float16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return _dt.float32


@impl("native_layer_norm", "CPU", "Meta")
def native_layer_norm(
    input: Tensor,  # noqa: A002 - PyTorch's name
    normalized_shape: Sequence[int],
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    m, n = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    stat_dtype = _layer_norm_param_dtype(input, weight, bias)
    if not _is_float(input._dtype) and not is_meta(input):
        raise not_implemented("LayerNormKernelImpl", input._dtype)
    if not is_meta(input):
        _check_param_dtypes(input, (weight if weight is not None else bias,), (weight, bias))
    axis = input.dim() - len(normalized_shape)
    stat_shape = tuple(input._shape[:axis]) + (1,) * len(normalized_shape)
    out_meta = TensorMeta(input._shape, contiguous_strides(input._shape), input._dtype)
    stat_meta = TensorMeta(stat_shape, contiguous_strides(stat_shape), stat_dtype)
    if is_meta(input):
        return (materialize(out_meta, None, input), materialize(stat_meta, None, input),
                materialize(stat_meta, None, input))
    x = _f64(input).reshape(m, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        if n:
            mean = np.add.reduce(x, axis=1) / n
            var = np.add.reduce((x - mean[:, None]) ** 2, axis=1) / n
        else:
            mean, var = np.zeros(m), np.full(m, np.nan)
        rstd = 1.0 / np.sqrt(var + eps)
        y = (x - mean[:, None]) * rstd[:, None]
    if weight is not None:
        y = y * _f64(weight).reshape(n)
    if bias is not None:
        y = y + _f64(bias).reshape(n)
    return (
        materialize(out_meta, y.reshape(input._shape), input),
        materialize(stat_meta, mean.reshape(stat_shape), input),
        materialize(stat_meta, rstd.reshape(stat_shape), input),
    )


@impl("native_layer_norm_backward", "CPU", "Meta")
def native_layer_norm_backward(
    grad_out: Tensor,
    input: Tensor,  # noqa: A002 - PyTorch's name
    normalized_shape: Sequence[int],
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    m, n = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    mixed = input._dtype is _dt.float16 and weight is not None and weight._dtype is _dt.float32
    if not is_meta(input):
        if not _is_float(input._dtype):
            raise not_implemented("LayerNormBackwardKernelImpl", input._dtype)
        if grad_out._dtype is not input._dtype:
            raise _expected_scalar_type(input._dtype, grad_out._dtype)
        if weight is not None and not mixed and weight._dtype is not input._dtype:
            raise _expected_scalar_type(input._dtype, weight._dtype)
        param_dtype = _dt.float32 if mixed else input._dtype
        if output_mask[2] and bias is not None and bias._dtype is not param_dtype:
            # PyTorch: grad_bias is empty_like(bias), written through data_ptr<param type>
            raise _expected_scalar_type(param_dtype, bias._dtype)
    if grad_out.numel() != input.numel():
        raise RuntimeError(
            f"native_layer_norm_backward: expected grad_out of size {list(input._shape)}, but got "
            f"{list(grad_out._shape)}"
        )
    for want, param in ((output_mask[1], weight), (output_mask[2], bias)):
        if want and param is None:
            raise RuntimeError("tensor does not have a device")  # PyTorch: empty_like of an undefined tensor

    def param_meta(p: Tensor) -> TensorMeta:
        return TensorMeta(p._shape, contiguous_strides(p._shape), p._dtype)  # PyTorch uses weight.contiguous()

    in_meta = TensorMeta(input._shape, contiguous_strides(input._shape), input._dtype)
    if is_meta(input):
        return (
            materialize(in_meta, None, input) if output_mask[0] else None,
            materialize(param_meta(weight), None, input) if output_mask[1] else None,
            materialize(param_meta(bias), None, input) if output_mask[2] else None,
        )
    x = _f64(input).reshape(m, n)
    dy = _f64(grad_out).reshape(m, n)
    # PyTorch's CPU kernel reads mean / rstd through their data pointers as M consecutive values, whatever their
    # shape and strides (its meta function does not check them): a (2, 3) or (6, 1) mean gives its results, a
    # transposed one its storage order, a longer one its first M values. Fewer than M values from the data pointer
    # to the end of the storage would be read past its end (results that change from call to call): refused.
    stats = []
    for name, stat in (("mean", mean), ("rstd", rstd)):
        flat, offset = stat._storage, stat._storage_offset
        if flat is None or flat.size - offset < m:
            raise RuntimeError(
                f"native_layer_norm_backward: expected {name} to hold {m} values (one per row of input "
                f"{list(input._shape)} over normalized_shape {list(normalized_shape)}), but got {name} of shape "
                f"{list(stat._shape)} (PyTorch's CPU kernel reads past its end: undefined results)"
            )
        stats.append(flat[offset:offset + m].astype(np.float64).reshape(m, 1))
    mu, rs = stats
    xhat = (x - mu) * rs
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        g = dy * _f64(weight).reshape(1, n) if weight is not None else dy
        if n:
            gx = rs * (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True))
        else:
            gx = g
        grad_input = materialize(in_meta, gx.reshape(input._shape), input)
    if output_mask[1]:
        grad_weight = materialize(param_meta(weight), (dy * xhat).sum(axis=0).reshape(weight._shape), input)
    if output_mask[2]:
        grad_bias = materialize(param_meta(bias), dy.sum(axis=0).reshape(bias._shape), input)
    return grad_input, grad_weight, grad_bias


# --- layer_norm (CompositeImplicitAutograd) -------------------------------------------------------------


@impl("layer_norm", "CompositeImplicitAutograd")
def layer_norm(input: Tensor, normalized_shape: list[int], weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Tensor:
    return _op("native_layer_norm")(input, normalized_shape, weight, bias, eps)[0]


# --- rms_norm (CompositeImplicitAutograd) -----------------------------------------------------------------------------


def _check_rms_norm_inputs(input: Tensor, normalized_shape: list[int], weight: Tensor | None) -> None:  # noqa: A002
    if len(normalized_shape) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(normalized_shape)}")
    if weight is not None and list(weight._shape) != list(normalized_shape):
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight._shape)} and normalized_shape = {list(normalized_shape)}")
    n = len(normalized_shape)
    if input.dim() < n or list(input._shape[input.dim() - n:]) != list(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*{', '.join(str(s) for s in normalized_shape)}], but got input of size"
                           f"{list(input._shape)}")


@impl("rms_norm", "CompositeImplicitAutograd")
def rms_norm(input: Tensor, normalized_shape: list[int], weight: Tensor | None = None,  # noqa: A002
             eps: float | None = None) -> Tensor:
    """layer_norm.cpp: in opmath (float32 for half precision), ``x * rsqrt(mean(x ** 2, last dims, keepdim)
    .add_(eps))``, times weight, made contiguous, back to input's dtype; eps defaults to the opmath dtype's
    epsilon."""
    aten = _aten()
    _check_rms_norm_inputs(input, list(normalized_shape), weight)
    dtype = input._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise NotImplementedError(f'"rms_norm" not implemented for \'{scalar_type_name(dtype)}\'')
    op = _pw._opmath(dtype)
    dims = [input.dim() - i - 1 for i in range(len(normalized_shape))]
    upcast = aten._to_copy.default(input, dtype=op) if op is not dtype else input
    eps_value = float(np.finfo(op.np_dtype).eps) if eps is None else float(op.np_dtype.type(eps))
    rsqrt = aten.rsqrt.default(aten.add_.Scalar(aten.mean.dim(aten.pow.Tensor_Scalar(upcast, 2), dims, True),
                                                eps_value))
    result = aten.mul.Tensor(upcast, rsqrt)
    if weight is not None:
        result = aten.mul.Tensor(result, weight)
    if not result._contiguous:  # ``result.contiguous()``
        result = aten.clone.default(result, memory_format=contiguous_format)
    if result._dtype is not dtype:
        result = aten._to_copy.default(result, dtype=dtype, layout=strided, device=input._device)
    return result
