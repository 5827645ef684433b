"""View and shape kernels against torch 2.13: geometry (shape, strides, storage offset), values, meta, errors.

Covers views.py (view, _unsafe_view, unsqueeze, squeeze*, transpose, t, permute, expand, select,
slice, as_strided, alias, detach, unbind, split) and shape_ops.py (cat, stack). Inputs are
contiguous or made non-contiguous with the same permute/slice on both sides, so strides must
match torch's exactly. Views must share storage with their base (checked by writing through them).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor, device

aten = namespace("aten")
META = device("meta")
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


# --- helpers ----------------------------------------------------------------------------------------


def make_array(shape, dtype_name, seed=0):
    rng = np.random.default_rng(seed)
    if dtype_name == "bool":
        return rng.random(shape) > 0.5
    if dtype_name.startswith("float"):
        return rng.standard_normal(shape).astype(dtype_name)
    return rng.integers(0, 100, size=shape).astype(dtype_name)


def pair(torch, arr, perm=None, step=None):
    """Ours and torch's tensors over ``arr``, both made non-contiguous the same way if asked."""
    ours = Tensor._from_numpy(np.array(arr, order="C"))
    src = torch.from_numpy(np.array(arr, order="C"))
    theirs = torch.empty(arr.shape, dtype=src.dtype).copy_(src)  # torch.tensor(ndarray) gives odd strides when empty
    if perm is not None:
        ours = aten.permute.default(ours, list(perm))
        theirs = theirs.permute(list(perm))
    if step is not None and ours.dim() > 0:
        ours = aten.slice.Tensor(ours, 0, None, None, step)
        theirs = theirs[::step]
    return ours, theirs


def meta_like(t):
    return Tensor._from_storage(None, t._shape, t._stride, t._storage_offset, t._dtype, META)


def assert_same(ours, theirs, values=True):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    if values and ours.device.type == "cpu":
        np.testing.assert_array_equal(np.asarray(ours._data), theirs.numpy())


def assert_meta_matches(meta_out, cpu_out):
    assert meta_out.device.type == "meta"
    assert meta_out._shape == cpu_out._shape
    assert meta_out._stride == cpu_out._stride
    assert meta_out._storage_offset == cpu_out._storage_offset
    assert meta_out.dtype is cpu_out.dtype


def raises_like(torch, ours_fn, torch_fn):
    """Both raise the same exception type with the same first message line."""
    with pytest.raises(Exception) as theirs:
        torch_fn()
    with pytest.raises(Exception) as ours:
        ours_fn()
    assert type(ours.value).__name__ == type(theirs.value).__name__, (ours.value, theirs.value)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)
dtype_names = st.sampled_from(DTYPES)


@st.composite
def inputs(draw, shape_strategy=shapes):
    shape = draw(shape_strategy)
    dtype_name = draw(dtype_names)
    perm = draw(st.permutations(range(len(shape)))) if draw(st.booleans()) else None
    step = draw(st.sampled_from([None, 2]))
    return shape, dtype_name, perm, step


def run_view(torch, spec, ours_fn, torch_fn):
    """Run a view op on ours/torch/meta with the same input; check geometry, values, aliasing."""
    shape, dtype_name, perm, step = spec
    x, tx = pair(torch, make_array(shape, dtype_name), perm, step)
    try:
        expected = torch_fn(tx)
    except Exception:
        raises_like(torch, lambda: ours_fn(x), lambda: torch_fn(tx))
        return None
    out = ours_fn(x)
    assert_same(out, expected)
    assert_meta_matches(ours_fn(meta_like(x)), out)
    return out


# --- view / _unsafe_view ------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(spec=inputs(), data=st.data())
def test_view_matches_torch(torch, spec, data):
    shape = spec[0]
    numel = int(np.prod(shape))
    target = data.draw(st.sampled_from([[numel], [-1], [1, numel], [numel, 1], [-1, 1], list(reversed(shape)),
                                        [*shape, 1], [1, *shape]]))
    run_view(torch, spec, lambda x: aten.view.default(x, target), lambda t: t.view(target))


