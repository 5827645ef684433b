"""Which CPU kernels refuse the barebones unsigned dtypes (uint16 / uint32 / uint64), and the error they raise.

Corresponds to the ``AT_DISPATCH`` switches of PyTorch 2.13's CPU kernels: most of them list the "standard" types
only (``AT_DISPATCH_ALL_TYPES_AND...``), so a uint16 / uint32 / uint64 input reaches no case and the kernel raises
``NotImplementedError: "add_stub" not implemented for 'UInt64'``; a few kernels add the unsigned types
(``AT_BAREBONES_UNSIGNED_TYPES``: copy / fill / the factories, eq / ne, mul, bitwise and / or / xor, sort, cat,
where, sum / prod, ...) and are not listed here. ``UNSIGNED_KERNELS`` maps an op to the name its switch prints and
to how the switch's dtype is found (read off torch 2.13 by calling every listed op on such inputs):

* ``SELF``: the dtype of the first tensor argument (``neg``, ``max``, ``gather``, ``index_select``, ...);
* ``SAME``: the same, unless a floating / complex argument is present (the kernel's own dtype-agreement check
  comes first: ``addmm``, ``index_add``, the pooling backward kernels, ...);
* ``NUMBERS``: self's dtype unless a bound is a float (``clamp(x, 0.5)`` computes in float);
* ``DTYPE``: the ``dtype=`` argument (the factories, ``sum(dtype=)``);
* ``PROMOTE``: a TensorIterator op's common dtype (``result_type`` of the tensor and number arguments: mixing an
  unsigned type with another integral type fails promotion first, a float argument computes in float).

``gate(fn, name)`` wraps the CPU kernel of such an op (Meta tensors never reach the switch, as in PyTorch).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes as _dt
from ..tensor import Tensor
from .meta_utils import scalar_type_name

SELF, SAME, PROMOTE, NUMBERS, DTYPE = "self", "same", "promote", "numbers", "dtype"

def _convolution_kernel(args: tuple) -> str:
    """The CPU convolution torch picks for these arguments (its error names that kernel)."""
    x, dilation, transposed = args[0], args[5] if len(args) > 5 else (1,), args[6] if len(args) > 6 else False
    dims = x.dim() - 2
    if transposed:
        return "slow_conv_transpose3d_out_cpu" if dims == 3 else "slow_conv_transpose2d_out_cpu"
    if any(d != 1 for d in dilation):
        return "slow_conv_dilated<>"
    return "compute_columns3d" if dims == 3 else "slow_conv2d_cpu"


CONVOLUTION = _convolution_kernel


def FLIP(args: tuple) -> str | None:  # noqa: N802 - a kernel-name entry of the table
    """flip copies whole rows (any dtype) when the last dim is kept and self is contiguous; else its switch runs."""
    x, dims = args[0], args[1] if len(args) > 1 else ()
    last = x.dim() - 1
    keeps_rows = x.is_contiguous() and all((d % x.dim() if x.dim() else d) != last for d in dims)
    return None if keeps_rows and x.dim() > 1 else "flip_cpu"


def INDEX_SELECT(args: tuple) -> str | None:  # noqa: N802 - a kernel-name entry of the table
    """index_select copies slices (any dtype) of a tensor of 2 or more dims; a 1-dim one runs the switch."""
    return "index_select" if args[0].dim() <= 1 else None


def CLAMP_SCALAR(args: tuple) -> str:  # noqa: N802 - a kernel-name entry of the table
    """clamp with Scalar bounds: clamp_scalar_cpu, or the one-bound kernels."""
    lo, hi = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else None)
    return ("clamp_scalar_cpu" if lo is not None and hi is not None else "clamp_min_scalar_cpu" if lo is not None
            else "clamp_max_scalar_cpu")


def CLAMP(args: tuple) -> str:  # noqa: N802 - a kernel-name entry of the table, like the strings
    """clamp.Tensor with one bound runs maximum / minimum's kernel."""
    lo, hi = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else None)
    return "clamp_cpu" if lo is not None and hi is not None else "maximum_cpu" if lo is not None else "minimum_cpu"


