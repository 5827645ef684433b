"""DispatchKeySet: PyTorch's 64-bit set of dispatch keys.

Corresponds to c10/core/DispatchKeySet.h. Layout of the raw integer:

* bits 0..15: the backend components (CPU = bit 0, ..., Meta = bit 15);
* bit 15 + v: the functionality key with value v (Dense = bit 16, Python = bit 28,
  ADInplaceOrView = bit 34, PythonDispatcher = bit 61).

A per-backend runtime key (CPU, AutogradMeta, ...) sets two bits, its
functionality's and its backend's. A set therefore records *which
functionalities* and *which backends* are present, and a union forms their
cross product: ``{CPU} | {AutogradCUDA}`` also contains CUDA and AutogradCPU.
Removal clears only functionality bits. The hot path of the dispatcher works on
the raw ``int``; this class is the readable wrapper users and kernels see.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .keys import (
    NUM_BACKENDS,
    NUM_FUNCTIONALITIES,
    PER_BACKEND_START,
    DispatchKey,
    is_alias_key,
    parse_dispatch_key,
    to_backend_index,
    to_functionality_key,
)

BACKEND_MASK = (1 << NUM_BACKENDS) - 1
FUNCTIONALITY_SHIFT = NUM_BACKENDS - 1  # functionality v lives at bit 15 + v
PYTHON_DISPATCHER_BIT = 1 << (FUNCTIONALITY_SHIFT + int(DispatchKey.PythonDispatcher))
FULL_RAW = (1 << (FUNCTIONALITY_SHIFT + NUM_FUNCTIONALITIES)) - 1


def _compute_key_bits(key: int) -> int:
    key = int(key)
    if key == 0 or is_alias_key(key):
        return 0
    if key < NUM_FUNCTIONALITIES:
        return 1 << (FUNCTIONALITY_SHIFT + key)
    backend = to_backend_index(key)
    functionality = int(to_functionality_key(key))
    bits = 1 << (FUNCTIONALITY_SHIFT + functionality)
    if backend >= 0:
        bits |= 1 << backend
    return bits


_KEY_BITS = [_compute_key_bits(k) for k in range(int(max(DispatchKey)) + 1)]


def key_bits(key: int) -> int:
    """Raw bits of the one-key set ``DispatchKeySet(key)`` (aliases and Undefined give 0)."""
    return _KEY_BITS[key]


def highest_priority_key(raw: int) -> int:
    """The key a raw set dispatches to (c10 ``highestPriorityTypeId``), as an int.

    Highest functionality bit; for a per-backend functionality, combined with the
    highest backend bit. No loop over keys.
    """
    functionality = (raw >> NUM_BACKENDS).bit_length()
    start = PER_BACKEND_START[functionality]
    if start:
        return start + (raw & BACKEND_MASK).bit_length()
    return functionality


def full_after_bits(key: int) -> int:
    """Raw bits of ``FULL_AFTER(key)``: everything strictly below key's functionality, plus PythonDispatcher."""
    functionality = int(to_functionality_key(key))
    return ((1 << (FUNCTIONALITY_SHIFT + functionality)) - 1) | PYTHON_DISPATCHER_BIT


def _iter_keys(raw: int) -> Iterator[DispatchKey]:
    backends = [b for b in range(NUM_BACKENDS) if raw >> b & 1]
    for functionality in range(1, NUM_FUNCTIONALITIES):
        if not raw >> (FUNCTIONALITY_SHIFT + functionality) & 1:
            continue
        start = PER_BACKEND_START[functionality]
        if start:
            for b in backends:
                yield DispatchKey(start + 1 + b)
        else:
            yield DispatchKey(functionality)


