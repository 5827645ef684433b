"""``StorageWeakRef``: a weak, hashable handle on a storage, equal for every tensor sharing one StorageImpl
(``StorageWeakRef(a.untyped_storage()) == StorageWeakRef(b.untyped_storage())``).

Corresponds to torch/multiprocessing/reductions.py's ``StorageWeakRef``: ``cdata`` is the StorageImpl's address (here
its ``_cdata``); the handle keeps the small StorageImpl record (never the memory) so that address is not reused
while the handle lives, as torch's weak reference count keeps it.
"""

from __future__ import annotations

from typing import Any

from ..storage import expired_impl

__all__ = ["StorageWeakRef"]


class StorageWeakRef:
    """A weak reference to a storage: ``cdata`` names its StorageImpl."""

    __slots__ = ["cdata", "_impl"]

    def __init__(self, storage: Any) -> None:
        untyped = getattr(storage, "_untyped_storage", storage)  # (a TypedStorage: its untyped storage)
        self._impl = untyped._impl
        self.cdata = untyped._cdata

    @classmethod
    def from_weakref(cls, cdata: int) -> StorageWeakRef:
        from ..storage import impl_of_cdata

        instance = cls.__new__(cls)
        instance.cdata = cdata
        instance._impl = impl_of_cdata(cdata)
        return instance

    def expired(self) -> bool:
        """No tensor or storage object uses the storage any more."""
        return self._impl is None or expired_impl(self._impl)

    def __hash__(self) -> int:
        return self.cdata

    def __eq__(self, other: object) -> bool:
        if id(self) == id(other):
            return True
        return isinstance(other, StorageWeakRef) and self.cdata == other.cdata
