"""NN kernels (dispatcher/ops/nn_ops.py) against torch 2.13, forward and backward ops called directly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_oracle import FLOAT_DTYPES, D, compare, make_array

import dispatcher
from dispatcher.api.from_data import from_numpy
from dispatcher.ops import aten

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)
layouts = st.sampled_from(["contiguous", "transposed", "sliced"])


def _arr(data, shape, dtype="float32"):
    return make_array(np.random.default_rng(data.draw(st.integers(0, 2**16))), shape, dtype, data.draw(layouts))


def _tol(dtype):
    return {"float16": {"rtol": 5e-3, "atol": 5e-3}, "float32": {"rtol": 1e-5, "atol": 1e-6}}.get(dtype, {})


# --- softmax ------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.data(), shapes, st.sampled_from(FLOAT_DTYPES), st.sampled_from(["_softmax", "_log_softmax"]))
def test_softmax_forward(torch, data, shape, dtype, op):
    x = _arr(data, shape, dtype)
    ndim = max(len(shape), 1)
    dim = data.draw(st.integers(-ndim, ndim - 1))
    compare(torch, op, x, dim, False, **_tol(dtype))


@settings(max_examples=60, deadline=None)
@given(st.data(), nonempty_shapes, st.sampled_from(FLOAT_DTYPES), st.sampled_from(["softmax", "log_softmax"]))
def test_softmax_backward(torch, data, shape, dtype, which):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = torch.from_numpy(_arr(data, shape, dtype))
    fwd = torch.ops.aten._softmax if which == "softmax" else torch.ops.aten._log_softmax
    out = fwd(x, dim, False).numpy()
    grad = _arr(data, shape, dtype)
    compare(torch, f"_{which}_backward_data", grad, out, dim, D(dtype), **_tol(dtype))


def test_softmax_special_values(torch):
    compare(torch, "_softmax", np.full(3, -np.inf, np.float32), 0, False)
    compare(torch, "_log_softmax", np.full(3, -np.inf, np.float32), 0, False)
    compare(torch, "_softmax", np.array([1e30, 0.0, -1e30], np.float32), 0, False)
    compare(torch, "_log_softmax", np.array([1e4, 0.0], np.float32), 0, False)
    compare(torch, "_softmax", np.array(2.0, np.float32), 0, False)
    compare(torch, "_log_softmax", np.array(2.0, np.float32), -1, False)
    compare(torch, "_softmax_backward_data", np.array(2.0, np.float32), np.array(1.0, np.float32), 0, D("float32"))
    compare(torch, "_softmax", np.ones((2, 0), np.float32), 1, False)
    compare(torch, "_softmax", np.array([[1.0, 2.0]], np.float32), 0, False)


@pytest.mark.parametrize("name,args", [
    ("_softmax", (np.ones(0, np.bool_), 0, False)),
    ("_log_softmax", (np.ones((2, 0), np.int64), 0, False)),
    ("_softmax", (np.ones(0, np.float32), 0, True)),
    ("_softmax_backward_data", (np.ones(0, np.int64), np.ones(0, np.int64), 0, D("int64"))),
    ("_log_softmax_backward_data", (np.ones(0, np.float32), np.ones(0, np.float64), 0, D("float32"))),
    ("native_layer_norm", (np.ones((0, 3), np.int64), [3], None, None, 1e-5)),
    ("mse_loss", (np.ones(0, np.int64), np.ones(0, np.int64), 1)),
    ("nll_loss_forward", (np.ones((0, 3), np.int64), np.ones(0, np.int64), None, 1, -100)),
    ("_softmax", (np.array(1.0, np.float32), -1, False)),
    ("_softmax_backward_data", (np.array(1.0, np.float32), np.array(1.0, np.float32), -1, D("float32"))),
])
def test_empty_and_scalar_inputs(torch, name, args):
    """Empty softmax inputs return before PyTorch's dtype dispatch; the losses and layer norm do not."""
    compare(torch, name, *args)


