"""Copies, fills and indexing kernels (dispatcher/ops/conversions.py, indexing.py, indexing_scatter.py) against torch 2.13.

clone / _to_copy (layouts kept like torch, dtype and device changes, BackendSelect routing),
lift_fresh_copy, copy_ (broadcasting, conversion, writes through views), fill_.Scalar (c10's
overflow checks), zero_, index_select, index.Tensor (NumPy-style advanced indexing and its output
strides), nonzero (layout and the meta error), _local_scalar_dense.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_ops_views import (  # the tests directory is on sys.path (no __init__.py)
    DTYPES,
    assert_meta_matches,
    assert_same,
    dtype_names,
    inputs,
    make_array,
    meta_like,
    pair,
    raises_like,
)

import dispatcher
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor, device

aten = namespace("aten")
META = device("meta")


def assert_geometry(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")


# --- clone / _to_copy / lift_fresh_copy ---------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(spec=inputs(), data=st.data())
def test_clone_preserves_layout_like_torch(torch, spec, data):
    shape, dtype_name, perm, step = spec
    x, tx = pair(torch, make_array(shape, dtype_name), perm, step)
    if data.draw(st.booleans()) and x.dim() > 0:  # a broadcast (overlapping) input
        x = aten.expand.default(aten.unsqueeze.default(x, 0), [2, *x.shape])
        tx = tx.unsqueeze(0).expand(2, *tx.shape)
    fmt = data.draw(st.sampled_from([None, 0, 1]))
    tfmt = {None: torch.preserve_format, 0: torch.contiguous_format, 1: torch.preserve_format}[fmt]
    out = aten.clone.default(x, memory_format=fmt)
    expected = tx.clone(memory_format=tfmt)
    assert_same(out, expected)
    assert out._base is None and out._storage is not x._storage
    assert_meta_matches(aten.clone.default(meta_like(x), memory_format=fmt), out)


def test_clone_channels_last_and_errors(torch):
    x, tx = pair(torch, make_array((2, 3, 4, 5), "float32"))
    assert_same(aten.clone.default(x, memory_format=2), tx.clone(memory_format=torch.channels_last))
    p, tp = pair(torch, make_array((2, 3, 4, 5), "float32"), perm=(0, 2, 3, 1))
    assert_same(aten.clone.default(p, memory_format=2), tp.clone(memory_format=torch.channels_last))
    from dispatcher.memory_format import channels_last, contiguous_format

    assert_same(aten.clone.default(p, memory_format=contiguous_format), tp.clone(memory_format=torch.contiguous_format))
    assert_same(aten.clone.default(p, memory_format=channels_last), tp.clone(memory_format=torch.channels_last))
    y, ty = pair(torch, make_array((2, 3), "float32"))
    raises_like(torch, lambda: aten.clone.default(y, memory_format=2),
                lambda: ty.clone(memory_format=torch.channels_last))
    # size-1 dims with odd strides count as dense: kept as is
    z, tz = pair(torch, make_array((3, 1, 4), "float32"))
    z = aten.as_strided.default(z, [3, 1, 4], [4, 100, 1])
    tz = tz.as_strided((3, 1, 4), (4, 100, 1))
    assert_geometry(aten.clone.default(z), tz.clone())


def test_lift_fresh_copy_is_contiguous(torch):
    x, tx = pair(torch, make_array((2, 3), "int64"), perm=(1, 0))  # torch's *_copy kernels clone contiguous
    out = aten.lift_fresh_copy.default(x)
    assert_same(out, torch.ops.aten.lift_fresh_copy(tx))
    assert out._storage is not x._storage


@settings(max_examples=80, deadline=None)
@given(spec=inputs(), target=dtype_names, data=st.data())
def test_to_copy_dtype_and_layout(torch, spec, target, data):
    shape, dtype_name, perm, step = spec
    arr = make_array(shape, dtype_name)
    if dtype_name.startswith("float") and target in ("uint8", "int8", "int16", "int32", "int64"):
        arr = np.abs(arr) * 10  # keep float -> int conversions defined
    x, tx = pair(torch, arr, perm, step)
    copy = data.draw(st.booleans())
    kwargs = {"dtype": getattr(dispatcher, target)} if not copy or target != dtype_name else {}
    tkwargs = {"dtype": getattr(torch, target)} if kwargs else {}
    out = aten._to_copy.default(x, **kwargs)
    expected = torch.ops.aten._to_copy(tx, **tkwargs)
    assert_same(out, expected)
    meta = aten._to_copy.default(x, device="meta", **kwargs)
    assert_meta_matches(meta, out)
    assert_meta_matches(aten._to_copy.default(meta_like(x), **kwargs), out)


def test_to_copy_devices_follow_backend_select(torch):
    x, tx = pair(torch, make_array((2, 3), "float32"), perm=(1, 0))
    m = aten._to_copy.default(x, device="meta")
    assert m.device.type == "meta" and m.stride() == torch.ops.aten._to_copy(tx, device="meta").stride()
    # a meta tensor with device=None stays meta (Meta beats the default CPU backend)
    assert aten._to_copy.default(m, dtype=dispatcher.float64).device.type == "meta"
    raises_like(torch, lambda: aten._to_copy.default(m, device="cpu"),
                lambda: torch.ops.aten._to_copy(tx.to("meta"), device="cpu"))
    c = aten._to_copy.default(x, device="cpu")
    assert c.device.type == "cpu" and c._storage is not x._storage


# --- copy_ ----------------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(dst_spec=inputs(st.lists(st.integers(0, 3), max_size=3).map(tuple)), src_dtype=dtype_names, data=st.data())
def test_copy_broadcasts_and_converts(torch, dst_spec, src_dtype, data):
    shape, dtype_name, perm, step = dst_spec
    x, tx = pair(torch, make_array(shape, dtype_name), perm, step)
    src_shape = tuple(x.shape)[data.draw(st.integers(0, len(x.shape))):]
    src_shape = tuple(1 if data.draw(st.booleans()) else s for s in src_shape)
    if data.draw(st.integers(0, 4)) == 0:
        src_shape = (2, *src_shape)
    arr = make_array(src_shape, src_dtype, seed=1)
    if src_dtype.startswith("float") and dtype_name != "bool" and not dtype_name.startswith("float"):
        arr = np.abs(arr) * 10
    s, ts = pair(torch, arr)
    try:
        tx.copy_(ts)
    except Exception:
        raises_like(torch, lambda: aten.copy_.default(x, s), lambda: tx.copy_(ts))
        return
    out = aten.copy_.default(x, s)
    assert out is x
    assert_same(x, tx)
    aten.copy_.default(meta_like(x), s)  # meta destination: checks only


def test_copy_writes_through_views_and_errors(torch):
    base = Tensor._from_numpy(np.zeros((3, 4), np.float32))
    tbase = torch.zeros(3, 4)
    v = aten.slice.Tensor(aten.t.default(base), 0, 1, None, 2)
    aten.copy_.default(v, Tensor._from_numpy(np.arange(3, dtype=np.int64)))
    tbase.t()[1::2].copy_(torch.arange(3))
    np.testing.assert_array_equal(base._data, tbase.numpy())
    a, ta = pair(torch, np.zeros((2, 2), np.float32))
    b, tb = pair(torch, np.zeros((3,), np.float32))
    raises_like(torch, lambda: aten.copy_.default(a, b), lambda: ta.copy_(tb))
    c, tc = pair(torch, np.zeros((3,), np.float32))
    d, td = pair(torch, np.zeros((1, 3), np.float32))
    raises_like(torch, lambda: aten.copy_.default(c, d), lambda: tc.copy_(td))
    e = aten.expand.default(Tensor._from_numpy(np.zeros(2, np.float32)), [2, 2])
    te = torch.zeros(2).expand(2, 2)
    raises_like(torch, lambda: aten.copy_.default(e, a), lambda: te.copy_(ta))
    raises_like(torch, lambda: aten.copy_.default(a, meta_like(a)),
                lambda: ta.copy_(torch.zeros(2, 2, device="meta")))
    m = meta_like(a)
    assert aten.copy_.default(m, a) is m
    # an empty expanded destination has no overlap to complain about, as torch
    empty = aten.expand.default(Tensor._from_numpy(np.zeros((0, 1), np.float32)), [0, 2])
    aten.copy_.default(empty, Tensor._from_numpy(np.zeros(2, np.float32)))
    torch.zeros(0, 1).expand(0, 2).copy_(torch.zeros(2))


def test_copy_partial_overlap(torch):
    x, tx = pair(torch, np.arange(6, dtype=np.float32))
    raises_like(torch, lambda: aten.copy_.default(aten.slice.Tensor(x, 0, 1), aten.slice.Tensor(x, 0, 0, -1)),
                lambda: tx[1:].copy_(tx[:-1]))
    y, ty = pair(torch, np.arange(4, dtype=np.float32).reshape(2, 2))
    raises_like(torch, lambda: aten.copy_.default(y, aten.t.default(y)), lambda: ty.copy_(ty.t()))
    # same elements the same way (a full overlap) and non-dense overlaps are allowed, as torch
    aten.copy_.default(y, aten.alias.default(y))
    z, tz = pair(torch, np.arange(6, dtype=np.float32).reshape(2, 3))
    aten.copy_.default(z, aten.slice.Tensor(z, 1, 0, 1))
    tz.copy_(tz[:, :1])
    np.testing.assert_array_equal(z._data, tz.numpy())


def test_copy_conversions(torch):
    for dst, values in [("int64", [1.7, -2.7]), ("bool", [0.5, 0.0]), ("uint8", [-1, 300]), ("float16", [1e5, 1])]:
        src_dtype = np.float64 if isinstance(values[0], float) else np.int64
        x = Tensor._from_numpy(np.zeros(2, dst))
        aten.copy_.default(x, Tensor._from_numpy(np.array(values, src_dtype)))
        tx = torch.zeros(2, dtype=getattr(torch, dst)).copy_(torch.tensor(values, dtype=getattr(torch, str(
            np.dtype(src_dtype)))))
        assert x._data.tolist() == tx.tolist()


# --- fill_ / zero_ ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("value", [0, 1, -1, 2.7, -1.5, True, 127.9, 128, -128.9, -255, -256, 300, 70000, 1e6,
                                   1e300, float("inf"), float("nan"), 2**63 - 1, -(2**63)])
def test_fill_scalar(torch, dtype_name, value):
    arr = np.zeros((2, 3), dtype_name)
    x, tx = pair(torch, arr, perm=(1, 0))
    try:
        tx.fill_(value)
    except Exception:
        raises_like(torch, lambda: aten.fill_.Scalar(x, value), lambda: tx.fill_(value))
        return
    assert aten.fill_.Scalar(x, value) is x
    np.testing.assert_array_equal(x._data, tx.numpy())
    m = meta_like(x)
    assert aten.fill_.Scalar(m, value) is m


def test_fill_and_zero_through_views(torch):
    x = Tensor._from_numpy(np.ones((3, 4), np.int32))
    tx = torch.ones(3, 4, dtype=torch.int32)
    aten.fill_.Scalar(aten.select.int(x, 1, 2), 7)
    tx[:, 2].fill_(7)
    aten.zero_.default(aten.slice.Tensor(x, 0, 1, 3))
    tx[1:3].zero_()
    np.testing.assert_array_equal(x._data, tx.numpy())
    # fill_ on an expanded (overlapping) tensor is allowed, as torch
    e = aten.expand.default(aten.select.int(x, 0, 0), [2, 4])
    aten.fill_.Scalar(e, 5)
    assert np.all(x._data[0] == 5)
    assert aten.zero_.default(meta_like(x)).device.type == "meta"


# --- index_select -------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(spec=inputs(), data=st.data())
def test_index_select(torch, spec, data):
    shape, dtype_name, perm, step = spec
    x, tx = pair(torch, make_array(shape, dtype_name), perm, step)
    n = len(shape)
    dim = data.draw(st.integers(-n - 1, n))
    idx_list = data.draw(st.lists(st.integers(-1, 4), max_size=4))
    idx_dtype = data.draw(st.sampled_from(["int64", "int32"]))
    scalar_index = data.draw(st.booleans()) and len(idx_list) == 1
    idx_arr = np.array(idx_list[0] if scalar_index else idx_list, idx_dtype)
    i, ti = pair(torch, idx_arr)
    try:
        expected = tx.index_select(dim, ti)
    except Exception:
        raises_like(torch, lambda: aten.index_select.default(x, dim, i), lambda: tx.index_select(dim, ti))
        return
    out = aten.index_select.default(x, dim, i)
    assert_same(out, expected)
    assert_meta_matches(aten.index_select.default(meta_like(x), dim, meta_like(i)), out)


def test_index_select_messages(torch):
    x, tx = pair(torch, np.zeros((2, 2), np.float32))
    for arr in (np.array([0, 5]), np.array([0.0]), np.array([[0]]), np.array([-1])):
        i, ti = pair(torch, arr)
        raises_like(torch, lambda: aten.index_select.default(x, 0, i), lambda: tx.index_select(0, ti))  # noqa: B023
    i, ti = pair(torch, np.array([0]))
    raises_like(torch, lambda: aten.index_select.default(x, 3, i), lambda: tx.index_select(3, ti))


# --- index.Tensor -------------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(spec=inputs(st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)), data=st.data())
def test_index_tensor_matches_torch(torch, spec, data):
    shape, dtype_name, perm, step = spec
    x, tx = pair(torch, make_array(shape, dtype_name), perm, step)
    n = x.dim()
    count = data.draw(st.integers(1, n))
    entries, tentries = [], []
    index_shape = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2)))
    used_mask = False
    for d in range(count):
        kind = data.draw(st.sampled_from(["none", "long", "long", "int", "bool"]))
        if kind == "none" or (kind == "bool" and used_mask):
            entries.append(None)
            tentries.append(None)
            continue
        size = x.shape[d]
        if kind == "bool":
            used_mask = True
            arr = make_array((size,), "bool", seed=d)
        else:
            bshape = index_shape[data.draw(st.integers(0, len(index_shape))):]
            arr = np.random.default_rng(d).integers(-size, size, size=bshape).astype(
                "int64" if kind == "long" else "int32")
        i, ti = pair(torch, arr)
        entries.append(i)
        tentries.append(ti)
    if all(e is None for e in entries):
        return
    try:
        expected = torch.ops.aten.index.Tensor(tx, tentries)
    except Exception:
        raises_like(torch, lambda: aten.index.Tensor(x, entries), lambda: torch.ops.aten.index.Tensor(tx, tentries))
        return
    out = aten.index.Tensor(x, entries)
    assert_geometry(out, expected)
    np.testing.assert_array_equal(out._data, expected.numpy())
    if not used_mask:
        m = aten.index.Tensor(meta_like(x), [None if e is None else meta_like(e) for e in entries])
        assert_meta_matches(m, out)


def test_index_tensor_layouts(torch):
    arr = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    cases = [((2, 0, 1), [None, [0, 1]]), ((2, 1, 0), [None, None, [0, 1]]), ((0, 2, 1), [None, [0, 1, 2]]),
             (None, [[0, 1], None, [0, 1]]), (None, [None, None, [[0, 1], [1, 2]]])]
    for perm, idx in cases:
        x, tx = pair(torch, arr, perm=perm)
        entries = [None if i is None else Tensor._from_numpy(np.array(i)) for i in idx]
        tentries = [None if i is None else torch.tensor(i) for i in idx]
        out = aten.index.Tensor(x, entries)
        expected = torch.ops.aten.index.Tensor(tx, tentries)
        assert_geometry(out, expected)
        np.testing.assert_array_equal(out._data, expected.numpy())
    # empty results: TensorIterator's strides from raw sizes unless the dim order is natural
    for shape, idx in [((1, 2, 1, 1), [None, None, np.array([], np.int64)]), ((4, 2, 3, 5), [None, None, []]),
                       ((0, 2, 3, 5), [None, None, [0]]), ((2, 3), [None, []]), ((1, 2, 1, 1), [None, None, [0]]),
                       ((1, 1, 1, 1), [None, None, []])]:
        x, tx = pair(torch, np.zeros(shape, np.float32))
        entries = [None if i is None else Tensor._from_numpy(np.array(i, np.int64)) for i in idx]
        tentries = [None if i is None else torch.tensor(np.array(i, np.int64)) for i in idx]
        assert_geometry(aten.index.Tensor(x, entries), torch.ops.aten.index.Tensor(tx, tentries))


def test_index_tensor_messages(torch):
    y, ty = pair(torch, np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))

    def both(idx):
        ours = [None if i is None else Tensor._from_numpy(np.array(i)) for i in idx]
        theirs = [None if i is None else torch.tensor(np.array(i)) for i in idx]
        raises_like(torch, lambda: aten.index.Tensor(y, ours), lambda: torch.ops.aten.index.Tensor(ty, theirs))

    both([])
    both([[0], [0], [0], [0]])
    both([[5]])
    both([None, [-4]])
    both([np.array([0.0])])
    both([np.array([0], np.int16)])
    both([[True, False, True]])
    both([[0, 1], [0, 1, 2]])
    mask = meta_like(Tensor._from_numpy(np.array([True, False])))
    raises_like(torch, lambda: aten.index.Tensor(meta_like(y), [mask]),
                lambda: torch.ops.aten.index.Tensor(ty.to("meta"), [torch.tensor([True, False]).to("meta")]))


def test_index_with_masks(torch):
    y, ty = pair(torch, np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))
    for idx in ([np.ones((2, 3), bool)], [None, np.array([True, False, True])], [np.ones((2, 3), np.uint8)],
                [np.array([1]), np.array([True, False, True])]):
        ours = aten.index.Tensor(y, [None if i is None else Tensor._from_numpy(i) for i in idx])
        theirs = torch.ops.aten.index.Tensor(ty, [None if i is None else torch.from_numpy(i) for i in idx])
        assert_geometry(ours, theirs)
        np.testing.assert_array_equal(ours._data, theirs.numpy())


# --- nonzero / _local_scalar_dense ---------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(spec=inputs())
def test_nonzero(torch, spec):
    shape, dtype_name, perm, step = spec
    x, tx = pair(torch, make_array(shape, dtype_name), perm, step)
    out = aten.nonzero.default(x)
    expected = tx.nonzero()
    assert_geometry(out, expected)
    np.testing.assert_array_equal(out._data, expected.numpy())
    raises_like(torch, lambda: aten.nonzero.default(meta_like(x)), lambda: tx.to("meta").nonzero())


def test_nonzero_scalars(torch):
    for v in (0.0, 1.0):
        x, tx = pair(torch, np.array(v, np.float32))
        assert_geometry(aten.nonzero.default(x), tx.nonzero())


def test_local_scalar_dense(torch):
    x, tx = pair(torch, np.array([[2.5]], np.float32))
    assert aten._local_scalar_dense.default(x) == tx.item()
    y, ty = pair(torch, np.arange(3, dtype=np.int64) + 7)
    # The op reads the first element (as torch's does); the one-element check is Tensor.item()'s.
    assert aten._local_scalar_dense.default(y) == torch.ops.aten._local_scalar_dense.default(ty) == 7
    raises_like(torch, lambda: y.item(), lambda: ty.item())
    with pytest.raises(RuntimeError, match="Tensor.item\\(\\) cannot be called on meta tensors"):
        aten._local_scalar_dense.default(meta_like(x))
