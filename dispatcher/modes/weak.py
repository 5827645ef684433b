"""``WeakIdKeyDictionary``: a dict keyed by object identity that does not keep its keys alive.

Corresponds to torch/utils/weak.py (``WeakIdKeyDictionary`` / ``WeakTensorKeyDictionary``). A plain
``weakref.WeakKeyDictionary`` compares keys with ``==``, which for tensors is an elementwise op (and,
for fake tensors, a dispatched call); this one looks keys up by ``id`` and drops an entry when its key
is garbage collected, so a new object that happens to get the same ``id`` never sees a stale value.
The logging modes use it to give each tensor a short id, ``FakeTensorMode`` to memoize ``from_tensor``.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any


class _KeyRef(weakref.ref):
    """A weak reference that remembers the id its key had (the key is gone when the callback runs)."""

    __slots__ = ("key_id",)


class WeakIdKeyDictionary:
    """``d[obj] = value`` without keeping ``obj`` alive; keys are compared by identity."""

    __slots__ = ("_data", "_remove", "__weakref__")

    def __init__(self) -> None:
        #: id(key) -> (weak reference to key, value)
        self._data: dict[int, tuple[weakref.ref, Any]] = {}
        self_ref = weakref.ref(self)

        def remove(ref: _KeyRef) -> None:  # one callback for all entries (hot: make_fx tracks every tensor)
            d = self_ref()
            if d is not None:
                entry = d._data.get(ref.key_id)
                if entry is not None and entry[0] is ref:
                    del d._data[ref.key_id]

        self._remove = remove

    def get(self, key: Any, default: Any = None) -> Any:
        entry = self._data.get(id(key))
        if entry is None or entry[0]() is not key:
            return default
        return entry[1]

    def __getitem__(self, key: Any) -> Any:
        entry = self._data.get(id(key))
        if entry is None or entry[0]() is not key:
            raise KeyError(key)
        return entry[1]

    def __setitem__(self, key: Any, value: Any) -> None:
        key_id = id(key)
        entry = self._data.get(key_id)
        if entry is not None and entry[0]() is key:
            self._data[key_id] = (entry[0], value)
            return
        ref = _KeyRef(key, self._remove)
        ref.key_id = key_id
        self._data[key_id] = (ref, value)

    def __delitem__(self, key: Any) -> None:
        entry = self._data.get(id(key))
        if entry is None or entry[0]() is not key:
            raise KeyError(key)
        del self._data[id(key)]

    def pop(self, key: Any, default: Any = None) -> Any:
        """Remove ``key``'s entry and return its value (``default`` when there is none)."""
        entry = self._data.get(id(key))
        if entry is None or entry[0]() is not key:
            return default
        del self._data[id(key)]
        return entry[1]

    def __contains__(self, key: Any) -> bool:
        entry = self._data.get(id(key))
        return entry is not None and entry[0]() is key

    def __len__(self) -> int:
        return sum(1 for ref, _ in self._data.values() if ref() is not None)

    def __bool__(self) -> bool:
        # O(1), unlike len(): an entry is dropped as soon as its key dies
        return bool(self._data)

    def keys(self) -> Iterator[Any]:
        for ref, _ in list(self._data.values()):
            key = ref()
            if key is not None:
                yield key

    def items(self) -> Iterator[tuple[Any, Any]]:
        for ref, value in list(self._data.values()):
            key = ref()
            if key is not None:
                yield key, value

    def clear(self) -> None:
        self._data.clear()


__all__ = ["WeakIdKeyDictionary"]
