"""Torch-level functions and Tensor methods of the attn batch: ``einsum``, ``lerp`` / ``Tensor.lerp(_)``.

Corresponds to torch/functional.py's ``einsum`` (which calls ``_VF.einsum(equation, operands)``; a single
list or tuple of operands is unpacked; the sublist form ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])`` is turned
into an equation with labels A-Z for 0-25 and a-z for 26-51; opt_einsum is not used, as in torch 2.13 without
the opt_einsum package) and to the python_torch_functions / python_variable_methods bindings of ``lerp``
(``lerp.Tensor`` for a tensor weight, ``lerp.Scalar`` otherwise). ``functional.py`` re-exports ``__all__``;
``tensor_methods.install`` calls ``install``.
"""

from __future__ import annotations

from typing import Any

from .op_overload import namespace
from .tensor import Tensor

aten = namespace("aten")

__all__ = ["einsum", "lerp", "addmv", "addr", "addbmm", "vdot", "kron", "tensordot"]


def _sublist_label(i: Any) -> str:
    if i is Ellipsis:
        return "..."
    if isinstance(i, int) and 0 <= i < 26:
        return chr(ord("A") + i)
    if isinstance(i, int) and 26 <= i < 52:
        return chr(ord("a") + i - 26)
    raise ValueError("subscript in subscript list is not within the valid range [0, 52)")


def _sublist_equation(args: tuple) -> tuple[str, list[Any]]:
    """``einsum(op1, sublist1, op2, sublist2, ..., [sublist_out])`` as (equation, operands)."""
    operands = list(args[0::2])
    sublists = list(args[1::2])
    out = None
    if len(args) % 2 == 1:
        out = args[-1]
        operands = operands[:-1]
    equation = ",".join("".join(_sublist_label(i) for i in s) for s in sublists[:len(operands)])
    if out is not None:
        equation += "->" + "".join(_sublist_label(i) for i in out)
    return equation, operands


def einsum(*args: Any) -> Tensor:
    """``torch.einsum(equation, *operands)``: sums of products over the labelled dims (Linear.cpp's kernel)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation, operands = _sublist_equation(args)
    else:
        equation, operands = args[0], list(args[1:])
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    return aten.einsum.default(equation, list(operands))


def lerp(input: Tensor, end: Tensor, weight: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    """``torch.lerp``: ``input + weight * (end - input)``."""
    if out is not None:
        raise NotImplementedError("lerp(out=...) is not supported by dispatchkit")
    if isinstance(weight, Tensor):
        return aten.lerp.Tensor(input, end, weight)
    return aten.lerp.Scalar(input, end, weight)


def lerp_(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``Tensor.lerp_``: ``self`` moved towards ``end`` by ``weight``, in place."""
    if isinstance(weight, Tensor):
        return aten.lerp_.Tensor(self, end, weight)
    return aten.lerp_.Scalar(self, end, weight)


def _no_out(out: Any, name: str) -> None:
    if out is not None:
        raise NotImplementedError(f"{name}(out=...) is not supported by dispatchkit")


def _scaled_kwargs(beta: Any, alpha: Any) -> dict[str, Any]:
    """``beta`` / ``alpha`` as the binding passes them (given ones only; the schema drops defaults anyway)."""
    return {"beta": beta, "alpha": alpha}


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None) -> Tensor:  # noqa: A002
    """``beta * input + alpha * (mat @ vec)``."""
    _no_out(out, "addmv")
    return aten.addmv.default(input, mat, vec, **_scaled_kwargs(beta, alpha))


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None) -> Tensor:  # noqa: A002
    """``beta * input + alpha * outer(vec1, vec2)``."""
    _no_out(out, "addr")
    return aten.addr.default(input, vec1, vec2, **_scaled_kwargs(beta, alpha))


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1,  # noqa: A002
           out: Any = None) -> Tensor:
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    _no_out(out, "addbmm")
    return aten.addbmm.default(input, batch1, batch2, **_scaled_kwargs(beta, alpha))


def vdot(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """The dot product of two 1-d tensors, the first conjugated."""
    _no_out(out, "vdot")
    return aten.vdot.default(input, other)


def kron(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """The Kronecker product."""
    _no_out(out, "kron")
    return aten.kron.default(input, other)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """``torch.tensordot`` (torch/functional.py): ``dims`` an int (the last ``dims`` of a with the first of b),
    a pair of lists, or a tensor holding either."""
    _no_out(out, "tensordot")
    if not isinstance(dims, (tuple, list, Tensor, int)) or isinstance(dims, bool):
        raise RuntimeError("tensordot expects dims to be int or "
                           "Tuple[List[int], List[int]] or "
                           "List[List[int]] containing two lists, but got "
                           f"dims={dims}")
    if isinstance(dims, Tensor):
        dims = dims.item() if dims.numel() == 1 else dims.tolist()
    if isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise RuntimeError(f"tensordot expects dims to have length 2, but got {len(dims)}")
        dims_a, dims_b = dims[0], dims[1]
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    else:
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    return aten.tensordot.default(a, b, dims_a, dims_b)


def _addmv_method(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return aten.addmv.default(self, mat, vec, **_scaled_kwargs(beta, alpha))


def _addr_method(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return aten.addr.default(self, vec1, vec2, **_scaled_kwargs(beta, alpha))


def _addbmm_method(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return aten.addbmm.default(self, batch1, batch2, **_scaled_kwargs(beta, alpha))


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach ``Tensor.lerp``, ``lerp_``, ``addmv``, ``addr``, ``addbmm``, ``vdot`` and ``kron``."""
    T.lerp = lerp
    T.lerp_ = lerp_
    for name, fn in (("addmv", _addmv_method), ("addr", _addr_method), ("addbmm", _addbmm_method)):
        fn.__name__ = name
        setattr(T, name, fn)
    T.vdot = vdot
    T.kron = kron
