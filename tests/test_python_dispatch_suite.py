"""The rest of torch's test/test_python_dispatch.py (its other behaviours are in tests/test_modes_*.py,
tests/test_subclasses_*.py, tests/test_storage.py ...; the table is docs/modes.md, "torch's test_python_dispatch.py").

One program per torch test (the torch test's name is in the docstring), run on torch 2.13 and on dispatcher through
tests/subclass_env.py; the outcomes (values, or error class and first line of the message) must be equal:
TestDispatcherPythonBindings, TestPythonDispatcher, TestPythonRegistration (fallbacks under forced key sets,
fallthroughs, key guards, overriding aten kernels from Python, library kinds and namespaces), test_maybe_tuple_bug,
test_storage_can_be_converted_to_python_object, test_return_stream, test_record_stream (and what record_stream and
torch.Stream do without a mode), and TestWrapperSubclassAliasing's ops not in tests/test_storage.py.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from tests.subclass_env import both, outcome, skip_logging_tensor_in_pytest_capture

_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)

NS = "_test_python_registration"


def _same(torch: Any, program: Any) -> Any:
    theirs, ours = both(torch, program)
    assert ours == theirs
    return ours


def _lib(E: Any) -> Any:
    return E.T.library


def _reg_outcome(fn: Any) -> tuple:
    """A registration's outcome: torch raises RuntimeError, we its subclass RegistrationError; the words up to the
    registration site (a file and line of each library's own code) must be the same."""
    try:
        return ("ok", fn())
    except RuntimeError as e:
        return ("error", "RuntimeError", str(e).split("  (Error occurred while processing")[0])


# --- TestDispatcherPythonBindings / TestPythonDispatcher ---------------------------------------------------------

def test_call_boxed(torch: Any) -> None:
    """test_call_boxed: ``_dispatch_call_boxed`` on the handle ``_dispatch_find_schema_or_throw`` gives."""
    def program(E: Any) -> list:
        T = E.T
        sin = T._C._dispatch_find_schema_or_throw("aten::sin", "")
        x = T.randn(3)
        return [T._C._dispatch_call_boxed(sin, x).equal(x.sin()),
                outcome(lambda: T._C._dispatch_find_schema_or_throw("aten::nope", ""))[:2]]
    assert _same(torch, program)[0] is True


def test_python_dispatcher_basic(torch: Any) -> None:
    """TestPythonDispatcher.test_basic: an op with autograd under ``_EnablePythonDispatcher``."""
    def program(E: Any) -> list:
        T = E.T
        x = T.randn(2, requires_grad=True)
        with T._C._EnablePythonDispatcher():
            y = T.add(x, x)
            y.sum().backward()
        return [y.equal(x * 2), x.grad.tolist(), type(y.grad_fn).__name__]
    _same(torch, program)


def test_python_dispatcher_lstsq(torch: Any) -> None:
    """TestPythonDispatcher.test_lstsq: ``torch.linalg.lstsq`` gives the same solution shape under
    ``_EnablePythonDispatcher`` (the Python dispatcher resolving a CompositeExplicitAutograd op with autograd and
    a named-tuple result), and ``enable_python_dispatcher`` gives the same values."""
    def program(E: Any) -> list:
        T = E.T
        a = T.randn(4, 3)
        b = T.rand(4, 3)
        expected = T.linalg.lstsq(a, b)
        r = T._C._EnablePythonDispatcher()  # (as the torch test: enabled for the rest of the program)
        got = T.linalg.lstsq(a, b)
        del r
        with T._C._EnablePythonDispatcher():  # what torch._dispatch.python.enable_python_dispatcher enters
            again = T.linalg.lstsq(a, b, driver="gelsd")
        return [tuple(expected.solution.shape) == tuple(got.solution.shape), tuple(got.solution.shape),
                bool(T.allclose(expected.solution, got.solution)), tuple(again.singular_values.shape),
                type(got).__name__, str(got.rank.dtype), tuple(got.solution.stride())]
    _same(torch, program)


# --- TestPythonDispatch leftovers ---------------------------------------------------------------------------------

def test_maybe_tuple_bug(torch: Any) -> None:
    """test_maybe_tuple_bug: indexing with a list of subclass instances whose ``__torch_function__`` returns None."""
    def program(E: Any) -> list:
        class T(E.T.Tensor):
            @classmethod
            def __torch_function__(cls, *args, **kwargs):
                pass

        a = E.T.rand(3)
        return [outcome(lambda: a[[T(), T()]])]
    assert _same(torch, program) == [("ok", None)]


def test_storage_can_be_converted_to_python_object(torch: Any) -> None:
    """test_storage_can_be_converted_to_python_object: ``set_`` of a LoggingTensor to a legacy ``Storage()``."""
    def program(E: Any) -> list:
        s = E.T.Storage()
        z = E.lt.LoggingTensor(E.T.empty([]))
        return [type(s).__name__, outcome(lambda: tuple(z.set_(s).shape))]
    _same(torch, program)


# --- TestPythonRegistration ---------------------------------------------------------------------------------------

def _fallback(E: Any) -> list:
    """test_fallback: a Python fallback for a testing key, reached under a forced key set, gets the op and its
    arguments as the dispatcher hands them (factory kwargs filled in); its result is what the caller gets."""
    T = E.T
    key = "TESTING_ONLY_GenericMode"
    keyset = T._C.DispatchKeySet(key)
    include = T._C._dispatch_tls_local_include_set() | keyset
    exclude = T._C._dispatch_tls_local_exclude_set()
    seen: list = []
    shape: list = [None]
    with _lib(E)._scoped_library("_", "IMPL") as lib:
        def fb(op, *args, **kwargs):
            with T._C._ForceDispatchKeyGuard(include, exclude | keyset):
                seen.append((str(op), [tuple(a.shape) if isinstance(a, T.Tensor) else a for a in args],
                             sorted((k, str(v)) for k, v in kwargs.items())))
                return T.empty(shape[0])

        lib.fallback(fb, key)
        a, b = T.rand(2), T.rand(2)
        with T._C._ForceDispatchKeyGuard(include, exclude):
            shape[0] = (3,)
            out1 = T.empty(2, 2, dtype=T.float64, pin_memory=False, device=T.device("cpu"))
            shape[0] = (4,)
            out2 = a + b
    return [seen, tuple(out1.shape), tuple(out2.shape), str(T._C._dispatch_tls_local_include_set())]


def _fallback_keyset(E: Any) -> list:
    """test_fallback_keyset: a fallback taking the key set redispatches below its key; a second fallback's new
    call re-enters the first (and the result is the second's subtraction)."""
    T = E.T
    k1, k2 = "TESTING_ONLY_GenericMode", "TESTING_ONLY_GenericWrapper"
    keyset = T._C.DispatchKeySet(k1) | T._C.DispatchKeySet(k2)
    include = T._C._dispatch_tls_local_include_set() | keyset
    exclude = T._C._dispatch_tls_local_exclude_set()
    calls: list = []
    with _lib(E)._scoped_library("_", "IMPL") as lib:
        def first(ks, op, *args, **kwargs):
            if "second" in calls:
                calls.append("first-recursive")
                with T._C._ForceDispatchKeyGuard(include, exclude | keyset):
                    return op(*args, **kwargs)
            calls.append(("first", str(ks.remove(k1))))
            return op.redispatch(ks.remove(k1), *args, **kwargs)

        def second(op, *args, **kwargs):
            calls.append("second")
            a, b = args
            return a - b

        lib.fallback(first, k1, with_keyset=True)
        lib.fallback(second, k2)
        a, b = T.tensor([5.0, 1.0]), T.tensor([2.0, 3.0])
        with T._C._ForceDispatchKeyGuard(include, exclude):
            c = a + b
    return [c.tolist(), calls]


def _fallback_fallthrough(E: Any) -> list:
    """test_fallback_fallthrough: a fallthrough fallback for the first key; the second key's fallback runs."""
    T = E.T
    k1, k2 = "TESTING_ONLY_GenericMode", "TESTING_ONLY_GenericWrapper"
    keyset = T._C.DispatchKeySet(k1) | T._C.DispatchKeySet(k2)
    include = T._C._dispatch_tls_local_include_set() | keyset
    exclude = T._C._dispatch_tls_local_exclude_set()
    called: list = []
    with _lib(E)._scoped_library("_", "IMPL") as lib:
        def fb(op, *args, **kwargs):
            called.append(str(op))
            with T._C._ForceDispatchKeyGuard(include, exclude | keyset):
                return op(*args, **kwargs)

        lib.fallback(_lib(E).fallthrough_kernel, k1)
        lib.fallback(fb, k2)
        a, b = T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])
        with T._C._ForceDispatchKeyGuard(include, exclude):
            c = a + b
    return [c.tolist(), called]


