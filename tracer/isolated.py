"""``get_isolated_graphmodule`` and ``disable_proxy_modes_tracing``: a trace taken inside a trace.

Corresponds to torch/fx/experimental/proxy_tensor.py (``get_isolated_graphmodule``,
``wrapper_and_args_for_make_fx``, ``disable_proxy_modes_tracing``) and ``_disable_infra_mode`` of
torch/utils/_python_dispatch.py. A function traced while an outer make_fx is running (a decomposition, a
higher-order op's body) gets its own GraphModule: the outer ProxyTorchDispatchMode is taken off the mode stack
for the inner trace, so nothing of the inner function lands in the outer graph. The inner trace sees one list
argument, the flattened ``(args, kwargs)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from dispatcher.modes.dispatch_mode import TorchDispatchModeKey
from dispatcher.utils._python_dispatch import _disable_infra_mode

from . import pytree
from .graph_module import GraphModule
from .proxy_tensor import make_fx


@contextlib.contextmanager
def disable_proxy_modes_tracing() -> Iterator[Any]:
    """The active ProxyTorchDispatchMode (if any) is off for the body: ops run untraced."""
    return _disable_infra_mode(TorchDispatchModeKey.PROXY)  # (a generator: contextmanager drives it)


def wrapper_and_args_for_make_fx(func: Callable[..., Any], args: tuple, kwargs: dict
                                 ) -> tuple[Callable[[list], Any], list]:
    """``func`` as a function of one list (the leaves of ``(args, kwargs)``), and that list."""
    flat_args, spec = pytree.tree_flatten((args, kwargs))

    def wrapped(flat_args: list) -> Any:
        fn_args, fn_kwargs = pytree.tree_unflatten(flat_args, spec)
        return func(*fn_args, **fn_kwargs)

    return wrapped, flat_args


def get_isolated_graphmodule(func: Callable[..., Any], args: tuple, kwargs: dict, tracing_mode: str = "real",
                             decomposition_table: dict | None = None) -> GraphModule:
    """The GraphModule of ``func(*args, **kwargs)``, traced apart from any make_fx already running."""
    wrapped, all_args = wrapper_and_args_for_make_fx(func, args, kwargs)
    with disable_proxy_modes_tracing():
        return make_fx(wrapped, decomposition_table=decomposition_table, tracing_mode=tracing_mode)(all_args)


__all__ = ["disable_proxy_modes_tracing", "get_isolated_graphmodule", "wrapper_and_args_for_make_fx"]
