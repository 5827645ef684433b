"""The registration hooks of ``dispatcher._C`` (torch._C's ``_dispatch_library``, ``_dispatch_dump`` ...).

The seed's PythonDispatcher (../shared/seeds/python_dispatcher_seed.py, run unchanged with ``torch._C`` =
``dispatcher._C``) against our own ``PythonDispatcher`` for all 512 subsets of its keys; the hooks' dump texts
against torch's on the same registrations.
"""

from __future__ import annotations

import builtins
import itertools
import pathlib
import re
import types

import pytest

import dispatcher
import dispatcher._C as C
from dispatcher.python_dispatcher import PythonDispatcher

_ROOT = pathlib.Path(__file__).resolve().parents[1]  # the checkout; ../shared beside it (or two levels up: a worktree)
SEED = next((p for p in (_ROOT.parent / "shared", _ROOT.parent.parent / "shared")
             if (p / "seeds" / "python_dispatcher_seed.py").exists()), _ROOT.parent / "shared") / "seeds" / \
    "python_dispatcher_seed.py"


def _seed_class() -> type:
    def importer(name: str, *args: object, **kwargs: object) -> object:
        if name == "torch._C":  # `import torch._C as C` binds `torch`'s attribute `_C`
            return types.SimpleNamespace(_C=C)
        return builtins.__import__(name, *args, **kwargs)

    namespace = {"__builtins__": dict(vars(builtins), __import__=importer), "__name__": "python_dispatcher_seed"}
    exec(compile(SEED.read_text(), str(SEED), "exec"), namespace)
    return namespace["PythonDispatcher"]


def _rows(table: str, rename: dict[str, str]) -> dict[str, str]:
    rows = {}
    for line in table.splitlines()[4:]:
        key, kernel = line.split(None, 1)
        for old, new in rename.items():
            key, kernel = key.replace(old, new), kernel.replace(old, new)
        rows[key] = kernel
    return rows


@pytest.mark.skipif(not SEED.exists(), reason="the seed file is not available")
def test_seed_python_dispatcher_matches_ours_for_every_subset():
    Seed = _seed_class()
    today = {"Math": "CompositeImplicitAutograd", "DefaultBackend": "CompositeExplicitAutograd"}
    rename = {"QuantizedCPU": "FPGA", "fn_Math": "fn_CompositeImplicitAutograd",
              "fn_DefaultBackend": "fn_CompositeExplicitAutograd"}
    keys = Seed.supported_keys
    assert len(keys) == 9
    compared = 0
    for n in range(len(keys) + 1):
        for subset in itertools.combinations(keys, n):
            seed, ours = Seed(), PythonDispatcher()
            ours_keys = [rename.get(k, today.get(k, k)) for k in subset]
            try:
                seed.register(list(subset))
            except RuntimeError as e:
                assert "Math" in subset and "DefaultBackend" in subset, e
                with pytest.raises(RuntimeError, match="Registration to both"):
                    ours.register(ours_keys)
                del seed, ours
                continue
            ours.register(ours_keys)
            got = _rows(seed.dispatchTable(), rename)
            want = {k: v for k, v in _rows(ours.dispatchTable(), {}).items() if "Lazy" not in k}
            assert got == want, subset
            # registrations: the seed filters the dump by its key names, so the alias keys it registered under
            # their old names are listed by ours only
            seed_regs = _rows(seed.registrations(), rename)
            ours_regs = _rows(ours.registrations(), {})
            assert seed_regs == {k: v for k, v in ours_regs.items() if k.split("[")[0] in seed_regs or k == "Autograd[alias]"}
            compared += 1
            del seed, ours  # the seed's op __test__::foo goes with its library handle, as in torch
    assert compared == 512 - 2 ** 7  # every subset except those with both Math and DefaultBackend
    assert C._dispatch_dump("__test__::foo") == ""