@settings(max_examples=40, deadline=None)
@given(spec=inputs(nonempty_shapes))
def test_unsafe_view_is_not_a_view(torch, spec):
    out = run_view(torch, spec, lambda x: aten._unsafe_view.default(x, [-1]),
                   lambda t: torch.ops.aten._unsafe_view.default(t, [-1]))
    if out is not None:
        assert out._base is None


@pytest.mark.parametrize("size", [[3], [-1, -1], [-2, 2], [5, -1], [0, -1]])
def test_view_errors(torch, size):
    x, tx = pair(torch, np.zeros((2, 2), np.float32))
    raises_like(torch, lambda: aten.view.default(x, size), lambda: tx.view(size))


def test_view_errors_zero_numel_and_noncontiguous(torch):
    x, tx = pair(torch, np.zeros((0, 3), np.float32))
    raises_like(torch, lambda: aten.view.default(x, [-1, 0]), lambda: tx.view(-1, 0))
    y, ty = pair(torch, np.zeros((2, 3), np.float32), perm=(1, 0))
    raises_like(torch, lambda: aten.view.default(y, [6]), lambda: ty.view(6))
    raises_like(torch, lambda: aten._unsafe_view.default(y, [6]), lambda: torch.ops.aten._unsafe_view(ty, [6]))


# --- unsqueeze / squeeze / transpose / t / permute -------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(spec=inputs(), data=st.data())
def test_unsqueeze(torch, spec, data):
    dim = data.draw(st.integers(-len(spec[0]) - 2, len(spec[0]) + 1))
    run_view(torch, spec, lambda x: aten.unsqueeze.default(x, dim), lambda t: t.unsqueeze(dim))


@settings(max_examples=60, deadline=None)
@given(spec=inputs(st.lists(st.sampled_from([0, 1, 1, 2, 3]), max_size=4).map(tuple)), data=st.data())
def test_squeeze_variants(torch, spec, data):
    n = len(spec[0])
    run_view(torch, spec, lambda x: aten.squeeze.default(x), lambda t: t.squeeze())
    dim = data.draw(st.integers(-n - 1, n))
    run_view(torch, spec, lambda x: aten.squeeze.dim(x, dim), lambda t: t.squeeze(dim))
    dims = data.draw(st.lists(st.integers(-n - 1, n), max_size=3))
    run_view(torch, spec, lambda x: aten.squeeze.dims(x, dims), lambda t: t.squeeze(tuple(dims)))


@settings(max_examples=60, deadline=None)
@given(spec=inputs(), data=st.data())
def test_transpose_t_permute(torch, spec, data):
    n = len(spec[0])
    d0 = data.draw(st.integers(-n - 1, n))
    d1 = data.draw(st.integers(-n - 1, n))
    run_view(torch, spec, lambda x: aten.transpose.int(x, d0, d1), lambda t: t.transpose(d0, d1))
    run_view(torch, spec, lambda x: aten.t.default(x), lambda t: t.t())
    perm = data.draw(st.one_of(st.permutations(range(n)).map(list),
                               st.lists(st.integers(-n - 1, n), max_size=n + 1)))
    run_view(torch, spec, lambda x: aten.permute.default(x, perm), lambda t: t.permute(perm))


def test_permute_and_t_errors(torch):
    x, tx = pair(torch, np.zeros((2, 2), np.float32))
    raises_like(torch, lambda: aten.permute.default(x, [0]), lambda: tx.permute(0))
    raises_like(torch, lambda: aten.permute.default(x, [0, 0]), lambda: tx.permute(0, 0))
    raises_like(torch, lambda: aten.permute.default(x, [0, 2]), lambda: tx.permute(0, 2))
    y, ty = pair(torch, np.zeros((3, 4, 5), np.float32))
    raises_like(torch, lambda: aten.t.default(y), lambda: ty.t())
    raises_like(torch, lambda: aten.squeeze.dims(y, [0, -3]), lambda: ty.squeeze((0, -3)))