#: op -> (the kernel name torch's error prints, how the switch's dtype is found)
UNSIGNED_KERNELS: dict[str, tuple[Any, str]] = {
    "__ilshift__.Scalar": ("lshift_cpu", PROMOTE),
    "__irshift__.Scalar": ("rshift_cpu", SELF),
    "__lshift__.Scalar": ("lshift_cpu", PROMOTE),
    "__rshift__.Scalar": ("rshift_cpu", PROMOTE),
    "_adaptive_avg_pool2d": ("adaptive_avg_pool2d", SELF),
    "_adaptive_avg_pool2d_backward": ("adaptive_avg_pool2d_backward", SAME),
    "_adaptive_avg_pool3d": ("adaptive_avg_pool3d_cpu", SELF),
    "_adaptive_avg_pool3d_backward": ("adaptive_avg_pool3d_backward_cpu", SAME),
    "_embedding_bag_per_sample_weights_backward": ("_embedding_bag_per_sample_weights_backward_cpu", SELF),
    "_foreach_add.List": ("add_stub", SAME),
    "_foreach_add.Tensor": ("add_stub", SAME),
    "_foreach_add_.List": ("add_stub", SAME),
    "_foreach_add_.Tensor": ("add_stub", SAME),
    "_foreach_addcmul.Scalar": ("addcmul_cpu_out", SAME),
    "_foreach_addcmul_.Scalar": ("addcmul_cpu_out", SAME),
    "_foreach_lerp.Scalar": ("lerp_kernel_scalar", SAME),
    "_foreach_lerp_.Scalar": ("lerp_kernel_scalar", SAME),
    "_foreach_maximum.List": ("maximum_cpu", SAME),
    "_foreach_maximum_.List": ("maximum_cpu", SAME),
    "_foreach_neg": ("neg_cpu", SELF),
    "_foreach_neg_": ("neg_cpu", SELF),
    "_index_put_impl_": ("index_put", SAME),
    "_log_softmax": ("log_softmax_lastdim_kernel_impl", SELF),
    "_log_softmax_backward_data": ("log_softmax_backward_lastdim_kernel_impl", SELF),
    "_safe_softmax": ("softmax_lastdim_kernel_impl", SELF),
    "_scaled_dot_product_flash_attention_for_cpu_backward": ("flash_attention_backward", SAME),
    "_softmax": ("softmax_lastdim_kernel_impl", SELF),
    "_softmax_backward_data": ("softmax_backward_lastdim_kernel_impl", SELF),
    "_trilinear": ("bmm", SELF),
    "_upsample_nearest_exact1d": ("compute_indices_weights_nearest", SELF),
    "_upsample_nearest_exact1d_backward": ("_upsample_nearest_exact1d_backward", SELF),
    "_upsample_nearest_exact2d": ("upsample_nearest2d_channels_last", SELF),
    "_upsample_nearest_exact2d_backward": ("_upsample_nearest_exact2d_backward", SELF),
    "_upsample_nearest_exact3d": ("compute_indices_weights_nearest", SELF),
    "_upsample_nearest_exact3d_backward": ("_upsample_nearest_exact3d_backward", SELF),
    "_weight_norm_interface": ("weight_norm_kernel", SELF),
    "_weight_norm_interface_backward": ("weight_norm_backward_kernel", SAME),
    "abs": ("abs_cpu", PROMOTE),
    "abs_": ("abs_cpu", SELF),
    "adaptive_max_pool2d": ("adaptive_max_pool2d", SELF),
    "adaptive_max_pool2d_backward": ("adaptive_max_pool2d_backward", SAME),
    "adaptive_max_pool3d": ("adaptive_max_pool3d_cpu", SELF),
    "adaptive_max_pool3d_backward": ("adaptive_max_pool3d_backward", SAME),
    "add.Scalar": ("add_stub", PROMOTE),
    "add.Tensor": ("add_stub", PROMOTE),
    "add_.Tensor": ("add_stub", PROMOTE),
    "addbmm": ("addmm_impl_cpu_", SAME),
    "addcmul": ("addcmul_cpu_out", PROMOTE),
    "addcmul_": ("addcmul_cpu_out", PROMOTE),
    "addmm": ("addmm_impl_cpu_", SAME),
    "addmv": ("addmv_impl_cpu", SAME),
    "addr": ("addr_cpu", SAME),
    "amax": ("max_values_cpu", SELF),
    "amin": ("min_values_cpu", SELF),
    "aminmax": ("aminmax_cpu", SELF),
    "argmax": ("argmax_cpu", SELF),
    "argmin": ("argmin_cpu", SELF),
    "avg_pool2d": ("avg_pool2d", SELF),
    "avg_pool2d_backward": ("avg_pool2d_backward", SAME),
    "avg_pool3d": ("avg_pool3d_out_frame", SELF),
    "avg_pool3d_backward": ("avg_pool3d_backward_out_frame", SAME),
    "baddbmm": ("baddbmm", SAME),
    "bernoulli_.float": ("bernoulli_scalar_cpu_", SELF),
    "binary_cross_entropy": ("binary_cross_entropy", SAME),
    "binary_cross_entropy_backward": ("binary_cross_entropy_backward", SAME),
    "binary_cross_entropy_with_logits": ("log_sigmoid_cpu", SELF),
    "bitwise_left_shift.Tensor_Scalar": ("lshift_cpu", PROMOTE),
    "bitwise_left_shift_.Tensor_Scalar": ("lshift_cpu", PROMOTE),
    "bitwise_not": ("bitwise_not_cpu", PROMOTE),
    "bitwise_not_": ("bitwise_not_cpu", PROMOTE),
    "bitwise_right_shift.Tensor_Scalar": ("rshift_cpu", PROMOTE),
    "bitwise_right_shift_.Tensor_Scalar": ("rshift_cpu", PROMOTE),
    "bmm": ("bmm", SELF),
    "celu": ("elu_cpu", PROMOTE),
    "celu_": ("elu_cpu", PROMOTE),
    "channel_shuffle": ("channel_shuffle", SELF),
    "clamp": (CLAMP_SCALAR, NUMBERS),
    "clamp_": (CLAMP_SCALAR, NUMBERS),
    "clamp_min": ("clamp_min_scalar_cpu", NUMBERS),
    "clamp_min_": ("clamp_min_scalar_cpu", NUMBERS),
    "clamp_max": ("clamp_max_scalar_cpu", NUMBERS),
    "clamp.Tensor": (CLAMP, PROMOTE),
    "clamp_.Tensor": (CLAMP, PROMOTE),
    "clamp_max.Tensor": ("minimum_cpu", PROMOTE),
    "clamp_min.Tensor": ("maximum_cpu", PROMOTE),
    "clamp_min_.Tensor": ("maximum_cpu", PROMOTE),
    "col2im": ("col2im_out_cpu", SELF),
    "convolution": (CONVOLUTION, SELF),
    "convolution_backward": ("slow_conv2d_cpu_grad_input", SAME),
    "div.Tensor_mode": ("div_floor_cpu", PROMOTE),
    "div_.Tensor_mode": ("div_floor_cpu", PROMOTE),
    "dot": ("dot", SAME),
    "elu": ("elu_cpu", PROMOTE),
    "elu_": ("elu_cpu", PROMOTE),
    "elu_backward": ("elu_backward_cpu", SAME),
    "embedding_dense_backward": ("add_stub", SELF),
    "floor_divide": ("div_floor_cpu", SAME),
    "floor_divide_.Tensor": ("div_floor_cpu", SAME),
    "fmod.Tensor": ("fmod_cpu", PROMOTE),
    "fmod_.Tensor": ("fmod_cpu", PROMOTE),
    "frac": ("frac_cpu", PROMOTE),
    "frac_": ("frac_cpu", PROMOTE),
    "gather": ("scatter_gather_tensor_cpu", SELF),
    "ge.Tensor": ("ge_cpu", PROMOTE),
    "ge.Scalar": ("ge_cpu", PROMOTE),
    "gelu": ("GeluKernelImpl", PROMOTE),
    "gelu_backward": ("GeluBackwardKernelImpl", PROMOTE),
    "glu": ("glu_cpu", SELF),
    "gt.Tensor": ("gt_cpu", PROMOTE),
    "gt.Scalar": ("gt_cpu", PROMOTE),
    "hardsigmoid": ("hardsigmoid_cpu", PROMOTE),
    "hardsigmoid_": ("hardsigmoid_cpu", PROMOTE),
    "hardsigmoid_backward": ("hardsigmoid_backward", SAME),
    "hardswish": ("hardswish_cpu", SELF),
    "hardswish_": ("hardswish_cpu", SELF),
    "hardswish_backward": ("hardswish_backward_cpu", SAME),
    "hardtanh": ("clamp_scalar_cpu", SELF),
    "hardtanh_": ("clamp_scalar_cpu", SELF),
    "hardtanh_backward": ("hardshrink_backward_cpu", SAME),
    "heaviside": ("heaviside_cpu", PROMOTE),
    "heaviside_": ("heaviside_cpu", SAME),
    "huber_loss": ("huber_cpu", SAME),
    "huber_loss_backward": ("huber_backward_cpu_out", SAME),
    "hypot": ("hypot_cpu", PROMOTE),
    "hypot_": ("hypot_cpu", PROMOTE),
    "im2col": ("im2col_out_cpu", SELF),
    "index_add": ("scatter_gather_tensor_cpu", SAME),
    "index_add_": ("scatter_gather_tensor_cpu", SAME),
    "index_copy": ("index_copy_cpu", SAME),
    "index_copy_": ("index_copy_cpu", SAME),
    "index_fill.int_Scalar": ("index_fill_cpu", SELF),
    "index_fill.int_Tensor": ("index_fill_cpu", SELF),
    "index_fill_.int_Scalar": ("index_fill_cpu", SELF),
    "index_fill_.int_Tensor": ("index_fill_cpu", SELF),
    "index_put": ("index_put", SAME),
    "index_put_": ("index_put", SAME),
    "le.Tensor": ("le_cpu", PROMOTE),
    "le.Scalar": ("le_cpu", PROMOTE),
    "leaky_relu": ("leaky_relu_cpu", PROMOTE),
    "leaky_relu_": ("leaky_relu_cpu", PROMOTE),
    "leaky_relu_backward": ("leaky_relu_backward_cpu", SAME),
    "lerp.Scalar": ("lerp_kernel_scalar", PROMOTE),
    "lerp.Tensor": ("lerp_kernel_tensor", PROMOTE),
    "lerp_.Scalar": ("lerp_kernel_scalar", PROMOTE),
    "lerp_.Tensor": ("lerp_kernel_tensor", PROMOTE),
    "log_sigmoid_backward": ("log_sigmoid_backward_cpu", SAME),
    "log_sigmoid_forward": ("log_sigmoid_cpu", SELF),
    "logaddexp": ("logaddexp_cpu", PROMOTE),
    "logical_and": ("logical_and_cpu", PROMOTE),
    "logical_and_": ("logical_and_cpu", PROMOTE),
    "logical_not": ("logical_not_cpu", PROMOTE),
    "logical_not_": ("logical_not_cpu", PROMOTE),
    "logical_or": ("logical_or_cpu", PROMOTE),
    "logical_or_": ("logical_or_cpu", PROMOTE),
    "logical_xor": ("logical_xor_cpu", PROMOTE),
    "logical_xor_": ("logical_xor_cpu", PROMOTE),
    "logit_backward": ("logit_backward_cpu", PROMOTE),
    "lt.Tensor": ("lt_cpu", PROMOTE),
    "lt.Scalar": ("lt_cpu", PROMOTE),
    "masked_fill.Scalar": ("masked_fill", SELF),
    "masked_fill.Tensor": ("masked_fill", SELF),
    "masked_fill_.Scalar": ("masked_fill", SELF),
    "masked_fill_.Tensor": ("masked_fill", SELF),
    "masked_scatter": ("masked_scatter", SAME),
    "masked_scatter_": ("masked_scatter", SAME),
    "masked_scatter_backward": ("masked_select", SELF),
    "masked_select": ("masked_select", SELF),
    "max": ("max_all", SELF),
    "max.dim": ("max_cpu", SELF),
    "max_pool2d_with_indices": ("max_pool2d", SELF),
    "max_pool2d_with_indices_backward": ("max_pool2d_backward", SAME),
    "max_pool3d_with_indices": ("max_pool3d", SELF),
    "max_pool3d_with_indices_backward": ("max_pool3d_backward", SAME),
    "max_unpool2d": ("max_unpool2d", SELF),
    "maximum": ("maximum_cpu", PROMOTE),
    "maximum.out": ("maximum_cpu", PROMOTE),
    "min": ("min_all", SELF),
    "min.dim": ("min_cpu", SELF),
    "minimum": ("minimum_cpu", PROMOTE),
    "mish": ("mish_cpu", PROMOTE),
    "mish_": ("mish_cpu", SELF),
    "mish_backward": ("mish_backward_cpu", SAME),
    "mkldnn_rnn_layer": ("add_stub", SAME),
    "mm": ("addmm_impl_cpu_", SAME),
    "mse_loss": ("mse_cpu", SAME),
    "mse_loss_backward": ("mse_backward_cpu_out", SAME),
    "mv": ("addmv_impl_cpu", SAME),
    "native_batch_norm": ("batch_norm", SELF),
    "native_batch_norm_backward": ("batch_norm_backward_cpu", SAME),
    "native_channel_shuffle": ("channel_shuffle", SELF),
    "native_group_norm": ("GroupNormKernelImpl", SAME),
    "native_group_norm_backward": ("GroupNormBackwardKernelImpl", SAME),
    "native_layer_norm": ("LayerNormKernelImpl", SAME),
    "native_layer_norm_backward": ("LayerNormBackwardKernelImpl", SAME),
    "_conj_physical": ("conj_cpu", SELF),
    "neg": ("neg_cpu", PROMOTE),
    "neg_": ("neg_cpu", PROMOTE),
    "nll_loss2d_backward": ("nll_loss2d_backward_out_frame", SAME),
    "nll_loss2d_forward": ("nll_loss2d_forward_out_frame", SELF),
    "nll_loss_backward": ("nll_loss_backward_out_frame", SAME),
    "nll_loss_forward": ("nll_loss_out_frame", SELF),
    "nonzero": ("nonzero_count_cpu", SELF),
    "pixel_shuffle": ("pixel_shuffle", SELF),
    "pixel_unshuffle": ("pixel_unshuffle", SELF),
    "pow.Tensor_Scalar": ("pow", PROMOTE),
    "pow.Tensor_Tensor": ("pow", PROMOTE),
    "pow.Scalar": ("pow", PROMOTE),
    "flip": (FLIP, SELF),
    "index_select": (INDEX_SELECT, SELF),
    "arange": ("arange_cpu", DTYPE),
    "arange.start": ("arange_cpu", DTYPE),
    "arange.start_step": ("arange_cpu", DTYPE),
    "eye": ("eye", DTYPE),
    "eye.m": ("eye", DTYPE),
    "sum.dim_IntList": ("sum_cpu", DTYPE),
    "rsub.Scalar": ("add_stub", PROMOTE),
    "fmod.Scalar": ("fmod_cpu", PROMOTE),
    "fmod_.Scalar": ("fmod_cpu", PROMOTE),
    "remainder.Scalar": ("remainder_cpu", PROMOTE),
    "remainder_.Scalar": ("remainder_cpu", PROMOTE),
    "add_.Scalar": ("add_stub", PROMOTE),
    "sub_.Scalar": ("add_stub", PROMOTE),
    "pow_.Scalar": ("pow", PROMOTE),
    "reflection_pad1d": ("reflection_pad1d", SELF),
    "reflection_pad1d_backward": ("reflection_pad1d_backward", SELF),
    "reflection_pad2d": ("reflection_pad2d", SELF),
    "reflection_pad2d_backward": ("reflection_pad2d_backward", SELF),
    "reflection_pad3d": ("reflection_pad3d", SELF),
    "reflection_pad3d_backward": ("reflection_pad3d_backward", SELF),
    "relu": ("clamp_min_scalar_cpu", PROMOTE),
    "relu_": ("clamp_min_scalar_cpu", PROMOTE),
    "remainder.Scalar_Tensor": ("remainder_cpu", PROMOTE),
    "remainder.Tensor": ("remainder_cpu", PROMOTE),
    "remainder_.Tensor": ("remainder_cpu", PROMOTE),
    "replication_pad1d": ("replication_pad1d", SELF),
    "replication_pad1d_backward": ("replication_pad1d_backward", SELF),
    "replication_pad2d": ("replication_pad2d", SELF),
    "replication_pad2d_backward": ("replication_pad2d_backward", SELF),
    "replication_pad3d": ("replication_pad3d", SELF),
    "replication_pad3d_backward": ("replication_pad3d_backward", SELF),
    "round.decimals": ("round_cpu", PROMOTE),
    "rsub.Tensor": ("add_stub", SAME),
    "scatter.src": ("scatter_gather_tensor_cpu", SAME),
    "scatter.value": ("scatter_gather_scalar_cpu", SELF),
    "scatter_.src": ("scatter_gather_tensor_cpu", SAME),
    "scatter_.value": ("scatter_gather_scalar_cpu", SELF),
    "scatter_add": ("scatter_gather_tensor_cpu", SAME),
    "scatter_add_": ("scatter_gather_tensor_cpu", SAME),
    "sgn": ("sign_cpu", PROMOTE),
    "sigmoid_backward": ("sigmoid_backward_cpu", PROMOTE),
    "sign": ("sign_cpu", PROMOTE),
    "silu": ("silu_cpu", PROMOTE),
    "silu_backward": ("silu_backward_cpu", PROMOTE),
    "smooth_l1_loss": ("smooth_l1_cpu", SAME),
    "smooth_l1_loss_backward": ("smooth_l1_backward_cpu_out", SAME),
    "soft_margin_loss": ("neg_cpu", SELF),
    "soft_margin_loss_backward": ("neg_cpu", SAME),
    "softplus": ("softplus_cpu", PROMOTE),
    "softplus_backward": ("softplus_backward_cpu", SAME),
    "sub.Scalar": ("add_stub", PROMOTE),
    "sub.Tensor": ("add_stub", PROMOTE),
    "sub_.Tensor": ("add_stub", PROMOTE),
    "tanh_backward": ("tanh_backward_cpu", PROMOTE),
    "threshold": ("threshold_cpu", SELF),
    "threshold_": ("threshold_cpu", SELF),
    "threshold_backward": ("threshold_cpu", PROMOTE),
    "topk": ("topk_cpu", SELF),
    "trace": ("trace", SELF),
    "tril": ("tril", SELF),
    "triu": ("triu", SELF),
    "upsample_bicubic2d": ("compute_indices_weights_cubic", SELF),
    "upsample_bicubic2d_backward": ("upsample_bicubic2d_backward", SELF),
    "upsample_bilinear2d": ("upsample_bilinear2d_channels_last", SELF),
    "upsample_bilinear2d_backward": ("upsample_bilinear2d_backward", SELF),
    "upsample_linear1d": ("compute_indices_weights_linear", SELF),
    "upsample_linear1d_backward": ("upsample_linear1d_backward", SELF),
    "upsample_nearest1d": ("compute_indices_weights_nearest", SELF),
    "upsample_nearest1d_backward": ("upsample_nearest1d_backward", SELF),
    "upsample_nearest2d": ("upsample_nearest2d_channels_last", SELF),
    "upsample_nearest2d_backward": ("upsample_nearest2d_backward", SELF),
    "upsample_nearest3d": ("compute_indices_weights_nearest", SELF),
    "upsample_nearest3d_backward": ("upsample_nearest3d_backward", SELF),
    "upsample_trilinear3d": ("compute_indices_weights_linear", SELF),
    "upsample_trilinear3d_backward": ("upsample_trilinear3d_backward", SELF),
    "vdot": ("dot", SAME),
}


