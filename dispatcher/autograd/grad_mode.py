"""Grad mode: the thread-local switch that decides whether autograd records anything.

Corresponds to c10/core/GradMode.h and torch/autograd/grad_mode.py. Grad mode is
separate from the dispatch keys: the Autograd kernels always run, and check
this flag (and ``requires_grad``) themselves. ``no_grad``, ``enable_grad`` and
``set_grad_enabled`` work as context managers and as decorators, and restore
the previous mode also when their body raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..tls import per_thread
from .context_decorator import decorate

F = TypeVar("F", bound=Callable[..., Any])


class _GradModeView:
    """``_state.enabled``: this thread's grad mode, stored in the per-thread dispatch state."""

    __slots__ = ()

    @property
    def enabled(self) -> bool:
        return per_thread.s.grad_enabled

    @enabled.setter
    def enabled(self, value: bool) -> None:
        per_thread.s.grad_enabled = value


_state = _GradModeView()


def is_grad_enabled() -> bool:
    """Is autograd recording on this thread?"""
    return per_thread.s.grad_enabled


class _BuiltinFunction:
    """A function that shows itself as the C builtin PyTorch has in its place (``<built-in function name>``).

    Graph nodes calling ``torch._C._set_grad_enabled`` print their target that way in PyTorch
    (``str(node.target)``); ours print the same, so op sequences compare equal as strings.
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        self._fn = fn
        self.__name__ = self.__qualname__ = fn.__name__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn  # inspect.signature follows it

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<built-in function {self.__name__}>"

    def __reduce__(self) -> str:
        return self.__name__  # pickled by reference, as a module-level name


def _set_grad_enabled_impl(mode: bool) -> None:
    """Set grad mode on this thread (PyTorch's ``torch._C._set_grad_enabled``)."""
    _state.enabled = bool(mode)


_set_grad_enabled_impl.__name__ = "_set_grad_enabled"
_set_grad_enabled = _BuiltinFunction(_set_grad_enabled_impl)


class _GradModeContext:
    """Base: a context manager that is also a decorator (fresh state per use)."""

    _mode = True

    def __enter__(self) -> None:
        self._prev = _state.enabled
        _state.enabled = self._mode

    def __exit__(self, *exc: object) -> None:
        _state.enabled = self._prev

    def __call__(self, fn: F) -> F:
        mode_cls = type(self)
        args = self._ctor_args()
        return decorate(lambda: mode_cls(*args), fn)  # type: ignore[return-value]

    def _ctor_args(self) -> tuple:
        return ()

    def clone(self) -> _GradModeContext:
        return type(self)(*self._ctor_args())


class _NoParamDecorator(_GradModeContext):
    """Also usable bare: ``@no_grad`` as well as ``@no_grad()`` (``_NoParamDecoratorContextManager``)."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):  # noqa: N801 - PyTorch's name
    """Turn recording off for the body (or the decorated function)."""

    _mode = False


class enable_grad(_NoParamDecorator):  # noqa: N801 - PyTorch's name
    """Turn recording on for the body (or the decorated function), e.g. inside ``no_grad``."""

    _mode = True


class set_grad_enabled(_GradModeContext):  # noqa: N801 - PyTorch's name
    """``set_grad_enabled(False)``: sets the mode immediately; as a context manager, restores it on exit."""

    def __init__(self, mode: bool) -> None:
        self._prev = _state.enabled
        self._mode = bool(mode)
        _state.enabled = self._mode

    def __enter__(self) -> None:
        _state.enabled = self._mode

    def _ctor_args(self) -> tuple:
        return (self._mode,)

    def __call__(self, fn: F) -> F:
        _state.enabled = self._prev  # used as a decorator: the constructor must not leave the mode changed
        return super().__call__(fn)
