"""TorchDispatchMode and ``__torch_dispatch__`` subclasses behave as in torch 2.13.

Most tests run the same scenario twice, once on torch (the oracle) and once on dispatcher, through a small
``Env`` that names each side's mode class, stack functions and TLS queries, and compare what was observed:
logs of ``(who, op, types)``, TLS key sets printed with PyTorch's repr, errors and their messages. The rules
are SEMANTICS.md §1.7, §5 and the Python key's fallback (dispatcher/python_key.py); the long tests at the end
compare the op sequence a pass-through logging mode sees for every program of tests/test_programs.py (forward)
and tests/test_autograd_programs.py (with backward) with torch's.
"""

from __future__ import annotations

import logging
import threading
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher import DispatchKey, DispatchKeySet
from dispatcher import modes as our_modes
from dispatcher.ops import composite as decompositions
from dispatcher.python_key import shallow_copy_and_detach
from tests.test_frontend import _norm, _norm_kwargs


# --- the two sides ----------------------------------------------------------------------------------------------
@dataclass
class Env:
    """One side of a comparison: the module and its mode machinery."""

    T: Any
    Mode: type
    stack: Any  # () -> list of modes, bottom to top
    include: Any  # () -> str of the TLS include set
    exclude: Any  # () -> str of the TLS exclude set
    keys: Any  # tensor -> str of its key set
    no_dispatch: Any
    pop_mode_temporarily: Any
    current_mode: Any

    @property
    def F(self) -> Any:  # noqa: N802 - torch.nn.functional's usual name
        return self.T.nn.functional


def torch_env(torch: Any) -> Env:
    from torch.utils import _python_dispatch as pd
    from torch.utils._mode_utils import no_dispatch

    C = torch._C
    return Env(torch, pd.TorchDispatchMode, pd._get_current_dispatch_mode_stack,
               lambda: str(C._dispatch_tls_local_include_set()), lambda: str(C._dispatch_tls_local_exclude_set()),
               lambda t: str(C._dispatch_keys(t)), no_dispatch, pd._pop_mode_temporarily, pd._get_current_dispatch_mode)


def our_env() -> Env:
    return Env(dispatcher, our_modes.TorchDispatchMode, our_modes._get_current_dispatch_mode_stack,
               lambda: str(dispatcher.tls_local_include_set()), lambda: str(dispatcher.tls_local_exclude_set()),
               lambda t: str(DispatchKeySet.from_raw_repr(t._key_set)), our_modes.no_dispatch,
               our_modes._pop_mode_temporarily, our_modes._get_current_dispatch_mode)


@pytest.fixture
def envs(torch: Any) -> tuple[Env, Env]:
    return torch_env(torch), our_env()


def both(envs: tuple[Env, Env], scenario: Any) -> tuple[Any, Any]:
    """Run ``scenario(env)`` on torch and on dispatcher; each returns what it observed."""
    theirs, ours = envs
    return scenario(theirs), scenario(ours)


def same(envs: tuple[Env, Env], scenario: Any) -> Any:
    theirs, ours = both(envs, scenario)
    assert ours == theirs, f"\n torch: {theirs}\n ours:  {ours}"
    return ours


