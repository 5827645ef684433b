"""Dispatch keys and key sets: values, bit layout, set algebra and highest-key results, checked against torch."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dispatcher.keys import (
    RUNTIME_KEYS_IN_DUMP_ORDER,
    DispatchKey,
    is_alias_key,
    is_runtime_key,
    to_functionality_key,
)
from dispatcher.keyset import FULL, DispatchKeySet, full_after

DK = DispatchKey
TORCH_NAMED_KEYS = [k for k in DK if not k.name.startswith(("StartOf", "EndOf"))]


def test_values_match_pytorch_layout():
    assert DK.Dense == 1 and DK.Python == 13 and DK.ADInplaceOrView == 19
    assert DK.AutocastCPU == 24 and DK.PythonTLSSnapshot == 41
    assert DK.PreDispatch == 45 and DK.PythonDispatcher == 46
    assert DK.CPU == 49 and DK.Meta == 64 and DK.QuantizedCPU == 66
    assert DK.AutogradCPU == 134 and DK.AutogradMeta == 149
    assert DK.Autograd == 150 and DK.CompositeExplicitAutogradNonFunctional == 155


def test_old_names_are_aliases():
    assert DK.Math is DK.CompositeImplicitAutograd
    assert DK.DefaultBackend is DK.CompositeExplicitAutograd
    assert DK["Math"] is DK.CompositeImplicitAutograd


def test_str_and_repr():
    assert str(DK.CPU) == "DispatchKey.CPU"
    assert repr(DK.CPU) == "<DispatchKey.CPU: 49>"


def test_key_kinds():
    assert is_alias_key(DK.Autograd) and not is_alias_key(DK.AutogradCPU)
    assert is_runtime_key(DK.CPU) and is_runtime_key(DK.Undefined) and is_runtime_key(DK.Python)
    assert not is_runtime_key(DK.Dense) and not is_runtime_key(DK.StartOfDenseBackends)
    assert to_functionality_key(DK.AutogradCPU) == DK.AutogradFunctionality
    assert to_functionality_key(DK.QuantizedMeta) == DK.Quantized


def test_keyset_basics():
    cpu_tensor = DispatchKeySet([DK.CPU, DK.ADInplaceOrView, DK.AutogradCPU, DK.AutocastCPU])
    assert repr(cpu_tensor) == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)"
    assert cpu_tensor.highest_priority_type_id() == DK.AutocastCPU
    cross = DispatchKeySet(DK.CPU) | DispatchKeySet(DK.AutogradCUDA)
    assert repr(cross) == "DispatchKeySet(CPU, CUDA, AutogradCPU, AutogradCUDA)"
    assert cross.highestPriorityTypeId() == DK.AutogradCUDA
    removed = DispatchKeySet(DK.AutogradCPU).remove(DK.AutogradCPU)
    assert repr(removed) == "DispatchKeySet()" and removed.raw_repr() == 1  # the CPU backend bit stays
    assert DispatchKeySet(DK.Autograd).raw_repr() == 0  # alias keys cannot be put in a set
    assert full_after(DK.AutogradOther).has(DK.PythonDispatcher)
    assert full_after(DK.PythonDispatcher).has(DK.PythonDispatcher)
    assert FULL.raw_repr() == (1 << 62) - 1


def test_keyset_is_immutable_and_hashable():
    ks = DispatchKeySet(DK.CPU)
    with pytest.raises(AttributeError):
        ks.repr = 5
    assert {ks: 1}[DispatchKeySet(DK.CPU)] == 1


def test_runtime_key_order_matches_dump_table(torch):
    # Every torch-visible runtime key appears in torch's full key set print in our order.
    ours = [k.name for k in FULL]
    theirs = str(torch._C._dispatch_keyset_full())[len("DispatchKeySet("):-1].split(", ")
    assert ours == theirs
    assert [k.name for k in RUNTIME_KEYS_IN_DUMP_ORDER[1:]] == theirs


def test_every_named_key_has_torchs_value(torch):
    for key in TORCH_NAMED_KEYS:
        if hasattr(torch._C.DispatchKey, key.name):
            assert int(getattr(torch._C.DispatchKey, key.name)) == int(key), key


def test_single_key_sets_match_torch(torch):
    for key in TORCH_NAMED_KEYS:
        if not hasattr(torch._C.DispatchKey, key.name):
            continue
        theirs = torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, key.name))
        ours = DispatchKeySet(key)
        assert ours.raw_repr() == theirs.raw_repr(), key
        assert repr(ours) == str(theirs), key
        assert full_after(key).raw_repr() == torch._C._dispatch_keyset_full_after(
            getattr(torch._C.DispatchKey, key.name)
        ).raw_repr(), key


_torch_keys = st.sampled_from([k for k in TORCH_NAMED_KEYS if k != DK.Undefined])
_raw_sets = st.integers(min_value=0, max_value=(1 << 62) - 1)


@settings(max_examples=300, deadline=None)
@given(raw=_raw_sets, other=_raw_sets, key=_torch_keys)
def test_keyset_algebra_matches_torch(torch, raw, other, key):
    TK = torch._C.DispatchKeySet
    a, b = DispatchKeySet.from_raw_repr(raw), DispatchKeySet.from_raw_repr(other)
    ta, tb = TK.from_raw_repr(raw), TK.from_raw_repr(other)
    assume(hasattr(torch._C.DispatchKey, key.name))  # some keys are C++-only
    tkey = getattr(torch._C.DispatchKey, key.name)
    assert repr(a) == str(ta)
    assert int(a.highest_priority_type_id()) == int(ta.highestPriorityTypeId())
    assert (a | b).raw_repr() == (ta | tb).raw_repr()
    assert (a & b).raw_repr() == (ta & tb).raw_repr()
    assert (a - b).raw_repr() == (ta - tb).raw_repr()
    assert a.has(key) == ta.has(tkey)
    assert a.add(key).raw_repr() == ta.add(tkey).raw_repr()
    assert a.remove(key).raw_repr() == ta.remove(tkey).raw_repr()


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(_torch_keys, max_size=6))
def test_sets_built_from_keys_match_torch(torch, keys):
    assume(all(hasattr(torch._C.DispatchKey, k.name) for k in keys))  # some keys are C++-only
    ours = DispatchKeySet(keys)
    theirs = torch._C.DispatchKeySet(torch._C.DispatchKey.Undefined)
    for k in keys:
        theirs = theirs | torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, k.name))
    assert ours.raw_repr() == theirs.raw_repr()
    assert repr(ours) == str(theirs)
    assert int(ours.highestPriorityTypeId()) == int(theirs.highestPriorityTypeId())
