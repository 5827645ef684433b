"""The Python dispatcher: py_impl kernels, the per-key cache, and guards (SEMANTICS §4)."""

from __future__ import annotations

import itertools

import pytest

from dispatcher import (
    AutoDispatchBelowAutograd,
    DisablePythonDispatcher,
    DispatchKey,
    EnablePythonDispatcher,
    Library,
    explain_dispatch,
    full_after,
    ops,
)
from dispatcher.errors import RegistrationError
from tests.stand_ins import Keyed

DK = DispatchKey
_names = itertools.count()


def make_sin():
    """An op shaped like aten::sin: a CPU kernel and an Autograd kernel that redispatches below autograd."""
    ns = f"pyd_test{next(_names)}"
    lib = Library(ns, "DEF")
    lib.define("sin(Tensor x) -> Tensor")
    trace = []

    def cpu(x):
        trace.append("cpu table kernel")
        return "sin"

    def autograd(ks, x):
        trace.append("autograd table kernel")
        return getattr(ops, ns).sin.default.redispatch(ks & full_after(DK.AutogradOther), x)

    lib.impl("sin", cpu, "CPU")
    lib.impl("sin", autograd, "Autograd", with_keyset=True)
    return lib, getattr(ops, ns).sin.default, trace


def test_py_kernels_only_run_under_the_python_dispatcher():
    lib, sin, trace = make_sin()

    @sin.py_impl(DK.AutogradCPU)
    def sin_autograd(x):
        trace.append("py AutogradCPU")
        with AutoDispatchBelowAutograd():
            return sin(x)

    @sin.py_impl(DK.CPU)
    def sin_cpu(x):
        trace.append("py CPU")
        return "py sin"

    assert sin(Keyed.cpu()) == "sin"
    assert trace == ["autograd table kernel", "cpu table kernel"]
    trace.clear()
    with EnablePythonDispatcher():
        assert sin(Keyed.cpu()) == "py sin"
    assert trace == ["py AutogradCPU", "py CPU"]
    assert sin._dispatch_cache == {DK.AutogradCPU: sin_autograd, DK.CPU: sin_cpu}
    trace.clear()
    with EnablePythonDispatcher(), AutoDispatchBelowAutograd():
        sin(Keyed.cpu())
    assert trace == ["py CPU"]
    trace.clear()
    with EnablePythonDispatcher(), DisablePythonDispatcher():
        sin(Keyed.cpu())
    assert trace == ["autograd table kernel", "cpu table kernel"]
    del lib


def test_python_dispatcher_resolves_alias_registrations_to_table_kernels():
    lib, sin, trace = make_sin()
    with EnablePythonDispatcher():
        assert sin(Keyed.cpu()) == "sin"
    # AutogradCPU resolves to the Autograd alias kernel; its redispatch keeps PythonDispatcher, so CPU goes
    # through the Python dispatcher again and resolves to the CPU kernel.
    assert trace == ["autograd table kernel", "cpu table kernel"]
    assert sin._dispatch_cache == {DK.AutogradCPU: DK.Autograd, DK.CPU: DK.CPU}
    steps = explain_dispatch(sin, Keyed.cpu()).steps
    handled = [s.handler for s in steps if type(s).__name__ == "PythonDispatcherStep"]
    assert handled == []  # not enabled outside the guard
    with EnablePythonDispatcher():
        steps = explain_dispatch(sin, Keyed.cpu()).steps
    handled = [(s.key, s.handler) for s in steps if type(s).__name__ == "PythonDispatcherStep"]
    assert handled == [("AutogradCPU", "Autograd"), ("CPU", "CPU")]
    del lib


def test_cia_py_impl_overrides_a_decomposition():
    ns = f"pyd_test{next(_names)}"
    lib = Library(ns, "DEF")
    lib.define("mm2(Tensor a, Tensor b) -> Tensor")
    lib.impl("mm2", lambda a, b: "table decomposition", "CompositeImplicitAutograd")
    op = getattr(ops, ns).mm2.default
    op.py_impl(DK.CompositeImplicitAutograd)(lambda a, b: "python decomposition")
    assert op(Keyed.cpu(), Keyed.cpu()) == "table decomposition"
    with EnablePythonDispatcher():
        assert op(Keyed.cpu(), Keyed.cpu()) == "python decomposition"
    assert op.decompose(Keyed.cpu(), Keyed.cpu()) == "python decomposition"
    del lib


def test_py_impl_errors_and_cache_invalidation():
    lib, sin, trace = make_sin()
    sin.py_impl(DK.CPU)(lambda x: "one")
    with pytest.raises(RegistrationError, match="Trying to override a python impl for DispatchKey.CPU on operator"):
        sin.py_impl(DK.CPU)(lambda x: "two")
    with pytest.raises(AssertionError, match="Please register a mode for the DispatchKey.Python key instead."):
        sin.py_impl(DK.Python)(lambda x: x)
    with EnablePythonDispatcher():
        sin(Keyed.cpu())
    assert DK.CPU in sin._dispatch_cache
    sin.py_impl(DK.Meta)(lambda x: "meta")
    assert sin._dispatch_cache == {}
    del lib


def test_decompose_without_cia_returns_notimplemented():
    lib, sin, _ = make_sin()
    assert sin.decompose(Keyed.cpu()) is NotImplemented
    del lib
