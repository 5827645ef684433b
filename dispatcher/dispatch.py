"""The call path: from ``op(*args)`` to a kernel, and redispatch.

Corresponds to c10::Dispatcher::call / redispatchBoxed / callBoxedForDispatchKey
(aten/src/ATen/core/dispatch/Dispatcher.h) and DispatchKeyExtractor.

One call:

1. **bind** the Python arguments to the schema (boxed form, defaults dropped);
2. **key set** = OR of the key sets of the tensor arguments, | TLS included,
   - TLS excluded (backend bits stay), & the op's non-fallthrough keys;
3. **key** = the highest functionality bit, combined with the highest backend
   bit for per-backend functionalities (no loop over keys);
4. **kernel** = the op's table slot for that key; call it.

A kernel continues the dispatch with ``op.redispatch(ks & full_after(own_key), ...)``,
which skips step 2's TLS (the key set given is used as is). The hot path works
on plain ints.
"""

from __future__ import annotations

from typing import Any

from .arg_parser import numbers_from_tensors
from .errors import DispatchError, SchemaArgumentError
from .keys import PER_BACKEND_START, DispatchKey, is_per_backend_functionality
from .keyset import BACKEND_MASK, DispatchKeySet
from .registry import REGISTRY
from .tls import per_thread

_BACKEND_MASK = BACKEND_MASK
_PBS = PER_BACKEND_START
_CPU_AND_META = 1 | (1 << 15)  # the CPU and Meta backend bits
_META_KEY = int(DispatchKey.Meta)
#: ``(op, kernel) -> kernel | None``: the kernel for a call mixing CPU and meta tensors whose Meta kernel was
#: found (installed by dispatcher.ops.registration: ops/devices.py's device checks); None keeps the kernel
MIXED_DEVICE_KERNEL: Any = None


def _extra_tensor_keys(op: Any, args: tuple, kwargs: dict) -> int:
    """Key sets from tensor lists and keyword-only tensors (rarer than plain tensor args)."""
    ks = 0
    n = len(args)
    for i in op._list_positions:
        if i < n and args[i] is not None:
            for t in args[i]:
                ks |= getattr(t, "_key_set", 0)
    for name, is_list in op._kwarg_tensors:
        value = kwargs.get(name)
        if value is None:
            continue
        if is_list:
            for t in value:
                ks |= getattr(t, "_key_set", 0)
        else:
            ks |= getattr(value, "_key_set", 0)
    return ks


def arg_key_set(op: Any, args: tuple, kwargs: dict) -> int:
    """OR of the key sets of every Tensor / Tensor? / Tensor[] argument (already bound)."""
    ks = 0
    n = len(args)
    for i in op._tensor_positions:
        if i < n:
            ks |= getattr(args[i], "_key_set", 0)
    if op._has_extra_tensor_args:
        ks |= _extra_tensor_keys(op, args, kwargs)
    return ks


def compute_call_key_set(op: Any, args: tuple, kwargs: dict) -> int:
    """Step 2 for already-bound arguments: the key set a fresh call dispatches on."""
    t = per_thread.s
    ks = (arg_key_set(op, args, kwargs) | t.included) & t.exclude_mask
    return ks & op._nft_masks[(ks & _BACKEND_MASK).bit_length()]


def call_op(op: Any, /, *args: Any, **kwargs: Any) -> Any:
    """``op(*args, **kwargs)``: a full dispatcher call. Installed as ``OpOverload.__call__``."""
    try:
        args, kwargs = op._bind(args, kwargs)
    except SchemaArgumentError:
        # the torch-level functions' number arguments take 0-dim tensors (arg_parser.py); else the schema's error
        parsed = numbers_from_tensors(op, args, kwargs)
        if parsed is None:
            raise
        args, kwargs = op._bind(*parsed)
    ks = 0
    n = len(args)
    for i in op._tensor_positions:
        if i < n:
            ks |= getattr(args[i], "_key_set", 0)
    if op._has_extra_tensor_args:
        ks |= _extra_tensor_keys(op, args, kwargs)
    t = per_thread.s
    arg_ks = ks
    ks = (ks | t.included) & t.exclude_mask
    hit = op._ks_cache.get(ks)
    if hit is None:
        hit = resolve_key_set(op, ks)
    ks, key, kernel = hit
    if t.tracer is not None:
        t.tracer.on_call("call", op, arg_ks, ks, key, kernel)
    if kernel is None:
        raise missing_kernel_error(op, ks, key)
    c = kernel.convention
    if c == 0:
        return kernel.fn(*args, **kwargs)
    if c == 4:
        return kernel.fn(op, ks, args, kwargs)
    return kernel.call(op, ks, args, kwargs)


def resolve_key_set(op: Any, ks: int) -> tuple[int, int, Any]:
    """(key set without the op's fallthrough keys, dispatch key, kernel) for a raw key set; cached per op."""
    masked = ks & op._nft_masks[(ks & _BACKEND_MASK).bit_length()]
    v = (masked >> 16).bit_length()
    s = _PBS[v]
    key = s + (masked & _BACKEND_MASK).bit_length() if s else v
    result = (masked, key, op._table[key])
    if masked & _CPU_AND_META == _CPU_AND_META and key == _META_KEY and result[2] is not None \
            and MIXED_DEVICE_KERNEL is not None:
        mixed = MIXED_DEVICE_KERNEL(op, result[2])
        if mixed is not None:
            result = (masked, key, mixed)
    cache = op._ks_cache
    if len(cache) < 256:
        cache[ks] = result
    return result


