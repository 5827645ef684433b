"""PyTorch's private ``torch._C`` names for the pieces this package already has.

Besides the guards, the registration hooks of torch/csrc/utils/python_dispatch.cpp, with torch's names,
arguments and dump texts: ``_dispatch_library(kind, ns, key)`` gives a handle (``_DispatchModule``) with
``def_`` / ``impl_t_t`` / ``impl`` / ``fallback`` ...; ``_dispatch_dump``, ``_dispatch_dump_table``,
``_dispatch_check_invariants``, ``_dispatch_has_kernel*``, ``_dispatch_find_schema_or_throw``. Key names
parse as the C++ dispatcher of the seed's time did, so the old alias names ``Math`` and ``DefaultBackend``
are accepted (today's torch refuses them).

Code written against ``torch._C`` (the seed question: what do ``torch._C._DisablePythonDispatcher``
and friends do?) reads the same here: ``dispatcher._C._EnablePythonDispatcher()`` is the guard
``dispatcher.EnablePythonDispatcher``. Generated graph code also names the grad-mode setter
``torch._C._set_grad_enabled``, as PyTorch's make_fx output does.
"""

from __future__ import annotations

from typing import Any

from .autograd.grad_mode import _set_grad_enabled
from .keys import DispatchKey, is_runtime_key, parse_dispatch_key
from .keyset import DispatchKeySet
from .library.core import Library, fallthrough_kernel
from .registry import REGISTRY
from .schema import parse_schema
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
    ForceDispatchKeyGuard as _ForceDispatchKeyGuard,
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
    "_ForceDispatchKeyGuard",
    "_dispatch_call_boxed",
    "_DispatchModule",
    "_DispatchOperatorHandle",
    "_dispatch_check_all_invariants",
    "_dispatch_check_invariants",
    "_dispatch_dump",
    "_dispatch_dump_table",
    "_dispatch_find_schema_or_throw",
    "_dispatch_has_computed_kernel_for_dispatch_key",
    "_dispatch_has_kernel",
    "_dispatch_has_kernel_for_any_dispatch_key",
    "_dispatch_has_kernel_for_dispatch_key",
    "_dispatch_key_name",
    "_dispatch_key_parse",
    "_dispatch_keys",
    "_dispatch_library",
    "_parse_dispatch_key",
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


def _lookup(name: str) -> Any:
    """The operator ``ns::name[.overload]`` as registered (schema or kernels), or None."""
    qualified, _, overload = name.partition(".")
    return REGISTRY.find(qualified, "" if overload in ("", "default") else overload)


def _find(name: str) -> Any:
    op = _lookup(name)
    if op is None or op._schema is None:
        raise RuntimeError(f"Could not find schema for {name}")
    return op


def _key(key: DispatchKey | str) -> DispatchKey:
    if isinstance(key, DispatchKey):
        return key
    try:
        return DispatchKey[key]
    except KeyError:
        raise RuntimeError(f"could not parse dispatch key: {key}") from None


def _parse_dispatch_key(name: str) -> DispatchKey | None:
    """``torch._C._parse_dispatch_key``: the key of that name, None if there is none."""
    return DispatchKey.__members__.get(name)


def _dispatch_dump(name: str) -> str:
    """``torch._C._dispatch_dump``: the registrations as stored ("" for an operator nobody registered)."""
    op = _lookup(name)
    return "" if op is None else op.dump()


def _dispatch_check_invariants(name: str) -> None:
    """Recompute the table of ``name`` if it is registered and check it is consistent (nothing otherwise)."""
    op = _lookup(name)
    if op is None:
        return None
    table = op.computed_table()
    for key, (kernel, _) in table.items():
        if not is_runtime_key(key) or kernel is None:
            raise AssertionError(f"{name}: invalid dispatch table entry for {key.name}")
    return None


def _dispatch_check_all_invariants() -> None:
    """Check every registered operator's table (``_dispatch_check_invariants`` for each)."""
    for op in REGISTRY.all_operators():
        _dispatch_check_invariants(op.name())


