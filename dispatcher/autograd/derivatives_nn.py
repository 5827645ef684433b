"""Derivative formulas for nn ops, views, shape ops, cat/stack/split, indexing and copies.

Corresponds to the entries of tools/autograd/derivatives.yaml for these ops and the
helpers of torch/csrc/autograd/FunctionsManual.cpp they call (``cat_tensors_backward``,
``unsqueeze_to``, ``as_strided_backward``, ``split_with_sizes_backward``,
``index_backward``, ``layer_norm_double_backward``, ...). Same conventions as
derivatives.py: every formula is written with aten ops, and calls the ops PyTorch's
formula calls, in the same order, with the same arguments. Where the C++ calls a
CompositeImplicitAutograd helper that is not in the listing (``narrow``, ``type_as``), the formula calls what that
helper decomposes to.

Some C++ helpers take a different path when a tensor is "subclass-like", which
includes any call made while a dispatch mode is active (``at::isTensorSubclassLike``):
``index_backward`` ``index_put`` instead of ``_index_put_impl_``. The formulas
here ask the same question (``decompositions.is_tensor_subclass_like``).

What a formula reads of an input is saved as PyTorch saves it: the tensor itself
(``save_inputs``, version-checked) only where the C++ formula reads its values,
its geometry (``save_meta``: sizes, strides, offset, dtype, device) where it
reads only ``self.sym_sizes()`` / ``self.options()`` / ``TensorGeometry(self)``.
"""

from __future__ import annotations

from typing import Any

from ..memory_format import strided
from ..op_overload import namespace
from .function import derivative
from .grad_mode import is_grad_enabled

aten = namespace("aten")

#: slice's "to the end" (``INT64_MAX``), what slice_backward_wrapper passes for ``end=None``
INT64_MAX = (1 << 63) - 1
_CONTIGUOUS_FORMAT = 0  # MemoryFormat code of LEGACY_CONTIGUOUS_MEMORY_FORMAT


# --- helpers ----------------------------------------------------------------------------------------


def _options(t: Any) -> dict[str, Any]:
    """``t.options()`` as factory keyword arguments (dtype, layout, device; no pin_memory)."""
    return {"dtype": t._dtype, "layout": strided, "device": t._device}


