"""Zero tensors: the ZeroTensor dispatch key on a tensor, its boxed fallback and the ZeroTensor kernels.

Corresponds to aten/src/ATen/ZeroTensorFallback.cpp (the fallback and the per-op fallthroughs registered on the
ZeroTensor key). The ZeroTensor kernels of native_functions.yaml live with their families:
ops/arithmetic_zero_tensor.py (``add_zerotensor``, ``sub_zerotensor``, ``mul_zerotensor``, ``div_zerotensor``)
and ops/views.py (``view`` / ``as_strided``: their CPU kernels, also registered on ZeroTensor).

A zero tensor (``torch._efficientzerotensor(size)``) is a tensor whose key set holds ``ZeroTensor``
(``_is_zerotensor()``). PyTorch gives it no storage; ours holds a zeros array, which reads the same, while the
observable rules are torch's: views keep the key (``view``, ``t``, ``select`` ... of a zero tensor are zero
tensors); an op with no ZeroTensor kernel reaches the fallback, which replaces each zero-tensor input by
``clone()`` (a plain tensor of zeros) and refuses a zero tensor in a written argument ("ZeroTensors are
immutable ..."); ``mul`` / ``div`` by a zero tensor give zero tensors, ``add`` / ``sub`` of one return the other
operand (converted to the result dtype and broadcast shape); the fallthrough ops (``clone``, ``copy_``, the
``*_like`` factories, ``dot`` ...) skip the key.
"""

from __future__ import annotations

from typing import Any

from .keys import DispatchKey
from .keyset import full_after_bits, key_bits

ZERO_BIT = key_bits(DispatchKey.ZeroTensor)
_AFTER_ZERO = full_after_bits(DispatchKey.ZeroTensor)

IMMUTABLE = ("ZeroTensors are immutable. Please use the materialized zero tensor obtained using .clone() if you "
             "want a mutable tensor.")

#: the aten ops torch 2.13 registers as fallthrough kernels on ZeroTensor (ZeroTensorFallback.cpp with
#: MathBitFallThroughLists.h), restricted to the ops listed here; tests/test_zero_tensor.py compares them with
#: torch's dispatch tables
ZERO_TENSOR_FALLTHROUGH = (
    "zeros_like", "empty_like", "empty_strided", "empty.memory_format", "mul.Scalar", "add.Scalar", "copy_",
    "clone", "dot", "vdot", "_conj", "conj", "real", "imag", "view_as_real", "alias", "_unsafe_view", "t", "t_",
    "unsqueeze", "unsqueeze_", "squeeze", "squeeze_", "transpose.int", "transpose_", "permute", "expand",
    "expand_as", "select.int", "detach", "detach_", "unbind.int", "split.Tensor", "split_with_sizes", "narrow",
    "reshape", "chunk", "view_as", "diagonal", "movedim.intlist", "movedim.int", "swapaxes", "swapdims",
    "unflatten.int", "as_strided_", "full_like",
)

#: the ops with a ZeroTensor kernel of their own (native_functions.yaml), restricted to the ops listed here
ZERO_TENSOR_KERNELS = ("add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "view", "as_strided")


def is_zerotensor(t: Any) -> bool:
    return bool(getattr(t, "_key_set", 0) & ZERO_BIT)


def make_zerotensor(t: Any) -> Any:
    """Give ``t`` (fresh, zero-filled) the ZeroTensor key: what ``_efficientzerotensor`` returns."""
    t._key_set |= ZERO_BIT
    return t


# --- the fallback (zeroTensorFallback) ----------------------------------------------------------------------------

def zero_tensor_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """Materialize the zero-tensor inputs (zeros expanded to their size), refuse written ones, redispatch below
    ZeroTensor."""
    from .dispatch import redispatch_bound
    from .math_bits import _schema_args
    from .op_overload import namespace

    entries = _schema_args(op, args, kwargs)
    is_write = None
    for arg, _value, _where in entries:
        if arg.alias_info is not None:
            if is_write is not None and is_write != arg.alias_info.is_write:
                raise RuntimeError(
                    f"Unsupported operator for ZeroTensorFallback: {op.name()}ZeroTensor fallback doesn't work for "
                    "operators with a mix mutable and non-mutable inputs that alias with outputs, this must be "
                    "implemented manually.  If you got this error on a core op, please report a bug to PyTorch.")
            is_write = arg.alias_info.is_write
    if is_write is False:  # a view: the output keeps the key
        return redispatch_bound(op, ks & _AFTER_ZERO, args, kwargs)
    aten = namespace("aten")

    def materialize(t: Any) -> Any:  # at::zeros({}, options).expand(sizes): a stride-0 tensor of zeros
        return aten.expand.default(aten.zeros.default([], dtype=t.dtype, layout=t.layout, device=t.device),
                                   list(t.shape))

    new_args, new_kwargs = list(args), dict(kwargs)
    for arg, value, where in entries:
        if value is None or arg.kind == "other":
            continue
        mutable = arg.alias_info is not None
        if arg.kind in ("tensor", "optional_tensor"):
            if not is_zerotensor(value):
                continue
            if mutable:
                raise RuntimeError(IMMUTABLE)
            new_value: Any = materialize(value)
        else:
            items = list(value)
            if not any(is_zerotensor(item) for item in items):
                continue
            if mutable:
                raise RuntimeError(IMMUTABLE)
            new_value = [materialize(item) if is_zerotensor(item) else item for item in items]
        if isinstance(where, int):
            new_args[where] = new_value
        else:
            new_kwargs[where] = new_value
    return redispatch_bound(op, ks & _AFTER_ZERO, tuple(new_args), new_kwargs)


def register(lib: Any, listed: set[str]) -> None:
    """Register the ZeroTensor fallthroughs on aten (called by ops/registration.py; the ZeroTensor kernels are
    registered from their families' files, ops/arithmetic_zero_tensor.py and ops/views.py)."""
    from .library.core import fallthrough_kernel

    for name in ZERO_TENSOR_FALLTHROUGH:
        if name in listed:
            lib.impl(name, fallthrough_kernel, "ZeroTensor",
                     debug="registered at dispatcher/zero_tensor.py(ZeroTensorFallback.cpp)")
