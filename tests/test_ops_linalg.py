"""Matrix-product kernels (dispatcher/ops/linalg.py) against torch 2.13: values, dtypes, strides, meta, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_oracle import FLOAT_DTYPES, INT_DTYPES, compare, make_array

MATMUL_DTYPES = FLOAT_DTYPES + INT_DTYPES
layouts = st.sampled_from(["contiguous", "transposed", "sliced"])
sizes = st.integers(0, 5)


def _tol(dtype: str) -> dict:
    return {"rtol": 1e-2, "atol": 1e-2} if dtype == "float16" else {"rtol": 1e-5, "atol": 1e-5}


@st.composite
def arrays(draw, shape, dtype):
    return make_array(np.random.default_rng(draw(st.integers(0, 2**16))), shape, dtype, draw(layouts))


@settings(max_examples=60, deadline=None)
@given(st.data(), sizes, sizes, sizes, st.sampled_from(MATMUL_DTYPES))
def test_mm(torch, data, n, k, m, dtype):
    a = data.draw(arrays((n, k), dtype))
    b = data.draw(arrays((k, m), dtype))
    compare(torch, "mm", a, b, **_tol(dtype))


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(0, 3), sizes, sizes, sizes, st.sampled_from(MATMUL_DTYPES))
def test_bmm(torch, data, bs, n, k, m, dtype):
    a = data.draw(arrays((bs, n, k), dtype))
    b = data.draw(arrays((bs, k, m), dtype))
    compare(torch, "bmm", a, b, **_tol(dtype))


@st.composite
def broadcastable_to(draw, shape):
    """A shape that broadcasts to ``shape`` (dropped leading dims, some dims set to 1)."""
    drop = draw(st.integers(0, len(shape)))
    out = [1 if draw(st.booleans()) else s for s in shape[drop:]]
    return tuple(out)


@settings(max_examples=80, deadline=None)
@given(st.data(), sizes, sizes, sizes, st.sampled_from(MATMUL_DTYPES),
       st.sampled_from([1, 0, 2, 0.5, -1.5]), st.sampled_from([1, 0, 3, 0.5]))
def test_addmm(torch, data, n, k, m, dtype, beta, alpha):
    self_shape = data.draw(broadcastable_to((n, m)))
    s = data.draw(arrays(self_shape, dtype))
    a = data.draw(arrays((n, k), dtype))
    b = data.draw(arrays((k, m), dtype))
    compare(torch, "addmm", s, a, b, beta=beta, alpha=alpha, **_tol(dtype))


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(0, 3), sizes, sizes, sizes, st.sampled_from(MATMUL_DTYPES),
       st.sampled_from([1, 0, 2, 0.5]), st.sampled_from([1, 0, 3, 0.5]))
def test_baddbmm(torch, data, bs, n, k, m, dtype, beta, alpha):
    self_shape = data.draw(broadcastable_to((bs, n, m)))
    s = data.draw(arrays(self_shape, dtype))
    a = data.draw(arrays((bs, n, k), dtype))
    b = data.draw(arrays((bs, k, m), dtype))
    compare(torch, "baddbmm", s, a, b, beta=beta, alpha=alpha, **_tol(dtype))


@settings(max_examples=50, deadline=None)
@given(st.data(), sizes, sizes, st.sampled_from(MATMUL_DTYPES))
def test_mv_dot(torch, data, n, k, dtype):
    a = data.draw(arrays((n, k), dtype))
    v = data.draw(arrays((k,), dtype))
    w = data.draw(arrays((k,), dtype))
    compare(torch, "mv", a, v, **_tol(dtype))
    compare(torch, "dot", v, w, **_tol(dtype))


def test_addmm_beta_zero_ignores_nan(torch):
    s = np.full((2, 4), np.nan, np.float32)
    a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    out = compare(torch, "addmm", s, a, b, beta=0)
    assert not np.isnan(out.numpy()).any()


def test_outputs_contiguous_for_transposed_inputs(torch):
    rng = np.random.default_rng(0)
    a = make_array(rng, (4, 3), "float32", "transposed")
    b = make_array(rng, (3, 5), "float32", "transposed")
    assert compare(torch, "mm", a, b).is_contiguous()
    a3 = make_array(rng, (2, 4, 3), "float32", "transposed")
    assert compare(torch, "bmm", a3, make_array(rng, (2, 3, 5), "float32")).is_contiguous()
    self_t = make_array(rng, (4, 5), "float32", "transposed")
    assert compare(torch, "addmm", self_t, a, b).is_contiguous()


def _f(*shape, dtype="float32"):
    return np.ones(shape, dtype)


ERROR_CASES = [
    ("mm", (_f(2, 3), _f(3, 4, dtype="float64"))),
    ("mm", (_f(3), _f(3, 4))),
    ("mm", (_f(2, 3), _f(3))),
    ("mm", (_f(2, 3), _f(4, 4))),
    ("mm", (_f(2, 3), _f(4, 4, dtype="float64"))),
    ("mm", (_f(2, 3, dtype="bool"), _f(3, 4, dtype="bool"))),
    ("bmm", (_f(5, 2, 3), _f(5, 3, 4, dtype="float64"))),
    ("bmm", (_f(5, 2, 3, dtype="float64"), _f(5, 3, 4))),
    ("bmm", (_f(2, 3), _f(5, 3, 4))),
    ("bmm", (_f(5, 2, 3), _f(3, 4))),
    ("bmm", (_f(5, 2, 3), _f(5, 4, 4))),
    ("bmm", (_f(5, 2, 3), _f(4, 3, 4))),
    ("bmm", (_f(2, 2, 3), _f(2, 4, 4, dtype="float64"))),
    ("bmm", (_f(2, 2, 3, dtype="bool"), _f(2, 3, 4, dtype="bool"))),
    ("addmm", (_f(3), _f(2, 3), _f(3, 4))),
    ("addmm", (_f(3, 2, 4), _f(2, 3), _f(3, 4))),
    ("addmm", (_f(2, 4), _f(2, 3), _f(4, 4))),
    ("addmm", (_f(2, 4, dtype="float64"), _f(2, 3), _f(3, 4))),
    ("addmm", (_f(2, 4), _f(2, 3), _f(3, 4, dtype="float64"))),
    ("addmm", (_f(2, 4), _f(2, 3, dtype="float64"), _f(3, 4))),
    ("addmm", (_f(2, 4), _f(3), _f(3, 4))),
    ("addmm", (_f(2, 4), _f(2, 3), _f(4))),
    ("addmm", (_f(2, 4), _f(2, 3, 1), _f(4))),
    ("addmm", (_f(2, 4, dtype="bool"), _f(2, 3, dtype="bool"), _f(3, 4, dtype="bool"))),
    ("mv", (_f(2, 3), _f(3, dtype="float64"))),
    ("mv", (_f(2, 3, dtype="float64"), _f(3))),
    ("mv", (_f(2, 3), _f(4))),
    ("mv", (_f(2, 3), _f(4, dtype="float64"))),
    ("mv", (_f(3), _f(3))),
    ("mv", (_f(2, 3), _f(3, 1))),
    ("mv", (np.array(1.0, np.float32), _f(3))),
    ("mv", (_f(2, 3, dtype="bool"), _f(3, dtype="bool"))),
    ("dot", (_f(3), _f(3, dtype="float64"))),
    ("dot", (_f(3, 1), _f(3))),
    ("dot", (_f(3), _f(3, 1))),
    ("dot", (_f(3), _f(4))),
    ("dot", (_f(3), _f(4, dtype="float64"))),
    ("dot", (np.array(1.0, np.float32), _f(1))),
    ("dot", (_f(3, dtype="bool"), _f(3, dtype="bool"))),
    ("baddbmm", (_f(4, dtype="float64"), _f(5, 2, 3), _f(5, 3, 4))),
    ("baddbmm", (_f(4), _f(5, 2, 3), _f(5, 3, 4, dtype="float64"))),
    ("baddbmm", (_f(3), _f(5, 2, 3), _f(5, 3, 4))),
    ("baddbmm", (_f(4), _f(2, 3), _f(5, 3, 4))),
    ("baddbmm", (_f(4), _f(5, 2, 3), _f(5, 3))),
    ("baddbmm", (_f(4), _f(5, 2, 3), _f(5, 4, 4))),
    ("baddbmm", (_f(4), _f(5, 2, 3), _f(4, 3, 4))),
    ("baddbmm", (_f(4, dtype="bool"), _f(5, 2, 3, dtype="bool"), _f(5, 3, 4, dtype="bool"))),
]


@pytest.mark.parametrize("name,args", ERROR_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_errors(torch, name, args):
    compare(torch, name, *args)


@pytest.mark.parametrize("name,args", [
    ("mm", (_f(2, 3, dtype="bool"), _f(3, 4, dtype="bool"))),
    ("dot", (_f(3, dtype="bool"), _f(3, dtype="bool"))),
])
def test_meta_skips_cpu_dtype_checks(torch, name, args):
    """PyTorch's Meta kernels accept dtypes its CPU kernels reject (bool matmuls)."""
    from ops_oracle import _convert, _our_op, _torch_op

    theirs = _torch_op(torch, name)(*[torch.empty(a.shape, dtype=torch.bool, device="meta") for a in args])
    ours = _our_op(name)(*_convert(args, "meta", torch))
    assert (tuple(ours.shape), ours.stride(), ours.dtype.name) == (tuple(theirs.shape), theirs.stride(), "bool")


