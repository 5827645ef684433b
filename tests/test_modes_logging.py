"""The logs of ``dispatcher.testing._internal.logging_tensor`` line for line as torch's, for the programs of
test_python_dispatch.py.

``capture_logs`` / ``log_input`` / ``LoggingTensor`` / ``LoggingTensorMode`` / ``capture_logs_with_logging_tensor_mode``
print ``$1: f32[1] = torch._ops.aten.mul.Tensor($0, $0)``; each program runs on torch 2.13 and here and the lines
must be identical (test_basic, test_out, test_kwarg_only, test_produce_real_type,
test_detach_appears_once_when_called_once, test_custom_autograd, test_torch_dispatch_mode_basic,
test_torch_dispatch_mode_unrelated_tensors, test_nested_push_logging_tensor_mode,
test_capture_logs_with_torch_dispatch_mode, test_nesting_same_mode, test_torch_dispatch_mode_respects_no_dispatch,
test_optional_tensor_list). Two expected texts are also pinned as torch's test writes them.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.subclass_env import both, skip_logging_tensor_in_pytest_capture

_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)


def _basic(E: Any) -> list:
    T, lt = E.T, E.lt
    with lt.capture_logs() as logs:
        x = lt.LoggingTensor(T.tensor([3.0]), requires_grad=True)
        lt.log_input("x", x)
        y = x * x
        grad_y = lt.LoggingTensor(T.tensor([1.0]))
        lt.log_input("grad_y", grad_y)
        (g,) = T.autograd.grad((y,), (x,), (grad_y,))
    return logs + [g.elem.tolist()]


def _out(E: Any) -> list:
    T, lt = E.T, E.lt
    with lt.capture_logs() as logs:
        x = lt.LoggingTensor(T.ones(1))
        y = lt.LoggingTensor(T.zeros(1))
        lt.log_input("x", x)
        lt.log_input("y", y)
        T.maximum(x, x, out=y)
    return logs + [y.elem.tolist()]


def _kwarg_only(E: Any) -> list:
    T, lt = E.T, E.lt
    with lt.capture_logs() as logs:
        x = lt.LoggingTensor(T.ones(1))
        y = lt.LoggingTensor(T.ones(1, 1))
        z = lt.LoggingTensor(T.ones(1))
        for name, v in (("x", x), ("y", y), ("z", z)):
            lt.log_input(name, v)
        T.addmv(x, y, z)
        T.addmv(x, y, z, beta=1)
        T.addmv(x, y, z, beta=2)
        T.addmv(x, y, z, alpha=2)
        T.addmv(x, y, z, beta=2, alpha=2)
    return logs


def _real_types(E: Any) -> list:
    T, lt = E.T, E.lt
    with lt.capture_logs() as logs:
        x = lt.LoggingTensor(T.ones(2, 2))
        lt.log_input("x", x)
        x.to(dtype=T.double)
        T.cumprod(x, 0, dtype=T.double)
        x[:, 1].contiguous(memory_format=T.contiguous_format)
    return logs


def _detach_once(E: Any) -> list:
    T, lt = E.T, E.lt
    with lt.capture_logs() as logs:
        x = lt.LoggingTensor(T.tensor([3.0]), requires_grad=True)
        lt.log_input("x", x)
        x.detach()
    return logs


def _custom_autograd(E: Any) -> list:
    T, lt = E.T, E.lt
    escape = [None]

    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x**2
            ctx.save_for_backward(x)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            assert isinstance(grad_output, lt.LoggingTensor)
            (x,) = ctx.saved_tensors
            assert isinstance(x, lt.LoggingTensor)
            escape[0] = x
            return grad_output * 2 * x

    with lt.capture_logs() as logs:
        x = lt.LoggingTensor(T.ones(1), requires_grad=True)
        lt.log_input("x", x)
        x.grad = lt.LoggingTensor(T.zeros(1))
        lt.log_input("x.grad", x.grad)
        y = Square.apply(x)
        grad_output = lt.LoggingTensor(T.ones(1))
        lt.log_input("grad_output", grad_output)
        y.backward(grad_output)
    return logs + [type(x.grad).__name__, x.grad.elem.tolist(), escape[0]._version == x._version]


def _mode_basic(E: Any) -> list:
    T, lt = E.T, E.lt
    x, y = T.randn([]), T.randn([])
    with lt.capture_logs(is_mode=True) as logs:
        with lt.LoggingTensorMode():
            T.empty([])
            x + y
    return logs


def _nested_modes(E: Any) -> list:
    T, lt = E.T, E.lt
    x, y = T.randn([]), T.randn([])
    with lt.capture_logs(is_mode=True) as logs:
        with lt.LoggingTensorMode(), lt.LoggingTensorMode():
            T.empty([])
            x + y
    return logs


def _capture_with_mode(E: Any) -> list:
    T, lt = E.T, E.lt
    x, y = T.randn([]), T.randn([])
    with lt.capture_logs_with_logging_tensor_mode() as logs:
        T.empty([])
        x + y
    with lt.capture_logs_with_logging_tensor_mode() as logs1, lt.capture_logs_with_logging_tensor_mode() as logs2:
        T.empty([])
        x + y
    return [logs, logs1, logs2, logs1 == logs2]


def _same_mode_twice(E: Any) -> list:
    T, lt = E.T, E.lt
    with lt.capture_logs(is_mode=True) as logs:
        with lt.LoggingTensorMode() as reenabled, reenabled:
            T.empty([])
    return logs


def _no_dispatch(E: Any) -> list:
    T, lt = E.T, E.lt
    with lt.capture_logs(is_mode=True) as logs1, lt.LoggingTensorMode():
        T.ones([2, 3])
        with E.mu.no_dispatch():
            T.ones([2, 3])
    with lt.capture_logs(is_mode=True) as logs2, lt.LoggingTensorMode():
        T.ones([2, 3])
    return [logs1, logs1 == logs2]


def _backward_under_mode(E: Any) -> list:
    T, lt = E.T, E.lt
    x = T.randn(3, requires_grad=True)
    with lt.capture_logs_with_logging_tensor_mode() as logs:
        (x.sin() * 2).sum().backward()
    return logs


def _reentrant(E: Any) -> list:
    T, lt = E.T, E.lt
    true_t = T.rand(2, requires_grad=True)
    t = lt.LoggingTensorReentrant(true_t)
    with lt.capture_logs() as logs:
        out = t + 2
    return logs + [out.requires_grad, out.grad_fn is None, out.elem.requires_grad, out.elem.grad_fn is not None]


PROGRAMS = {
    "basic_autograd": _basic, "out": _out, "kwarg_only": _kwarg_only, "real_types": _real_types,
    "detach_once": _detach_once, "custom_autograd": _custom_autograd, "mode_basic": _mode_basic,
    "nested_modes": _nested_modes, "capture_with_mode": _capture_with_mode, "same_mode_twice": _same_mode_twice,
    "no_dispatch": _no_dispatch, "backward_under_mode": _backward_under_mode, "reentrant": _reentrant,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_logs_are_torchs(torch: Any, name: str) -> None:
    theirs, ours = both(torch, PROGRAMS[name])
    assert ours == theirs


def test_pinned_texts(torch: Any) -> None:
    """Two expectations as test_python_dispatch.py writes them."""
    _, ours = both(torch, _basic)
    assert "\n".join(ours[:-1]) == """\
