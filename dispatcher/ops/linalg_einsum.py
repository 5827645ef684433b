"""``einsum`` (CompositeImplicitAutograd), as aten/src/ATen/native/Linear.cpp of PyTorch 2.13.

Three steps, each with the aten ops PyTorch's kernel calls, so graphs match op for op:

1. parse the equation into labels per operand (``...`` for an ellipsis) and the output's labels (implicit
   output: the ellipsis, then every label seen once, in alphabetical order with capitals first);
2. align every operand to ``output dims + contraction dims``: a repeated label takes a ``diagonal`` (moved back
   with ``movedim``), missing labels are ``unsqueeze``d at the end, then one ``permute``;
3. contract left to right: dims of one operand only, no longer needed, are summed first (``sum``, keepdim);
   each pair goes through ``sumproduct_pair`` (``mul`` when nothing is summed, else ``permute`` + ``reshape``
   + ``bmm`` + ``view`` + ``permute``); the contraction dims are then viewed away (or, for one operand,
   summed).

torch.einsum passes a contraction ``path`` only when opt_einsum is installed (it is not in torch 2.13's CPU
wheel by default); ``path`` is honoured here as in the C++ kernel.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..tensor import Tensor
from .composite import _op
from .kernel_registry import impl

_LETTERS = 26
_TOTAL_LABELS = 2 * _LETTERS
_ELLIPSIS = _TOTAL_LABELS


def _to_subscript(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _to_label(s: int) -> str:
    return chr(s + ord("A")) if s < _LETTERS else chr(s - _LETTERS + ord("a"))


def _isalpha(c: str) -> bool:
    return c.isascii() and c.isalpha()


def _sum_keepdim(t: Tensor, dims: list[int]) -> Tensor:
    return _op("sum.dim_IntList")(t, dims, True)


def sumproduct_pair(left: Tensor, right: Tensor, sum_dims_: Sequence[int], keepdim: bool) -> Tensor:
    """``(left * right).sum(sum_dims_)`` by permutes and a ``bmm`` (Linear.cpp's pairwise reduction)."""
    if left.dim() != right.dim():
        raise RuntimeError("number of dimensions must match")
    if not sum_dims_:
        return _op("mul.Tensor")(left, right)
    ndim = left.dim()
    sum_dims = [False] * ndim
    for d in sum_dims_:
        sum_dims[d] = True
    lro: list[int] = []
    lo: list[int] = []
    ro: list[int] = []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl, sr = left._shape[i] != 1, right._shape[i] != 1
        if sum_dims[i]:
            if sl and sr:
                if left._shape[i] != right._shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._shape[i]
            elif sl:
                left = _sum_keepdim(left, [i])
            elif sr:
                right = _sum_keepdim(right, [i])
        elif sl and sr:
            if left._shape[i] != right._shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._shape[i]
        else:
            ro.append(i)
            ro_size *= right._shape[i]
    out_size = ([left._shape[d] for d in lro] + [left._shape[d] for d in lo] + [1] * len(sum_dims_)
                + [right._shape[d] for d in ro])
    lperm = lro + lo + list(sum_dims_) + ro
    rperm = lro + list(sum_dims_) + ro + lo
    operm = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims_) + ro):
        operm[d] = i
    left = _op("reshape")(_op("permute")(left, lperm), [lro_size, lo_size, sum_size])
    right = _op("reshape")(_op("permute")(right, rperm), [lro_size, sum_size, ro_size])
    result = _op("bmm")(left, right)
    result = _op("permute")(_op("view")(result, out_size), operm)
    if not keepdim:
        sizes = [s for i, s in enumerate(result._shape) if not sum_dims[i]]
        result = _op("view")(result, sizes)
    return result


def _parse_operands(lhs: str, num_ops: int) -> list[list[int]]:
    op_labels: list[list[int]] = [[] for _ in range(num_ops)]
    ell_in_input = False
    curr = 0
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell_in_input:
                raise RuntimeError(f"einsum(): found '.' for operand {curr} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {curr} that is not part of any ellipsis")
            i += 2
            op_labels[curr].append(_ELLIPSIS)
            ell_in_input = True
        elif c == ",":
            curr += 1
            if curr >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ell_in_input = False
        else:
            if not _isalpha(c):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            op_labels[curr].append(_to_subscript(c))
        i += 1
    if curr != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels


