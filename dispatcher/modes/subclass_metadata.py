"""Tensor metadata answered by a subclass's ``__torch_dispatch__``: the "custom" sizes / strides / device / layout.

Corresponds to the ``*_custom()`` paths of c10/core/TensorImpl.cpp (``SizesStridesPolicy::CustomStrides`` /
``CustomSizes``, ``python_custom_device_``, ``python_custom_layout_``) and their Python side in
torch/csrc/PyInterpreter.cpp (``ConcretePyInterpreterVTable::sym_sizes`` / ``sym_strides`` / ``dim`` /
``is_contiguous`` / ``device`` / ``layout`` ...).

``Tensor._make_wrapper_subclass(..., dispatch_sizes_strides_policy="strides" | "sizes", dispatch_device=True,
dispatch_layout=True)`` (and ``_make_subclass`` with the same flags) set bits of ``Tensor._python_policy``; the
Tensor's metadata methods then ask Python instead of reading their own fields:

======================  ============================================  =====================================
policy                  query                                         op handed to ``__torch_dispatch__``
======================  ============================================  =====================================
"strides" (and "sizes")  ``stride()``, ``is_contiguous(mf)``          ``aten.sym_stride.default``,
                                                                      ``aten.is_contiguous.default`` /
                                                                      ``.memory_format``
"sizes"                 ``size()`` / ``shape``, ``dim()`` / ``ndim``  ``aten.sym_size.default``,
                        / ``len()``, ``numel()``,                     ``aten.dim.default``,
                        ``storage_offset()``, ``data_ptr()``          ``aten.sym_numel.default``,
                                                                      ``aten.sym_storage_offset.default``,
                                                                      ``aten.numel.default``
``dispatch_device``     ``device`` / ``is_cpu`` / ``is_meta``         ``prim.device.default``
``dispatch_layout``     ``layout``                                    ``prim.layout.default``
======================  ============================================  =====================================

A query is not a dispatcher call: the active dispatch modes see it first (the top one popped while it runs),
then the tensor's class, as for an op at the Python key. ``None`` means "use the stored value" (except for
``dim``, ``device`` and ``layout``, which must answer); every handler returning ``NotImplemented`` is PyTorch's TypeError naming
``dispatcher.ops.aten.sym_size`` (torch: ``torch.ops.aten.sym_size``). ``size(d)`` / ``stride(d)`` under "sizes"
ask ``dim`` first to wrap ``d``, as PyTorch does.
"""

from __future__ import annotations

from typing import Any

from ..tls import per_thread

POLICY_STRIDES = 1  #: dispatch_sizes_strides_policy="strides"
POLICY_SIZES = 2  #: dispatch_sizes_strides_policy="sizes" (always together with POLICY_STRIDES)
POLICY_DEVICE = 4  #: dispatch_device=True
POLICY_LAYOUT = 8  #: dispatch_layout=True


def policy_bits(sizes_strides_policy: str | None, dispatch_device: bool, dispatch_layout: bool) -> int:
    """The ``_python_policy`` bits of these constructor arguments (PyTorch's ``parseSizesStridesPolicyArgument``)."""
    bits = 0
    if sizes_strides_policy is not None:
        if sizes_strides_policy == "strides":
            bits |= POLICY_STRIDES
        elif sizes_strides_policy == "sizes":
            bits |= POLICY_STRIDES | POLICY_SIZES
        else:
            raise ValueError(f"Unknown sizes_strides_policy: {sizes_strides_policy}; expected 'strides' or 'sizes'")
    if dispatch_device:
        bits |= POLICY_DEVICE
    if dispatch_layout:
        bits |= POLICY_LAYOUT
    return bits


def ask(t: Any, namespace: str, name: str, *extra: Any, overload: str = "default") -> Any:
    """Hand ``namespace.name.overload(t, *extra)`` to the modes, then to ``type(t).__torch_dispatch__``."""
    from ..op_overload import namespace as ns
    from ..python_key import handle_torch_dispatch

    op = getattr(getattr(ns(namespace), name), overload)
    s = per_thread.s
    snapshot_set = s.tls_snapshot is None  # (MaybeSetTLSOnEntryGuard: reentrant dispatch restores this TLS)
    if snapshot_set:
        s.tls_snapshot = (s.included, s.excluded)
    try:
        return handle_torch_dispatch([t], op, (t, *extra), {}, name=f"dispatcher.ops.{namespace}.{name}")
    finally:
        if snapshot_set:
            s.tls_snapshot = None


def sizes(t: Any) -> tuple:
    r = ask(t, "aten", "sym_size")
    return t._shape if r is None else tuple(r)


def strides(t: Any) -> tuple:
    r = ask(t, "aten", "sym_stride")
    return t._stride if r is None else tuple(r)


def dim(t: Any) -> int:
    r = ask(t, "aten", "dim")
    if r.__class__ is not int:
        raise RuntimeError(f"dim returned invalid type {type(r).__name__}, expected int")
    return r


def _numel_asking(t: Any, name: str) -> int:
    """The answer to ``aten.<name>``, or the product of the stored sizes without one."""
    r = ask(t, "aten", name)
    if r is None:
        n = 1
        for s in t._shape:
            n *= s
        return n
    return r


def numel(t: Any) -> int:
    return _numel_asking(t, "sym_numel")


def storage_offset(t: Any) -> int:
    r = ask(t, "aten", "sym_storage_offset")
    return t._storage_offset if r is None else r


def is_contiguous(t: Any, memory_format: Any) -> bool:
    from ..memory_format import as_memory_format

    code = None if memory_format is None else as_memory_format(memory_format).code
    if code is None or code == 0:
        r = ask(t, "aten", "is_contiguous")
    else:
        r = ask(t, "aten", "is_contiguous", as_memory_format(memory_format), overload="memory_format")
    if r is None:
        return t._stored_is_contiguous(memory_format)
    return bool(r)


def device(t: Any) -> Any:
    r = ask(t, "prim", "device")
    if r is None:  # (PyTorch reads the answer as a device string)
        raise RuntimeError("unpackString: expected bytes or unicode object")
    return r


def layout(t: Any) -> Any:
    r = ask(t, "prim", "layout")
    if r is None:
        raise RuntimeError("layout returned invalid type NoneType, expected Layout")
    return r


def data_ptr_numel(t: Any) -> int:
    """``data_ptr()`` of a "sizes" tensor asks ``aten.numel`` first (whether there is data to point at)."""
    return _numel_asking(t, "numel")


__all__ = [
    "POLICY_DEVICE", "POLICY_LAYOUT", "POLICY_SIZES", "POLICY_STRIDES", "ask", "data_ptr_numel", "device", "dim",
    "is_contiguous", "layout", "numel", "policy_bits", "sizes", "storage_offset", "strides",
]