def _meta_in_tls(E: Any) -> list:
    """test_fallthrough_for_dense_key_with_meta_in_tls: Meta in the included set reaches the Meta kernel though
    CPU has a fallthrough."""
    T = E.T
    called: list = []
    a = T.randn(3, 3)
    with _lib(E)._scoped_library("custom", "DEF") as lib:
        lib.define("sum(Tensor self) -> Tensor")

        def sum_meta(*args, **kwargs):
            called.append("meta")
            return args[0]

        lib.impl("sum", _lib(E).fallthrough_kernel, "CPU")
        lib.impl("sum", sum_meta, "Meta")
        with T._C._IncludeDispatchKeyGuard(T.DispatchKey.Meta):
            out = T.ops.custom.sum.default(a)
    return [called, out is a]


def _guards_restore(E: Any) -> list:
    """test_include_dispatch_key_guard_restores_tls_exactly, test_exclude_dispatch_key_guard_restores_tls_exactly
    (Meta, CUDA, CPU): the raw TLS sets are the same after the block."""
    T = E.T
    out = []
    before = T._C._dispatch_tls_local_include_set().raw_repr()
    with T._C._IncludeDispatchKeyGuard(T.DispatchKey.Meta):
        inside = T._C._dispatch_tls_local_include_set().raw_repr()
    out.append((before == T._C._dispatch_tls_local_include_set().raw_repr(), inside != before))
    for key in (T.DispatchKey.Meta, T.DispatchKey.CUDA, T.DispatchKey.CPU):
        before = T._C._dispatch_tls_local_exclude_set().raw_repr()
        with T._C._ExcludeDispatchKeyGuard(T._C.DispatchKeySet(key)):
            pass
        out.append(before == T._C._dispatch_tls_local_exclude_set().raw_repr())
    return out


