"""A different ``aten.matmul`` decomposition registered with ``py_impl(CompositeImplicitAutograd)`` under make_fx.

The same override is registered in torch 2.13 and here; for each make_fx configuration, with and
without the Python dispatcher entered by the user, the captured ``call_function`` targets must be
the same. In both libraries the override changes post-dispatch graphs (real and fake) only under
``EnablePythonDispatcher``; a pre-dispatch graph keeps ``matmul`` whole either way. Removing the
override restores the default graph (no stale dispatch cache).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from dispatcher import DispatchKey
from dispatcher.op_overload import namespace
from dispatcher.py_dispatch import remove_py_impl
from dispatcher.tls import EnablePythonDispatcher
from tests import corpus as C
from tracer import make_fx

aten = namespace("aten")
_DEFAULT = ["aten.view.default", "aten.mm.default", "aten._unsafe_view.default"]
_OVERRIDDEN = ["aten.unsqueeze.default", "aten.expand.default", "aten.bmm.default"]


def _matmul_via_bmm(lib: Any) -> Any:
    """3-d @ 2-d as a batched matmul against the broadcast matrix (the only case the tests use)."""
    def decomposition(a: Any, b: Any) -> Any:
        if a.dim() != 3 or b.dim() != 2:
            raise NotImplementedError("this demo decomposition handles 3-d @ 2-d only")
        return lib.bmm(a, b.unsqueeze(0).expand(a.shape[0], *b.shape))
    return decomposition


@contextlib.contextmanager
def _torch_override(torch: Any) -> Iterator[None]:
    """torch registers its own Python matmul decomposition on CIA: set it aside for the override, then put it back."""
    op, key = torch.ops.aten.matmul.default, torch._C.DispatchKey.CompositeImplicitAutograd
    saved = op.py_kernels.pop(key, None)
    op._dispatch_cache.clear()
    op.py_impl(key)(_matmul_via_bmm(torch))
    try:
        yield
    finally:
        del op.py_kernels[key]
        if saved is not None:
            op.py_kernels[key] = saved
        op._dispatch_cache.clear()


@contextlib.contextmanager
def _our_override() -> Iterator[None]:
    aten.matmul.default.py_impl(DispatchKey.CompositeImplicitAutograd)(_matmul_via_bmm(D))
    try:
        yield
    finally:
        remove_py_impl(aten.matmul.default, DispatchKey.CompositeImplicitAutograd)


def _f(a: Any, b: Any) -> Any:
    return a @ b


_CONFIGS = {"post": {}, "fake": {"tracing_mode": "fake"}, "pre": {"pre_dispatch": True}}


@pytest.mark.parametrize("python_dispatcher", [False, True])
@pytest.mark.parametrize("config", sorted(_CONFIGS))
def test_override_changes_the_graph_where_torch_does(torch: Any, config: str, python_dispatcher: bool) -> None:
    from torch._dispatch.python import enable_python_dispatcher
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    arrays = C.arrays([(2, 3, 4), (4, 5)], 0)
    kw = _CONFIGS[config]
    with _torch_override(torch), (enable_python_dispatcher() if python_dispatcher else contextlib.nullcontext()):
        theirs = C.targets(torch_make_fx(_f, **kw)(*C.inputs(torch, arrays, ())))
    with _our_override(), (EnablePythonDispatcher() if python_dispatcher else contextlib.nullcontext()):
        gm = make_fx(_f, **kw)(*C.inputs(D, arrays, ()))
    assert C.targets(gm) == theirs
    expected = {("post", True): _OVERRIDDEN, ("fake", True): _OVERRIDDEN}.get((config, python_dispatcher),
                                                                             ["aten.matmul.default"] if config == "pre"
                                                                             else _DEFAULT)
    assert theirs == expected
    gm.graph.lint()
    fresh = C.inputs(D, C.arrays([(2, 3, 4), (4, 5)], 1), ())
    np.testing.assert_allclose(gm(*fresh).numpy(), (fresh[0] @ fresh[1]).numpy(), rtol=1e-5, atol=1e-6)


def test_override_with_requires_grad_gives_the_overridden_joint_graph(torch: Any) -> None:
    from torch._dispatch.python import enable_python_dispatcher
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    def g(a: Any, b: Any) -> Any:
        return (a @ b).sum()

    arrays = C.arrays([(2, 3, 4), (4, 5)], 0)
    with _torch_override(torch), enable_python_dispatcher():
        theirs = C.targets(torch_make_fx(g)(*C.inputs(torch, arrays, (0,))))
    with _our_override(), EnablePythonDispatcher():
        ours = C.targets(make_fx(g)(*C.inputs(D, arrays, (0,))))
    assert ours == theirs and ours[:3] == _OVERRIDDEN


def test_removing_the_override_restores_the_default_graph() -> None:
    arrays = C.arrays([(2, 3, 4), (4, 5)], 0)
    with EnablePythonDispatcher():
        with _our_override():
            assert C.targets(make_fx(_f)(*C.inputs(D, arrays, ()))) == _OVERRIDDEN
        # the dispatch cache filled while the override was in place must not survive its removal
        assert C.targets(make_fx(_f)(*C.inputs(D, arrays, ()))) == _DEFAULT
    assert DispatchKey.CompositeImplicitAutograd not in aten.matmul.default.py_kernels
    with pytest.raises(KeyError, match="no python impl for CompositeImplicitAutograd on operator aten::matmul"):
        remove_py_impl(aten.matmul.default, DispatchKey.CompositeImplicitAutograd)