F32 = np.ones((2, 3, 4), np.float32)
I64 = np.ones((2, 3), np.int64)

SOFTMAX_ERRORS = [
    ("_softmax", (F32, 1, True)),
    ("_softmax", (F32.astype(np.float16), 1, True)),
    ("_log_softmax", (F32.astype(np.float16), 1, True)),
    ("_softmax", (I64, 0, False)),
    ("_softmax", (I64, 1, False)),
    ("_log_softmax", (I64, -1, False)),
    ("_log_softmax", (I64, 0, False)),
    ("_softmax", (I64.astype(np.bool_), 0, False)),
    ("_softmax", (F32, 3, False)),
    ("_softmax_backward_data", (F32, F32, 1, D("float16"))),
    ("_softmax_backward_data", (F32.astype(np.float64), F32, 1, D("float32"))),
    ("_softmax_backward_data", (F32, F32.astype(np.float64), 1, D("float32"))),
    ("_softmax_backward_data", (F32[:1], F32, 1, D("float32"))),
    ("_softmax_backward_data", (F32, F32, 5, D("float32"))),
    ("_softmax_backward_data", (I64, I64, 1, D("int64"))),
    ("_log_softmax_backward_data", (I64, I64, 0, D("int64"))),
    ("_log_softmax_backward_data", (F32, F32, 1, D("float16"))),
]


@pytest.mark.parametrize("name,args", SOFTMAX_ERRORS, ids=[f"{c[0]}-{i}" for i, c in enumerate(SOFTMAX_ERRORS)])
def test_softmax_errors(torch, name, args):
    compare(torch, name, *args)


def test_softmax_backward_dtype_quirks(torch):
    """input_dtype double with float grads keeps float; half grads with input_dtype float stay half."""
    g = make_array(np.random.default_rng(0), (2, 3), "float32")
    compare(torch, "_softmax_backward_data", g, g, 1, D("float64"))
    compare(torch, "_softmax_backward_data", g.astype(np.float16), g.astype(np.float16), 1, D("float32"),
            rtol=5e-3, atol=5e-3)


# --- layer norm ---------------------------------------------------------------------------------------


@st.composite
def layer_norm_case(draw):
    shape = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple))
    k = draw(st.integers(1, len(shape)))
    return shape, list(shape[len(shape) - k:])


@settings(max_examples=60, deadline=None)
@given(st.data(), layer_norm_case(), st.sampled_from(FLOAT_DTYPES), st.booleans(), st.booleans(),
       st.sampled_from([1e-5, 1e-3]))
def test_native_layer_norm(torch, data, case, dtype, has_w, has_b, eps):
    shape, ns = case
    x = _arr(data, shape, dtype)
    w = _arr(data, tuple(ns), dtype) if has_w else None
    b = _arr(data, tuple(ns), dtype) if has_b else None
    tol = {"rtol": 1e-2, "atol": 1e-2} if dtype == "float16" else {"rtol": 1e-4, "atol": 1e-5}
    compare(torch, "native_layer_norm", x, ns, w, b, eps, **tol)


def test_native_layer_norm_mixed_half(torch):
    rng = np.random.default_rng(1)
    x = make_array(rng, (2, 3, 4), "float16")
    w, b = make_array(rng, (4,), "float32"), make_array(rng, (4,), "float32")
    compare(torch, "native_layer_norm", x, [4], w, b, 1e-5, rtol=1e-2, atol=1e-2)


def test_native_layer_norm_degenerate(torch):
    compare(torch, "native_layer_norm", np.ones((3, 0), np.float32), [0], None, None, 1e-5)
    compare(torch, "native_layer_norm", np.ones((0, 4), np.float32), [4], None, None, 1e-5)
    compare(torch, "native_layer_norm", np.full((3, 1), 5.0, np.float32), [1], None, None, 1e-5, rtol=1e-5)


