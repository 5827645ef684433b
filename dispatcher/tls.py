"""Thread-local dispatch state and the guards that change it.

Corresponds to c10/core/impl/LocalDispatchKeySet.h, c10/core/impl/PythonDispatcherTLS.h
and the guards exposed as ``torch._C._AutoDispatchBelowAutograd`` & co.

Each thread has its own included and excluded key sets. PyTorch stores them
XOR'ed with the defaults so that a zero-initialised thread starts with
included = {BackendSelect, ADInplaceOrView} and excluded = {every Autocast key};
we simply initialise every new thread's state with those defaults.

Every guard is a context manager that undoes exactly what it did when it exits,
also when its body raises. Like c10's guards, an include/exclude guard only
removes on exit the keys that it added itself (keys that were already present
stay), so guards nest in any order.
"""

from __future__ import annotations

import threading
from typing import Any

from .keys import DispatchKey
from .keyset import BACKEND_MASK, DispatchKeySet, _key, key_bits

# ---------------------------------------------------------------------------
# Key sets that guards use (c10/core/DispatchKeySet.h)

AUTOCAST_KEYS: tuple[DispatchKey, ...] = tuple(k for k in DispatchKey if k.name.startswith("Autocast"))
DEFAULT_INCLUDED = key_bits(DispatchKey.BackendSelect) | key_bits(DispatchKey.ADInplaceOrView)
DEFAULT_EXCLUDED = 0
for _k in AUTOCAST_KEYS:
    DEFAULT_EXCLUDED |= key_bits(_k)

#: every autograd functionality, without backend bits (c10 ``autograd_dispatch_keyset``)
AUTOGRAD_KEYS_RAW = (
    key_bits(DispatchKey.AutogradFunctionality)
    | key_bits(DispatchKey.AutogradOther)
    | key_bits(DispatchKey.AutogradNestedTensor)
)
AUTOGRAD_AND_ADINPLACEORVIEW_RAW = AUTOGRAD_KEYS_RAW | key_bits(DispatchKey.ADInplaceOrView)
PYTHON_DISPATCHER_RAW = key_bits(DispatchKey.PythonDispatcher)
PRE_DISPATCH_RAW = key_bits(DispatchKey.PreDispatch)
PYTHON_RAW = key_bits(DispatchKey.Python)


class _DispatchTLS:
    """The dispatch state of one thread (a plain object: field access is as cheap as Python gets)."""

    def __init__(self) -> None:
        self.included = DEFAULT_INCLUDED
        self.excluded = DEFAULT_EXCLUDED
        # What the hot path ANDs with: subtraction of the excluded set keeps backend bits.
        self.exclude_mask = ~(DEFAULT_EXCLUDED & ~BACKEND_MASK)
        # explain_dispatch records hops here while it runs (None: not recording).
        self.tracer: Any = None
        # Stacks for dispatch modes (filled by the modes machinery).
        self.dispatch_mode_stack: list[Any] = []
        self.pre_dispatch_mode_stack: list[Any] = []
        # PythonTLSSnapshot: the (included, excluded) pair seen when Python dispatch was entered.
        self.tls_snapshot: tuple[int, int] | None = None
        # Grad mode (autograd/grad_mode.py): kept here so the autograd kernel reads one per-thread object.
        self.grad_enabled = True
        # Graph-capture front ends (tracer.compile) count here the capture sessions and disable()d calls running
        # on this thread: their warm path checks "none running" and the grad mode with one per-thread read.
        self.capture_depth = 0


class _PerThread(threading.local):
    """Holds each thread's ``_DispatchTLS``. Every attribute read of a ``threading.local`` costs about
    as much as ten plain ones, so hot code reads ``per_thread.s`` once per call and works on that."""

    def __init__(self) -> None:
        self.s = _DispatchTLS()


per_thread = _PerThread()


def current() -> _DispatchTLS:
    """The calling thread's dispatch state (hot code inlines ``per_thread.s``)."""
    return per_thread.s


