"""Context managers that also decorate functions: plain functions, generator functions, and a refusal for classes.

Corresponds to torch/utils/_contextlib.py (``context_decorator``, ``_wrap_generator``), PyTorch 2.13:
``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` use it, so a decorated
generator runs each of its steps inside the context (and the caller's code between steps outside it).
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable, Generator
from typing import Any

__all__ = ["context_decorator", "decorate"]

_CLASS_ERROR = (
    "Cannot decorate classes; it is ambiguous whether or not only the constructor or all methods should have the "
    "context manager applied; additionally, decorating a class at definition-site will prevent use of the identifier "
    "as a conventional type. To specify which methods to decorate, decorate each of them individually."
)


def decorate(make_context: Callable[[], Any], orig_func: Callable[..., Any]) -> Callable[..., Any]:
    """``_DecoratorContextManager.__call__``: a class is still accepted (its construction is wrapped), with
    PyTorch's FutureWarning."""
    func = orig_func
    if inspect.isclass(orig_func):
        warnings.warn("Decorating classes is deprecated and will be disabled in future versions. You should only "
                      "decorate functions or methods. To preserve the current behavior of class decoration, you can "
                      "directly decorate the `__init__` method and nothing else.", FutureWarning, stacklevel=3)

        def func(*args: Any, **kwargs: Any) -> Any:
            return orig_func(*args, **kwargs)

    return context_decorator(make_context, func)


def context_decorator(make_context: Callable[[], Any], func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` run inside a fresh ``make_context()`` at each call (each step, for a generator function)."""
    if inspect.isclass(func):
        raise RuntimeError(_CLASS_ERROR)
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(make_context, func)

    @functools.wraps(func)
    def decorate_context(*args: Any, **kwargs: Any) -> Any:
        with make_context():
            return func(*args, **kwargs)

    return decorate_context


def _wrap_generator(make_context: Callable[[], Any], func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def generator_context(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
        gen = func(*args, **kwargs)
        try:
            with make_context():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException:
                    with make_context():
                        response = gen.throw(*sys.exc_info())
                else:
                    with make_context():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return generator_context
