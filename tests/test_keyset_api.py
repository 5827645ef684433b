"""``DispatchKeySet`` / ``DispatchKey`` Python API as torch._C's: keys by name, pickling, the ``_C`` names.

PyTorch's bindings convert a ``str`` to a DispatchKey wherever one is expected (pybind's implicit conversion
through ``c10::parseDispatchKey``): ``DispatchKeySet("CPU")``, ``ks.has("CPU")``, the TLS queries,
``OpOverload.has_kernel_for_dispatch_key("CPU")``; an unknown name is "could not parse dispatch key". A key set
pickles and copies by its raw representation (``__getstate__`` is ``(raw,)``).
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

import dispatcher as D

EXPRESSIONS = [
    "C.DispatchKeySet('CPU')",
    "C.DispatchKeySet(C.DispatchKey.CPU)",
    "C.DispatchKeySet('AutogradCPU')",
    "C.DispatchKeySet('Autograd')",  # an alias key: the empty set
    "C.DispatchKeySet('Undefined')",
    "C.DispatchKeySet('Meta') | C.DispatchKeySet('Python')",
    "C.DispatchKeySet('Bogus')",
    "C.DispatchKeySet('cpu')",
    "C.DispatchKeySet('CPU') == C.DispatchKeySet(C.DispatchKey.CPU)",
    "C.DispatchKeySet('CPU').has('CPU')",
    "C.DispatchKeySet('CPU').has('AutogradCPU')",
    "C.DispatchKeySet('CPU').add('Python')",
    "C.DispatchKeySet('CPU').add('AutogradCUDA')",
    "C.DispatchKeySet('AutogradCPU').remove('AutogradCPU')",
    "C.DispatchKeySet('CPU').remove('Bogus')",
    "C.DispatchKeySet('CPU').__getstate__()",
    "C.DispatchKeySet('AutogradCPU').remove('AutogradCPU').raw_repr()",
    "C._dispatch_key_name(C.DispatchKey.AutogradMeta)",
    "C._dispatch_key_parse('PreDispatch')",
    "C._dispatch_key_parse('Nope')",
    "C._dispatch_tls_is_dispatch_key_included('BackendSelect')",
    "C._dispatch_tls_is_dispatch_key_excluded('AutocastCPU')",
    "C._dispatch_tls_is_dispatch_key_included('Nope')",
    "C._dispatch_has_kernel_for_dispatch_key('aten::add.Tensor', 'CPU')",
    "T.ops.aten.add.Tensor.has_kernel_for_dispatch_key('CPU')",
    "T.ops.aten.add.Tensor.has_kernel_for_dispatch_key('CompositeImplicitAutograd')",
    "T.ops.aten.linear.default.has_kernel_for_dispatch_key('CompositeImplicitAutograd')",
]


def _outcome(T: Any, expr: str) -> Any:
    try:
        r = eval(expr, {"C": T._C, "T": T})  # noqa: S307 - test table
    except RuntimeError as e:
        return "RuntimeError", str(e)
    return repr(r) if type(r).__name__ in ("DispatchKeySet", "DispatchKey") else r


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_keyset_api_like_torch(torch: Any, expr: str) -> None:
    assert _outcome(D, expr) == _outcome(torch, expr)


SETS = ["C.DispatchKeySet('CPU')", "C.DispatchKeySet('CPU') | C.DispatchKeySet('AutogradCUDA')",
        "C.DispatchKeySet('AutogradCPU').remove('AutogradCPU')", "C.DispatchKeySet('PythonDispatcher')",
        "C.DispatchKeySet('Undefined')", "C._dispatch_keys(T.ones(1))"]


@pytest.mark.parametrize("expr", SETS)
def test_keysets_pickle_and_copy(torch: Any, expr: str) -> None:
    for T in (D, torch):
        ks = eval(expr, {"C": T._C, "T": T})  # noqa: S307 - test table
        for again in (pickle.loads(pickle.dumps(ks)), copy.copy(ks), copy.deepcopy(ks)):
            assert type(again) is type(ks)
            assert again.raw_repr() == ks.raw_repr() and repr(again) == repr(ks)
    ours = eval(expr, {"C": D._C, "T": D})  # noqa: S307
    theirs = eval(expr, {"C": torch._C, "T": torch})  # noqa: S307
    assert pickle.loads(pickle.dumps(ours)).raw_repr() == theirs.raw_repr()


def test_keyset_stays_immutable_after_unpickling() -> None:
    ks = pickle.loads(pickle.dumps(D._C.DispatchKeySet("CPU")))
    with pytest.raises(AttributeError, match="immutable"):
        ks.repr = 0


def test_tls_guards_and_setters_take_key_names() -> None:
    C = D._C  # noqa: N806
    assert not C._dispatch_tls_is_dispatch_key_included("Python")
    with C._IncludeDispatchKeyGuard("Python"):
        assert C._dispatch_tls_is_dispatch_key_included("Python")
    assert not C._dispatch_tls_is_dispatch_key_included("Python")
    C._dispatch_tls_set_dispatch_key_excluded("AutogradCPU", True)
    try:
        assert C._dispatch_tls_is_dispatch_key_excluded(C.DispatchKey.AutogradCPU)
    finally:
        C._dispatch_tls_set_dispatch_key_excluded("AutogradCPU", False)
    assert not C._dispatch_tls_is_dispatch_key_excluded("AutogradCPU")