@settings(max_examples=50, deadline=None)
@given(st.data(), layer_norm_case(), st.sampled_from(["float32", "float64"]), st.booleans(), st.booleans(),
       st.lists(st.booleans(), min_size=3, max_size=3))
def test_native_layer_norm_backward(torch, data, case, dtype, has_w, has_b, mask):
    shape, ns = case
    mask = [mask[0], mask[1] and has_w, mask[2] and has_b]
    x = _arr(data, shape, dtype)
    w = _arr(data, tuple(ns), dtype) if has_w else None
    b = _arr(data, tuple(ns), dtype) if has_b else None
    tw = None if w is None else torch.from_numpy(w)
    tb = None if b is None else torch.from_numpy(b)
    _, mean, rstd = torch.ops.aten.native_layer_norm(torch.from_numpy(x), ns, tw, tb, 1e-5)
    g = _arr(data, shape, dtype)
    compare(torch, "native_layer_norm_backward", g, x, ns, mean.numpy(), rstd.numpy(), w, b, mask,
            rtol=1e-4, atol=1e-4)


def test_native_layer_norm_backward_mixed_half(torch):
    rng = np.random.default_rng(2)
    x = make_array(rng, (2, 3, 4), "float16")
    w, b = make_array(rng, (4,), "float32"), make_array(rng, (4,), "float32")
    _, mean, rstd = torch.ops.aten.native_layer_norm(torch.from_numpy(x), [4], torch.from_numpy(w),
                                                     torch.from_numpy(b), 1e-5)
    g = make_array(rng, (2, 3, 4), "float16")
    compare(torch, "native_layer_norm_backward", g, x, [4], mean.numpy(), rstd.numpy(), w, b, [True, True, True],
            rtol=2e-2, atol=2e-2)


X = np.ones((2, 3, 4), np.float32)
W4 = np.ones(4, np.float32)
M, R = np.zeros((2, 3, 1), np.float32), np.ones((2, 3, 1), np.float32)

LAYER_NORM_ERRORS = [
    ("native_layer_norm", (X, [5], None, None, 1e-5)),
    ("native_layer_norm", (X, [2, 3, 4, 5], None, None, 1e-5)),
    ("native_layer_norm", (X, [], None, None, 1e-5)),
    ("native_layer_norm", (np.array(1.0, np.float32), [], None, None, 1e-5)),
    ("native_layer_norm", (X, [4], np.ones(5, np.float32), None, 1e-5)),
    ("native_layer_norm", (X, [4], None, np.ones((2, 2), np.float32), 1e-5)),
    ("native_layer_norm", (X.astype(np.int64), [4], None, None, 1e-5)),
    ("native_layer_norm", (X, [4], W4.astype(np.float16), None, 1e-5)),
    ("native_layer_norm", (X, [4], W4.astype(np.float64), None, 1e-5)),
    ("native_layer_norm", (X.astype(np.float64), [4], W4, None, 1e-5)),
    ("native_layer_norm", (X.astype(np.float16), [4], W4.astype(np.float64), None, 1e-5)),
    ("native_layer_norm", (X.astype(np.float16), [4], W4, W4.astype(np.float16), 1e-5)),
    ("native_layer_norm", (X.astype(np.int64), [4], W4, None, 1e-5)),
    ("native_layer_norm_backward", (X, X, [5], M, R, W4, W4, [True, True, True])),
    ("native_layer_norm_backward", (X.astype(np.float64), X, [4], M, R, W4, W4, [True, True, True])),
    ("native_layer_norm_backward", (X, X, [4], M, R, W4.astype(np.float64), None, [True, True, False])),
    ("native_layer_norm_backward", (X, X, [4], M, R, None, None, [True, True, True])),
]


@pytest.mark.parametrize("name,args", LAYER_NORM_ERRORS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYER_NORM_ERRORS)])
def test_layer_norm_errors(torch, name, args):
    compare(torch, name, *args)


