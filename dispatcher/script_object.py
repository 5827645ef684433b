"""``ScriptObject``: the opaque objects (TorchScript custom classes) some operators take and return.

Corresponds to ``torch.ScriptObject`` (torch/csrc/jit/python/script_init.cpp). Here it is a plain
base class; ``make_fx`` tracks its instances like tensors, so an op returning one (e.g.
``profiler::_record_function_enter_new``) and an op taking it are linked by a graph edge.
"""

from __future__ import annotations

__all__ = ["ScriptObject"]


class ScriptObject:
    """An instance of a custom class; ``qualified_name`` is its TorchScript name."""

    __slots__ = ("__weakref__",)
    qualified_name: str = "__torch__.torch.classes.ScriptObject"

    def _type(self) -> str:
        return self.qualified_name

    def __repr__(self) -> str:
        return f"ScriptObject <{self.qualified_name}>"
