"""Core-aten decompositions of the reflection / replication padding ops.

Corresponds to torch/_decomp/decompositions.py's ``_reflection_pad`` / ``_replication_pad`` (through
``_reflection_or_replication_pad``): for each padded dim, first dim first, an index vector over
``arange(-left, size + right)`` (reflect: ``(size-1) - |(size-1) - |i||``, replicate: ``clamp(i, 0, size-1)``) gathers
along that dim (``_unsafe_index``, which lowers to ``index.Tensor``); half-precision inputs are computed in float32
(``pw_cast_for_opmath``). The backward ops' decomposition
(``_reflection_pad_backward``) needs ``_unsafe_masked_index``, which the listing lacks (``MISSING_CORE_DECOMPOSITIONS``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dispatcher.memory_format import strided
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition
from .type_promotion import pw_cast_for_opmath

aten = namespace("aten")


def _arange(a: Tensor, left: int, size: int, right: int) -> Tensor:
    return aten.arange.start_step(-left, size + right, layout=strided, device=a.device, pin_memory=False)


def _reflect_index(a: Tensor, left: int, size: int, right: int) -> Tensor:
    i = _arange(a, left, size, right)
    return aten.sub.Tensor(size - 1, aten.abs.default(aten.sub.Tensor(size - 1, aten.abs.default(i))))


def _replicate_index(a: Tensor, left: int, size: int, right: int) -> Tensor:
    return aten.clamp.default(_arange(a, left, size, right), 0, size - 1)


def _pad_by_index(name: str, a: Tensor, padding: Sequence[int],
                  index_fn: Callable[[Tensor, int, int, int], Tensor]) -> Tensor:
    dim = len(padding) // 2
    if a.dim() not in (dim + 1, dim + 2):
        raise RuntimeError(f"reflection_pad{dim}d requires {dim + 1}D or {dim + 2}D input")
    sizes = list(a.shape[-dim:])
    nc_dim = a.dim() - dim
    left = [int(padding[2 * (dim - 1 - i)]) for i in range(dim)]
    right = [int(padding[2 * (dim - 1 - i) + 1]) for i in range(dim)]
    result = a
    for i in range(dim):
        idx: list = [None] * result.dim()
        idx[i + nc_dim] = index_fn(a, left[i], sizes[i], right[i])
        result = aten.index.Tensor(result, idx)
    return result


@register_decomposition([aten.reflection_pad1d.default, aten.reflection_pad2d.default, aten.reflection_pad3d.default])
@pw_cast_for_opmath
def reflection_pad(a: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad_by_index("reflection", a, padding, _reflect_index)


@register_decomposition([aten.replication_pad1d.default, aten.replication_pad2d.default,
                         aten.replication_pad3d.default])
@pw_cast_for_opmath
def replication_pad(a: Tensor, padding: Sequence[int]) -> Tensor:
    return _pad_by_index("replication", a, padding, _replicate_index)