def _keyset_pickle_eq(E: Any) -> list:
    """test_dispatchkeyset_pickle, test_dispatchkeyset_eq."""
    C = E.T._C
    a = C.DispatchKeySet(C.DispatchKey.AutogradCPU)
    b = C.DispatchKeySet(C.DispatchKey.AutogradCPU)
    c = C.DispatchKeySet(C.DispatchKey.CPU)
    return [pickle.loads(pickle.dumps(a)) == a, a == b, a != b, a != c, str(pickle.loads(pickle.dumps(c)))]


def _override_neg(E: Any) -> list:
    """test_override_aten_ops_with_multiple_libraries: an AutogradCPU kernel of aten::neg from one library, the
    namespace error of another, a ZeroTensor kernel of aten::mul.Tensor from a second library (and the error of
    registering it twice), each old kernel back once its library is gone."""
    T = E.T
    x = T.tensor([1, 2])
    y = T._efficientzerotensor(2)
    out = []

    def my_mul(*args, **kwargs):
        return T.zeros_like(args[0])

    with _lib(E)._scoped_library("aten", "IMPL") as lib2:
        with _lib(E)._scoped_library("aten", "IMPL") as lib1:
            lib1.impl("neg", lambda *args, **kwargs: args[0]._neg_view(), "AutogradCPU")
            out.append(T.neg(x).is_neg())

            def bad():
                with _lib(E)._scoped_library("foo", "DEF") as lib3:
                    lib3.define("neg(Tensor self) -> Tensor")
                    lib3.impl(T.ops.aten.neg.default, lambda *a: a[0], "AutogradCPU")
            out.append(_reg_outcome(bad))
            lib2.impl("aten::mul.Tensor", my_mul, "ZeroTensor")
            out.append(T.mul(x, y)._is_zerotensor())
            out.append(_reg_outcome(lambda: lib2.impl(T.ops.aten.mul.Tensor, my_mul, "ZeroTensor")))
        out.append([T.neg(x).is_neg(), T.mul(x, y)._is_zerotensor()])  # lib2's kernel outlives lib1
    out.append([T.neg(x).is_neg(), T.mul(x, y)._is_zerotensor()])
    return out


def _not_callable(E: Any) -> list:
    """test_error_if_fn_not_callable."""
    def run():
        with _lib(E)._scoped_library("aten", "IMPL") as lib:
            lib.impl(E.T.ops.aten.neg.default, [], "AutogradCPU")
    return [outcome(run)]