$0: f32[1] = input('x')
$1: f32[1] = torch._ops.aten.mul.Tensor($0, $0)
$2: f32[1] = input('grad_y')
$3: f32[1] = torch._ops.aten.mul.Tensor($2, $0)
$4: f32[1] = torch._ops.aten.mul.Tensor($2, $0)
$5: f32[1] = torch._ops.aten.add.Tensor($4, $3)"""
    _, ours = both(torch, _mode_basic)
    assert ours == [
        "$0: f32[] = torch._ops.aten.empty.memory_format([], device=device(type='cpu'), pin_memory=False)",
        "$3: f32[] = torch._ops.aten.add.Tensor($1, $2)",
    ]


def _optional_tensor_list(E: Any) -> list:
    T, lt = E.T, E.lt
    lib = T.library.Library("my_sub_lib", "DEF")
    try:
        lib.define("weird(Tensor?[] self) -> Tensor")
        lib.impl("weird", lambda xs: T.empty(()), "CPU")
        with lt.capture_logs() as logs:
            x = lt.LoggingTensor(T.ones(2, 2))
            lt.log_input("x", x)
            T.ops.my_sub_lib.weird.default([None, x])
    finally:
        lib._destroy()
    return logs


def test_optional_tensor_list_arguments(torch: Any) -> None:
    theirs, ours = both(torch, _optional_tensor_list)
    assert ours == theirs
    assert ours[1] == "$1: f32[] = torch._ops.my_sub_lib.weird.default(['None', '$0'])"


def _foobar_defaults(E: Any) -> list:
    """test_kwarg_only_and_positional_default: ATen's test op ``_foobar(Tensor self, bool arg1=True, bool arg2=True,
    *, bool arg3=True)``; the log leaves out arguments equal to their defaults, also when passed by keyword."""
    T, lt = E.T, E.lt
    with lt.capture_logs() as logs:
        x = lt.LoggingTensor(T.ones(1))
        lt.log_input("x", x)
        T.ops.aten._foobar(x)
        T.ops.aten._foobar(x, False)
        T.ops.aten._foobar(x, arg3=False)
        T.ops.aten._foobar(x, False, arg3=False)
        T.ops.aten._foobar(x, True, arg3=True)
        T.ops.aten._foobar(x, arg1=True, arg2=False)
        T._foobar(x, False, True, arg3=False)
    return logs


def test_kwarg_only_and_positional_default(torch: Any) -> None:
    theirs, ours = both(torch, _foobar_defaults)
    assert ours == theirs
    assert ours[:5] == [
        "$0: f32[1] = input('x')",
        "$1: f32[1] = torch._ops.aten._foobar.default($0)",
        "$2: f32[1] = torch._ops.aten._foobar.default($0, False)",
        "$3: f32[1] = torch._ops.aten._foobar.default($0, arg3=False)",
        "$4: f32[1] = torch._ops.aten._foobar.default($0, False, arg3=False)",
    ]


def _foobar_behaviour(E: Any) -> list:
    """The kernel returns its input itself; no Meta kernel; a NotImplemented node; the binding's checks."""
    T = E.T
    out = []
    x = T.ones(2)
    out.append(T._foobar(x, False) is x)
    w = T.ones(2, requires_grad=True)
    y = T.ops.aten._foobar(w, arg3=False)
    out.append((y is w, type(y.grad_fn).__name__, y.is_leaf))
    calls = [lambda: y.sum().backward(), lambda: T.ops.aten._foobar(T.ones(2, device="meta")),
             lambda: T._foobar(1), lambda: T._foobar(x, 2), lambda: T._foobar(x, True, True, True),
             lambda: T._foobar(x, arg3=1)]
    for call in calls:
        try:
            call()
            out.append("no error")
        except Exception as e:  # noqa: BLE001 - the class and the first line are compared with torch's
            out.append((type(e).__name__, str(e).splitlines()[0][:120]))
    return out


def test_foobar_behaviour(torch: Any) -> None:
    theirs, ours = both(torch, _foobar_behaviour)
    assert ours == theirs
