"""``repr(tensor)`` is the same string torch prints, for every dtype, shape and value range."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dispatcher
from dispatcher.tensor import Tensor, device

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SHAPES = [(), (0,), (1,), (5,), (3, 4), (2, 3, 4), (0, 3), (3, 0, 2), (1, 1, 1), (30,), (12, 9), (2, 2, 2, 2),
          (40, 30), (1001,), (7, 7, 7, 7), (2000,), (3, 500)]
VALUE_KINDS = ["normal", "ints", "small", "large", "mixed_scale", "with_nonfinite", "zeros", "halves", "tiny"]


def _values(rng: np.random.Generator, shape: tuple, dtype: str, kind: str) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        return (rng.random(n) > 0.5).reshape(shape)
    if not dtype.startswith("float"):
        info = np.iinfo(dtype)
        hi = {"ints": 10, "large": info.max}.get(kind, 1000)
        lo = 0 if dtype == "uint8" else -min(hi, -int(info.min))
        return rng.integers(lo, min(hi, int(info.max)), size=n, endpoint=True).astype(dtype).reshape(shape)
    if kind == "normal":
        v = rng.standard_normal(n)
    elif kind == "ints":
        v = rng.integers(-100, 100, size=n).astype(np.float64)
    elif kind == "small":
        v = rng.standard_normal(n) * 1e-5
    elif kind == "large":
        v = rng.standard_normal(n) * 1e9
    elif kind == "mixed_scale":
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 5, size=n)
    elif kind == "with_nonfinite":
        v = rng.standard_normal(n)
        v[rng.random(n) < 0.2] = np.nan
        v[rng.random(n) < 0.1] = np.inf
        v[rng.random(n) < 0.1] = -np.inf
    elif kind == "zeros":
        v = np.zeros(n)
    elif kind == "halves":
        v = rng.integers(-20, 20, size=n) / 2.0
    else:
        v = rng.standard_normal(n) * 1e-30
    with np.errstate(over="ignore"):
        return v.astype(dtype).reshape(shape)


def _pair(torch: Any, arr: np.ndarray) -> tuple[Any, Tensor]:
    ours = dispatcher.from_numpy(arr.copy())
    theirs = torch.from_numpy(arr.copy())
    return theirs, ours


@settings(max_examples=400, deadline=None)
@given(dtype=st.sampled_from(DTYPES), shape=st.sampled_from(SHAPES), kind=st.sampled_from(VALUE_KINDS),
       seed=st.integers(0, 2**31))
def test_repr_matches_torch(torch: Any, dtype: str, shape: tuple, kind: str, seed: int) -> None:
    arr = _values(np.random.default_rng(seed), shape, dtype, kind)
    theirs, ours = _pair(torch, arr)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("values", [
    [1.0, 2.0], [[1.0, 2.0]], 3.5, 0.0, -0.0, float("nan"), [float("inf"), 1.0], [1e-5, 1.0], [123456789.0, 1.0],
    [1e8, 1.0], [0.1, 0.25], [1e10], [100000.0, 0.5], [-1.5, 2.25, 1e3], list(range(100)), [True, False], 7,
])
def test_repr_literals(torch: Any, values: Any) -> None:
    assert repr(dispatcher.tensor(values)) == repr(torch.tensor(values))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (0, 4)])
def test_meta_repr(torch: Any, dtype: str, shape: tuple) -> None:
    ours = Tensor._empty(shape, getattr(dispatcher, dtype), device("meta"))
    theirs = torch.empty(shape, dtype=getattr(torch, dtype), device="meta")
    assert repr(ours) == repr(theirs)


def test_requires_grad_suffix(torch: Any) -> None:
    ours = dispatcher.from_numpy(np.array([[1.0, 2.0]], dtype=np.float32)).requires_grad_()
    theirs = torch.tensor([[1.0, 2.0]], requires_grad=True)
    assert repr(ours) == repr(theirs) == "tensor([[1., 2.]], requires_grad=True)"
    ours64 = dispatcher.from_numpy(np.arange(30, dtype=np.float64) / 7).requires_grad_()
    theirs64 = torch.from_numpy(np.arange(30, dtype=np.float64) / 7).requires_grad_()
    assert repr(ours64) == repr(theirs64)


def test_grad_fn_suffix() -> None:
    class AddBackward0:
        pass

    t = dispatcher.from_numpy(np.array([1.0], dtype=np.float32))
    t.grad_fn = AddBackward0()
    assert repr(t) == "tensor([1.], grad_fn=<AddBackward0>)"


def test_non_contiguous_views(torch: Any) -> None:
    arr = np.random.default_rng(1).standard_normal((6, 5)).astype(np.float32)
    ours = dispatcher.from_numpy(arr.T)
    theirs = torch.from_numpy(arr.T)
    assert repr(ours) == repr(theirs)
