"""``TorchDispatchMode`` and the thread-local mode stacks.

Corresponds to torch/utils/_python_dispatch.py (TorchDispatchMode, ``_push_mode``,
``_pop_mode``, ``_pop_mode_temporarily``, ``_get_current_dispatch_mode*``), the pre-dispatch
stack helpers of torch/_ops.py and torch/utils/_mode_utils.py (``no_dispatch``).

A mode is a context manager: ``with MyMode():`` pushes it onto this thread's stack, which
adds Python + PythonTLSSnapshot to the TLS include set, so every op (factory functions
too) reaches the Python key, where the top mode's ``__torch_dispatch__(func, types, args,
kwargs)`` runs with that mode popped (``python_key.py``). Calls made inside the handler go
to the next mode down, or to the kernels; ``with self:`` inside the handler re-enters it.

Modes whose ``_mode_key`` is set (FAKE, PROXY, FUNCTIONAL: the "infra" modes that tracing
and fake tensors will define) keep a fixed slot at the bottom of the stack. A mode created
with ``_dispatch_key=DispatchKey.PreDispatch`` goes on the separate pre-dispatch stack
instead, reached through the PreDispatch key by the Python dispatcher (``py_dispatch.py``).
"""

from __future__ import annotations

import contextlib
import enum
import warnings
from collections.abc import Iterator
from typing import Any

from ..keys import DispatchKey
from ..tls import (
    PRE_DISPATCH_RAW,
    PYTHON_MODE_KEYS_RAW,
    _ExcludeFixed,
    per_thread,
    pop_dispatch_mode,
    pop_pre_dispatch_mode,
    push_dispatch_mode,
    push_pre_dispatch_mode,
    set_raw_excluded,
    set_raw_included,
)


class TorchDispatchModeKey(enum.IntEnum):
    """``torch._C._TorchDispatchModeKey``: the fixed bottom slots of the mode stack, lowest first."""

    FAKE = 0
    PROXY = 1
    FUNCTIONAL = 2


class TorchDispatchMode:
    """Override every aten op called in a dynamic scope: subclass it and define ``__torch_dispatch__``.

    ``__torch_dispatch__(self, func, types, args=(), kwargs=None)`` receives the OpOverload
    (``aten.add.Tensor``), the tensor-subclass types among the arguments, and the arguments
    in schema form; whatever it returns is the op's result (``NotImplemented`` passes the op
    on to the tensor subclasses). It runs with this mode popped, so ``func(*args, **kwargs)``
    inside it continues below. Modes nest: the innermost one runs first.
    """

    #: set by infra modes (a TorchDispatchModeKey): they live in a fixed slot at the bottom of the stack
    _mode_key: TorchDispatchModeKey | None = None

    def __init__(self, _dispatch_key: DispatchKey | None = None) -> None:
        if _dispatch_key is not None:
            if not isinstance(_dispatch_key, DispatchKey):
                raise AssertionError("_dispatch_key must be a torch._C.DispatchKey")
            self.__dict__["_dispatch_key"] = _dispatch_key

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchDispatchMode:
        _push_mode(self)
        return self

    def __exit__(self, *exc: object) -> None:
        key = self.__dict__.get("_dispatch_key")
        if key is None:
            key = getattr(self, "_mode_key", None)
        _pop_mode(key)

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> TorchDispatchMode:
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls) -> bool:
        return False

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        return cls.is_infra_mode()


class BaseTorchDispatchMode(TorchDispatchMode):
    """A pass-through mode: runs every op unchanged (a base for modes that override a few ops)."""

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        return func(*args, **(kwargs or {}))


# --- the stacks ---------------------------------------------------------------------------------------------------
def _push_mode(mode: Any) -> None:
    """Push ``mode`` onto the TorchDispatchMode stack, or the pre-dispatch stack if its ``_dispatch_key`` says so."""
    k = getattr(mode, "_dispatch_key", None)
    if k is not None and k != DispatchKey.PreDispatch:
        raise AssertionError("mode._dispatch_key must be None or DispatchKey.PreDispatch")
    if k is None:
        push_dispatch_mode(mode)
    else:
        push_pre_dispatch_mode(mode)