def test_dispatch_library_lifetime_and_errors():
    ref = C._dispatch_library("FRAGMENT", "__c_hooks__", "")
    ref.def_("foo(Tensor x) -> Tensor").impl_t_t("foo", dispatch="Math", debug="fn_math")
    assert C._dispatch_has_kernel("__c_hooks__::foo")
    assert C._dispatch_has_kernel_for_dispatch_key("__c_hooks__::foo", "CompositeImplicitAutograd")
    assert C._dispatch_has_kernel_for_dispatch_key("__c_hooks__::foo", "DefaultBackend") is False
    assert "CompositeImplicitAutograd[alias]: fn_math" in C._dispatch_dump("__c_hooks__::foo")
    assert C._dispatch_check_invariants("__c_hooks__::foo") is None
    assert C._dispatch_check_invariants("foo") is None  # unknown names are ignored, as in torch
    assert str(C._dispatch_find_schema_or_throw("__c_hooks__::foo", "").schema()) == "__c_hooks__::foo(Tensor x) -> Tensor"
    with pytest.raises(RuntimeError, match=re.escape("Could not find schema for __c_hooks__::nope.")):
        C._dispatch_find_schema_or_throw("__c_hooks__::nope", "")
    with pytest.raises(RuntimeError, match="could not parse dispatch key: NotAKey"):
        ref.impl_t_t("foo", dispatch="NotAKey")
    ref.reset()
    assert C._dispatch_dump("__c_hooks__::foo") == "" and not C._dispatch_has_kernel("__c_hooks__::foo")
    ref2 = C._dispatch_library("FRAGMENT", "__c_hooks__", "")
    ref2.def_("foo(Tensor x) -> Tensor")  # re-created after the first one went
    del ref, ref2
    assert C._dispatch_dump("__c_hooks__::foo") == ""


def test_tls_and_keys_queries():
    t = dispatcher.ones(2)
    assert "CPU" in repr(C._dispatch_keys(t))
    assert not C._dispatch_tls_is_dispatch_key_excluded(dispatcher.DispatchKey.AutogradCPU)
    with C._ExcludeDispatchKeyGuard(dispatcher.DispatchKeySet(dispatcher.DispatchKey.AutogradCPU)):
        assert C._dispatch_tls_is_dispatch_key_excluded(dispatcher.DispatchKey.AutogradCPU)
    assert C._parse_dispatch_key("Math") == dispatcher.DispatchKey.CompositeImplicitAutograd
    assert C._parse_dispatch_key("NotAKey") is None


# --- against torch: the dump texts of the same registrations --------------------------------------------------
_REGISTRATIONS = [
    [("def_", "foo(Tensor x) -> Tensor"), ("impl_t_t", "foo", "CPU", "fn_cpu")],
    [("def_", "foo(Tensor x) -> Tensor"), ("impl_t_t", "foo", "CompositeImplicitAutograd", "fn_math"),
     ("impl_t_t", "foo", "XLA", "fn_xla")],
    [("def_", "foo(Tensor x) -> Tensor"), ("impl_t_t", "foo", "CompositeExplicitAutograd", "fn_ce"),
     ("impl_t_t", "foo", "Autograd", "fn_ag"), ("impl_t_t", "foo", "AutogradCPU", "fn_agcpu")],
    [("def_", "foo(Tensor x) -> Tensor"), ("impl_t_t", "foo", "FPGA", "fn_fpga"),
     ("impl_t_t", "foo", "CompositeImplicitAutograd", "fn_math")],
    [("def_", "foo(Tensor x) -> Tensor"), ("impl_t_t", "foo", "Meta", "fn_meta"),
     ("impl_t_t", "foo", "CPU", "fn_cpu"), ("impl_t_t", "foo", "CPU", "fn_cpu2")],
    [("def_", "foo(Tensor x, Tensor y) -> Tensor"), ("impl_t_t", "foo", "CPU", "fn_cpu")],
    [("def_", "foo(Tensor x) -> Tensor"), ("impl_t_t", "foo", "CPU", "fn_cpu"), ("impl", "foo", "CPU"),
     ("impl", "foo", "CompositeImplicitAutograd")],
    [("def_", "foo(Tensor x) -> (Tensor, Tensor)"), ("impl_t_t", "foo", "CPU", "fn_cpu")],
]


