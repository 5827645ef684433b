"""Tensor-like stand-ins: objects that carry a dispatch key set, so the dispatcher can be tested alone."""

from __future__ import annotations

from dispatcher.keys import DispatchKey
from dispatcher.keyset import DispatchKeySet

DK = DispatchKey

CPU_KEYS = (DK.CPU, DK.ADInplaceOrView, DK.AutogradCPU, DK.AutocastCPU)
META_KEYS = (DK.Meta, DK.ADInplaceOrView, DK.AutogradMeta)


class Keyed:
    """Carries a key set (like a Tensor) and a value; ``Keyed.cpu(2.0)`` looks like a CPU tensor."""

    def __init__(self, value: object = 0, keys: tuple = CPU_KEYS) -> None:
        self.value = value
        self._key_set = DispatchKeySet(keys).raw_repr()

    @classmethod
    def cpu(cls, value: object = 0) -> Keyed:
        return cls(value, CPU_KEYS)

    @classmethod
    def meta(cls, value: object = 0) -> Keyed:
        return cls(value, META_KEYS)

    def __repr__(self) -> str:
        return f"Keyed({self.value!r}, {DispatchKeySet.from_raw_repr(self._key_set)})"
