"""Library kinds, define / impl / fallback rules and errors, registration lifetimes (SEMANTICS §3.1-3.2)."""

from __future__ import annotations

import gc
import itertools
import warnings

import pytest

import dispatcher
from dispatcher import DispatchKey, Library, RegistrationError, fallthrough_kernel, ops
from tests.stand_ins import Keyed

DK = DispatchKey
_names = itertools.count()


def fresh_ns() -> str:
    return f"lib_test{next(_names)}"


def test_kinds_and_reserved_namespaces():
    with pytest.raises(ValueError, match="Unsupported kind: BAD"):
        Library(fresh_ns(), "BAD")
    with pytest.raises(ValueError, match="prim is a reserved namespace"):
        Library("prim", "DEF")
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    with pytest.raises(RegistrationError, match=f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}"):
        Library(ns, "DEF")
    frag = Library(ns, "FRAGMENT")
    assert frag.define("bar(Tensor x, *, Scalar alpha=1) -> Tensor") == "bar"
    impl = Library(ns, "IMPL")
    with pytest.raises(RegistrationError, match="Cannot define an operator inside of a TORCH_LIBRARY_IMPL block"):
        impl.define("baz(Tensor x) -> Tensor")
    del lib, frag, impl


def test_define_returns_name_and_rejects_duplicates():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    assert lib.define("foo(Tensor x) -> Tensor") == "foo"
    assert lib.define("foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)") == "foo.out"
    with pytest.raises(RegistrationError, match=r"Tried to register an operator \(.*::foo\(Tensor x\) -> Tensor\) with the same name"):
        lib.define("foo(Tensor x) -> Tensor")
    assert getattr(ops, ns).foo.overloads() == ["default", "out"]


def test_impl_key_rules():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    cpu_lib = Library(ns, "IMPL", "CPU")
    with pytest.raises(RegistrationError, match=r"Explicitly provided dispatch key \(AutogradCPU\) is inconsistent"):
        cpu_lib.impl("foo", lambda x: x, "AutogradCPU")
    with pytest.raises(RegistrationError, match="could not parse dispatch key: NotAKey"):
        lib.impl("foo", lambda x: x, "NotAKey")
    cpu_lib.impl("foo", lambda x: "cpu")  # the library's key is the default
    assert getattr(ops, ns).foo(Keyed.cpu()) == "cpu"
    lib.impl("foo", lambda x: "math")  # no key anywhere: CompositeImplicitAutograd
    assert DK.CompositeImplicitAutograd in getattr(ops, ns).foo.default.kernels


def test_allow_override_false_and_override_warning():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: 1, "CPU")
    with pytest.raises(RegistrationError, match="already a kernel registered from python overriding foo's behavior for CPU"):
        lib.impl("foo", lambda x: 2, "CPU", allow_override=False)
    import dispatcher.library.core as library_module

    library_module._warned_override = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.impl("foo", lambda x: 2, "CPU")
    assert any("Overriding a previously registered kernel" in str(w.message) for w in caught)
    assert getattr(ops, ns).foo(Keyed.cpu()) == 2


def test_meta_kernel_rejected_when_op_decomposes():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: x, "CompositeImplicitAutograd")
    with pytest.raises(RegistrationError, match="We should not register a meta kernel directly"):
        lib.impl("foo", lambda x: x, "Meta")


def test_kernels_stack_and_removal_restores_previous():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", lambda x: "first", "CPU")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        second = Library(ns, "IMPL")
        second.impl("foo", lambda x: "second", "CPU")
    op = getattr(ops, ns).foo.default
    assert op(Keyed.cpu()) == "second"
    second._destroy()
    assert op(Keyed.cpu()) == "first"


def test_registrations_die_with_the_library():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    impl = Library(ns, "IMPL")
    impl.impl("foo", lambda x: "cpu", "CPU")
    op = getattr(ops, ns).foo.default
    assert op(Keyed.cpu()) == "cpu"
    del impl
    gc.collect()
    with pytest.raises(NotImplementedError, match=f"Could not run '{ns}::foo' with arguments from the 'CPU' backend"):
        op(Keyed.cpu())
    del lib
    gc.collect()
    with pytest.raises(AttributeError, match=f"'_OpNamespace' '{ns}' object has no attribute 'foo'"):
        _ = getattr(ops, ns).foo
    # The namespace is free again.
    Library(ns, "DEF")._destroy()


def test_fallback_rules():
    with pytest.raises(RegistrationError, match='Fallback can only be registered using library fragment on the global namespace "_" but it is aten'):
        Library("aten", "IMPL").fallback(lambda op, *a, **k: None, "XLA")
    lib = Library("_", "IMPL")
    with pytest.raises(RegistrationError, match="Tried to register multiple backend fallbacks for the same dispatch key AutocastCPU"):
        lib.fallback(lambda op, *a, **k: None, "AutocastCPU")
    calls = []
    lib.fallback(lambda op, *args, **kwargs: calls.append((str(op), args, kwargs)) or "fb", "XLA")
    with pytest.raises(RegistrationError, match="multiple backend fallbacks for the same dispatch key XLA"):
        Library("_", "IMPL").fallback(lambda op, *a, **k: None, "XLA")
    ns = fresh_ns()
    lib2 = Library(ns, "DEF")
    lib2.define("noimpl(Tensor x, int n=5, *, float s=1.0) -> Tensor")
    lib2.define("withimpl(Tensor x) -> Tensor")
    lib2.impl("withimpl", lambda x: "kernel", "XLA")
    xla = Keyed(0, (DK.XLA,))
    assert getattr(ops, ns).noimpl(xla, 5, s=2.0) == "fb"
    assert calls == [(f"{ns}.noimpl.default", (xla,), {"s": 2.0})]
    assert getattr(ops, ns).withimpl(xla) == "kernel"  # an op kernel beats a fallback
    lib._destroy()
    with pytest.raises(NotImplementedError):
        getattr(ops, ns).noimpl(xla)


def test_fallback_with_keyset_gets_keyset_first():
    seen = []
    lib = Library("_", "IMPL")
    lib.fallback(lambda ks, op, *args: seen.append((repr(ks), str(op))) or 0, "Lazy", with_keyset=True)
    ns = fresh_ns()
    lib2 = Library(ns, "DEF")
    lib2.define("f(Tensor x) -> Tensor")
    getattr(ops, ns).f(Keyed(0, (DK.Lazy,)))
    assert seen == [("DispatchKeySet(Lazy)", f"{ns}.f.default")]
    lib._destroy()


def test_fallthrough_kernel_is_skipped_not_called():
    ns = fresh_ns()
    lib = Library(ns, "DEF")
    lib.define("baz(Tensor x) -> Tensor")
    lib.impl("baz", lambda x: "cpu", "CPU")
    lib.impl("baz", fallthrough_kernel, "AutogradCPU")
    op = getattr(ops, ns).baz.default
    assert op(Keyed.cpu()) == "cpu"
    assert "AutogradCPU: fallthrough registered at" in op.dump_table()
    assert dispatcher.explain_dispatch(op, Keyed.cpu()).steps[0].key == "CPU"
