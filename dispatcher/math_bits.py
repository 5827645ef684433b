"""The lazy math bits: the conjugate and negative bits of a tensor, and the fallbacks that resolve them.

Corresponds to c10's ``TensorImpl::is_conj`` / ``_set_conj`` / ``is_neg`` / ``_set_neg`` (the bits are the
``Conjugate`` and ``Negative`` dispatch keys in the tensor's key set), and to aten/src/ATen/ConjugateFallback.cpp,
native/NegateFallback.cpp and native/MathBitsFallback.h (the boxed fallbacks registered on those keys).

A tensor with the conjugate bit set stores conj(value) physically: ``x.conj()`` is a view sharing ``x``'s
storage, with only the bit flipped. Likewise the negative bit (``x._neg_view()``, ``x.conj().imag``). The values
a reader must see are ``logical_values(t)``. Kernels do not read bits: an op called on a tensor with a bit reaches
the bit's dispatch key first, whose fallback (``math_op_fallback``) clones such inputs (``clone`` materializes the
bit: its ``copy_`` writes logical values) and redispatches below the key; an in-place / out= op writes the result
back into the original tensor with ``copy_``. Views pass the bit on (their outputs alias the input); the ops torch
lists as fallthroughs on these keys (views, ``clone``, ``copy_``, the factories ``empty_like`` ..., and for
Conjugate the BLAS ops ``mm`` / ``bmm`` / ``addmm`` / ``baddbmm`` / ``dot`` / ``vdot``, whose kernels read conj
inputs themselves) skip the key entirely.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from .keys import DispatchKey
from .keyset import full_after_bits, key_bits

CONJ_BIT = key_bits(DispatchKey.Conjugate)
NEG_BIT = key_bits(DispatchKey.Negative)
MATH_BITS = CONJ_BIT | NEG_BIT
#: the bits a view passes on: the math bits and the ZeroTensor key (zero_tensor.py)
VIEW_BITS = MATH_BITS | key_bits(DispatchKey.ZeroTensor)

#: the aten ops torch 2.13 registers as fallthrough kernels on Conjugate / Negative (ConjugateFallback.cpp,
#: NegateFallback.cpp with MathBitFallThroughLists.h), restricted to the ops listed here; the tests compare
#: them with torch's dispatch tables
CONJUGATE_FALLTHROUGH = (
    "mm", "bmm", "addmm", "dot", "baddbmm", "vdot", "view", "as_strided", "empty.memory_format", "empty_strided",
    "t", "_unsafe_view", "unsqueeze", "squeeze", "transpose.int", "permute", "expand", "select.int", "alias",
    "detach", "detach_", "unbind.int", "split.Tensor", "clone", "empty_like", "full_like", "copy_",
    "split_with_sizes", "narrow", "reshape", "chunk", "expand_as", "view_as", "diagonal", "movedim.intlist",
    "movedim.int", "swapaxes", "swapdims", "unflatten.int", "t_", "transpose_", "unsqueeze_", "squeeze_",
    "as_strided_", "set_", "set_.source_Tensor", "set_.source_Storage_storage_offset",
    # the ops of this family
    "_conj", "conj", "resolve_conj", "resolve_neg", "conj_physical", "conj_physical_", "_conj_physical", "real",
    "imag", "view_as_real",
)
NEGATIVE_FALLTHROUGH = (
    "view", "as_strided", "empty.memory_format", "empty_strided", "neg_", "t", "_unsafe_view", "unsqueeze",
    "squeeze", "transpose.int", "permute", "expand", "select.int", "alias", "detach", "detach_", "unbind.int",
    "split.Tensor", "clone", "empty_like", "full_like", "copy_", "split_with_sizes", "narrow", "reshape", "chunk",
    "expand_as", "view_as", "diagonal", "movedim.intlist", "movedim.int", "swapaxes", "swapdims", "unflatten.int",
    "t_", "transpose_", "unsqueeze_", "squeeze_", "as_strided_", "set_", "set_.source_Tensor",
    "set_.source_Storage_storage_offset",
    "_conj", "conj", "resolve_conj", "resolve_neg", "real", "imag", "view_as_real",
)


def is_conj(t: Any) -> bool:
    return bool(getattr(t, "_key_set", 0) & CONJ_BIT)


def is_neg(t: Any) -> bool:
    return bool(getattr(t, "_key_set", 0) & NEG_BIT)


def logical_values(t: Any) -> np.ndarray:
    """The values ``t`` stands for: its NumPy data with its conjugate / negative bits applied (no dispatch)."""
    data = t._data
    bits = t._key_set & MATH_BITS
    if not bits or data is None:
        return data
    if bits & CONJ_BIT:
        data = np.conj(data)
    if bits & NEG_BIT:
        _check_negatable(t._dtype)
        data = np.negative(data)
    return data


def _check_negatable(dt: Any) -> None:
    """Resolving a negative bit runs ``neg``'s CPU kernel in torch, whose switch has no barebones unsigned case."""
    if _dt.is_barebones_unsigned(dt):
        from .ops.meta_utils import scalar_type_name

        raise NotImplementedError(f'"neg_cpu" not implemented for \'{scalar_type_name(dt)}\'')


