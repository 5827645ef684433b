"""Core-aten decompositions of the linear-algebra ops: ``dot``, ``mv``, ``baddbmm``, ``vdot``, ``addr``, ``trace`` and
``trace_backward``.

Corresponds to the entries of torch/_decomp/decompositions.py and torch/_refs/__init__.py PyTorch 2.13's
``core_aten_decompositions()`` holds; each calls the same aten ops in the same order:

* ``dot`` -> ``mul`` + ``sum``; ``mv`` -> ``mul`` + ``sum(dim=1)`` (half precision in float32);
  ``baddbmm`` -> ``bmm``, scaled by ``alpha``, plus ``beta * self`` (skipped for ``beta == 0``);
* ``vdot`` (real dtypes): ``dot``; ``addr``: ``beta * self.expand(n, m) + alpha * outer(vec1, vec2)`` (only the
  product when ``beta == 0``; ``logical_or`` for bool). NB: where the result's strides differ from the
  inputs' elementwise strides (a transposed operand) PyTorch appends ``prims.copy_strided``, which has no
  counterpart here: such graphs differ by that last node;
* ``trace``: the main diagonal made contiguous, summed; ``trace_backward``: the gradient put at every
  ``cols + 1``-th element of a flat zero tensor (``index_put``), viewed as the input's size.
"""

from __future__ import annotations

from typing import Any

from dispatcher import dtypes
from dispatcher.memory_format import contiguous_format, strided
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition
from .type_promotion import pw_cast_for_opmath

aten = namespace("aten")


@register_decomposition(aten.dot.default)
def dot(self: Tensor, other: Tensor) -> Tensor:
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
    if self.dtype != other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {self.dtype} and {other.dtype}")
    return (self * other).sum()


@register_decomposition(aten.mv.default)
@pw_cast_for_opmath
def mv(self: Tensor, vec: Tensor) -> Tensor:
    if self.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"matrix @ vector expected, got {self.dim()}, {vec.dim()}")
    if self.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({self.shape[0]}x{self.shape[1]}), vec ({vec.shape[0]})")
    return (self * vec).sum(dim=1)


@register_decomposition(aten.baddbmm.default)
def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if not self.dtype.is_floating_point and not self.dtype.is_complex:
        beta, alpha = int(beta), int(alpha)
    result = aten.bmm.default(batch1, batch2)
    if alpha != 1:
        result = result * alpha
    if beta == 0:
        return result
    if beta != 1:
        self = self * beta
    return self + result


# --- vdot, addr -------------------------------------------------------------------------------------------------------


@register_decomposition(aten.vdot.default)
def vdot(self: Tensor, other: Tensor) -> Tensor:
    if self._dtype.is_complex:
        raise NotImplementedError("vdot's decomposition for complex tensors (conj views) is not in dispatchkit")
    return aten.dot.default(self, other)


@register_decomposition(aten.addr.default)
def addr(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if vec1.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    result_dtype = dtypes.result_type(self, vec1, vec2)
    compute_dtype = dtypes.float32 if result_dtype is dtypes.float16 else result_dtype
    self, vec1, vec2 = (t if t._dtype is compute_dtype else aten._to_copy.default(t, dtype=compute_dtype)
                        for t in (self, vec1, vec2))
    expanded = aten.expand.default(self, [vec1._shape[0], vec2._shape[0]])
    if expanded._dtype is dtypes.bool:
        product = aten.outer.default(vec1, vec2) if alpha else aten.full_like.default(expanded, False)
        return product if not beta else aten.logical_or.default(expanded, product)
    if beta == 0:
        out = aten.mul.Tensor(aten.outer.default(vec1, vec2), alpha)
    else:
        scaled_self = aten.mul.Tensor(expanded, beta)
        out = aten.add.Tensor(scaled_self, aten.mul.Tensor(aten.outer.default(vec1, vec2), alpha))
    return out if compute_dtype is result_dtype else aten._to_copy.default(out, dtype=result_dtype)


# --- trace, trace_backward --------------------------------------------------------------------------------------------


@register_decomposition(aten.trace.default)
def trace(self: Tensor) -> Tensor:
    """The main diagonal made contiguous, summed over every dim."""
    diagonal = aten.clone.default(aten.diagonal.default(self), memory_format=contiguous_format)
    return aten.sum.dim_IntList(diagonal, [])


@register_decomposition(aten.trace_backward.default)
def trace_backward(grad: Tensor, sizes: list[int]) -> Tensor:
    """The gradient put at every ``cols + 1``-th element of a flat zero tensor, viewed as ``sizes``."""
    rows, cols = sizes
    flat = aten.full.default([rows * cols], 0, dtype=grad.dtype, layout=strided, device=grad.device,
                             pin_memory=False)
    indices = aten.arange.start_step(0, min(rows, cols) * (cols + 1), cols + 1, dtype=dtypes.int64, layout=strided,
                                     device=grad.device)
    values = aten.expand.default(grad, [min(rows, cols)])
    return aten.view.default(aten.index_put.default(flat, [indices], values), list(sizes))
