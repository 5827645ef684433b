"""The call path: key-set computation, TLS, fallthroughs, redispatch, errors, explain_dispatch (SEMANTICS §1.5, §1.8)."""

from __future__ import annotations

import itertools

import pytest

from dispatcher import (
    AutoDispatchBelowAutograd,
    DispatchKey,
    DispatchKeySet,
    ExcludeDispatchKeyGuard,
    IncludeDispatchKeyGuard,
    Library,
    explain_dispatch,
    fallthrough_kernel,
    full_after,
    ops,
)
from dispatcher.errors import DispatchError, SchemaArgumentError
from tests.stand_ins import Keyed

DK = DispatchKey
_names = itertools.count()


def fresh_lib() -> tuple[str, Library]:
    ns = f"disp_test{next(_names)}"
    return ns, Library(ns, "DEF")


def _register_e4(lib, ns, trace, ops_ns, full_after_fn, keyset_str):
    """The kernels of semantics experiment e4, written once for both dispatchers."""
    after_autograd = full_after_fn("AutogradOther")
    after_adiov = full_after_fn("ADInplaceOrView")

    def autograd_k(ks, x):
        trace.append(("AutogradCPU", keyset_str(ks)))
        return getattr(ops_ns, ns).foo.default.redispatch(ks & after_autograd, x)

    def adiov_k(ks, x):
        trace.append(("ADInplaceOrView", keyset_str(ks)))
        return getattr(ops_ns, ns).foo.default.redispatch(ks & after_adiov, x)

    def cpu_k(x):
        trace.append(("CPU",))
        return x

    lib.define("foo(Tensor x) -> Tensor")
    lib.impl("foo", cpu_k, "CPU")
    lib.impl("foo", autograd_k, "AutogradCPU", with_keyset=True)
    lib.impl("foo", adiov_k, "ADInplaceOrView", with_keyset=True)


def test_redispatch_chain_matches_torch(torch):
    ns, lib = fresh_lib()
    ours: list = []
    _register_e4(lib, ns, ours, ops, lambda k: full_after(DK[k]), repr)
    theirs: list = []
    tlib = torch.library.Library(ns, "DEF")
    _register_e4(
        tlib, ns, theirs, torch.ops,
        lambda k: torch._C._dispatch_keyset_full_after(getattr(torch._C.DispatchKey, k)), str,
    )
    getattr(ops, ns).foo(Keyed.cpu())
    getattr(torch.ops, ns).foo(torch.ones(1))
    assert ours == theirs == [
        ("AutogradCPU", "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU)"),
        ("ADInplaceOrView", "DispatchKeySet(CPU, ADInplaceOrView)"),
        ("CPU",),
    ]
    ours.clear()
    theirs.clear()
    with AutoDispatchBelowAutograd(), torch._C._AutoDispatchBelowAutograd():
        getattr(ops, ns).foo(Keyed.cpu())
        getattr(torch.ops, ns).foo(torch.ones(1))
    assert ours == theirs == [("ADInplaceOrView", "DispatchKeySet(CPU, ADInplaceOrView)"), ("CPU",)]


def test_tls_include_and_exclude_change_the_key():
    ns, lib = fresh_lib()
    lib.define("f(Tensor x) -> Tensor")
    for key in ("CPU", "AutogradCPU", "Meta", "AutogradMeta", "AutocastCPU"):
        lib.impl("f", (lambda k: lambda x: k)(key), key)
    f = getattr(ops, ns).f.default
    assert f(Keyed.cpu()) == "AutogradCPU"
    with ExcludeDispatchKeyGuard(DispatchKeySet(DK.AutogradCPU)):
        assert f(Keyed.cpu()) == "CPU"
    # Meta in TLS include: the highest backend bit becomes Meta (how fake tensors reach meta kernels).
    with IncludeDispatchKeyGuard(DK.Meta):
        assert f(Keyed.cpu()) == "AutogradMeta"
        with AutoDispatchBelowAutograd():
            assert f(Keyed.cpu()) == "Meta"
    # Autocast is on the tensor but TLS-excluded by default; removing it from the exclude set turns it on.
    from dispatcher import tls

    tls.tls_set_dispatch_key_excluded(DK.AutocastCPU, False)
    try:
        assert f(Keyed.cpu()) == "AutocastCPU"
    finally:
        tls.tls_set_dispatch_key_excluded(DK.AutocastCPU, True)