def _first_tensor(args: tuple) -> Tensor | None:
    for a in args:
        if isinstance(a, Tensor):
            return a
        if isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
            return a[0]
    return None



def _has_float(args: tuple, numbers: bool) -> bool:
    """A floating / complex tensor among ``args`` (or a float / complex number in the first two, ``numbers``)."""
    for i, a in enumerate(args):
        d = getattr(a, "_dtype", None)
        if d is not None:
            if d.is_floating_point or d.is_complex:
                return True
        elif numbers and i < 2 and isinstance(a, (float, complex)):
            return True
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
            if any(t._dtype.is_floating_point or t._dtype.is_complex for t in a if isinstance(t, Tensor)):
                return True
    return False


def switch_dtype(args: tuple, kwargs: dict, mode: str) -> _dt.dtype | None:
    """The dtype the op's CPU switch sees when it is a barebones unsigned one (else None)."""
    if mode == DTYPE:
        d = kwargs.get("dtype")
        if isinstance(d, _dt.dtype) and _dt.is_barebones_unsigned(d) and str(kwargs.get("device", "cpu")) == "cpu":
            return d
        return None
    first = _first_tensor(args)
    if first is None or first._data is None:
        return None
    if mode == SELF:
        return first._dtype if _dt.is_barebones_unsigned(first._dtype) else None
    if mode == NUMBERS:
        floats = any(isinstance(a, (float, complex)) for a in args)
        return first._dtype if _dt.is_barebones_unsigned(first._dtype) and not floats else None
    if _has_float(args, mode == PROMOTE):
        return None
    if mode == SAME:
        return first._dtype if _dt.is_barebones_unsigned(first._dtype) else None
    # TensorIterator's operands: the tensors, and a number in the "other" slot (a wrapped number)
    operands = [a for i, a in enumerate(args) if isinstance(a, Tensor) or (i < 2 and type(a) in (int, bool))]
    if not any(isinstance(a, Tensor) and _dt.is_barebones_unsigned(a._dtype) for a in operands):
        return None
    common = _dt.result_type(*operands)  # mixing with another integral type: the promotion error
    return common if _dt.is_barebones_unsigned(common) else None


