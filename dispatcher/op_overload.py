"""Operators as Python objects: ``OpOverload``, ``OpOverloadPacket`` and ``ops.<ns>``.

Corresponds to torch/_ops.py. ``dispatcher.ops.aten.add`` is an
``OpOverloadPacket`` (all overloads of ``aten::add``); ``dispatcher.ops.aten.add.Tensor``
is an ``OpOverload``: one schema, one dispatch table. NB: in PyTorch the table
lives in C++ (OperatorEntry) and the OpOverload wraps a handle to it; here the
OpOverload *is* the operator entry, so one object per overload holds the
registrations (``kernels``), the computed table and the Python-dispatcher state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from . import dispatch_table
from .dispatch import call_op, redispatch_op
from .errors import SchemaArgumentError
from .keys import DispatchKey, parse_dispatch_key
from .py_dispatch import get_dispatch, has_kernel_for_any_dispatch_key, has_kernel_for_dispatch_key, py_impl
from .registry import REGISTRY

DK = DispatchKey


class OpOverload:
    """One overload of an operator, e.g. ``aten.add.Tensor``. Calling it dispatches."""

    def __init__(self, qualified_name: str, overload_name: str, packet: OpOverloadPacket) -> None:
        self._qualified_name = qualified_name  #: "aten::add"
        self._overloadname = overload_name or "default"  #: "Tensor", or "default" for ""
        self._overload_name_raw = overload_name  #: "" when the schema has no overload name
        self.namespace, self._opname = qualified_name.split("::", 1)
        self.overloadpacket = packet  #: the OpOverloadPacket this belongs to
        self.__name__ = f"{self._opname}.{self._overloadname}"
        self.__qualname__ = self.name()
        self.__module__ = f"dispatcher.ops.{self.namespace}"
        self._schema: Any = None  #: the FunctionSchema (None until defined)
        self._schema_debug = ""  #: where the schema was defined
        self._alias_analysis = "FROM_SCHEMA"
        self.tags: list[str] = []  #: PyTorch Tag names, e.g. ["core", "pointwise"]
        #: registrations, key (runtime or alias) -> kernels, oldest first (newest wins)
        self.kernels: dict[DispatchKey, list[Any]] = {}
        #: py_impl(DispatchKey) kernels, used only under the Python dispatcher
        self.py_kernels: dict[DispatchKey, Callable[..., Any]] = {}
        #: py_impl(ModeClass) rules, consulted on the Python key under the Python dispatcher
        self.python_key_table: dict[type, Callable[..., Any]] = {}
        #: Python-dispatcher cache: runtime key -> DispatchKey or callable
        self._dispatch_cache: dict[DispatchKey, Any] = {}
        #: hot-path cache: raw key set -> (key set without fallthroughs, key, kernel); cleared with the table
        self._ks_cache: dict[int, tuple[int, int, Any]] = {}
        # The computed table (see dispatch_table.rebuild), filled lazily.
        self._table: list[Any] = []
        self._table_tags: list[str] = []
        self._fallback_epoch = -1
        # Which bound arguments carry key sets (from the schema).
        self._tensor_positions: tuple[int, ...] = ()
        self._list_positions: tuple[int, ...] = ()
        self._kwarg_tensors: tuple[tuple[str, bool], ...] = ()
        self._has_extra_tensor_args = False
        self._bind: Callable[[tuple, dict], tuple[tuple, dict]] = self._no_schema_bind
        dispatch_table.mark_stale(self)

    # --- identity ----------------------------------------------------------
    def name(self) -> str:
        """``aten::add.Tensor`` (``aten::relu`` when there is no overload name)."""
        if self._overload_name_raw:
            return f"{self._qualified_name}.{self._overload_name_raw}"
        return self._qualified_name

    def name_without_overload(self) -> str:
        return self._qualified_name

    @property
    def overload_name(self) -> str:
        return self._overload_name_raw

    def __str__(self) -> str:
        return f"{self.namespace}.{self._opname}.{self._overloadname}"

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self.namespace}.{self._opname}', overload='{self._overloadname}')>"

    def __deepcopy__(self, memo: dict) -> OpOverload:
        return self

    def __copy__(self) -> OpOverload:
        return self

    def __reduce__(self) -> Any:
        return (_lookup_overload, (self._qualified_name, self._overload_name_raw))

    # --- schema ------------------------------------------------------------
    def _set_schema(self, schema: Any, debug: str, alias_analysis: str, tags: tuple) -> None:
        self._schema = schema
        self._schema_debug = debug
        self._alias_analysis = alias_analysis or "FROM_SCHEMA"
        self.tags = list(tags)
        positional = [a for a in schema.arguments if not a.kwarg_only]
        self._tensor_positions = tuple(
            i for i, a in enumerate(positional) if a.kind in ("tensor", "optional_tensor")
        )
        self._list_positions = tuple(
            i for i, a in enumerate(positional) if a.kind in ("tensor_list", "optional_tensor_list")
        )
        self._kwarg_tensors = tuple(
            (a.name, a.kind in ("tensor_list", "optional_tensor_list"))
            for a in schema.arguments
            if a.kwarg_only and a.kind != "other"
        )
        self._has_extra_tensor_args = bool(self._list_positions or self._kwarg_tensors)
        # aten kernels refuse None for a Tensor argument (c10's unboxing); other namespaces' Python kernels get None
        schema._refuse_undefined = schema.namespace == "aten"
        self._bind = schema.bind

    def _clear_schema(self) -> None:
        self._schema = None
        self._bind = self._no_schema_bind

    def _no_schema_bind(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        raise SchemaArgumentError(f"{self.name()}: the operator has no schema (it was never defined)")

    @property
    def is_view(self) -> bool:
        """Some argument aliases an output and none is written (``view``: True, ``add_``: False)."""
        args = self._schema.arguments if self._schema is not None else []
        infos = [a.alias_info for a in args if a.alias_info is not None]
        return bool(infos) and not any(i.is_write for i in infos)

    # --- calling -----------------------------------------------------------
    __call__ = call_op
    redispatch = redispatch_op

    def decompose(self, *args: Any, **kwargs: Any) -> Any:
        """Run the CompositeImplicitAutograd kernel (Python one first), or return NotImplemented."""
        cia = DK.CompositeImplicitAutograd
        if cia in self.py_kernels:
            return self.py_kernels[cia](*args, **kwargs)
        kernels = self.kernels.get(cia)
        if kernels:
            bound_args, bound_kwargs = self._bind(args, kwargs)
            from .dispatch import compute_call_key_set

            ks = compute_call_key_set(self, bound_args, bound_kwargs)
            return kernels[-1].call(self, ks, bound_args, bound_kwargs)
        return NotImplemented

    # --- Python dispatcher --------------------------------------------------
    def py_impl(self, key: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register a Python kernel for a dispatch key (or a mode class), used under the Python dispatcher."""
        return py_impl(self, key)

    def _get_dispatch(self, key: DispatchKey) -> Any:
        return get_dispatch(self, key)

    def has_kernel_for_dispatch_key(self, key: DispatchKey | str) -> bool:
        return has_kernel_for_dispatch_key(self, parse_dispatch_key(key))

    def has_kernel_for_any_dispatch_key(self, keyset: Any) -> bool:
        return has_kernel_for_any_dispatch_key(self, keyset if isinstance(keyset, int) else keyset.repr)

    # --- inspection ----------------------------------------------------------
    def dump(self) -> str:
        """Registrations as stored (``torch._C._dispatch_dump``)."""
        return dispatch_table.dump(self)

    def dump_table(self) -> str:
        """The computed table (``torch._C._dispatch_dump_table``)."""
        return dispatch_table.dump_table(self)

    def computed_table(self) -> dict[DispatchKey, tuple[Any, str]]:
        return dispatch_table.computed_table(self)