def _pop_mode(k: DispatchKey | TorchDispatchModeKey | None = None) -> Any:
    """Pop the top mode (``k=DispatchKey.PreDispatch``: of the pre-dispatch stack; a mode key: that infra mode)."""
    if k is DispatchKey.PreDispatch:
        return _pop_mode_from_pre_dispatch()
    if k is None or isinstance(k, TorchDispatchModeKey):
        return pop_dispatch_mode(k)
    return None


@contextlib.contextmanager
def _pop_mode_temporarily(k: DispatchKey | TorchDispatchModeKey | None = None) -> Iterator[Any]:
    """Pop the top mode for the body and push it back afterwards (also on errors)."""
    old = _pop_mode(k)
    try:
        yield old
    finally:
        _push_mode(old)


def _len_torch_dispatch_stack() -> int:
    return len(per_thread.s.dispatch_mode_stack)


def _get_dispatch_stack_at(idx: int) -> Any:
    return per_thread.s.dispatch_mode_stack[idx]


def _get_current_dispatch_mode() -> Any:
    """The mode that would handle the next op (top of the stack), or None."""
    stack = per_thread.s.dispatch_mode_stack
    return stack[-1] if stack else None


def _get_current_dispatch_mode_stack() -> list[Any]:
    """This thread's modes, bottom to top (the last one runs first)."""
    return list(per_thread.s.dispatch_mode_stack)


def _get_dispatch_mode(key: TorchDispatchModeKey) -> Any:
    """The active infra mode with this key, or None (``torch._C._get_dispatch_mode``)."""
    for m in per_thread.s.dispatch_mode_stack:
        if getattr(m, "_mode_key", None) is not None and int(m._mode_key) == int(key):
            return m
    return None


def _unset_dispatch_mode(key: TorchDispatchModeKey) -> Any:
    """Remove and return the infra mode with this key, or None if there is none."""
    if _get_dispatch_mode(key) is None:
        return None
    return pop_dispatch_mode(key)


# --- the pre-dispatch stack (torch/_ops.py) --------------------------------------------------------------------------
def _set_mode_pre_dispatch(mode: Any) -> None:
    push_pre_dispatch_mode(mode)


def _pop_mode_from_pre_dispatch() -> Any:
    return pop_pre_dispatch_mode()


def _len_torch_dispatch_stack_pre_dispatch() -> int:
    return len(per_thread.s.pre_dispatch_mode_stack)


def _get_current_dispatch_mode_pre_dispatch() -> Any:
    stack = per_thread.s.pre_dispatch_mode_stack
    return stack[-1] if stack else None


def _get_current_dispatch_mode_stack_pre_dispatch() -> list[Any]:
    return list(per_thread.s.pre_dispatch_mode_stack)


def _get_dispatch_mode_pre_dispatch(mode_key: TorchDispatchModeKey) -> Any:
    """The pre-dispatch infra mode with this key (PROXY or FUNCTIONAL), or None."""
    for m in per_thread.s.pre_dispatch_mode_stack:
        if getattr(m, "_mode_key", None) is not None and int(m._mode_key) == int(mode_key):
            return m
    return None


def unset_mode_pre_dispatch(mode_key: TorchDispatchModeKey | None) -> Any:
    """Remove and return the pre-dispatch mode with this key (None: the top one), or None if there is none."""
    if mode_key is None and not per_thread.s.pre_dispatch_mode_stack:
        return None
    return pop_pre_dispatch_mode(mode_key)


@contextlib.contextmanager
def _disable_current_modes() -> Iterator[list[Any]]:
    """Pop every mode (pre-dispatch ones first) for the body; yields them, top first; restores them after."""
    pre = [pop_pre_dispatch_mode() for _ in range(_len_torch_dispatch_stack_pre_dispatch())]
    regular = [pop_dispatch_mode() for _ in range(_len_torch_dispatch_stack())]
    try:
        yield pre + regular
    finally:
        for mode in reversed(regular):
            push_dispatch_mode(mode)
        for mode in reversed(pre):
            push_pre_dispatch_mode(mode)


# --- guards --------------------------------------------------------------------------------------------------------
class _DisableTorchDispatch(_ExcludeFixed):
    """Exclude Python, PythonTLSSnapshot and PreDispatch: modes and subclasses are bypassed for the body."""

    __slots__ = ()
    _raw = PYTHON_MODE_KEYS_RAW | PRE_DISPATCH_RAW


