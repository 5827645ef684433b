"""Modes and subclasses together, against torch 2.13: who runs first, NotImplemented, modes returning subclasses,
the mode stack helpers, infra modes, ``super().__torch_dispatch__``.

The behaviours of test_python_dispatch.py's test_subclass_priority, test_torch_dispatch_mode_subclass_priority,
test_notimplemented_mode, test_make_subclass_with_modes, test_exception_handling,
test_with_mode_created_separately, test_with_nested_modes, test_error_using_class_method_on_mode,
test_get_cur_mode, test_get_mode_stack, test_all_same_mode, test_mode_detection, test_shallow_copy_and_detach,
test_dispatch_super_call (+ list arg, dont_autograd), test_set_data, test_none_wrapping, test_autograd_in_attr,
test_view_returns_alias_under_torch_dispatch, plus ``_pop_mode_temporarily``.
Each program runs on both libraries; the outcomes must be equal.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from tests.subclass_env import both, outcome, skip_logging_tensor_in_pytest_capture

_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)


def _errors(E: Any) -> tuple[type, type]:
    class ErrorA(RuntimeError):
        pass

    class ErrorB(RuntimeError):
        pass

    return ErrorA, ErrorB


def _priority(E: Any) -> list:
    ErrorA, ErrorB = _errors(E)

    class A(E.T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return E.T.Tensor._make_subclass(cls, elem, elem.requires_grad)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            with AMode():
                raise ErrorA

    class B(A):
        @staticmethod
        def __new__(cls, elem):
            return E.T.Tensor._make_subclass(cls, elem, elem.requires_grad)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            with BMode():
                func(*args, **(kwargs or {}))

    class AMode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise ErrorA

    class BMode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise ErrorB

    a, b = A(E.T.empty(1)), B(E.T.empty(1))

    def run(fn: Any, mode: Any = None) -> str:
        try:
            if mode is None:
                fn()
            else:
                with mode():
                    fn()
        except (ErrorA, ErrorB) as e:
            return type(e).__name__
        return "none"

    return [run(lambda: a + a), run(lambda: a + b), run(lambda: b + a), run(lambda: b + b),
            run(lambda: b + b, AMode), run(lambda: a + a, BMode), run(lambda: a + b, BMode)]


def test_subclass_and_mode_priority(torch: Any) -> None:
    """A subclass before its superclass; a mode before any subclass."""
    theirs, ours = both(torch, _priority)
    assert ours == theirs == ["ErrorA", "ErrorB", "ErrorB", "ErrorB", "ErrorA", "ErrorB", "ErrorB"]


def _polite(E: Any) -> list:
    sub_count = [0]

    class PoliteMode(E.pd.TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.pre_count = 0
            self.post_count = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.pre_count += 1
            if any(t is not E.T.Tensor for t in types):
                return NotImplemented
            self.post_count += 1
            return func(*args, **(kwargs or {}))

    class SubTensor(E.T.Tensor):
        def __new__(cls, elem):
            r = E.T.Tensor._make_wrapper_subclass(cls, elem.shape)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            sub_count[0] += 1
            unwrap = lambda t: t.elem if isinstance(t, SubTensor) else t  # noqa: E731
            return func(*E.tree_map(unwrap, args), **E.tree_map(unwrap, kwargs or {}))

    a = SubTensor(E.T.randn(2))
    with PoliteMode() as mode:
        a.abs()
    with PoliteMode() as outer, PoliteMode() as inner:
        a.abs()
    return [mode.pre_count, mode.post_count, sub_count[0], outer.pre_count, inner.pre_count]


def test_notimplemented_mode_falls_through_to_the_subclass(torch: Any) -> None:
    theirs, ours = both(torch, _polite)
    assert ours == theirs
    assert ours[:2] == [2, 1]


def _mode_returns_subclass(E: Any) -> list:
    class ModeTensor(E.T.Tensor):
        def __new__(cls, elem, mode):
            r = E.T.Tensor._make_subclass(cls, elem, elem.requires_grad)
            r.elem = elem
            r.mode = mode
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            raise NotImplementedError("Shouldn't be here")

    class Mode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            unwrap = lambda e: e.elem if isinstance(e, ModeTensor) else e  # noqa: E731
            wrap = lambda t: ModeTensor(t, self) if isinstance(t, E.T.Tensor) else t  # noqa: E731
            return wrap(func(*tuple(unwrap(a) for a in args), **(kwargs or {})))

    class BasicMode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    x = E.T.tensor(4.0)
    with Mode():
        y = x + x
        z = y + y
    out = [type(y).__name__, type(z).__name__, z.elem.item()]
    with Mode(), BasicMode():
        y = x + x
        z = y + y
    out += [type(y).__name__, type(z).__name__]

    class A(E.T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return E.T.Tensor._make_subclass(cls, elem, elem.requires_grad)

    class AMode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.__name__ == "randn.default":
                raise RuntimeError
            return A(E.T.zeros(()))

    with AMode():
        out.append(outcome(lambda: E.T.randn(()))[:2])
        out.append(type(E.T.zeros(())).__name__)
    return out


def test_modes_returning_subclasses(torch: Any) -> None:
    theirs, ours = both(torch, _mode_returns_subclass)
    assert ours == theirs


def _stack(E: Any) -> list:
    pd = E.pd

    class A(pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            pass

    out = [pd._get_current_dispatch_mode() is None, pd._get_current_dispatch_mode_stack() == []]
    with A() as mode1:
        out.append(pd._get_current_dispatch_mode() is mode1)
        out.append(pd._get_current_dispatch_mode_stack() == [mode1])
    with mode1, A() as mode2:
        out.append(pd._get_current_dispatch_mode() is mode2)
        out.append(pd._get_current_dispatch_mode_stack() == [mode1, mode2])
        with pd._pop_mode_temporarily() as popped:
            out.append(popped is mode2)
            out.append(pd._get_current_dispatch_mode_stack() == [mode1])
        out.append(pd._get_current_dispatch_mode_stack() == [mode1, mode2])
    x, y = E.lt.LoggingTensorMode(), E.lt.LoggingTensorMode()
    out += [E.mu.all_same_mode([x, x, x]), E.mu.all_same_mode([x, None]), E.mu.all_same_mode([x, y])]
    return out


def test_mode_stack_helpers(torch: Any) -> None:
    theirs, ours = both(torch, _stack)
    assert ours == theirs
    assert all(ours[:9])


def _infra(E: Any) -> list:
    pd = E.pd

    class InfraMode(pd.TorchDispatchMode):
        @classmethod
        def is_infra_mode(cls):
            return True

    class NonInfraMode(pd.TorchDispatchMode):
        pass

    seen = []

    def look() -> None:
        seen.append((pd.is_in_torch_dispatch_mode(), pd.is_in_torch_dispatch_mode(include_infra_modes=False)))

    with InfraMode():
        look()
        with NonInfraMode():
            look()
            with InfraMode():
                look()
            look()
        look()
    look()
    return seen


def test_infra_mode_detection(torch: Any) -> None:
    theirs, ours = both(torch, _infra)
    assert ours == theirs


def _errors_in_modes(E: Any) -> list:
    ErrorA, _ = _errors(E)

    class A(E.pd.TorchDispatchMode):
        def __init__(self, msg: str = "") -> None:
            super().__init__()
            self.msg = msg

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise ErrorA(self.msg)

    class ClassMethodMode(E.pd.TorchDispatchMode):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return func(args, kwargs)

    out = []
    x = A()
    try:
        with x:
            E.T.empty([])
    except ErrorA:
        out.append("created separately")
    try:
        with A("layer1"), A("layer2"):
            E.T.empty([])
    except ErrorA as e:
        out.append(str(e))

    def classmethod_mode() -> None:
        t = E.T.tensor(5.0)
        with ClassMethodMode():
            t + t

    out.append(outcome(classmethod_mode))
    # (not here: a mode returning more values than the schema has; the installed torch 2.13 build crashes on it)
    out.append(E.pd._get_current_dispatch_mode_stack() == [])
    return out


def test_errors_raised_in_and_about_modes(torch: Any) -> None:
    theirs, ours = both(torch, _errors_in_modes)
    assert ours == theirs


def _shallow_copy(E: Any) -> bool:
    seen: set = set()
    problems: list = []

    class TestMode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            E.tree_map_only(E.T.Tensor, lambda t: problems.append(str(func)) if id(t) not in seen else None,
                            (args, kwargs))
            r = func(*args, **(kwargs or {}))
            E.tree_map_only(E.T.Tensor, lambda t: seen.add(id(t)), r)
            return r

    with TestMode():
        x = E.T.randn(3, requires_grad=True)
        (x * x).sum().backward()
    return problems


def test_every_tensor_a_mode_sees_came_from_the_mode(torch: Any) -> None:
    """test_shallow_copy_and_detach: autograd's saved-tensor copies are made through the mode too."""
    theirs, ours = both(torch, _shallow_copy)
    assert ours == theirs == []


