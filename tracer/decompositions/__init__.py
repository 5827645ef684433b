"""Decomposition tables for ``make_fx(decomposition_table=...)``: the public API, and the decompositions by op family.

Corresponds to torch/_decomp/__init__.py (this file) and torch/_decomp/decompositions.py + the torch/_refs
functions PyTorch 2.13's tables use (the family modules). ``register_decomposition`` adds a decomposition to a
table (the global one by default); ``get_decompositions([ops])`` picks entries of the global table (a packet
stands for its overloads that have one); ``core_aten_decompositions()`` is a fresh dict with every entry PyTorch
2.13's ``torch._decomp.core_aten_decompositions()`` has for an op of our listing, so a post-dispatch trace lowers
to the same core-aten graph PyTorch's does::

    from tracer import make_fx
    from tracer.decompositions import core_aten_decompositions
    gm = make_fx(f, decomposition_table=core_aten_decompositions())(x)

Functional CompositeImplicitAutograd ops (``linear``, ``softmax.int``, ``layer_norm``, ...) map to the op's
own CIA decomposition, as in PyTorch's table (``op.decompose``): they only reach a post-dispatch tracing
mode when autograd was skipped (``inference_mode``), or with ``pre_dispatch=True`` or ``preserve=``.

The ops of PyTorch's table that our listing has, but whose decomposition needs an op we do not
define, are listed in ``MISSING_CORE_DECOMPOSITIONS`` with the op they need.

The package: one module per op family holding the decompositions of that family's ops (``arithmetic``,
``transcendental``, ``comparison``, ``reductions``, ``views``, ``shape``, ``indexing``, ``factories``,
``conversions``, ``random``, ``linalg``, ``activations``, ``normalization``, ``losses``, ``attention``,
``embedding``, ``dropout``, ``recurrent``; importing them registers their decompositions), and the shared machinery:
``registry`` (``register_decomposition``, the global table), ``type_promotion`` (the computation dtype,
``pw_cast_for_opmath`` and the references' promotion wrappers), ``inplace`` (in-place forms as the out-of-place
decomposition + ``copy_``), ``dims`` (dim wrapping) and ``preserve`` (``make_fx(..., preserve=[ops])``).
Decompositions run under the tracing mode, so an op they call that is itself in the table (``sum.default`` inside
``dot``) is decomposed again, exactly as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from dispatcher.keys import DispatchKey
from dispatcher.op_overload import OpOverload, namespace
from dispatcher.ops.native_functions import NATIVE_FUNCTIONS

from . import (  # noqa: F401 - importing them registers their decompositions
    activations,
    arithmetic,
    attention,
    comparison,
    conversions,
    convolution,
    dropout,
    embedding,
    factories,
    indexing,
    linalg,
    losses,
    normalization,
    pooling,
    random,
    recurrent,
    reductions,
    resizing,
    shape,
    shape_padding,
    transcendental,
    views,
)
from .registry import global_decomposition_table, register_decomposition, table_for

__all__ = [
    "CORE_ATEN_DECOMPOSITION_OPS",
    "MISSING_CORE_DECOMPOSITIONS",
    "core_aten_decompositions",
    "get_decompositions",
    "global_decomposition_table",
    "is_preservable_cia_op",
    "register_decomposition",
]

aten = namespace("aten")


_CIA_DECOMPOSITIONS: dict[OpOverload, Callable[..., Any]] = {}


def _cia_decomposition(op: OpOverload) -> Callable[..., Any]:
    """Run ``op``'s CompositeImplicitAutograd kernel (PyTorch's table does the same with ``op.decompose``)."""
    fn = _CIA_DECOMPOSITIONS.get(op)
    if fn is None:
        fn = _CIA_DECOMPOSITIONS[op] = _make_cia_decomposition(op)
    return fn


def _make_cia_decomposition(op: OpOverload) -> Callable[..., Any]:
    def decompose(*args: Any, **kwargs: Any) -> Any:
        return op.decompose(*args, **kwargs)

    decompose.__name__ = decompose.__qualname__ = f"decompose_{op.name().split('::')[1].replace('.', '_')}"
    return decompose


def is_preservable_cia_op(op: OpOverload) -> bool:
    """A functional CompositeImplicitAutograd op: PyTorch's core table maps every such op to its CIA decomposition.

    The rule of torch/_export/utils.py ``_check_valid_to_preserve``: a CIA kernel, no argument aliased or written
    (``Tensor(a)``), not tagged ``maybe_aliasing_or_mutating`` (``dropout``), and not one of FunctionalTensor's
    ``metadata_fns`` (``dim``, ``numel``, ``is_contiguous``, ...: ``_METADATA_FNS``). Aliasing CIA ops (``reshape``,
    ``flatten``, ``to``, ``contiguous``, ...) are left out: they always decompose.
    """
    cia = DispatchKey.CompositeImplicitAutograd
    if op in _METADATA_FNS:
        return False
    if not (op.kernels.get(cia) or cia in op.py_kernels) or op._schema is None:
        return False
    if op._schema.is_mutable or any(a.alias_info is not None for a in op._schema.arguments):
        return False
    return "maybe_aliasing_or_mutating" not in op.tags and "maybe_aliasing_or_mutating" not in op._table_tags


def _aten_overloads(names: Iterable[str]) -> frozenset[OpOverload]:
    out = []
    for name in names:
        packet, overload = name.split(".")
        op = getattr(aten, packet, None)
        if op is not None and overload in op.overloads():
            out.append(getattr(op, overload))
    return frozenset(out)


#: torch/_subclasses/functional_tensor.py ``FunctionalTensor.metadata_fns``: never preservable (the ``aten`` ones;
#: ``prim::device`` is not an aten op)
_METADATA_FNS: frozenset[OpOverload] = _aten_overloads((
    "is_contiguous.default", "is_contiguous.memory_format", "is_strides_like_format.default",
    "is_non_overlapping_and_dense.default", "size.default", "sym_size.default", "stride.default",
    "sym_stride.default", "storage_offset.default", "sym_storage_offset.default", "numel.default",
    "sym_numel.default", "dim.default"))

#: torch/export/decomp_utils.py ``PRESERVED_ATEN_CIA_OPS``: CIA ops the core table leaves alone (unless
#: ``_core_aten_decompositions_post_autograd`` has them, as ``mish_backward`` / ``silu_backward``)
PRESERVED_ATEN_CIA_OPS: frozenset[OpOverload] = _aten_overloads((
    "upsample_bilinear2d.vec", "upsample_nearest2d.vec", "mish_backward.default", "silu_backward.default",
    "_fused_rms_norm.default"))


def _listed_aten_ops() -> list[OpOverload]:
    out = []
    for d in NATIVE_FUNCTIONS:
        name = d.name if "." in d.name else d.name + ".default"
        out.append(_overload(name))
    return out


def _overload(name: str) -> OpOverload:
    packet, overload = name.split(".")
    return getattr(getattr(aten, packet), overload)


#: the non-CIA ops of our listing whose decomposition PyTorch 2.13's core_aten_decompositions() holds (by family)
CORE_ATEN_DECOMPOSITION_OPS: tuple[OpOverload, ...] = tuple(_overload(n) for n in (
    # arithmetic
    "clamp_max.default", "clamp_min.default", "rsub.Scalar", "sgn.default", "addcmul.default", "addcdiv.default",
    "addcmul_.default", "addcdiv_.default",
    "clamp_min.Tensor", "clamp_max.Tensor", "lerp.Scalar", "lerp.Tensor", "lerp_.Scalar", "lerp_.Tensor",
    "floor_divide.default", "floor_divide.Scalar", "frac.default", "frac_.default", "nan_to_num.default",
    "nan_to_num_.default", "rsub.Tensor",
    # transcendental
    "sigmoid_backward.default", "tanh_backward.default", "logaddexp.default", "logit.default", "logit_.default",
    "logit_backward.default", "xlogy.Tensor", "xlogy_.Tensor",
    # comparison
    "heaviside.default", "heaviside_.default",
    # reductions
    "sum.default", "std.correction", "std_mean.correction", "logsumexp.default", "all.default", "all.dim", "all.dims",
    "nansum.default", "aminmax.default",
    # views
    "_unsafe_view.default", "detach.default", "select_backward.default", "slice_backward.default", "split.Tensor",
    "squeeze.default", "squeeze.dim", "t.default", "transpose.int", "unbind.int", "diagonal_backward.default",
    "diagonal_copy.default", "unsafe_split.Tensor",
    # shape
    "stack.default", "tril.default", "triu.default", "roll.default", "diag_embed.default",
    # indexing
    "index_add.default", "index_add_.default", "masked_fill.Scalar", "masked_fill.Tensor", "masked_fill_.Scalar",
    "masked_fill_.Tensor", "index_copy.default", "index_copy_.default", "index_fill.int_Scalar",
    "index_fill.int_Tensor", "index_fill_.int_Scalar", "index_fill_.int_Tensor",
    # factories
    "arange.default", "arange.start", "empty_like.default", "eye.default", "eye.m", "new_empty.default",
    "new_full.default", "new_ones.default", "new_zeros.default", "ones.default", "ones_like.default", "zeros.default",
    "zeros_like.default",
    # conversions
    "fill_.Scalar", "fill_.Tensor", "zero_.default",
    # random
    "bernoulli.default",
    # linalg
    "baddbmm.default", "dot.default", "mv.default", "vdot.default", "addr.default", "trace.default",
    # activations
    "_log_softmax_backward_data.default", "_softmax_backward_data.default", "gelu_backward.default", "silu.default",
    "silu_backward.default", "threshold_backward.default", "leaky_relu_backward.default", "hardtanh_backward.default",
    "elu_backward.default", "softplus.default", "softplus_backward.default", "hardswish.default",
    "hardswish_backward.default", "leaky_relu_.default", "hardtanh_.default", "hardswish_.default", "elu_.default",
    "log_sigmoid_forward.default", "log_sigmoid_backward.default", "mish.default", "mish_.default",
    "mish_backward.default", "celu.default", "celu_.default", "hardsigmoid.default", "hardsigmoid_.default",
    "hardsigmoid_backward.default", "glu.default", "glu_backward.default", "threshold.default", "threshold_.default",
    # normalization
    "native_layer_norm_backward.default", "native_batch_norm_backward.default",
    "native_group_norm_backward.default", "_weight_norm_interface.default",
    # losses
    "mse_loss.default", "mse_loss_backward.default", "nll_loss2d_backward.default", "nll_loss2d_forward.default",
    "nll_loss_backward.default", "nll_loss_forward.default", "smooth_l1_loss.default",
    "smooth_l1_loss_backward.default", "binary_cross_entropy.default", "binary_cross_entropy_backward.default",
    "binary_cross_entropy_with_logits.default", "huber_loss.default", "huber_loss_backward.default",
    "soft_margin_loss.default", "soft_margin_loss_backward.default",
    # attention
    "_scaled_dot_product_flash_attention_for_cpu.default", "_safe_softmax.default",
    # embedding
    "embedding_dense_backward.default",
    # dropout
    "native_dropout_backward.default",
    # issue 19: convolution (unfold / fold), shape (padding modes)
    "im2col.default", "col2im.default", "reflection_pad1d.default", "reflection_pad2d.default",
    "reflection_pad3d.default", "replication_pad1d.default", "replication_pad2d.default", "replication_pad3d.default"))
CORE_ATEN_DECOMPOSITION_OPS += (_overload("channel_shuffle.default"),  # shape (issue 19)
                                _overload("native_channel_shuffle.default"))

# issue 19: pooling and resizing ops of PyTorch's core table
CORE_ATEN_DECOMPOSITION_OPS += tuple(_overload(n) for n in (
    "max_unpool2d.default",
    "upsample_nearest1d.default", "upsample_nearest2d.default", "upsample_nearest3d.default",
    "_upsample_nearest_exact1d.default", "_upsample_nearest_exact2d.default", "_upsample_nearest_exact3d.default",
    "upsample_linear1d.default", "pixel_shuffle.default", "pixel_unshuffle.default",
))
CORE_ATEN_DECOMPOSITION_OPS += (_overload("norm.Scalar"), _overload("norm.ScalarOpt_dim"))  # reductions (torch._refs.norm)

#: ops in PyTorch's core table whose decomposition calls an op our listing lacks: op -> the missing op
MISSING_CORE_DECOMPOSITIONS: dict[str, str] = {
    # transcendental: PyTorch wraps the number with prims.scalar_tensor (no prims ops here)
    "aten::xlogy.Scalar_Self": "prims::scalar_tensor", "aten::xlogy.Scalar_Other": "prims::scalar_tensor",
    "aten::xlogy_.Scalar_Other": "prims::scalar_tensor",
    # shape: torch's _reflection_pad_backward gathers with _unsafe_masked_index
    "aten::reflection_pad1d_backward": "aten::_unsafe_masked_index",
    "aten::reflection_pad2d_backward": "aten::_unsafe_masked_index",
    "aten::reflection_pad3d_backward": "aten::_unsafe_masked_index",
}


def get_decompositions(aten_ops: Iterable[Any]) -> dict[OpOverload, Callable[..., Any]]:
    """The global table's entries for ``aten_ops`` (OpOverloads; a packet stands for its overloads that have one)."""
    return table_for(aten_ops, global_decomposition_table)


def core_aten_decompositions() -> dict[OpOverload, Callable[..., Any]]:
    """A fresh table lowering to core aten, as ``torch._decomp.core_aten_decompositions()`` does.

    The decompositions of ``CORE_ATEN_DECOMPOSITION_OPS``, plus every functional CIA op of the listing
    (``is_preservable_cia_op``) but ``PRESERVED_ATEN_CIA_OPS``, mapped to its global-table entry if it has one, else
    to its CIA kernel.
    """
    table = get_decompositions(CORE_ATEN_DECOMPOSITION_OPS)
    for op in _listed_aten_ops():
        if is_preservable_cia_op(op) and op not in PRESERVED_ATEN_CIA_OPS and op not in table:
            table[op] = global_decomposition_table.get(op) or _cia_decomposition(op)
    return table


def _check_complete() -> None:
    missing = [str(op) for op in CORE_ATEN_DECOMPOSITION_OPS if op not in global_decomposition_table]
    if missing:
        raise AssertionError(f"core_aten_decompositions lists ops without a decomposition: {missing}")


_check_complete()
del _check_complete