@contextlib.contextmanager
def no_dispatch() -> Iterator[None]:
    """Run the body with ``__torch_dispatch__`` off (``torch.utils._mode_utils.no_dispatch``)."""
    with _DisableTorchDispatch():
        yield


@contextlib.contextmanager
def enable_torch_dispatch_mode(mode: Any, *, ignore_preexisting: bool = False) -> Iterator[Any]:
    """The pre-2.0 spelling of ``with mode:`` (the API of the note "TorchDispatchMode for Debugging, ...").

    ``mode`` is a TorchDispatchMode instance, or a tensor subclass whose ``__torch_dispatch__``
    classmethod should act as the mode. With ``ignore_preexisting=True`` the modes already
    active are hidden for the body, so ``mode`` is the only one. NB: PyTorch removed this
    function when modes became a stack (``with mode:`` is the same thing).
    """
    if isinstance(mode, type):
        mode = _SubclassAsMode(mode)
    if not isinstance(mode, TorchDispatchMode):
        raise ValueError(f"expected to get TorchDispatchMode, Tensor-like class, or None as an argument got "
                         f"{type(mode)} instead")
    stash = _disable_current_modes() if ignore_preexisting else contextlib.nullcontext()
    with stash, mode:
        yield mode


class _SubclassAsMode(TorchDispatchMode):
    """A tensor subclass used as a mode: its ``__torch_dispatch__`` classmethod handles every op."""

    def __init__(self, cls: type) -> None:
        super().__init__()
        if not callable(getattr(cls, "__torch_dispatch__", None)):
            raise ValueError(f"{cls.__name__} has no __torch_dispatch__")
        self.cls = cls

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        return self.cls.__torch_dispatch__(func, types, args, kwargs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.cls.__name__})"


class _RestorePythonTLSSnapshot:
    """Inside a ``__torch_dispatch__`` handler: bring back the TLS seen when Python dispatch was entered.

    Corresponds to ``torch._C._RestorePythonTLSSnapshot`` (``enable_reentrant_dispatch``): the keys the
    Python fallback excluded (autograd, ADInplaceOrView, ...) run again for ops issued in the body.
    """

    def __enter__(self) -> _RestorePythonTLSSnapshot:
        s = per_thread.s
        if s.tls_snapshot is None:
            raise RuntimeError("Accessing torch dispatch state outside of '__torch_dispatch__' is not allowed.")
        self._saved = (s.included, s.excluded, s.tls_snapshot)
        included, excluded = s.tls_snapshot
        s.tls_snapshot = None
        # whether modes are on is read off the mode stack, not the snapshot (PyTorch adds the Python key for modes
        # when the stack is non-empty): a mode popped since the snapshot was taken does not come back with it
        if s.dispatch_mode_stack:
            included |= PYTHON_MODE_KEYS_RAW
        else:
            included &= ~PYTHON_MODE_KEYS_RAW
        set_raw_included(included)
        set_raw_excluded(excluded)
        return self

    def __exit__(self, *exc: object) -> None:
        included, excluded, snapshot = self._saved
        set_raw_included(included)
        set_raw_excluded(excluded)
        per_thread.s.tls_snapshot = snapshot


@contextlib.contextmanager
def enable_reentrant_dispatch() -> Iterator[None]:
    """``torch.overrides.enable_reentrant_dispatch``: see ``_RestorePythonTLSSnapshot``."""
    with _RestorePythonTLSSnapshot():
        yield


__all__ = [
    "BaseTorchDispatchMode",
    "TorchDispatchMode",
    "TorchDispatchModeKey",
    "_disable_current_modes",
    "_get_current_dispatch_mode",
    "_get_current_dispatch_mode_pre_dispatch",
    "_get_current_dispatch_mode_stack",
    "_get_current_dispatch_mode_stack_pre_dispatch",
    "_get_dispatch_mode",
    "_get_dispatch_mode_pre_dispatch",
    "_get_dispatch_stack_at",
    "_len_torch_dispatch_stack",
    "_len_torch_dispatch_stack_pre_dispatch",
    "_pop_mode",
    "_pop_mode_from_pre_dispatch",
    "_pop_mode_temporarily",
    "_push_mode",
    "_set_mode_pre_dispatch",
    "_unset_dispatch_mode",
    "enable_reentrant_dispatch",
    "enable_torch_dispatch_mode",
    "no_dispatch",
    "unset_mode_pre_dispatch",
]
