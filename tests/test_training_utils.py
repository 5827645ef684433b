"""Training-script utilities against torch 2.13: Generator objects, grad-mode decorators (bare, called, on
generator functions), NumPy interop (``Tensor + ndarray``, ``np.sin(t)``, ``from_numpy`` / ``numpy()`` sharing
memory, their errors)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher as D


def _outcome(fn: Any) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # noqa: BLE001 - kinds and messages are compared
        return ("error", type(e).__name__, str(e))
    if hasattr(r, "dtype") and hasattr(r, "shape"):
        return (type(r).__name__, str(r.dtype), tuple(r.shape))
    if callable(r):
        return "<callable>"
    return str(r) if type(r).__name__ in ("dtype", "Size") else r


def _equal(a: Any, b: Any) -> bool:
    return bool((a == b).all().item())


# --- Generator ----------------------------------------------------------------------------------------------------


def test_generator_api_like_torch(torch: Any) -> None:
    for T in (D, torch):  # noqa: N806
        g = T.Generator()
        assert str(g.device) == "cpu" and g.initial_seed() == 67280421310721
        assert g.manual_seed(5) is g and g.initial_seed() == 5
        state = g.get_state()
        assert state.dtype == T.uint8 and state.dim() == 1
        a = T.empty(4).uniform_(generator=g)
        g.set_state(state)
        b = T.empty(4).uniform_(generator=g)
        assert _equal(a, b)
        assert isinstance(T.default_generator, T.Generator)
        s = g.seed()
        assert g.initial_seed() == s
    cases = [lambda T: T.Generator().set_state(T.zeros(3)),  # noqa: N803
             lambda T: T.Generator().set_state(T.zeros(3, dtype=T.uint8)),
             lambda T: T.Generator().set_state([1]),
             lambda T: T.Generator("meta"),
             lambda T: T.set_rng_state(T.zeros(3)),
             lambda T: T.Generator().manual_seed("a")]
    for case in cases:
        ours, theirs = _outcome(lambda c=case: c(D)), _outcome(lambda c=case: c(torch))
        assert ours[:2] == theirs[:2]
        if "size" not in theirs[2]:  # (our state has another size than mt19937's 5056 bytes)
            assert ours == theirs


def test_generator_drives_random_ops() -> None:
    g = D.Generator().manual_seed(3)
    first = [D.empty(5).normal_(generator=g), D.bernoulli(D.full((6,), 0.5), generator=g),
             D.empty(3).uniform_(-1, 1, generator=g)]
    g.manual_seed(3)
    again = [D.empty(5).normal_(generator=g), D.bernoulli(D.full((6,), 0.5), generator=g),
             D.empty(3).uniform_(-1, 1, generator=g)]
    for a, b in zip(first, again):
        assert _equal(a, b)
    D.manual_seed(0)
    state = D.get_rng_state()
    x = D.randn(4)
    D.set_rng_state(state)
    assert _equal(x, D.randn(4))
    before = D.default_generator.get_state()
    D.empty(3).normal_(generator=g)  # a private generator leaves the default one alone
    assert _equal(before, D.default_generator.get_state())


# --- grad-mode decorators -------------------------------------------------------------------------------------------


def _decorated(T: Any) -> list[Any]:  # noqa: N803
    x = T.ones(2, requires_grad=True)
    out = []

    @T.no_grad
    def bare_no_grad(t):
        return t * 2

    @T.no_grad()
    def called_no_grad(t):
        return t * 2

    @T.enable_grad
    def bare_enable(t):
        return t * 2

    @T.inference_mode
    def bare_inference(t):
        return T.is_grad_enabled()

    @T.set_grad_enabled(False)
    def set_false(t):
        return t * 2

    @T.no_grad()
    def steps(t):
        received = yield T.is_grad_enabled()
        yield (received, T.is_grad_enabled(), (t * 2).requires_grad)

    out.append(bare_no_grad(x).requires_grad)
    out.append(called_no_grad(x).requires_grad)
    with T.no_grad():
        out.append(bare_enable(x).requires_grad)
    out.append(bare_inference(x))
    out.append(set_false(x).requires_grad)
    out.append(T.is_grad_enabled())
    gen = steps(x)
    out.append(next(gen))
    out.append(T.is_grad_enabled())  # between the steps: the caller's mode
    out.append(gen.send("hello"))
    out.append(bare_no_grad.__name__)
    out.append(_outcome(lambda: T.no_grad()(type("Klass", (), {}))))
    return out


def test_grad_mode_decorators_like_torch(torch: Any) -> None:
    assert _decorated(D) == _decorated(torch)


# --- NumPy interop ------------------------------------------------------------------------------------------------

_EXPRESSIONS = [
    "x + np.ones(3)", "np.ones(3) + x", "x - np.ones(3)", "x * np.ones(3, np.float32)", "x / np.ones(3)",
    "x ** np.ones(3)", "x @ np.ones((3, 3))", "x == np.ones(3)", "x != np.ones(3)", "x < np.ones(3)",
    "x + np.array(2.0)", "x + np.float64(2.0)", "x.double() + np.float32(2.0)", "x.int() + np.int64(2)",
    "x.bool() & np.ones(3, bool)", "x + np.ones((2, 3))", "np.sin(x)", "np.add(x, x)", "np.greater(x, 0)",
    "xg + np.ones(3)", "x.__iadd__(np.ones(3))", "T.ones(2, device='meta').numpy()", "xg.numpy()",
    "T.from_numpy(np.ones((2, 3))[:, ::-1])", "T.from_numpy(np.array([1, None]))", "T.from_numpy([1, 2])",
    "T.from_numpy(np.ones(3, np.int8)).dtype", "T.from_numpy(np.array(3.0)).shape",
]


@pytest.mark.parametrize("expr", _EXPRESSIONS)
def test_numpy_operators_like_torch(torch: Any, expr: str) -> None:
    def run(T: Any) -> Any:  # noqa: N803
        x, xg = T.ones(3), T.ones(3, requires_grad=True)
        return _outcome(lambda: eval(expr, {"T": T, "np": np, "x": x, "xg": xg}))  # noqa: S307 - fixed strings

    ours, theirs = run(D), run(torch)
    if isinstance(theirs, tuple) and theirs[:1] == ("error",) and "Concatenation" in theirs[2]:
        assert ours[:2] == theirs[:2]  # (CPython's message for ndarray + Tensor depends on the type's slots)
    elif isinstance(theirs, tuple) and "The only supported types" in str(theirs[-1]):  # (no uint16/32/64 here)
        assert ours[:2] == theirs[:2] and ours[2].split(": float64")[0] == theirs[2].split(": float64")[0]
    else:
        assert ours == theirs


def test_from_numpy_and_numpy_share_memory() -> None:
    for a in (np.arange(6.0).reshape(2, 3), np.asfortranarray(np.arange(6.0).reshape(2, 3)),
              np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1)[1:], np.arange(10, dtype=np.float32)[::3]):
        t = D.from_numpy(a)
        a.flat[0] = 42
        assert t.reshape(-1)[0].item() == 42  # the array's write is seen by the tensor
        t.view(-1)[0] if t.is_contiguous() else None
        t.mul_(2)
        np.testing.assert_array_equal(a, t.numpy())  # the tensor's in-place op is seen by the array
        assert np.shares_memory(t.numpy(), a)
    t = D.zeros(3)
    n = t.numpy()
    n[1] = 5
    assert t[1].item() == 5 and np.shares_memory(np.asarray(t), n)


def test_from_numpy_read_only_warns_once(torch: Any) -> None:
    from dispatcher.api import from_data as creation

    creation._NOT_WRITABLE_WARNED.clear()
    a = np.ones(3)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        D.from_numpy(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        D.from_numpy(a)