class _StateView:
    """``state``: reads and writes go to the calling thread's ``_DispatchTLS``.

    Convenient for code off the hot path (``state.included``); the call path uses ``current()``.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        return getattr(per_thread.s, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(per_thread.s, name, value)


state: Any = _StateView()


def _set_excluded(raw: int) -> None:
    per_thread.s.excluded = raw
    per_thread.s.exclude_mask = ~(raw & ~BACKEND_MASK)


def set_raw_included(raw: int) -> None:
    """Replace the included set (raw bits). Prefer the guards."""
    per_thread.s.included = raw


def set_raw_excluded(raw: int) -> None:
    """Replace the excluded set (raw bits). Prefer the guards."""
    _set_excluded(raw)


# ---------------------------------------------------------------------------
# Queries, with PyTorch's names (torch._C._dispatch_tls_*)

def tls_local_include_set() -> DispatchKeySet:
    return DispatchKeySet.from_raw_repr(per_thread.s.included)


def tls_local_exclude_set() -> DispatchKeySet:
    return DispatchKeySet.from_raw_repr(per_thread.s.excluded)


def tls_is_dispatch_key_included(key: DispatchKey | str) -> bool:
    bits = key_bits(_key(key))
    return per_thread.s.included & bits == bits and bits != 0


def tls_is_dispatch_key_excluded(key: DispatchKey | str) -> bool:
    bits = key_bits(_key(key))
    return per_thread.s.excluded & bits == bits and bits != 0


def tls_set_dispatch_key_included(key: DispatchKey | str, included: bool) -> None:
    bits = key_bits(_key(key))
    per_thread.s.included = per_thread.s.included | bits if included else per_thread.s.included & ~bits


def tls_set_dispatch_key_excluded(key: DispatchKey | str, excluded: bool) -> None:
    bits = key_bits(_key(key))
    _set_excluded(per_thread.s.excluded | bits if excluded else per_thread.s.excluded & ~bits)


def is_python_dispatcher_enabled() -> bool:
    return bool(per_thread.s.included & PYTHON_DISPATCHER_RAW)


# ---------------------------------------------------------------------------
# Dispatch-mode stacks (c10/core/impl/TorchDispatchModeTLS.cpp; the pre-dispatch stack of torch/_ops.py)
#
# One list per thread, bottom -> top. "Infra" modes (``_mode_key`` set: FAKE=0, PROXY=1, FUNCTIONAL=2) keep a
# fixed slot at the bottom in key order whatever the order of entry; other modes stack above them. NB: PyTorch
# keeps the infra slots in a separate array and lists them first; one list in that order is the same view.

#: Python + PythonTLSSnapshot: in the TLS include set exactly while the mode stack is non-empty
PYTHON_MODE_KEYS_RAW = key_bits(DispatchKey.Python) | key_bits(DispatchKey.PythonTLSSnapshot)
_MODE_KEY_NAMES = ("FAKE", "PROXY", "FUNCTIONAL")


def _infra_insert(stack: list[Any], mode: Any, key: int) -> None:
    """Put an infra mode into its slot (after infra modes with a smaller key); one per key."""
    pos = 0
    for i, m in enumerate(stack):
        k = getattr(m, "_mode_key", None)
        if k is None:
            break
        if int(k) == int(key):
            name = _MODE_KEY_NAMES[int(key)] if 0 <= int(key) < len(_MODE_KEY_NAMES) else str(key)
            raise RuntimeError(f"trying to set the current {name}, but one already exists")
        if int(k) < int(key):
            pos = i + 1
    stack.insert(pos, mode)


def _push_mode(s: Any, stack: list, include: int, mode: Any) -> None:
    """Push ``mode`` on ``stack`` (an infra mode, one with a ``_mode_key``, at its slot); the first one adds the
    ``include`` keys to the thread's TLS include set."""
    if not stack:
        s.included |= include
    key = getattr(mode, "_mode_key", None)
    if key is None:
        stack.append(mode)
    else:
        _infra_insert(stack, mode, key)


def push_dispatch_mode(mode: Any) -> None:
    """Push onto this thread's TorchDispatchMode stack; the first one turns Python dispatch on."""
    s = per_thread.s
    _push_mode(s, s.dispatch_mode_stack, PYTHON_MODE_KEYS_RAW, mode)


def pop_dispatch_mode(mode_key: Any = None) -> Any:
    """Pop the top mode (or the infra mode with ``mode_key``); the last one turns Python dispatch off."""
    s = per_thread.s
    stack = s.dispatch_mode_stack
    if mode_key is None:
        if not stack:
            raise RuntimeError("trying to pop from empty mode stack")
        mode = stack.pop()
    else:
        for i, m in enumerate(stack):
            k = getattr(m, "_mode_key", None)
            if k is not None and int(k) == int(mode_key):
                mode = stack.pop(i)
                break
        else:
            name = _MODE_KEY_NAMES[int(mode_key)] if 0 <= int(mode_key) < len(_MODE_KEY_NAMES) else str(mode_key)
            raise RuntimeError(f"Attempted to unset {name}, but there wasn't one active.")
    if not stack:
        s.included &= ~PYTHON_MODE_KEYS_RAW
    return mode


def push_pre_dispatch_mode(mode: Any) -> None:
    """Push onto this thread's pre-dispatch mode stack; the first one includes PreDispatch in TLS."""
    s = per_thread.s
    _push_mode(s, s.pre_dispatch_mode_stack, PRE_DISPATCH_RAW, mode)


def pop_pre_dispatch_mode(mode_key: Any = None) -> Any:
    """Pop the top pre-dispatch mode (or the infra one with ``mode_key``, None if absent); the last one removes
    PreDispatch from the TLS include set."""
    s = per_thread.s
    stack = s.pre_dispatch_mode_stack
    if mode_key is None:
        if not stack:
            raise AssertionError("Trying to pop empty mode stack")
        mode = stack.pop()
    else:
        index = next((i for i, m in enumerate(stack)
                      if getattr(m, "_mode_key", None) is not None and int(m._mode_key) == int(mode_key)), None)
        mode = None if index is None else stack.pop(index)
    if not stack:
        s.included &= ~PRE_DISPATCH_RAW
    return mode


# ---------------------------------------------------------------------------
# Guards