def gate(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` (a CPU kernel of ``name``) raising torch's NotImplementedError for a barebones unsigned dtype."""
    kernel, mode = UNSIGNED_KERNELS[name]

    promote, dtype_mode = mode == PROMOTE, mode == DTYPE

    def gated(*args: Any, **kwargs: Any) -> Any:
        a = args[0] if args else None
        if dtype_mode:
            hit = "dtype" in kwargs
        elif isinstance(a, Tensor):  # the common case, cheaply: no unsigned tensor among the first two arguments
            hit = a._dtype._rank > 10 or (promote and len(args) > 1 and isinstance(args[1], Tensor)
                                          and args[1]._dtype._rank > 10)
        else:
            hit = True
        d = switch_dtype(args, kwargs, mode) if hit else None
        if d is not None:
            name = kernel(args) if callable(kernel) else kernel
            if name is None:  # this call takes a path without the dtype switch
                return fn(*args, **kwargs)
            raise NotImplementedError(f'"{name}" not implemented for \'{scalar_type_name(d)}\'')
        return fn(*args, **kwargs)

    gated.__name__ = getattr(fn, "__name__", name)
    gated.__qualname__ = getattr(fn, "__qualname__", name)
    gated.__module__ = getattr(fn, "__module__", __name__)
    gated.__doc__ = fn.__doc__
    gated.__wrapped__ = fn  # type: ignore[attr-defined]
    return gated
