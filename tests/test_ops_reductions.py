"""Reduction kernels (dispatcher/ops/reductions.py) against torch 2.13: values, dtypes, shapes, strides, meta, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_oracle import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, D, compare, make_array

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)
layouts = st.sampled_from(["contiguous", "transposed", "sliced"])


@st.composite
def tensor_and_dims(draw, dtypes=ALL_DTYPES, nonempty=False):
    shape = draw(shapes)
    if nonempty:
        shape = tuple(max(s, 1) for s in shape)
    dtype = draw(st.sampled_from(dtypes))
    layout = draw(layouts)
    seed = draw(st.integers(0, 2**16))
    arr = make_array(np.random.default_rng(seed), shape, dtype, layout)
    ndim = len(shape)
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    dims = draw(st.one_of(st.none(), st.lists(st.integers(lo, hi), max_size=max(ndim, 1), unique=True)))
    return arr, dims


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# --- sum / mean -----------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(tensor_and_dims(), st.booleans(), st.sampled_from([None, "int64", "float64", "float32", "int32", "bool"]))
def test_sum_dim(torch, case, keepdim, dtype):
    arr, dims = case
    kwargs = {"dtype": D(dtype)} if dtype else {}
    compare(torch, "sum.dim_IntList", arr, dims, keepdim, rtol=1e-4 if arr.dtype == np.float16 else None,
            atol=1e-4, **kwargs)


@settings(max_examples=40, deadline=None)
@given(tensor_and_dims())
def test_sum_default(torch, case):
    arr, _ = case
    compare(torch, "sum", arr, atol=1e-4, rtol=1e-4)


@settings(max_examples=60, deadline=None)
@given(tensor_and_dims(), st.booleans(), st.sampled_from([None, "float64", "float32", "int64"]))
def test_mean_dim(torch, case, keepdim, dtype):
    arr, dims = case
    kwargs = {"dtype": D(dtype)} if dtype else {}
    compare(torch, "mean.dim", arr, dims, keepdim, atol=1e-4, **kwargs)
    compare(torch, "mean", arr, atol=1e-4, **kwargs)


def test_sum_keepdim_strides(torch):
    arr = make_array(np.random.default_rng(0), (2, 3, 4), "float32")
    out = compare(torch, "sum.dim_IntList", arr, [1], True)
    assert out.stride() == (4, 4, 1)
    compare(torch, "sum.dim_IntList", arr.transpose(2, 0, 1), [1], True)  # non-contiguous input, contiguous out


def test_sum_dtype_conversions(torch):
    compare(torch, "sum.dim_IntList", np.array([200, 100], np.uint8), None, dtype=D("uint8"))  # wraps
    compare(torch, "sum.dim_IntList", np.array([1.5, 1.75], np.float32), [0], dtype=D("int64"))  # truncates
    compare(torch, "sum.dim_IntList", np.array([0.5, 0.0], np.float32), [0], dtype=D("bool"))
    compare(torch, "sum", np.ones(3, np.bool_))
    compare(torch, "sum", np.ones(3, np.float16))


def test_sum_precision_float32(torch):
    arr = (np.random.default_rng(1).standard_normal(100_000) + 10).astype(np.float32)
    compare(torch, "sum", arr, rtol=1e-6, atol=0)
    compare(torch, "mean", arr, rtol=1e-6, atol=0)


# --- amax / amin / max / min / argmax / argmin ------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(tensor_and_dims(), st.booleans(), st.sampled_from(["amax", "amin"]))
def test_amax_amin(torch, case, keepdim, op):
    arr, dims = case
    compare(torch, op, arr, dims or [], keepdim)


@settings(max_examples=60, deadline=None)
@given(tensor_and_dims(), st.booleans(), st.sampled_from(["max.dim", "min.dim", "argmax", "argmin"]),
       st.integers(-5, 5))
def test_max_min_arg_dim(torch, case, keepdim, op, dim):
    arr, _ = case
    compare(torch, op, arr, dim, keepdim)


@settings(max_examples=40, deadline=None)
@given(tensor_and_dims(), st.booleans(), st.sampled_from(["argmax", "argmin"]))
def test_argmax_no_dim(torch, case, keepdim, op):
    compare(torch, op, case[0], None, keepdim)


@settings(max_examples=40, deadline=None)
@given(tensor_and_dims(), st.sampled_from(["max", "min"]))
def test_max_min_full(torch, case, op):
    compare(torch, op, case[0])


def test_nan_and_ties(torch):
    nan = np.array([1.0, np.nan, np.nan, 3.0], np.float32)
    ties = np.array([3, 1, 3, 1], np.int64)
    for op in ("max.dim", "min.dim", "argmax", "argmin"):
        compare(torch, op, nan, 0)
        compare(torch, op, ties, 0)
    for op in ("amax", "amin", "max", "min"):
        compare(torch, op, nan)


# --- var ---------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(tensor_and_dims(dtypes=FLOAT_DTYPES), st.booleans(), st.sampled_from([None, 0, 1, 2, 2.5, True]))
def test_var_correction(torch, case, keepdim, correction):
    arr, dims = case
    kwargs = {} if correction is None else {"correction": correction}
    compare(torch, "var.correction", arr, dims, keepdim=keepdim, rtol=1e-2 if arr.dtype == np.float16 else 1e-5,
            atol=1e-4, **kwargs)


def test_var_warns_on_no_degrees_of_freedom():
    from dispatcher.api.from_data import from_numpy

    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        aten_var = __import__("dispatcher.ops", fromlist=["aten"]).aten.var.correction
        out = aten_var(from_numpy(np.ones(1, np.float32)), [0])
    assert np.isnan(out.item())


# --- errors ------------------------------------------------------------------------------------------

ERROR_CASES = [
    ("mean", (np.ones(3, np.int64),), {}),
    ("mean", (np.ones(3, np.bool_),), {}),
    ("mean.dim", (np.ones(3, np.int64), [0]), {}),
    ("mean", (np.ones(3, np.float32),), {"dtype": D("int64")}),
    ("mean.dim", (np.ones(3, np.float32), [0]), {"dtype": D("int64")}),
    ("sum.dim_IntList", (np.ones((2, 3, 4), np.float32), [0, 0]), {}),
    ("sum.dim_IntList", (np.ones((2, 3, 4), np.float32), [0, -3]), {}),
    ("sum.dim_IntList", (np.ones((2, 3, 4), np.float32), [5]), {}),
    ("sum.dim_IntList", (np.array(3.0, np.float32), [0, 0]), {}),
    ("sum.dim_IntList", (np.array(3.0, np.float32), [1]), {}),
    ("sum.dim_IntList", (np.array(True), [0, -1]), {}),
    ("mean.dim", (np.array(3.0, np.float16), [-1, 0]), {}),
    ("amax", (np.array(3.0, np.float32), [0, -1]), {}),
    ("var.correction", (np.array(3.0, np.float32), [0, -1]), {}),
    ("amax", (np.ones((3, 4), np.float32), [1, 1]), {}),
    ("amax", (np.ones((3, 4), np.float32), [1, 5]), {}),
    ("amax", (np.ones((3, 0), np.float32), [1]), {}),
    ("amax", (np.ones((3, 0), np.float32), [-1]), {}),
    ("amin", (np.ones((0, 0), np.float32), [0]), {}),
    ("amax", (np.ones((3, 0), np.float32), []), {}),
    ("amax", (np.ones((3, 0), np.float32), [1, 1]), {}),
    ("amax", (np.ones((3, 0), np.float32), [5]), {}),
    ("max", (np.ones((3, 0), np.float32),), {}),
    ("min", (np.ones((0,), np.int64),), {}),
    ("max.dim", (np.ones((3, 0), np.float32), 1), {}),
    ("min.dim", (np.ones((3, 0), np.float32), -1), {}),
    ("max.dim", (np.ones((3, 4), np.float32), 5), {}),
    ("max.dim", (np.array(2.0, np.float32), 1), {}),
    ("argmax", (np.ones((3, 0), np.float32),), {}),
    ("argmax", (np.ones((3, 0), np.float32), 1), {}),
    ("argmin", (np.ones((3, 0), np.float32), -1), {}),
    ("argmax", (np.ones((3,), np.bool_),), {}),
    ("argmin", (np.ones((3, 4), np.float32), 2), {}),
    ("var.correction", (np.ones(3, np.int64),), {}),
    ("var.correction", (np.ones(3, np.bool_),), {}),
    ("var.correction", (np.ones((2, 3), np.float32), [0, -2]), {}),
    ("var.correction", (np.ones((2, 3), np.float32), [4]), {}),
]


@pytest.mark.parametrize("name,args,kwargs", ERROR_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_errors(torch, name, args, kwargs):
    compare(torch, name, *args, **kwargs)


# --- zero-size and 0-dim ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_zero_size_reductions(torch, dtype):
    e = np.ones((3, 0), dtype)
    compare(torch, "sum.dim_IntList", e, [1])
    compare(torch, "sum.dim_IntList", e, [0], True)
    compare(torch, "sum", e)
    compare(torch, "amax", e, [0])
    compare(torch, "max.dim", e, 0)
    compare(torch, "argmin", e, 0, True)
    if dtype == "float32":
        compare(torch, "mean.dim", e, [1])
        compare(torch, "mean", e)
        compare(torch, "var.correction", e, [1])
        compare(torch, "var.correction", e)


@pytest.mark.parametrize("op,args", [
    ("sum.dim_IntList", ([0],)), ("sum.dim_IntList", ([-1], True)), ("amax", ([0],)), ("amin", ([],)),
    ("max.dim", (0,)), ("min.dim", (-1, True)), ("argmax", (0, True)), ("argmin", (None, True)), ("max", ()),
    ("mean.dim", ([0],)), ("var.correction", ([0],)),
])
def test_zero_dim_input(torch, op, args):
    compare(torch, op, np.array(3.0, np.float32), *args)


@pytest.mark.parametrize("dtype", INT_DTYPES + ("bool",))
def test_sum_int_promotes_to_int64(torch, dtype):
    arr = make_array(np.random.default_rng(3), (3, 4), dtype)
    compare(torch, "sum.dim_IntList", arr, [0])
    compare(torch, "sum", arr)