def _as_raw(keys: DispatchKey | DispatchKeySet | int | str) -> int:
    if isinstance(keys, DispatchKeySet):
        return keys.repr
    return key_bits(_key(keys))


class IncludeDispatchKeyGuard:
    """Add keys to this thread's included set; on exit remove the ones that were not there before."""

    def __init__(self, keys: DispatchKey | DispatchKeySet) -> None:
        self._raw = _as_raw(keys)
        self._added = 0

    def __enter__(self) -> IncludeDispatchKeyGuard:
        self._added = self._raw & ~per_thread.s.included
        per_thread.s.included |= self._added
        return self

    def __exit__(self, *exc: object) -> None:
        per_thread.s.included &= ~self._added


class ExcludeDispatchKeyGuard:
    """Add keys to this thread's excluded set; on exit remove the ones that were not there before."""

    def __init__(self, keys: DispatchKey | DispatchKeySet) -> None:
        self._raw = _as_raw(keys)
        self._added = 0

    def __enter__(self) -> ExcludeDispatchKeyGuard:
        self._added = self._raw & ~per_thread.s.excluded
        _set_excluded(per_thread.s.excluded | self._added)
        return self

    def __exit__(self, *exc: object) -> None:
        _set_excluded(per_thread.s.excluded & ~self._added)


class ForceDispatchKeyGuard:
    """``torch._C._ForceDispatchKeyGuard(include, exclude)``: this thread's included and excluded sets are exactly
    the given ones inside the block; the previous sets come back on exit."""

    def __init__(self, include: DispatchKeySet, exclude: DispatchKeySet) -> None:
        self._include, self._exclude = _as_raw(include), _as_raw(exclude)

    def __enter__(self) -> ForceDispatchKeyGuard:
        self._saved = (per_thread.s.included, per_thread.s.excluded)
        per_thread.s.included = self._include
        _set_excluded(self._exclude)
        return self

    def __exit__(self, *exc: object) -> None:
        per_thread.s.included = self._saved[0]
        _set_excluded(self._saved[1])


class _SetIncludedBit:
    """Set one included bit to a fixed value and restore its previous value on exit."""

    _bits = 0
    _value = True

    def __enter__(self) -> _SetIncludedBit:
        self._was = per_thread.s.included & self._bits
        per_thread.s.included = per_thread.s.included | self._bits if self._value else per_thread.s.included & ~self._bits
        return self

    def __exit__(self, *exc: object) -> None:
        per_thread.s.included = (per_thread.s.included & ~self._bits) | self._was


class EnablePythonDispatcher(_SetIncludedBit):
    """Turn the Python dispatcher on (``torch._C._EnablePythonDispatcher``).

    While on, PythonDispatcher is the highest key of every call and ``py_impl``
    kernels are honoured.
    """

    _bits = PYTHON_DISPATCHER_RAW
    _value = True


class DisablePythonDispatcher(_SetIncludedBit):
    """Turn the Python dispatcher off for the body (``torch._C._DisablePythonDispatcher``)."""

    _bits = PYTHON_DISPATCHER_RAW
    _value = False


class EnablePreDispatch(IncludeDispatchKeyGuard):
    """Include the PreDispatch key (``torch._C._EnablePreDispatch``), where pre-dispatch modes live."""

    def __init__(self) -> None:
        super().__init__(DispatchKey.PreDispatch)


class _ExcludeFixed:
    """Exclude a fixed raw key set for the body (no arguments: cheap enough for every op call)."""

    __slots__ = ("_added",)
    _raw = 0

    def __enter__(self) -> _ExcludeFixed:
        t = per_thread.s
        self._added = added = self._raw & ~t.excluded
        if added:
            t.excluded |= added
            t.exclude_mask = ~(t.excluded & ~BACKEND_MASK)
        return self

    def __exit__(self, *exc: object) -> None:
        added = self._added
        if added:
            t = per_thread.s
            t.excluded &= ~added
            t.exclude_mask = ~(t.excluded & ~BACKEND_MASK)


class AutoDispatchBelowAutograd(_ExcludeFixed):
    """Exclude every autograd key (``torch._C._AutoDispatchBelowAutograd``)."""

    __slots__ = ()
    _raw = AUTOGRAD_KEYS_RAW


class AutoDispatchBelowADInplaceOrView(_ExcludeFixed):
    """Exclude every autograd key and ADInplaceOrView (``torch._C._AutoDispatchBelowADInplaceOrView``)."""

    __slots__ = ()
    _raw = AUTOGRAD_AND_ADINPLACEORVIEW_RAW


# PyTorch's Python spellings of the same guards.
_EnablePythonDispatcher = EnablePythonDispatcher
_DisablePythonDispatcher = DisablePythonDispatcher
_EnablePreDispatch = EnablePreDispatch
_AutoDispatchBelowAutograd = AutoDispatchBelowAutograd
_AutoDispatchBelowADInplaceOrView = AutoDispatchBelowADInplaceOrView
_IncludeDispatchKeyGuard = IncludeDispatchKeyGuard
_ExcludeDispatchKeyGuard = ExcludeDispatchKeyGuard