def _override_cpu_sum(E: Any) -> list:
    """test_override_cpu_sum and test_extend_library_with_dispatch_key_arg: a CPU kernel of aten::sum from
    Python, the key given to the library, the error for another key, the old kernel back afterwards."""
    T = E.T
    x = T.tensor([1, 2])
    run: list = []

    def my_sum(*args, **kwargs):
        run.append(1)
        return args[0].clone()

    out = []
    with _lib(E)._scoped_library("aten", "IMPL") as lib:
        lib.impl("aten::sum", my_sum, "CPU")
        out.append(T.sum(x).tolist())
    out.append(T.sum(x).tolist())
    with _lib(E)._scoped_library("aten", "IMPL", dispatch_key="CPU") as lib:
        out.append(_reg_outcome(lambda: lib.impl("sum", my_sum, "Conjugate")))
        lib.impl("aten::sum", my_sum)
        out.append(T.sum(x).tolist())
    out.append([T.sum(x).tolist(), len(run)])
    return out


def _new_libraries(E: Any) -> list:
    """test_create_new_library (its CPU and ZeroTensor halves), test_create_new_library_fragment_no_existing,
    test_create_new_library_fragment_with_existing."""
    T, L = E.T, _lib(E)
    x = T.tensor([1, 2])
    out = []
    with L._scoped_library(NS, "DEF") as lib1:
        lib1.define("sum(Tensor self) -> Tensor")
        L.impl(lib1, "sum", "CPU")(lambda *args, **kwargs: args[0].clone())
        out.append(getattr(T.ops, NS).sum(x).tolist())
        with L._scoped_library(NS, "IMPL") as lib_zt:  # test_create_new_library's ZeroTensor half
            def my_sum_zt(*args, **kwargs):
                if args[0]._is_zerotensor():
                    return T._efficientzerotensor(args[0].shape)
                return args[0].clone()

            L.impl(lib_zt, getattr(T.ops, NS).sum.default, "ZeroTensor")(my_sum_zt)
            y = T._efficientzerotensor(3)
            out.append([getattr(T.ops, NS).sum(y)._is_zerotensor(), getattr(T.ops, NS).sum(x).tolist()])
        out.append(getattr(T.ops, NS).sum(y)._is_zerotensor())  # the fallback materializes y again
        with L._scoped_library(NS, "FRAGMENT") as lib2:
            lib2.define("sum4(Tensor self) -> Tensor")
            L.impl(lib2, "sum4", "CPU")(lambda *args, **kwargs: args[0])
            out.append(getattr(T.ops, NS).sum4(x) is x)
            with L._scoped_library(NS, "FRAGMENT") as lib3:
                lib3.define("sum3(Tensor self) -> Tensor")
                L.impl(lib3, "sum3", "CPU")(lambda *args, **kwargs: args[0])
                out.append(getattr(T.ops, NS).sum3(x) is x)
    with L._scoped_library(NS + "_frag", "FRAGMENT") as lib:
        lib.define("sum2(Tensor self) -> Tensor")
        L.impl(lib, "sum2", "CPU")(lambda *args, **kwargs: args[0])
        out.append(getattr(T.ops, NS + "_frag").sum2(x) is x)
    return out


def _kinds(E: Any) -> list:
    """test_error_for_unsupported_ns_or_kind."""
    L = _lib(E)
    return [outcome(lambda: L.Library("myns", "BLA"))] + [outcome(lambda k=k: L.Library("prim", k))
                                                          for k in ("DEF", "FRAGMENT")]


@pytest.mark.parametrize("program", [_fallback, _fallback_keyset, _fallback_fallthrough, _meta_in_tls,
                                     _guards_restore, _keyset_pickle_eq, _override_neg, _not_callable,
                                     _override_cpu_sum, _new_libraries, _kinds], ids=lambda p: p.__name__[1:])
def test_python_registration(torch: Any, program: Any) -> None:
    """TestPythonRegistration (see each program's docstring)."""
    _same(torch, program)


# --- TestWrapperSubclassAliasing ----------------------------------------------------------------------------------

