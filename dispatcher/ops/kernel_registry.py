"""Where kernel modules put their kernels, by op name and key, before registration.

Kernel modules (one per op family: ``arithmetic.py``, ``views.py``, ...) decorate
functions with ``@impl("add.Tensor", "CPU")``; ``registration.py`` reads this table
and registers each kernel on the aten Library. Keeping the two apart lets the
listing stay declarative and lets a test check that every listed op has the
kernels its kind requires. ``SITES`` remembers which module registered each kernel
(the "registered at" text of the dispatch table dumps), which is not always the
module that defined the function (kernels made by shared factories such as
``tensor_iterator.inplace_from``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

#: (op name with overload, key name) -> kernel
KERNELS: dict[tuple[str, str], Callable[..., Any]] = {}

#: (op name with overload, key name) -> (module, line) of the module-level code that registered the kernel
SITES: dict[tuple[str, str], tuple[str, int]] = {}

#: keys a kernel can be registered for here
KEYS = (
    "CPU", "Meta", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional", "CompositeImplicitAutograd",
    "BackendSelect", "Autograd",
    "ZeroTensor",  # the ZeroTensor kernels of native_functions.yaml (dispatcher/zero_tensor.py)
)


def impl(name: str, *keys: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: ``fn`` is ``name``'s kernel for each of ``keys`` (e.g. "CPU", "Meta")."""
    for key in keys:
        if key not in KEYS:
            raise ValueError(f"unknown kernel key {key!r} for {name}")

    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back  # impl called by a helper (a loop body, register_backend_select): its module's code
    site = (frame.f_globals.get("__name__", "?"), frame.f_lineno)

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for key in keys:
            if (name, key) in KERNELS:
                raise ValueError(f"two {key} kernels for aten::{name}")
            KERNELS[(name, key)] = fn
            SITES[(name, key)] = site
        return fn

    return register


#: wt-stream: (op name, key name) -> (module, line, note): kernels torch 2.13 has only for a backend this package
#: does not build (CUDA). Nothing is registered: the op's CPU and Meta calls fail as torch's CPU build's do; the
#: entry says where the op's family file is (tracer/op_sources.py shows it as the op's kernel piece).
ELSEWHERE: dict[tuple[str, str], tuple[str, int, str]] = {}


def elsewhere(name: str, key: str, note: str) -> None:
    """Record that torch's only kernel of ``name`` is for ``key`` (a backend not built here), with a note."""
    frame = sys._getframe(1)
    ELSEWHERE[(name, key)] = (frame.f_globals.get("__name__", "?"), frame.f_lineno, note)
