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
import weakref
from typing import Any

__all__ = ["ModuleStackRecorder", "module_type_name"]

#: the key prefix torch.export gives every entry
KEY_PREFIX = "L__self__"


def module_type_name(cls: type) -> str:
    """``module.qualname`` of a module class, as torch writes it into nn_module_stack."""
    return f"{cls.__module__}.{cls.__qualname__}"


#: module class -> its ``module.qualname`` (computed once per class)
_TYPE_NAMES: dict[type, str] = {}


class ModuleStackRecorder:
    """Context manager: while active, ``tracer.module_stack`` is the nn_module_stack of the running module call.

    ``root``: the traced callable (a module traced directly gets the name ``""``, as in export).
    """

    def __init__(self, tracer: Any, root: Any) -> None:
        self.tracer = tracer
        self.root = root
        #: the modules being called, innermost last (parallel to the entries of tracer.module_stack)
        self._running: list[Any] = []
        #: id(parent) -> {id(child): name} of its direct submodules (modules stay alive for the trace)
        self._children: dict[int, dict[int, str]] = {}
        #: path -> how many times a module with that path was called (for the ``@N`` suffix)
        self._calls: dict[str, int] = {}
        #: id(module) -> fqn of the modules called outside any other module
        self._roots: dict[int, str] = {}
        self._saved: Any = None

    def __enter__(self) -> ModuleStackRecorder:
        from dispatcher.nn.module import Module

        original = Module.__dict__["__call__"]
        self._saved = original
        thread = threading.get_ident()
        tracer = self.tracer
        running = self._running
        enter = self._entry

        def __call__(module: Any, *args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() != thread:
                return original(module, *args, **kwargs)
            outer = tracer.module_stack
            key, entry = enter(module, outer)
            stack = dict(outer) if outer else {}
            stack[key] = entry
            tracer.module_stack = stack
            running.append(module)
            try:
                return original(module, *args, **kwargs)
            finally:
                running.pop()
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
            parent = self._running[-1]
            parent_fqn = outer[next(reversed(outer))][0]
            rel = self._name_below(parent, module) or type(module).__name__
            fqn = f"{parent_fqn}.{rel}" if parent_fqn else rel
        else:
            fqn = self._root_name(module)
        key = KEY_PREFIX + fqn
        n = self._calls.get(key, 0)
        self._calls[key] = n + 1
        if n:
            key = f"{key}@{n}"
        cls = type(module)
        type_name = _TYPE_NAMES.get(cls)
        if type_name is None:
            type_name = _TYPE_NAMES[cls] = module_type_name(cls)
        return key, (fqn, type_name)

    def _name_below(self, parent: Any, module: Any) -> str:
        """``module``'s path below ``parent``: a direct submodule's name (the usual case), else a deeper path
        (a ModuleList's element) from an index of ``parent``'s subtree, kept across traces and checked on use."""
        children = self._children.get(id(parent))
        if children is None:
            children = self._children[id(parent)] = {
                id(sub): name for name, sub in parent._modules.items() if sub is not None}
        name = children.get(id(module))
        if name is None:
            name = _subtree_path(parent, module)
            children[id(module)] = name
        return name

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


#: id(module) -> (weak reference to it, {id(submodule): path}): subtree indexes kept across traces
_SUBTREES: dict[int, tuple[Any, dict[int, str]]] = {}
_SUBTREES_LIMIT = 256


def _resolve(parent: Any, path: str) -> Any:
    m = parent
    for part in path.split("."):
        m = getattr(m, "_modules", {}).get(part)
        if m is None:
            return None
    return m


def _subtree_path(parent: Any, module: Any) -> str:
    """The path of ``module`` below ``parent`` ("" when it is not in the subtree); the index is rebuilt when the
    path it gives no longer leads to ``module`` (the tree was changed)."""
    entry = _SUBTREES.get(id(parent))
    index = entry[1] if entry is not None and entry[0]() is parent else None
    path = index.get(id(module)) if index is not None else None
    if path is not None and _resolve(parent, path) is module:
        return path
    index = {}
    for p, sub in parent.named_modules():
        if p:
            index.setdefault(id(sub), p)
    if len(_SUBTREES) >= _SUBTREES_LIMIT:
        _SUBTREES.clear()
    try:
        _SUBTREES[id(parent)] = (weakref.ref(parent), index)
    except TypeError:  # (a module class that refuses weak references: no cache)
        pass
    return index.get(id(module), "")


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
