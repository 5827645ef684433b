"""The warm-call path of ``tracer.compile`` (tracer/compile_hot.py): fast, and never wrong.

Every test calls a compiled function warm (so the generated hot function is installed), then changes one thing
the guard must see (shape, dtype, strides, storage offset, requires_grad, grad mode, constants, aliasing,
subclass, keyword arguments, disable / capture contexts) and checks the result against eager and the path taken
(stats, which function the hot path calls).
"""

from __future__ import annotations

import numpy as np
import pytest

import dispatcher as D
import tracer
from tracer.backends.numpy_backend import numpy_backend
from tracer.compile_hot import MISS

BACKENDS = ["eager", "numpy"]


def _np(t):
    return np.asarray(t.detach()._data if hasattr(t, "_data") else t)


def _same(a, b, tol=1e-5):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _mlp(x, w, b):
    return (x @ w.t() + b).relu().sum(-1)


def _warm(f, backend, *args):
    cf = tracer.compile(f, backend=backend)
    cf(*args)
    cf(*args)
    assert cf._hot is not None, "a flat positional call must install a hot function"
    return cf


def _args(seed=0, n=8, dtype=None):
    D.manual_seed(seed)
    x, w, b = D.randn(n, 4), D.randn(3, 4), D.randn(3)
    if dtype is not None:
        x, w, b = x.to(dtype), w.to(dtype), b.to(dtype)
    return x, w, b


