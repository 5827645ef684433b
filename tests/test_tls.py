"""Thread-local include/exclude sets and the guards: defaults, exact restore (also on errors), per-thread state."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from dispatcher import tls
from dispatcher.keys import DispatchKey
from dispatcher.keyset import DispatchKeySet

DK = DispatchKey


def _state():
    return tls.state.included, tls.state.excluded


def test_defaults():
    assert repr(tls.tls_local_include_set()) == "DispatchKeySet(BackendSelect, ADInplaceOrView)"
    assert repr(tls.tls_local_exclude_set()).startswith("DispatchKeySet(AutocastCPU, AutocastMTIA")
    assert not tls.is_python_dispatcher_enabled()


GUARDS = [
    lambda: tls.IncludeDispatchKeyGuard(DK.Python),
    lambda: tls.ExcludeDispatchKeyGuard(DispatchKeySet([DK.AutogradCPU, DK.ADInplaceOrView])),
    tls.EnablePythonDispatcher,
    tls.DisablePythonDispatcher,
    tls.EnablePreDispatch,
    tls.AutoDispatchBelowAutograd,
    tls.AutoDispatchBelowADInplaceOrView,
]


@pytest.mark.parametrize("make_guard", GUARDS)
def test_guard_restores_after_exception(make_guard):
    before = _state()
    with pytest.raises(ValueError):
        with make_guard():
            assert _state() != before or make_guard is tls.DisablePythonDispatcher
            raise ValueError("boom")
    assert _state() == before


def test_guards_change_what_pytorch_changes(torch):
    C = torch._C
    pairs = [
        (tls.EnablePythonDispatcher, C._EnablePythonDispatcher),
        (tls.EnablePreDispatch, C._EnablePreDispatch),
        (tls.AutoDispatchBelowAutograd, C._AutoDispatchBelowAutograd),
        (tls.AutoDispatchBelowADInplaceOrView, C._AutoDispatchBelowADInplaceOrView),
    ]
    # Compared as changes (XOR of the raw bits before and inside): torch's own TLS can carry a stray backend bit left
    # by earlier torch calls (its FakeTensorMode's meta-in-TLS toggle removes the Meta key's functionality bit but not
    # its backend bit), which is not what a guard changes.
    def sets(lib_include: Any, lib_exclude: Any) -> tuple[int, int]:
        return lib_include().raw_repr(), lib_exclude().raw_repr()

    ours_start = sets(tls.tls_local_include_set, tls.tls_local_exclude_set)
    theirs_start = sets(C._dispatch_tls_local_include_set, C._dispatch_tls_local_exclude_set)
    for ours, theirs in pairs:
        ours_before = sets(tls.tls_local_include_set, tls.tls_local_exclude_set)
        theirs_before = sets(C._dispatch_tls_local_include_set, C._dispatch_tls_local_exclude_set)
        with ours(), theirs():
            ours_inside = sets(tls.tls_local_include_set, tls.tls_local_exclude_set)
            theirs_inside = sets(C._dispatch_tls_local_include_set, C._dispatch_tls_local_exclude_set)
            assert ours_inside[0] ^ ours_before[0] == theirs_inside[0] ^ theirs_before[0]
            assert ours_inside[1] ^ ours_before[1] == theirs_inside[1] ^ theirs_before[1]
            assert ours_inside[0] ^ ours_before[0] != 0 or ours_inside[1] ^ ours_before[1] != 0
    with tls.EnablePythonDispatcher(), tls.DisablePythonDispatcher():
        assert not tls.is_python_dispatcher_enabled()
    assert sets(tls.tls_local_include_set, tls.tls_local_exclude_set) == ours_start  # every guard undone
    assert sets(C._dispatch_tls_local_include_set, C._dispatch_tls_local_exclude_set) == theirs_start


def test_nested_guards_only_remove_what_they_added():
    with tls.IncludeDispatchKeyGuard(DK.Python):
        with tls.IncludeDispatchKeyGuard(DispatchKeySet([DK.Python, DK.PreDispatch])):
            assert tls.tls_is_dispatch_key_included(DK.PreDispatch)
        assert tls.tls_is_dispatch_key_included(DK.Python)
        assert not tls.tls_is_dispatch_key_included(DK.PreDispatch)
    assert not tls.tls_is_dispatch_key_included(DK.Python)


def test_python_dispatcher_guards_restore_previous_value():
    with tls.EnablePythonDispatcher():
        with tls.DisablePythonDispatcher():
            assert not tls.is_python_dispatcher_enabled()
            with tls.EnablePythonDispatcher():
                assert tls.is_python_dispatcher_enabled()
            assert not tls.is_python_dispatcher_enabled()
        assert tls.is_python_dispatcher_enabled()
    assert not tls.is_python_dispatcher_enabled()


def test_state_is_per_thread():
    seen = {}
    entered = threading.Event()
    release = threading.Event()

    def worker():
        seen["worker_start"] = tls.tls_local_include_set()
        with tls.EnablePythonDispatcher(), tls.AutoDispatchBelowAutograd():
            entered.set()
            release.wait(5)
            seen["worker_inside"] = (tls.is_python_dispatcher_enabled(), tls.state.excluded)
        seen["worker_after"] = tls.is_python_dispatcher_enabled()

    thread = threading.Thread(target=worker)
    before = _state()
    with tls.EnablePreDispatch():
        thread.start()
        entered.wait(5)
        # The worker's guards are invisible here, and ours to it.
        assert not tls.is_python_dispatcher_enabled()
        assert _state()[1] == before[1]
        release.set()
        thread.join(5)
    assert repr(seen["worker_start"]) == "DispatchKeySet(BackendSelect, ADInplaceOrView)"
    assert seen["worker_inside"][0] is True
    assert seen["worker_inside"][1] & DispatchKeySet(DK.AutogradOther).raw_repr()
    assert seen["worker_after"] is False
    assert _state() == before
