"""The process-wide registry of operators, backend fallbacks and library namespaces.

Corresponds to the state held by c10::Dispatcher (aten/src/ATen/core/dispatch/Dispatcher.h):
the operators by name, the backend fallback of each runtime key, and which
namespaces already have a ``TORCH_LIBRARY`` (``Library(ns, "DEF")``) block.
Nothing here dispatches; ``op_overload.py`` and ``dispatch.py`` do.
"""

from __future__ import annotations

import threading
from typing import Any

from .kernel import KernelFunction
from .keys import RUNTIME_KEYS_IN_DUMP_ORDER

NUM_TABLE_SLOTS = int(max(RUNTIME_KEYS_IN_DUMP_ORDER)) + 1


class Registry:
    """All registrations. One instance: ``REGISTRY``."""

    def __init__(self) -> None:
        #: "ns::name" -> {"overload": OpOverload}; the OpOverload objects are unique per overload
        self.operators: dict[str, dict[str, Any]] = {}
        #: "ns::name" -> OpOverloadPacket
        self.packets: dict[str, Any] = {}
        #: runtime key value -> the backend fallback (None: no fallback)
        self.fallbacks: list[KernelFunction | None] = [None] * NUM_TABLE_SLOTS
        #: namespace -> debug text of its DEF library
        self.def_namespaces: dict[str, str] = {}
        #: bumped on every fallback change, so operators know their tables are stale
        self.fallback_epoch = 0
        # Registration is rare and may come from any thread; dispatch reads without locking.
        self.lock = threading.RLock()

    def all_operators(self) -> list[Any]:
        return [op for overloads in self.operators.values() for op in overloads.values()]

    def find(self, qualified_name: str, overload: str = "") -> Any | None:
        return self.operators.get(qualified_name, {}).get(overload)


REGISTRY = Registry()
