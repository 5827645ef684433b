"""Where kernel modules put their kernels, by op name and key, before registration.

Kernel modules (``pointwise.py``, ``views.py``, ...) decorate functions with
``@impl("add.Tensor", "CPU")``; ``registration.py`` reads this table and
registers each kernel on the aten Library. Keeping the two apart lets the
listing stay declarative and lets a test check that every listed op has the
kernels its kind requires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: (op name with overload, key name) -> kernel
KERNELS: dict[tuple[str, str], Callable[..., Any]] = {}

#: keys a kernel can be registered for here
KEYS = (
    "CPU", "Meta", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional", "CompositeImplicitAutograd",
    "BackendSelect", "Autograd",
)


def impl(name: str, *keys: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: ``fn`` is ``name``'s kernel for each of ``keys`` (e.g. "CPU", "Meta")."""
    for key in keys:
        if key not in KEYS:
            raise ValueError(f"unknown kernel key {key!r} for {name}")

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for key in keys:
            if (name, key) in KERNELS:
                raise ValueError(f"two {key} kernels for aten::{name}")
            KERNELS[(name, key)] = fn
        return fn

    return register
