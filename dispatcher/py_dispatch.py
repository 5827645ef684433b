"""The Python dispatcher: ``py_impl`` kernels, ``resolve_key`` and the PythonDispatcher fallback.

Corresponds to torch/_ops.py (``resolve_key``, ``OperatorBase.py_impl``,
``OpOverload._get_dispatch``) and the PythonDispatcher boxed fallback of
aten/src/ATen/core/PythonFallbackKernel.cpp + torch/csrc/PyInterpreter.cpp.

While the PythonDispatcher key is in TLS (``EnablePythonDispatcher``) it is the
highest key of every call. Its fallback drops its own bit, takes the key the
call would have reached, and asks the op (once per key, then cached) what
handles it: ``resolve_key`` finds the registration that would fill that slot
(kernel, CEA, CIA, Autograd, fallback: the same ladder as ``dispatch_table``,
Python and table registrations together), then a ``py_impl`` kernel on the
resolved key wins over the table's kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .alias import AUTOGRADOTHER_BACKENDS, backend_keyset_from_autograd, is_included_in_alias
from .dispatch import call_boxed_for_dispatch_key
from .errors import AmbiguousAutogradOtherError, DispatchError, RegistrationError
from .keys import PER_BACKEND_START as _PBS
from .keys import DispatchKey, is_alias_key, to_functionality_key
from .keyset import BACKEND_MASK, PYTHON_DISPATCHER_BIT, key_bits
from .python_key import _check_result
from .registry import REGISTRY
from .tls import (
    PRE_DISPATCH_RAW,
    per_thread,
    pop_dispatch_mode,
    pop_pre_dispatch_mode,
    push_dispatch_mode,
    push_pre_dispatch_mode,
)

DK = DispatchKey
_PYTHON_BITS = key_bits(DK.Python)


def has_kernel_for_dispatch_key(op: Any, key: DispatchKey) -> bool:
    """A Python (py_impl) or table registration directly on ``key``."""
    return key in op.py_kernels or bool(op.kernels.get(key))


def has_kernel_for_any_dispatch_key(op: Any, raw: int) -> bool:
    for key in list(op.py_kernels) + [k for k, v in op.kernels.items() if v]:
        if not is_alias_key(key):
            bits = key_bits(key)
            if bits and raw & bits == bits:
                return True
    return False


def resolve_key(op: Any, key: DispatchKey) -> DispatchKey:
    """The key whose registration serves runtime key ``key`` (may be an alias key or ``key`` itself)."""
    key = DispatchKey(key)
    undefined = key == DK.Undefined
    if has_kernel_for_dispatch_key(op, key):
        return key
    for cand in (DK.CompositeExplicitAutogradNonFunctional, DK.CompositeExplicitAutograd):
        if (undefined or is_included_in_alias(key, cand)) and has_kernel_for_dispatch_key(op, cand):
            return cand
    has_backend_kernel = has_kernel_for_any_dispatch_key(
        op, backend_keyset_from_autograd(key)
    ) or has_kernel_for_dispatch_key(op, DK.CompositeExplicitAutograd)
    cand = DK.CompositeImplicitAutogradNestedTensor
    if (
        not undefined
        and is_included_in_alias(key, cand)
        and has_kernel_for_dispatch_key(op, cand)
        and not has_backend_kernel
    ):
        return cand
    cand = DK.CompositeImplicitAutograd
    if (undefined or is_included_in_alias(key, cand)) and has_kernel_for_dispatch_key(op, cand):
        if key == DK.AutogradOther and has_kernel_for_any_dispatch_key(op, AUTOGRADOTHER_BACKENDS):
            raise AmbiguousAutogradOtherError("ambiguous autogradother kernel")
        if not has_backend_kernel:
            return cand
    for cand in (DK.Autograd, DK.FuncTorchBatchedDecomposition):
        if is_included_in_alias(key, cand) and has_kernel_for_dispatch_key(op, cand):
            return cand
    if REGISTRY.fallbacks[key] is not None:
        return key
    raise DispatchError(f"could not find kernel for {op} at dispatch key {key}")


def _python_key_handler(op: Any) -> Callable[..., Any]:
    """Handler for the Python key when the op has mode-specific rules (``py_impl(ModeClass)``).

    The rule of the top mode's class runs as ``rule(mode, *args, **kwargs)`` with that mode popped (and no
    TLS exclusions: this is not the Python fallback); without one, the Python fallback runs (modes, then
    subclasses), as ``_op_dk(DispatchKey.Python)`` does in torch/_ops.py.
    """

    def handler(*args: Any, **kwargs: Any) -> Any:
        stack = per_thread.s.dispatch_mode_stack
        mode = stack[-1] if stack else None
        rule = op.python_key_table.get(type(mode)) if mode is not None else None
        if rule is None:
            return call_boxed_for_dispatch_key(op, DK.Python, args, kwargs)
        mode = pop_dispatch_mode()
        try:
            return rule(mode, *args, **kwargs)
        finally:
            push_dispatch_mode(mode)

    return handler


def _pre_dispatch_handler(op: Any) -> Callable[..., Any]:
    """Uncached handler: run the top pre-dispatch mode with that mode popped (``handle_dispatch_mode``).

    ``types`` lists the type of every argument carrying the Python key (not deduplicated), as
    torch/_library/utils.py ``handle_dispatch_mode`` builds it.
    """

    def handler(*args: Any, **kwargs: Any) -> Any:
        types = [type(a) for a in _flat_tensors(args, kwargs) if a._key_set & _PYTHON_BITS]
        mode = pop_pre_dispatch_mode()
        try:
            # checked as the Python key checks a mode's result (the C++ stack takes it back in PyTorch): a mode
            # declining the op (NotImplemented) is "Unable to cast NotImplemented to Tensor" here, for no
            # subclass handler sits at this key
            return _check_result(op, mode.__torch_dispatch__(op, types, args, kwargs))
        finally:
            s = per_thread.s
            if not s.pre_dispatch_mode_stack:  # push_pre_dispatch_mode's result when it was the only mode
                s.included |= PRE_DISPATCH_RAW
                s.pre_dispatch_mode_stack.append(mode)
            else:
                push_pre_dispatch_mode(mode)

    return handler


def _flat_tensors(args: tuple, kwargs: dict) -> list[Any]:
    out = []
    for a in (*args, *kwargs.values()):
        for e in a if isinstance(a, (list, tuple)) else (a,):
            if getattr(e, "_key_set", None) is not None:
                out.append(e)
    return out


_PRE_DISPATCH = int(DK.PreDispatch)
#: op -> its pre-dispatch handler (the handler looks at the mode stack when called, so one per op serves)
_PRE_HANDLERS: dict[Any, Callable[..., Any]] = {}


def get_dispatch(op: Any, key: DispatchKey) -> DispatchKey | Callable[..., Any]:
    """What serves ``key`` for ``op`` under the Python dispatcher: a DispatchKey or a Python callable."""
    if key == _PRE_DISPATCH:  # (hot while pre-dispatch tracing: never cached, see below)
        s = per_thread.s
        if s.pre_dispatch_mode_stack and not s.excluded & _PYTHON_BITS:
            handler = _PRE_HANDLERS.get(op)
            if handler is None:
                handler = _PRE_HANDLERS[op] = _pre_dispatch_handler(op)
            return handler
    key = DispatchKey(key)
    if key == DK.Python:
        if not op.python_key_table:
            op._dispatch_cache[key] = key
            return key
        handler = _python_key_handler(op)
        op._dispatch_cache[key] = handler
        return handler
    if to_functionality_key(key) == DK.PreDispatch:
        s = per_thread.s
        if s.pre_dispatch_mode_stack and not s.excluded & _PYTHON_BITS:
            return _pre_dispatch_handler(op)  # not cached: modes come and go
    final = resolve_key(op, key)
    result = op.py_kernels.get(final, final)
    if key != DK.PreDispatch:
        op._dispatch_cache[key] = result
    return result


def python_dispatcher_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """The PythonDispatcher key's boxed fallback (registered for every op)."""
    ks &= ~PYTHON_DISPATCHER_BIT
    v = (ks >> 16).bit_length()  # highest_key(ks), written out
    s = _PBS[v]
    key = s + (ks & BACKEND_MASK).bit_length() if s else v
    handler = op._dispatch_cache.get(key)
    if handler is None:
        handler = get_dispatch(op, key)
    tracer = per_thread.s.tracer  # (hot: every op at every key while the Python dispatcher is on)
    if tracer is not None:
        tracer.on_python_dispatcher(op, DispatchKey(key), handler)
    if isinstance(handler, DispatchKey):
        return call_boxed_for_dispatch_key(op, handler, args, kwargs)
    return handler(*args, **kwargs)


