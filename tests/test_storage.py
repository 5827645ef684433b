"""Storages against torch 2.13: ``UntypedStorage`` / ``TypedStorage`` / the legacy classes (values, repr, errors,
the deprecation warning), which tensors share a storage (views, ``detach``, ``.data``, ``_make_subclass``, ``set_``;
``_cdata``, ``data_ptr``, ``is``), writes through a storage, meta storages, the ``set_`` overloads (values, errors,
autograd's NotImplemented node, make_fx graphs), wrapper subclasses' storages (test_python_dispatch.py's test_storage
and test_storage_can_be_converted_to_python_object) and ``return_and_correct_aliasing``'s storage aliasing.

Each program runs on both libraries (tests/subclass_env.py); the outcomes must be equal.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import pytest

from tests.subclass_env import both, outcome, skip_logging_tensor_in_pytest_capture

_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)


def _same(torch: Any, program: Any) -> Any:
    theirs, ours = both(torch, program)
    assert ours == theirs
    return ours


def _storage_module(E: Any) -> Any:
    return E.T.storage


# --- UntypedStorage ----------------------------------------------------------------------------------------------


def _untyped_values(E: Any) -> list:
    T = E.T
    x = T.tensor([0.0, 1.0, 2.0])
    s = x.untyped_storage()
    out = [s.nbytes(), s.size(), len(s), s.element_size(), str(s.device), s.tolist(), s[4], s[-1], s.is_shared(),
           s.type().replace("dispatcher", "torch"), s.data_ptr() == x.data_ptr(), repr(s).replace("dispatcher", "torch")]
    s[4] = 300  # (bytes wrap modulo 256)
    s[5] = -1
    out.append(x.tolist())
    s.fill_(0)
    out.append(x.tolist())
    s.copy_(T.ones(3).untyped_storage())
    out.append(x.tolist())
    c = s.clone()
    out += [c._cdata != s._cdata, c.tolist() == s.tolist(), c.data_ptr() != s.data_ptr(), s.cpu() is s,
            s[1:3].data_ptr() - s.data_ptr(), s[1:3].nbytes(), s == s, s == c]
    for fn in (lambda: s[12], lambda: s[-13], lambda: s["a"], lambda: s.copy_(T.ones(2).untyped_storage())):
        out.append(outcome(fn))
    return out


def test_untyped_storage_values_and_errors(torch: Any) -> None:
    _same(torch, _untyped_values)


def _untyped_constructors(E: Any) -> list:
    S = E.T.UntypedStorage
    out = [(s.nbytes(), s.tolist()) for s in (S(), S(0), S([1, 300, 2]), S(b"ab"))]
    out.append(S(3).nbytes())
    m = S(3, device="meta")
    out += [str(m.device), m.nbytes(), m.data_ptr(), repr(m).replace("dispatcher", "torch"), outcome(lambda: m[0])]
    for fn in (lambda: S(-1), lambda: S("ab"), lambda: S(2, 3), lambda: S(3, dtype=E.T.float32)):
        out.append(outcome(fn))
    out.append(E.T.is_storage(S(1)))
    out.append(E.T.is_storage(E.T.ones(1)))
    return out


def test_untyped_storage_constructors(torch: Any) -> None:
    _same(torch, _untyped_constructors)


# --- which tensors share a storage -------------------------------------------------------------------------------


def _identity(E: Any) -> list:
    T = E.T
    x = T.arange(6.0)
    s = x.untyped_storage()
    cdata = s._cdata
    sharing = [x[1:], x.view(2, 3), x.view(2, 3).t(), x.detach(), x.data, x.unsqueeze(0).expand(2, 6),
               T.Tensor._make_subclass(T.Tensor, x), x.view(T.int32), x.view(T.int8)[4:], T.empty(0).set_(x), T.empty(0).set_(s, 1, (2,), (1,))]
    out = [x.untyped_storage() is s, x.untyped_storage() is x.untyped_storage()]
    out += [(t.untyped_storage()._cdata == cdata, t.untyped_storage() is s, t.untyped_storage().data_ptr() == s.data_ptr(),
             T._C._is_alias_of(t, x), t.data_ptr() - s.data_ptr()) for t in sharing]
    fresh = [x.clone(), x + 0, x.contiguous().clone(), T.arange(6.0)]
    out += [(t.untyped_storage()._cdata == cdata, T._C._is_alias_of(t, x)) for t in fresh]
    out.append(T._C._storage_address(x) == cdata)
    out.append(hasattr(x, "_is_alias_of"))
    return out


def test_tensors_sharing_memory_share_one_storage(torch: Any) -> None:
    _same(torch, _identity)


def _view_dtype(E: Any) -> list:
    T = E.T
    x = T.arange(4.0)
    y = x.view(T.int32)
    y.add_(1)
    z = T.ones(2, requires_grad=True)
    out = [y.dtype == T.int32, x._version, x.tolist()[1:], y._base is None, z.view(T.float32).requires_grad,
           z.view(T.float32)._is_view(), tuple(x.view(T.int8).shape), tuple(x.view(2, 2).view(T.float64).shape),
           x.view(T.float64).untyped_storage() is x.untyped_storage()]
    for fn in (lambda: T.ones(3).view(T.float64), lambda: T.ones(4, 2).t().view(T.float64),
               lambda: T.tensor(1.0).view(T.float64), lambda: T.ones(4)[1:3].view(T.float64)):
        out.append(outcome(fn))
    for kw in ({"tracing_mode": "fake"}, {}, {"pre_dispatch": True}):
        g = E.make_fx(lambda a: a.view(T.int32) + 1, **kw)(T.ones(2))
        out.append([str(n.target) for n in g.graph.nodes if n.op == "call_function"])
    return out


def test_view_dtype_reinterprets_the_same_storage(torch: Any) -> None:
    got = _same(torch, _view_dtype)
    assert "aten.detach.default" in got[-2] and "aten.detach.default" not in got[-1]


def _writes_seen(E: Any) -> list:
    T = E.T
    x = T.zeros(4, dtype=T.int32)
    v = x[1:]
    s = v.untyped_storage()
    s[4] = 7  # element 1, low byte
    s[8:12] = 1
    out = [x.tolist(), v.tolist()]
    s.fill_(1)
    out.append(x.tolist())
    return out


def test_writes_through_the_storage_are_seen_by_tensors(torch: Any) -> None:
    _same(torch, _writes_seen)


def _meta(E: Any) -> list:
    T = E.T
    m = T.empty(2, 3, device="meta")
    d, data, sub = m.detach(), m.data, T.Tensor._make_subclass(T.Tensor, m)  # (asked before m's storage exists)
    s = m.untyped_storage()
    out = [str(s.device), s.nbytes(), s.data_ptr(), m.data_ptr(), repr(s).replace("dispatcher", "torch"),
           m[1:].untyped_storage()._cdata == s._cdata, m.t().untyped_storage() is s, outcome(lambda: s.tolist()),
           [T._C._is_alias_of(t, m) for t in (d, data, sub)], d.untyped_storage() is s,
           outcome(lambda: s[0])]
    out.append(tuple(T.empty(0, device="meta").set_(s, 2, (5,)).shape))
    out.append(s.nbytes())
    return out


def test_meta_storages(torch: Any) -> None:
    _same(torch, _meta)


def _fake(E: Any) -> list:
    T = E.T
    with E.FakeTensorMode(), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f = T.empty(2, 3)
        s = f.untyped_storage()
        out = [str(s.device), s.nbytes(), s.data_ptr(), f[1:].untyped_storage()._cdata == s._cdata,
               outcome(lambda: s[0])]
    return out + [(c.category.__name__, str(c.message)) for c in w]


def test_fake_tensor_storages_are_meta(torch: Any) -> None:
    _same(torch, _fake)


# --- TypedStorage and the legacy classes -------------------------------------------------------------------------


def _typed(E: Any) -> list:
    T = E.T
    mod = T.storage
    out = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod._reset_warn_typed_storage_removal()
        x = T.tensor([1.0, 2.0, 3.0])
        ts = x.storage()
        x.storage()  # (once: the second call does not warn)
        out.append([(c.category.__name__, str(c.message), os.path.basename(c.filename)) for c in w])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out += [type(ts).__name__, str(ts.dtype), ts.size(), len(ts), ts.nbytes(), ts.element_size(), ts[0], ts[-1],
                ts.tolist(), ts.type(), ts.untyped() is x.untyped_storage(), ts._cdata == x.untyped_storage()._cdata,
                x.storage() is ts, x._typed_storage().dtype == x.dtype, ts.data_ptr() == x.data_ptr(),
                repr(ts).replace("dispatcher", "torch")]
        ts[1] = 9
        out.append(x.tolist())
        out.append(outcome(lambda: ts[5]))
        out.append(T.TypedStorage([1, 2], dtype=T.int64).tolist())
        out.append(T.tensor([True, False]).storage().tolist())
        f = T.FloatStorage([1, 2])
        out += [type(f).__name__, f.tolist(), isinstance(f, T.FloatStorage), isinstance(f, T.DoubleStorage),
                T.FloatStorage(3).size(), T.Storage is T.FloatStorage, type(T.Storage()).__name__,
                T.LongStorage([5]).tolist(), T.DoubleStorage.dtype == T.float64]
        for fn in (lambda: T.FloatStorage(2, 3), lambda: T.FloatStorage(dtype=T.float64),
                   lambda: T.FloatStorage(wrap_storage=3)):
            out.append(outcome(fn))
        wrapped = T.FloatStorage(wrap_storage=x.untyped_storage())
        out.append((wrapped.tolist(), wrapped._cdata == x.untyped_storage()._cdata))
    return out


def test_typed_storages_and_the_deprecation_warning(torch: Any) -> None:
    _same(torch, _typed)


# --- set_ --------------------------------------------------------------------------------------------------------


def _set_values(E: Any) -> list:
    T = E.T
    out = []
    x = T.arange(6.0)
    s = x.untyped_storage()
    y = T.empty(0).set_(s, 1, (2, 2), (2, 1))
    out += [y.tolist(), y.stride(), y.storage_offset(), y.is_set_to(x), x.is_set_to(x), x[1:].is_set_to(x),
            x.view(6).is_set_to(x)]
    out.append(T.empty(0).set_(s, 0, (2, 2)).tolist())
    out.append(T.empty(3).set_(s).tolist())
    z = T.empty(0).set_(x.view(2, 3).t())
    out += [z.tolist(), z.stride(), z.is_set_to(x.view(2, 3).t())]
    e = T.ones(3).set_()
    out += [tuple(e.shape), e.untyped_storage().nbytes()]
    out.append(outcome(lambda: T.empty(0, dtype=T.float64).set_(T.ones(2, 4))))  # the method checks the dtype
    # the storage grows when the geometry reaches past its end
    g = T.empty(0).set_(T.UntypedStorage(8), 0, (4,))
    out += [tuple(g.shape), g.untyped_storage().nbytes()]
    for fn in (lambda: T.empty(0).set_(s, -1, (2, 2), (2, 1)), lambda: T.empty(0).set_(s, 0, (2, -2)),
               lambda: T.empty(0).set_(s, 0, (2, 2), (1,)), lambda: T.empty(0).set_(s, 0, (2, 2), (-3, 1)),
               lambda: T.empty(0, dtype=T.int64).set_(T.ones(3, dtype=T.float64)), lambda: T.empty(0).set_(5),
               lambda: T.empty(0).set_(T.empty(3, device="meta")), lambda: T.empty(0, device="meta").set_(T.ones(3)),
               lambda: T.ops.aten.set_.source_Tensor(T.empty(3, dtype=T.int64), T.ones(3))):
        out.append(outcome(fn))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out.append(T.empty(0).set_(x.storage(), 0, (2,)).tolist())
        out.append(outcome(lambda: T.empty(0, dtype=T.float64).set_(x.storage(), 0, (2,))))
    return out


def test_set_values_and_errors(torch: Any) -> None:
    _same(torch, _set_values)


def _set_autograd(E: Any) -> list:
    T = E.T
    out = []
    a = T.ones(3, requires_grad=True)
    out.append(outcome(lambda: a.set_(T.zeros(4))))
    c = a * 2
    b = T.zeros(4, requires_grad=True)
    d = c.set_(b.mul(3))
    out += [d is c, type(c.grad_fn).__name__, c.grad_fn.name(), [type(n).__name__ for n, _ in c.grad_fn.next_functions],
            c.requires_grad, tuple(c.shape)]
    out.append(outcome(lambda: c.sum().backward()))
    e = T.ones(3, requires_grad=True) * 1
    e.set_(T.zeros(2))
    out += [type(e.grad_fn).__name__, [type(n).__name__ if n is not None else None for n, _ in e.grad_fn.next_functions]]
    f = T.ones(3, requires_grad=True) * 1
    f.set_(T.UntypedStorage(8))
    out += [type(f.grad_fn).__name__, len(f.grad_fn.next_functions), tuple(f.shape)]
    g = T.ones(3, requires_grad=True) * 1
    g.set_()
    out += [type(g.grad_fn).__name__, tuple(g.shape)]
    return out


def test_set_under_autograd(torch: Any) -> None:
    _same(torch, _set_autograd)


def _set_graphs(E: Any) -> list:
    T = E.T

    def fn(p: Any, q: Any) -> Any:
        r = p.clone()
        r.set_(q)
        return r + 1

    def with_storage(p: Any) -> Any:
        r = T.empty(0)
        r.set_(p.untyped_storage(), 0, (2,), (1,))
        return r + 1

    out = []
    for kw in ({}, {"pre_dispatch": True}, {"tracing_mode": "fake"}):
        g = E.make_fx(fn, **kw)(T.ones(3), T.ones(4))
        out.append([str(n.target) for n in g.graph.nodes if n.op == "call_function"])
        out.append(g(T.zeros(3), T.arange(4.0)).tolist())
    out.append(outcome(lambda: E.make_fx(with_storage)(T.ones(3))))
    return out


def test_set_graphs_under_make_fx(torch: Any) -> None:
    got = _same(torch, _set_graphs)
    assert "aten.set_.source_Tensor" in got[0]


# --- wrapper subclasses ------------------------------------------------------------------------------------------


def _wrapper_storage(E: Any) -> list:
    T = E.T
    x = E.lt.LoggingTensor(T.ones(1))
    s = x.untyped_storage()
    out = [type(s).__name__, s.nbytes(), str(s.device), x.data_ptr(), s._cdata != 0, x.untyped_storage() is s,
           s.size()]
    for fn in (lambda: s.data_ptr(), lambda: s[0], lambda: s.tolist(), lambda: repr(s)):
        out.append(outcome(fn))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out.append(type(x.storage()).__name__)
    with E.lt.capture_logs() as logs:  # test_storage_can_be_converted_to_python_object
        st = T.Storage()
        z = E.lt.LoggingTensor(T.empty([]))
        z.set_(st)
    out.append([E_normal(line) for line in logs])
    return out


def E_normal(line: str) -> str:  # noqa: N802 - our spellings of module paths as torch's
    return line.replace("dispatcher.storage", "torch.storage").replace("dispatcher.ops", "torch._ops")


def test_wrapper_subclass_storages(torch: Any) -> None:
    _same(torch, _wrapper_storage)


def _aliasing(E: Any) -> list:
    T = E.T
    t = E.TwoTensor(T.ones(4), T.ones(4))
    out = [t.untyped_storage().nbytes(), t.a.untyped_storage() is t.untyped_storage()]
    for f in (lambda: t.detach(), lambda: t.view(2, 2), lambda: t.split(2)[1], lambda: t + 1,
              lambda: T.ops.aten.view.default(t, [4]), lambda: T.ops.aten.alias.default(t)):
        o = f()
        out.append((T._C._is_alias_of(o, t), o.untyped_storage().nbytes(),
                    o.untyped_storage()._cdata == t.untyped_storage()._cdata, o.untyped_storage() is t.untyped_storage()))
    out.append(outcome(lambda: t.untyped_storage().data_ptr()))
    return out


def test_return_and_correct_aliasing_aliases_view_outputs(torch: Any) -> None:
    got = _same(torch, _aliasing)
    assert got[2][0] and not got[5][0]  # detach aliases; add does not


def _storage_size(E: Any) -> list:
    T = E.T

    class W(T.Tensor):
        @staticmethod
        def __new__(cls, e: Any, **kw: Any) -> Any:
            return T.Tensor._make_wrapper_subclass(cls, e.shape, dtype=e.dtype, **kw)

        @classmethod
        def __torch_dispatch__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return NotImplemented

    return [W(T.ones(3)).untyped_storage().nbytes(), W(T.ones(3), storage_size=7).untyped_storage().nbytes(),
            W(T.ones(2, 3, dtype=T.float64)).untyped_storage().nbytes()]


def test_wrapper_storage_sizes(torch: Any) -> None:
    _same(torch, _storage_size)


# --- serialization keeps sharing ---------------------------------------------------------------------------------


def test_save_load_keeps_storage_sharing(tmp_path: Any) -> None:
    import dispatcher

    x = dispatcher.arange(6.0)
    path = tmp_path / "shared.pt"
    dispatcher.save({"x": x, "v": x[2:].view(2, 2)}, str(path))
    loaded = dispatcher.load(str(path))
    x2, v2 = loaded["x"], loaded["v"]
    assert dispatcher._C._is_alias_of(x2, v2)
    assert v2.untyped_storage() is x2.untyped_storage()
    assert v2.data_ptr() - x2.data_ptr() == 8
    x2.untyped_storage().fill_(0)
    assert v2.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def _save_shared(E: Any, path: str) -> list:
    T = E.T
    x = T.arange(6.0)
    y = T.empty(0).set_(x.untyped_storage(), 2, (2, 2))
    T.save({"x": x, "y": y, "v": x[1:]}, path)
    loaded = T.load(path)
    out = [T._C._is_alias_of(loaded["x"], loaded["y"]), T._C._is_alias_of(loaded["x"], loaded["v"]),
           loaded["y"].tolist(), loaded["y"].storage_offset(), loaded["x"].untyped_storage().nbytes()]
    out.append(outcome(lambda: T.save([x, x.view(T.int32)], path)))
    return out


def test_save_load_of_tensors_sharing_a_storage_set_through_set_(torch: Any, tmp_path: Any) -> None:
    _same(torch, lambda E: _save_shared(E, str(tmp_path / f"{E.name}.pt")))


def _wrapper_aliasing_relations(E: Any) -> list:
    """test_python_dispatch.py's test_wrapper_subclass_aliasing, for a few of its ops: a wrapper using
    return_and_correct_aliasing (TwoTensor) aliases (StorageWeakRef-equal storages) exactly where plain tensors do."""
    T = E.T
    if E.name == "torch":
        from torch.multiprocessing.reductions import StorageWeakRef
    else:
        from dispatcher.multiprocessing.reductions import StorageWeakRef

    def run(op: Any, make: Any) -> list:
        ref_args = make(lambda t: t)
        test_args = make(lambda t: E.TwoTensor(t, t.clone()))
        rows = []
        for args in (ref_args, test_args):
            out = op(*args)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            ins = [a for a in args if isinstance(a, T.Tensor)]
            rows.append([(o is a, StorageWeakRef(o.untyped_storage()) == StorageWeakRef(a.untyped_storage()))
                         for o in outs for a in ins])
        return rows

    x = T.arange(6.0).reshape(2, 3)
    cases = [
        (lambda a, b: T.mul(a, b), lambda w: (w(x.clone()), w(x.clone()))),
        (lambda a, b: T.ops.aten.cat.default([a, b]), lambda w: (w(x.clone()), w(x.clone()))),
        (lambda a: a.view(3, 2), lambda w: (w(x.clone()),)),
        (lambda a: a.t_(), lambda w: (w(x.clone()),)),
        (lambda a, b: a.mul_(b), lambda w: (w(x.clone()), w(x.clone()))),
        (lambda a: a.split(1), lambda w: (w(x.clone()),)),
        (lambda a: T.ops.aten.select.int(a, 0, 1), lambda w: (w(x.clone()),)),
    ]
    out = []
    for op, make in cases:
        ref, test = run(op, make)
        out.append((ref, ref == test))
    return out


def test_wrapper_subclass_aliasing_relations(torch: Any) -> None:
    got = _same(torch, _wrapper_aliasing_relations)
    assert all(same for _, same in got)
    assert any(alias for rows, _ in got for _, alias in rows)  # some outputs alias their input


def _growth(E: Any) -> list:
    """A storage that grows (resize_, set_ past its end): the tensors that asked for it follow the new memory."""
    T = E.T
    x = T.ones(3)
    s = x.untyped_storage()
    c = s._cdata
    s.resize_(20)
    out = [x.untyped_storage()._cdata == c, x.untyped_storage().nbytes(), x.data_ptr() == s.data_ptr(), x.tolist()]
    s[0:4] = 0
    out.append(x.tolist())
    z = T.arange(6.0)
    zs = z.untyped_storage()
    w = T.empty(0).set_(zs, 4, (2, 2), (2, 1))
    out += [zs.nbytes(), z.data_ptr() == w.data_ptr() - 16, z.tolist(), w[0].tolist(), T._C._is_alias_of(z, w)]
    return out


def test_growing_storage_moves_the_tensors_that_see_it(torch: Any) -> None:
    _same(torch, _growth)


def _save_storages(E: Any, path: str) -> list:
    T = E.T
    x = T.arange(3.0)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        T.save({"t": x.storage(), "x": x}, path)
        loaded = T.load(path)
        out += [type(loaded["t"]).__name__, str(loaded["t"].dtype), loaded["t"].tolist(),
                loaded["t"]._cdata == loaded["x"].untyped_storage()._cdata]
        T.save({"s": x.untyped_storage()}, path)
        loaded = T.load(path)
        out += [type(loaded["s"]).__name__, str(loaded["s"].dtype), loaded["s"].nbytes(), loaded["s"].tolist()]
        out.append(outcome(lambda: T.save({"s": x.untyped_storage(), "x": x}, path)))
    return out


def test_save_load_of_storage_objects(torch: Any, tmp_path: Any) -> None:
    _same(torch, lambda E: _save_storages(E, str(tmp_path / f"{E.name}.pt")))
