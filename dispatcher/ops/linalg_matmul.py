"""``matmul`` and ``linear``: the CompositeImplicitAutograd products that pick ``mm`` / ``bmm`` / ``mv`` / ``addmm``;
``bilinear`` (CompositeImplicitAutograd: ``reshape`` + ``_trilinear`` + ``reshape`` + ``add``) and ``_trilinear``.

``_trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim)``: each input unsqueezed at its ``expand`` dims, the
three multiplied (broadcasting) and summed over ``sumdim`` (dropped). PyTorch registers it as
CompositeExplicitAutogradNonFunctional (its kernel a sum of products); here it has CPU (one ``einsum``) and Meta
kernels, which graphs and modes see the same way.

Corresponds to aten/src/ATen/native/LinearAlgebra.cpp (``_matmul_impl``: vector / matrix cases, folding the batch
dims of the larger operand into rows, else broadcasting and flattening the batch dims for ``bmm``) and Linear.cpp
(``linear``: ``t`` + ``addmm`` for 2-d inputs with a bias, ``matmul`` (+ ``add``) otherwise). Each kernel calls,
through the dispatcher, exactly the aten ops PyTorch's kernel calls, in the same order and with the same arguments;
with a dispatch mode active (``is_tensor_subclass_like``) ``matmul`` squeezes a size-1 batch dim and ``linear``
adds its bias out of place, as PyTorch does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..tensor import Tensor, contiguous_strides
from .attention import _meta_name
from .composite import _op, _prod, is_tensor_subclass_like
from .fp_errors import quiet_fp
from .kernel_dtypes import _expected_scalar_type
from .kernel_registry import impl
from .meta_utils import TensorMeta, broadcast_shapes, materialize, wrap_dim

# --- matmul (LinearAlgebra.cpp _matmul_impl) ----------------------------------------------------------


def _mT(t: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    return _op("transpose.int")(t, -2, -1)


def _should_fold(tensor1: Tensor, tensor2: Tensor) -> bool:
    """Whether matmul can fold the larger operand into a matrix and use mm/mv instead of bmm."""
    tensor1_larger = tensor1.dim() >= tensor2.dim()
    t1 = tensor1 if tensor1_larger else _mT(tensor2)  # NB: PyTorch really computes this transpose
    dim_t1 = t1.dim()
    dim_t2 = tensor2.dim() if tensor1_larger else tensor1.dim()
    if not (dim_t1 >= 3 and dim_t2 <= 2):
        return False
    t2_requires_grad = tensor2.requires_grad if tensor1_larger else tensor1.requires_grad
    if t2_requires_grad:
        return True
    if tensor1.dim() == 2:
        return False
    if t1.numel() == 0:
        return True
    shape, stride = t1._shape, t1._stride
    for i in range(dim_t1 - 2):
        if stride[i] != stride[i + 1] * shape[i + 1]:
            return False
    return True


def _squeeze_inplace(t: Tensor, dim: int) -> Tensor:
    return _op("squeeze_.dim")(t, dim)


def _matmul_impl(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D")
    if dim1 == 1 and dim2 == 1:
        return _op("dot")(tensor1, tensor2)
    if dim1 == 2 and dim2 == 1:
        return _op("mv")(tensor1, tensor2)
    if dim1 == 1 and dim2 == 2:
        return _squeeze_inplace(_op("mm")(_op("unsqueeze")(tensor1, 0), tensor2), 0)
    if dim1 == 2 and dim2 == 2:
        return _op("mm")(tensor1, tensor2)
    if _should_fold(tensor1, tensor2):
        return _matmul_folded(tensor1, tensor2)
    return _matmul_batched(tensor1, tensor2)


def _matmul_folded(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """Fold the batch dims of the larger operand into rows: one mm / mv and an _unsafe_view."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    transpose = dim2 > dim1
    t1 = _mT(tensor2) if transpose else tensor1
    t2 = (_op("t")(tensor1) if dim1 == 2 else tensor1) if transpose else tensor2
    sizes1 = t1._shape
    output_shape = list(sizes1[:-1])
    folded_dim1 = _prod(output_shape)
    t2_is_matrix = t2.dim() == 2
    if t2_is_matrix:
        output_shape.append(t2._shape[1])
    t1_folded = _op("reshape")(t1, [folded_dim1, sizes1[-1]])
    if t2_is_matrix:
        output = _op("_unsafe_view")(_op("mm")(t1_folded, t2), output_shape)
        return _op("contiguous")(_mT(output)) if transpose else output
    return _op("_unsafe_view")(_op("mv")(t1_folded, t2), output_shape)


