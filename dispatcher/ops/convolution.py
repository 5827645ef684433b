"""Convolution: ``convolution`` / ``convolution_backward`` kernels and the ``conv*d`` / ``conv_transpose*d`` decompositions.

Corresponds to aten/src/ATen/native/Convolution.cpp. ``conv1d`` / ``conv2d`` / ``conv3d`` (and their ``.padding``
overloads taking ``"same"`` / ``"valid"``) and ``conv_transpose1d`` / ``2d`` / ``3d`` are CompositeImplicitAutograd:
they add a batch dim to an unbatched input (``batchify``), call ``convolution`` (``transposed=True`` for the
transposed ones) and squeeze it off again; ``"same"`` with an even
effective kernel pads the input's right side first with ``constant_pad_nd`` (``_convolution_same_mode``).
``convolution`` and ``convolution_backward`` are CompositeExplicitAutograd in PyTorch (their backend
choice, ``_convolution`` -> mkldnn / slow_conv2d, happens below every mode), so one kernel here serves
CPU and Meta: the argument checks of ``_convolution`` (``check_shape_forward``), then NumPy.

A transposed convolution also runs slow_conv_transpose2d / 3d's shape check (output padding smaller than stride or
dilation, a positive output size). NumPy (convolution_numpy.py): im2col as a strided view, then one batched matrix
product per call, in float64 for floating types, rounded once to the result's dtype (integers in int64); the input
gradient of a convolution is the transposed convolution and vice versa.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .convolution_numpy import conv_forward, conv_transposed, conv_weight_grad
from .fp_errors import quiet_fp
from .kernel_dtypes import compute_dtype, is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize

aten = namespace("aten")


#: ``Tensor::toString()`` names used by the weight-type error (legacy tensor type names)
_LEGACY_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
    "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
    "bool": "BoolTensor", "uint16": "UInt16Tensor", "uint32": "UInt32Tensor", "uint64": "UInt64Tensor",
}


#: ``caffe2::TypeMeta::name()`` of a dtype, used by conv's bias-type error
_META_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
    "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int",
}


#: warnings PyTorch gives once per process (TORCH_WARN_ONCE)
_WARNED = {"same_padding": False}


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t._shape) + "]"


def _list(v: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(e)) for e in v) + "]"


# --- conv1d / conv2d (CompositeImplicitAutograd) -------------------------------------------------------------------


def _batchify(input: Tensor, num_spatial_dims: int, func_name: str) -> tuple[Tensor, bool]:  # noqa: A002
    """``batchify``: an unbatched input gets a batch dim of 1 (returns the input and whether it was batched)."""
    no_batch = num_spatial_dims + 1
    is_batched = input.dim() == no_batch + 1
    if not (input.dim() == no_batch or is_batched):
        raise RuntimeError(f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to {func_name}, "
                           f"but got input of size: {_sizes(input)}")
    return (input if is_batched else aten.unsqueeze.default(input, 0)), is_batched


def _check_bias_type(input: Tensor, bias: Tensor | None) -> None:  # noqa: A002
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({_META_NAMES.get(input._dtype.name, input._dtype.name)}) and bias type "
                           f"({_META_NAMES.get(bias._dtype.name, bias._dtype.name)}) should be the same")


def _mark_undefined_bias(out: Tensor, bias: Tensor | None) -> None:
    """C++ ``conv*d`` hands ``convolution`` an optional holding an *undefined* tensor for ``bias=None``; autograd
    then saves its sizes as ``[0]`` (a direct call with ``None`` saves none), and ``convolution_backward`` gets
    ``bias_sizes=[0]``: noted on the node, which reads it in derivatives_conv.py."""
    node = out.grad_fn
    if bias is None and node is not None and getattr(node, "saved", None) is not None:
        node.saved["undefined_bias_sizes"] = [0]


def _conv_nd(name: str, dims: int, input: Tensor, weight: Tensor, bias: Tensor | None,  # noqa: A002
             stride: list[int], padding: list[int], dilation: list[int], groups: int) -> Tensor:
    _check_bias_type(input, bias)
    x, is_batched = _batchify(input, dims, name)
    out = aten.convolution.default(x, weight, bias, stride, padding, dilation, False, [0] * dims, groups)
    _mark_undefined_bias(out, bias)
    return out if is_batched else aten.squeeze.dim(out, 0)


def _same_mode_padding(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """``pooling_same_mode_padding_lr``: the (left, right) padding keeping the size (the extra one goes right)."""
    total = dilation * (kernel - 1)
    left = total // 2
    return left, total - left


def _convolution_mode(input: Tensor, weight: Tensor, bias: Tensor | None, stride: list[int],  # noqa: A002
                      padding: str, dilation: list[int], groups: int) -> Tensor:
    """``_convolution_mode``: ``"valid"`` is no padding; ``"same"`` pads to keep the spatial sizes."""
    if padding == "valid":
        return aten.convolution.default(input, weight, bias, stride, [0], dilation, False, [0], groups)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    k = weight.dim()
    dim = k - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if k != input.dim():
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight{_sizes(weight)}, but got "
                           f"{input.dim()}-dimensional input of size {_sizes(input)} instead")
    if len(stride) not in (dim, 1):
        raise RuntimeError(f"stride cannot broadcast to {dim} dimensions")
    if len(dilation) not in (dim, 1):
        raise RuntimeError(f"dilation cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, right = [], []
    for i in range(dim):
        s = stride[0] if len(stride) == 1 else stride[i]
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        lo, hi = _same_mode_padding(input._shape[i + 2], weight._shape[i + 2], s, d)
        left.append(lo)
        right.append(hi)
    if left == right:
        return aten.convolution.default(input, weight, bias, stride, left, dilation, False, [0] * dim, groups)
    if not _WARNED["same_padding"]:  # TORCH_WARN_ONCE
        _WARNED["same_padding"] = True
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                      "copy of the input be created", UserWarning, stacklevel=2)
    pad_nd = [0] * (2 * dim)
    for i in range(dim):
        delta = right[i] - left[i]
        idx = 2 * (dim - 1 - i)  # F.pad's order: last dim first
        if delta > 0:
            pad_nd[idx + 1] = delta
        else:
            pad_nd[idx] = delta
            left[i] = right[i]
    padded = aten.constant_pad_nd.default(input, pad_nd, 0)
    return aten.convolution.default(padded, weight, bias, stride, left, dilation, False, [0] * dim, groups)


def _conv_nd_padding(name: str, dims: int, input: Tensor, weight: Tensor, bias: Tensor | None,  # noqa: A002
                     stride: list[int], padding: str, dilation: list[int], groups: int) -> Tensor:
    _check_bias_type(input, bias)
    x, is_batched = _batchify(input, dims, name)
    out = _convolution_mode(x, weight, bias, stride, padding, dilation, groups)
    _mark_undefined_bias(out, bias)
    return out if is_batched else aten.squeeze.dim(out, 0)


@impl("conv1d", "CompositeImplicitAutograd")
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: list[int] = (1,),  # noqa: A002
           padding: list[int] = (0,), dilation: list[int] = (1,), groups: int = 1) -> Tensor:
    return _conv_nd("conv1d", 1, input, weight, bias, list(stride), list(padding), list(dilation), groups)


@impl("conv2d", "CompositeImplicitAutograd")
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: list[int] = (1, 1),  # noqa: A002
           padding: list[int] = (0, 0), dilation: list[int] = (1, 1), groups: int = 1) -> Tensor:
    return _conv_nd("conv2d", 2, input, weight, bias, list(stride), list(padding), list(dilation), groups)


@impl("conv1d.padding", "CompositeImplicitAutograd")
def conv1d_padding(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: list[int] = (1,),  # noqa: A002
                   padding: str = "valid", dilation: list[int] = (1,), groups: int = 1) -> Tensor:
    return _conv_nd_padding("conv1d", 1, input, weight, bias, list(stride), padding, list(dilation), groups)


@impl("conv2d.padding", "CompositeImplicitAutograd")
def conv2d_padding(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                   stride: list[int] = (1, 1), padding: str = "valid", dilation: list[int] = (1, 1),
                   groups: int = 1) -> Tensor:
    return _conv_nd_padding("conv2d", 2, input, weight, bias, list(stride), padding, list(dilation), groups)


@impl("conv3d", "CompositeImplicitAutograd")
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: list[int] = (1, 1, 1),  # noqa: A002
           padding: list[int] = (0, 0, 0), dilation: list[int] = (1, 1, 1), groups: int = 1) -> Tensor:
    return _conv_nd("conv3d", 3, input, weight, bias, list(stride), list(padding), list(dilation), groups)


@impl("conv3d.padding", "CompositeImplicitAutograd")
def conv3d_padding(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                   stride: list[int] = (1, 1, 1), padding: str = "valid", dilation: list[int] = (1, 1, 1),
                   groups: int = 1) -> Tensor:
    return _conv_nd_padding("conv3d", 3, input, weight, bias, list(stride), padding, list(dilation), groups)


# --- conv_transpose1d / 2d / 3d (CompositeImplicitAutograd) ----------------------------------------------------------


def _conv_transpose_nd(name: str, dims: int, input: Tensor, weight: Tensor, bias: Tensor | None,  # noqa: A002
                       stride: list[int], padding: list[int], output_padding: list[int], groups: int,
                       dilation: list[int]) -> Tensor:
    """``conv_transpose{1,2,3}d``: batchify, ``convolution(..., transposed=True, ...)``, unbatchify (no bias type
    check, unlike ``conv*d``)."""
    x, is_batched = _batchify(input, dims, name)
    out = aten.convolution.default(x, weight, bias, stride, padding, dilation, True, output_padding, groups)
    _mark_undefined_bias(out, bias)
    return out if is_batched else aten.squeeze.dim(out, 0)


@impl("conv_transpose1d", "CompositeImplicitAutograd")
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: list[int] = (1,), padding: list[int] = (0,), output_padding: list[int] = (0,),
                     groups: int = 1, dilation: list[int] = (1,)) -> Tensor:
    return _conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, list(stride), list(padding),
                              list(output_padding), groups, list(dilation))


@impl("conv_transpose2d.input", "CompositeImplicitAutograd")
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: list[int] = (1, 1), padding: list[int] = (0, 0), output_padding: list[int] = (0, 0),
                     groups: int = 1, dilation: list[int] = (1, 1)) -> Tensor:
    return _conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, list(stride), list(padding),
                              list(output_padding), groups, list(dilation))


@impl("conv_transpose3d.input", "CompositeImplicitAutograd")
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: list[int] = (1, 1, 1), padding: list[int] = (0, 0, 0),
                     output_padding: list[int] = (0, 0, 0), groups: int = 1,
                     dilation: list[int] = (1, 1, 1)) -> Tensor:
    return _conv_transpose_nd("conv_transpose3d", 3, input, weight, bias, list(stride), list(padding),
                              list(output_padding), groups, list(dilation))


# --- convolution (CompositeExplicitAutograd: _convolution's checks, then NumPy) --------------------------------------


def _expand_param(value: Sequence[int], name: str, dim: int) -> list[int]:
    """``expand_param_if_needed``: one value serves every spatial dim, else there must be one per dim."""
    value = [int(v) for v in value]
    if len(value) == 1:
        return value * dim
    if len(value) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} values to match the "
                           f"convolution dimensions, but got {name}={_list(value)}")
    return value


class ConvParams:
    """``ConvParams``: the checked, expanded arguments of one convolution and its output's spatial sizes."""

    def __init__(self, input: Tensor, weight: Tensor, bias_sizes: Sequence[int] | None,  # noqa: A002
                 stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                 output_padding: Sequence[int], groups: int) -> None:
        k = weight.dim()
        dim = k - 2
        if dim <= 0:
            raise RuntimeError("weight should have at least three dimensions")
        if groups <= 0:
            raise RuntimeError("non-positive groups is not supported")
        self.dim, self.groups, self.transposed = dim, int(groups), bool(transposed)
        self.stride = _expand_param(stride, "stride", dim)
        self.padding = _expand_param(padding, "padding", dim)
        self.dilation = _expand_param(dilation, "dilation", dim)
        self.output_padding = _expand_param(output_padding, "output_padding", dim)
        self._check_shape_forward(input, weight, bias_sizes)
        self.kernel = tuple(weight._shape[2:])
        if self.transposed:  # the input's positions scatter into the output
            self.positions = tuple(input._shape[2:])
            self.out_spatial = tuple(
                (input._shape[i + 2] - 1) * self.stride[i] - 2 * self.padding[i]
                + self.dilation[i] * (self.kernel[i] - 1) + self.output_padding[i] + 1 for i in range(dim))
            self._check_transposed(input)
        else:  # every output position reads a window of the input
            self.out_spatial = tuple(
                (input._shape[i + 2] + 2 * self.padding[i] - self.dilation[i] * (self.kernel[i] - 1) - 1)
                // self.stride[i] + 1 for i in range(dim))
            self.positions = self.out_spatial

    def _check_shape_forward(self, input: Tensor, weight: Tensor, bias_sizes: Sequence[int] | None) -> None:  # noqa: A002
        if any(p < 0 for p in self.padding):
            raise RuntimeError("negative padding is not supported")
        if any(p < 0 for p in self.output_padding):
            raise RuntimeError("negative output_padding is not supported")
        if any(s <= 0 for s in self.stride):
            raise RuntimeError("non-positive stride is not supported")
        if any(d <= 0 for d in self.dilation):
            raise RuntimeError("non-positive dilation is not supported")
        ws = weight._shape
        k, groups = input.dim(), self.groups
        if weight.dim() != k:
            raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                               f"{_sizes(weight)}, but got {k}-dimensional input of size {_sizes(input)} instead")
        if ws[0] < groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but "
                               f"got weight of size {_sizes(weight)} instead")
        if ws[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                               f"but got weight of size [{_sizes(weight)}] instead")
        if self.transposed:
            if input._shape[1] != ws[0]:
                raise RuntimeError(f"Given transposed=1, weight of size {_sizes(weight)}, expected input"
                                   f"{_sizes(input)} to have {ws[0]} channels, but got {input._shape[1]} channels "
                                   "instead")
            if bias_sizes is not None and (len(bias_sizes) != 1 or bias_sizes[0] != ws[1] * groups):
                raise RuntimeError(f"Given transposed=1, weight of size {_sizes(weight)}, expected bias to be "
                                   f"1-dimensional with {ws[1] * groups} elements, but got bias of size "
                                   f"{_list(bias_sizes)} instead")
            return
        if input._shape[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {_sizes(weight)}, expected input"
                               f"{_sizes(input)} to have {ws[1] * groups} channels, but got {input._shape[1]} "
                               "channels instead")
        if bias_sizes is not None and (len(bias_sizes) != 1 or bias_sizes[0] != ws[0]):
            raise RuntimeError(f"Given weight of size {_sizes(weight)}, expected bias to be 1-dimensional with "
                               f"{ws[0]} elements, but got bias of size {_list(bias_sizes)} instead")
        padded = [input._shape[i] + 2 * self.padding[i - 2] for i in range(2, k)]
        kernel = [self.dilation[i - 2] * (ws[i] - 1) + 1 for i in range(2, k)]
        if any(p < q for p, q in zip(padded, kernel)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                               f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than "
                               "actual input size")


    def _check_transposed(self, input: Tensor) -> None:  # noqa: A002
        """slow_conv_transpose2d / 3d's shape check (a 1-d convolution runs as 2-d with a height of 1)."""
        names = ["depth", "height", "width"][3 - max(self.dim, 2):]
        lead = max(2 - self.dim, 0)
        out_pad = [0] * lead + self.output_padding
        stride, dilation = [1] * lead + self.stride, [1] * lead + self.dilation
        if not all(p < s or p < d for p, s, d in zip(out_pad, stride, dilation)):
            got = " ".join(f"{what}_{n}: {v}" for what, vals in
                           (("output_padding", out_pad), ("stride", stride), ("dilation", dilation))
                           for n, v in zip(names, vals))
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {got}")
        if any(o < 1 for o in self.out_spatial):
            sizes = [1] * lead + list(input._shape[2:])
            outs = [1] * lead + list(self.out_spatial)
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, sizes))}). Calculated output "
                               f"size per channel: ({' x '.join(map(str, outs))}). Output size is too small")


