"""Indexing and slicing: the same aten calls as torch (select/slice/unsqueeze/alias/index), same values, same errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_frontend import _run_both, _split, make_inputs

import dispatcher
from dispatcher.errors import DispatchError

GET_EXPRS = """
x[0] | x[:, 1:3] | x[..., -1] | x[None] | x[1:] | x[::2] | x[:] | x[:, :] | x[...] | x[0, 0] | x[-1] | x[1:-1]
x[-3:] | x[None, :, None] | x[:, None] | x[i] | x[b] | x[:, i] | x[i, 1] | x[1:100] | x[10:] | x[0:3] | x[0:4:1]
x3[1, ..., 2] | x3[:, 0] | x3[..., 1:, None] | x3[0, :, ::3] | x[[0, 1]] | x[xi[0, 1]] | x3[:, :, :] | x[:, -1:]
x[:2, 1::2] | x3[1][2][3] | x3[-1, -1] | x[i, :] | x[..., i] | x3[1, i] | x3[:, 0, i]
"""

SET_STMTS = """
z = x.clone(); z[0] = 1.0 | z = x.clone(); z[:, 1] = T.ones(3) | z = x.clone(); z[b] = 0.0 | z = x.clone(); z[i] = 0.0
z = x.clone(); z[:] = 2 | z = x.clone(); z[0, 0] = 5 | z = x.clone(); z[0] = s0 | z = x.clone(); z[...] = 1
z = x.clone(); z[0] = T.ones(4, dtype=T.float64) | z = x.clone(); z[1:] = T.ones(1, 4)
z = x.clone(); z[:, 2:] = y[:, :2]
z = x.clone(); z[0] = v | z = x.clone(); z[:, 0] = 7
"""


@pytest.mark.parametrize("expr", _split(GET_EXPRS))
def test_getitem_calls_match_torch(torch: Any, expr: str) -> None:
    _run_both(torch, expr)


@pytest.mark.parametrize("stmt", _split(SET_STMTS.replace("; ", ";")))
def test_setitem_calls_match_torch(torch: Any, stmt: str) -> None:
    _run_both(torch, stmt.replace(";", "\n"), mode="exec")


def _values(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


@pytest.mark.parametrize("expr", _split(GET_EXPRS))
def test_getitem_values_match_torch(torch: Any, expr: str) -> None:
    theirs = eval(expr, make_inputs(torch))  # noqa: S307 - test table
    try:
        ours = eval(expr, make_inputs(dispatcher))  # noqa: S307
    except DispatchError as e:
        pytest.skip(f"kernel missing: {str(e).splitlines()[0][:120]}")
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("stmt", _split(SET_STMTS.replace("; ", ";")))
def test_setitem_values_match_torch(torch: Any, stmt: str) -> None:
    tenv, denv = make_inputs(torch), make_inputs(dispatcher)
    exec(stmt.replace(";", "\n"), tenv)  # noqa: S102
    try:
        exec(stmt.replace(";", "\n"), denv)  # noqa: S102
    except (DispatchError, NotImplementedError) as e:
        if isinstance(e, NotImplementedError) and "index_put_" not in str(e):
            raise
        pytest.skip(f"op or kernel missing: {str(e).splitlines()[0][:120]}")
    np.testing.assert_array_equal(denv["z"].numpy(), tenv["z"].numpy())


def test_views_share_storage() -> None:
    x = dispatcher.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    try:
        row = x[1]
        row.mul_(2)
        x[:, 0] = 0.0
    except DispatchError as e:
        pytest.skip(f"kernel missing: {str(e).splitlines()[0][:120]}")
    expected = np.arange(12, dtype=np.float32).reshape(3, 4)
    expected[1] *= 2
    expected[:, 0] = 0
    np.testing.assert_array_equal(x.numpy(), expected)
    assert row._base is x


ERRORS = """
x[5] | x[-4] | x[0, 0, 0] | x[::-1] | x[0.5] | x[:, ::-2] | x3[0, 0, 0, 0] | s0[0] | x[1, 7]
x[1:2, 5] | x[:, :, None, 0, 0]
"""


@pytest.mark.parametrize("expr", _split(ERRORS))
def test_index_errors_match_torch(torch: Any, expr: str) -> None:
    with pytest.raises(Exception) as theirs:  # noqa: PT011 - compared below
        eval(expr, make_inputs(torch))  # noqa: S307
    with pytest.raises(Exception) as ours:  # noqa: PT011
        eval(expr, make_inputs(dispatcher))  # noqa: S307
    if isinstance(ours.value, DispatchError):
        pytest.skip("kernel missing")
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_setitem_bad_value(torch: Any) -> None:
    for T in (torch, dispatcher):
        z = make_inputs(T)["x"]
        with pytest.raises(TypeError, match="can't assign a list to a torch.FloatTensor"):
            z[0] = [1.0, 2.0, 3.0, 4.0]


def _index_strategy(shape: tuple[int, ...]) -> st.SearchStrategy:
    def one(size: int) -> st.SearchStrategy:
        ints = st.integers(-size, size - 1) if size else st.nothing()
        bound = st.none() | st.integers(-size - 2, size + 2)
        slices = st.builds(slice, bound, bound,
                           st.none() | st.integers(1, 3))
        return ints | slices | st.none()

    return st.tuples(*[one(s) for s in shape]) if shape else st.just(())


@settings(max_examples=60, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple))
def test_random_basic_indexing_matches_torch(torch: Any, data: Any, shape: tuple[int, ...]) -> None:
    arr = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    index = data.draw(_index_strategy(shape))
    try:
        theirs = torch.from_numpy(arr.copy())[index]
    except IndexError as e:
        with pytest.raises(IndexError) as ours_error:
            dispatcher.from_numpy(arr.copy())[index]
        assert str(ours_error.value) == str(e)
        return
    try:
        ours = dispatcher.from_numpy(arr.copy())[index]
    except DispatchError as e:
        pytest.skip(f"kernel missing: {str(e).splitlines()[0][:120]}")
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
