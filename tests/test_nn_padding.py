"""Padding against the torch oracle: ``F.pad`` in modes reflect / replicate / circular / constant and the padding
layers (``ZeroPad*``, ``ConstantPad*``, ``ReflectionPad*``, ``ReplicationPad*``, ``CircularPad*``).

Each layer is built by both libraries (tests/nn_oracle.py): repr, values, input gradients, make_fx graphs in the four
configurations (pre-dispatch records ``pad``; post-dispatch the ``reflection_pad*d`` / ``replication_pad*d`` op or
``_pad_circular``'s ``new_empty`` / ``slice`` / ``copy_``; core-aten lowers them to ``index`` gathers) and replay.
Errors are compared by class and first message line; double backward through the backward ops as well.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import check_eager, check_module, randn

# (layer, constructor args, input shape); negative padding crops
LAYER_CASES = [
    ("ZeroPad1d", ((1, 2),), (2, 3, 5)),
    ("ZeroPad2d", (1,), (2, 3, 4, 5)),
    ("ZeroPad3d", ((1, 0, 2, 1, 0, 1),), (1, 2, 3, 4, 3)),
    ("ConstantPad1d", (2, 3.5), (3, 5)),
    ("ConstantPad2d", ((1, -1, 2, 0), -1.0), (2, 3, 4, 5)),
    ("ConstantPad3d", (1, 0.5), (2, 2, 3, 4)),
    ("ReflectionPad1d", ((3, 1),), (2, 3, 5)),
    ("ReflectionPad2d", ((1, 2, 3, 0),), (2, 3, 4, 5)),
    ("ReflectionPad2d", ((-1, 2, 1, 1),), (3, 4, 5)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 4, 3)),
    ("ReplicationPad1d", ((4, 1),), (2, 3, 3)),
    ("ReplicationPad2d", ((2, 0, 1, 3),), (2, 3, 4, 5)),
    ("ReplicationPad3d", ((1, 2, 0, 1, 2, 0),), (2, 3, 4, 3)),
    ("CircularPad1d", ((2, 1),), (2, 3, 5)),
    ("CircularPad2d", ((1, -2, 0, 2),), (2, 3, 4, 5)),
    ("CircularPad3d", (1,), (1, 2, 3, 4, 3)),
]
LAYER_IDS = [f"{name}-{i}" for i, (name, *_rest) in enumerate(LAYER_CASES)]


def _case(case: tuple) -> tuple[Any, Any]:
    name, args, shape = case
    return (lambda L: getattr(L.nn, name)(*args)), (lambda L, seed: [randn(L, seed, *shape)])


@pytest.mark.parametrize("case", LAYER_CASES, ids=LAYER_IDS)
def test_padding_layer_eager(torch: Any, case: tuple) -> None:
    check_eager(torch, *_case(case))


@pytest.mark.parametrize("index", [1, 7, 9, 10, 12, 13, 14])
def test_padding_layer_graphs(torch: Any, index: int) -> None:
    check_module(torch, *_case(LAYER_CASES[index]))


@pytest.mark.parametrize("mode,pad,shape", [
    ("reflect", (2, 1), (2, 3, 5)), ("reflect", (1, 1, 2, 0, 0, 1), (2, 2, 3, 4, 3)),
    ("replicate", (0, 3, 1, 1), (3, 4, 5)), ("circular", (1, 2, 2, 1), (1, 2, 4, 5)),
    ("constant", (1, 1, 1, 1, 1, 1), (2, 3, 4)),
])
def test_functional_pad_double_backward(torch: Any, mode: str, pad: tuple, shape: tuple) -> None:
    """The gradient of the gradient (``*_pad*d_backward``'s derivative: the forward op on the incoming gradient)."""
    results = []
    for L in (torch, D):
        x = randn(L, 0, *shape).requires_grad_(True)
        y = L.nn.functional.pad(x, pad, mode=mode)
        w = randn(L, 1, *y.shape)
        (g,) = L.autograd.grad((y * y * w).sum(), x, create_graph=True)
        (gg,) = L.autograd.grad((g * g).sum(), x)
        results.append([C.to_np(g), C.to_np(gg)])
    for a, b in zip(*results):
        C.assert_close(a, b)


def test_backward_nodes_are_torch_s(torch: Any) -> None:
    for L in (torch, D):
        x = randn(L, 0, 2, 3, 5).requires_grad_(True)
        y = L.nn.functional.pad(x, (1, 1), mode="reflect")
        assert y.grad_fn.name() == "ReflectionPad1DBackward0"
        (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
        assert g.grad_fn.name() == "ReflectionPad1DBackwardBackward0"
        assert L.nn.functional.pad(x, (1, 1), mode="replicate").grad_fn.name() == "ReplicationPad1DBackward0"


def _same_error(torch: Any, build: Any) -> None:
    errors = []
    for L in (torch, D):
        with pytest.raises(Exception) as info:  # noqa: PT011 - the class is compared below
            build(L)
        errors.append(info.value)
    theirs, mine = errors
    assert isinstance(mine, type(theirs)), (theirs, mine)
    assert str(mine).splitlines()[0] == str(theirs).splitlines()[0]


@pytest.mark.parametrize("build", [
    lambda L: L.nn.functional.pad(L.zeros(2, 3, 5), (5, 1), mode="reflect"),
    lambda L: L.nn.functional.pad(L.zeros(2, 3, 4, 5), (1, 1, 4, 1), mode="reflect"),
    lambda L: L.nn.functional.pad(L.zeros(2, 3, 5), (1, 1), mode="foo"),
    lambda L: L.nn.functional.pad(L.zeros(2, 3, 5), (1, 1), mode="reflect", value=2.0),
    lambda L: L.nn.functional.pad(L.zeros(3, 4, 5), (1,) * 6, mode="replicate"),
    lambda L: L.nn.functional.pad(L.zeros(5), (1, 1), mode="circular"),
    lambda L: L.nn.functional.pad(L.zeros(2, 3, 5), (6, 1), mode="circular"),
    lambda L: L.nn.functional.pad(L.zeros(2, 3, 5), (1, 1, 1), mode="reflect"),
    lambda L: L.nn.functional.pad(L.zeros(2, 3, 5), (-3, -3), mode="replicate"),
    lambda L: L.nn.CircularPad2d(1)(L.zeros(2, 3, 4, 5, 6)),
    lambda L: L.nn.ReflectionPad2d(1)(L.zeros(4, 5)),
    lambda L: L.ops.aten.reflection_pad1d(L.zeros(2, 3, 5, dtype=L.bool), [1, 1]),
], ids=["reflect-too-wide", "reflect2d-too-high", "unknown-mode", "value-with-mode", "replicate-rank", "circular-1d",
        "circular-wraps-twice", "odd-length", "crop-to-nothing", "circular-layer-rank", "reflect-layer-rank", "bool"])
def test_errors_match_torch(torch: Any, build: Any) -> None:
    _same_error(torch, build)


def test_padding_layer_reprs(torch: Any) -> None:
    for name, args in [("ZeroPad2d", ((1, 2, 3, 4),)), ("ConstantPad1d", (2, 3.5)), ("CircularPad3d", (1,)),
                       ("ReplicationPad1d", (3,))]:
        assert repr(getattr(D.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


def test_reflect_matches_numpy() -> None:
    """Without the oracle too: reflect / replicate / wrap are NumPy's reflect / edge / wrap."""
    a = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    for mode, np_mode in (("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")):
        got = D.nn.functional.pad(D.tensor(a), (2, 3), mode=mode).numpy()
        np.testing.assert_array_equal(got, np.pad(a, [(0, 0), (0, 0), (2, 3)], mode=np_mode))