def _dispatch_has_kernel(name: str) -> bool:
    """Whether an operator of that name exists (a schema or any kernel registered)."""
    return _lookup(name) is not None


def _dispatch_has_kernel_for_any_dispatch_key(name: str, keyset: Any) -> bool:
    return _find(name).has_kernel_for_any_dispatch_key(keyset)


def _dispatch_has_computed_kernel_for_dispatch_key(name: str, key: DispatchKey | str) -> bool:
    """Whether the computed table of ``name`` has an entry for the runtime key ``key``."""
    return _key(key) in _find(name).computed_table()


class _DispatchOperatorHandle:
    """``torch._C._DispatchOperatorHandle``: what ``_dispatch_find_schema_or_throw`` returns."""

    def __init__(self, op: Any) -> None:
        self._op = op

    def schema(self) -> Any:
        return self._op._schema

    def debug(self) -> str:
        return self._op.dump()

    def __repr__(self) -> str:
        return f"<dispatcher._C._DispatchOperatorHandle {self._op.name()}>"


def _dispatch_find_schema_or_throw(name: str, overload_name: str) -> _DispatchOperatorHandle:
    op = REGISTRY.find(name, overload_name)
    if op is None or op._schema is None:
        raise RuntimeError(f"Could not find schema for {name}.{overload_name}" if overload_name
                           else f"Could not find schema for {name}.")
    return _DispatchOperatorHandle(op)


def _dispatch_call_boxed(handle: _DispatchOperatorHandle, *args: Any, **kwargs: Any) -> Any:
    """``torch._C._dispatch_call_boxed``: call the operator of ``handle`` through the whole dispatcher."""
    return handle._op(*args, **kwargs)


_T_T = "(Tensor _0) -> Tensor _0"  # the signature of the C++ test kernels (Tensor in, same Tensor out)


def _t_t(x: Any) -> Any:
    return x


def _check_t_t(op: Any, debug: str, schema: Any = None, schema_debug: str = "") -> None:
    """The check of a typed kernel against the schema (``checkSchemaMatches`` of c10's inferred schema)."""
    schema = schema if schema is not None else op._schema
    schema_debug = schema_debug or op._schema_debug
    for what, given in (("arguments", len(schema.arguments)), ("returns", len(schema.returns))):
        if given != 1:
            raise RuntimeError(
                "Inferred operator schema for a C++ kernel function doesn't match the expected function schema.\n"
                f"  operator: {op.name()}\n  expected schema: {schema}\n    {schema_debug}\n"
                f"  inferred schema: {_T_T}\n    {debug}\n  reason: The number of {what} is different. {given} vs 1."
            )