@pytest.mark.parametrize("backend", BACKENDS)
def test_warm_calls_hit_and_match_eager(backend):
    tracer.reset()
    args = _args()
    cf = _warm(_mlp, backend, *args)
    before = cf.stats()
    for seed in range(3):
        new = _args(seed)  # new tensors, same metadata: the hot path answers
        _same(cf(*new), _mlp(*new))
    after = cf.stats()
    assert after["whole_call_hits"] == before["whole_call_hits"] + 3
    assert after["hits"] == before["hits"] + 3
    assert after["misses"] == before["misses"]
    g = tracer.compile_stats()
    assert g["whole_call_hits"] >= 3 and g["hits"] >= g["whole_call_hits"]
    tracer.reset()
    assert tracer.compile_stats()["whole_call_hits"] == 0 and cf._hot is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_shape_and_dtype_changes_recompile(backend):
    cf = _warm(_mlp, backend, *_args())
    misses = cf.stats()["misses"]
    small = _args(1, n=5)
    _same(cf(*small), _mlp(*small))
    assert cf.stats()["misses"] == misses + 1  # another shape: captured and compiled again
    f64 = _args(2, dtype=D.float64)
    out = cf(*f64)
    assert out.dtype == D.float64
    _same(out, _mlp(*f64))
    assert cf.stats()["misses"] == misses + 2
    again = _args(3)  # back to the first signature: a whole-call hit through the generic path, then hot again
    hits = cf.stats()["whole_call_hits"]
    _same(cf(*again), _mlp(*again))
    _same(cf(*again), _mlp(*again))
    assert cf.stats()["whole_call_hits"] == hits + 2
    assert cf.stats()["misses"] == misses + 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_strides_are_guarded_storage_offsets_are_not(backend):
    def f(x, y):
        return x * 2 + y

    cf = _warm(f, backend, D.randn(3, 4), D.randn(3, 4))
    big = D.randn(13)
    off = big[1:].view(3, 4)  # same shape and strides, storage offset 1: the same entry (as Dynamo's guards)
    y = D.randn(3, 4)
    misses = cf.stats()["misses"]
    assert cf._hot((off, y)) is not MISS
    _same(cf(off, y), f(off, y))
    assert cf.stats()["misses"] == misses
    base = D.randn(4, 3)
    xt = base.t()  # other strides
    assert cf._hot((xt, y)) is MISS
    _same(cf(xt, y), f(xt, y))
    assert cf.stats()["misses"] == misses + 1
    _same(cf(off, y), f(off, y))
    assert cf._hot((xt, y)) is MISS  # the hot entry is the row-major one again: other strides miss it
    x = D.randn(3, 4)
    _same(cf(x, y), f(x, y))
    if backend == "eager":  # eager keeps the input's layout: a graph compiled for other strides would not
        assert cf(xt, y).stride() == f(xt, y).stride() == (1, 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_requires_grad_and_grad_mode(backend):
    cf = _warm(_mlp, backend, *_args())
    x, w, b = _args(4)
    w.requires_grad_()
    out = cf(x, w, b)
    assert out.grad_fn is not None, "an input that requires grad must give a result with autograd history"
    out.sum().backward()
    w2 = w.detach().clone().requires_grad_()
    _mlp(x, w2, b).sum().backward()
    _same(w.grad, w2.grad)
    with D.no_grad():
        out = cf(x, w, b)
    assert out.grad_fn is None and not out.requires_grad
    _same(out, _mlp(x, w.detach(), b))
    x2, w3, b2 = _args(5)
    out = cf(x2, w3, b2)  # nothing requires grad: the fast path again, no history
    assert out.grad_fn is None
    _same(out, _mlp(x2, w3, b2))
    view = D.randn(3, 4, requires_grad=True) * 1  # a non-leaf requiring grad
    out = cf(x2, view, b2)
    assert out.grad_fn is not None


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_that_reads_grad_mode_is_guarded(backend):
    def f(x):
        return x * 2 if D.is_grad_enabled() else x * 3

    x = D.randn(4)
    cf = _warm(f, backend, x)
    with D.no_grad():
        _same(cf(x), x * 3)
        _same(cf(x), x * 3)
    _same(cf(x), x * 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_that_starts_in_no_grad_restores_grad_mode(backend):
    def f(x):
        with D.no_grad():
            return x * 3

    x = D.randn(4, requires_grad=True)
    cf = _warm(f, backend, x)
    for _ in range(2):
        out = cf(x)
        assert out.grad_fn is None
        assert D.is_grad_enabled()
        _same(out, x.detach() * 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_constants_are_guarded_by_type_and_value(backend):
    def f(x, k):
        return x * k

    x = D.randn(4)
    cf = _warm(f, backend, x, 2.0)
    _same(cf(x, 3.0), x * 3.0)
    _same(cf(x, 2.0), x * 2.0)
    out = cf(x, 2)  # an int: another signature (PyTorch specializes on the type too)
    _same(out, x * 2)
    out = cf(x, True)
    _same(out, x * True)
    _same(cf(x, 2.0), x * 2.0)
    i = D.arange(4)
    ci = _warm(f, backend, i, 2.0)
    assert ci(i, 2.0).dtype == D.float32
    assert ci(i, 2).dtype == D.int64  # an int constant keeps the integer dtype: the guard must see the type
    assert ci(i, 2.0).dtype == D.float32


@pytest.mark.parametrize("backend", BACKENDS)
def test_aliased_arguments_are_guarded(backend):
    def f(a, b):
        a.add_(1)
        return a * b

    def run(make):
        ex, cp = make(), make()
        return f(*ex), cf(*cp), ex, cp

    cf = tracer.compile(f, backend=backend)
    for _ in range(3):
        a, b = D.randn(4), D.randn(4)
        ea, eb = a.clone(), b.clone()
        _same(cf(a, b), f(ea, eb))
        _same(a, ea)
    x = D.randn(4)
    ex = x.clone()
    _same(cf(x, x), f(ex, ex))  # the same tensor twice
    _same(x, ex)
    base = D.randn(4)
    view = base.view(4)  # another object over the same storage
    ebase = base.clone()
    _same(cf(base, view), f(ebase, ebase.view(4)))
    _same(base, ebase)
    a, b = D.randn(4), D.randn(4)
    ea, eb = a.clone(), b.clone()
    _same(cf(a, b), f(ea, eb))


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_that_tests_aliasing_is_guarded(backend):
    def f(a, b):
        if a is b or a.data_ptr() == b.data_ptr():
            return a * 3
        return a + b

    x, y = D.randn(4), D.randn(4)
    cf = _warm(f, backend, x, y)
    _same(cf(x, x), x * 3)
    base = D.randn(4)
    _same(cf(base, base.view(4)), base * 3)
    _same(cf(x, y), x + y)


@pytest.mark.parametrize("backend", ["aot_eager", "numpy"])
def test_aliasing_changes_what_a_mutating_graph_computes(backend):
    def f(a, b):
        a.add_(1)
        return b * 2  # reads b after a's update: with a and b aliased, it sees the update

    cf = _warm(f, backend, D.randn(4), D.randn(4))
    base = D.randn(4)
    view = base.view(4)
    e = base.clone()
    _same(cf(base, view), f(e, e.view(4)))
    x = D.randn(4)
    e = x.clone()
    _same(cf(x, x), f(e, e))


@pytest.mark.parametrize("backend", BACKENDS)
def test_subclass_kwargs_and_nested_arguments_take_the_generic_path(backend):
    class MyTensor(D.Tensor):
        pass

    def f(x, y=None):
        return x + 1 if y is None else x + y

    x = D.randn(4)
    cf = _warm(f, backend, x)
    s = x.as_subclass(MyTensor)
    assert cf._hot((s,)) is MISS  # a subclass may override anything: never the Tensor entry
    _same(cf(s), x + 1)
    if backend == "eager":
        assert type(cf(s)) is MyTensor  # as eager: the subclass's own graph, not the Tensor one
    y = D.randn(4)
    _same(cf(x, y=y), x + y)
    _same(cf(x, y), x + y)

    def g(pair):
        return pair[0] * pair[1]

    cg = tracer.compile(g, backend=backend)
    for _ in range(3):
        _same(cg((x, y)), x * y)
    assert cg._hot is None  # a nested argument: no hot function, the generic whole-call path
    assert cg.stats()["whole_call_hits"] >= 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_disable_and_capture_contexts_bypass_the_hot_path(backend):
    cf = _warm(_mlp, backend, *_args())
    args = _args(6)
    hits = cf.stats()["hits"]
    with tracer.disable():
        _same(cf(*args), _mlp(*args))
    assert cf.stats()["hits"] == hits  # ran eagerly, no cache involved

    def outer(x, w, b):
        return cf(x, w, b) * 2  # a compiled function called while capturing is inlined

    co = tracer.compile(outer, backend=backend)
    for _ in range(3):
        _same(co(*args), _mlp(*args) * 2)
    assert cf.stats()["hits"] == hits


@pytest.mark.parametrize("backend", BACKENDS)
def test_result_structures(backend):
    def f(x, y):
        return {"s": x + y, "pair": (x * 2, [y - 1, 3])}

    x, y = D.randn(3), D.randn(3)
    cf = _warm(f, backend, x, y)
    out = cf(x, y)
    assert set(out) == {"s", "pair"} and out["pair"][1][1] == 3 and isinstance(out["pair"][1], list)
    _same(out["s"], x + y)
    _same(out["pair"][0], x * 2)
    _same(out["pair"][1][0], y - 1)

    def g(x):
        return x.sin(), x.cos()

    cg = _warm(g, backend, x)
    a, b = cg(x)
    _same(a, x.sin())
    _same(b, x.cos())


def test_custom_backend_returning_one_tensor():
    calls = []

    def backend(gm, example_inputs):
        def run(*args):
            calls.append(1)
            out = gm(*args)
            return out[0] if isinstance(out, (tuple, list)) else out

        return run

    def f(x):
        return x.exp()

    x = D.randn(5)
    cf = _warm(f, backend, x)
    n = len(calls)
    _same(cf(x), x.exp())
    assert len(calls) == n + 1


def test_numpy_hot_path_calls_the_unchecked_code_only_when_proven():
    cf = _warm(_mlp, "numpy", *_args())
    fn = cf._hot.__globals__["_fn"]
    assert fn.__name__.endswith("_unchecked")
    x, w, b = _args(7)
    w.requires_grad_()
    cf(x, w, b)
    cf(x, w, b)  # the requires-grad signature is hot now: it must call the checked function (eager for autograd)
    assert not cf._hot.__globals__["_fn"].__name__.endswith("_unchecked")
    assert cf(x, w, b).grad_fn is not None


def test_numpy_backend_unchecked_matches_checked():
    x, w, b = _args(8)
    fn = numpy_backend(_mlp, [x, w, b])
    assert fn.unchecked is not None
    assert fn.unchecked_metas == [((8, 4), (4, 1), D.float32), ((3, 4), (4, 1), D.float32), ((3,), (1,), D.float32)]
    _same(fn.unchecked(x, w, b), fn(x, w, b))
    _same(fn(x, w, b), _mlp(x, w, b))
    assert "_unchecked" not in fn.code  # the printed code is the checked function


def test_metadata_changed_in_place_between_calls():
    def f(x):
        return x * 2

    x = D.randn(2, 3)
    cf = _warm(f, "numpy", x)
    x.requires_grad_()  # the same object, now requiring grad
    out = cf(x)
    assert out.grad_fn is not None
    _same(out, x.detach() * 2)
    x.requires_grad_(False)
    assert cf(x).grad_fn is None


def test_global_stats_add_up_hot_hits_across_functions_resets_and_collection():
    import gc

    tracer.reset()
    args = _args()
    cf = _warm(_mlp, "numpy", *args)
    cg = _warm(lambda x, w, b: (x @ w.t() - b).sum(-1), "eager", *args)
    for _ in range(3):
        cf(*args)
    cg(*args)
    g = tracer.compile_stats()
    assert g["whole_call_hits"] == cf.stats()["whole_call_hits"] + cg.stats()["whole_call_hits"] == 6
    tracer.reset()  # zeroes the global figures; each function keeps its own
    assert tracer.compile_stats()["whole_call_hits"] == 0 and cf.stats()["whole_call_hits"] == 4
    cf = _warm(_mlp, "numpy", *args)  # the old function is collected: its hits since the reset stay counted
    cf(*args)
    del cg
    gc.collect()
    assert tracer.compile_stats()["whole_call_hits"] == 2  # the new one's second warm-up call and the call after


def test_capture_state_is_restored_when_the_compiled_function_raises():
    from dispatcher.tls import per_thread

    def f(x):
        if x.sum() > 1e9:  # data-dependent: a graph break, then the raise below runs eagerly
            return x
        raise ValueError("user error")

    cf = tracer.compile(f)
    with pytest.raises(ValueError, match="user error"):
        cf(D.randn(3))
    assert per_thread.s.capture_depth == 0
    with pytest.raises(ValueError), tracer.disable():
        raise ValueError
    assert per_thread.s.capture_depth == 0
    warm = _warm(_mlp, "numpy", *_args())
    assert warm._hot(_args(1)) is not MISS  # nothing left running: the hot path answers