class DispatchKeySet:
    """An immutable set of dispatch keys in PyTorch's 64-bit representation.

    ``DispatchKeySet(DispatchKey.CPU)``, ``DispatchKeySet("CPU")`` (a key's name, as PyTorch's binding
    converts it), ``DispatchKeySet([k1, k2])`` or ``DispatchKeySet.from_raw_repr(bits)``. Alias keys and
    Undefined give the empty set, as in PyTorch. Pickles (and copies) by its raw representation, as
    PyTorch's ``__getstate__`` / ``__setstate__`` do.
    """

    __slots__ = ("repr",)

    def __init__(self, keys: DispatchKey | str | Iterable[DispatchKey | str] | None = None) -> None:
        raw = 0
        if keys is None:
            pass
        elif isinstance(keys, int):
            raw = key_bits(keys)
        elif isinstance(keys, str):
            raw = key_bits(parse_dispatch_key(keys))
        else:
            for k in keys:
                raw |= key_bits(k if isinstance(k, int) else parse_dispatch_key(k))
        object.__setattr__(self, "repr", raw)

    def __getstate__(self) -> tuple[int]:
        return (self.repr,)

    def __setstate__(self, state: tuple[int]) -> None:
        object.__setattr__(self, "repr", state[0])

    @classmethod
    def from_raw_repr(cls, raw: int) -> DispatchKeySet:
        ks = cls.__new__(cls)
        object.__setattr__(ks, "repr", raw & ((1 << 64) - 1))
        return ks

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("DispatchKeySet is immutable")

    def raw_repr(self) -> int:
        return self.repr

    # --- set algebra -------------------------------------------------------
    def __or__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet.from_raw_repr(self.repr | other.repr)

    def __and__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet.from_raw_repr(self.repr & other.repr)

    def __sub__(self, other: DispatchKeySet) -> DispatchKeySet:
        # Backend bits are never removed by subtraction (c10 operator-).
        return DispatchKeySet.from_raw_repr(self.repr & (BACKEND_MASK | ~other.repr))

    def __xor__(self, other: DispatchKeySet) -> DispatchKeySet:
        return DispatchKeySet.from_raw_repr(self.repr ^ other.repr)

    def add(self, key: DispatchKey | str) -> DispatchKeySet:
        return DispatchKeySet.from_raw_repr(self.repr | key_bits(_key(key)))

    def remove(self, key: DispatchKey | str) -> DispatchKeySet:
        """Remove a key's functionality bit; its backend bit stays (as in PyTorch)."""
        return DispatchKeySet.from_raw_repr(self.repr & ~(key_bits(_key(key)) & ~BACKEND_MASK))

    # --- queries -------------------------------------------------------------
    def has(self, key: DispatchKey | str) -> bool:
        """True when every bit of ``DispatchKeySet(key)`` is set (both bits for a per-backend key)."""
        bits = key_bits(_key(key))
        return self.repr & bits == bits

    def has_all(self, other: DispatchKeySet) -> bool:
        return self.repr & other.repr == other.repr

    def has_any(self, other: DispatchKeySet) -> bool:
        return bool(self.repr & other.repr)

    def empty(self) -> bool:
        """True when no functionality bit is set (backend bits alone print as an empty set)."""
        return not self.repr >> NUM_BACKENDS

    isEmpty = empty

    def highest_priority_type_id(self) -> DispatchKey:
        return DispatchKey(highest_priority_key(self.repr))

    highestPriorityTypeId = highest_priority_type_id

    def highest_functionality_key(self) -> DispatchKey:
        return DispatchKey((self.repr >> NUM_BACKENDS).bit_length())

    def highest_backend(self) -> int:
        """Index of the highest backend bit (0 = CPU .. 15 = Meta), or -1 when none."""
        return (self.repr & BACKEND_MASK).bit_length() - 1

    def __iter__(self) -> Iterator[DispatchKey]:
        """Runtime keys, lowest priority first; per-backend keys in backend order."""
        return _iter_keys(self.repr)

    def __contains__(self, key: DispatchKey) -> bool:
        return self.has(key)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DispatchKeySet) and other.repr == self.repr

    def __hash__(self) -> int:
        return hash(self.repr)

    def __repr__(self) -> str:
        return "DispatchKeySet(" + ", ".join(k.name for k in self) + ")"

    __str__ = __repr__


def _key(key: DispatchKey | int | str) -> int:
    """A key given by value or by name (PyTorch's implicit ``str`` -> DispatchKey conversion)."""
    return key if isinstance(key, int) else parse_dispatch_key(key)


def full_after(key: DispatchKey) -> DispatchKeySet:
    """``DispatchKeySet(FULL_AFTER, key)``: what a kernel on ``key`` may redispatch to."""
    return DispatchKeySet.from_raw_repr(full_after_bits(key))


FULL = DispatchKeySet.from_raw_repr(FULL_RAW)
EMPTY = DispatchKeySet()
