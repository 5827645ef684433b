"""Computing an operator's dispatch table from its registrations, and printing it.

Corresponds to OperatorEntry::computeDispatchTableEntryWithDebug,
updateDispatchTable_ and dumpComputedTable / dumpState in
aten/src/ATen/core/dispatch/OperatorEntry.cpp, and to
DispatchKeyExtractor::setOperatorHasFallthroughForKey.

``compute_entry`` is the whole precedence ladder in one function. Tables are
recomputed lazily: a registration change marks the operator stale, and the
next call (or dump) rebuilds the table and the non-fallthrough masks at once.
"""

from __future__ import annotations

from typing import Any

from .alias import AUTOGRADOTHER_BACKENDS, backend_keyset_from_autograd, is_included_in_alias
from .kernel import KernelFunction, builtin_site
from .keys import (
    NUM_BACKENDS,
    RUNTIME_KEYS_IN_DUMP_ORDER,
    DispatchKey,
    is_alias_key,
    to_backend_index,
    to_functionality_key,
)
from .keyset import FULL_RAW, key_bits
from .keyset import NUM_BACKENDS as _NB
from .registry import NUM_TABLE_SLOTS, REGISTRY

DK = DispatchKey
assert _NB == NUM_BACKENDS


def _raise_ambiguous_autogradother(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    from .errors import AmbiguousAutogradOtherError

    raise AmbiguousAutogradOtherError(
        f"{op.name()} has kernels registered to both CompositeImplicitAutograd and a backend mapped to "
        "AutogradOther. This makes the backend kernel unreachable; the dispatcher will always prefer the "
        "CompositeImplicitAutograd lowering (see Note: [Ambiguity in AutogradOther kernel]). If you want to "
        "override CompositeImplicitAutograd, please open an issue to request a dedicated Autograd dispatch "
        "key for the backend.\nIf you only want to run inference instead of training, run the call under "
        "`dispatcher.tls.AutoDispatchBelowAutograd()`, which leaves every autograd key out of the key set (torch's "
        "message points at C++'s `c10::InferenceMode`; here `inference_mode()` does not exclude keys)."
        "\nCanonical state\n~~~~~~~~~~~\n" + op.dump() + "\n"
    )


AMBIGUOUS_AUTOGRADOTHER = KernelFunction(
    _raise_ambiguous_autogradother, convention=4, debug="ambiguous_autogradother", from_python=False
)


def _front(op: Any, key: DispatchKey) -> KernelFunction | None:
    """The newest kernel registered directly on ``key`` (which may be an alias key)."""
    kernels = op.kernels.get(key)
    return kernels[-1] if kernels else None


def has_kernel_for_any_dispatch_key(op: Any, raw: int) -> bool:
    """Is a kernel registered directly on some runtime key inside the raw key set?"""
    for key, kernels in op.kernels.items():
        if kernels and not is_alias_key(key):
            bits = key_bits(key)
            if bits and raw & bits == bits:
                return True
    return False


def compute_entry(op: Any, key: DispatchKey) -> tuple[KernelFunction | None, str]:
    """The kernel for runtime key ``key`` and the reason, by PyTorch 2.13's precedence.

    1.   a kernel registered directly on the key                      -> "kernel"
    2.1  CompositeExplicitAutogradNonFunctional covering the key      -> "default backend kernel"
    2.2  CompositeExplicitAutograd covering the key                   -> "default backend kernel"
    2.3  CompositeImplicitAutogradNestedTensor covering the key       -> "nested kernel"
    2.3  CompositeImplicitAutograd covering the key, unless a backend kernel behind this
         autograd key (or a CEA kernel) exists; on AutogradOther with a kernel on one of
         its backends it is ambiguous                                 -> "math kernel"
    2.4  Autograd covering the key                                    -> "autograd kernel"
    2.5  FuncTorchBatchedDecomposition covering the key               -> "batched kernel"
    3.   the key's backend fallback                                   -> "backend fallback"
    4.   nothing: calling raises                                      -> "missing"
    The Undefined key (calls with no tensor arguments) is filled only by steps 2.1-2.3.
    """
    undefined = key == DK.Undefined
    direct = _front(op, key)
    if direct is not None:
        return direct, "kernel"
    for alias in (DK.CompositeExplicitAutogradNonFunctional, DK.CompositeExplicitAutograd):
        if undefined or is_included_in_alias(key, alias):
            kernel = _front(op, alias)
            if kernel is not None:
                return kernel, "default backend kernel"
    has_backend_kernel = (
        has_kernel_for_any_dispatch_key(op, backend_keyset_from_autograd(key))
        or _front(op, DK.CompositeExplicitAutograd) is not None
    )
    if not undefined and is_included_in_alias(key, DK.CompositeImplicitAutogradNestedTensor):
        kernel = _front(op, DK.CompositeImplicitAutogradNestedTensor)
        if kernel is not None:
            return kernel, "nested kernel"
    if undefined or is_included_in_alias(key, DK.CompositeImplicitAutograd):
        kernel = _front(op, DK.CompositeImplicitAutograd)
        if kernel is not None:
            if key == DK.AutogradOther and has_kernel_for_any_dispatch_key(op, AUTOGRADOTHER_BACKENDS):
                return AMBIGUOUS_AUTOGRADOTHER, "ambiguous autogradother"
            if not has_backend_kernel:
                return kernel, "math kernel"
    for alias, tag in ((DK.Autograd, "autograd kernel"), (DK.FuncTorchBatchedDecomposition, "batched kernel")):
        if is_included_in_alias(key, alias):
            kernel = _front(op, alias)
            if kernel is not None:
                return kernel, tag
    fallback = REGISTRY.fallbacks[key]
    if fallback is not None:
        return fallback, "backend fallback"
    return None, "missing"


class _StaleMasks:
    """Stands in for an operator's mask list until the table is rebuilt on first use."""

    __slots__ = ("op",)

    def __init__(self, op: Any) -> None:
        self.op = op

    def __getitem__(self, index: int) -> int:
        rebuild(self.op)
        return self.op._nft_masks[index]


def mark_stale(op: Any) -> None:
    """Registrations changed: rebuild the table before the next call, and forget cached py handlers."""
    op._nft_masks = _StaleMasks(op)
    op._dispatch_cache.clear()
    op._ks_cache.clear()


def is_stale(op: Any) -> bool:
    return isinstance(op._nft_masks, _StaleMasks)


def ensure_table(op: Any) -> None:
    if is_stale(op):
        rebuild(op)


def rebuild(op: Any) -> None:
    """Recompute every table slot and the non-fallthrough masks of ``op``.

    Masks: index 1 + b is used when backend b is the highest backend in the call's key
    set, index 0 when there is none. A fallthrough on a per-backend key (AutogradCPU)
    clears its functionality bit only in that backend's mask; a fallthrough on any
    other key clears it everywhere.
    """
    with REGISTRY.lock:
        table: list[KernelFunction | None] = [None] * NUM_TABLE_SLOTS
        tags: list[str] = ["missing"] * NUM_TABLE_SLOTS
        masks = [FULL_RAW] * (NUM_BACKENDS + 1)
        for key in RUNTIME_KEYS_IN_DUMP_ORDER:
            kernel, tag = compute_entry(op, key)
            table[key] = kernel
            tags[key] = tag
            if kernel is not None and kernel.is_fallthrough and key != DK.Undefined:
                functionality_bit = key_bits(to_functionality_key(key))
                backend = to_backend_index(key)
                if backend >= 0:
                    masks[backend + 1] &= ~functionality_bit
                else:
                    masks = [m & ~functionality_bit for m in masks]
        op._table = table
        op._table_tags = tags
        op._nft_masks = masks
        op._fallback_epoch = REGISTRY.fallback_epoch


def computed_table(op: Any) -> dict[DispatchKey, tuple[KernelFunction, str]]:
    """runtime key -> (kernel, reason) for every key that has an entry, in dump order."""
    ensure_table(op)
    return {
        key: (op._table[key], op._table_tags[key])
        for key in RUNTIME_KEYS_IN_DUMP_ORDER
        if op._table[key] is not None
    }


def dump_table(op: Any) -> str:
    """One line per runtime key with an entry, as ``torch._C._dispatch_dump_table`` prints it."""
    lines = []
    for key, (kernel, tag) in computed_table(op).items():
        fallthrough = "fallthrough " if kernel.is_fallthrough else ""
        lines.append(f"{key.name}: {fallthrough}{kernel.debug} [{tag}]")
    return "\n".join(lines) + "\n"


def dump(op: Any) -> str:
    """The registration state as stored, as ``torch._C._dispatch_dump`` prints it."""
    lines = [f"name: {op.name_without_overload()}"]
    if op._schema is not None:
        lines.append(f"schema: {op._schema}")
        lines.append(f"debug: {op._schema_debug}")
        lines.append(f"alias analysis kind: {op._alias_analysis}")
    else:
        lines.append("schema: (none)")
    for key in sorted(op.kernels, key=int):
        for n, kernel in enumerate(reversed(op.kernels[key])):
            alias = "[alias]" if is_alias_key(key) else ""
            if n:  # shadowed by a newer registration on the same key
                alias += " (inactive)"
            fallthrough = "fallthrough " if kernel.is_fallthrough else ""
            signature = kernel.signature
            kinds = "boxed unboxed" if signature else "boxed"
            lines.append(f"{key.name}{alias}: {fallthrough}{kernel.debug} :: {signature or '(none)'} [ {kinds} ]")
    return "\n".join(lines) + "\n"


__all__ = [
    "compute_entry",
    "computed_table",
    "dump",
    "dump_table",
    "ensure_table",
    "mark_stale",
    "rebuild",
    "builtin_site",
]