# --- expand -------------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(spec=inputs(st.lists(st.sampled_from([0, 1, 1, 2, 3]), max_size=3).map(tuple)), data=st.data())
def test_expand(torch, spec, data):
    shape = spec[0]
    lead = data.draw(st.lists(st.sampled_from([1, 2, 3, -1]), max_size=2))
    tail = [data.draw(st.sampled_from([s, -1, 0, 2, 3] if s == 1 else [s, -1, 2, -2])) for s in shape]
    size = lead + tail
    x, tx = pair(torch, make_array(shape, spec[1]), spec[2], spec[3])
    try:
        expected = tx.expand(size)
    except Exception:
        expected = None
    if expected is not None and min(expected.shape, default=0) < 0:
        # torch returns a tensor with a negative size here (numel 0); we refuse like its numel check does
        with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
            aten.expand.default(x, size)
        return
    run_view(torch, spec, lambda x: aten.expand.default(x, size), lambda t: t.expand(size))


@pytest.mark.parametrize("size", [[2, 3], [3], [-1, -1], [3, -1, -1], [-1, 2, 2], [2, -2], [1, 2, 2]])
def test_expand_messages(torch, size):
    x, tx = pair(torch, np.zeros((2, 2), np.float32))
    try:
        expected = tx.expand(size)
    except Exception:
        raises_like(torch, lambda: aten.expand.default(x, size), lambda: tx.expand(size))
    else:
        assert_same(aten.expand.default(x, size), expected)
    m = meta_like(x)
    tm = torch.zeros(2, 2, device="meta")
    if len(size) < 2:
        raises_like(torch, lambda: aten.expand.default(m, size), lambda: tm.expand(size))


def test_expand_message_text(torch):
    x = Tensor._from_numpy(np.zeros((2, 2), np.float32))
    with pytest.raises(RuntimeError) as e:
        aten.expand.default(x, [2, 3])
    assert str(e.value) == ("The expanded size of the tensor (3) must match the existing size (2) at non-singleton "
                            "dimension 1.  Target sizes: [2, 3].  Tensor sizes: [2, 2]")
    i = Tensor._from_numpy(np.zeros((2, 2), np.int64))
    raises_like(torch, lambda: aten.expand.default(i, [3]), lambda: torch.zeros(2, 2, dtype=torch.int64).expand(3))


# --- select / slice / as_strided -----------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(spec=inputs(), data=st.data())
def test_select(torch, spec, data):
    n = len(spec[0])
    dim = data.draw(st.integers(-n - 1, n))
    index = data.draw(st.integers(-5, 5))
    run_view(torch, spec, lambda x: aten.select.int(x, dim, index), lambda t: t.select(dim, index))


def test_select_messages(torch):
    x, tx = pair(torch, np.zeros((3, 4), np.float32))
    raises_like(torch, lambda: aten.select.int(x, 0, 5), lambda: tx.select(0, 5))
    with pytest.raises(IndexError, match=r"^select\(\): index 5 out of range for tensor of size \[3, 4\] at dimension 0$"):
        aten.select.int(x, 0, 5)
    raises_like(torch, lambda: aten.select.int(x, 1, -5), lambda: tx.select(1, -5))
    raises_like(torch, lambda: aten.select.int(x, 2, 0), lambda: tx.select(2, 0))
    s, ts = pair(torch, np.zeros((), np.float32))
    raises_like(torch, lambda: aten.select.int(s, 0, 0), lambda: ts.select(0, 0))


@settings(max_examples=100, deadline=None)
@given(spec=inputs(), data=st.data())
def test_slice(torch, spec, data):
    n = len(spec[0])
    dim = data.draw(st.integers(-n - 1, n))
    start = data.draw(st.one_of(st.none(), st.integers(-7, 7)))
    end = data.draw(st.one_of(st.none(), st.integers(-7, 7), st.just(2**63 - 1)))
    step = data.draw(st.integers(-1, 3))
    run_view(torch, spec, lambda x: aten.slice.Tensor(x, dim, start, end, step),
             lambda t: torch.ops.aten.slice.Tensor(t, dim, start, end, step))


def test_slice_messages(torch):
    x, tx = pair(torch, np.zeros((3, 4), np.float32))
    for step in (0, -1):
        raises_like(torch, lambda: aten.slice.Tensor(x, 0, 0, 3, step),  # noqa: B023
                    lambda: torch.ops.aten.slice.Tensor(tx, 0, 0, 3, step))  # noqa: B023
    s, ts = pair(torch, np.zeros((), np.float32))
    raises_like(torch, lambda: aten.slice.Tensor(s, 0), lambda: torch.ops.aten.slice.Tensor(ts, 0))
    out = aten.slice.Tensor(x, 1, -10, 10, 2)
    assert_same(out, torch.ops.aten.slice.Tensor(tx, 1, -10, 10, 2))