def test_missing_kernel_error_lists_available_keys(torch):
    ns, lib = fresh_lib()
    lib.define("qux(Tensor x) -> Tensor")
    with pytest.raises(DispatchError) as ours:
        getattr(ops, ns).qux(Keyed.cpu())
    tlib = torch.library.Library(ns, "DEF")
    tlib.define("qux(Tensor x) -> Tensor")
    with pytest.raises(NotImplementedError) as theirs:
        getattr(torch.ops, ns).qux(torch.ones(1))
    assert str(ours.value).startswith(f"Could not run '{ns}::qux' with arguments from the 'CPU' backend.")
    ours_keys = str(ours.value).split("only available for these backends: [")[1].split("]")[0]
    theirs_keys = str(theirs.value).split("only available for these backends: [")[1].split("]")[0]
    assert ours_keys == theirs_keys
    assert isinstance(ours.value, NotImplementedError)


def test_no_tensor_arguments_use_undefined_slot(torch):
    ns, lib = fresh_lib()
    lib.define("mk(int n) -> Tensor")
    with pytest.raises(DispatchError, match="There were no tensor arguments to this function"):
        getattr(ops, ns).mk(3)
    lib.impl("mk", lambda n: ("made", n), "CompositeExplicitAutograd")
    assert getattr(ops, ns).mk(3) == ("made", 3)
    assert getattr(ops, ns).mk.default.dump_table().splitlines()[0].endswith("[default backend kernel]")
    assert getattr(ops, ns).mk.default.dump_table().startswith("Undefined: ")


def test_backend_select_kernel_runs_for_factories():
    ns, lib = fresh_lib()
    lib.define("empty(int n, *, str device='cpu') -> Tensor")
    trace = []

    def backend_select(ks, n, device="cpu"):
        trace.append(repr(ks))
        key = DK.Meta if device == "meta" else DK.CPU
        return getattr(ops, ns).empty.default.redispatch(DispatchKeySet(key), n, device=device)

    lib.impl("empty", backend_select, "BackendSelect", with_keyset=True)
    lib.impl("empty", lambda n, device="cpu": ("cpu", n), "CPU")
    lib.impl("empty", lambda n, device="cpu": ("meta", n), "Meta")
    assert getattr(ops, ns).empty(2) == ("cpu", 2)
    assert getattr(ops, ns).empty(2, device="meta") == ("meta", 2)
    assert trace == ["DispatchKeySet(BackendSelect)"] * 2


def test_per_backend_fallthrough_only_affects_its_backend():
    ns, lib = fresh_lib()
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: "cpu", "CPU")
    lib.impl("f", lambda x: "xla", "XLA")
    lib.impl("f", lambda x: "autograd", "Autograd")
    lib.impl("f", fallthrough_kernel, "AutogradCPU")
    f = getattr(ops, ns).f
    assert f(Keyed.cpu()) == "cpu"  # AutogradCPU skipped
    assert f(Keyed(0, (DK.XLA, DK.AutogradXLA))) == "autograd"  # AutogradXLA still runs


def test_redispatch_skips_tls():
    ns, lib = fresh_lib()
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: "cpu", "CPU")
    lib.impl("f", lambda x: "autograd", "AutogradCPU")
    f = getattr(ops, ns).f.default
    with ExcludeDispatchKeyGuard(DispatchKeySet(DK.AutogradCPU)):
        assert f(Keyed.cpu()) == "cpu"
        # redispatch uses the key set it is given: TLS exclusion does not apply
        assert f.redispatch(DispatchKeySet([DK.CPU, DK.AutogradCPU]), Keyed.cpu()) == "autograd"


def test_bad_arguments_name_the_op():
    ns, lib = fresh_lib()
    lib.define("f(Tensor x, int n) -> Tensor")
    lib.impl("f", lambda x, n: n, "CPU")
    with pytest.raises(SchemaArgumentError, match=f"{ns}::f"):
        getattr(ops, ns).f(Keyed.cpu())
    with pytest.raises(SchemaArgumentError, match="'n'"):
        getattr(ops, ns).f(Keyed.cpu(), "three")


