"""The ZeroTensor kernels of the arithmetic family: ``add.Tensor`` / ``sub.Tensor`` / ``mul.Tensor`` / ``div.Tensor``
on zero tensors (dispatcher/zero_tensor.py).

Corresponds to the ``ZeroTensor:`` dispatch entries of these ops in native_functions.yaml (``add_zerotensor``,
``sub_zerotensor``, ``mul_zerotensor``, ``div_zerotensor`` in BinaryOps.cpp). Each finds the result's shape and
dtype by running the op's Meta kernel on meta copies (``_to_copy(t, device="meta")`` then a redispatch to Meta),
with the ZeroTensor key excluded meanwhile (the zero tensors it copies are not materialized):

* ``mul``: a zero tensor of that shape and dtype; ``div``: one when only the dividend is zero, else a plain
  tensor full of inf (``x / 0``) or nan (``0 / 0``);
* ``add`` / ``sub``: two zero tensors give a zero tensor; one gives the other operand expanded to the result
  shape and converted to the result dtype (``_to_copy(expand(x))``), times ``alpha`` (``-alpha`` for sub) when it
  is the second.
"""

from __future__ import annotations

from typing import Any

from ..keys import DispatchKey
from ..keyset import key_bits
from ..tls import ExcludeDispatchKeyGuard
from ..zero_tensor import is_zerotensor
from .composite import _op
from .kernel_registry import impl

_META_KS = key_bits(DispatchKey.Meta)


def _broadcast_check(self: Any, other: Any) -> None:
    """torch's meta computation goes through the prims references: a shape mismatch gives their message
    (torch._refs ``_broadcast_shapes``)."""
    shapes = [tuple(t.shape) for t in (self, other) if hasattr(t, "_key_set")]
    common = [1] * max((len(s) for s in shapes), default=0)
    for index, shape in enumerate(shapes):
        for d in range(-1, -1 - len(shape), -1):
            if common[d] == 1:
                common[d] = shape[d]
            elif shape[d] != 1 and common[d] != shape[d]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[d]} at {d}! Mismatching argument at index "
                    f"{index} had torch.Size({list(shape)}); but expected shape should be broadcastable to {common}")


def _meta_result(name: str, self: Any, other: Any) -> Any:
    """The result of ``name`` on meta copies of the operands (``at::_ops::<op>::redispatch(Meta, ...)``)."""
    from ..dispatch import redispatch_op
    from ..tensor import device

    _broadcast_check(self, other)
    to_copy = _op("_to_copy")
    meta = device("meta")

    def on_meta(t: Any) -> Any:
        return to_copy(t, device=meta) if hasattr(t, "_key_set") else t

    return redispatch_op(_op(name), _META_KS, on_meta(self), on_meta(other))


def _zeros_like_meta(meta: Any, device: Any) -> Any:
    return _op("_efficientzerotensor")(list(meta.shape), dtype=meta.dtype, layout=meta.layout, device=device)


def _out_device(self: Any, other: Any) -> Any:
    """``correct_out_device``: the device of a non-zero-dim tensor operand."""
    for t in (self, other):
        if hasattr(t, "_key_set") and t.dim() != 0:
            return t.device
    return self.device if hasattr(self, "_key_set") else other.device


@impl("mul.Tensor", "ZeroTensor")
def mul_zerotensor(self: Any, other: Any) -> Any:
    with ExcludeDispatchKeyGuard(DispatchKey.ZeroTensor):
        meta = _meta_result("mul.Tensor", self, other)
        return _zeros_like_meta(meta, _out_device(self, other))


@impl("div.Tensor", "ZeroTensor")
def div_zerotensor(self: Any, other: Any) -> Any:
    with ExcludeDispatchKeyGuard(DispatchKey.ZeroTensor):
        meta = _meta_result("div.Tensor", self, other)
        out_device = _out_device(self, other)
        if is_zerotensor(other):
            fill = float("nan") if is_zerotensor(self) else float("inf")
            return _op("full")(list(meta.shape), fill, dtype=meta.dtype, layout=meta.layout, device=out_device)
        return _zeros_like_meta(meta, out_device)


def _add(self: Any, other: Any, alpha: Any) -> Any:
    meta = _meta_result("add.Tensor", self, other)
    out_device = _out_device(self, other)
    if is_zerotensor(self) and is_zerotensor(other):
        return _zeros_like_meta(meta, out_device)

    def out_like(t: Any) -> Any:
        if not hasattr(t, "_key_set"):
            return _op("full")(list(meta.shape), t, dtype=meta.dtype, layout=meta.layout, device=out_device)
        return _op("_to_copy")(_op("expand")(t, list(meta.shape)), dtype=meta.dtype, layout=meta.layout,
                               device=out_device)

    if is_zerotensor(self):
        result = out_like(other)
        return result if alpha == 1 else _op("mul.Tensor")(result, alpha)
    return out_like(self)


@impl("add.Tensor", "ZeroTensor")
def add_zerotensor(self: Any, other: Any, *, alpha: Any = 1) -> Any:
    with ExcludeDispatchKeyGuard(DispatchKey.ZeroTensor):
        return _add(self, other, alpha)


@impl("sub.Tensor", "ZeroTensor")
def sub_zerotensor(self: Any, other: Any, *, alpha: Any = 1) -> Any:
    with ExcludeDispatchKeyGuard(DispatchKey.ZeroTensor):
        return _add(self, other, -alpha)