@pytest.mark.parametrize("size,stride,offset", [
    ((2, 2), (1, 2), None), ((2,), (1,), 1), ((3,), (0,), 2), ((2, 2), (1, 2), -1), ((2, 2), (1, -2), None),
    ((3, 3), (1, 2), None), ((2,), (1, 2), None), ((0, 5), (9, 9), 3), ((2, 2), (2, 1), 0),
])
def test_as_strided(torch, size, stride, offset):
    x, tx = pair(torch, np.arange(4, dtype=np.float32).reshape(2, 2))
    ours = lambda: aten.as_strided.default(x, list(size), list(stride), offset)  # noqa: E731
    theirs = lambda: tx.as_strided(size, stride, offset)  # noqa: E731
    try:
        expected = theirs()
    except Exception:
        raises_like(torch, ours, theirs)
        return
    out = ours()
    assert_same(out, expected)
    assert_meta_matches(aten.as_strided.default(meta_like(x), list(size), list(stride), offset), out)


def test_as_strided_keeps_offset_of_view(torch):
    x, tx = pair(torch, np.arange(6, dtype=np.float32).reshape(3, 2))
    v, tv = aten.select.int(x, 0, 1), tx[1]
    assert_same(aten.as_strided.default(v, [2], [1]), tv.as_strided((2,), (1,)))


# --- alias / detach / unbind / split -----------------------------------------------------------------


def test_alias_and_detach_share_storage(torch):
    x = Tensor._from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    a = aten.alias.default(x)
    d = aten.detach.default(x)
    assert a._base is x and d._base is None  # as torch: detach is not an autograd view
    assert d._version_counter is x._version_counter
    aten.fill_.Scalar(d, 7.0)
    assert np.all(x._data == 7.0) and np.all(a._data == 7.0)
    tx = torch.zeros(2, 3)
    assert torch.ops.aten.alias(tx)._base is tx and torch.ops.aten.detach(tx)._base is None
    assert_meta_matches(aten.detach.default(meta_like(x)), d)


@settings(max_examples=50, deadline=None)
@given(spec=inputs(), data=st.data())
def test_unbind(torch, spec, data):
    shape, dtype_name, perm, step = spec
    n = len(shape)
    dim = data.draw(st.integers(-n - 1, n))
    x, tx = pair(torch, make_array(shape, dtype_name), perm, step)
    try:
        expected = tx.unbind(dim)
    except Exception:
        raises_like(torch, lambda: aten.unbind.int(x, dim), lambda: tx.unbind(dim))
        return
    out = aten.unbind.int(x, dim)
    assert len(out) == len(expected)
    for o, e in zip(out, expected):
        assert_same(o, e)
    for o, m in zip(out, aten.unbind.int(meta_like(x), dim)):
        assert_meta_matches(m, o)


@settings(max_examples=60, deadline=None)
@given(spec=inputs(), data=st.data())
def test_split(torch, spec, data):
    shape, dtype_name, perm, step = spec
    n = len(shape)
    dim = data.draw(st.integers(-n - 1, n))
    size = data.draw(st.integers(-1, 5))
    x, tx = pair(torch, make_array(shape, dtype_name), perm, step)
    try:
        expected = torch.ops.aten.split.Tensor(tx, size, dim)
    except Exception:
        raises_like(torch, lambda: aten.split.Tensor(x, size, dim), lambda: torch.ops.aten.split.Tensor(tx, size, dim))
        return
    out = aten.split.Tensor(x, size, dim)
    assert len(out) == len(expected)
    for o, e in zip(out, expected):
        assert_same(o, e)
    for o, m in zip(out, aten.split.Tensor(meta_like(x), size, dim)):
        assert_meta_matches(m, o)