# --- dropout ------------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.data(), shapes, st.sampled_from(FLOAT_DTYPES), st.sampled_from([0.0, 0.2, 0.5, 1.0]),
       st.sampled_from([True, None]))
def test_native_dropout_train(torch, data, shape, dtype, p, train):
    x = _arr(data, shape, dtype)
    out, mask = compare(torch, "native_dropout", x, p, train, values=False)
    if x.size == 0:
        return
    m = mask.numpy()
    assert m.dtype == np.bool_
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    cd = np.float32 if dtype == "float16" else dtype
    expected = ((x * m).astype(cd) * np.array(scale, cd)).astype(dtype)
    np.testing.assert_array_equal(out.numpy(), expected)
    if p == 0.0:
        assert m.all()
    if p == 1.0:
        assert not m.any()


@settings(max_examples=30, deadline=None)
@given(st.data(), shapes, st.sampled_from(FLOAT_DTYPES + ("int64", "bool")))
def test_native_dropout_eval(torch, data, shape, dtype):
    x = _arr(data, shape, dtype)
    compare(torch, "native_dropout", x, 0.5, False)


def test_native_dropout_statistics_and_seed():
    x = from_numpy(np.ones(20000, np.float32))
    dispatcher.manual_seed(0) if hasattr(dispatcher, "manual_seed") else None
    from dispatcher.random import manual_seed

    manual_seed(123)
    out1, mask1 = aten.native_dropout.default(x, 0.3, True)
    manual_seed(123)
    out2, mask2 = aten.native_dropout.default(x, 0.3, True)
    np.testing.assert_array_equal(mask1.numpy(), mask2.numpy())
    np.testing.assert_array_equal(out1.numpy(), out2.numpy())
    assert abs(mask1.numpy().mean() - 0.7) < 0.02
    assert abs(out1.numpy().mean() - 1.0) < 0.05


def test_native_dropout_empty_returns_input(torch):
    x = from_numpy(np.ones((0, 3), np.float32))
    out, mask = aten.native_dropout.default(x, 0.5, True)
    assert out is x
    assert mask.dtype is dispatcher.float32 and tuple(mask.shape) == (0, 3)
    compare(torch, "native_dropout", np.ones((0, 3), np.float32), 0.5, True)


@pytest.mark.parametrize("args", [
    (X, 1.5, True), (X, -1.0, True), (X.astype(np.int64), 0.5, True), (X.astype(np.bool_), 0.5, True),
])
def test_native_dropout_errors(torch, args):
    compare(torch, "native_dropout", *args)


# --- mse_loss -----------------------------------------------------------------------------------------


@st.composite
def broadcast_pair(draw):
    shape = draw(shapes)
    drop = draw(st.integers(0, len(shape)))
    other = tuple(1 if draw(st.booleans()) else s for s in shape[drop:])
    return (shape, other) if draw(st.booleans()) else (other, shape)


@settings(max_examples=60, deadline=None)
@given(st.data(), broadcast_pair(), st.sampled_from(FLOAT_DTYPES), st.sampled_from(FLOAT_DTYPES),
       st.sampled_from([0, 1, 2]))
def test_mse_loss(torch, data, shapes_, d1, d2, reduction):
    a = _arr(data, shapes_[0], d1)
    b = _arr(data, shapes_[1], d2)
    half = "float16" in (d1, d2) and d1 == d2
    compare(torch, "mse_loss", a, b, reduction, rtol=1e-2 if half else 1e-5, atol=1e-2 if half else 1e-5)


@settings(max_examples=60, deadline=None)
@given(st.data(), shapes, st.sampled_from(["float32", "float64"]), st.sampled_from([0, 1, 2]))
def test_mse_loss_backward(torch, data, shape, dtype, reduction):
    a, b = _arr(data, shape, dtype), _arr(data, shape, dtype)
    g = _arr(data, shape if reduction == 0 else (), dtype)
    compare(torch, "mse_loss_backward", g, a, b, reduction)