@impl("einsum", "CompositeImplicitAutograd")
def einsum(equation: str, tensors: Sequence[Tensor], *, path: Sequence[int] | None = None) -> Tensor:
    operands = list(tensors)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    if path is not None:
        path_size = 1 if num_ops == 1 else (num_ops - 1) * 2
        if len(path) != path_size:
            raise RuntimeError(f"einsum(): expected contraction path given in path parameter to have size "
                               f"{path_size} but got {len(path)}")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_operands(lhs, num_ops)

    label_count = [0] * _TOTAL_LABELS
    ell_num_dim = 0
    for i, (operand, labels) in enumerate(zip(operands, op_labels)):
        ndims = operand.dim()
        nlabels = len(labels)
        has_ellipsis = False
        for label in labels:
            if label == _ELLIPSIS:
                nlabels -= 1
                has_ellipsis = True
                ell_num_dim = max(ell_num_dim, ndims - nlabels)
            else:
                label_count[label] += 1
        if not (nlabels <= ndims if has_ellipsis else nlabels == ndims):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                + ("is more than the number of dimensions (" if has_ellipsis
                   else "does not match the number of dimensions (")
                + f"{ndims}) for operand {i}" + ("" if has_ellipsis else " and no ellipsis was given"))

    label_perm_index = [-1] * _TOTAL_LABELS
    perm_index = 0
    ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for label in range(_TOTAL_LABELS):
            if label_count[label] == 1:
                label_perm_index[label] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == " ":
                pass
            elif c == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not _isalpha(c):
                    raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                       "equation string, subscripts must be in [a-zA-Z]")
                index = _to_subscript(c)
                if not (label_count[index] > 0 and label_perm_index[index] == -1):
                    why = (" appears more than once in the output" if label_perm_index[index] > -1
                           else " does not appear in the equation for any input operand")
                    raise RuntimeError(f"einsum(): output subscript {c}{why}")
                label_perm_index[index] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for label in range(_TOTAL_LABELS):
        if label_count[label] > 0 and label_perm_index[label] == -1:
            label_perm_index[label] = perm_index
            perm_index += 1

    label_size = [1] * _TOTAL_LABELS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops: list[Tensor] = []
    for i, operand in enumerate(operands):
        op = operand
        permutation = [-1] * perm_index
        dim = 0
        for s in op_labels[i]:
            if s == _ELLIPSIS:
                ndim = operand.dim() - (len(op_labels[i]) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    if op._shape[dim] != 1:
                        if not (ell_sizes[j] == 1 or ell_sizes[j] == op._shape[dim]):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                                f"{op._shape[dim]} which does not broadcast with previously seen ellipsis with "
                                f"size {ell_sizes[j]} for the respective dimension")
                        ell_sizes[j] = op._shape[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[label_perm_index[s]] == -1:
                if op._shape[dim] != 1:
                    if not (label_size[s] == 1 or label_size[s] == op._shape[dim]):
                        raise RuntimeError(
                            f"einsum(): subscript {_to_label(s)} has size {op._shape[dim]} for operand {i} which "
                            f"does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = op._shape[dim]
                    dim_counts[label_perm_index[s]] += 1
                permutation[label_perm_index[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal, moved back to the first occurrence's place
                prev_dim = permutation[label_perm_index[s]]
                if op._shape[dim] != op._shape[prev_dim]:
                    raise RuntimeError(
                        f"einsum(): subscript {_to_label(s)} is repeated for operand {i} but the sizes don't "
                        f"match, {op._shape[dim]} != {op._shape[prev_dim]}")
                diag_args = [0, prev_dim, dim]
                while diag_args and diag_args[-1] == (0, 0, 1)[len(diag_args) - 1]:
                    diag_args.pop()  # trailing defaults are not passed (graphs print what the call gave)
                op = _op("movedim.int")(_op("diagonal")(op, *diag_args), -1, prev_dim)
        for k, val in enumerate(permutation):
            if val == -1:
                op = _op("unsqueeze")(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(_op("permute")(op, permutation))

    path_iter = iter(path or ())
    while len(ops) > 1:
        i, j = 0, 1
        if path is not None:
            i, j = next(path_iter), next(path_iter)
            if j < i:
                i, j = j, i
            if not (i != j and i >= 0 and j < len(ops)):
                why = ") cannot contract an operand with itself" if i == j else ") operand index is out of bounds"
                raise RuntimeError(f"einsum(): invalid contraction ({i}, {j}{why}")
        a, b = ops[i], ops[j]
        del ops[j]
        del ops[i]
        sum_dims: list[int] = []
        a_dims_to_sum: list[int] = []
        b_dims_to_sum: list[int] = []
        for d in range(out_num_dim, perm_index):
            if a._shape[d] != 1 and b._shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a._shape[d] != 1:
                    a_dims_to_sum.append(d)
                    dim_counts[d] = 0
                elif b._shape[d] != 1:
                    b_dims_to_sum.append(d)
                    dim_counts[d] = 0
        if a_dims_to_sum:
            a = _sum_keepdim(a, a_dims_to_sum)
        if b_dims_to_sum:
            b = _sum_keepdim(b, b_dims_to_sum)
        pair = sumproduct_pair(a, b, sum_dims, True)
        if path is not None:
            ops.append(pair)
        else:
            ops.insert(0, pair)

    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            sizes = list(ops[0]._shape[:out_num_dim])
            return _op("view")(ops[0], sizes)
        return _op("sum.dim_IntList")(ops[0], list(range(out_num_dim, perm_index)))
    return ops[0]
