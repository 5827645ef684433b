"""PyTorch's private ``torch._C`` names for the pieces this package already has.

Code written against ``torch._C`` (the seed question: what do ``torch._C._DisablePythonDispatcher``
and friends do?) reads the same here: ``dispatcher._C._EnablePythonDispatcher()`` is the guard
``dispatcher.EnablePythonDispatcher``. Generated graph code also names the grad-mode setter
``torch._C._set_grad_enabled``, as PyTorch's make_fx output does.
"""

from __future__ import annotations

from typing import Any

from .autograd.grad_mode import _set_grad_enabled
from .keys import DispatchKey, parse_dispatch_key
from .keyset import DispatchKeySet
from .tls import (
    AutoDispatchBelowADInplaceOrView as _AutoDispatchBelowADInplaceOrView,
)
from .tls import (
    DisablePythonDispatcher as _DisablePythonDispatcher,
)
from .tls import (
    EnablePreDispatch as _EnablePreDispatch,
)
from .tls import (
    EnablePythonDispatcher as _EnablePythonDispatcher,
)
from .tls import (
    ExcludeDispatchKeyGuard as _ExcludeDispatchKeyGuard,
)
from .tls import (
    IncludeDispatchKeyGuard as _IncludeDispatchKeyGuard,
)
from .tls import (
    is_python_dispatcher_enabled,
    tls_is_dispatch_key_excluded,
    tls_is_dispatch_key_included,
    tls_local_exclude_set,
    tls_local_include_set,
    tls_set_dispatch_key_excluded,
    tls_set_dispatch_key_included,
)

_set_grad_enabled.__module__ = __name__  # printed as torch._C._set_grad_enabled, like PyTorch's graphs

__all__ = [
    "DispatchKey",
    "DispatchKeySet",
    "_AutoDispatchBelowADInplaceOrView",
    "_DisablePythonDispatcher",
    "_EnablePreDispatch",
    "_EnablePythonDispatcher",
    "_ExcludeDispatchKeyGuard",
    "_IncludeDispatchKeyGuard",
    "_dispatch_dump_table",
    "_dispatch_has_kernel_for_dispatch_key",
    "_dispatch_key_name",
    "_dispatch_key_parse",
    "_dispatch_keys",
    "_dispatch_tls_is_dispatch_key_excluded",
    "_dispatch_tls_is_dispatch_key_included",
    "_dispatch_tls_local_exclude_set",
    "_dispatch_tls_local_include_set",
    "_dispatch_tls_set_dispatch_key_excluded",
    "_dispatch_tls_set_dispatch_key_included",
    "_is_python_dispatcher_enabled",
    "_set_grad_enabled",
]

_dispatch_tls_local_include_set = tls_local_include_set
_dispatch_tls_local_exclude_set = tls_local_exclude_set
_dispatch_tls_is_dispatch_key_included = tls_is_dispatch_key_included
_dispatch_tls_is_dispatch_key_excluded = tls_is_dispatch_key_excluded
_dispatch_tls_set_dispatch_key_included = tls_set_dispatch_key_included
_dispatch_tls_set_dispatch_key_excluded = tls_set_dispatch_key_excluded
_is_python_dispatcher_enabled = is_python_dispatcher_enabled


def _dispatch_key_name(key: DispatchKey | str) -> str:
    """``torch._C._dispatch_key_name(DispatchKey.CPU)``: ``"CPU"``."""
    return parse_dispatch_key(key).name


def _dispatch_key_parse(name: DispatchKey | str) -> DispatchKey:
    """``torch._C._dispatch_key_parse("CPU")``: the DispatchKey of that name (RuntimeError for an unknown one)."""
    return parse_dispatch_key(name)


def _dispatch_dump_table(name: str) -> str:
    """``torch._C._dispatch_dump_table("aten::add.Tensor")``: the computed table of a registered op."""
    return _find(name).dump_table()


def _dispatch_has_kernel_for_dispatch_key(name: str, key: DispatchKey | str) -> bool:
    """Whether ``name`` has a kernel registered directly on ``key`` (aliases count as themselves)."""
    return _find(name).has_kernel_for_dispatch_key(parse_dispatch_key(key))


def _dispatch_keys(tensor: Any) -> Any:
    """``torch._C._dispatch_keys(t)``: the key set a tensor carries into every call."""
    return DispatchKeySet.from_raw_repr(tensor._key_set)


def _find(name: str) -> Any:
    from .registry import REGISTRY

    qualified, _, overload = name.partition(".")
    op = REGISTRY.find(qualified, "" if overload in ("", "default") else overload)
    if op is None or op._schema is None:
        raise RuntimeError(f"Could not find schema for {name}")
    return op
