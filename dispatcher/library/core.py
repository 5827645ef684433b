"""Registering operators and kernels: ``Library``, ``fallthrough_kernel``.

Corresponds to torch/library.py (``Library``) on top of aten/src/ATen/core/library.cpp
(``TORCH_LIBRARY`` / ``TORCH_LIBRARY_IMPL`` / ``TORCH_LIBRARY_FRAGMENT``).

* ``Library(ns, "DEF")`` owns a namespace (only one per namespace);
  ``"FRAGMENT"`` may define ops in any namespace any number of times;
  ``"IMPL"`` only registers kernels, optionally tied to one dispatch key.
* Registrations live as long as the Library object: when it is garbage
  collected (or ``_destroy()`` is called) they are removed and every affected
  dispatch table goes back to what it was.
* Several kernels may sit on one key; the newest wins and removing it brings
  back the previous one.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from typing import Any

from .. import dispatch_table
from ..errors import RegistrationError
from ..kernel import FALLBACK, FALLBACK_KEYSET, PLAIN, WITH_KEYSET, KernelFunction, registration_site
from ..keys import DispatchKey, is_alias_key, is_runtime_key
from ..op_overload import OpOverload, forget_cached, get_or_create_overload
from ..registry import REGISTRY
from ..schema import parse_schema

DK = DispatchKey
_KINDS = ("DEF", "IMPL", "FRAGMENT")
_RESERVED_NAMESPACES = ("prim",)
_ALIAS_ANALYSIS_KINDS = ("", "FROM_SCHEMA", "CONSERVATIVE", "PURE_FUNCTION")
_warned_override = False


def fallthrough_kernel() -> None:
    """Register this as a kernel to make the dispatcher skip the key (it is never called)."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _parse_key(key: str | DispatchKey) -> DispatchKey:
    if isinstance(key, DispatchKey):
        return key
    try:
        return DispatchKey[key]
    except KeyError:
        raise RegistrationError(f"could not parse dispatch key: {key}") from None


def _register_kernel(op: OpOverload, key: DispatchKey, kernel: KernelFunction) -> Callable[[], None]:
    global _warned_override
    with REGISTRY.lock:
        existing = op.kernels.setdefault(key, [])
        if existing and key != DK.Meta and not _warned_override:
            _warned_override = True
            schema = op._schema if op._schema is not None else op.name()
            warnings.warn(
                "Warning only once for all operators,  other operators may also be overridden.\n"
                "  Overriding a previously registered kernel for the same operator and the same dispatch key\n"
                f"  operator: {schema}\n    {op._schema_debug}\n  dispatch key: {key.name}\n"
                f"  previous kernel: {existing[-1].debug}\n       new kernel: {kernel.debug}",
                UserWarning,
                stacklevel=4,
            )
        existing.append(kernel)
        dispatch_table.mark_stale(op)

    def remove() -> None:
        with REGISTRY.lock:
            kernels = op.kernels.get(key, [])
            for i, k in enumerate(kernels):
                if k is kernel:
                    del kernels[i]
                    break
            if not kernels:
                op.kernels.pop(key, None)
            dispatch_table.mark_stale(op)
            _forget_if_empty(op)

    return remove


def _forget_if_empty(op: OpOverload) -> None:
    """Drop an operator that has neither a schema nor kernels (so ``ops.ns.name`` stops resolving)."""
    if op._schema is None:
        forget_cached(op._qualified_name)
    if op._schema is None and not any(op.kernels.values()):
        overloads = REGISTRY.operators.get(op._qualified_name, {})
        if overloads.get(op._overload_name_raw) is op:
            del overloads[op._overload_name_raw]
            del op.overloadpacket._overloads[op._overload_name_raw]
        if not overloads:
            REGISTRY.operators.pop(op._qualified_name, None)
            REGISTRY.packets.pop(op._qualified_name, None)


def _set_fallback(key: DispatchKey, kernel: KernelFunction | None) -> None:
    with REGISTRY.lock:
        REGISTRY.fallbacks[key] = kernel
        REGISTRY.fallback_epoch += 1
        for op in REGISTRY.all_operators():
            dispatch_table.mark_stale(op)


def register_builtin_fallback(key: DispatchKey, kernel: KernelFunction) -> None:
    """Install one of the dispatcher's own fallbacks (at import; cannot be removed)."""
    _set_fallback(key, kernel)


def _run_all(removers: list[Callable[[], None]]) -> None:
    while removers:
        removers.pop()()


