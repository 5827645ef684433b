"""Traceable wrapper subclasses (``__tensor_flatten__`` / ``__tensor_unflatten__``), ``TwoTensor``, fake tensors of
subclasses, make_fx through subclasses and ``get_isolated_graphmodule``, against torch 2.13.

The behaviours of test_python_dispatch.py's test_traceable_wrapper_subclass_protocol_runtime_check,
test_make_fx_with_subclass, test_return_and_correct_aliasing_gives_correct_stride,
test_wrapper_subclass_reentrant_dispatch_with_mode and TestWrapperSubclassAliasing (in-place / view / out= ops
of a TwoTensor), and test_proxy_tensor.py's test_isolated_graphmodule: each program runs on both libraries and the
outcomes (graph code, types, values, identities) must be equal.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.subclass_env import both, outcome, skip_logging_tensor_in_pytest_capture

_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)


def _wrappers(E: Any) -> tuple[type, type]:
    class Base(E.T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = E.T.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype, layout=elem.layout,
                                                  device=elem.device, requires_grad=elem.requires_grad,
                                                  strides=elem.stride(), storage_offset=elem.storage_offset())
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            raise RuntimeError("NYI")

    class Static(Base):
        def __tensor_flatten__(self):
            return ["elem"], {"kind": "static"}

        @staticmethod
        def __tensor_unflatten__(inner_tensors, metadata, outer_size, outer_stride):
            return Static(inner_tensors["elem"])

    class ClassMethod(Base):
        def __tensor_flatten__(self):
            return ["elem"], {"kind": "classmethod"}

        @classmethod
        def __tensor_unflatten__(cls, inner_tensors, metadata, outer_size, outer_stride):
            return cls(inner_tensors["elem"])

    return Static, ClassMethod


def _protocol(E: Any) -> list:
    Static, ClassMethod = _wrappers(E)
    base = E.T.randn(2, 2)
    out = [E.pd.is_traceable_wrapper_subclass(base), E.pd.is_traceable_wrapper_subclass_type(E.T.Tensor)]
    for cls in (Static, ClassMethod):
        w = cls(base)
        attrs, meta = w.__tensor_flatten__()
        rebuilt = type(w).__tensor_unflatten__({a: getattr(w, a) for a in attrs}, meta, w.size(), w.stride())
        out += [E.pd.is_traceable_wrapper_subclass(w), E.pd.is_traceable_wrapper_subclass_type(cls),
                type(rebuilt).__name__, rebuilt.elem is base, meta]
    moved = E.pd.transform_subclass(E.TwoTensor(base, base * 2), lambda name, t: t + (1 if name == "a" else 2))
    out.append((type(moved).__name__, [round(v, 4) for v in (moved.a - base).reshape(-1).tolist()],
                [round(v, 4) for v in (moved.b - base * 2).reshape(-1).tolist()]))
    return out


def test_traceable_wrapper_subclass_protocol(torch: Any) -> None:
    theirs, ours = both(torch, _protocol)
    assert ours == theirs


def _f_to_trace(E: Any) -> Any:
    def f(x, y):
        return x * y, y + y

    def f_to_trace(x_a, x_b, y):
        x = E.TwoTensor(x_a, x_b)
        out1, out2 = f(x, y)
        attrs, _ = out1.__tensor_flatten__()
        return (*[getattr(out1, attr) for attr in attrs], out2)

    return f_to_trace


PROGRAMS = {
    # make_fx does not unwrap subclass inputs: the function wraps its plain inputs itself (the graph holds the ops
    # run on the inner tensors)
    "wrap_inside": lambda E: (_f_to_trace(E), lambda: (E.T.zeros(4), E.T.zeros(4), E.T.ones(4))),
    # a subclass input is one placeholder; its ops are recorded on it
    "subclass_input": lambda E: (lambda x: (x.sin() * 2).sum(),
                                 lambda: (E.TwoTensor(E.T.randn(3), E.T.randn(3)),)),
    "unwrap_an_output": lambda E: (lambda x: (E.TwoTensor(x, x.cos()) * 2).a, lambda: (E.T.randn(3),)),
    "grad_through_a_subclass": lambda E: (
        lambda x: E.T.autograd.grad((x * x).sum(), x),
        lambda: (E.TwoTensor(E.T.randn(3, requires_grad=True), E.T.randn(3, requires_grad=True)),)),
}


#: every program in both modes, but autograd.grad of fake subclass inputs (its two inner fakes require grad; that
#: program is compared in real mode)
CASES = [(name, mode) for name in sorted(PROGRAMS) for mode in ("real", "fake")
         if (name, mode) != ("grad_through_a_subclass", "fake")]


@pytest.mark.parametrize(("name", "mode"), CASES)
def test_make_fx_through_subclasses(torch: Any, name: str, mode: str) -> None:

    def program(E: Any) -> Any:
        fn, make_args = PROGRAMS[name](E)
        return outcome(lambda: E.make_fx(fn, tracing_mode=mode)(*make_args()).code)

    theirs, ours = both(torch, program)
    assert ours == theirs
    assert ours[0] == "ok"


def _fake_subclass(E: Any) -> list:
    a, b = E.T.randn(3), E.T.randn(3)
    mode = E.FakeTensorMode()
    two = E.TwoTensor(a, b)
    ft = mode.from_tensor(two)
    with mode:
        r = ft * 2
    return [type(ft).__name__, type(ft.a).__name__, type(ft.b).__name__, tuple(ft.shape), ft.stride(),
            mode.from_tensor(two) is ft, type(r).__name__, type(r.a).__name__, tuple(r.a.shape)]


def test_fake_tensor_of_a_traceable_subclass(torch: Any) -> None:
    theirs, ours = both(torch, _fake_subclass)
    assert ours == theirs
    assert ours[:3] == ["TwoTensor", "FakeTensor", "FakeTensor"]


OPS = {
    "mul": lambda T, x, y: T.mul(x, y),
    "cat": lambda T, x, y: T.cat([x, y]),
    "mul_": lambda T, x, y: x.mul_(y),
    "view": lambda T, x, y: x.view(-1),
    "t_": lambda T, x, y: x.t_(),
    "split": lambda T, x, y: T.split(x, 1),
    "maximum_out": lambda T, x, y: T.ops.aten.maximum.out(x, y, out=y),
    "getitem_stride": lambda T, x, y: x[:, 0],
    "index": lambda T, x, y: x[T.tensor([1, 0])],
    "native_batch_norm": lambda T, x, y: T.ops.aten.native_batch_norm.default(x, None, None, None, None, True, 0.1,
                                                                              1e-5),
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_two_tensor_aliasing_and_metadata(torch: Any, op: str) -> None:
    """An op on TwoTensors gives TwoTensors of the plain results, with the plain result's metadata; an in-place or
    ``out=`` op returns the very argument it wrote (``return_and_correct_aliasing``)."""

    def program(E: Any) -> list:
        T = E.T
        x, y = T.randn(2, 2), T.randn(2, 2)
        ref = OPS[op](T, x.clone(), y.clone())
        tx, ty = E.TwoTensor(x.clone(), x.clone()), E.TwoTensor(y.clone(), y.clone())
        out = OPS[op](T, tx, ty)
        refs = list(ref) if isinstance(ref, (list, tuple)) else [ref]
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        return [(type(o).__name__, tuple(o.shape), o.stride(), tuple(r.shape), r.stride(), o is tx,
                 (o.a - r).abs().max().item() if o.numel() else 0.0) for o, r in zip(outs, refs, strict=True)]

    theirs, ours = both(torch, program)
    assert ours == theirs


def _two_tensor_mode(E: Any) -> list:
    with E.TwoTensorMode():
        x = E.T.ones(2)
        y = x + 1
    return [type(x).__name__, type(y).__name__, y.a.tolist(), y.b.tolist()]


def test_two_tensor_mode_wraps_factories(torch: Any) -> None:
    theirs, ours = both(torch, _two_tensor_mode)
    assert ours == theirs


def _reentrant_with_mode(E: Any) -> list:
    class CustomDispatchMode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class MySubclass(E.TwoTensor):
        def __torch_dispatch__(self, func, types, args, kwargs=None):
            with E.reentrant():
                return func(args[0].a)

    t = MySubclass(E.T.rand(2), E.T.rand(2))
    with CustomDispatchMode():
        res = t.clone()
    return [type(res).__name__, (res - t.a).abs().max().item()]


def test_wrapper_subclass_reentrant_dispatch_with_mode(torch: Any) -> None:
    theirs, ours = both(torch, _reentrant_with_mode)
    assert ours == theirs == ["Tensor", 0.0]


def _isolated(E: Any) -> list:
    codes: list = []

    def inner(x, y=None):
        return E.T.sum(x) * y

    def f(x):
        codes.append(E.get_isolated_graphmodule(inner, (x,), {"y": x}).code)
        return x + E.T.ones(x.shape)

    codes.append(E.make_fx(f)(E.T.randn(3)).code)

    def inner_with_factory():
        val = E.T.tensor(float(1))
        val.add_(2)
        return E.T.full((10, 10), val).sum()

    def f1(x):
        codes.append(E.get_isolated_graphmodule(inner_with_factory, (), {}).code)
        return E.T.sigmoid(x)

    def f2(x):
        codes.append(E.get_isolated_graphmodule(f1, (x,), {}).code)
        return E.T.cos(x)

    codes.append(E.make_fx(f2)(E.T.randn(3)).code)
    return codes


def test_get_isolated_graphmodule(torch: Any) -> None:
    """An inner trace gets its own graph; nothing of it lands in the outer one (test_isolated_graphmodule)."""
    theirs, ours = both(torch, _isolated)
    assert ours == theirs
    assert "sum" not in ours[1] and "sigmoid" not in ours[-1] and "cos" in ours[-1]