def _check_input_type(input: Tensor, weight: Tensor) -> None:  # noqa: A002
    if input._dtype is weight._dtype:
        return
    if input._dtype is _dt.float32:  # the mkldnn path's check
        raise RuntimeError(f"Input type (torch.{_LEGACY_NAMES.get(input._dtype.name)}) and weight type "
                           f"(torch.{_LEGACY_NAMES.get(weight._dtype.name)}) should be the same or input should be "
                           "a MKLDNN tensor and weight is a dense tensor")
    from .meta_utils import scalar_type_name

    raise RuntimeError(f"expected scalar type {scalar_type_name(input._dtype)} but found "
                       f"{scalar_type_name(weight._dtype)}")


def _data(t: Tensor, np_dtype: Any) -> np.ndarray:
    return t._data.astype(np_dtype, copy=False)


@impl("convolution", "CompositeExplicitAutograd")
def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: list[int],  # noqa: A002
                padding: list[int], dilation: list[int], transposed: bool, output_padding: list[int],
                groups: int) -> Tensor:
    p = ConvParams(input, weight, None if bias is None else list(bias._shape), stride, padding, dilation, transposed,
                   output_padding, groups)
    _check_input_type(input, weight)
    out_channels = weight._shape[1] * p.groups if p.transposed else weight._shape[0]
    shape = (input._shape[0], out_channels, *p.out_spatial)
    meta = TensorMeta(shape, contiguous_strides(shape), input._dtype)
    if is_meta(input):
        return materialize(meta, None, input)

    def compute() -> np.ndarray:
        ct = compute_dtype(input._dtype)
        x, w = _data(input, ct), _data(weight, ct)
        if p.transposed:
            out = conv_transposed(x, w, p.stride, p.padding, p.dilation, p.groups, p.out_spatial)
        else:
            out = conv_forward(x, w, p.stride, p.padding, p.padding, p.dilation, p.groups, p.out_spatial)
        if bias is not None:
            out += _data(bias, ct).reshape(1, -1, *([1] * p.dim))
        return out

    return materialize(meta, compute, input)