def redispatch_op(op: Any, keyset: DispatchKeySet | int, /, *args: Any, **kwargs: Any) -> Any:
    """``op.redispatch(ks, ...)``: dispatch on ``ks`` as given (no TLS), skipping fallthrough keys."""
    args, kwargs = op._bind(args, kwargs)
    return redispatch_bound(op, keyset if isinstance(keyset, int) else keyset.repr, args, kwargs)


def redispatch_bound(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """Redispatch with arguments already in schema form (used by built-in boxed kernels)."""
    given = ks
    hit = op._ks_cache.get(ks)
    if hit is None:
        hit = resolve_key_set(op, ks)
    ks, key, kernel = hit
    t = per_thread.s
    if t.tracer is not None:
        t.tracer.on_call("redispatch", op, given, ks, key, kernel)
    if kernel is None:
        raise missing_kernel_error(op, ks, key)
    c = kernel.convention
    if c == 0:
        return kernel.fn(*args, **kwargs)
    if c == 4:
        return kernel.fn(op, ks, args, kwargs)
    return kernel.call(op, ks, args, kwargs)


def redispatch_excluding(op: Any, ks: int, after: int, exclude: int, args: tuple, kwargs: dict) -> Any:
    """Redispatch on ``ks & after`` with the keys ``exclude`` TLS-excluded meanwhile.

    The boxed form of ``with AutoDispatchBelowAutograd(): op.redispatch(ks & FULL_AFTER(k), ...)``: nested
    fresh calls made by the kernels below skip the excluded keys, as in PyTorch's VariableType kernels.
    """
    t = per_thread.s
    given = ks & after
    # redispatch_bound's body, inlined: this runs on every autograd hop of every op.
    hit = op._ks_cache.get(given)
    if hit is None:
        hit = resolve_key_set(op, given)
    ks, key, kernel = hit
    if t.tracer is not None:
        t.tracer.on_call("redispatch", op, given, ks, key, kernel)
    if kernel is None:
        raise missing_kernel_error(op, ks, key)
    added = exclude & ~t.excluded
    if added:
        t.excluded |= added
        t.exclude_mask = ~(t.excluded & ~_BACKEND_MASK)
    try:
        c = kernel.convention
        if c == 0:
            return kernel.fn(*args, **kwargs)
        if c == 4:
            return kernel.fn(op, ks, args, kwargs)
        return kernel.call(op, ks, args, kwargs)
    finally:
        if added:
            t.excluded &= ~added
            t.exclude_mask = ~(t.excluded & ~_BACKEND_MASK)


def call_boxed_for_dispatch_key(op: Any, key: DispatchKey, args: tuple, kwargs: dict) -> Any:
    """Call the kernel registered directly on ``key`` (an alias key is allowed), else its fallback.

    This is a *call*, not a redispatch: the kernel receives the key set a fresh call
    would compute, so its own redispatches go through the Python dispatcher again.
    """
    t = per_thread.s
    ks = (arg_key_set(op, args, kwargs) | t.included) & t.exclude_mask
    ks &= op._nft_masks[(ks & _BACKEND_MASK).bit_length()]
    kernels = op.kernels.get(key)
    kernel = kernels[-1] if kernels else REGISTRY.fallbacks[key] if key < len(REGISTRY.fallbacks) else None
    if t.tracer is not None:
        t.tracer.on_call("call_boxed_for_dispatch_key", op, arg_key_set(op, args, kwargs), ks, key, kernel)
    if kernel is None or kernel.is_fallthrough:
        raise DispatchError(f"Could not find a kernel for {op.name()} at dispatch key {DispatchKey(key).name}")
    # KernelFunction.call's two common conventions written out (every op at every key under the Python dispatcher)
    c = kernel.convention
    if c == 4:
        return kernel.fn(op, ks, args, kwargs)
    if c == 0:
        return kernel.fn(*args, **kwargs)
    return kernel.call(op, ks, args, kwargs)


def highest_key(ks: int) -> int:
    """The dispatch key of a raw key set (same arithmetic as the hot path)."""
    v = (ks >> 16).bit_length()
    s = _PBS[v]
    return s + (ks & _BACKEND_MASK).bit_length() if s else v


def _available_backends(op: Any) -> str:
    from .dispatch_table import computed_table

    return ", ".join(k.name for k in computed_table(op) if k != DispatchKey.Undefined)


def missing_kernel_error(op: Any, ks: int, key: int) -> DispatchError:
    """PyTorch's "Could not run ..." error (or the no-tensor-arguments one)."""
    from .dispatch_table import dump_table

    name = op.name()
    available = _available_backends(op)
    if key == DispatchKey.Undefined:
        msg = (
            "There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), "
            f"but no fallback function is registered for schema {name}.  This usually "
            "means that this function requires a non-empty list of Tensors, or that you (the operator writer) "
            f"forgot to register a fallback function.  Available functions are [{available}].\n\n"
        )
    else:
        try:
            key_name = DispatchKey(key).name
        except ValueError:
            key_name = str(key)
        if not is_per_backend_functionality(key) and key_name.startswith("StartOf"):
            key_name = "Undefined"
        msg = (
            f"Could not run '{name}' with arguments from the '{key_name}' backend. "
            "This could be because the operator doesn't exist for this backend, or was omitted during the "
            "selective/custom build process (if using custom build). If you are a Facebook employee using "
            "PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. "
            f"'{name}' is only available for these backends: [{available}].\n\n"
        )
    return DispatchError(msg + dump_table(op))