def tree_map(fn: Any, x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return type(x)(tree_map(fn, e) for e in x)
    if isinstance(x, dict):
        return {k: tree_map(fn, v) for k, v in x.items()}
    return fn(x)


def named_mode(env: Env, log: list, name: str = "M", refuse_subclasses: bool = False) -> Any:
    """A pass-through mode logging (name, op, type names, stack length inside)."""

    class Named(env.Mode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            log.append((name, str(func), [t.__name__ for t in types], len(env.stack())))
            if refuse_subclasses and types:
                return NotImplemented
            return func(*args, **(kwargs or {}))

        def __repr__(self) -> str:
            return f"Named({name})"

    return Named()


def wrapper_class(env: Env, log: list, name: str, refuse: bool = False, base: type | None = None) -> type:
    """A LoggingTensor-like wrapper subclass: unwraps ``.elem``, runs the op, wraps tensor results."""
    T = env.T

    def unwrap(t: Any) -> Any:
        return t.elem if isinstance(t, T.Tensor) and hasattr(t, "elem") else t

    class Wrapper(base or T.Tensor):
        @staticmethod
        def __new__(cls, elem, requires_grad=False):  # noqa: ANN001, ANN205
            return T.Tensor._make_wrapper_subclass(cls, elem.shape, strides=elem.stride(), dtype=elem.dtype,
                                                   device=elem.device, requires_grad=requires_grad)

        def __init__(self, elem, requires_grad=False):  # noqa: ANN001
            self.elem = elem

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN206
            log.append((cls.__name__, str(func), sorted(t.__name__ for t in types)))
            if refuse:
                return NotImplemented
            out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
            return tree_map(lambda t: cls(t) if isinstance(t, T.Tensor) else t, out)

    Wrapper.__name__ = Wrapper.__qualname__ = name
    return Wrapper


# --- the stack and the TLS ----------------------------------------------------------------------------------------
def test_entering_adds_python_keys_to_tls_and_the_last_exit_removes_them(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        seen = [env.include()]
        with named_mode(env, []):
            seen.append(env.include())
            with named_mode(env, []):
                seen += [env.include(), len(env.stack())]
            seen += [env.include(), len(env.stack())]
        return seen + [env.include(), env.exclude(), len(env.stack())]

    seen = same(envs, scenario)
    assert "Python" in seen[1] and "Python" not in seen[0]


def test_tls_inside_the_handler(envs: tuple[Env, Env]) -> None:
    """Every key above Python is excluded inside; Python stays included only while another mode is left."""

    def scenario(env: Env) -> list:
        seen: list = []

        class Probe(env.Mode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                seen.append((env.include(), env.exclude()))
                return func(*args, **(kwargs or {}))

        x = env.T.ones(2)
        with Probe():
            x + 1
        with named_mode(env, []), Probe():
            x + 1
        return seen + [env.include(), env.exclude()]

    seen = same(envs, scenario)
    assert "ADInplaceOrView" in seen[0][1] and "PythonTLSSnapshot" in seen[0][1]


def test_innermost_mode_first_and_each_runs_with_itself_popped(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        x = env.T.ones(2, 3)
        with named_mode(env, log, "A"), named_mode(env, log, "B"):
            env.T.add(x, 1)
        return log

    assert same(envs, scenario) == [("B", "aten.add.Tensor", [], 1), ("A", "aten.add.Tensor", [], 0)]


def test_modes_see_factory_functions(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        with named_mode(env, log):
            env.T.ones(2)
            env.T.zeros(2, 3)
            env.T.empty(3)
            env.T.arange(4)
            env.T.randn(2)
            env.T.full((2,), 1.5)
        return log

    assert len(same(envs, scenario)) == 6


def test_subclasses_without_a_mode_never_see_factory_functions(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        W = wrapper_class(env, log, "W")
        w = W(env.T.ones(2))
        env.T.ones(2)
        w + 1
        return log

    assert same(envs, scenario) == [("W", "aten.add.Tensor", ["W"])]


def test_modes_see_ops_after_autograd_and_decompositions(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        T, F = env.T, env.F
        x, w, b = T.ones(2, 3), T.ones(4, 3), T.ones(4)
        with named_mode(env, log):
            F.linear(x, w, b)
            T.softmax(x, -1)
            F.layer_norm(x, (3,))
            x.matmul(w.t())
            x.reshape(3, 2)
            F.relu(x).sum()
        return [op for _, op, _, _ in log]

    ops = same(envs, scenario)
    assert ops[:2] == ["aten.t.default", "aten.addmm.default"] and "aten.linear.default" not in ops


def test_an_error_in_the_handler_restores_stack_and_tls(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        class Boom(env.Mode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                raise ValueError(f"boom at {func}")

        seen = []
        x = env.T.ones(2)
        with named_mode(env, []) as outer:
            try:
                with Boom():
                    x + 1
            except ValueError as e:
                seen.append(str(e))
            seen += [env.include(), env.exclude(), env.stack() == [outer]]
        return seen + [env.include(), env.exclude(), len(env.stack())]

    assert same(envs, scenario)[0] == "boom at aten.add.Tensor"


def test_reentering_with_self_inside_the_handler(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        T = env.T

        class Twice(env.Mode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                log.append(str(func))
                if func is T.ops.aten.add.Tensor:
                    with self:
                        return T.ops.aten.mul.Tensor(args[0], 2)
                return func(*args, **(kwargs or {}))

        with Twice():
            out = T.ones(2) + 1
        return log + [out.tolist()]

    assert same(envs, scenario) == ["aten.ones.default", "aten.add.Tensor", "aten.mul.Tensor", [2.0, 2.0]]


def test_handler_issuing_other_ops_sends_them_to_lower_modes_only(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        T = env.T

        class Inner(env.Mode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                log.append(("Inner", str(func)))
                if func is T.ops.aten.add.Tensor:
                    return T.ops.aten.sub.Tensor(args[0], -args[1])
                return func(*args, **(kwargs or {}))

        x = T.ones(1)
        with named_mode(env, log, "Outer"), Inner():
            x + x
        return log

    assert same(envs, scenario) == [("Inner", "aten.add.Tensor"), ("Outer", "aten.neg.default", [], 0),
                                    ("Outer", "aten.sub.Tensor", [], 0)]


def test_the_same_mode_object_entered_twice(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        m = named_mode(env, log)
        with m:
            with m:
                env.T.ones(1) + 1
                inner = len(env.stack())
            outer = len(env.stack())
        return log + [inner, outer, len(env.stack())]

    assert same(envs, scenario)[-3:] == [2, 1, 0]


def test_stack_functions(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        seen: list = [env.current_mode()]
        a, b = named_mode(env, [], "A"), named_mode(env, [], "B")
        with a, b:
            seen.append(env.current_mode() is b)
            with env.pop_mode_temporarily() as popped:
                seen += [popped is b, env.current_mode() is a, env.include()]
            seen.append(env.stack() == [a, b])
        try:
            with env.pop_mode_temporarily():
                pass
        except RuntimeError as e:
            seen.append(str(e))
        return seen

    assert same(envs, scenario)[-1] == "trying to pop from empty mode stack"


def test_mode_handler_must_not_be_a_classmethod(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        class ClassLevel(env.Mode):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN206
                return func(*args, **(kwargs or {}))

        try:
            with ClassLevel():
                env.T.ones(1)
        except RuntimeError as e:
            return [str(e), len(env.stack()), env.include()]
        return ["no error"]

    assert "classmethod is not supported" in same(envs, scenario)[0]


def test_modes_are_thread_local(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        seen: list = []

        def other_thread() -> None:
            seen.append((len(env.stack()), env.include()))
            env.T.ones(1) + 1
            with named_mode(env, log, "B"):
                env.T.ones(1)
            seen.append(len(env.stack()))

        with named_mode(env, log, "A"):
            t = threading.Thread(target=other_thread)
            t.start()
            t.join()
            env.T.zeros(1)
            seen.append(len(env.stack()))
        return log + seen

    ours = same(envs, scenario)
    assert ("B", "aten.ones.default", [], 0) in ours and ("A", "aten.ones.default", [], 0) not in ours


def test_a_stateful_logging_mode(envs: tuple[Env, Env]) -> None:
    """The note's LoggingMode: a mode holding a logger writes every op to it."""

    def scenario(env: Env) -> list:
        records: list = []

        class ListHandler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                records.append(record.getMessage())

        logger = logging.getLogger(f"test_modes.{id(env)}")
        logger.propagate = False
        logger.setLevel(logging.INFO)
        logger.addHandler(ListHandler())

        class LoggingMode(env.Mode):
            def __init__(self, logger: logging.Logger) -> None:
                self.logger = logger
                self.count = 0
                super().__init__()

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                self.count += 1
                self.logger.info("%s.%s", func.__module__.rsplit(".", 1)[-1], func.__name__)
                return func(*args, **(kwargs or {}))

        mode = LoggingMode(logger)
        x = env.T.ones(2, 2)
        with mode:
            (x @ x).relu().sum()
        with mode:
            x * 2
        return records + [mode.count]

    assert same(envs, scenario)[-1] == 4


def test_the_handlers_result_must_fit_the_schema(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        seen: list = []
        x = env.T.ones(2, 2)

        class Returns(env.Mode):
            def __init__(self, value: Any) -> None:
                super().__init__()
                self.value = value

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                out = func(*args, **(kwargs or {}))
                return self.value(out) if callable(self.value) else self.value

        for value in (5, "x", lambda out: (out,), lambda out: [out]):
            try:
                with Returns(value):
                    x + 1
                seen.append("no error")
            except RuntimeError as e:
                seen.append(str(e).split(" to ")[-1])
        with Returns(lambda out: list(out) if isinstance(out, tuple) else out):
            values, indices = x.max(0)
        return seen + [values.tolist(), indices.tolist()]

    assert same(envs, scenario)[:2] == ["Tensor", "Tensor"]


# --- NotImplemented and subclasses ----------------------------------------------------------------------------------
def test_mode_refusing_plain_tensors_is_a_type_error() -> None:
    class Refuse(our_modes.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            return NotImplemented

        def __repr__(self) -> str:
            return "Refuse()"

    with pytest.raises(TypeError) as e, Refuse():
        dispatcher.ones(1)
    assert str(e.value) == (
        "Multiple dispatch failed for 'dispatcher.ops.aten.ones.default'; all __torch_dispatch__ handlers returned "
        "NotImplemented:\n\n  - mode object Refuse()\n\nTo see why, print func and types in each "
        "__torch_dispatch__ listed above (each returned NotImplemented for this op), or run the call under "
        "dispatcher.explain_dispatch(op, *args) to see its path through the dispatcher"
    )
    assert our_modes._get_current_dispatch_mode_stack() == []


def test_mode_refusing_passes_to_the_subclass_whose_inner_call_reaches_the_mode_again(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        W = wrapper_class(env, log, "W")
        a, b = W(env.T.ones(2)), env.T.ones(2)
        with named_mode(env, log, "NIMode", refuse_subclasses=True):
            out = a + b
        return log + [type(out).__name__]

    assert same(envs, scenario) == [("NIMode", "aten.add.Tensor", ["W"], 0), ("W", "aten.add.Tensor", ["W"]),
                                    ("NIMode", "aten.add.Tensor", [], 0), "W"]


def test_mode_runs_before_the_subclass(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        W = wrapper_class(env, log, "W")
        w, x = W(env.T.ones(2)), env.T.ones(2)
        with named_mode(env, log, "M"):
            w * x
        return log

    assert same(envs, scenario) == [("M", "aten.mul.Tensor", ["W"], 0), ("W", "aten.mul.Tensor", ["W"])]


def test_subclass_order_and_types(envs: tuple[Env, Env]) -> None:
    """Left to right, a subclass before its superclass; ``types`` lists each type once; lists count."""

    def scenario(env: Env) -> list:
        log: list = []
        T = env.T
        P, Q = wrapper_class(env, log, "P"), wrapper_class(env, log, "Q")
        P2 = wrapper_class(env, log, "P2", base=P)
        R = wrapper_class(env, log, "R", refuse=True)
        p, q, p2, r = P(T.ones(2)), Q(T.ones(2)), P2(T.ones(2)), R(T.ones(2))
        T.add(p, q)
        T.add(q, p)
        T.add(p, p2)
        T.add(r, p)
        T.cat([T.ones(2), q])
        T.stack([p, T.ones(2), p2])
        T.where(T.ones(2) > 0, p, q)
        return log

    log = same(envs, scenario)
    assert log[:2] == [("P", "aten.add.Tensor", ["P", "Q"]), ("Q", "aten.add.Tensor", ["P", "Q"])]
    assert log[2][0] == "P2"


def test_types_given_to_handlers_are_a_tuple(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        seen: list = []
        W = wrapper_class(env, [], "W")

        class Types(env.Mode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                seen.append((type(types).__name__, [t.__name__ for t in types], type(args).__name__,
                             type(kwargs).__name__))
                return func(*args, **(kwargs or {}))

        w = W(env.T.ones(2))
        with Types():
            env.T.ones(2) + 1
            w + w
            env.T.ones(2, dtype=env.T.float64)
        return seen

    assert same(envs, scenario)[0][0] == "tuple"


def test_every_subclass_refusing_is_a_type_error(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        R1, R2 = wrapper_class(env, log, "R1", refuse=True), wrapper_class(env, log, "R2", refuse=True)
        try:
            env.T.add(R1(env.T.ones(2)), R2(env.T.ones(2)))
        except TypeError as e:
            message = str(e).replace("torch._ops.aten", "dispatcher.ops.aten").rsplit("\n", 1)[0]  # (torch's TORCH_LOGS hint is rewritten here)
            return log + [message.replace(".<locals>.", "").replace(__name__, "M")]
        return log

    theirs, ours = both(envs, scenario)
    assert ours == theirs
    assert ours[-1].startswith("Multiple dispatch failed for 'dispatcher.ops.aten.add.Tensor'; all __torch_dispatch__")


def test_python_operators_turn_the_refusal_into_pythons_own_error(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        R = wrapper_class(env, log, "Refuser", refuse=True)
        try:
            R(env.T.ones(2)) + env.T.ones(2)
        except TypeError as e:
            return log + [str(e)]
        return log

    assert same(envs, scenario)[-1] == "unsupported operand type(s) for +: 'Refuser' and 'Tensor'"


# --- wrapper subclasses -----------------------------------------------------------------------------------------------
def test_wrapper_subclass_metadata_and_keys(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        T = env.T
        W = wrapper_class(env, [], "W")

        class NoDispatch(T.Tensor):
            pass

        seen: list = []
        for kwargs in ({}, {"strides": (1, 2), "storage_offset": 3, "dtype": T.float64, "requires_grad": True},
                       {"device": "meta"}):
            t = T.Tensor._make_wrapper_subclass(W, (2, 3), **kwargs)
            seen.append((type(t).__name__, env.keys(t), str(t.dtype), str(t.device), tuple(t.shape), t.stride(),
                         t.storage_offset(), t.requires_grad, t.is_leaf, t.is_contiguous()))
        for cls, kwargs in ((int, {}), (NoDispatch, {}), (W, {"storage_offset": 1}),
                            (W, {"dtype": T.int64, "requires_grad": True})):
            try:
                T.Tensor._make_wrapper_subclass(cls, (2,), **kwargs)
            except (TypeError, RuntimeError) as e:
                seen.append((type(e).__name__, str(e)))
        try:
            T.Tensor._make_subclass(W, T.ones(2, dtype=T.int64), True)
        except RuntimeError as e:
            seen.append(str(e))
        return seen

    assert same(envs, scenario)[0][1] == (
        "DispatchKeySet(CPU, Python, ADInplaceOrView, AutogradCPU, AutocastCPU, PythonTLSSnapshot)")


def test_make_subclass_and_as_subclass(envs: tuple[Env, Env]) -> None:
    """The Python key only for classes overriding __torch_dispatch__; modes never see the internal ops."""

    def scenario(env: Env) -> list:
        log: list = []
        T = env.T
        W = wrapper_class(env, [], "W")

        class Plain(T.Tensor):
            pass

        x = T.ones(2, 3)
        seen = []
        with named_mode(env, log):
            a, b = x.as_subclass(Plain), T.Tensor._make_subclass(Plain, x, True)
            c = T.Tensor._make_subclass(W, x)
        seen += [type(a).__name__, env.keys(a), type(b).__name__, b.requires_grad, b.is_leaf, env.keys(c)]
        a.add_(1)
        seen += [x.tolist(), a._version, x._version, b._base is None]
        try:
            x.as_subclass(int)
        except TypeError as e:
            seen.append(str(e))
        return log + seen

    assert same(envs, scenario)[0] == "Plain"


def test_logging_wrapper_unwraps_and_rewraps(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        T, F = env.T, env.F
        W = wrapper_class(env, log, "LoggingTensor")
        x = W(T.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3)))
        w = W(T.from_numpy(np.ones((4, 3), dtype=np.float32)))
        y = F.relu(F.linear(x, w)).sum(0)
        z = (x.t() @ x)[0]
        return log + [type(y).__name__, type(y.elem).__name__, y.elem.tolist(), z.elem.tolist(), tuple(y.shape)]

    assert same(envs, scenario)[-5:-3] == ["LoggingTensor", "Tensor"]


def test_requires_grad_wrapper_with_autograd_above(envs: tuple[Env, Env]) -> None:
    """Autograd records the graph on the wrapper; the subclass sees the forward and backward ops below it."""

    def scenario(env: Env) -> list:
        log: list = []
        T = env.T
        W = wrapper_class(env, log, "W")
        x = W(T.from_numpy(np.array([1.0, 2.0, 3.0])), requires_grad=True)
        y = (x * x).sum()
        seen = [type(y).__name__, y.requires_grad, type(y.grad_fn).__name__]
        y.backward()
        return log + seen + [type(x.grad).__name__, x.grad.elem.tolist()]

    ours = same(envs, scenario)
    assert ours[-2:] == ["W", [2.0, 4.0, 6.0]]


# --- guards, helpers, older API -----------------------------------------------------------------------------------
def test_no_dispatch_bypasses_modes_and_subclasses(envs: tuple[Env, Env]) -> None:
    def scenario(env: Env) -> list:
        log: list = []
        with named_mode(env, log):
            with env.no_dispatch():
                excluded = env.exclude()
                env.T.ones(1) + 1
        return log + [excluded]

    assert "PreDispatch" in same(envs, scenario)[-1]


def test_enable_torch_dispatch_mode() -> None:
    log: list = []
    env = our_env()
    inner = named_mode(env, log, "inner")
    with named_mode(env, log, "outer"):
        with our_modes.enable_torch_dispatch_mode(inner) as entered:
            assert entered is inner and our_modes._get_current_dispatch_mode() is inner
            dispatcher.ones(1)
        with our_modes.enable_torch_dispatch_mode(inner, ignore_preexisting=True):
            assert our_modes._get_current_dispatch_mode_stack() == [inner]
            dispatcher.zeros(1)
        W = wrapper_class(env, log, "W")
        with our_modes.enable_torch_dispatch_mode(W):
            out = dispatcher.ones(2)
    assert log == [("inner", "aten.ones.default", [], 1), ("outer", "aten.ones.default", [], 0),
                   ("inner", "aten.zeros.default", [], 0), ("W", "aten.ones.default", []),
                   ("outer", "aten.ones.default", [], 0)]
    assert type(out).__name__ == "W" and our_modes._get_current_dispatch_mode_stack() == []
    with pytest.raises(ValueError, match="expected to get TorchDispatchMode"), \
            our_modes.enable_torch_dispatch_mode(object()):
        pass


def test_reentrant_dispatch_restores_the_snapshot(torch: Any) -> None:
    from torch.overrides import enable_reentrant_dispatch

    def scenario(env: Env, reentrant: Any) -> list:
        seen: list = []

        class Probe(env.Mode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                with reentrant():
                    seen.append(env.exclude())
                seen.append(env.exclude())
                return func(*args, **(kwargs or {}))

        x = env.T.ones(2, requires_grad=True)
        with Probe():
            (x * 2).sum()
        return seen

    assert scenario(our_env(), our_modes.enable_reentrant_dispatch) == scenario(torch_env(torch), enable_reentrant_dispatch)
    with pytest.raises(RuntimeError, match="outside of '__torch_dispatch__'"), our_modes.enable_reentrant_dispatch():
        pass


def test_is_tensor_subclass_like_sees_modes_and_subclasses() -> None:
    env = our_env()
    x = dispatcher.ones(2)
    w = wrapper_class(env, [], "W")(dispatcher.ones(2))
    assert not decompositions.is_tensor_subclass_like(x)
    assert decompositions.is_tensor_subclass_like(w)
    with named_mode(env, []):
        assert decompositions.is_tensor_subclass_like(x)
        with our_modes.no_dispatch():
            assert not decompositions.is_tensor_subclass_like(x)
    assert not decompositions.is_tensor_subclass_like(x)


def test_infra_modes_keep_their_slot_at_the_bottom() -> None:
    env = our_env()

    class Infra(our_modes.TorchDispatchMode):
        def __init__(self, key: our_modes.TorchDispatchModeKey) -> None:
            super().__init__()
            self._mode_key = key

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            return func(*args, **(kwargs or {}))

    user = named_mode(env, [], "U")
    fake, proxy = Infra(our_modes.TorchDispatchModeKey.FAKE), Infra(our_modes.TorchDispatchModeKey.PROXY)
    with user, proxy, fake:
        assert our_modes._get_current_dispatch_mode_stack() == [fake, proxy, user]
        assert our_modes._get_dispatch_mode(our_modes.TorchDispatchModeKey.PROXY) is proxy
        dispatcher.ones(1)  # user runs first, then proxy, then fake; each goes back to its slot
        assert our_modes._get_current_dispatch_mode_stack() == [fake, proxy, user]
        with pytest.raises(RuntimeError, match="trying to set the current PROXY, but one already exists"):
            our_modes._push_mode(Infra(our_modes.TorchDispatchModeKey.PROXY))
    assert our_modes._get_current_dispatch_mode_stack() == []
    assert "Python" not in str(dispatcher.tls_local_include_set())


def test_pre_dispatch_modes_use_their_own_stack(torch: Any) -> None:
    """A mode with ``_dispatch_key=PreDispatch`` is reached through the Python dispatcher, before autograd/CIA."""
    from torch._dispatch.python import enable_python_dispatcher
    from torch._ops import _len_torch_dispatch_stack_pre_dispatch
    from torch._subclasses.schema_check_mode import SchemaCheckMode

    def scenario(env: Env, base: type, python_dispatcher: Any, pre_len: Any) -> list:
        log: list = []
        T, F = env.T, env.F
        key = torch._C.DispatchKey.PreDispatch if T is torch else DispatchKey.PreDispatch

        class Pre(base):
            def __init__(self) -> None:
                env.Mode.__init__(self, _dispatch_key=key)

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                log.append(("Pre", str(func), list(types), "PreDispatch" in env.include()))
                return func(*args, **(kwargs or {}))

        x, w, b = T.ones(2, 3), T.ones(4, 3), T.ones(4)
        seen = [env.include()]
        with Pre():
            seen += [env.include(), len(env.stack()), pre_len()]
            F.linear(x, w, b)  # no Python dispatcher: the PreDispatch key just passes through
        with python_dispatcher(), named_mode(env, log, "L"), Pre():
            F.linear(x, w, b)
            T.softmax(x, -1)
            T.ones(2)
        return log + seen + [env.include()]

    theirs = scenario(torch_env(torch), SchemaCheckMode, enable_python_dispatcher,
                      _len_torch_dispatch_stack_pre_dispatch)
    ours = scenario(our_env(), our_modes.TorchDispatchMode, dispatcher.EnablePythonDispatcher,
                    our_modes._len_torch_dispatch_stack_pre_dispatch)
    assert ours == theirs
    assert ours[0] == ("Pre", "aten.linear.default", [], False)


def test_dispatch_key_argument_and_pre_dispatch_slots() -> None:
    with pytest.raises(AssertionError, match="_dispatch_key must be a torch._C.DispatchKey"):
        our_modes.TorchDispatchMode(_dispatch_key="PreDispatch")
    wrong = our_modes.BaseTorchDispatchMode(_dispatch_key=DispatchKey.Python)
    with pytest.raises(AssertionError, match="mode._dispatch_key must be None or DispatchKey.PreDispatch"):
        our_modes._push_mode(wrong)

    class PreInfra(our_modes.BaseTorchDispatchMode):
        def __init__(self, key: our_modes.TorchDispatchModeKey) -> None:
            super().__init__(_dispatch_key=DispatchKey.PreDispatch)
            self._mode_key = key

    functional = PreInfra(our_modes.TorchDispatchModeKey.FUNCTIONAL)
    proxy = PreInfra(our_modes.TorchDispatchModeKey.PROXY)
    with functional, proxy:  # proxy keeps slot 0 below functional, whatever the order of entry
        assert our_modes._get_current_dispatch_mode_stack_pre_dispatch() == [proxy, functional]
        assert our_modes._get_current_dispatch_mode_pre_dispatch() is functional
        assert our_modes._get_dispatch_mode_pre_dispatch(our_modes.TorchDispatchModeKey.PROXY) is proxy
        assert our_modes._get_current_dispatch_mode_stack() == []
        assert "PreDispatch" in str(dispatcher.tls_local_include_set())
    assert our_modes._len_torch_dispatch_stack_pre_dispatch() == 0
    assert "PreDispatch" not in str(dispatcher.tls_local_include_set())
    assert our_modes.unset_mode_pre_dispatch(our_modes.TorchDispatchModeKey.PROXY) is None
    with pytest.raises(AssertionError, match="Trying to pop empty mode stack"):
        our_modes._pop_mode(DispatchKey.PreDispatch)


def test_py_impl_mode_rules_need_the_python_dispatcher(torch: Any) -> None:
    """``op.py_impl(ModeClass)``: with the Python dispatcher on, the rule replaces the mode's handler."""
    from torch._dispatch.python import enable_python_dispatcher

    def scenario(env: Env, python_dispatcher: Any, op: Any) -> list:
        log: list = []

        class MyMode(env.Mode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                log.append(("handler", str(func)))
                return func(*args, **(kwargs or {}))

        def rule(mode: Any, x: Any) -> Any:
            log.append(("rule", type(mode).__name__, len(env.stack())))
            return op(x)

        op.py_impl(MyMode)(rule)
        x = env.T.ones(2)
        with MyMode():
            env.T.cos(x)
        with python_dispatcher(), MyMode():
            env.T.cos(x)
            env.T.sin(x)
        return log

    try:
        ours = scenario(our_env(), dispatcher.EnablePythonDispatcher, dispatcher.ops.aten.cos.default)
        theirs = scenario(torch_env(torch), enable_python_dispatcher, torch.ops.aten.cos.default)
        assert ours == theirs
    finally:
        dispatcher.ops.aten.cos.default.python_key_table.clear()
        dispatcher.ops.aten.cos.default._dispatch_cache.clear()
        torch.ops.aten.cos.default.python_key_table.clear()
        torch.ops.aten.cos.default._dispatch_cache.clear()
    assert ("rule", "MyMode", 0) in ours


# --- shallow_copy_and_detach (what autograd calls when it saves and unpacks outputs) -------------------------------
def test_shallow_copy_and_detach_goes_through_the_mode_then_the_subclass() -> None:
    env = our_env()
    log: list = []
    x = dispatcher.ones(2)
    plain = shallow_copy_and_detach(x)
    assert plain is not x and plain._version_counter is x._version_counter and not log

    class Types(our_modes.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            log.append(("mode", str(func), [t.__name__ for t in types], len(env.stack())))
            return func(*args, **(kwargs or {}))

    with Types():
        copy = shallow_copy_and_detach(x)
        with our_modes.no_dispatch():
            shallow_copy_and_detach(x)
    assert log == [("mode", "aten.detach.default", ["Tensor"], 0)]
    assert copy._version_counter is x._version_counter and copy.grad_fn is None and copy.tolist() == [1.0, 1.0]
    W = wrapper_class(env, log, "W")
    w = W(dispatcher.ones(2))
    wcopy = shallow_copy_and_detach(w)
    assert log[-1] == ("W", "aten.detach.default", ["W"]) and type(wcopy) is W
    assert wcopy._version_counter is w._version_counter


# --- what a logging mode sees for whole programs --------------------------------------------------------------------
def record_with_mode(env: Env, fn: Any) -> list:
    log: list = []

    class Log(env.Mode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            kwargs = kwargs or {}
            log.append((str(func), _norm(list(args)), _norm_kwargs(str(func), kwargs)))
            return func(*args, **kwargs)

    with Log():
        fn()
    return log


def first_difference(ours: list, theirs: list) -> str:
    i = next((i for i, (o, t) in enumerate(zip(ours, theirs)) if o != t), min(len(ours), len(theirs)))
    return (f"first difference at call {i} of {len(theirs)} (ours made {len(ours)}):\n torch: {theirs[i:i + 3]}\n"
            f" ours:  {ours[i:i + 3]}")


def _forward_programs() -> list:
    from tests.test_programs import MARKS, PROGRAMS

    return [pytest.param(n, marks=MARKS[n]) for n in PROGRAMS]


@pytest.mark.parametrize("name", _forward_programs())
def test_logging_mode_sees_torchs_ops_for_each_program(envs: tuple[Env, Env], name: str) -> None:
    from tests.test_programs import PROGRAMS, _to_module

    fn, make_inputs = PROGRAMS[name]
    arrays = make_inputs(np.random.default_rng(zlib.crc32(name.encode())))

    def scenario(env: Env) -> list:
        inputs = _to_module(env.T, arrays)
        return record_with_mode(env, lambda: fn(env.T, env.F, **inputs))

    theirs, ours = both(envs, scenario)
    assert ours == theirs, first_difference(ours, theirs)


def _backward_programs() -> list:
    from tests.test_autograd_programs import MARKS, PROGRAMS

    return [pytest.param(n, marks=MARKS[n]) for n in PROGRAMS]


@pytest.mark.parametrize("name", _backward_programs())
def test_logging_mode_sees_torchs_ops_with_backward(envs: tuple[Env, Env], name: str) -> None:
    """Forward and backward, ``detach`` calls for saved outputs included."""
    from tests.test_autograd_programs import PROGRAMS, _tensors

    fn, make_inputs = PROGRAMS[name]
    arrays = make_inputs(np.random.default_rng(zlib.crc32(name.encode())))

    def scenario(env: Env) -> list:
        inputs = _tensors(env.T, arrays, "float64")
        return record_with_mode(env, lambda: fn(env.T, env.F, **inputs))

    theirs, ours = both(envs, scenario)
    assert ours == theirs, first_difference(ours, theirs)