def _aliasing(E: Any, name: str) -> list:
    """test_wrapper_subclass_aliasing (index, native_batch_norm), test_wrapper_subclass_aliasing_conv2d (under
    inference_mode), test_wrapper_subclass_aliasing_out_op: a TwoTensor's outputs alias (StorageWeakRef-equal) or are
    exactly the inputs where plain tensors' outputs are."""
    T = E.T
    if E.name == "torch":
        from torch.multiprocessing.reductions import StorageWeakRef
    else:
        from dispatcher.multiprocessing.reductions import StorageWeakRef
    g = T.Generator().manual_seed(0)
    cases = {
        "index": (lambda: T.ops.aten.index.Tensor, lambda w: ((w(T.randn(3, 4, generator=g)), [None, w(T.tensor([0, 2]))]),
                                                      {})),
        "native_batch_norm": (lambda: T.ops.aten.native_batch_norm.default, lambda w: (
            (w(T.randn(2, 3, 4, generator=g)), w(T.ones(3)), w(T.zeros(3)), w(T.zeros(3)), w(T.ones(3)), True, 0.1,
             1e-5), {})),
        "conv2d": (lambda: T.ops.aten.conv2d.default, lambda w: ((w(T.randn(4, 4, 4, 4, generator=g)),
                                                          w(T.randn(4, 4, 4, 4, generator=g))), {})),
        "fft_fft2": (lambda: T.ops.aten.fft_fft2.default, lambda w: ((w(T.randn(4, 4, generator=g)),), {})),
        "add_out": (lambda: T.ops.aten.add.out, lambda w: ((w(T.ones(4)), w(T.ones(4))), {"out": w(T.empty(4))})),
    }
    get_op, make = cases[name]
    op = get_op()
    rows = []
    for wrap in (lambda t: t, lambda t: E.TwoTensor(t, t.clone())):
        args, kwargs = make(wrap)
        with T.inference_mode(name == "conv2d"):
            out = op(*args, **kwargs)
        outs = [o for o in E.tree_map(lambda v: v, [out]) for o in (o if isinstance(o, (list, tuple)) else [o])]
        ins = [a for a in list(args) + [a for x in args if isinstance(x, list) for a in x] + list(kwargs.values())
               if isinstance(a, T.Tensor)]
        rows.append([(o is a, StorageWeakRef(o.untyped_storage()) == StorageWeakRef(a.untyped_storage()))
                     for o in outs if isinstance(o, T.Tensor) for a in ins])
    return rows


@pytest.mark.parametrize("name", ["index", "native_batch_norm", "conv2d", pytest.param("add_out", marks=pytest.mark.xfail(
    raises=AttributeError, strict=True, reason="no out= overloads here (aten.add.out)"))])
def test_wrapper_subclass_aliasing(torch: Any, name: str) -> None:
    """TestWrapperSubclassAliasing: the same aliasing relations for the TwoTensor as for plain tensors."""
    rows = _same(torch, lambda E: _aliasing(E, name))
    assert rows[0] == rows[1]


def test_wrapper_subclass_aliasing_fft_fft2(torch: Any) -> None:
    """test_wrapper_subclass_aliasing_fft_fft2: a CompositeImplicitAutograd op (fft_fft2 -> _fft_r2c on the inner
    tensors); the TwoTensor's output aliases none of its inputs, as the plain tensor's."""
    rows = _same(torch, lambda E: _aliasing(E, "fft_fft2"))
    assert rows[0] == rows[1] == [(False, False)]


def _lifetime(E: Any) -> list:
    """test_finalizer / test_finalizer_clears_torch_ops_cache (what is observable of them, not CPython reference
    counts): dropping the last reference to a Library takes its definitions and kernels away, and the op is gone
    from ``torch.ops``."""
    import gc

    T, L = E.T, _lib(E)
    lib = L.Library(NS + "_life", "DEF")
    lib.define("my_func(Tensor x) -> Tensor")
    L.impl(lib, "my_func", "CPU")(lambda x: x + 1)
    ns = getattr(T.ops, NS + "_life")
    before = ns.my_func(T.ones(1)).tolist()
    del lib
    gc.collect()
    return [before, hasattr(ns, "my_func"),
            outcome(lambda: T._C._dispatch_find_schema_or_throw(f"{NS}_life::my_func", ""))[:2]]


def test_library_lifetime(torch: Any) -> None:
    """test_finalizer, test_finalizer_clears_torch_ops_cache."""
    assert _same(torch, _lifetime)[1] is False