def test_kernels_receive_normalized_arguments():
    ns, lib = fresh_lib()
    lib.define("s(Tensor x, int[1]? dim=None, bool keepdim=False, *, Scalar alpha=1) -> Tensor")
    seen = []
    lib.impl("s", lambda *args, **kwargs: seen.append((args[1:], kwargs)), "CPU")
    s = getattr(ops, ns).s
    s(Keyed.cpu(), 0, False)
    s(Keyed.cpu(), dim=[1], alpha=1)
    s(Keyed.cpu(), None, True, alpha=2)
    assert seen == [(([0],), {}), (([1],), {}), ((None, True), {"alpha": 2})]


def test_tensor_lists_and_optional_tensors_carry_keys():
    ns, lib = fresh_lib()
    lib.define("cat(Tensor[] xs, Tensor? bias=None) -> Tensor")
    lib.impl("cat", lambda xs, bias=None: "cpu", "CPU")
    lib.impl("cat", lambda xs, bias=None: "xla", "XLA")
    cat = getattr(ops, ns).cat
    assert cat([Keyed.cpu(), Keyed.cpu()]) == "cpu"
    assert cat([Keyed.cpu(), Keyed(0, (DK.XLA,))]) == "xla"  # XLA's backend bit is higher than CPU's
    assert cat([Keyed.cpu()], Keyed(0, (DK.XLA,))) == "xla"


def test_packet_picks_an_overload():
    ns, lib = fresh_lib()
    lib.define("add.Tensor(Tensor self, Tensor other) -> Tensor")
    lib.define("add.Scalar(Tensor self, Scalar other) -> Tensor")
    lib.impl("add.Tensor", lambda a, b: "Tensor", "CPU")
    lib.impl("add.Scalar", lambda a, b: "Scalar", "CPU")
    add = getattr(ops, ns).add
    assert add(Keyed.cpu(), Keyed.cpu()) == "Tensor"
    assert add(Keyed.cpu(), 2) == "Scalar"  # a number prefers a Scalar parameter over a Tensor one
    with pytest.raises(SchemaArgumentError, match="failed to match any schema"):
        add(Keyed.cpu(), "x")
    assert str(add) == f"{ns}.add" and repr(add) == f"<OpOverloadPacket(op='{ns}.add')>"
    assert add.overloads() == ["Tensor", "Scalar"]
    op = add.Tensor
    assert str(op) == f"{ns}.add.Tensor" and op.name() == f"{ns}::add.Tensor"
    assert repr(op) == f"<OpOverload(op='{ns}.add', overload='Tensor')>" and op.__name__ == "add.Tensor"
    with pytest.raises(AttributeError, match=f"The underlying op of '{ns}.add' has no overload name 'nope'"):
        _ = add.nope


def test_explain_dispatch_reports_each_hop():
    ns, lib = fresh_lib()
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: "cpu", "CPU")

    def autograd(ks, x):
        return getattr(ops, ns).f.default.redispatch(ks & full_after(DK.AutogradOther), x)

    lib.impl("f", autograd, "Autograd", with_keyset=True)
    explanation = explain_dispatch(getattr(ops, ns).f.default, Keyed.cpu())
    assert explanation.result == "cpu" and explanation.error is None
    first, second = explanation.steps
    assert first.how == "call" and first.key == "AutogradCPU" and first.reason.startswith("Autograd alias")
    assert first.tls_excluded == ["AutocastCPU"]
    assert "BackendSelect" in first.fallthrough_skipped and "ADInplaceOrView" in first.fallthrough_skipped
    assert second.how == "redispatch" and second.key == "CPU" and second.registered_on == "CPU"
    text = str(explanation)
    assert "AutogradCPU" in text and "returned 'cpu'" in text
    failing = explain_dispatch(getattr(ops, ns).f.default, Keyed(0, (DK.XLA,)))
    assert isinstance(failing.error, NotImplementedError) and "raised" in str(failing)
