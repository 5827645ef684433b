"""Derivative formulas of the shape ops: ``cat`` / ``stack``, ``tril`` / ``triu``, ``flip``, ``roll``,
``repeat``, ``sort`` / ``topk``, ``constant_pad_nd``, ``diag_embed``, ``_unique``.

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they
call (``cat_tensors_backward``, ``repeat_backward``, ``value_selecting_reduction_backward`` for sort / topk,
``constant_pad_nd_backward``). ``_unique`` is ``not_implemented`` in PyTorch.
"""

from __future__ import annotations

from typing import Any

from ...op_overload import namespace
from ..function import derivative
from .cpp_idioms import _strided_options as _options
from .cpp_idioms import _wrap
from .not_implemented import _not_implemented

aten = namespace("aten")
_STRIDED = 0  # Layout code of torch.strided


# --- cat, stack -----------------------------------------------------------------------------------

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


# --- tril, triu, flip, roll, repeat, diag_embed, constant_pad_nd ----------------------------------

@derivative("tril", "TrilBackward0", ("self",), save_inputs=("diagonal",))
def _tril(ctx, grads, needs):
    return (aten.tril.default(grads[0], ctx.diagonal),)


@derivative("triu", "TriuBackward0", ("self",), save_inputs=("diagonal",))
def _triu(ctx, grads, needs):
    return (aten.triu.default(grads[0], ctx.diagonal),)


@derivative("flip", "FlipBackward0", ("self",), save_inputs=("dims",))
def _flip(ctx, grads, needs):
    return (aten.flip.default(grads[0], list(ctx.dims)),)


@derivative("roll", "RollBackward0", ("self",), save_inputs=("shifts", "dims"))
def _roll(ctx, grads, needs):
    """``grad.roll(-reversed(shifts), reversed(dims))``."""
    shifts = [-s for s in reversed(list(ctx.shifts))]
    dims = list(reversed(list(ctx.dims)))
    return (aten.roll.default(grads[0], shifts, dims) if dims else aten.roll.default(grads[0], shifts),)


@derivative("repeat", "RepeatBackward0", ("self",), save_inputs=("repeats",), save_meta=("self",))
def _repeat(ctx, grads, needs):
    """``repeat_backward``: sum the copies; one reshape to (repeat, size) pairs, one sum over the repeat dims."""
    grad, repeats, input_shape = grads[0], list(ctx.repeats), list(ctx.self._shape)
    if 0 in repeats:
        return (aten.zeros.default(input_shape, dtype=grad._dtype, layout=_STRIDED, device=grad._device),)
    unsqueezed = grad.dim() - len(input_shape)
    for _ in range(unsqueezed):
        grad = aten.sum.dim_IntList(grad, [0])
    grad_size: list[int] = []
    sum_dims: list[int] = []
    for d, size in enumerate(input_shape):
        r = repeats[d + unsqueezed]
        if r != 1:
            grad_size.append(r)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(size)
    if sum_dims:
        grad = aten.sum.dim_IntList(aten.reshape.default(grad, grad_size), sum_dims)
    return (grad,)


@derivative("diag_embed", "DiagEmbedBackward0", ("self",), save_inputs=("offset", "dim1", "dim2"))
def _diag_embed(ctx, grads, needs):
    return (aten.diagonal.default(grads[0], ctx.offset, ctx.dim1, ctx.dim2),)


@derivative("constant_pad_nd", "ConstantPadNdBackward0", ("self",), save_inputs=("pad",))
def _constant_pad_nd(ctx, grads, needs):
    """``constant_pad_nd_backward``: the gradient cropped by the negated padding."""
    return (aten.constant_pad_nd.default(grads[0], [-p for p in ctx.pad]),)


# --- sort, topk, _unique --------------------------------------------------------------------------

def _selected_backward(ctx: Any, grads: Any) -> Any:
    """``value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim=True)``."""
    return (aten.value_selecting_reduction_backward.default(grads[0], ctx.dim, ctx.result1, list(ctx.self._shape),
                                                            True),)


for _op, _node in (("sort", "SortBackward0"), ("sort.stable", "SortBackward1"), ("topk", "TopkBackward0")):
    derivative(_op, _node, ("self",), save_inputs=("dim",), save_meta=("self",), save_outputs=(1,),
               non_differentiable_outputs=(1,))(lambda ctx, grads, needs: _selected_backward(ctx, grads))
del _op, _node


@derivative("_unique", "UniqueBackward0", ("self",), non_differentiable_outputs=(1,))
def _unique(ctx, grads, needs):
    raise _not_implemented("_unique")


@derivative("channel_shuffle", "ChannelShuffleBackward0", ("self",), save_inputs=("groups",))
def _channel_shuffle(ctx, grads, needs):
    """``channel_shuffle(grad, grad.size(1) / groups)``: the inverse shuffle."""
    grad = grads[0]
    return (aten.channel_shuffle.default(grad, grad.size(1) // ctx.groups),)


def _register_native_channel_shuffle() -> None:
    """No formula in derivatives.yaml: a NotImplemented node."""
    from .not_implemented import register_not_implemented

    register_not_implemented("native_channel_shuffle", ("self",), "native_channel_shuffle")


_register_native_channel_shuffle()
