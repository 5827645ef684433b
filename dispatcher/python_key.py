"""The Python key's fallback: where dispatch modes and tensor subclasses take over.

Corresponds to pythonFallback in aten/src/ATen/core/PythonFallbackKernel.cpp, the
``dispatch`` / ``detach`` entries of torch/csrc/PyInterpreter.cpp and
``handle_torch_function_no_python_arg_parser`` in torch/csrc/utils/python_arg_parser.cpp.

The Python key (13) sits below autograd, ADInplaceOrView and the CompositeImplicitAutograd
decompositions, so what reaches it are the ops that actually run. It is reached when a
tensor argument carries it (a subclass with ``__torch_dispatch__``) or when a
TorchDispatchMode is on the stack (entering a mode includes Python in TLS). The fallback:

1. TLS-excludes every key above Python for the rest of the call (so ops issued by a
   handler go straight to the Python key or below: autograd does not run twice);
2. collects the "overloaded args": the first tensor argument of each distinct type carrying
   the Python key (inside lists too), a subclass placed before its superclass; ``types`` is
   the tuple of their types;
3. if a mode is active, pops the top mode and calls ``mode.__torch_dispatch__(func, types,
   args, kwargs)`` (the mode is pushed back afterwards, also on errors); if it returns
   ``NotImplemented``, or there is no mode, each overloaded arg's ``__torch_dispatch__``
   classmethod is tried in order;
4. if every handler returned ``NotImplemented``: PyTorch's "Multiple dispatch failed" TypeError.

``shallow_copy_and_detach`` is the other entry point: autograd copies a tensor without its
history when it saves an output for backward and when it unpacks it; with a mode active (or
for a Python subclass) that copy is an ``aten.detach`` call handed to the mode / subclass,
which is why traces of backward show ``detach`` there.
"""

from __future__ import annotations

from typing import Any

from .errors import DispatchError
from .keys import DispatchKey
from .keyset import BACKEND_MASK, key_bits
from .tls import PYTHON_MODE_KEYS_RAW, PYTHON_RAW, per_thread, push_dispatch_mode

#: every functionality strictly above Python, except PythonDispatcher (pythonFallback's exclude guard)
ABOVE_PYTHON_RAW = 0
for _k in range(int(DispatchKey.Python) + 1, int(DispatchKey.PythonDispatcher)):
    ABOVE_PYTHON_RAW |= key_bits(_k)
del _k


def _append_overloaded(overloaded: list[Any], arg: Any) -> None:
    """append_overloaded_arg: one entry per type, a subclass before any superclass already seen."""
    cls = type(arg)
    for seen in overloaded:
        if type(seen) is cls:
            return
    for i, seen in enumerate(overloaded):
        if issubclass(cls, type(seen)):
            overloaded.insert(i, arg)
            return
    overloaded.append(arg)


def overloaded_args(args: tuple, kwargs: dict) -> list[Any]:
    """The tensors with the Python key among ``args`` / ``kwargs`` (lists included), in schema order."""
    found: list[Any] = []
    for a in args:
        if getattr(a, "_key_set", 0) & PYTHON_RAW:
            _append_overloaded(found, a)
        elif a.__class__ is list or a.__class__ is tuple:
            for e in a:
                if getattr(e, "_key_set", 0) & PYTHON_RAW:
                    _append_overloaded(found, e)
    if kwargs:
        for a in kwargs.values():
            if getattr(a, "_key_set", 0) & PYTHON_RAW:
                _append_overloaded(found, a)
            elif a.__class__ is list or a.__class__ is tuple:
                for e in a:
                    if getattr(e, "_key_set", 0) & PYTHON_RAW:
                        _append_overloaded(found, e)
    return found


def _not_implemented_error(name: str, mode: Any, overloaded: list[Any]) -> TypeError:
    lines = [f"Multiple dispatch failed for '{name}'; all __torch_dispatch__ handlers returned NotImplemented:", ""]
    if mode is not None:
        lines.append(f"  - mode object {mode!r}")
    for a in overloaded:
        lines.append(f"  - tensor subclass {type(a)!r}")
    # (torch's last line, "For more information, try re-running with TORCH_LOGS=not_implemented", points at logs
    # dispatchkit does not have)
    lines += ["", "To see why, print func and types in each __torch_dispatch__ listed above (each returned "
                  "NotImplemented for this op), or run the call under dispatcher.explain_dispatch(op, *args) to see "
                  "its path through the dispatcher"]
    return TypeError("\n".join(lines))


