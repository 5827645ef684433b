"""Cumulative reductions: ``cumsum``, ``cumprod`` and ``cumprod_backward`` (CompositeImplicitAutograd).

Corresponds to aten/src/ATen/native/ReduceOps.cpp (``cumsum``, ``cumprod``, ``cumprod_backward``). Results have
self's shape, contiguous, in ``prod``'s result dtype (integral and bool inputs give int64); floating values
accumulate in float64. ``cumprod_backward`` is written with aten ops, as PyTorch's: the reversed cumulative sum of
``output * grad`` divided by ``input`` when no input is zero, else PyTorch's handling of the first zero of each slice
(or, in grad mode, the differentiable O(n^2) products), so autograd and modes see the same ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, wrap_dim
from .reductions import _prod_dtype

aten = namespace("aten")


# --- cumsum / cumprod -----------------------------------------------------------------------------------------


def _cumulative(np_fn: Any, self: Tensor, dim: int, dtype: Any) -> Tensor:
    d = wrap_dim(dim, self.dim())
    out = _prod_dtype(self, dtype)
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), out)

    def compute() -> np.ndarray:
        if self.dim() == 0:
            return self._data.astype(out.np_dtype)
        acc = np.float64 if out.is_floating_point else out.np_dtype
        with np.errstate(over="ignore", invalid="ignore"):
            return np_fn(self._data.astype(acc), axis=d)

    return materialize(meta, compute, self)


@impl("cumsum", "CPU", "Meta")
def cumsum(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _cumulative(np.cumsum, self, dim, dtype)


@impl("cumprod", "CPU", "Meta")
def cumprod(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _cumulative(np.cumprod, self, dim, dtype)


# --- cumprod_backward (CompositeImplicitAutograd, as in PyTorch: its ops are what autograd and modes see) --------


def _reversed_cumsum(w: Tensor, dim: int) -> Tensor:
    return aten.flip.default(aten.cumsum.default(aten.flip.default(w, [dim]), dim), [dim])


def _cumprod_backward_quadratic(grad: Tensor, input: Tensor, dim: int, stack: bool) -> Tensor:  # noqa: A002
    """Each position's gradient from the products of the other elements (differentiable, unlike the O(n) one).

    The slices are copied into a zero tensor, or (``stack``: under a mode, composite compliant) stacked.
    """
    n = input._shape[dim]
    slices: list[Tensor] = []
    if not stack:
        grad_input = aten.zeros.default(list(input._shape), dtype=grad._dtype, layout=0, device=grad._device)
    ones_size = list(input._shape)
    ones_size[dim] = 1
    ones = aten.expand.default(aten.ones.default([1], dtype=grad._dtype, layout=0, device=grad._device), ones_size)
    for k in range(n):
        if k == 0:
            omitted = aten.cat.default([ones, aten.cumprod.default(aten.slice.Tensor(input, dim, 1), dim)],
                                       dim)
        elif k == n - 1:
            omitted = aten.prod.dim_int(aten.slice.Tensor(input, dim, 0, k), dim, True)
        else:
            until_k = aten.prod.dim_int(aten.slice.Tensor(input, dim, 0, k), dim, True)
            from_k_plus_1 = aten.cumprod.default(aten.slice.Tensor(input, dim, k + 1), dim)
            omitted = aten.mul.Tensor(aten.expand.default(until_k, list(from_k_plus_1._shape)), from_k_plus_1)
            omitted = aten.cat.default([until_k, omitted], dim)
        grad_slice = aten.sum.dim_IntList(aten.mul.Tensor(aten.slice.Tensor(grad, dim, k), omitted), [dim])
        if stack:
            slices.append(grad_slice)
        else:
            aten.copy_.default(aten.select.int(grad_input, dim, k), grad_slice)
    return aten.stack.default(slices, dim) if stack else grad_input


@impl("cumprod_backward", "CompositeImplicitAutograd")
def cumprod_backward(grad: Tensor, input: Tensor, dim: int, output: Tensor) -> Tensor:  # noqa: A002 - schema name
    """The gradient of ``cumprod``.

    Without zeros (checked only outside dispatch modes): the reversed cumulative sum of ``output * grad`` divided
    by ``input``. Otherwise, with grad mode off: positions before a slice's first zero take that formula, the
    first zero takes the product of the elements around it times the later gradients, later positions get 0.
    With grad mode on (double backward): the O(n^2) products of the other elements, slice by slice.
    """
    from ..autograd.grad_mode import is_grad_enabled
    from .composite import is_tensor_subclass_like

    if input.numel() <= 1:
        return grad
    dim = wrap_dim(dim, input.dim())
    if input._shape[dim] == 1:
        return grad
    w = aten.mul.Tensor(output, grad)
    is_zero = aten.eq.Scalar(input, 0)
    subclass = input._device.type == "meta" or any(is_tensor_subclass_like(t) for t in (input, grad, output))
    if not subclass and not aten._local_scalar_dense.default(aten.any.default(is_zero)):
        return aten.div.Tensor(_reversed_cumsum(w, dim), input)
    if is_grad_enabled():  # differentiable twice: the O(n^2) products, slice by slice
        return _cumprod_backward_quadratic(grad, input, dim, stack=subclass)
    grad_input = aten.zeros.default(list(input._shape), dtype=grad._dtype, layout=0, device=grad._device)
    cumsum = aten.cumsum.default(is_zero, dim)
    mask = aten.eq.Scalar(cumsum, 0)  # before the first zero
    before = aten.masked_fill.Scalar(w, aten.bitwise_not.default(mask), 0.0)
    grad_input = aten.where.self(mask, aten.div.Tensor(_reversed_cumsum(before, dim), input), grad_input)
    mask = aten.eq.Scalar(cumsum, 1)  # from the first zero to the second
    first_zero_index = aten.max.dim(mask, dim, True)[1]
    first_zero_mask = aten.logical_and_.default(
        aten.scatter_.value(aten.zeros_like.default(mask), dim, first_zero_index, 1), mask)
    mask = aten.bitwise_and_.Tensor(mask, aten.bitwise_not.default(first_zero_mask))
    products = aten.cumprod.default(aten.masked_fill.Scalar(input, aten.bitwise_not.default(mask), 1.0), dim)
    grad_after = aten.masked_fill.Scalar(grad, aten.ne.Scalar(cumsum, 1), 0.0)
    previous = aten.gather.default(output, dim, aten.relu_.default(aten.sub.Scalar(first_zero_index, 1)))
    previous = aten.masked_fill_.Scalar(previous, aten.eq.Scalar(first_zero_index, 0), 1.0)
    at_zero = aten.mul.Tensor(aten.sum.dim_IntList(aten.mul.Tensor(products, grad_after), [dim], True), previous)
    return aten.where.self(first_zero_mask, at_zero, grad_input)