class OpOverloadPacket:
    """All overloads of one operator name, e.g. ``aten.add``. Calling it picks an overload."""

    def __init__(self, qualified_name: str) -> None:
        self._qualified_op_name = qualified_name
        self.namespace, self._opname = qualified_name.split("::", 1)
        self.__name__ = self._opname
        self.__qualname__ = qualified_name
        self._overloads: dict[str, OpOverload] = {}  # raw overload name -> OpOverload

    def __str__(self) -> str:
        return f"{self.namespace}.{self._opname}"

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self.namespace}.{self._opname}')>"

    def __deepcopy__(self, memo: dict) -> OpOverloadPacket:
        return self

    def overloads(self) -> list[str]:
        return [name or "default" for name, op in self._overloads.items() if op._schema is not None]

    def __getattr__(self, name: str) -> OpOverload:
        if name.startswith("__"):
            raise AttributeError(name)
        raw = "" if name == "default" else name
        op = self._overloads.get(raw)
        if op is None or op._schema is None:
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{name}'")
        self.__dict__[name] = op  # cached: later lookups are plain attribute hits
        return op

    def _forget_cached(self) -> None:
        """Drop cached overload attributes (an overload was removed)."""
        for name in [n for n, v in self.__dict__.items() if isinstance(v, OpOverload)]:
            del self.__dict__[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.overloads())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._select_overload(args, kwargs)(*args, **kwargs)

    def _select_overload(self, args: tuple, kwargs: dict) -> OpOverload:
        """First overload whose schema accepts the arguments; Python numbers for Tensor only if nothing else fits."""
        candidates = [op for op in self._overloads.values() if op._schema is not None]
        errors = []
        loose_match = None
        for op in candidates:
            try:
                bound, bound_kwargs = op._schema.bind(args, kwargs)
            except (SchemaArgumentError, TypeError) as e:
                errors.append(f"{e}\nDeclaration: {op._schema}")
                continue
            if _numbers_in_tensor_slots(op, bound):
                loose_match = loose_match or op
                continue
            return op
        if loose_match is not None:
            return loose_match
        raise SchemaArgumentError(
            "Overloaded torch operator invoked from Python failed to match any schema:\n" + "\n\n".join(errors)
        )