class Library:
    """A set of registrations that lives as long as this object (``torch.library.Library``)."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _RESERVED_NAMESPACES and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        self.ns = ns
        self.kind = kind
        self.dispatch_key = _parse_key(dispatch_key) if dispatch_key else None
        self._site = registration_site()
        self._removers: list[Callable[[], None]] = []
        if kind == "DEF":
            if self.dispatch_key is not None:
                raise RegistrationError(
                    f"Library({ns!r}, 'DEF') cannot be tied to a dispatch key: a TORCH_LIBRARY block defines "
                    "operators; use an 'IMPL' library for kernels of one key"
                )
            with REGISTRY.lock:
                previous = REGISTRY.def_namespaces.get(ns)
                if previous is not None:
                    raise RegistrationError(
                        f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all "
                        "of your definitions in a single TORCH_LIBRARY block.  If you were trying to specify "
                        "implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you "
                        "really intended to define operators for a single namespace in a distributed way, you can "
                        "use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of "
                        f"TORCH_LIBRARY was {previous}; latest registration was {self._site}"
                    )
                REGISTRY.def_namespaces[ns] = self._site
            self._removers.append(lambda: REGISTRY.def_namespaces.pop(ns, None))
        self._finalizer = weakref.finalize(self, _run_all, self._removers)

    def __repr__(self) -> str:
        key = self.dispatch_key.name if self.dispatch_key is not None else ""
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={key})>"

    # --- define ------------------------------------------------------------
    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = (), debug: str | None = None) -> str:
        """Define an operator from a schema string; returns its name (``foo`` or ``foo.overload``).

        ``debug`` (a dispatchkit extension) replaces the "registered at file:line" text the dumps show.
        """
        site = debug if debug is not None else registration_site()
        name_part = schema.split("(", 1)[0].strip()
        if self.kind == "IMPL":
            raise RegistrationError(
                f'def("{name_part}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  All '
                "def()s should be placed in the (unique) TORCH_LIBRARY block for their namespace.  (Error "
                f"occurred while processing TORCH_LIBRARY_IMPL block at {self._site.removeprefix('registered at ')})"
            )
        if alias_analysis not in _ALIAS_ANALYSIS_KINDS:
            raise RegistrationError(f"Invalid alias_analysis type {alias_analysis}")
        if "::" in name_part:
            ns, _ = name_part.split("::", 1)
            if ns != self.ns:
                raise RegistrationError(
                    f"Explicitly provided namespace ({ns}) in schema string does not match namespace of enclosing "
                    f"TORCH_LIBRARY block ({self.ns}).  Move this definition to the (unique) TORCH_LIBRARY block "
                    f"corresponding to this namespace (and consider deleting the namespace from your schema string.)"
                )
            full = schema
        else:
            full = f"{self.ns}::{schema.lstrip()}"
        parsed = parse_schema(full)
        tag_names = tuple(getattr(t, "name", t) for t in (tags if isinstance(tags, (tuple, list)) else (tags,)))
        with REGISTRY.lock:
            op = get_or_create_overload(parsed.name, parsed.overload_name)
            if op._schema is not None:
                raise RegistrationError(
                    f"Tried to register an operator ({parsed}) with the same name and overload name multiple "
                    "times. Each overload's schema should only be registered with a single call to def(). "
                    f"Duplicate registration: {site}. Original registration: {op._schema_debug}"
                )
            op._set_schema(parsed, site, alias_analysis, tag_names)
            dispatch_table.mark_stale(op)

        def remove() -> None:
            with REGISTRY.lock:
                op._clear_schema()
                dispatch_table.mark_stale(op)
                _forget_if_empty(op)

        self._removers.append(remove)
        short = parsed.name.split("::", 1)[1]
        return f"{short}.{parsed.overload_name}" if parsed.overload_name else short

    # --- impl ----------------------------------------------------------------
    def impl(
        self,
        op_name: str | OpOverload,
        fn: Callable[..., Any],
        dispatch_key: str | DispatchKey = "",
        *,
        with_keyset: bool = False,
        allow_override: bool = True,
        debug: str | None = None,
        signature: str | None = None,
    ) -> None:
        """Register ``fn`` as the kernel of an operator for one key (runtime or alias).

        ``debug`` (a dispatchkit extension) replaces the "registered at file:line" text the dumps show.
        """
        # torch/library.py checks its arguments before anything else (the kernel first)
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        if not isinstance(op_name, (str, OpOverload)):
            raise RuntimeError("impl should be passed either a name or an OpOverload object as the first argument, "
                               f"got {type(op_name)}")
        site = debug if debug is not None else registration_site()
        if isinstance(op_name, OpOverload):
            qualified, overload = op_name._qualified_name, op_name._overload_name_raw
            short = op_name._opname
        else:
            name = op_name.split("::", 1)[1] if "::" in op_name else op_name
            short, _, overload = name.partition(".")
            qualified = f"{op_name.split('::', 1)[0] if '::' in op_name else self.ns}::{short}"
        given_ns = qualified.split("::", 1)[0] if isinstance(op_name, OpOverload) or "::" in op_name else self.ns
        if given_ns != self.ns and self.ns != "_":
            block = {"DEF": "TORCH_LIBRARY", "IMPL": "TORCH_LIBRARY_IMPL"}.get(self.kind, "TORCH_LIBRARY_FRAGMENT")
            shown = f"{qualified}.{overload}" if overload else qualified
            raise RegistrationError(
                f'impl("{shown}", ...): Explicitly provided namespace ({given_ns}) in operator name does not match '
                f"namespace of enclosing {block} block ({self.ns}).  Move this definition to the {block} block "
                "corresponding to this namespace (and consider deleting the namespace from your schema string.)  "
                f"(Error occurred while processing {block} block at {self._site.removeprefix('registered at ')})"
            )
        explicit = _parse_key(dispatch_key) if dispatch_key else None
        if self.dispatch_key is not None and explicit is not None and explicit != self.dispatch_key:
            raise RegistrationError(
                f'impl("{short}", ...): Explicitly provided dispatch key ({explicit.name}) is inconsistent with the '
                f"dispatch key of the enclosing TORCH_LIBRARY_IMPL block ({self.dispatch_key.name}).  Please "
                "declare a separate TORCH_LIBRARY_IMPL block for this dispatch key and move your impl() there.  "
                f"(Error occurred while processing TORCH_LIBRARY_IMPL block at "
                f"{self._site.removeprefix('registered at ')})"
            )
        key = explicit or self.dispatch_key or DK.CompositeImplicitAutograd
        if not (is_runtime_key(key) or is_alias_key(key)):
            raise RegistrationError(f"{key.name} is not a key a kernel can be registered on")
        op = get_or_create_overload(qualified, overload)
        if key == DK.Meta and op.kernels.get(DK.CompositeImplicitAutograd):
            raise RegistrationError(
                f"We should not register a meta kernel directly to the operator '{op.name()}', because it has a "
                "CompositeImplicitAutograd kernel in core. Instead we should let the operator decompose, and "
                "ensure that we have meta kernels for the base ops that it decomposes into."
            )
        if not allow_override and any(k.from_python for k in op.kernels.get(key, [])):
            raise RegistrationError(
                f"This is not allowed since there's already a kernel registered from python overriding "
                f"{short}'s behavior for {key.name} dispatch key and {self.ns} namespace."
            )
        if fn is fallthrough_kernel:
            kernel = KernelFunction(None, PLAIN, site, is_fallthrough=True)
        else:
            kernel = KernelFunction(fn, WITH_KEYSET if with_keyset else PLAIN, site)
        kernel.signature = signature
        self._removers.append(_register_kernel(op, key, kernel))

    # --- fallback ------------------------------------------------------------
    def fallback(self, fn: Callable[..., Any], dispatch_key: str | DispatchKey = "", *, with_keyset: bool = False,
                 debug: str | None = None) -> None:
        """Register a boxed fallback for one runtime key, used by every op without a more specific entry."""
        site = debug if debug is not None else registration_site()
        if self.ns != "_":
            raise RegistrationError(
                f'Fallback can only be registered using library fragment on the global namespace "_" but it is {self.ns}'
            )
        key = _parse_key(dispatch_key) if dispatch_key else self.dispatch_key
        if key is None:
            raise RegistrationError("fallback() needs a dispatch key (argument or the library's key)")
        if not is_runtime_key(key) or key == DK.Undefined:
            raise RegistrationError(f"Cannot register a backend fallback for {key.name}: it is not a runtime key")
        with REGISTRY.lock:
            previous = REGISTRY.fallbacks[key]
            if previous is not None:
                raise RegistrationError(
                    f"Tried to register multiple backend fallbacks for the same dispatch key {key.name}; previous "
                    f"registration {previous.debug}, new registration {site}"
                )
            if fn is fallthrough_kernel:
                kernel = KernelFunction(None, PLAIN, site, is_fallthrough=True)
            else:
                kernel = KernelFunction(fn, FALLBACK_KEYSET if with_keyset else FALLBACK, site)
            _set_fallback(key, kernel)

        def remove() -> None:
            if REGISTRY.fallbacks[key] is kernel:
                _set_fallback(key, None)

        self._removers.append(remove)

    # --- lifetime ------------------------------------------------------------
    def _destroy(self) -> None:
        """Remove every registration this library made."""
        self._finalizer()
