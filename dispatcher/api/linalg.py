"""Linear algebra: matmul / ``@``, mm / bmm / mv / dot / vdot / outer / kron, addmm / addmv / addr / addbmm /
baddbmm, einsum, tensordot, trace: torch-level functions and Tensor methods.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops and to
torch/functional.py's ``einsum`` and ``tensordot``. ``einsum`` calls ``_VF.einsum(equation, operands)``: a
single list or tuple of operands is unpacked; the sublist form ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])`` is
turned into an equation with labels A-Z for 0-25 and a-z for 26-51; opt_einsum is not used, as in torch 2.13
without the opt_einsum package. ``beta`` / ``alpha`` of addmm and baddbmm are passed only when not 1.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor, _no_out
from .bindings import _binary_tensor, _unary_method

aten = namespace("aten")

__all__ = ["cosine_similarity", "matmul", "mm", "bmm", "dot", "mv", "addmm", "baddbmm", "outer", "einsum", "addmv", "addr", "addbmm", "vdot",
           "kron", "tensordot", "trace"]


def matmul(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "matmul")
    return aten.matmul.default(input, other)


def mm(input: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "mm")
    return aten.mm.default(input, mat2)


def bmm(input: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "bmm")
    return aten.bmm.default(input, mat2)


def dot(input: Tensor, tensor: Tensor) -> Tensor:  # noqa: A002
    return aten.dot.default(input, tensor)


def mv(input: Tensor, vec: Tensor) -> Tensor:  # noqa: A002
    return aten.mv.default(input, vec)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1,  # noqa: A002
          out: Any = None) -> Tensor:
    _no_out(out, "addmm")
    return _addmm_method(input, mat1, mat2, beta=beta, alpha=alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``torch.baddbmm`` / ``Tensor.baddbmm``: ``beta * input + alpha * (batch1 @ batch2)``; scalars only when set."""
    kw: dict[str, Any] = {}
    if not (type(beta) is int and beta == 1):
        kw["beta"] = beta
    if not (type(alpha) is int and alpha == 1):
        kw["alpha"] = alpha
    return aten.baddbmm.default(input, batch1, batch2, **kw)


def outer(input: Tensor, vec2: Tensor) -> Tensor:  # noqa: A002
    """``torch.outer`` / ``Tensor.outer``: the outer product of two 1-D tensors."""
    return aten.outer.default(input, vec2)


# --- einsum / tensordot / trace -----------------------------------------------------------------------------------------
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


def trace(input: Tensor) -> Tensor:  # noqa: A002
    _check_tensor("trace", input)
    return aten.trace.default(input)


# --- addmv / addr / addbmm / vdot / kron ------------------------------------------------------------------------------
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


# --- Tensor methods and operators --------------------------------------------------------------------------------------
def _matmul_method(self: Tensor, other: Tensor) -> Tensor:
    return aten.matmul.default(self, other)


def _addmm_method(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    kwargs = {}
    if not (type(beta) is int and beta == 1):
        kwargs["beta"] = beta
    if not (type(alpha) is int and alpha == 1):
        kwargs["alpha"] = alpha
    return aten.addmm.default(self, mat1, mat2, **kwargs)


def _matmul_operator(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor):
        return NotImplemented
    return aten.matmul.default(self, other)


def _reflected_matmul(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor):
        return NotImplemented
    return aten.matmul.default(other, self)


def _addmv_method(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return aten.addmv.default(self, mat, vec, **_scaled_kwargs(beta, alpha))


def _addr_method(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return aten.addr.default(self, vec1, vec2, **_scaled_kwargs(beta, alpha))


def _addbmm_method(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return aten.addbmm.default(self, batch1, batch2, **_scaled_kwargs(beta, alpha))


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the linear algebra Tensor methods and operators (called by ``tensor_methods.install``)."""
    for name, arg in (("mm", "mat2"), ("bmm", "mat2"), ("dot", "tensor"), ("mv", "vec")):
        setattr(T, name, _binary_tensor(name, arg))
    T.matmul = _matmul_method
    T.addmm = _addmm_method
    T.__matmul__ = _matmul_operator
    T.__rmatmul__ = _reflected_matmul
    T.baddbmm = baddbmm
    T.outer = outer
    for name, fn in (("addmv", _addmv_method), ("addr", _addr_method), ("addbmm", _addbmm_method)):
        fn.__name__ = name
        setattr(T, name, fn)
    T.vdot = vdot
    T.kron = kron
    T.trace = _unary_method("trace")


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-08) -> Tensor:
    """``torch.cosine_similarity``: ``aten.cosine_similarity`` (CompositeImplicitAutograd)."""
    return aten.cosine_similarity.default(x1, x2, dim, eps)


# --- torch.linalg.lstsq / pinv (wt-lstsq): the functions of the torch.linalg namespace (dispatcher/linalg.py) ---
def _lstsq_type() -> type:
    """``torch.return_types.linalg_lstsq``: (solution, residuals, rank, singular_values) with PyTorch's repr."""
    import collections

    fields = ("solution", "residuals", "rank", "singular_values")
    base = collections.namedtuple("linalg_lstsq", fields)

    def __repr__(self: Any) -> str:  # noqa: N807
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"torch.return_types.linalg_lstsq(\n{body})"

    return type("linalg_lstsq", (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "torch.return_types"})


LinalgLstsqResult = _lstsq_type()


def lstsq(input: Tensor, b: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:  # noqa: A002
    """``torch.linalg.lstsq(A, B, rcond=None, *, driver=None)``: ``aten.linalg_lstsq`` as a named tuple."""
    return LinalgLstsqResult(*aten.linalg_lstsq.default(input, b, rcond, driver=driver))


def pinv(input: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:  # noqa: A002
    """``torch.linalg.pinv(A, *, atol=None, rtol=None, hermitian=False)``. Float tolerances become float64 scalar
    tensors (torch calls its ``atol_rtol_float`` overload, not listed here: same values)."""
    from .from_data import tensor as _tensor

    def tol(v: Any) -> Any:
        return _tensor(float(v), dtype=_float64()) if v is not None and not isinstance(v, Tensor) else v
    return aten.linalg_pinv.atol_rtol_tensor(input, atol=tol(atol), rtol=tol(rtol), hermitian=hermitian)


def _float64() -> Any:
    from ..dtypes import float64

    return float64