def _matmul_batched(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """Broadcast the batch dims, flatten them into one, and use bmm."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    sizes1, sizes2 = tensor1._shape, tensor2._shape
    n = sizes1[-2] if dim1 > 1 else 1
    m1 = sizes1[-1]
    batch1 = sizes1[: max(dim1 - 2, 0)]
    m2 = sizes2[-2] if dim2 > 1 else sizes2[0]
    p = sizes2[-1] if dim2 > 1 else 1
    batch2 = sizes2[: max(dim2 - 2, 0)]
    if dim1 == 3 and dim2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and (tensor1.requires_grad or is_tensor_subclass_like(tensor1)):
            return _matmul_impl(_op("squeeze.dim")(tensor1, 0), tensor2)
        if batch2[0] == 1 and (tensor2.requires_grad or is_tensor_subclass_like(tensor2)):
            return _matmul_impl(tensor1, _op("squeeze.dim")(tensor2, 0))
    output_shape = list(broadcast_shapes(batch1, batch2))
    expand_batch_product = _prod(output_shape)
    reshape, expand = _op("reshape"), _op("expand")
    tensor1_expanded = reshape(expand(tensor1, output_shape + [n, m1]), [expand_batch_product, n, m1])
    vector_rhs = dim2 == 1
    tensor2_expanded = expand(tensor2, output_shape + ([m2] if vector_rhs else [m2, p]))
    if vector_rhs:
        tensor2_expanded = _op("unsqueeze")(reshape(tensor2_expanded, [expand_batch_product, m2]), 2)
    else:
        tensor2_expanded = reshape(tensor2_expanded, [expand_batch_product, m2, p])
    if dim1 > 1:
        output_shape.append(n)
    if dim2 > 1:
        output_shape.append(p)
    out = _op("bmm")(tensor1_expanded, tensor2_expanded)
    if vector_rhs:
        out = _op("squeeze.dim")(out, -1)
    return _op("_unsafe_view")(out, output_shape)


@impl("matmul", "CompositeImplicitAutograd")
def matmul(self: Tensor, other: Tensor) -> Tensor:
    return _matmul_impl(self, other)


# --- linear (Linear.cpp) -----------------------------------------------------------------------------


def _flatten_nd_linear(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:  # noqa: A002
    sizes = input._shape
    inp = _op("reshape")(input, [_prod(sizes[:-1]), sizes[-1]])
    result = _op("addmm")(bias, inp, _op("t")(weight))
    return _op("view")(result, [*sizes[:-1], result._shape[1]])


@impl("linear", "CompositeImplicitAutograd")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    input_dim, weight_dim = input.dim(), weight.dim()
    if input_dim == 0 or weight_dim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input_dim}D and {weight_dim}D"
        )
    if input_dim == 2 and bias is not None:
        return _op("addmm")(bias, input, _op("t")(weight))
    fusable = (
        bias is not None
        and (bias.dim() == 1 or _op("squeeze")(bias).dim() == 1)
        and bias._contiguous
    )
    if fusable and input._contiguous:
        return _flatten_nd_linear(input, weight, bias)
    output = _op("matmul")(input, _op("t")(weight))
    if bias is not None:
        if is_tensor_subclass_like(bias):
            output = _op("add.Tensor")(output, bias)
        else:
            output = _op("add_.Tensor")(output, bias)
    return output


# --- bilinear / _trilinear (Linear.cpp) -----------------------------------------------------------------------


def _dim_bitset(dims: Sequence[int], total_dim: int) -> list[bool]:
    """at::dim_list_to_bitset: each dim wrapped (IndexError out of range), none twice."""
    bits = [False] * total_dim
    for d in dims:
        w = wrap_dim(int(d), total_dim)
        if bits[w]:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        bits[w] = True
    return bits


@impl("_trilinear", "CPU", "Meta")
def _trilinear(i1: Tensor, i2: Tensor, i3: Tensor, expand1: Sequence[int], expand2: Sequence[int],
               expand3: Sequence[int], sumdim: Sequence[int], unroll_dim: int = 1) -> Tensor:
    """Linear.cpp's ``_trilinear``: each input unsqueezed at its ``expand`` dims, their product summed over
    ``sumdim`` (computed in torch's order: ``i1 * i2``, the sum dims ``i3`` lacks summed first, then the product
    with ``i3`` summed over the rest; an empty input gives zeros)."""
    total_dim = i1.dim() + len(expand1)
    if not 0 <= unroll_dim < total_dim:
        raise RuntimeError(f"unroll_dim must be in [0,{total_dim - 1}]")
    bits = [_dim_bitset(ex, total_dim) for ex in (expand1, expand2, expand3)]
    summed = _dim_bitset(sumdim, total_dim)
    # the loop over the dims: unsqueeze at an expanded dim, else read the size there (an IndexError past the end)
    shapes = [list(t._shape) for t in (i1, i2, i3)]
    sizes = [0] * total_dim
    for d in range(total_dim):
        for k, shape in enumerate(shapes):
            if bits[k][d]:
                shape.insert(d, 1)
            else:
                sizes[d] = shape[wrap_dim(d, len(shape))]
    for k, shape in enumerate(shapes):
        if len(shape) != total_dim:
            raise RuntimeError(f"expand{k + 1} and i{k + 1} dims must sum to the total dimension")
    for t in (i2, i3):
        if t._dtype is not i1._dtype:
            raise _expected_scalar_type(i1._dtype, t._dtype)
    out_shape = tuple(sizes[d] for d in range(total_dim) if not summed[d])
    meta = TensorMeta(out_shape, contiguous_strides(out_shape), i1._dtype)
    empty = any(t.numel() == 0 for t in (i1, i2, i3))
    if not empty:
        for d in range(total_dim):
            present = {shape[d] for shape in shapes if shape[d] != 1}
            if len(present) > 1:
                raise RuntimeError("non-broadcast dimensions must match")

    @quiet_fp
    def compute() -> np.ndarray:
        if empty:
            return np.zeros(out_shape, dtype=i1._dtype.np_dtype)
        a1, a2, a3 = (np.asarray(t._data).reshape(shape) for t, shape in zip((i1, i2, i3), shapes, strict=True))
        x = a1 * a2
        first = tuple(d for d in range(total_dim) if summed[d] and a3.shape[d] == 1 and x.shape[d] != 1)
        if first:
            x = x.sum(axis=first, keepdims=True)
        pre3 = tuple(d for d in range(total_dim) if summed[d] and x.shape[d] == 1 and a3.shape[d] != 1)
        if pre3:
            a3 = a3.sum(axis=pre3, keepdims=True)
        y = x * a3
        rest = tuple(d for d in range(total_dim) if summed[d] and y.shape[d] != 1)
        if rest:
            y = y.sum(axis=rest, keepdims=True)
        y = np.broadcast_to(y, tuple(sizes[d] if not summed[d] else 1 for d in range(total_dim)))
        return np.ascontiguousarray(y.reshape(out_shape)).astype(i1._dtype.np_dtype, copy=False)

    return materialize(meta, compute, i1)


@impl("bilinear", "CompositeImplicitAutograd")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x1^T W x2 (+ b)`` over the last dims: ``_trilinear(x1 (B, I1), W (O, I1, I2), x2 (B, I2))``."""
    tensors = [input1, input2, weight] + ([bias] if bias is not None else [])
    if any(t._dtype is not input1._dtype for t in tensors):
        names = ("input1", "input2", "weight", "bias")
        got = ", ".join(f"{n}: {_meta_name(t._dtype)}" for n, t in zip(names, tensors, strict=False))
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1._shape[i] != input2._shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1._shape[i]} and "
                               f"{input2._shape[i]}")
    if input1._shape[-1] != weight._shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1._shape[-1]} but "
                           f"expected {weight._shape[1]}")
    if input2._shape[-1] != weight._shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2._shape[-1]} but "
                           f"expected {weight._shape[2]}")
    if bias is not None and bias._shape[0] != weight._shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias._shape[0]} but expected "
                           f"{weight._shape[0]}")
    output_size = list(input1._shape[:-1]) + [weight._shape[0]]
    x1 = _op("reshape")(input1, [-1, input1._shape[-1]])
    x2 = _op("reshape")(input2, [-1, input2._shape[-1]])
    output = _op("reshape")(_op("_trilinear")(x1, weight, x2, [1, 3], [0], [1, 2], [2, 3]), output_size)
    if bias is not None:
        output = _op("add.Tensor")(output, bias)
    return output