def test_mse_loss_backward_promotion(torch):
    rng = np.random.default_rng(3)
    a, b = make_array(rng, (2, 3), "float32"), make_array(rng, (2, 3), "float32")
    compare(torch, "mse_loss_backward", a.astype(np.float64), a, b, 0)  # computed in float64, stored as float32
    compare(torch, "mse_loss_backward", a, a.astype(np.float64), b, 0)
    compare(torch, "mse_loss_backward", np.array(1.5, np.float16), a.astype(np.float16), b.astype(np.float16), 1,
            rtol=1e-3, atol=1e-3)
    compare(torch, "mse_loss_backward", np.ones((2, 3), np.int64), np.ones((2, 3), np.int64),
            np.zeros((2, 3), np.int64), 0)
    compare(torch, "mse_loss_backward", np.ones(1, np.float32), np.ones((3, 4), np.float32).T,
            np.ones((4, 3), np.float32), 1)


MSE_ERRORS = [
    ("mse_loss", (X, X[:, :2], 0)),
    ("mse_loss", (I64, I64, 0)),
    ("mse_loss", (I64, I64, 1)),
    ("mse_loss", (I64.astype(np.bool_), I64.astype(np.bool_), 0)),
    ("mse_loss", (X, X, 3)),
    ("mse_loss", (X, X, -1)),
    ("mse_loss_backward", (X, X.astype(np.int64), X, 0)),
]


@pytest.mark.parametrize("name,args", MSE_ERRORS, ids=[f"{c[0]}-{i}" for i, c in enumerate(MSE_ERRORS)])
def test_mse_errors(torch, name, args):
    compare(torch, name, *args)


def test_mse_loss_zero_size(torch):
    e = np.ones((0, 3), np.float32)
    for r in (0, 1, 2):
        compare(torch, "mse_loss", e, e, r)
    compare(torch, "mse_loss_backward", np.array(1.0, np.float32), e, e, 1)


# --- nll_loss -----------------------------------------------------------------------------------------


@st.composite
def nll_case(draw):
    c = draw(st.integers(1, 5))
    one_d = draw(st.booleans())
    n = 1 if one_d else draw(st.integers(0, 5))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    dtype = draw(st.sampled_from(FLOAT_DTYPES))
    x = make_array(rng, (c,) if one_d else (n, c), dtype, draw(layouts))
    ignore = draw(st.sampled_from([-100, 0, c - 1]))
    t = rng.integers(0, c, size=n)
    target = np.array(t[0]) if one_d and draw(st.booleans()) else t
    target = target.astype(draw(st.sampled_from(["int64", "uint8"])))
    w = make_array(rng, (c,), dtype).__abs__() if draw(st.booleans()) else None
    return x, target, w, ignore


@settings(max_examples=80, deadline=None)
@given(nll_case(), st.sampled_from([0, 1, 2]))
def test_nll_loss_forward(torch, case, reduction):
    x, target, w, ignore = case
    tol = {"rtol": 5e-3, "atol": 5e-3} if x.dtype == np.float16 else {"rtol": 1e-5, "atol": 1e-5}
    compare(torch, "nll_loss_forward", x, target, w, reduction, ignore, **tol)


@settings(max_examples=80, deadline=None)
@given(nll_case(), st.sampled_from([0, 1, 2]))
def test_nll_loss_backward(torch, case, reduction):
    x, target, w, ignore = case
    tw_ = None if w is None else torch.from_numpy(w)
    out, total = torch.ops.aten.nll_loss_forward(torch.from_numpy(x), torch.from_numpy(target), tw_, reduction,
                                                 ignore)
    g = np.random.default_rng(0).standard_normal(out.shape).astype(x.dtype)
    tol = {"rtol": 5e-3, "atol": 5e-3} if x.dtype == np.float16 else {}
    compare(torch, "nll_loss_backward", g, x, target, w, reduction, ignore, total.numpy(), **tol)