def py_impl(op: Any, key: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``op.py_impl(DispatchKey.X)(fn)`` or ``op.py_impl(ModeClass)(fn)``."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if isinstance(key, type):
            if key in op.python_key_table:
                raise RegistrationError(f"Trying to override a python impl for {key} on operator {op.name()}")
            op.python_key_table[key] = fn
        else:
            k = DispatchKey(key) if isinstance(key, int) else DispatchKey[key]
            if k == DK.Python:
                raise AssertionError("Please register a mode for the DispatchKey.Python key instead.")
            if k in op.py_kernels:
                raise RegistrationError(f"Trying to override a python impl for {k} on operator {op.name()}")
            op.py_kernels[k] = fn
        op._dispatch_cache.clear()
        return fn

    return register


def remove_py_impl(op: Any, key: Any) -> Callable[..., Any]:
    """Undo ``op.py_impl(key)``: remove and return the Python kernel (or mode rule) registered for ``key``.

    PyTorch has no public API for this (tests ``del op.py_kernels[key]`` and clear ``op._dispatch_cache``);
    this does both, so the next call resolves afresh. KeyError when nothing is registered for ``key``.
    """
    if isinstance(key, type):
        table, k = op.python_key_table, key
    else:
        table, k = op.py_kernels, DispatchKey(key) if isinstance(key, int) else DispatchKey[key]
    if k not in table:
        raise KeyError(f"no python impl for {getattr(k, 'name', k)} on operator {op.name()}")
    fn = table.pop(k)
    op._dispatch_cache.clear()
    return fn