#: mode classes whose ``__torch_dispatch__`` was checked to be a plain method (the check is per class)
_CHECKED_MODE_CLASSES: set[type] = set()


def _mode_handler(mode: Any) -> Any:
    handler = mode.__torch_dispatch__
    cls = mode.__class__
    if cls not in _CHECKED_MODE_CLASSES:
        if getattr(handler, "__self__", None) is not mode:
            raise RuntimeError(
                "Defining your mode's `__torch_dispatch__` as a classmethod is not supported, please make it a "
                "plain method"
            )
        _CHECKED_MODE_CLASSES.add(cls)
    return handler


def _call_top_mode(s: Any, stack: list[Any], func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """Pop the top mode, run its handler, push it back (also on errors): StashTorchDispatchModeGuard."""
    mode = stack.pop()
    if not stack:
        s.included &= ~PYTHON_MODE_KEYS_RAW
    try:
        rules = func.__dict__.get("_torch_dispatch_rules")  # torch.library.register_torch_dispatch
        if rules and mode.__class__ in rules:
            return rules[mode.__class__](mode, func, types, args, kwargs), mode
        if mode.__class__ in _CHECKED_MODE_CLASSES:  # (checked already: call the handler directly)
            return mode.__torch_dispatch__(func, types, args, kwargs), mode
        return _mode_handler(mode)(func, types, args, kwargs), mode
    finally:
        _restore_top_mode(s, stack, mode)


def _restore_top_mode(s: Any, stack: list[Any], mode: Any) -> None:
    """Push back ``mode``, popped from the top of ``stack`` while its handler ran (push_dispatch_mode's result).

    An infra mode goes back to its slot, which is the top again when every mode left is an infra mode of a
    smaller key (infra modes sit at the bottom in key order): the common case (fake under proxy) needs no search.
    """
    key = getattr(mode, "_mode_key", None)
    if not stack:
        s.included |= PYTHON_MODE_KEYS_RAW
        stack.append(mode)
    elif key is None:
        stack.append(mode)
    else:
        top_key = getattr(stack[-1], "_mode_key", None)
        if top_key is not None and top_key < key:
            stack.append(mode)
        else:
            push_dispatch_mode(mode)


def handle_torch_dispatch(overloaded: list[Any], func: Any, args: tuple, kwargs: dict, name: str | None = None) -> Any:
    """Modes first (top one, popped while it runs), then each overloaded arg's ``__torch_dispatch__``."""
    types = (type(overloaded[0]),) if len(overloaded) == 1 else tuple([type(a) for a in overloaded])
    s = per_thread.s
    ret = NotImplemented
    mode = None
    stack = s.dispatch_mode_stack
    if stack and not (s.excluded & PYTHON_RAW):
        ret, mode = _call_top_mode(s, stack, func, types, args, kwargs)
    if ret is NotImplemented:
        rules = func.__dict__.get("_torch_dispatch_rules")
        for a in overloaded:
            rule = rules.get(type(a)) if rules else None
            ret = rule(type(a), func, types, args, kwargs) if rule else a.__torch_dispatch__(func, types, args, kwargs)
            if ret is not NotImplemented:
                break
    if ret is NotImplemented:
        raise _not_implemented_error(name or f"{func.__module__}.{func.__name__}", mode, overloaded)
    return ret


#: op -> how its result is checked: 1 = one Tensor return, 2 = several returns, 0 = anything else
_RESULT_KIND: dict[Any, int] = {}


def _check_result(op: Any, ret: Any) -> Any:
    """What pushPyOutToStack accepts: a Tensor (or None) for a Tensor return; a list counts as a tuple."""
    kind = _RESULT_KIND.get(op)
    if kind is None:
        returns = op._schema.returns
        kind = _RESULT_KIND[op] = 1 if len(returns) == 1 and returns[0].kind == "tensor" else 2 if len(returns) > 1 else 0
    if kind == 1:
        if ret is not None and getattr(ret, "_key_set", None) is None:
            raise RuntimeError(f"Unable to cast {ret} to Tensor")
    elif kind == 2:
        if ret.__class__ is list:
            ret = tuple(ret)
        n = len(op._schema.returns)
        if ret.__class__ is tuple and len(ret) != n:  # (torch's pushPyOutToStack checks the count; wording ours)
            raise RuntimeError(f"Expected __torch_dispatch__ for {op.name()} to return {n} values, but it returned "
                               f"{len(ret)}")
    return ret


#: op -> 0 (not a view op), 1 (a view op: its outputs alias its first argument), 2 (``detach``: aliases it, but
#: is no differentiable view)
_VIEW_OPS: dict[Any, int] = {}

#: the ops with an ADInplaceOrView view kernel in PyTorch (tools/autograd/gen_inplace_or_view_type.py
#: ``VIEW_FUNCTIONS``, the ones of strided tensors, plus ``VIEW_FUNCTIONS_WITH_METADATA_CHANGE``); an op that only
#: annotates an alias (``lift_fresh``) gets no view tracking
_VIEW_FUNCTIONS = frozenset({
    "numpy_T", "alias", "as_strided", "diagonal", "expand", "permute", "select", "slice", "slice_inverse", "split",
    "split_with_sizes", "squeeze", "t", "transpose", "unfold", "unsqueeze", "flatten", "view", "unbind",
    "_reshape_alias", "view_as_complex", "view_as_real", "_conj", "_neg_view",
})


def _view_kind(op: Any) -> int:
    name = op._opname if op.namespace == "aten" else ""
    kind = 2 if name == "detach" else 1 if name in _VIEW_FUNCTIONS else 0
    _VIEW_OPS[op] = kind
    return kind


def _as_views(kind: int, args: tuple, ret: Any) -> None:
    """What ADInplaceOrView (above this key) does to a view op's outputs handed back by a mode or a subclass:
    ``as_view`` of the aliased argument (autograd/views.py)."""
    base = args[0] if args else None
    if getattr(base, "_key_set", None) is None:
        return
    global _AS_VIEW
    if _AS_VIEW is None:
        from .autograd.views import as_view as _AS_VIEW
    for o in (ret if isinstance(ret, (tuple, list)) else (ret,)):
        if getattr(o, "_key_set", None) is not None:
            _AS_VIEW(base, o, kind == 1)


_AS_VIEW: Any = None  #: autograd.views.as_view, imported on first use (an import cycle otherwise)


def python_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """The Python key's boxed fallback (registered for every op)."""
    s = per_thread.s
    if op._has_extra_tensor_args:
        overloaded = overloaded_args(args, kwargs)
    else:  # only positional Tensor slots: look there first (the common case under a mode: no subclass)
        overloaded = None
        n = len(args)
        for i in op._tensor_positions:
            if i < n:
                a = args[i]
                if getattr(a, "_key_set", 0) & PYTHON_RAW:
                    if overloaded is None:
                        overloaded = [a]
                    else:
                        _append_overloaded(overloaded, a)
    stack = s.dispatch_mode_stack
    if not overloaded and not stack:
        raise DispatchError(
            f"{op.name()}: hit the Python dispatch key but no dispatch mode is active and no argument is a "
            "tensor subclass with __torch_dispatch__ (was DispatchKey.Python included in TLS by hand?)"
        )
    # pythonFallback's guard: every key above Python is TLS-excluded while the handlers run.
    added = ABOVE_PYTHON_RAW & ~s.excluded
    if added:
        s.excluded |= added
        s.exclude_mask = ~(s.excluded & ~BACKEND_MASK)
    try:
        if overloaded:
            ret = _check_result(op, handle_torch_dispatch(overloaded, op, args, kwargs))
            view = _VIEW_OPS.get(op)
            if view is None:
                view = _view_kind(op)
            if view:
                _as_views(view, args, ret)
            return ret
        # Only a mode: _call_top_mode written out (this is the per-op cost of a pass-through mode).
        mode = stack.pop()
        if not stack:
            s.included &= ~PYTHON_MODE_KEYS_RAW
        try:
            rules = op.__dict__.get("_torch_dispatch_rules")  # torch.library.register_torch_dispatch
            if rules and mode.__class__ in rules:
                ret = rules[mode.__class__](mode, op, (), args, kwargs)
            elif mode.__class__ in _CHECKED_MODE_CLASSES:
                ret = mode.__torch_dispatch__(op, (), args, kwargs)
            else:
                ret = _mode_handler(mode)(op, (), args, kwargs)
        finally:
            _restore_top_mode(s, stack, mode)
        if ret is NotImplemented:
            raise _not_implemented_error(f"{op.__module__}.{op.__name__}", mode, [])
        view = _VIEW_OPS.get(op)
        if view is None:
            view = _view_kind(op)
        if view:
            ret = _check_result(op, ret)
            _as_views(view, args, ret)
            return ret
        if _RESULT_KIND.get(op) == 1 and getattr(ret, "_key_set", None) is not None:
            return ret  # (_check_result's common case, a Tensor for a Tensor return: nothing to check)
        # (an in-place op's result stays what the mode returned: the autograd kernel above gives back ``self``)
        return _check_result(op, ret)
    finally:
        if added:
            s.excluded &= ~added
            s.exclude_mask = ~(s.excluded & ~BACKEND_MASK)


def disabled_torch_dispatch_impl(func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
    """``torch.Tensor.__torch_dispatch__``: run ``func`` with the Python key excluded (no subclass handling)."""
    s = per_thread.s
    added = PYTHON_RAW & ~s.excluded
    if added:
        s.excluded |= added
        s.exclude_mask = ~(s.excluded & ~BACKEND_MASK)
    try:
        return func(*args, **(kwargs or {}))
    finally:
        if added:
            s.excluded &= ~added
            s.exclude_mask = ~(s.excluded & ~BACKEND_MASK)


_DETACH: Any = None


def _aten_detach() -> Any:
    """``aten.detach.default`` (looked up on first use, avoiding an import cycle)."""
    global _DETACH
    if _DETACH is None:
        from .op_overload import namespace

        _DETACH = namespace("aten").detach.default
    return _DETACH


def shallow_copy_and_detach(t: Any, version_counter: Any = None) -> Any:
    """A new tensor over ``t``'s storage, sharing ``version_counter`` (default: ``t``'s), with no history.

    Corresponds to ``TensorImpl::shallow_copy_and_detach_core`` (2.13), which autograd uses when it
    saves an output for backward and when it unpacks a saved tensor:

    * a dispatch mode is active (and Python is not TLS-excluded): the top mode's
      ``__torch_dispatch__`` gets ``aten.detach.default`` with ``types == (type(t),)`` (even for a plain
      tensor), popped while it runs, with no TLS exclusions (this is not a dispatcher call);
    * else ``t`` carries the Python key: its class's ``__torch_dispatch__`` handles the detach;
    * else a plain metadata copy (same class and key set).

    The handler's result gets the version counter; what it returns is the copy.
    """
    if version_counter is None:
        version_counter = t._version_counter
    s = per_thread.s
    if not (s.excluded & PYTHON_RAW) and (s.dispatch_mode_stack or t._key_set & PYTHON_RAW):
        snapshot_set = s.tls_snapshot is None  # MaybeSetTLSOnEntryGuard
        if snapshot_set:
            s.tls_snapshot = (s.included, s.excluded)
        try:
            out = handle_torch_dispatch([t], _aten_detach(), (t,), {}, name="dispatcher.ops.aten.detach")
        finally:
            if snapshot_set:
                s.tls_snapshot = None
        if getattr(out, "_key_set", None) is None:
            raise TypeError(f"detach returned invalid type {type(out).__module__}.{type(out).__qualname__}, "
                            "expected Tensor")
        out._version_counter = version_counter
        return out
    out = type(t)._from_storage(t._storage, t._shape, t._stride, t._storage_offset, t._dtype, t._device)
    out._key_set = t._key_set
    out._version_counter = version_counter
    if t._data is None:  # a meta tensor: the same (data-less) storage (dispatcher/storage.py)
        from .storage import share_dataless

        share_dataless(out, t)
    return out


__all__ = [
    "ABOVE_PYTHON_RAW",
    "disabled_torch_dispatch_impl",
    "handle_torch_dispatch",
    "overloaded_args",
    "python_fallback",
    "shallow_copy_and_detach",
]