def _run(c_module: object, steps: list[tuple]) -> tuple[str, list[str]]:
    import warnings

    ref = c_module._dispatch_library("FRAGMENT", "__c_hooks_oracle__", "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in steps:
            if step[0] == "def_":
                ref.def_(step[1])
            elif step[0] == "impl":
                ref.impl(step[1], step[2], lambda x: x)
            else:
                try:
                    ref.impl_t_t(step[1], dispatch=step[2], debug=step[3])
                except RuntimeError as e:
                    ref.reset()
                    return "error", [str(e)]
    dump = c_module._dispatch_dump("__c_hooks_oracle__::foo")
    table = [line for line in c_module._dispatch_dump_table("__c_hooks_oracle__::foo").splitlines()
             if "[backend fallback]" not in line]  # fallbacks name each library's own files
    ref.reset()
    return dump, table


@pytest.mark.parametrize("steps", _REGISTRATIONS, ids=range(len(_REGISTRATIONS)))
def test_dump_texts_match_torch(steps, torch):
    assert _run(C, steps) == _run(torch._C, steps)


# --- torch's test/test_dispatch.py "commute" check, against torch: every registration order, then deregistration
# in two orders; the dump and computed table (fallback lines aside) after each step must be torch's ----------------
_COMMUTE = {
    "def": [lambda m: m.def_("foo(Tensor x) -> Tensor"), lambda m: m.impl_t_t("foo"),
            lambda m: m.impl_t_t("foo", dispatch="CPU"), lambda m: m.impl_t_t("foo", dispatch="Autograd"),
            lambda m: m.impl_t_t("foo", dispatch="AutogradCPU")],
    "schema_mismatch": [lambda m: m.def_("foo(Tensor x, Tensor y) -> Tensor"), lambda m: m.impl_t_t("foo")],
    "def_with_inference": [lambda m: m.def_name_t_t("foo"), lambda m: m.impl_t_t("foo", "CPU"),
                           lambda m: m.impl_t_t("foo", "Autograd"), lambda m: m.impl_t_t("foo", "AutogradCPU")],
    "impl_only": [lambda m: m.impl_t_t("foo"), lambda m: m.impl_t_t("foo", "CPU"),
                  lambda m: m.impl_t_t("foo", "Autograd"), lambda m: m.impl_t_t("foo", "AutogradCPU")],
    "computed_table": [lambda m: m.def_name_t_t("foo"), lambda m: m.impl_t_t("foo", "CPU", debug="fn_cpu"),
                       lambda m: m.impl_t_t("foo", "XLA", debug="fn_xla"),
                       lambda m: m.impl_t_t("foo", "Autograd", debug="fn_autograd"),
                       lambda m: m.impl_t_t("foo", "AutogradCPU", debug="fn_autogradcpu")],
    "math_and_cea": [lambda m: m.def_("foo(Tensor x) -> Tensor"),
                     lambda m: m.impl_t_t("foo", "CompositeExplicitAutograd", debug="fn_cea"),
                     lambda m: m.impl_t_t("foo", "FPGA", debug="fn_fpga"),
                     lambda m: m.impl_t_t("foo", "CompositeImplicitAutograd", debug="fn_math")],
    "multiple_def": [lambda m: m.def_("foo(Tensor x, Tensor y) -> Tensor"),
                     lambda m: m.def_("foo(Tensor x, Tensor y) -> Tensor")],
    "ambiguous_autogradother": [lambda m: m.def_("foo(Tensor x) -> Tensor"),
                                lambda m: m.impl_t_t("foo", "CompositeImplicitAutograd", debug="fn_math"),
                                lambda m: m.impl_t_t("foo", "QuantizedCPU", debug="fn_quantizedcpu")],
    "cpu_autograd_math_defaultbackend": [
        lambda m: m.def_("foo(Tensor x) -> Tensor"), lambda m: m.impl_t_t("foo", "CPU", debug="fn_cpu"),
        lambda m: m.impl_t_t("foo", "Autograd", debug="fn_autograd"),
        lambda m: m.impl_t_t("foo", "CompositeImplicitAutograd", debug="fn_math"),
        lambda m: m.impl_t_t("foo", "CompositeExplicitAutograd", debug="fn_defaultbackend")],
}


def _states(c_module: object, ops: list, ctor: tuple[int, ...], dtor: tuple[int, ...], ns: str) -> list[str]:
    import warnings

    def state() -> str:
        if c_module is C:  # (torch's own check trips an internal assert on FPGA + CompositeImplicitAutograd)
            c_module._dispatch_check_invariants(f"{ns}::foo")
        dump = c_module._dispatch_dump(f"{ns}::foo")
        table = [line for line in (c_module._dispatch_dump_table(f"{ns}::foo") if "schema: (none)" not in dump
                                   and dump else "").splitlines() if "[backend fallback]" not in line]
        return (dump + "\n".join(table)).replace(ns, "test")

    refs: list[object] = [None] * len(ops)
    seen = [state()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in ctor:
            refs[i] = c_module._dispatch_library("FRAGMENT", ns, "")
            try:
                ops[i](refs[i])
            except RuntimeError as e:
                seen.append("error: " + str(e).split("\nException raised from ")[0].replace(ns, "test"))
                break
            seen.append(state())
        for i in dtor:
            refs[i] = None
            seen.append(state())
    return seen


_commute_index = itertools.count()


@pytest.mark.parametrize("case", list(_COMMUTE))
def test_registrations_commute_as_in_torch(case, torch):
    ops = _COMMUTE[case]
    orders = list(itertools.permutations(range(len(ops))))
    for ctor in orders if len(ops) < 5 else orders[::4]:  # (5 ops: every 4th of the 120 orders, kept fast)
        for dtor in (tuple(reversed(ctor)), ctor):
            ns = f"__commute{next(_commute_index)}__"
            assert _states(C, ops, ctor, dtor, ns) == _states(torch._C, ops, ctor, dtor, ns), (ctor, dtor)