def _super_calls(E: Any) -> list:
    called: list = []

    class SubTensor(E.T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return E.T.Tensor._make_subclass(cls, elem, elem.requires_grad)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            called.append(str(func))
            r = super().__torch_dispatch__(func, types, list(args), kwargs)
            called.append((type(r).__name__, r.requires_grad))
            return r

    x, y = E.T.randn(2), E.T.randn(2)
    s = SubTensor(x) + SubTensor(y)
    n = SubTensor(E.T.randn(2, requires_grad=True)).neg()
    return [called, type(s).__name__, (s - (x + y)).abs().max().item(), n.requires_grad]


def test_super_torch_dispatch(torch: Any) -> None:
    """``super().__torch_dispatch__`` runs the op below the Python key (no autograd again inside)."""
    theirs, ours = both(torch, _super_calls)
    assert ours == theirs


def _set_data(E: Any) -> list:
    called = [0]

    class SubTensor(E.T.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            called[0] += 1
            return super().__torch_dispatch__(func, types, args, kwargs)

    x = SubTensor(E.T.empty(2))
    out = []
    _ = x.data
    out.append(called[0])
    x.data = E.T.empty(2)
    out.append(called[0])
    _ = x.data
    out.append(called[0])
    out.append(type(x).__name__)
    return out


def test_data_of_a_subclass(torch: Any) -> None:
    theirs, ours = both(torch, _set_data)
    assert ours == theirs


def _none_wrapping(E: Any) -> list:
    class SubclassWithNone(E.T.Tensor):
        @staticmethod
        def __new__(cls, elem, *args, **kwargs):
            r = E.T.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype, layout=elem.layout,
                                                  device=elem.device, requires_grad=elem.requires_grad)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            unwrap = lambda e: e.elem if isinstance(e, SubclassWithNone) else e  # noqa: E731
            wrap = lambda e: SubclassWithNone(e) if isinstance(e, E.T.Tensor) else e  # noqa: E731
            rs = E.tree_map(wrap, func(*E.tree_map(unwrap, args), **E.tree_map(unwrap, kwargs or {})))
            return None if func.overloadpacket.__name__ == "add" else rs

    x = SubclassWithNone(E.T.rand(2))
    return [type(x * 2).__name__, x + 2 is None]


def test_a_subclass_returning_none(torch: Any) -> None:
    theirs, ours = both(torch, _none_wrapping)
    assert ours == theirs == ["SubclassWithNone", True]


def _autograd_in_attr(E: Any) -> list:
    true_t = E.T.rand(2, requires_grad=True)
    t = E.lt.LoggingTensorReentrant(true_t)
    out = t + 2
    result = [out.requires_grad, out.grad_fn is None, out.elem.requires_grad, out.elem.grad_fn is not None]
    result.append(outcome(lambda: out.sum().backward()))
    out.elem.sum().backward()
    result += [t.grad is None, t.elem.grad is not None]
    return result


def test_autograd_inside_the_wrapper(torch: Any) -> None:
    theirs, ours = both(torch, _autograd_in_attr)
    assert ours == theirs


def _view_alias(E: Any) -> list:
    fresh: list = []

    class MyMode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if func is E.T.ops.aten.view.default:
                fresh.append(out is not args[0])
            return out

    with MyMode():
        x = E.T.ones(4, dtype=E.T.float32)
        x.view(2, 2)
        x.view(4)
    return fresh


@pytest.mark.parametrize("program", [_view_alias])
def test_views_under_a_mode_are_fresh_tensors(torch: Any, program: Any) -> None:
    theirs, ours = both(torch, program)
    assert ours == theirs


def _infra_under_make_fx(E: Any, pre_dispatch: bool) -> list:
    pd = E.pd
    key = E.T._C._TorchDispatchModeKey.PROXY if E.name == "torch" else pd.TorchDispatchModeKey.PROXY
    seen: list = []

    def f(x):
        seen.append(type(pd._detect_infra_mode(key)).__name__)
        seen.append((pd.any_torch_dispatch_mode_on_stack(), pd.is_in_any_mode_without_ignore_compile_internals(),
                     pd.is_in_torch_dispatch_mode(), pd.is_in_torch_dispatch_mode(include_infra_modes=False)))
        with contextlib.contextmanager(pd._disable_infra_mode)(key) as mode:
            seen.append(type(mode).__name__)
            y = x.cos()  # not recorded
        return x.sin() + y.detach() * 0

    code = E.make_fx(f, pre_dispatch=pre_dispatch)(E.T.randn(2)).code
    seen.append(pd._detect_infra_mode(key) is None)
    seen.append("cos" in code)
    return seen


@pytest.mark.parametrize("pre_dispatch", [False, True])
def test_infra_modes_during_make_fx(torch: Any, pre_dispatch: bool) -> None:
    """``_detect_infra_mode(PROXY)`` finds make_fx's mode (on the pre-dispatch stack with pre_dispatch=True); with
    it unset, ops are not recorded; it does not count as a user mode."""
    theirs, ours = both(torch, lambda E: _infra_under_make_fx(E, pre_dispatch))
    assert ours == theirs


def _global_enter_and_subclass_like(E: Any) -> list:
    import weakref

    v = E.lt.LoggingTensorMode()
    v_ref = weakref.ref(v)
    v.__enter__()
    del v  # the mode stack is now the only owner
    try:
        inside = [str(E.T.rand(2)).startswith("tensor("), E.T._C._dispatch_isTensorSubclassLike(E.T.empty(0))]
    finally:
        v_ref().__exit__(None, None, None)
    return inside + [E.T._C._dispatch_isTensorSubclassLike(E.T.empty(0)),
                     E.T._C._dispatch_isTensorSubclassLike(E.lt.LoggingTensor(E.T.empty(0))),
                     E.pd._get_current_dispatch_mode_stack() == []]


def test_entered_mode_owned_by_the_stack_and_subclass_likeness(torch: Any) -> None:
    """test_global_enter and test_standard_is_not_subclass."""
    theirs, ours = both(torch, _global_enter_and_subclass_like)
    assert ours == theirs


def _contiguous_slow_path(E: Any, wrapper: bool) -> list:
    data = E.T.randn(3, 3)
    answers = {"contiguous": data.clone(), "not_contiguous": data.clone().t()}
    out = []
    for name in (None, "contiguous", "not_contiguous"):
        class Example(E.T.Tensor):
            @staticmethod
            def __new__(cls, d):
                if wrapper:
                    return E.T.Tensor._make_wrapper_subclass(cls, d.size(), device=d.device, dtype=d.dtype,
                                                             layout=d.layout, requires_grad=True,
                                                             dispatch_sizes_strides_policy="strides")
                return E.T.Tensor._make_subclass(cls, d, True, dispatch_sizes_strides_policy="strides")

            @classmethod
            def __torch_dispatch__(cls, func, types, args, kwargs, name=name):
                if name is not None and func.overloadpacket == E.T.ops.aten.is_contiguous:
                    return answers[name].is_contiguous()
                return NotImplemented

        e = Example(E.T.randn(3, 3))
        out.append(outcome(e.is_contiguous))
        out.append(outcome(lambda e=e: e.contiguous() is e)[:2])
    return out


@pytest.mark.parametrize("wrapper", [True, False])
def test_is_contiguous_slow_path(torch: Any, wrapper: bool) -> None:
    theirs, ours = both(torch, lambda E: _contiguous_slow_path(E, wrapper))
    assert ours == theirs


def test_mode_returning_too_many_values() -> None:
    """test_mode_returning_too_many_values: a RuntimeError saying how many values the schema returns (compared with
    the text torch's test expects: the installed torch build crashes on this program instead)."""
    import dispatcher as D
    from dispatcher.utils._python_dispatch import TorchDispatchMode

    class TooMany(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return (D.ones(2), D.ones(2), D.ones(2))

    t = D.ones(2)
    with pytest.raises(RuntimeError, match="to return 2 values"), TooMany():
        D.ops.aten.max.dim(t, 0)