class _DispatchModule:
    """``torch._C._DispatchModule``: one TORCH_LIBRARY / _IMPL / _FRAGMENT block, alive as long as this handle.

    The ``*_t_t`` methods register the test kernel ``Tensor -> Tensor`` (it returns its input) with the given
    debug text, as torch's do.
    """

    def __init__(self, kind: str, ns: str, dispatch: str, file: str = "/dev/null", linenum: int = 0) -> None:
        self._site = f"registered at {file}:{linenum}"
        self._lib = Library(ns, kind, _key(dispatch).name if dispatch else "")

    def _default_key(self, dispatch: str) -> str:
        return dispatch if dispatch else ""

    def _define(self, schema: str, alias: str, tags: Any = ()) -> str:
        """Define, after checking the typed kernels registered before the schema (torch checks them at def)."""
        full = schema if "::" in schema.split("(", 1)[0] else f"{self._lib.ns}::{schema.lstrip()}"
        parsed = parse_schema(full)
        op = REGISTRY.find(parsed.name, parsed.overload_name)
        if op is not None and op._schema is None:
            typed = [k for ks in op.kernels.values() for k in ks if k.signature]
            if typed:
                _check_t_t(op, typed[0].debug, parsed, self._site)
        return self._lib.define(schema, alias, tags=tags, debug=self._site)

    def def_(self, schema: str, alias: str = "") -> _DispatchModule:
        self._define(schema, alias)
        return self

    def def_legacy(self, schema: str) -> _DispatchModule:
        return self.def_(schema)

    def define(self, schema: str, alias_analysis: str = "", tags: Any = ()) -> str:
        return self._define(schema, alias_analysis, tags)

    def def_name_t_t(self, name: str, dispatch: str = "", debug: str = "default_def_name_t_t") -> _DispatchModule:
        self._define(f"{name}{_T_T}", "CONSERVATIVE")  # a schema inferred from a C++ function: conservative
        return self.impl_t_t(name, dispatch, debug)

    def def_schema_t_t(self, name: str, dispatch: str = "", alias: str = "",
                       debug: str = "default_def_schema_t_t") -> _DispatchModule:
        defined = self._define(name, alias)
        return self.impl_t_t(defined, dispatch, debug)

    def impl_t_t(self, name: str, dispatch: str = "", debug: str = "impl_t_t") -> _DispatchModule:
        key = _key(dispatch) if dispatch else ""
        qualified, _, overload = (name if "::" in name else f"{self._lib.ns}::{name}").partition(".")
        op = REGISTRY.find(qualified, overload)
        if op is not None and op._schema is not None:
            _check_t_t(op, debug)
        self._lib.impl(name, _t_t, key, debug=debug, signature=_T_T)
        return self

    def impl(self, name: str, dispatch: DispatchKey | str, func: Any, with_keyset: bool = False) -> None:
        self._lib.impl(name, func, _key(dispatch) if dispatch else "", with_keyset=with_keyset, debug=self._site)

    def fallback(self, dispatch: DispatchKey | str, func: Any, with_keyset: bool = False) -> None:
        self._lib.fallback(func, _key(dispatch) if dispatch else "", with_keyset=with_keyset, debug=self._site)

    def fallback_fallthrough(self, dispatch: str = "") -> _DispatchModule:
        self._lib.fallback(fallthrough_kernel, _key(dispatch) if dispatch else "", debug=self._site)
        return self

    def reset(self) -> None:
        """Remove every registration of this block now."""
        self._lib._destroy()


def _dispatch_library(kind: str, name: str, dispatch: str, file: str = "/dev/null",
                      linenum: int = 0) -> _DispatchModule:
    """``torch._C._dispatch_library``: open a registration block (``kind`` DEF, IMPL or FRAGMENT)."""
    return _DispatchModule(kind, name, dispatch, file, linenum)


# --- subclass helpers under torch._C's names (modes/function_mode.py, python_key.py) ---
from .modes.function_mode import _disabled_torch_function_impl  # noqa: E402
from .python_key import disabled_torch_dispatch_impl as _disabled_torch_dispatch_impl  # noqa: E402

__all__ += ["_disabled_torch_dispatch_impl", "_disabled_torch_function_impl"]


def _dispatch_isTensorSubclassLike(tensor: Any) -> bool:  # noqa: N802 - torch's name
    """``at::isTensorSubclassLike``: a dispatch mode is active, or ``tensor`` carries the Python key."""
    from .ops.composite import is_tensor_subclass_like

    return is_tensor_subclass_like(tensor)


__all__ += ["_dispatch_isTensorSubclassLike"]


# --- storages (wt-storage): torch._C._is_alias_of / _storage_address (dispatcher/api/storage.py) ---
def _is_alias_of(a: Any, b: Any) -> bool:
    """``torch._C._is_alias_of(a, b)``: whether the two tensors see the same storage (StorageImpl)."""
    from .api.storage import _is_alias_of as is_alias_of

    return is_alias_of(a, b)


def _storage_address(t: Any) -> int:
    """``torch._C._storage_address(t)``: the address of ``t``'s StorageImpl (its storage's ``_cdata``)."""
    from .api.storage import _storage_address as storage_address

    return storage_address(t)