def to_physical(dst: Any, values: np.ndarray) -> np.ndarray:
    """What to store in ``dst`` so that it reads as ``values`` (the bits are their own inverses)."""
    bits = dst._key_set & MATH_BITS
    if bits & CONJ_BIT and dst._dtype.is_complex:
        values = np.conj(values)
    if bits & NEG_BIT:
        _check_negatable(dst._dtype)
        values = np.negative(values)
    return values


def resolved(t: Any) -> Any:
    """``t`` itself, or (bits set) a fresh CPU tensor holding its logical values, made without dispatch: what
    the kernels of the Conjugate fallthrough BLAS ops read, as torch's conj-aware BLAS calls do."""
    if not (getattr(t, "_key_set", 0) & MATH_BITS) or t._data is None:
        return t
    from .tensor import Tensor

    return Tensor._wrap_contiguous(np.ascontiguousarray(logical_values(t)), t._dtype)


def copy_bits(dst: Any, src: Any) -> Any:
    """Give ``dst`` (a view of ``src`` being built) ``src``'s math bits (and ZeroTensor key), as ``alias`` copies
    the key set."""
    bits = src._key_set & VIEW_BITS
    if bits:
        dst._key_set |= bits
    return dst


def set_bit(t: Any, bit: int, value: bool) -> None:
    """``_set_conj`` / ``_set_neg``."""
    t._key_set = (t._key_set | bit) if value else (t._key_set & ~bit)


# --- the fallback (MathOpFallback::fallback_impl) ---------------------------------------------------------------

def _schema_args(op: Any, args: tuple, kwargs: dict) -> list[tuple[Any, Any, str | None]]:
    """(argument, value, where) for each schema argument: where is an index into args or a kwargs name."""
    out = []
    positional = 0
    for arg in op._schema.arguments:
        if arg.kwarg_only:
            out.append((arg, kwargs.get(arg.name), arg.name))
        elif positional < len(args):
            out.append((arg, args[positional], positional))
            positional += 1
        else:
            out.append((arg, kwargs.get(arg.name), arg.name))
    return out


def _make_math_fallback(key: DispatchKey, bit: int, op_name: str) -> Any:
    mask = full_after_bits(key)

    def fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        from .dispatch import redispatch_bound
        from .op_overload import namespace

        entries = _schema_args(op, args, kwargs)
        is_write = None
        for arg, _value, _where in entries:
            if arg.alias_info is not None:
                if is_write is not None and is_write != arg.alias_info.is_write:
                    raise RuntimeError(
                        f"Unsupported operator for {op_name} fallback: {op.name()}{op_name} fallback doesn't work "
                        "for operators with a mix mutable and non-mutable inputs that alias with outputs, this "
                        "must be implemented manually.  If you got this error on a core op, please report a bug "
                        "to PyTorch.")
                is_write = arg.alias_info.is_write
        if is_write is False:  # a view: the output carries the bit on
            return redispatch_bound(op, ks & mask, args, kwargs)
        clone = namespace("aten").clone.default
        new_args, new_kwargs = list(args), dict(kwargs)
        mutable: list[tuple[Any, Any]] = []
        for arg, value, where in entries:
            if value is None:
                continue
            if arg.kind == "tensor" or arg.kind == "optional_tensor":
                if not (getattr(value, "_key_set", 0) & bit):
                    continue
                resolved_value = clone(value)
                if arg.alias_info is not None:
                    if mutable:
                        raise RuntimeError(f"{op_name} fallback does not support operators with more than one "
                                           f"mutable tensors with {op_name}bit set to true.")
                    mutable.append((value, resolved_value))
            elif arg.kind != "other":
                items = list(value)
                changed = False
                for j, item in enumerate(items):
                    if item is None or not (getattr(item, "_key_set", 0) & bit):
                        continue
                    if arg.alias_info is not None:
                        raise RuntimeError(
                            f" fallback doesn't currently support mutable TensorLists with {op_name} inputs. Please "
                            f"materialize all the {op_name} input tensor(s) in the mutable TensorList inputs before "
                            f"calling {op.name()}")
                    items[j] = clone(item)
                    changed = True
                if not changed:
                    continue
                resolved_value = items
            else:
                continue
            if isinstance(where, int):
                new_args[where] = resolved_value
            else:
                new_kwargs[where] = resolved_value
        result = redispatch_bound(op, ks & mask, tuple(new_args), new_kwargs)
        for original, _clone in mutable:
            returned = result[0] if isinstance(result, (tuple, list)) else result
            if tuple(original._shape) != tuple(returned._shape):  # out= arguments: at::native::resize_output
                namespace("aten").resize_.default(original, list(returned._shape))
            original.copy_(returned)
            if isinstance(result, tuple):
                result = (original,) + tuple(result[1:])
            elif isinstance(result, list):
                result = [original] + list(result[1:])
            else:
                result = original
        return result

    fallback.__qualname__ = f"{key.name}_fallback"
    return fallback


conjugate_fallback = _make_math_fallback(DispatchKey.Conjugate, CONJ_BIT, "conjugate")
negation_fallback = _make_math_fallback(DispatchKey.Negative, NEG_BIT, "negation")