X43 = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
T4 = np.array([0, 2, 1, 2])
W3 = np.array([1.0, 2.0, 3.0], np.float32)
ONE = np.array(1.0, np.float32)

NLL_ERRORS = [
    ("nll_loss_forward", (np.ones((2, 3, 4), np.float32), T4, None, 1, -100)),
    ("nll_loss_forward", (ONE, T4, None, 1, -100)),
    ("nll_loss_forward", (X43, T4[None], None, 1, -100)),
    ("nll_loss_forward", (X43, T4[:3], None, 1, -100)),
    ("nll_loss_forward", (X43[0], T4[:3], None, 1, -100)),
    ("nll_loss_forward", (X43, T4, np.ones(4, np.float32), 1, -100)),
    ("nll_loss_forward", (X43, T4, np.ones((1, 3), np.float32), 1, -100)),
    ("nll_loss_forward", (X43, T4, W3.astype(np.float64), 1, -100)),
    ("nll_loss_forward", (X43, T4.astype(np.int32), None, 1, -100)),
    ("nll_loss_forward", (X43, T4.astype(np.float32), None, 1, -100)),
    ("nll_loss_forward", (X43, np.array([0, 3, 1, 2]), None, 1, -100)),
    ("nll_loss_forward", (X43, np.array([0, -1, 1, 2]), None, 0, -100)),
    ("nll_loss_forward", (X43[0], np.array(5), None, 0, -100)),
    ("nll_loss_forward", (X43.astype(np.int64), T4, None, 1, -100)),
    ("nll_loss_forward", (np.ones((4, 0), np.float32), T4, None, 1, -100)),
    ("nll_loss_forward", (X43.astype(np.int64), T4.astype(np.int32), W3.astype(np.float64), 1, -100)),
    ("nll_loss_backward", (np.ones(3, np.float32), X43, T4, W3, 0, -100, ONE)),
    ("nll_loss_backward", (ONE, X43, T4, W3, 0, -100, ONE)),
    ("nll_loss_backward", (np.ones((4, 1), np.float32), X43, T4, W3, 0, -100, ONE)),
    ("nll_loss_backward", (np.ones(4, np.float32), X43, T4, W3, 1, -100, ONE)),
    ("nll_loss_backward", (np.ones((1, 1), np.float32), X43, T4, W3, 1, -100, ONE)),
    ("nll_loss_backward", (ONE, X43, T4, W3, 1, -100, np.ones(2, np.float32))),
    ("nll_loss_backward", (ONE, X43, T4, np.ones(4, np.float32), 1, -100, ONE)),
    ("nll_loss_backward", (ONE, X43, T4[:2], W3, 1, -100, ONE)),
    ("nll_loss_backward", (ONE, X43, T4[None], W3, 1, -100, ONE)),
    ("nll_loss_backward", (ONE, np.ones((2, 3, 4), np.float32), T4, W3, 1, -100, ONE)),
    ("nll_loss_backward", (ONE.astype(np.float64), X43, T4, W3, 1, -100, ONE)),
    ("nll_loss_backward", (ONE, X43, T4, W3.astype(np.float64), 1, -100, ONE)),
    ("nll_loss_backward", (ONE, X43, T4, W3, 1, -100, ONE.astype(np.float64))),
    ("nll_loss_backward", (ONE, X43, T4.astype(np.int32), W3, 1, -100, ONE)),
    ("nll_loss_backward", (ONE, X43, np.array([0, 3, 1, 2]), W3, 1, -100, ONE)),
    ("nll_loss_backward", (ONE.astype(np.int64), X43.astype(np.int64), T4, None, 1, -100, ONE.astype(np.int64))),
]


@pytest.mark.parametrize("name,args", NLL_ERRORS, ids=[f"{c[0]}-{i}" for i, c in enumerate(NLL_ERRORS)])
def test_nll_errors(torch, name, args):
    compare(torch, name, *args)


