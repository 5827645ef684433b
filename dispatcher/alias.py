"""Alias keys and the runtime keys they stand for.

Corresponds to the alias key sets of c10/core/DispatchKeySet.{h,cpp}
(``autograd_dispatch_keyset``, ``backend_dispatch_keyset``,
``math_dispatch_keyset``, ...) and ``isIncludedInAlias`` /
``getBackendKeySetFromAutograd``. A registration on an alias key fills every
runtime key the alias covers, with the precedence of ``dispatch_table.py``.

NB: PyTorch 2.13 does *not* put Functionalize in CompositeImplicitAutograd
(checked by experiment); newer upstream revisions do.
"""

from __future__ import annotations

from .keys import NUM_BACKENDS, DispatchKey, backend_dense_key, is_alias_key, to_functionality_key
from .keyset import BACKEND_MASK, key_bits

DK = DispatchKey


def _bits(*keys: DispatchKey) -> int:
    raw = 0
    for k in keys:
        raw |= key_bits(k)
    return raw


#: backends whose autograd is AutogradOther (plus every backend bit, for the per-backend ones)
AUTOGRADOTHER_BACKENDS = _bits(
    DK.FPGA, DK.Vulkan, DK.Metal, DK.CustomRNGKeyId, DK.MkldnnCPU, DK.Sparse, DK.SparseCsr, DK.Quantized
) | BACKEND_MASK
AUTOGRAD_ALIAS_SET = _bits(DK.AutogradFunctionality, DK.AutogradOther, DK.AutogradNestedTensor) | BACKEND_MASK
#: CompositeExplicitAutograd covers every backend key (not NestedTensor)
BACKEND_ALIAS_SET = AUTOGRADOTHER_BACKENDS | _bits(DK.Dense)
#: CompositeExplicitAutogradNonFunctional: no Sparse, no XLA / Lazy backends
NON_FUNCTIONAL_BACKEND_ALIAS_SET = (BACKEND_ALIAS_SET & ~_bits(DK.Sparse)) & ~(
    (1 << 3) | (1 << 9)  # XLA and Lazy backend bits
)
NESTED_ALIAS_SET = _bits(DK.AutogradNestedTensor, DK.NestedTensor) | BACKEND_MASK
MATH_ALIAS_SET = BACKEND_ALIAS_SET | AUTOGRAD_ALIAS_SET | _bits(DK.NestedTensor)
BATCHED_ALIAS_SET = _bits(DK.FuncTorchBatched)

_ALIAS_SETS: dict[DispatchKey, int] = {
    DK.Autograd: AUTOGRAD_ALIAS_SET,
    DK.CompositeImplicitAutograd: MATH_ALIAS_SET,
    DK.CompositeImplicitAutogradNestedTensor: NESTED_ALIAS_SET,
    DK.CompositeExplicitAutograd: BACKEND_ALIAS_SET,
    DK.CompositeExplicitAutogradNonFunctional: NON_FUNCTIONAL_BACKEND_ALIAS_SET,
    DK.FuncTorchBatchedDecomposition: BATCHED_ALIAS_SET,
}


def _compute_included_in_alias(key: DispatchKey, alias: DispatchKey) -> bool:
    key = DispatchKey(key)
    if key == DK.Undefined:
        return False
    alias = DispatchKey(alias)
    if alias not in _ALIAS_SETS:
        return key == alias
    raw = _ALIAS_SETS[alias]
    if alias == DK.Autograd:
        # Autograd asks about the functionality only (AutogradCPU -> AutogradFunctionality).
        bits = key_bits(to_functionality_key(key))
    else:
        bits = key_bits(key)
    return bits != 0 and raw & bits == bits


def _membership_table() -> dict[int, frozenset[int]]:
    from .keys import RUNTIME_KEYS_IN_DUMP_ORDER

    return {
        int(alias): frozenset(int(k) for k in RUNTIME_KEYS_IN_DUMP_ORDER if _compute_included_in_alias(k, alias))
        for alias in _ALIAS_SETS
    }


_MEMBERS = _membership_table()


def is_included_in_alias(key: DispatchKey, alias: DispatchKey) -> bool:
    """Does registering on ``alias`` fill runtime key ``key``? (c10 ``isIncludedInAlias``)"""
    members = _MEMBERS.get(alias)
    if members is None:
        return key == alias and key != DK.Undefined
    return key in members


def runtime_keys_for(key: DispatchKey) -> list[DispatchKey]:
    """The runtime keys a registration on ``key`` covers (itself, for a runtime key)."""
    from .keys import RUNTIME_KEYS_IN_DUMP_ORDER

    if not is_alias_key(key):
        return [DispatchKey(key)]
    return [k for k in RUNTIME_KEYS_IN_DUMP_ORDER if is_included_in_alias(k, key)]


# Autograd<X> -> the backend keys whose kernels block CompositeImplicitAutograd there.
# Mirrors c10's switch in 2.13 (checked against torch): HIP, VE and MTIA have no entry (empty set).
_AUTOGRAD_BACKENDS_WITH_ENTRY = ("CPU", "CUDA", "XLA", "Lazy", "Meta", "MPS", "HPU", "IPU", "XPU", "MAIA",
                                 "PrivateUse1", "PrivateUse2", "PrivateUse3")


def _backend_keyset_from_autograd_table() -> dict[int, int]:
    from .keys import BACKENDS

    table: dict[int, int] = {}
    for b in range(NUM_BACKENDS):
        name = BACKENDS[b]
        if name in _AUTOGRAD_BACKENDS_WITH_ENTRY:
            table[int(DispatchKey["Autograd" + name])] = key_bits(backend_dense_key(b))
    table[int(DK.AutogradNestedTensor)] = key_bits(DK.NestedTensor) | BACKEND_MASK
    table[int(DK.AutogradOther)] = AUTOGRADOTHER_BACKENDS
    return table


_BACKEND_KEYSET_FROM_AUTOGRAD = _backend_keyset_from_autograd_table()


def backend_keyset_from_autograd(key: DispatchKey) -> int:
    """Raw key set of the backend keys behind an autograd key (empty for other keys)."""
    return _BACKEND_KEYSET_FROM_AUTOGRAD.get(int(key), 0)
