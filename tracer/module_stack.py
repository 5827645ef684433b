"""Which ``nn.Module`` each traced op came from: ``node.meta["nn_module_stack"]``, recorded by make_fx.

While ``make_fx`` traces, ``ModuleStackRecorder`` wraps ``nn.Module.__call__`` (restored when the trace ends,
also when it raises; calls from other threads pass through untouched). Each module call pushes one entry
onto the tracer's current module stack, and every node recorded while the call runs gets that stack as
``node.meta["nn_module_stack"]``, in torch.export's format::

    {"L__self__": ("", "Model"),
     "L__self__layers.3": ("layers.3", "Block"),
     "L__self__layers.3.attn": ("layers.3.attn", "Attention")}

key -> (fully qualified name of the module, its class as ``module.qualname``), outermost first. A module
called a second time in the same trace gets the key ``...@1`` (then ``@2``, ...), as export does, so every
call has its own key. The names are paths in the module tree: a module called from inside another is
looked up among that module's submodules (``layers.3`` + ``attn``). The outermost module is ``""`` when it is
the traced callable itself (``make_fx(model)``, as in export), else the name the calling function uses for it
(``model`` for ``loss = model(x)``: a local or global variable), so a function that calls two models keeps
them apart. A module that is not a submodule of the one calling it is named by its class.

The stack dicts are shared by the nodes recorded under the same call (torch copies one per node): treat
them as read-only. Nodes outside any module call (placeholders, the output, ops of the traced function
itself, autograd's backward ops, which the engine runs after the forward calls returned) have no entry.

PyTorch: ``torch.export`` and Dynamo record ``nn_module_stack``; torch's ``make_fx`` does so only through
``_ModuleStackTracer`` (export's path, ``record_module_stack=True`` on a compiled module), which patches
``Module.__call__`` / ``__getattr__`` in the same spirit. Here make_fx records it by default.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

__all__ = ["ModuleStackRecorder", "module_type_name"]

#: the key prefix torch.export gives every entry
KEY_PREFIX = "L__self__"


def module_type_name(cls: type) -> str:
    """``module.qualname`` of a module class, as torch writes it into nn_module_stack."""
    return f"{cls.__module__}.{cls.__qualname__}"


class ModuleStackRecorder:
    """Context manager: while active, ``tracer.module_stack`` is the nn_module_stack of the running module call.

    ``root``: the traced callable (a module traced directly gets the name ``""``, as in export).
    """

    def __init__(self, tracer: Any, root: Any) -> None:
        self.tracer = tracer
        self.root = root
        #: (id(parent), id(child)) -> child's path below parent ("" when not found); modules stay alive
        #: for the trace (the traced function holds them), so ids are stable while this lives
        self._paths: dict[tuple[int, int], str] = {}
        #: key -> how many times a module with that path was called (for the ``@N`` suffix)
        self._calls: dict[str, int] = {}
        #: id(root module) -> its name, for modules called outside any other module
        self._roots: dict[int, str] = {}
        #: fqn -> the module last called under that name (to find the next level's names)
        self._by_fqn: dict[str, Any] = {}
        self._saved: Any = None

    def __enter__(self) -> ModuleStackRecorder:
        from dispatcher.nn.module import Module

        original = Module.__dict__["__call__"]
        self._saved = original
        thread = threading.get_ident()
        tracer = self.tracer
        enter = self._entry

        def __call__(module: Any, *args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() != thread:
                return original(module, *args, **kwargs)
            outer = tracer.module_stack
            key, entry = enter(module, outer)
            stack = dict(outer) if outer else {}
            stack[key] = entry
            tracer.module_stack = stack
            try:
                return original(module, *args, **kwargs)
            finally:
                tracer.module_stack = outer

        Module.__call__ = __call__
        return self

    def __exit__(self, *exc: object) -> None:
        from dispatcher.nn.module import Module

        Module.__call__ = self._saved
        self.tracer.module_stack = None

    # --- names --------------------------------------------------------------------------------------------------
    def _entry(self, module: Any, outer: dict | None) -> tuple[str, tuple[str, str]]:
        if outer:
            parent_key = next(reversed(outer))
            parent_fqn = outer[parent_key][0]
            parent = self._by_fqn.get(parent_fqn)
            rel = self._path_below(parent, module) if parent is not None else ""
            if not rel:
                rel = type(module).__name__
            fqn = f"{parent_fqn}.{rel}" if parent_fqn else rel
        else:
            fqn = self._root_name(module)
        self._by_fqn[fqn] = module
        key = KEY_PREFIX + fqn
        n = self._calls.get(key, 0)
        self._calls[key] = n + 1
        if n:
            key = f"{key}@{n}"
        return key, (fqn, module_type_name(type(module)))

    def _path_below(self, parent: Any, module: Any) -> str:
        pair = (id(parent), id(module))
        path = self._paths.get(pair)
        if path is None:
            path = ""
            for name, sub in parent.named_modules():
                if sub is module and name:
                    path = name
                    break
            self._paths[pair] = path
        return path

    def _root_name(self, module: Any) -> str:
        name = self._roots.get(id(module))
        if name is not None:
            return name
        if module is self.root:
            name = ""
        else:
            name = _caller_name(module) or type(module).__name__
            taken = set(self._roots.values())
            base, i = name, 1
            while name in taken:
                name = f"{base}_{i}"
                i += 1
        self._roots[id(module)] = name
        return name


def _caller_name(module: Any) -> str | None:
    """The variable name the calling code uses for ``module`` (its locals, then its globals), if any."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename == __file__:  # (the wrapper and the naming helpers)
        f = f.f_back
    if f is None:
        return None
    for scope in (f.f_locals, f.f_globals):
        for name, value in scope.items():
            if value is module and isinstance(name, str) and name.isidentifier() and name != "self":
                return name
    return None
