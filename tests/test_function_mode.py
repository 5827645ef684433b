"""TorchFunctionMode and ``__torch_function__``: what each sees, compared with torch 2.13.

The programs of tests/test_programs.py run under a logging TorchFunctionMode on torch and on
dispatcher; the public callables seen (names, in order) must be the same. Then the stack rules
(innermost first, popped while handling), NotImplemented chains and torch's TypeError, tensor
subclasses (``Tensor.__torch_function__`` re-wraps results), the disable guards, and a function
mode together with a dispatch mode.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher.modes import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    TorchDispatchMode,
    TorchFunctionMode,
    _get_current_function_mode_stack,
)
from tests.test_programs import MARKS, PROGRAMS, _to_module


def _name(func: Any) -> str:
    owner = getattr(func, "__self__", None)
    if owner is not None and type(owner).__name__ in ("getset_descriptor", "property"):
        return f"{getattr(owner, 'fget', owner).__name__}.__get__"
    return func.__name__


def _logging_mode(base: type) -> Any:
    class Log(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.log: list[str] = []

        def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
            self.log.append(_name(func))
            return func(*args, **(kwargs or {}))

    return Log()


def _run(T: Any, base: type, name: str) -> list[str]:  # noqa: N803
    fn, make_inputs = PROGRAMS[name]
    inputs = _to_module(T, make_inputs(np.random.default_rng(zlib.crc32(name.encode()))))
    mode = _logging_mode(base)
    with mode:
        fn(T, T.nn.functional, **inputs)
    return mode.log


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS[n]) for n in PROGRAMS])
def test_function_mode_sees_what_torch_sees(torch: Any, name: str) -> None:
    from torch.overrides import TorchFunctionMode as TorchTF

    theirs = _run(torch, TorchTF, name)
    ours = _run(dispatcher, TorchFunctionMode, name)
    assert ours == theirs
    assert ours  # every program calls something


def test_operators_report_the_method(torch: Any) -> None:
    def prog(T: Any) -> None:  # noqa: N803
        x = T.ones(2, 2)
        x + 1, 1 + x, x * 2, 2 * x, x - 1, 2 - x, x / 2, 2 / x, x ** 2, 2 ** x, -x, x == 1, x > 1  # noqa: B018
        x @ x, abs(x), ~(x > 0)  # noqa: B018
        x += 1
        x.shape, x.dtype, x.requires_grad, x.T  # noqa: B018
        x.size(), x.dim(), x.numel(), len(x)  # noqa: B018

    logs = []
    for T, base in ((torch, __import__("torch.overrides").overrides.TorchFunctionMode), (dispatcher, TorchFunctionMode)):
        mode = _logging_mode(base)
        with mode:
            prog(T)
        logs.append(mode.log)
    assert logs[1] == logs[0]
    assert "__rsub__" in logs[1] and "add_" in logs[1]


def test_func_is_the_public_callable() -> None:
    seen = []

    class Keep(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
            seen.append(func)
            return func(*args, **(kwargs or {}))

    x = dispatcher.ones(2)
    with Keep():
        dispatcher.add(x, 1)
        x.add(1)
        x + 1
        dispatcher.nn.functional.relu(x)
        x.shape  # noqa: B018
    assert seen[:4] == [dispatcher.add, dispatcher.Tensor.add, dispatcher.Tensor.add, dispatcher.nn.functional.relu]
    assert seen[4] == dispatcher.Tensor.shape.__get__
    assert seen[4](x) == (2,)


def test_nesting_innermost_first_and_popped(torch: Any) -> None:
    from torch.overrides import TorchFunctionMode as TorchTF
    from torch.overrides import _get_current_function_mode_stack as torch_stack

    def run(T: Any, base: type, stack: Any) -> list:  # noqa: N803
        log = []

        class TF(base):  # type: ignore[misc, valid-type]
            def __init__(self, n: str) -> None:
                super().__init__()
                self.n = n

            def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
                log.append((self.n, func.__name__, len(stack())))
                return func(*args, **(kwargs or {}))

        zeros = T.zeros(1)
        with TF("A"), TF("B"):
            T.add(zeros, 1)
        assert len(stack()) == 0
        return log

    ours = run(dispatcher, TorchFunctionMode, _get_current_function_mode_stack)
    assert ours == run(torch, TorchTF, torch_stack)
    assert ours == [("B", "add", 1), ("A", "add", 0)]


def test_handler_error_restores_stack() -> None:
    class Boom(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
            raise ValueError("boom")

    m = Boom()
    with pytest.raises(ValueError, match="boom"), m:
        dispatcher.ones(1)
    assert _get_current_function_mode_stack() == []


class _NI(TorchFunctionMode):
    def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        return NotImplemented


def test_not_implemented_everywhere_is_torch_type_error(torch: Any) -> None:
    from torch.overrides import TorchFunctionMode as TorchTF

    class TNI(TorchTF):
        def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
            return NotImplemented

    msgs = []
    for T, mode in ((torch, TNI()), (dispatcher, _NI())):  # noqa: N806
        x = T.zeros(1)
        with pytest.raises(TypeError) as e, mode:
            T.add(x, 1)
        # torch's message up to its last line (a TORCH_LOGS hint, rewritten here: dispatchkit has no TORCH_LOGS)
        msgs.append(str(e.value).replace(repr(mode), "M").rsplit("\n", 1)[0])
        with pytest.raises(TypeError, match="unsupported operand"), mode:
            x + 1  # noqa: B018
    assert msgs[0] == msgs[1]
    assert msgs[1].startswith("Multiple dispatch failed for 'torch.add'")
    x = dispatcher.zeros(1)
    with pytest.raises(TypeError, match="Multiple dispatch failed for 'torch.Tensor.add'"), _NI():
        x.add(1)


def test_getters_give_the_mode_the_tensor_type(torch: Any) -> None:
    from torch.overrides import TorchFunctionMode as TorchTF

    def seen(T: Any, base: type) -> list:  # noqa: N803
        out = []

        class M(base):  # type: ignore[misc, valid-type]
            def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
                out.append((_name(func), [t.__name__ for t in types]))
                return func(*args, **(kwargs or {}))

        x = T.ones(2)
        with M():
            x.shape, x.dtype, x.sum()  # noqa: B018
        return out

    assert seen(dispatcher, TorchFunctionMode) == seen(torch, TorchTF) == [
        ("shape.__get__", ["Tensor"]), ("dtype.__get__", ["Tensor"]), ("sum", [])]


def test_not_implemented_mode_then_subclass() -> None:
    log = []

    class R(dispatcher.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
            log.append(("R", func.__name__, [t.__name__ for t in types]))
            with DisableTorchFunction():  # the refusing mode is back on the stack: skip it too
                return func(*args, **(kwargs or {}))

    r = dispatcher.zeros(2).as_subclass(R)
    with _NI():
        out = dispatcher.add(r, 1)
    assert log == [("R", "add", ["R"])]
    assert type(out) is dispatcher.Tensor


def test_subclass_default_rewraps(torch: Any) -> None:
    def types_of(T: Any) -> list:  # noqa: N803
        class S(T.Tensor):
            pass

        s = T.ones(2, 3).as_subclass(S)
        outs = [s + 1, T.add(T.ones(2, 3), s), s.sum(), s[0], s.split(1)[0], s.shape]
        return [type(o).__name__ for o in outs]

    assert types_of(dispatcher) == types_of(torch) == ["S", "S", "S", "S", "S", "Size"]


def test_subclass_order_subclass_before_superclass() -> None:
    log = []

    class P(dispatcher.Tensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
            log.append(cls.__name__)
            return NotImplemented

    class Q(P):
        pass

    p = dispatcher.zeros(1).as_subclass(P)
    q = dispatcher.zeros(1).as_subclass(Q)
    with pytest.raises(TypeError, match="tensor subclass"):
        dispatcher.add(p, q)
    assert log == ["Q", "P"]


def test_disable_guards() -> None:
    mode = _logging_mode(TorchFunctionMode)
    x = dispatcher.ones(1)

    class S(dispatcher.Tensor):
        pass

    s = x.as_subclass(S)
    with mode:
        with DisableTorchFunction():
            x + 1  # noqa: B018
            assert type(s + 1) is dispatcher.Tensor
        with DisableTorchFunctionSubclass():
            x + 2  # noqa: B018
    assert mode.log == ["add"]
    with DisableTorchFunctionSubclass():
        assert type(s + 1) is dispatcher.Tensor
    assert type(s + 1) is S


def test_function_and_dispatch_modes_together(torch: Any) -> None:
    from torch.overrides import TorchFunctionMode as TorchTF
    from torch.utils._python_dispatch import TorchDispatchMode as TorchTD

    def run(T: Any, tf_base: type, td_base: type) -> list:  # noqa: N803
        log = []

        class D(td_base):  # type: ignore[misc, valid-type]
            def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
                log.append(("D", str(func)))
                return func(*args, **(kwargs or {}))

        class F(tf_base):  # type: ignore[misc, valid-type]
            def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
                log.append(("TF", func.__name__))
                return func(*args, **(kwargs or {}))

        x, w, b = T.ones(2, 3), T.ones(4, 3), T.ones(4)
        with D(), F():
            T.nn.functional.linear(x, w, b)
        return log

    ours = run(dispatcher, TorchFunctionMode, TorchDispatchMode)
    assert ours == run(torch, TorchTF, TorchTD)
    assert ours == [("TF", "linear"), ("D", "aten.t.default"), ("D", "aten.addmm.default")]


def test_defining_torch_dispatch_disables_torch_function(torch: Any) -> None:
    def flags(T: Any) -> list:  # noqa: N803
        class S(T.Tensor):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN206
                return NotImplemented

        class S2(S):
            pass

        class S3(S):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN206
                return NotImplemented

        class P(T.Tensor):
            pass

        return [getattr(c.__torch_function__, "__name__", None) for c in (S, S2, S3, P)]

    assert flags(dispatcher) == flags(torch) == ["_disabled_torch_function_impl"] * 2 + ["__torch_function__"] * 2


def test_metadata_methods_and_iteration_are_seen(torch: Any) -> None:
    from torch.overrides import TorchFunctionMode as TorchTF

    def prog(T: Any) -> None:  # noqa: N803
        x = T.ones(2, 3)
        x.stride(), x.is_contiguous(), x.element_size(), x.storage_offset(), x._version  # noqa: B018
        list(iter(x))
        x.tolist(), repr(x)  # noqa: B018

    logs = []
    for T, base in ((torch, TorchTF), (dispatcher, TorchFunctionMode)):  # noqa: N806
        mode = _logging_mode(base)
        with mode:
            prog(T)
        logs.append(mode.log)
    assert logs[1] == logs[0]
    assert "unbind" in logs[1]


def test_stack_is_thread_local_and_hot_path_counter_returns_to_rest() -> None:
    import subprocess
    import sys
    import threading

    mode = _logging_mode(TorchFunctionMode)
    other: list = []
    with mode:
        t = threading.Thread(target=lambda: other.append((len(_get_current_function_mode_stack()),
                                                          dispatcher.ones(1) + 1)))
        t.start()
        t.join()
    assert other[0][0] == 0 and mode.log == []  # the other thread's calls did not reach this thread's mode
    # in a fresh process nothing arms the protocol: plain-tensor calls take the one-check path
    code = ("import dispatcher; from dispatcher.modes import function_mode as f, TorchFunctionMode as M\n"
            "a = f._ARMED.n\nwith M(): b = f._ARMED.n\nprint(a, b, f._ARMED.n)\n"
            "class S(dispatcher.Tensor): pass\nprint(f._ARMED.n)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", "1", "0", "1"]