def test_dispatcher_error_filenames(torch: Any) -> None:
    """test_dispatcher_error_filenames: a second DEF library of a namespace is a RuntimeError naming both
    registration sites (this file and the lines that made the two libraries)."""
    import re

    def program(E: Any) -> list:
        L = _lib(E)
        lib1 = L.Library(NS + "_dup", "DEF")  # FIRST_LIB_MARKER
        try:
            lib1.define("duplicate_op(Tensor x) -> Tensor")
            try:
                L.Library(NS + "_dup", "DEF")  # SECOND_LIB_MARKER
                return ["no error"]
            except RuntimeError as e:
                msg = str(e)
        finally:
            lib1._destroy()
        lines = sorted(int(n) for n in re.findall(r"test_python_dispatch_suite\.py:(\d+)", msg))
        src = open(__file__).read().splitlines()
        return ["/dev/null" in msg, [src[n - 1].split("#")[-1].strip() for n in lines]]
    assert _same(torch, program) == [False, ["FIRST_LIB_MARKER", "SECOND_LIB_MARKER"]]


def test_inplace_and_out_ops_return_their_argument(torch: Any) -> None:
    """(behind test_storage_can_be_converted_to_python_object and test_custom_autograd's ``x.grad`` updates) an
    in-place op on a wrapper subclass returns the very tensor it was called on, whatever ``__torch_dispatch__``
    returned (c10's boxed-to-unboxed wrapper returns the ``Tensor(a!)`` argument); under a mode too."""
    def program(E: Any) -> list:
        T = E.T
        z = E.lt.LoggingTensor(T.ones(2))
        out = [z.add_(1) is z, z.mul_(2) is z, T.ops.aten.add_.Tensor(z, 1) is z, z.elem.tolist()]
        with T.inference_mode():
            w = E.lt.LoggingTensor(T.ones(2))
            out.append(w.sub_(1) is w)

        class Fresh(E.pd.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                r = func(*args, **(kwargs or {}))
                return r.clone() if isinstance(r, T.Tensor) else r

        x = T.ones(2)
        with Fresh():
            out += [x.add_(1) is x, x.tolist(), outcome(lambda: T.zeros(2).neg().tolist())]
        return out
    assert _same(torch, program)[:3] == [True, True, True]


def _custom_aliasing(E: Any) -> list:
    """test_wrapper_subclass_aliasing_custom, with ops of custom_op_db's shapes written here (torch's
    testing/_internal/custom_op_db.py is not ported): a functional custom op, one returning a tuple, one mutating its
    argument; TwoTensor arguments alias their outputs where plain ones do."""
    T, L = E.T, _lib(E)
    if E.name == "torch":
        from torch.multiprocessing.reductions import StorageWeakRef
    else:
        from dispatcher.multiprocessing.reductions import StorageWeakRef
    ns = NS + "_alias"
    with L._scoped_library(ns, "FRAGMENT") as lib:
        lib.define("mul(Tensor x, Tensor y) -> Tensor")
        lib.define("sort3(Tensor x) -> (Tensor, Tensor, Tensor)")
        lib.define("add_one_(Tensor(a!) x) -> ()")
        lib.impl("mul", lambda x, y: x * y, "CompositeExplicitAutograd")
        lib.impl("sort3", lambda x: (x.clone(), x.argsort(), x.argsort().argsort()), "CompositeExplicitAutograd")
        lib.impl("add_one_", lambda x: [x.add_(1), None][1], "CompositeExplicitAutograd")
        ops = getattr(T.ops, ns)
        cases = [(ops.mul.default, 2), (ops.sort3.default, 1), (ops.add_one_.default, 1)]
        rows = []
        for op, n in cases:
            for wrap in (lambda t: t, lambda t: E.TwoTensor(t, t.clone())):
                args = [wrap(T.tensor([3.0, 1.0, 2.0])) for _ in range(n)]
                out = op(*args)
                outs = [o for o in (out if isinstance(out, tuple) else (out,)) if isinstance(o, T.Tensor)]
                rows.append([type(o).__name__ for o in outs] + [
                    (o is a, StorageWeakRef(o.untyped_storage()) == StorageWeakRef(a.untyped_storage()))
                    for o in outs for a in args] + [a.tolist() if type(a) is T.Tensor else a.a.tolist() for a in args])
    return rows


def test_wrapper_subclass_aliasing_custom(torch: Any) -> None:
    """test_wrapper_subclass_aliasing_custom."""
    _same(torch, _custom_aliasing)


def test_return_stream(torch: Any) -> None:
    """test_return_stream: a custom op returning a ``Stream`` (its CPU kernel's, then a mode's)."""
    def program(E: Any) -> list:
        T, L = E.T, _lib(E)
        out = [repr(T.Stream()), repr(T.Stream("cpu")), repr(T.Stream(stream_id=1, device_index=2, device_type=3)),
               T.Stream(stream_id=1, device_index=2, device_type=3) == T.Stream(stream_id=1, device_index=2,
                                                                                 device_type=3),
               str(T.Stream(stream_id=0, device_index=1, device_type=0).device)]
        with L._scoped_library("test_return_stream", "DEF") as l_def:
            l_def.define("return_stream(Tensor self) -> Stream")
            with L._scoped_library("test_return_stream", "IMPL", "CPU") as l_impl:
                l_impl.impl("return_stream", lambda _: T.Stream(stream_id=0, device_index=1, device_type=2))

                class TestMode(E.pd.TorchDispatchMode):
                    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                        return T.Stream(stream_id=1, device_index=2, device_type=3)

                t = T.tensor(5.0)
                for mode in (None, TestMode):
                    if mode is None:
                        s = T.ops.test_return_stream.return_stream(t)
                    else:
                        with mode():
                            s = T.ops.test_return_stream.return_stream(t)
                    out.append((type(s).__name__, s.stream_id, s.device_index, s.device_type, repr(s)))
        return out
    _same(torch, program)


# --- wt-stream: test_record_stream (aten::record_stream, a Stream argument) ---------------------------------------

def _public(fn: Any) -> tuple:
    """``outcome`` with the error's public class (ours raise subclasses: DispatchError is a NotImplementedError)."""
    out = outcome(fn)
    if out[0] == "error":
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - its class is compared
            for cls in (NotImplementedError, RuntimeError, TypeError):
                if isinstance(e, cls):
                    return ("error", cls.__name__, out[2])
    return out


def test_record_stream(torch: Any) -> None:
    """test_record_stream: a mode sees ``aten::record_stream`` with the Tensor and the Stream (its three numbers);
    the version counter is not bumped (no ADInplaceOrView kernel), a requires-grad input is fine under the mode."""
    def program(E: Any) -> list:
        T = E.T
        seen = []

        class TestMode(E.pd.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append((func.name(), str(func), type(args[0]) is T.Tensor, type(args[1]).__name__,
                             args[1].stream_id, args[1].device_index, args[1].device_type, kwargs))
                return None

        t = T.tensor(5.0)
        s = T.Stream(stream_id=1, device_index=2, device_type=3)
        x = T.ones(2, requires_grad=True)
        with TestMode():
            out = [t.record_stream(s), T.ops.aten.record_stream.default(t, s), T.ops.aten.record_stream(t, T.Stream()),
                   t.record_stream(s=s), x.record_stream(s)]
        return [seen, out, t._version, x.grad_fn is None, hasattr(T, "record_stream")]
    seen = _same(torch, program)[0]
    assert seen[0][:7] == ("aten::record_stream", "aten.record_stream.default", True, "Stream", 1, 2, 3)


def test_record_stream_without_a_mode(torch: Any) -> None:
    """record_stream on CPU / meta tensors: torch 2.13 has only a CUDA kernel (the CPU backend's "Could not run",
    the Meta fallback's error; under a FakeTensorMode the fallback to the CPU call, whose error propagates); the
    Python binding's errors (a non-Stream: "unknown parameter type")."""
    def program(E: Any) -> list:
        T = E.T
        t, s = T.ones(3), T.Stream()
        calls = [lambda: t.record_stream(s), lambda: T.ops.aten.record_stream.default(t, s),
                 lambda: T.ones(2, requires_grad=True).record_stream(s),
                 lambda: T.empty(2, device="meta").record_stream(s),
                 lambda: t.record_stream("x"), lambda: t.record_stream(None), lambda: t.record_stream(3),
                 lambda: t.record_stream(), lambda: t.record_stream(s, s), lambda: t.record_stream(s, foo=1),
                 lambda: t.record_stream(stream=s), lambda: t.record_stream(3, s=s), lambda: t.record_stream(s, s=s),
                 lambda: T.Tensor.record_stream(3, s), lambda: T.ops.aten.record_stream.default(3, s),
                 lambda: T.ops.aten.record_stream.default(t)]
        def under_fake_mode() -> Any:  # no Meta kernel: the fake mode's fallback runs the CPU call, and its error
            with E.FakeTensorMode():
                return T.ones(2).record_stream(s)
        return [_public(c) for c in calls + [under_fake_mode]]
    out = _same(torch, program)
    assert out[0][:2] == ("error", "NotImplementedError") and "'CPU' backend" in out[0][2]
    assert out[-1] == out[0]


def test_record_stream_make_fx(torch: Any) -> None:
    """make_fx of a function calling record_stream: torch.fx has no node argument for a Stream (the proxy mode
    refuses it before the op runs), in every tracing mode."""
    def program(E: Any) -> list:
        T = E.T

        def f(x):
            x.record_stream(T.Stream())
            return x + 1
        return [_public(lambda kw=kw: E.make_fx(f, **kw)(T.ones(2)))
                for kw in ({}, {"tracing_mode": "fake"}, {"pre_dispatch": True})]
    out = _same(torch, program)
    assert out[0] == ("error", "NotImplementedError", "argument of type: <class 'torch.Stream'>")


def test_stream_values(torch: Any) -> None:
    """torch.Stream on a CPU build: defaults, device strings (a CPU / meta stream's index is -1), bad arguments,
    query / synchronize (True / None for cpu and meta streams; other device types are not linked), events."""
    def program(E: Any) -> list:
        T = E.T
        S = T.Stream
        made = [lambda: S(), lambda: S("cpu"), lambda: S("cpu:3"), lambda: S("meta:1"), lambda: S(T.device("cpu")),
                lambda: S("cuda"), lambda: S("xyz"), lambda: S(stream_id=1, device_index=2, device_type=99),
                lambda: S(stream_id=1, device_index=2), lambda: S(device_index=2, device_type=3),
                lambda: S(stream_id=1, device_type=3), lambda: S("cpu", stream_id=1), lambda: S(3), lambda: S(None),
                lambda: S(1.5), lambda: S(device="meta"), lambda: S("cpu", 0), lambda: S("cpu", priority="x"),
                lambda: S("lazy"), lambda: S("xpu:1"), lambda: S(priority=1, stream_id=1, device_index=2, device_type=0)]
        out = [_public(lambda m=m: repr(m())) for m in made]
        streams = [S(), S("meta"), S(stream_id=1, device_index=2, device_type=3),
                   S(stream_id=0, device_index=0, device_type=1)]
        for s in streams:
            out += [_public(s.query), _public(s.synchronize), _public(lambda s=s: str(s.device)),
                    _public(s.record_event), _public(lambda s=s: s.native_handle), _public(s.is_capturing),
                    _public(lambda s=s: s.wait_stream(S())), _public(lambda s=s: s.wait_stream(S("meta"))),
                    _public(lambda s=s: s == S()), _public(lambda s=s: hash(s) == hash(S()))]
        return out
    _same(torch, program)


def test_record_stream_logged_and_its_dispatch_table(torch: Any) -> None:
    """record_stream through a LoggingTensor and a LoggingTensorMode: both forward it to the CPU call, which fails as
    torch's (so, as in torch, no log line for it: the helpers log after the call); its dispatch table's keys (torch's
    CPU build: no CPU / CUDA line)."""
    def program(E: Any) -> list:
        T = E.T
        out = []
        for which in ("subclass", "mode"):
            with E.lt.capture_logs(is_mode=which == "mode") as logs:
                if which == "subclass":
                    x = E.lt.LoggingTensor(T.ones(2))
                    E.lt.log_input("x", x)
                    result = _public(lambda x=x: x.record_stream(T.Stream(stream_id=1, device_index=2,
                                                                          device_type=3)))
                else:
                    with E.lt.LoggingTensorMode():
                        result = _public(lambda: T.ones(2).record_stream(T.Stream()))
            out.append((list(logs), result[:2]))
        out.append([line.split(":")[0] for line in T._C._dispatch_dump_table("aten::record_stream").splitlines()])
        return out
    out = _same(torch, program)
    assert all("record_stream" not in line for logs, _ in out[:2] for line in logs)  # (logged after the call)
    assert out[0][1] == ("error", "NotImplementedError") and "CPU" not in out[2] and "Python" in out[2]