def test_half_precision_matches_float32_accumulation(torch):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 64)).astype(np.float16)
    b = rng.standard_normal((64, 8)).astype(np.float16)
    compare(torch, "mm", a, b, rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("name,args", [
    ("mm", (_f(0, 2, dtype="bool"), _f(2, 2, dtype="bool"))),
    ("mm", (_f(2, 0, dtype="bool"), _f(0, 2, dtype="bool"))),
    ("bmm", (_f(0, 2, 2, dtype="bool"), _f(0, 2, 2, dtype="bool"))),
    ("bmm", (_f(0, 2, 2), _f(0, 2, 2, dtype="float64"))),
    ("bmm", (_f(2, 2, 0, dtype="bool"), _f(2, 0, 2, dtype="bool"))),
    ("mv", (_f(0, 2, dtype="bool"), _f(2, dtype="bool"))),
    ("addmm", (_f(0, 2, dtype="bool"), _f(0, 2, dtype="bool"), _f(2, 2, dtype="bool"))),
    ("dot", (_f(0, dtype="bool"), _f(0, dtype="bool"))),
])
def test_empty_products_skip_cpu_dtype_dispatch(torch, name, args):
    """PyTorch returns before its dtype dispatch when the product is empty (but ``dot`` still refuses bool)."""
    compare(torch, name, *args)


@pytest.mark.parametrize("dtype,beta,alpha", [
    ("uint8", -1.5, 1), ("uint8", 1, 300), ("uint8", 1, -300), ("uint8", -1, 1), ("int8", 200.0, 1),
    ("int64", 0.5, 2.7),
])
def test_addmm_scalar_conversion(torch, dtype, beta, alpha):
    rng = np.random.default_rng(7)
    s, a, b = (make_array(rng, sh, dtype) for sh in ((2, 2), (2, 3), (3, 2)))
    compare(torch, "addmm", s, a, b, beta=beta, alpha=alpha)
    compare(torch, "baddbmm", s[None], a[None], b[None], beta=beta, alpha=alpha)
    compare(torch, "addmm", s, a[:, :0], b[:0], beta=beta, alpha=alpha)  # empty product: result = self * beta