def _numbers_in_tensor_slots(op: OpOverload, bound: tuple) -> bool:
    n = len(bound)
    return any(
        isinstance(bound[i], (int, float, complex, bool)) for i in op._tensor_positions if i < n
    )


def _lookup_overload(qualified_name: str, overload: str) -> OpOverload:
    op = REGISTRY.find(qualified_name, overload)
    if op is None:
        raise AttributeError(f"no operator {qualified_name}.{overload or 'default'}")
    return op


def get_or_create_overload(qualified_name: str, overload: str) -> OpOverload:
    """The unique OpOverload for (name, overload), created on first registration."""
    with REGISTRY.lock:
        packet = REGISTRY.packets.get(qualified_name)
        if packet is None:
            packet = REGISTRY.packets[qualified_name] = OpOverloadPacket(qualified_name)
        overloads = REGISTRY.operators.setdefault(qualified_name, {})
        op = overloads.get(overload)
        if op is None:
            op = overloads[overload] = OpOverload(qualified_name, overload, packet)
            packet._overloads[overload] = op
        return op


class _OpNamespace:
    """``ops.aten``: attribute access gives the op packets of one namespace."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.__name__ = f"dispatcher.ops.{name}"

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        packet = REGISTRY.packets.get(f"{self.name}::{op_name}")
        if op_name.startswith("__") and packet is None:  # Python's protocol probes; aten has __lshift__ & co.
            raise AttributeError(op_name)
        if packet is None or not packet.overloads():
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        self.__dict__[op_name] = packet  # cached: later lookups are plain attribute hits
        return packet

    def __dir__(self) -> list[str]:
        prefix = self.name + "::"
        return sorted(k[len(prefix):] for k, p in REGISTRY.packets.items() if k.startswith(prefix) and p.overloads())

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dir__())

    def __repr__(self) -> str:
        return f"<module 'dispatcher.ops.{self.name}' from 'dispatcher.ops'>"


_NAMESPACES: dict[str, _OpNamespace] = {}


def forget_cached(qualified_name: str) -> None:
    """An overload of ``ns::name`` went away: drop cached attribute lookups that could hold it."""
    ns, name = qualified_name.split("::", 1)
    namespace_obj = _NAMESPACES.get(ns)
    if namespace_obj is not None:
        namespace_obj.__dict__.pop(name, None)
    packet = REGISTRY.packets.get(qualified_name)
    if packet is not None:
        packet._forget_cached()


def namespace(name: str) -> _OpNamespace:
    """``ops.<name>``: the (cached) namespace object."""
    ns = _NAMESPACES.get(name)
    if ns is None:
        ns = _NAMESPACES[name] = _OpNamespace(name)
    return ns