def test_split_messages(torch):
    x, tx = pair(torch, np.zeros((2, 2), np.float32))
    raises_like(torch, lambda: aten.split.Tensor(x, 0), lambda: tx.split(0))
    raises_like(torch, lambda: aten.split.Tensor(x, -1), lambda: tx.split(-1))
    s, ts = pair(torch, np.zeros((), np.float32))
    raises_like(torch, lambda: aten.split.Tensor(s, 1), lambda: torch.ops.aten.split.Tensor(ts, 1))
    raises_like(torch, lambda: aten.unbind.int(s, 0), lambda: ts.unbind(0))


# --- views share storage --------------------------------------------------------------------------------


def test_writes_through_views_show_in_base_and_back(torch):
    x = Tensor._from_numpy(np.zeros((3, 4), np.float32))
    tx = torch.zeros(3, 4)
    row, trow = aten.select.int(x, 0, 1), tx.select(0, 1)
    aten.fill_.Scalar(row, 5.0)
    trow.fill_(5.0)
    col, tcol = aten.slice.Tensor(aten.t.default(x), 0, 1, 4, 2), tx.t()[1:4:2]
    aten.copy_.default(col, Tensor._from_numpy(np.array([1.0, 2.0, 3.0], np.float32)))
    tcol.copy_(torch.tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x._data, tx.numpy())
    assert row._base is x and col._base is x
    # base -> view
    aten.fill_.Scalar(x, -1.0)
    assert np.all(row._data == -1.0) and np.all(col._data == -1.0)
    # through an expand, unsqueeze and a view of a view
    e = aten.unsqueeze.default(aten.view.default(x, [12]), 0)
    aten.zero_.default(aten.select.int(e, 1, 11))
    assert x._data[2, 3] == 0.0
    parts = aten.split.Tensor(x, 2, 1)
    aten.fill_.Scalar(parts[1], 9.0)
    assert np.all(x._data[:, 2:] == 9.0)


# --- cat / stack ------------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_cat(torch, data):
    shape = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple))
    n = len(shape)
    dim = data.draw(st.integers(-n, n - 1))
    count = data.draw(st.integers(1, 3))
    ours, theirs = [], []
    for k in range(count):
        s = list(shape)
        s[dim] = data.draw(st.integers(0, 3))
        dtype_name = data.draw(dtype_names)
        perm = data.draw(st.permutations(range(n))) if data.draw(st.booleans()) else None
        if data.draw(st.integers(0, 5)) == 0:
            s, perm = [0], None  # a legacy empty tensor, skipped by the shape checks
        arr = make_array(tuple(s), dtype_name, seed=k)
        if perm is not None:
            arr = np.ascontiguousarray(arr.transpose(np.argsort(perm)))  # so that the permuted view has shape s
        a, ta = pair(torch, arr, perm)
        ours.append(a)
        theirs.append(ta)
    try:
        expected = torch.cat(theirs, dim)
    except Exception:
        raises_like(torch, lambda: aten.cat.default(ours, dim), lambda: torch.cat(theirs, dim))
        return
    out = aten.cat.default(ours, dim)
    assert_same(out, expected)
    assert_meta_matches(aten.cat.default([meta_like(t) for t in ours], dim), out)


@pytest.mark.parametrize("shapes,dim", [
    ([(2, 2), (3, 2)], 1), ([(2, 2), (2, 3)], 0), ([(2, 2), (2, 2, 2)], 1), ([(2, 2), ()], 1), ([(), ()], 0),
    ([(2, 2), (0,)], 1), ([(2, 2), (0,)], 5), ([(0,), (0,)], 5), ([(2, 2), (2, 2)], 2), ([(2, 2)], -3),
    ([(0, 3), (0, 4)], 0), ([(0,), (0, 2)], 1), ([(2, 0), (2, 3)], 1),
])
def test_cat_shapes_and_messages(torch, shapes, dim):
    ours = [Tensor._from_numpy(np.ones(s, np.float32)) for s in shapes]
    theirs = [torch.ones(s) for s in shapes]
    try:
        expected = torch.cat(theirs, dim)
    except Exception:
        raises_like(torch, lambda: aten.cat.default(ours, dim), lambda: torch.cat(theirs, dim))
        return
    assert_same(aten.cat.default(ours, dim), expected)