def _uses_mkldnn(input: Tensor, weight: Tensor, groups: int) -> bool:  # noqa: A002
    """ConvUtils.h's ``use_mkldnn`` heuristic for float32 CPU tensors (1-d seen as 2-d with a height of 1; more than
    one thread assumed): grouped, a kernel wider and higher than 3, a batch above 1, or a large input."""
    if input._dtype is not _dt.float32:
        return False
    shape = list(input._shape) if input.dim() > 3 else [*input._shape[:2], 1, *input._shape[2:]]
    kernel = list(weight._shape[2:]) if weight.dim() > 3 else [1, *weight._shape[2:]]
    return (groups > 1 or (kernel[-1] > 3 and kernel[-2] > 3) or shape[0] > 1
            or shape[0] * shape[1] * shape[2] * shape[3] > 20480)


@impl("convolution_backward", "CompositeExplicitAutograd")
@quiet_fp
def convolution_backward(grad_output: Tensor, input: Tensor, weight: Tensor,  # noqa: A002
                         bias_sizes: list[int] | None, stride: list[int], padding: list[int], dilation: list[int],
                         transposed: bool, output_padding: list[int], groups: int,
                         output_mask: Sequence[bool]) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    p = ConvParams(input, weight, None, stride, padding, dilation, transposed, output_padding, groups)
    weight_shape = tuple(weight._shape)
    if _uses_mkldnn(input, weight, p.groups) and output_mask[2] and not output_mask[1]:
        # PyTorch's mkldnn path computes the weight's gradient with the bias's; a 1-d one keeps the height of 1 its
        # 2-d computation added
        output_mask = [output_mask[0], True, True]
        if p.dim == 1:
            weight_shape = (weight_shape[0], weight_shape[1], 1, weight_shape[2])
    out_channels = weight._shape[1] * p.groups if p.transposed else weight._shape[0]
    want = (input._shape[0], out_channels, *p.out_spatial)
    if tuple(grad_output._shape) != want:
        raise RuntimeError(f"Expected grad_output of size {_list(want)}, but got {_sizes(grad_output)}")
    metas = (
        TensorMeta(input._shape, contiguous_strides(input._shape), input._dtype) if output_mask[0] else None,
        TensorMeta(weight_shape, contiguous_strides(weight_shape), weight._dtype) if output_mask[1] else None,
        TensorMeta((out_channels,), (1,), grad_output._dtype) if output_mask[2] else None,
    )
    if is_meta(input):
        return tuple(None if m is None else materialize(m, None, input) for m in metas)  # type: ignore[return-value]
    if not p.transposed and not input._dtype.is_floating_point and (output_mask[0] or output_mask[1]):
        # the slow (im2col) CPU kernels an integer input reaches have no integer case
        kernel = f"slow_conv{3 if p.dim == 3 else 2}d_cpu_grad_{'input' if output_mask[0] else 'weight'}"
        raise not_implemented(kernel, input._dtype)
    ct = compute_dtype(input._dtype)
    go, x, w = _data(grad_output, ct), _data(input, ct), _data(weight, ct)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        spatial = tuple(input._shape[2:])
        if p.transposed:  # the gradient of a transposed convolution is the convolution
            gi = conv_forward(go, w, p.stride, p.padding, p.padding, p.dilation, p.groups, spatial)
        else:
            gi = conv_transposed(go, w, p.stride, p.padding, p.dilation, p.groups, spatial)
        grad_input = materialize(metas[0], gi, input)
    if output_mask[1]:
        if p.transposed:  # the roles of input and output swap
            gw = conv_weight_grad(go, x, p.kernel, p.stride, p.padding, p.dilation, p.groups)
        else:
            gw = conv_weight_grad(x, go, p.kernel, p.stride, p.padding, p.dilation, p.groups)
        grad_weight = materialize(metas[1], gw.reshape(weight_shape), input)
    if output_mask[2]:
        axes = (0, *range(2, go.ndim))
        grad_bias = materialize(metas[2], go.sum(axis=axes) if go.size else np.zeros(out_channels, ct), input)
    return grad_input, grad_weight, grad_bias