def test_nll_loss_all_ignored(torch):
    t = np.array([1, 1, 1, 1])
    for r in (0, 1, 2):
        compare(torch, "nll_loss_forward", X43, t, W3, r, 1)
    compare(torch, "nll_loss_backward", ONE, X43, t, W3, 1, 1, np.array(0.0, np.float32))
    compare(torch, "nll_loss_forward", X43[0], np.array([1]), None, 0, -100)  # 1-D input, 1-element target


# --- embedding ----------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.data(), st.integers(1, 6), st.integers(0, 4), shapes, st.sampled_from(["int64", "int32"]),
       st.sampled_from(FLOAT_DTYPES + ("int64", "bool")))
def test_embedding(torch, data, num, width, idx_shape, idx_dtype, dtype):
    w = _arr(data, (num, width), dtype)
    idx = np.random.default_rng(data.draw(st.integers(0, 99))).integers(0, num, size=idx_shape).astype(idx_dtype)
    compare(torch, "embedding", w, np.asarray(idx))


def test_embedding_is_a_view_of_index_select_for_nd_indices():
    w = from_numpy(np.arange(15, dtype=np.float32).reshape(5, 3))
    out = aten.embedding.default(w, from_numpy(np.array([[0, 4], [1, 1]])))
    assert out._base is not None and tuple(out.shape) == (2, 2, 3)
    assert aten.embedding.default(w, from_numpy(np.array([2, 3])))._base is None


EMB_ERRORS = [
    ("embedding", (np.ones((5, 3), np.float32), np.array([2, 3], np.uint8))),
    ("embedding", (np.ones((5, 3), np.float32), np.array([2.0, 3.0], np.float32))),
    ("embedding", (np.ones((5, 3), np.float32), np.array([5]))),
    ("embedding", (np.ones((5, 3), np.float32), np.array([-1]))),
    ("embedding", (np.ones(5, np.float32), np.array([1]))),
    ("embedding", (np.ones((5, 2, 2), np.float32), np.array([1]))),
    ("embedding_dense_backward", (np.ones((2, 2, 3), np.float32), np.ones((2, 2), np.float32), 5, -1, True)),
    ("embedding_dense_backward", (np.ones((3, 3), np.float32), np.ones((2, 2), np.int64), 5, -1, False)),
    ("embedding_dense_backward", (np.ones(12, np.float32), np.ones((2, 2), np.int64), 5, -1, False)),
    ("embedding_dense_backward", (ONE, np.array(1), 3, -1, False)),
]


@pytest.mark.parametrize("name,args", EMB_ERRORS, ids=[f"{c[0]}-{i}" for i, c in enumerate(EMB_ERRORS)])
def test_embedding_errors(torch, name, args):
    compare(torch, name, *args)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(1, 6), st.integers(0, 4), shapes, st.sampled_from(["int64", "int32"]),
       st.sampled_from(["float32", "float64"]), st.booleans(), st.sampled_from([-1, 0, 2]))
def test_embedding_dense_backward(torch, data, num, width, idx_shape, idx_dtype, dtype, scale, padding_idx):
    idx = np.asarray(np.random.default_rng(data.draw(st.integers(0, 99))).integers(0, num, size=idx_shape))
    g = _arr(data, idx_shape + (width,), dtype)
    compare(torch, "embedding_dense_backward", g, idx.astype(idx_dtype), num, padding_idx, scale)


def test_embedding_dense_backward_half_and_reshaped_grad(torch):
    rng = np.random.default_rng(4)
    idx = np.array([[0, 4], [1, 1]])
    compare(torch, "embedding_dense_backward", make_array(rng, (2, 2, 3), "float16"), idx, 5, -1, True,
            rtol=1e-2, atol=1e-2)
    compare(torch, "embedding_dense_backward", make_array(rng, (4, 3), "float32"), idx, 5, 1, False)
    compare(torch, "embedding_dense_backward", make_array(rng, (2, 2, 3), "int64"), idx, 5, -1, False)
