"""Autograd of the ``_foreach_*`` ops against torch 2.13: the one generated ``Foreach...Backward`` node of an
out-of-place call (type, ``name()``, edges, output numbers), the per-tensor nodes of an in-place call (node names, the
ops a dispatch mode sees, gradients), the in-place leaf error and the version counters.

Counterpart: torch's generated foreach autograd (tools/autograd/load_derivatives.py, gen_variable_type.py).
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher.modes.dispatch_mode import TorchDispatchMode as OurMode

# (name, call(lib, xs, ys, zs)) with xs, ys, zs lists of two tensors requiring grad
OUT_OF_PLACE = [
    ("neg", lambda L, x, y, z: L._foreach_neg(x)),
    ("sqrt", lambda L, x, y, z: L._foreach_sqrt(x)),
    ("add_scalar", lambda L, x, y, z: L._foreach_add(x, 1.5)),
    ("add_list", lambda L, x, y, z: L._foreach_add(x, y, alpha=2)),
    ("mul_list", lambda L, x, y, z: L._foreach_mul(x, y)),
    ("mul_scalarlist", lambda L, x, y, z: L._foreach_mul(x, [2.0, 3.0])),
    ("div_list", lambda L, x, y, z: L._foreach_div(x, y)),
    ("lerp", lambda L, x, y, z: L._foreach_lerp(x, y, 0.3)),
    ("addcdiv", lambda L, x, y, z: L._foreach_addcdiv(x, y, z, value=2)),
    ("addcmul", lambda L, x, y, z: L._foreach_addcmul(x, y, z, value=2)),
    ("maximum", lambda L, x, y, z: L._foreach_maximum(x, y)),
    ("norm", lambda L, x, y, z: L._foreach_norm(x)),
]

IN_PLACE = [
    ("neg_", lambda L, x, y: L._foreach_neg_(x)),
    ("sqrt_", lambda L, x, y: L._foreach_sqrt_(x)),
    ("mul_list_", lambda L, x, y: L._foreach_mul_(x, y)),
    ("mul_scalar_", lambda L, x, y: L._foreach_mul_(x, 2.0)),
    ("div_list_", lambda L, x, y: L._foreach_div_(x, y)),
    ("maximum_", lambda L, x, y: L._foreach_maximum_(x, y)),
    ("clamp_min_", lambda L, x, y: L._foreach_clamp_min_(x, 1.2)),
    ("clamp_max_", lambda L, x, y: L._foreach_clamp_max_(x, 1.2)),
    ("addcdiv_", lambda L, x, y: L._foreach_addcdiv_(x, y, y, 0.5)),
    ("lerp_", lambda L, x, y: L._foreach_lerp_(x, y, 0.3)),
]

_VALUES = [[[0.5, 1.5, 2.0], [0.25, 3.0]], [[1.25, -0.5, 2.5], [-2.0, 0.75]], [[0.8, 1.1, -1.3], [2.2, 0.6]]]


def _lists(L: Any, n: int) -> list[list[Any]]:
    return [[L.tensor(v, dtype=L.float64, requires_grad=True) for v in vs] for vs in _VALUES[:n]]


def _mode_class(L: Any) -> type:
    if L is dispatcher:
        return OurMode
    from torch.utils._python_dispatch import TorchDispatchMode

    return TorchDispatchMode


def _ops_seen(L: Any, fn: Any) -> list[str]:
    """The ops a dispatch mode sees while ``fn`` runs."""
    base = _mode_class(L)
    seen: list[str] = []

    class Log(base):  # type: ignore[misc, valid-type]
        def __torch_dispatch__(self, f: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            seen.append(str(f))
            return f(*args, **(kwargs or {}))

    with Log():
        fn()
    return seen


def _grads(L: Any, outs: list[Any], leaves: list[Any]) -> list[Any]:
    gs = L.autograd.grad(outs, leaves, [L.ones_like(o) * (k + 2) for k, o in enumerate(outs)], allow_unused=True)
    return [None if g is None else g.detach().numpy().tolist() for g in gs]


@pytest.mark.parametrize(("name", "call"), OUT_OF_PLACE, ids=[n for n, _ in OUT_OF_PLACE])
def test_out_of_place_node_like_torch(torch: Any, name: str, call: Any) -> None:
    seen = {}
    for L in (torch, dispatcher):
        x, y, z = _lists(L, 3)
        outs = call(L, x, y, z)
        node = outs[0].grad_fn
        leaves = x + y + z
        ids = [id(t) for t in leaves]
        edges = [ids.index(id(n.variable)) if n is not None else None for n, _ in node.next_functions]
        seen[L.__name__] = (type(node).__name__, node.name(), [o.grad_fn is node for o in outs],
                            [o.output_nr for o in outs], edges, _grads(L, outs, leaves))
    assert seen["dispatcher"][:5] == seen["torch"][:5]
    for gt, go in zip(seen["torch"][5], seen["dispatcher"][5]):
        assert (gt is None) == (go is None)
        if gt is not None:
            np.testing.assert_allclose(np.array(go), np.array(gt), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("name", "call"), IN_PLACE, ids=[n for n, _ in IN_PLACE])
def test_in_place_nodes_like_torch(torch: Any, name: str, call: Any) -> None:
    """On non-leaves: the per-tensor node of each written tensor, one ``_foreach_*`` call (plus the clones of self
    the formula reads) seen by a mode, torch's gradients; on leaves requiring grad: torch's error."""
    seen = {}
    for L in (torch, dispatcher):
        a, y = _lists(L, 2)
        x = [t * 1 for t in a]
        ops = _ops_seen(L, lambda: call(L, x, y))  # noqa: B023 - run at once
        seen[L.__name__] = ([(type(t.grad_fn).__name__, t.grad_fn.name()) for t in x], ops,
                            _grads(L, x, a + y))
        with pytest.raises(RuntimeError) as info:
            call(L, _lists(L, 1)[0], y)
        seen[L.__name__] += (str(info.value),)
    t, o = seen["torch"], seen["dispatcher"]
    assert o[0] == t[0] and o[1] == t[1] and o[3] == t[3]
    assert len(o[2]) == len(t[2])
    for gt, go in zip(t[2], o[2]):
        assert (gt is None) == (go is None)
        if gt is not None:
            np.testing.assert_allclose(np.array(go), np.array(gt), rtol=1e-12, atol=1e-12)


def test_tensor_overload_refuses_other_gradient(torch: Any) -> None:
    """``_foreach_mul.Tensor``: ``other`` has an edge but no gradient; asking for it fails as torch's does."""
    errors = []
    for L in (torch, dispatcher):
        x = _lists(L, 1)[0]
        s = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        outs = L._foreach_mul(x, s)
        assert len(outs[0].grad_fn.next_functions) == 3
        assert L.autograd.grad(outs, x, [L.ones_like(o) for o in outs])[0] is not None
        outs = L._foreach_mul(x, s)
        with pytest.raises(RuntimeError) as info:
            L.autograd.grad(outs, [s], [L.ones_like(o) for o in outs])
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("mode", [False, True])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_version_counter_like_torch(torch: Any, mode: bool, requires_grad: bool) -> None:
    """Each in-place foreach call bumps each written tensor once; under a dispatch mode torch bumps none."""
    versions = []
    for L in (torch, dispatcher):
        a = L.tensor([1.0, 2.0], requires_grad=requires_grad)
        x = [a * 1]
        class Passthrough(_mode_class(L)):  # type: ignore[misc, valid-type]
            def __torch_dispatch__(self, f: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                return f(*args, **(kwargs or {}))

        with Passthrough() if mode else contextlib.nullcontext():
            L._foreach_mul_(x, 2.0)
            L._foreach_add_(x, [L.ones(2)])
        versions.append(x[0]._version)
    assert versions[1] == versions[0]