def _wrap(dim: int, ndim: int) -> int:
    """``maybe_wrap_dim``: a 0-dim tensor takes dims -1 and 0."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _subclass_like(*tensors: Any) -> bool:
    """``at::areAnyTensorSubclassLike``: a dispatch mode is active or a tensor carries the Python key."""
    from ..ops import composite as decompositions

    return any(t is not None and decompositions.is_tensor_subclass_like(t) for t in tensors)


def _scaled(t: Any, alpha: Any) -> Any:
    """``maybe_multiply(t, alpha)``: ``t * alpha`` (the Scalar overload) unless alpha is 1 (or True)."""
    return t if alpha == 1 else aten.mul.Scalar(t, alpha)


def _type_as(t: Any, other: Any) -> Any:
    """``t.type_as(other)`` = ``t.to(other.options())``: ``to.dtype_layout`` (a no-op when nothing changes)."""
    return aten.to.dtype_layout(t, **_options(other))


def _not_implemented(name: str) -> NotImplementedError:
    return NotImplementedError(f"the derivative for '{name}' is not implemented.")


# --- layer norm ---------------------------------------------------------------------------------------


@derivative("native_layer_norm", "NativeLayerNormBackward0", ("input", "weight", "bias"),
            save_inputs=("input", "normalized_shape", "weight", "bias"), save_outputs=(1, 2),
            non_differentiable_outputs=(1, 2))
def _native_layer_norm(ctx, grads, needs):
    grad = grads[0]
    if grad is None:
        return (None, None, None)
    return aten.native_layer_norm_backward.default(
        grad, ctx.input, ctx.normalized_shape, ctx.result1, ctx.result2, ctx.weight, ctx.bias, list(needs)
    )


@derivative("native_layer_norm_backward", "NativeLayerNormBackwardBackward0",
            ("grad_out", "input", "mean", "rstd", "weight", "bias"),
            save_inputs=("grad_out", "input", "normalized_shape", "mean", "rstd", "weight"))
def _native_layer_norm_backward(ctx, grads, needs):
    # one call computes (input, weight, grad_out); bias gets no gradient; mean / rstd have no derivative
    if needs[2]:
        raise _not_implemented("native_layer_norm_backward mean")
    if needs[3]:
        raise _not_implemented("native_layer_norm_backward rstd")
    mask = [needs[1], needs[4], needs[0]]
    g_input, g_weight, g_grad_out = _layer_norm_double_backward(
        ctx.input, ctx.weight, grads[0], grads[1], grads[2], ctx.grad_out, ctx.mean, ctx.rstd,
        ctx.normalized_shape, mask,
    )
    return (g_grad_out, g_input, None, None, g_weight, None)


def _layer_norm_double_backward(input_t, gamma, ggI, ggG, ggB, gO_t, save_mean_t, save_invstd_t,
                                normalized_shape, output_mask):
    """FunctionsManual's layer_norm_double_backward, op for op.

    Evaluation order as PyTorch's build runs it: ``a.f(x)`` evaluates ``a`` first, but both operands of a
    binary operator (and the arguments of a call) are evaluated right to left.
    """
    input_shape = input_t._shape
    axis = len(input_shape) - len(normalized_shape)
    M = 1
    for s in input_shape[:axis]:
        M *= s
    N = 1
    for s in input_shape[axis:]:
        N *= s
    reshape = aten.reshape.default
    mul, sub, div = aten.mul.Tensor, aten.sub.Tensor, aten.div.Scalar
    input = reshape(input_t, [M, N])  # noqa: A001
    gO = reshape(gO_t, [M, N])
    save_mean = reshape(save_mean_t, [M, 1])
    save_invstd = reshape(save_invstd_t, [M, 1])
    affine = gamma is not None
    ggG_expanded = ggB_expanded = None
    if affine:
        gamma_expanded = reshape(gamma, [1, N])
        if ggG is not None:
            ggG_expanded = reshape(ggG, [1, N])
        if ggB is not None:
            ggB_expanded = reshape(ggB, [1, N])
    else:
        gamma_expanded = aten.ones.default([1], **_options(input))
    ggI_expanded = reshape(ggI, [M, N]) if ggI is not None else None
    mu = _type_as_dtype(save_mean, input)
    input_sub_mu = sub(input, mu)
    sigma2_eps_neg_1_2 = _type_as_dtype(save_invstd, input)
    sigma2_eps_neg_1 = aten.pow.Tensor_Scalar(sigma2_eps_neg_1_2, 2)
    sigma2_eps_neg_3_2 = aten.pow.Tensor_Scalar(sigma2_eps_neg_1_2, 3)

    def sum1(t: Any) -> Any:
        return aten.sum.dim_IntList(t, [1], True)

    gI = None
    input_mu_sigma2_neg_3_2 = mul(input_sub_mu, sigma2_eps_neg_3_2)
    if ggI is not None:
        gxhat = mul(gO, gamma_expanded)
        gxhat_mu_sum = sum1(mul(gxhat, input_sub_mu))
        gxhat_sum = sum1(gxhat)
        ggI_sum = sum1(ggI_expanded)
        ggI_mu_sum = sum1(mul(ggI_expanded, input_sub_mu))
        all_sub = aten.div_.Scalar(mul(ggI_sum, gxhat_sum), N)
        aten.sub_.Tensor(all_sub, sum1(mul(ggI_expanded, gxhat)))
        third = mul(mul(sigma2_eps_neg_1, gxhat_mu_sum), ggI_mu_sum)
        aten.add_.Tensor(all_sub, aten.mul_.Scalar(third, 3.0 / N))
        gI_0t = aten.div_.Scalar(mul(input_mu_sigma2_neg_3_2, all_sub), N)
        right = sub(div(gxhat_sum, N), gxhat)
        gI_1t = mul(aten.div_.Scalar(mul(ggI_mu_sum, sigma2_eps_neg_3_2), N), right)
        right = sub(div(ggI_sum, N), ggI_expanded)
        gI_2t = mul(aten.div_.Scalar(mul(gxhat_mu_sum, sigma2_eps_neg_3_2), N), right)
        gI = aten.add_.Tensor(aten.add_.Tensor(gI_0t, gI_1t), gI_2t)
    if affine and ggG is not None:
        t0 = mul(mul(gO, ggG_expanded), sigma2_eps_neg_1_2)
        t1 = aten.div_.Scalar(mul(sigma2_eps_neg_1_2, sum1(mul(gO, ggG_expanded))), -N)
        t2 = aten.div_.Scalar(mul(input_mu_sigma2_neg_3_2, sum1(mul(mul(gO, ggG_expanded), input_sub_mu))), -N)
        gI_G_term = aten.add_.Tensor(aten.add_.Tensor(t0, t1), t2)
        gI = aten.add_.Tensor(gI, gI_G_term) if gI is not None else gI_G_term
    if gI is not None:
        gI = reshape(gI, list(input_t._shape))  # reshape_as(input_t)

    def first_bwd_fn_grad_input(gO_local: Any, gamma_local: Any) -> Any:
        h0 = aten.div_.Scalar(mul(gamma_local, sigma2_eps_neg_1_2), N)
        h1 = aten.mul.Scalar(gO_local, N)
        aten.sub_.Tensor(h1, sum1(gO_local))
        right = sum1(mul(gO_local, input_sub_mu))
        aten.sub_.Tensor(h1, mul(mul(input_sub_mu, sigma2_eps_neg_1), right))
        return mul(h0, h1)

    gG = None
    if affine and ggI is not None:
        gG = first_bwd_fn_grad_input(ggI_expanded, aten.ones.default([], **_options(sigma2_eps_neg_1_2)))
        gG = aten.sum.dim_IntList(mul(gO, gG), [0])
        gG = reshape(gG, list(gamma._shape))
    ggO = None
    if ggI is not None:
        ggO = first_bwd_fn_grad_input(ggI_expanded, gamma_expanded)
    if ggG is not None:
        ggO_G_term = mul(mul(ggG_expanded, input_sub_mu), sigma2_eps_neg_1_2)
        ggO = aten.add_.Tensor(ggO, ggO_G_term) if ggO is not None else ggO_G_term
    if ggB is not None:
        ggO = aten.add_.Tensor(ggO, ggB_expanded) if ggO is not None else ggB_expanded
    if ggO is not None:
        ggO = reshape(aten.expand.default(ggO, [M, N]), list(input_t._shape))
    return gI, gG, ggO


def _type_as_dtype(t: Any, like: Any) -> Any:
    """``t.to(like.scalar_type())`` (``to.dtype``: a no-op when the dtype already matches)."""
    return aten.to.dtype(t, like._dtype)


# --- losses ---------------------------------------------------------------------------------------


@derivative("nll_loss_forward", "NllLossBackward0", ("self",),
            save_inputs=("self", "target", "weight", "reduction", "ignore_index"), save_outputs=(1,),
            non_differentiable_outputs=(1,), no_requires_grad=("weight",))
def _nll_loss_forward(ctx, grads, needs):
    return (aten.nll_loss_backward.default(grads[0], ctx.self, ctx.target, ctx.weight, ctx.reduction,
                                           ctx.ignore_index, ctx.result1),)


@derivative("nll_loss2d_forward", "NllLoss2DBackward0", ("self",),
            save_inputs=("self", "target", "weight", "reduction", "ignore_index"), save_outputs=(1,),
            non_differentiable_outputs=(1,), no_requires_grad=("weight",))
def _nll_loss2d_forward(ctx, grads, needs):
    return (aten.nll_loss2d_backward.default(grads[0], ctx.self, ctx.target, ctx.weight, ctx.reduction,
                                             ctx.ignore_index, ctx.result1),)


@derivative("nll_loss_backward", "NllLossBackwardBackward0", ("grad_output", "self"),
            save_inputs=("target", "weight", "reduction", "ignore_index"),
            no_requires_grad=("weight", "total_weight"))
def _nll_loss_backward(ctx, grads, needs):
    grad = grads[0]
    return (
        aten.nll_loss.default(grad, ctx.target, ctx.weight, ctx.reduction, ctx.ignore_index) if needs[0] else None,
        aten.zeros_like.default(grad) if needs[1] else None,
    )


@derivative("nll_loss2d_backward", "NllLoss2DBackwardBackward0", ("grad_output", "self"),
            save_inputs=("target", "weight", "reduction", "ignore_index"),
            no_requires_grad=("weight", "total_weight"))
def _nll_loss2d_backward(ctx, grads, needs):
    grad = grads[0]
    gg = None
    if needs[0]:  # nll_loss2d (CompositeImplicitAutograd): the first output of nll_loss2d_forward
        gg = aten.nll_loss2d_forward.default(grad, ctx.target, ctx.weight, ctx.reduction, ctx.ignore_index)[0]
    return (gg, aten.zeros_like.default(grad) if needs[1] else None)


# --- dropout --------------------------------------------------------------------------------------


def _dropout_scale(p: float, train: bool | None) -> float:
    if train is None or not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


@derivative("native_dropout", "NativeDropoutBackward0", ("input",), save_inputs=("p", "train"),
            save_outputs=(1,), non_differentiable_outputs=(1,))
def _native_dropout(ctx, grads, needs):
    grad, mask = grads[0], ctx.result1
    scale = _dropout_scale(ctx.p, ctx.train)
    if is_grad_enabled():  # infinitely_differentiable_native_dropout_backward
        return (aten.mul.Tensor(grad, aten.mul.Scalar(_type_as(mask, grad), scale)),)
    return (aten.native_dropout_backward.default(grad, mask, scale),)


@derivative("native_dropout_backward", "NativeDropoutBackwardBackward0", ("grad_output", "mask"),
            save_inputs=("grad_output", "mask", "scale"))
def _native_dropout_backward(ctx, grads, needs):
    if needs[1]:
        raise _not_implemented("native_dropout_backward: mask")
    grad_output = ctx.grad_output  # native_dropout_double_backward
    ggI = _type_as(grads[0], grad_output)
    return (aten.mul.Tensor(ggI, aten.mul.Scalar(_type_as(ctx.mask, grad_output), ctx.scale)), None)


# --- embedding ------------------------------------------------------------------------------------


@derivative("embedding", "EmbeddingBackward0", ("weight",),
            save_inputs=("indices", "padding_idx", "scale_grad_by_freq", "sparse"), save_meta=("weight",))
def _embedding(ctx, grads, needs):
    return (aten.embedding_backward.default(grads[0], ctx.indices, ctx.weight._shape[0], ctx.padding_idx,
                                            ctx.scale_grad_by_freq, ctx.sparse),)


@derivative("embedding_dense_backward", "EmbeddingDenseBackwardBackward0", ("grad_output",),
            save_inputs=("indices", "padding_idx"))
def _embedding_dense_backward(ctx, grads, needs):
    grad, indices, padding_idx = grads[0], ctx.indices, ctx.padding_idx
    gg_weight = aten.index_select.default(grad, 0, aten.reshape.default(indices, [-1]))
    size = list(indices._shape) + [-1]
    if padding_idx >= 0:
        mask = aten.reshape.default(aten.eq.Scalar(indices, padding_idx), [-1, 1])
        aten.masked_fill_.Scalar(gg_weight, mask, 0)
    return (aten.view.default(gg_weight, size),)


# --- copies -----------------------------------------------------------------------------------------


@derivative("_to_copy", "ToCopyBackward0", ("self",), save_meta=("self",))
def _to_copy(ctx, grads, needs):
    # _to_copy_backward: grad.to(self.options()); NB: the complex -> real case (at::real) is not handled
    return (aten.to.dtype_layout(grads[0], **_options(ctx.self)),)


@derivative("alias", "AliasBackward0", ("self",))
def _alias(ctx, grads, needs):
    return (grads[0],)


# --- cat / stack / split / unbind ---------------------------------------------------------------------


def _legacy_cat_wrap_dim(dim: int, shapes: list[tuple[int, ...]]) -> int:
    """Wrap ``dim`` against the first input that is not a legacy empty 1-D tensor of size 0."""
    for shape in shapes:
        if shape != (0,):
            return _wrap(dim, len(shape))
    return dim


@derivative("cat", "CatBackward0", ("tensors",), save_inputs=("dim",), save_meta=("tensors",))
def _cat(ctx, grads, needs):
    grad, metas = grads[0], ctx.tensors
    if grad is None:
        return ([None] * len(metas),)
    shapes = [m._shape for m in metas]
    dim = _legacy_cat_wrap_dim(ctx.dim, shapes)
    out, end = [], 0
    for shape in shapes:  # cat_tensors_backward; NB: complex grads of real inputs (at::real) not handled
        if shape == (0,):
            out.append(aten.zeros.default([0], **_options(grad)))
            continue
        size = shape[dim]
        end += size
        out.append(aten.narrow.default(grad, dim, end - size, size))  # (a CIA op: slice after dispatch)
    return (out,)


@derivative("stack", "StackBackward0", ("tensors",), save_inputs=("dim",), save_meta=("tensors",))
def _stack(ctx, grads, needs):
    grad, n = grads[0], len(ctx.tensors)
    if grad is None:
        return ([None] * n,)
    return ([aten.select.int(grad, ctx.dim, i) for i in range(n)],)


@derivative("unbind.int", "UnbindBackward0", ("self",), save_inputs=("dim",))
def _unbind(ctx, grads, needs):
    defined = next(g for g in grads if g is not None)  # the engine skips a node with no gradient at all
    filled = [
        g if g is not None else aten.expand.default(aten.zeros.default([], **_options(defined)), list(defined._shape))
        for g in grads
    ]
    return (aten.stack.default(filled, ctx.dim),)


def _split_with_sizes_backward(grads: list[Any], split_sizes: list[int], dim: int, self_meta: Any) -> Any:
    sizes = self_meta._shape
    dim = _wrap(dim, len(sizes))
    filled = []
    for g, length in zip(grads, split_sizes):
        if g is not None:
            filled.append(g)
        else:
            shape = list(sizes)
            shape[dim] = length
            filled.append(aten.zeros.default(shape, **_options(self_meta)))
    return aten.cat.default(filled, dim)


@derivative("split.Tensor", "SplitBackward0", ("self",), save_inputs=("split_size", "dim"), save_meta=("self",))
def _split(ctx, grads, needs):
    sizes = ctx.self._shape
    dim = _wrap(ctx.dim, len(sizes))
    n, split_size = len(grads), ctx.split_size
    split_sizes = [split_size] * n
    split_sizes[-1] = split_size - (split_size * n - sizes[dim])
    return (_split_with_sizes_backward(grads, split_sizes, dim, ctx.self),)


@derivative("split_with_sizes", "SplitWithSizesBackward0", ("self",), save_inputs=("split_sizes", "dim"),
            save_meta=("self",))
def _split_with_sizes(ctx, grads, needs):
    return (_split_with_sizes_backward(grads, list(ctx.split_sizes), ctx.dim, ctx.self),)


# --- views ----------------------------------------------------------------------------------------


@derivative("select.int", "SelectBackward0", ("self",), save_inputs=("dim", "index"), save_meta=("self",))
def _select(ctx, grads, needs):
    return (aten.select_backward.default(grads[0], list(ctx.self._shape), ctx.dim, ctx.index),)


@derivative("select_backward", "SelectBackwardBackward0", ("grad_output",), save_inputs=("dim", "index"))
def _select_backward(ctx, grads, needs):
    return (aten.select.int(grads[0], ctx.dim, ctx.index),)


@derivative("slice.Tensor", "SliceBackward0", ("self",), save_inputs=("dim", "start", "end", "step"),
            save_meta=("self",))
def _slice(ctx, grads, needs):
    start = 0 if ctx.start is None else ctx.start  # slice_backward_wrapper
    end = INT64_MAX if ctx.end is None else ctx.end
    return (aten.slice_backward.default(grads[0], list(ctx.self._shape), ctx.dim, start, end, ctx.step),)


@derivative("slice_backward", "SliceBackwardBackward0", ("grad_output",),
            save_inputs=("dim", "start", "end", "step"))
def _slice_backward(ctx, grads, needs):
    return (aten.slice.Tensor(grads[0], ctx.dim, ctx.start, ctx.end, ctx.step),)


@derivative("slice_scatter", "SliceScatterBackward0", ("self", "src"),
            save_inputs=("dim", "start", "end", "step"), save_meta=("src",))
def _slice_scatter(ctx, grads, needs):
    """self: the gradient with the written slice zeroed (``slice_scatter(grad, zeros_like(src), ...)``, where
    PyTorch saves only src's geometry, so the zeros come from ``zeros(src sizes, src options)``);
    src: that slice of the gradient."""
    g = grads[0]
    g_self = g_src = None
    if needs[0]:
        src = ctx.src
        zeros = aten.zeros.default(list(src._shape), dtype=src._dtype, layout=strided, device=src._device)
        g_self = aten.slice_scatter.default(g, zeros, ctx.dim, ctx.start, ctx.end, ctx.step)
    if needs[1]:
        g_src = aten.slice.Tensor(g, ctx.dim, ctx.start, ctx.end, ctx.step)
    return (g_self, g_src)


def _unsqueeze_to(grad: Any, sizes: tuple[int, ...], dims: list[int] | None = None) -> Any:
    """Put back the size-1 dims a squeeze removed (all of them, or those of ``dims``)."""
    ndim = len(sizes)
    chosen = set(range(ndim)) if dims is None else {_wrap(d, ndim) for d in dims}
    for d in range(ndim):
        if d in chosen and sizes[d] == 1:
            grad = aten.unsqueeze.default(grad, d)
    return grad


@derivative("squeeze", "SqueezeBackward0", ("self",), save_meta=("self",))
def _squeeze(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape),)


@derivative("squeeze.dim", "SqueezeBackward1", ("self",), save_inputs=("dim",), save_meta=("self",))
def _squeeze_dim(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape, [ctx.dim]),)


@derivative("squeeze.dims", "SqueezeBackward2", ("self",), save_inputs=("dim",), save_meta=("self",))
def _squeeze_dims(ctx, grads, needs):
    return (_unsqueeze_to(grads[0], ctx.self._shape, list(ctx.dim)),)


@derivative("permute", "PermuteBackward0", ("self",), save_inputs=("dims",))
def _permute(ctx, grads, needs):
    fwd = list(ctx.dims)
    inverse = [0] * len(fwd)
    for i, d in enumerate(fwd):
        inverse[_wrap(d, len(fwd))] = i
    return (aten.permute.default(grads[0], inverse),)


# --- as_strided -------------------------------------------------------------------------------------


def _maybe_overlapping_memory(sizes: list[int], strides: list[int]) -> bool:
    """Could two indices of this geometry (size-1 dims already dropped) share a memory location?"""
    max_index_in_slice = 0
    for i in sorted(range(len(sizes)), key=lambda k: strides[k]):
        if strides[i] <= max_index_in_slice:
            return True
        max_index_in_slice += strides[i] * (sizes[i] - 1)
    return False


def _min_storage_size(sizes: list[int], strides: list[int], storage_offset: int) -> int:
    storage_size = storage_offset + 1
    for size, stride in zip(sizes, strides):
        if size == 0:
            return storage_offset
        storage_size += (size - 1) * stride
    return storage_size


@derivative("as_strided", "AsStridedBackward0", ("self",), save_inputs=("size", "stride", "storage_offset"),
            save_meta=("self",))
def _as_strided(ctx, grads, needs):
    return (_as_strided_backward(grads[0], ctx.self, list(ctx.size), list(ctx.stride), ctx.storage_offset),)


def _as_strided_backward(grad: Any, geometry: Any, sizes: list[int], strides: list[int],
                         storage_offset: int | None) -> Any:
    """FunctionsManual's as_strided_backward: scatter the gradient into a flat storage through the output's
    geometry (``index_add_`` where the output overlaps itself), divide by the input's multiplicity where the
    input overlaps itself, and read it back through the input's geometry."""
    offset = geometry._storage_offset if storage_offset is None else storage_offset
    out_sizes: list[int] = []
    out_strides: list[int] = []
    for i in range(grad.dim() - 1, -1, -1):  # drop size-1 dims, sum expanded (stride 0) dims
        size_i, stride_i = sizes[i], strides[i]
        if size_i == 0:
            return aten.zeros.default(list(geometry._shape), **_options(grad))
        if size_i == 1:
            grad = aten.squeeze.dim(grad, i)
        elif stride_i == 0:
            grad = aten.sum.dim_IntList(grad, [i], False)
        else:
            out_sizes.insert(0, size_i)
            out_strides.insert(0, stride_i)
    out_maybe_overlap = _maybe_overlapping_memory(out_sizes, out_strides)
    inp_sizes: list[int] = []
    inp_strides: list[int] = []
    for size_i, stride_i in zip(reversed(geometry._shape), reversed(geometry._stride)):
        if size_i == 0:
            return aten.zeros.default(list(geometry._shape), **_options(grad))
        if size_i != 1:
            inp_sizes.insert(0, size_i)
            inp_strides.insert(0, stride_i)
    inp_maybe_overlap = _maybe_overlapping_memory(inp_sizes, inp_strides)

    shared_offset = min(geometry._storage_offset, offset)
    inp_effective_offset = geometry._storage_offset - shared_offset
    out_effective_offset = offset - shared_offset
    base_size = max(_min_storage_size(inp_sizes, inp_strides, inp_effective_offset),
                    _min_storage_size(out_sizes, out_strides, out_effective_offset))
    storage = aten.new_zeros.default(grad, [base_size])
    flat_indices = None
    if inp_maybe_overlap or out_maybe_overlap:
        flat_indices = aten.arange.start(0, base_size, dtype=_int64(), layout=strided, device=grad._device)
    if out_maybe_overlap:
        out_indices = aten.as_strided.default(flat_indices, out_sizes, out_strides, out_effective_offset)
        flat_grad = aten.reshape.default(grad, [-1])  # C++ evaluates the call's arguments right to left
        aten.index_add_.default(storage, 0, aten.reshape.default(out_indices, [-1]), flat_grad)
    else:
        aten.copy_.default(aten.as_strided.default(storage, out_sizes, out_strides, out_effective_offset), grad)
    if inp_maybe_overlap:
        count = aten.zeros_like.default(storage, memory_format=_CONTIGUOUS_FORMAT)
        inp_indices = aten.reshape.default(
            aten.as_strided.default(flat_indices, inp_sizes, inp_strides, inp_effective_offset), [-1]
        )
        ones = aten.expand.default(aten.ones.default([1], **_options(grad)), list(inp_indices._shape))
        aten.index_add_.default(count, 0, inp_indices, ones)
        aten.div_.Tensor(storage, count)  # NaN outside the input's visible range
    return aten.as_strided.default(storage, list(geometry._shape), list(geometry._stride), inp_effective_offset)


def _int64() -> Any:
    from .. import dtypes

    return dtypes.int64


# --- indexing ---------------------------------------------------------------------------------------


@derivative("index_select", "IndexSelectBackward0", ("self",), save_inputs=("dim", "index"), save_meta=("self",))
def _index_select(ctx, grads, needs):
    return (aten.index_select_backward.default(grads[0], list(ctx.self._shape), ctx.dim, ctx.index),)


@derivative("index.Tensor", "IndexBackward0", ("self",), save_inputs=("indices",), save_meta=("self",))
def _index(ctx, grads, needs):
    grad, indices = grads[0], list(ctx.indices)
    zeros = aten.new_zeros.default(grad, list(ctx.self._shape), **_options(ctx.self))
    if _subclass_like(zeros, grad, *indices):  # index_backward
        return (aten.index_put.default(zeros, indices, grad, True),)
    return (aten._index_put_impl_.default(zeros, indices, grad, True, True),)


@derivative("index_add", "IndexAddBackward0", ("self", "source"), save_inputs=("dim", "index", "alpha"),
            save_meta=("source",))
def _index_add(ctx, grads, needs):
    grad, source = grads[0], ctx.source
    g_source = None
    if needs[1]:
        if source.dim() > 0:
            picked = aten.expand.default(aten.index_select.default(grad, ctx.dim, ctx.index), list(source._shape))
        else:
            picked = aten.index_select.default(grad, ctx.dim, aten.squeeze.dim(ctx.index, 0))
        g_source = _scaled(picked, ctx.alpha)
    return (grad if needs[0] else None, g_source)


@derivative("index_put", "IndexPutBackward0", ("self", "values"), save_inputs=("indices", "accumulate"),
            save_meta=("values",))
def _index_put(ctx, grads, needs):
    grad, indices = grads[0], list(ctx.indices)
    g_self = None
    if needs[0]:
        if ctx.accumulate:
            g_self = grad
        else:  # zeros_like(values): PyTorch saves only values' sizes and options, and calls zeros
            zeros = aten.zeros.default(list(ctx.values._shape), **_options(ctx.values))
            g_self = aten.index_put.default(grad, indices, zeros, False)
    g_values = aten.index.Tensor(grad, indices) if needs[1] else None
    return (g_self, g_values)


# --- lifting constants (how torch.tensor / from_numpy values enter a program) -------------------------


@derivative("lift_fresh", "LiftFreshBackward0", ("self",))
def _lift_fresh(ctx, grads, needs):
    return (grads[0],)


@derivative("lift_fresh_copy", "LiftFreshBackward0_copy", ("self",))
def _lift_fresh_copy(ctx, grads, needs):
    return (grads[0],)
