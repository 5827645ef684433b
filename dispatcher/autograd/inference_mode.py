"""``inference_mode``: grad mode off plus a thread-local "inference mode" flag, as a context manager or decorator.

Corresponds to c10/core/InferenceMode.h and torch/autograd/grad_mode.py's ``inference_mode``.
``inference_mode(True)`` turns grad mode off and the inference flag on; ``inference_mode(False)``
turns grad mode *on* and the flag off (as c10's ``InferenceMode(false)`` does, also inside ``no_grad``);
both restore the previous state on exit, also when the body raises. Used bare (``@inference_mode``)
or called (``@inference_mode()``) it decorates a function.

What is not reproduced: PyTorch's *inference tensors*. Tensors made inside are ordinary tensors here
(PyTorch marks them, ``is_inference()``, and later refuses to save them for backward or to update them
in place outside inference mode); values and graphs are the same, those refusals are not.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..tls import per_thread
from .context_decorator import decorate

F = TypeVar("F", bound=Callable[..., Any])

_flag = threading.local()


def is_inference_mode_enabled() -> bool:
    """Is this thread inside ``inference_mode(True)``?"""
    return getattr(_flag, "enabled", False)


class inference_mode:  # noqa: N801 - PyTorch's name
    """Run the body (or the decorated function) in inference mode: nothing is recorded for autograd."""

    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode) and not isinstance(mode, bool):  # used bare: @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self._saved: list[tuple[bool, bool]] = []

    def __enter__(self) -> None:
        # (the thread state is set directly, as c10's InferenceMode does in C++: a pre-dispatch trace records no
        # ``_set_grad_enabled`` for it, where it records those of no_grad / enable_grad)
        state = per_thread.s
        self._saved.append((state.grad_enabled, is_inference_mode_enabled()))
        state.grad_enabled = not self.mode
        _flag.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        grad, inference = self._saved.pop()
        per_thread.s.grad_enabled = grad
        _flag.enabled = inference

    def __call__(self, fn: F) -> F:
        mode = self.mode
        return decorate(lambda: inference_mode(mode), fn)  # type: ignore[return-value]

    def clone(self) -> inference_mode:
        return type(self)(self.mode)
