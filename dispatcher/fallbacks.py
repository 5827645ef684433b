"""The backend fallbacks the dispatcher installs for itself, as PyTorch 2.13 does.

Corresponds to the ``TORCH_LIBRARY_IMPL(_, Key, m) { m.fallback(...) }`` blocks
spread over ATen (BackendSelectFallbackKernel.cpp, VariableFallbackKernel.cpp,
PythonFallbackKernel.cpp, MetaFallbackKernel.cpp, autocast_mode.cpp, ...). The
set of keys, and which of them are fallthroughs, match ``_dispatch_dump_table``
of a fresh operator in torch 2.13.

What each does here:

* fallthrough (never called; the key is skipped): BackendSelect,
  ADInplaceOrView, the Autocast keys, FuncTorchVmapMode, VmapMode;
* PythonDispatcher: the Python dispatcher (``py_dispatch.py``);
* PreDispatch: continue below itself (the Python dispatcher intercepts it when
  pre-dispatch modes are active);
* PythonTLSSnapshot: remember the TLS seen on entry, continue below itself;
* Python: hand the op to dispatch modes and tensor subclasses (``python_key.py``);
* Autograd<Backend> / AutogradOther: the autograd fallback (``autograd_fallback.py``);
* Meta: raise "no fake impl or Meta kernel registered";
* Conjugate / Negative: resolve the lazy conjugate / negative bits of the
  inputs and redispatch (``math_bits.py``, ConjugateFallback.cpp /
  NegateFallback.cpp);
* ZeroTensor: materialize zero-tensor inputs and redispatch, refusing to write
  one (``zero_tensor.py``, ZeroTensorFallback.cpp);
* Functionalize, Tracer and the functorch keys: continue below themselves.
  NB: the real system does work there (functionalization, ...); we never set
  those keys on tensors, so they are reached only when a user includes them
  by hand.
"""

from __future__ import annotations

from typing import Any

from .dispatch import redispatch_bound, resolve_key_set
from .kernel import BOXED, KernelFunction, builtin_site
from .keys import DispatchKey
from .keyset import full_after_bits
from .library.core import register_builtin_fallback
from .py_dispatch import python_dispatcher_fallback
from .tls import per_thread as _per_thread

DK = DispatchKey

FALLTHROUGH_KEYS = (
    DK.BackendSelect, DK.ADInplaceOrView, DK.AutocastCPU, DK.AutocastMTIA, DK.AutocastMAIA,
    DK.AutocastXPU, DK.AutocastMPS, DK.AutocastCUDA, DK.FuncTorchVmapMode, DK.VmapMode,
)
AUTOGRAD_FALLBACK_KEYS = (
    DK.AutogradOther, DK.AutogradCPU, DK.AutogradCUDA, DK.AutogradXLA, DK.AutogradMPS, DK.AutogradXPU,
    DK.AutogradHPU, DK.AutogradLazy, DK.AutogradMTIA, DK.AutogradMAIA, DK.AutogradPrivateUse1, DK.AutogradMeta,
)
PASS_THROUGH_KEYS = (
    DK.FuncTorchDynamicLayerBackMode, DK.Functionalize, DK.Tracer,
    DK.FuncTorchBatched, DK.BatchedNestedTensor, DK.Batched, DK.FuncTorchGradWrapper,
    DK.FuncTorchDynamicLayerFrontMode, DK.PreDispatch,
)


def _continue_below(key: DispatchKey) -> Any:
    mask = full_after_bits(key)

    def kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        return redispatch_bound(op, ks & mask, args, kwargs)

    kernel.__qualname__ = f"{key.name}_fallback"
    return kernel


_AFTER_SNAPSHOT = full_after_bits(DK.PythonTLSSnapshot)


def python_tls_snapshot_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """Record the TLS at the first entry into Python dispatch (MaybeSetTLSOnEntryGuard), then continue below.

    ``enable_reentrant_dispatch()`` inside a ``__torch_dispatch__`` handler restores this snapshot.
    """
    s = _per_thread.s
    if s.tls_snapshot is not None or s.tracer is not None:
        return _snapshot_and_redispatch(s, op, ks, args, kwargs)
    # redispatch_bound written out: every op goes through here while a dispatch mode is active.
    hit = op._ks_cache.get(ks & _AFTER_SNAPSHOT)
    if hit is None:
        hit = resolve_key_set(op, ks & _AFTER_SNAPSHOT)
    kernel = hit[2]
    if kernel is None or kernel.convention != BOXED:
        return _snapshot_and_redispatch(s, op, ks, args, kwargs)
    s.tls_snapshot = (s.included, s.excluded)
    try:
        return kernel.fn(op, hit[0], args, kwargs)
    finally:
        s.tls_snapshot = None


def _snapshot_and_redispatch(s: Any, op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    if s.tls_snapshot is not None:
        return redispatch_bound(op, ks & _AFTER_SNAPSHOT, args, kwargs)
    s.tls_snapshot = (s.included, s.excluded)
    try:
        return redispatch_bound(op, ks & _AFTER_SNAPSHOT, args, kwargs)
    finally:
        s.tls_snapshot = None


def meta_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    raise NotImplementedError(
        f"{op.name()}: attempted to run this operator with Meta tensors, but there was no fake impl or Meta "
        "kernel registered. You may have run into this message while using an operator with PT2 compilation "
        "APIs (torch.compile/torch.export); in order to use this operator with those APIs you'll need to add "
        "a fake impl. Please see the following for next steps:  "
        "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
    )


def install() -> None:
    """Register every built-in fallback (called once, when the package is imported)."""
    from .autograd_fallback import autograd_fallback
    from .math_bits import conjugate_fallback, negation_fallback
    from .python_key import python_fallback
    from .zero_tensor import zero_tensor_fallback

    def boxed(fn: Any, name: str) -> KernelFunction:
        return KernelFunction(fn, BOXED, builtin_site(name), from_python=False)

    for key in FALLTHROUGH_KEYS:
        register_builtin_fallback(
            key, KernelFunction(None, BOXED, builtin_site("fallbacks.py"), is_fallthrough=True, from_python=False)
        )
    for key in AUTOGRAD_FALLBACK_KEYS:
        register_builtin_fallback(key, boxed(autograd_fallback, "autograd_fallback.py(VariableFallbackKernel.cpp)"))
    for key in PASS_THROUGH_KEYS:
        register_builtin_fallback(key, boxed(_continue_below(key), "fallbacks.py"))
    register_builtin_fallback(DK.PythonTLSSnapshot, boxed(python_tls_snapshot_fallback, "fallbacks.py"))
    register_builtin_fallback(DK.Python, boxed(python_fallback, "python_key.py"))
    register_builtin_fallback(DK.PythonDispatcher, boxed(python_dispatcher_fallback, "py_dispatch.py"))
    register_builtin_fallback(DK.Meta, boxed(meta_fallback, "fallbacks.py"))
    register_builtin_fallback(DK.Conjugate, boxed(conjugate_fallback, "math_bits.py(ConjugateFallback.cpp)"))
    register_builtin_fallback(DK.Negative, boxed(negation_fallback, "math_bits.py(NegateFallback.cpp)"))
    register_builtin_fallback(DK.ZeroTensor, boxed(zero_tensor_fallback, "zero_tensor.py(ZeroTensorFallback.cpp)"))
