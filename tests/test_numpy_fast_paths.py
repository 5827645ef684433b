"""The lean warm path of the numpy backend (issue 8): output wrappers with the shape bound, and the hot
function's thread-local check.

``Tensor._contiguous_wrapper`` must build the same tensor as ``Tensor._wrap_contiguous``; the generated code's
outputs must keep eager's shapes and strides (contiguous ones through the bound wrapper, views through the
general wrap) and be independent tensors; the hot function reads the thread-local state through the thread's
dict, which must work (and see that thread's state) on a thread that never touched it before.
"""

from __future__ import annotations

import threading

import numpy as np

import dispatcher as D
import tracer
from dispatcher.tensor import Tensor
from tracer.backends.numpy_backend import numpy_backend
from tracer.compile_markers import _tls

FIELDS = ("_key_set", "_shape", "_stride", "_flat", "_storage_offset", "_dtype", "_device", "_contiguous")


def test_contiguous_wrapper_builds_what_wrap_contiguous_builds():
    arr = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    wrap = Tensor._contiguous_wrapper((2, 3, 4), D.float32)
    a, b = wrap(arr), Tensor._wrap_contiguous(arr, D.float32)
    for f in FIELDS:
        assert getattr(a, f) == getattr(b, f), f
    assert a._data is arr  # no copy
    assert a._version_counter.version == 0
    c = wrap(arr.copy())
    assert c._version_counter is not a._version_counter  # each tensor gets its own counter
    c.add_(1)
    assert c._version_counter.version == 1 and a._version_counter.version == 0
    np.testing.assert_array_equal(a.numpy(), arr)
    assert a.stride() == (12, 4, 1) and tuple(a.shape) == (2, 3, 4) and a.is_contiguous()


def test_generated_outputs_keep_eager_layout_and_are_independent():
    def f(x, w):
        y = x @ w.t()
        return y.relu(), y.sum(-1), y.t(), (x * 2).sum()

    x, w = D.randn(4, 3), D.randn(5, 3)
    fn = numpy_backend(f, [x, w])
    assert "_wrap_out" in fn.code  # contiguous outputs use the wrappers bound at generation time
    got, want = fn(x, w), f(x, w)
    for g, e in zip(got, want, strict=True):
        assert type(g) is Tensor
        assert tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-5)
    assert got[0].stride() == (5, 1) and got[1].stride() == (1,)
    assert got[2].stride() == (1, 5)  # a transposed view: the general wrap keeps NumPy's strides
    again = fn(x, w)
    assert again[0]._data is not got[0]._data and again[0]._version_counter is not got[0]._version_counter
    again[0].add_(1)
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-5, atol=1e-5)


def test_hot_path_on_a_fresh_thread_hits_and_matches():
    def f(x, w):
        return (x @ w.t()).relu().sum(-1)

    x, w = D.randn(8, 4), D.randn(6, 4)
    cf = tracer.compile(f, backend="numpy")
    cf(x, w)
    cf(x, w)
    assert cf._hot is not None
    results, errors = [], []

    def run() -> None:
        try:
            assert "session" not in _tls.__dict__ or _tls.__dict__["session"] is None
            results.append(cf(x, w))
        except Exception as e:  # reported below, not swallowed
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert not errors, errors
    np.testing.assert_allclose(results[0].numpy(), f(x, w).numpy(), rtol=1e-5, atol=1e-5)


def test_hot_path_misses_inside_disable_and_grad_mode_changes():
    def f(x):
        return x * 2 + 1

    x = D.randn(3)
    cf = tracer.compile(f, backend="numpy")
    cf(x)
    cf(x)
    hot = cf._hot
    assert hot is not None and hot((x,)) is not tracer.compile_hot.MISS
    with tracer.disable():  # a disable()d region outside any capture: compiled functions run eagerly
        assert hot((x,)) is tracer.compile_hot.MISS
    assert hot((x,)) is not tracer.compile_hot.MISS
    with D.no_grad():
        assert hot((x,)) is tracer.compile_hot.MISS
    assert hot((x,)) is not tracer.compile_hot.MISS