def test_cat_message_texts(torch):
    a = Tensor._from_numpy(np.zeros((2, 2), np.float32))
    b = Tensor._from_numpy(np.zeros((2, 3), np.float32))
    with pytest.raises(RuntimeError) as e:
        aten.cat.default([a, b], 0)
    assert str(e.value) == ("Sizes of tensors must match except in dimension 0. Expected size 2 but got size 3 for "
                            "tensor number 1 in the list.")
    # torch's ValueError for an empty list comes from its Python argument parser, before dispatch
    with pytest.raises(ValueError, match=r"^torch.cat\(\): expected a non-empty list of Tensors$"):
        torch.cat([])
    from dispatcher.ops.shape import cat_meta

    with pytest.raises(ValueError, match=r"^torch.cat\(\): expected a non-empty list of Tensors$"):
        cat_meta([], 0)
    m = meta_like(a)
    raises_like(torch, lambda: aten.cat.default([a, m], 1),
                lambda: torch.cat([torch.zeros(2, 2), torch.zeros(2, 2, device="meta")], 1))
    raises_like(torch, lambda: aten.cat.default([m, a], 1),
                lambda: torch.cat([torch.zeros(2, 2, device="meta"), torch.zeros(2, 2)], 1))


def test_cat_type_promotion_and_channels_last(torch):
    i = Tensor._from_numpy(np.ones((2, 2), np.int64))
    e = Tensor._from_numpy(np.zeros((0,), np.float64))
    h = Tensor._from_numpy(np.ones((2, 2), np.float16))
    assert aten.cat.default([i, e], 1).dtype.name == "float64"
    assert aten.cat.default([h, i], 0).dtype.name == "float16"
    assert str(torch.cat([torch.ones(2, 2, dtype=torch.int64), torch.zeros(0, dtype=torch.float64)], 1).dtype) == \
        "torch.float64"
    # channels_last inputs give a channels_last output, as torch
    arr = make_array((2, 3, 3, 3), "float32")
    x, tx = pair(torch, arr.transpose(0, 2, 3, 1), perm=(0, 3, 1, 2))
    assert_same(aten.cat.default([x, x], 1), torch.cat([tx, tx], 1))
    assert_same(aten.cat.default([x, x], 0), torch.cat([tx, tx], 0))
    # a tensor that is both contiguous and channels_last-like counts as channels_last, as in c10
    y, ty = pair(torch, make_array((1, 2, 1), "float32"), perm=(0, 2, 1))
    y, ty = aten.unsqueeze.default(y, 3), ty.unsqueeze(3)
    assert_same(aten.cat.default([y], 0), torch.cat([ty], 0))
    assert_same(aten.stack.default([aten.select.int(y, 3, 0)], -1), torch.stack([ty[..., 0]], -1))


@settings(max_examples=60, deadline=None)
@given(spec=inputs(st.lists(st.integers(0, 3), max_size=3).map(tuple)), data=st.data())
def test_stack(torch, spec, data):
    shape, dtype_name, perm, step = spec
    n = len(shape)
    dim = data.draw(st.integers(-n - 2, n + 1))
    count = data.draw(st.integers(1, 3))
    ours, theirs = zip(*[pair(torch, make_array(shape, dtype_name, seed=k), perm, step) for k in range(count)])
    try:
        expected = torch.stack(theirs, dim)
    except Exception:
        raises_like(torch, lambda: aten.stack.default(list(ours), dim), lambda: torch.stack(theirs, dim))
        return
    out = aten.stack.default(list(ours), dim)
    assert_same(out, expected)
    assert_meta_matches(aten.stack.default([meta_like(t) for t in ours], dim), out)


def test_stack_messages(torch):
    a = Tensor._from_numpy(np.zeros((2, 2), np.float32))
    b = Tensor._from_numpy(np.zeros((3, 4), np.float32))
    raises_like(torch, lambda: aten.stack.default([], 0), lambda: torch.ops.aten.stack.default([]))
    raises_like(torch, lambda: aten.stack.default([a, b]), lambda: torch.stack([torch.zeros(2, 2), torch.zeros(3, 4)]))
    raises_like(torch, lambda: aten.stack.default([a, a], 3), lambda: torch.stack([torch.zeros(2, 2)] * 2, 3))
