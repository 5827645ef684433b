"""Metadata operators: ``dim``, ``numel``, ``sym_size`` / ``sym_stride`` / ``sym_numel`` / ``sym_storage_offset``,
``is_contiguous``, and TorchScript's ``prim::device`` / ``prim::layout``.

Corresponds to aten/src/ATen/native/TensorProperties.cpp (``dim``, ``numel``, ``is_contiguous``, ``sym_*``: all
CompositeImplicitAutograd, reading the TensorImpl) and the TorchScript operators of
torch/csrc/jit/runtime/register_prim_ops.cpp (``aten::sym_size``, ``aten::sym_stride``,
``aten::is_strides_like_format``, ``aten::is_non_overlapping_and_dense``, ``prim::device``, ``prim::layout``), which
are not in the dispatcher's tables but are callable as ``torch.ops.aten.sym_size.default``.

These ops matter for tensor subclasses: a tensor made with ``dispatch_sizes_strides_policy`` /
``dispatch_device`` / ``dispatch_layout`` answers these queries in its ``__torch_dispatch__``, which receives
these very OpOverloads (modes/subclass_metadata.py). Each kernel reads the tensor's metadata through the Tensor
methods, so on such a tensor it asks the subclass again, as PyTorch's kernels reading ``sizes()`` do.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ..memory_format import as_memory_format, is_channels_last_strides_2d, is_channels_last_strides_3d
from .kernel_registry import impl


@impl("dim", "CompositeImplicitAutograd")
def dim(self: Any) -> int:
    return self.dim()


@impl("numel", "CompositeImplicitAutograd")
def numel(self: Any) -> int:
    return self.numel()


@impl("sym_size.int", "CompositeImplicitAutograd")
def sym_size_int(self: Any, dim: int) -> int:
    return self.size(dim)


@impl("sym_stride.int", "CompositeImplicitAutograd")
def sym_stride_int(self: Any, dim: int) -> int:
    return self.stride(dim)


@impl("sym_numel", "CompositeImplicitAutograd")
def sym_numel(self: Any) -> int:
    return self.numel()


@impl("sym_storage_offset", "CompositeImplicitAutograd")
def sym_storage_offset(self: Any) -> int:
    return self.storage_offset()


@impl("is_contiguous", "CompositeImplicitAutograd")
def is_contiguous(self: Any) -> bool:
    return self.is_contiguous()


@impl("is_contiguous.memory_format", "CompositeImplicitAutograd")
def is_contiguous_memory_format(self: Any, memory_format: Any) -> bool:
    return self.is_contiguous(memory_format=as_memory_format(memory_format))


@impl("sym_is_contiguous", "CompositeImplicitAutograd")
def sym_is_contiguous(self: Any, memory_format: Any = 0) -> bool:
    return self.is_contiguous(memory_format=as_memory_format(memory_format))


# --- TorchScript's operators (register_prim_ops.cpp): callable through torch.ops, absent from dispatch tables --------
def _ask_policy(self: Any, name: str, *extra: Any) -> Any:
    """A tensor with a custom strides policy answers in ``__torch_dispatch__`` (None: the stored geometry's answer)."""
    if not self._python_policy & 1:
        return None
    from ..modes.subclass_metadata import ask

    return ask(self, "aten", name, *extra)


def _is_strides_like_format(self: Any, memory_format: Any) -> bool:
    """``TensorImpl::is_strides_like(memory_format)``: channels-last strides for channels_last (4-d) and
    channels_last_3d (5-d); False for every other format."""
    answer = _ask_policy(self, "is_strides_like_format", as_memory_format(memory_format))
    if answer is not None:
        return bool(answer)
    code = as_memory_format(memory_format).code
    check = {2: is_channels_last_strides_2d, 3: is_channels_last_strides_3d}.get(code)
    return check is not None and check(self._shape, self._stride)


def _is_non_overlapping_and_dense(self: Any) -> bool:
    """No two elements share memory and the elements fill a dense block, in some order of the dims."""
    answer = _ask_policy(self, "is_non_overlapping_and_dense")
    if answer is not None:
        return bool(answer)
    sizes, strides = self._shape, self._stride
    if any(s == 0 for s in sizes):
        return True
    expected = 1
    for i in sorted(range(len(sizes)), key=lambda d: (strides[d], sizes[d])):
        if sizes[i] == 1:
            continue
        if strides[i] != expected:
            return False
        expected *= sizes[i]
    return True


JIT_OPS: tuple[tuple[str, Any], ...] = (
    ("aten::sym_size(Tensor self) -> SymInt[]", lambda self: tuple(self.size())),
    ("aten::sym_stride(Tensor self) -> SymInt[]", lambda self: tuple(self.stride())),
    ("aten::size(Tensor self) -> int[]", lambda self: list(self.size())),
    ("aten::stride(Tensor self) -> int[]", lambda self: list(self.stride())),
    ("aten::is_strides_like_format(Tensor self, MemoryFormat memory_format) -> bool", _is_strides_like_format),
    ("aten::is_non_overlapping_and_dense(Tensor self) -> bool", _is_non_overlapping_and_dense),
    ("prim::device(Tensor a) -> Device", lambda a: a.device),
    ("prim::layout(Tensor a) -> Layout", lambda a: a.layout),
)

_JIT_LIBRARIES: list[Any] = []


@contextlib.contextmanager
def _reserved_namespaces_open() -> Iterator[None]:
    """TorchScript defines ``prim::`` operators itself; a user Library may not (the reserved-namespace rule)."""
    from ..library import core

    saved = core._RESERVED_NAMESPACES
    core._RESERVED_NAMESPACES = ()
    try:
        yield
    finally:
        core._RESERVED_NAMESPACES = saved


def register_jit_ops() -> None:
    """Define the TorchScript metadata operators (once), each with a CompositeImplicitAutograd kernel."""
    if _JIT_LIBRARIES:
        return
    from ..library import Library

    with _reserved_namespaces_open():
        libs = {ns: Library(ns, "FRAGMENT") for ns in ("aten", "prim")}
    for schema, fn in JIT_OPS:
        ns, rest = schema.split("::", 1)
        name = libs[ns].define(rest, debug="registered at dispatcher/ops/tensor_info.py")
        libs[ns].impl(name, fn, "CompositeImplicitAutograd", debug="registered at dispatcher/ops/tensor_info.py")
    _JIT_LIBRARIES.extend(libs.values())


__all__ = ["JIT_OPS", "register_jit_ops"]
