"""FakeTensor / FakeTensorMode (dispatcher/fake/) against real execution and torch's FakeTensorMode.

* every program of tests/test_programs.py and tests/test_autograd_programs.py run on fakes gives what the
  real run gives for shapes, dtypes, strides, storage offsets, ``requires_grad`` / ``is_leaf`` / grad_fn
  names and every non-tensor value, and what torch's FakeTensorMode gives; a program that needs data
  raises the exception torch's raises, for the same op;
* the FakeTensor itself: key set, device (cpu outside kernels, meta inside), repr;
* ``from_tensor`` memoization (weak), views, ``requires_grad``; factory functions inside the mode;
* torch's errors when real and fake tensors (or two modes) mix, ``allow_non_fake_inputs``;
* ``DataDependentOutputException`` / ``DynamicOutputShapeException`` and constant propagation;
* decomposition of CompositeImplicitAutograd ops, ops without Meta kernels;
* a logging mode nested with FakeTensorMode sees what torch's sees, in both orders of entering.
"""

from __future__ import annotations

import contextlib
import gc
import re
import warnings
import weakref
import zlib
from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher import DispatchKeySet, Library
from dispatcher.fake import (
    DataDependentOutputException,
    DynamicOutputShapeException,
    FakeTensor,
    FakeTensorMode,
    UnsupportedOperatorException,
)
from dispatcher.modes import LoggingTensorMode, TorchDispatchMode, _get_current_dispatch_mode_stack
from dispatcher.modes.logging_tensor import capture_logs_with_logging_tensor_mode


# --- the programs -------------------------------------------------------------------------------------------------
def _forward_programs() -> list:
    from tests.test_programs import MARKS, PROGRAMS

    return [pytest.param(n, marks=MARKS[n]) for n in PROGRAMS]


def _backward_programs() -> list:
    from tests.test_autograd_programs import MARKS, PROGRAMS

    return [pytest.param(n, marks=MARKS[n]) for n in PROGRAMS]


def forward_program(name: str) -> tuple[Any, Any]:
    from tests.test_programs import PROGRAMS, _to_module

    fn, make = PROGRAMS[name]
    arrays = make(np.random.default_rng(zlib.crc32(name.encode())))
    return fn, lambda T: _to_module(T, arrays)


def backward_program(name: str, dtype: str = "float32") -> tuple[Any, Any]:
    from tests.test_autograd_programs import PROGRAMS, _tensors

    fn, make = PROGRAMS[name]
    arrays = make(np.random.default_rng(zlib.crc32(name.encode())))
    return fn, lambda T: _tensors(T, arrays, dtype)


def describe(x: Any, path: str = "out") -> list[tuple]:
    """Everything fake execution must reproduce, leaf by leaf: tensor metadata and autograd facts, other values."""
    if isinstance(x, dict):
        return [d for k in x for d in describe(x[k], f"{path}.{k}")]
    if isinstance(x, (list, tuple)):
        return [d for i, e in enumerate(x) for d in describe(e, f"{path}[{i}]")]
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        grad_fn = None if x.grad_fn is None else type(x.grad_fn).__name__
        return [(path, tuple(x.shape), str(x.dtype), tuple(x.stride()), x.storage_offset(), str(x.device),
                 x.requires_grad, x.is_leaf, grad_fn)]
    return [(path, x)]


def run_fake(T: Any, mode: Any, fn: Any, inputs: dict) -> tuple[Any, BaseException | None]:
    """Run ``fn`` on fakes of ``inputs`` under ``mode``: (result, None) or (None, the exception)."""
    fakes = {k: mode.from_tensor(v) for k, v in inputs.items()}
    try:
        with warnings.catch_warnings(), mode:
            warnings.simplefilter("ignore")
            return fn(T, T.nn.functional, **fakes), None
    except (RuntimeError, TypeError, AssertionError) as e:
        return None, e


def run_real(T: Any, fn: Any, inputs: dict) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(T, T.nn.functional, **inputs)


def fake_tensors_in(x: Any) -> list[Any]:
    return [v for v in _leaves(x) if isinstance(v, dispatcher.Tensor)]


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, dict):
        return [leaf for v in x.values() for leaf in _leaves(v)]
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


#: autograd replays views of FakeTensors (Python-key tensors) with their view ops when it regenerates the grad_fn
#: of a view modified in place (a ViewBackward0 / SelectBackward0 ...), and plain tensors' views with as_strided
#: (AsStridedBackward0), as torch does: those grad_fn names equal torch's fake run's, not our real run's.
VIEW_REPLAY_PROGRAMS = ("inplace_on_views",)


def _without_grad_fn(described: list[tuple]) -> list[tuple]:
    return [d[:-1] if len(d) == 9 else d for d in described]


def check_program(torch: Any, fn: Any, inputs: Any, view_replay: bool = False) -> list[tuple]:
    """Ours on fakes == ours for real == torch on fakes (or the same error as torch's fake run)."""
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    mode = FakeTensorMode()
    ours, our_error = run_fake(dispatcher, mode, fn, inputs(dispatcher))
    theirs, their_error = run_fake(torch, TorchFakeTensorMode(), fn, inputs(torch))
    if their_error is not None or our_error is not None:
        assert type(our_error).__name__ == type(their_error).__name__, (our_error, their_error)
        assert str(our_error) == str(their_error)
        return []
    assert describe(ours) == describe(theirs)
    real = describe(run_real(dispatcher, fn, inputs(dispatcher)))
    if view_replay:
        assert describe(ours) != real
        assert _without_grad_fn(describe(ours)) == _without_grad_fn(real)
    else:
        assert describe(ours) == real
    for t in fake_tensors_in(ours):
        assert type(t) is FakeTensor and t.fake_mode is mode
    return describe(ours)


@pytest.mark.parametrize("name", _forward_programs())
def test_forward_programs_on_fakes_match_real_execution_and_torch(torch: Any, name: str) -> None:
    check_program(torch, *forward_program(name))


@pytest.mark.parametrize("name", _backward_programs())
def test_programs_with_backward_on_fakes_match_real_execution_and_torch(torch: Any, name: str) -> None:
    """Autograd over fakes: forward and backward run, grads are fakes with the right metadata."""
    check_program(torch, *backward_program(name), view_replay=name in VIEW_REPLAY_PROGRAMS)


def test_the_program_checks_compare_something(torch: Any) -> None:
    fn, inputs = forward_program("mlp")
    assert check_program(torch, fn, inputs)[0][1] == (8, 4)
    fn, inputs = backward_program("mlp_sgd_steps")
    described = check_program(torch, fn, inputs)
    grads = [d for d in described if ".grads0." in d[0]]
    assert [d[1] for d in grads] == [(16, 6), (16,), (3, 16), (3,)]
    for name, expected in (("index_select_and_masks", "aten.nonzero.default"),
                           ("python_scalars", "aten._local_scalar_dense.default")):
        fn, inputs = forward_program(name)
        _, error = run_fake(dispatcher, FakeTensorMode(), fn, inputs(dispatcher))
        assert str(error) == expected


# --- the FakeTensor -----------------------------------------------------------------------------------------------
def test_fake_tensor_keys_device_and_repr(torch: Any) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    def facts(T: Any, mode: Any, keys: Any) -> list:
        f = mode.from_tensor(T.ones(2, 3))
        i = mode.from_tensor(T.ones(4, dtype=T.int64))
        m = mode.from_tensor(T.ones(2, device="meta"))
        with mode:
            g = T.ones(2, 3, requires_grad=True) * 2
        return [keys(f), str(f.device), f.is_meta, repr(f), repr(i), repr(m), str(m.device), repr(g),
                f.fake_mode is mode, str(f.fake_device), keys(m)]

    theirs = facts(torch, TorchFakeTensorMode(), lambda t: str(torch._C._dispatch_keys(t)))
    ours = facts(dispatcher, FakeTensorMode(), lambda t: str(DispatchKeySet.from_raw_repr(t._key_set)))
    assert ours == theirs
    assert ours[0] == "DispatchKeySet(CPU, Python, ADInplaceOrView, AutogradCPU, AutocastCPU, PythonTLSSnapshot)"


def test_kernels_see_the_meta_device_and_users_the_fake_one(torch: Any) -> None:
    """Inside a kernel run by the mode a fake reports device meta; outside, its fake device (torch's rule)."""

    def scenario(T: Any, mode_cls: Any, lib: Any, ops: Any) -> list:
        seen: list = []

        def meta_kernel(x: Any) -> Any:
            seen.append(("kernel", str(x.device), x.is_meta))
            return T.empty_like(x)

        lib.define("probe(Tensor x) -> Tensor")
        lib.impl("probe", meta_kernel, "Meta")
        mode = mode_cls()
        x = mode.from_tensor(T.ones(2))
        with mode:
            out = ops.probe.default(x)
        seen.append(("user", str(x.device), str(out.device), type(out).__name__))
        return seen

    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    theirs = scenario(torch, TorchFakeTensorMode, torch.library.Library("h8fake", "DEF"), torch.ops.h8fake)
    ours = scenario(dispatcher, FakeTensorMode, Library("h8fake", "DEF"), dispatcher.ops.h8fake)
    assert ours == theirs == [("kernel", "meta", True), ("user", "cpu", "cpu", "FakeTensor")]


def test_fake_tensor_constructor() -> None:
    mode = FakeTensorMode()
    meta = dispatcher.empty(2, 3, device="meta").t()
    f = FakeTensor(mode, meta, "cpu")
    assert type(f) is FakeTensor and f.fake_mode is mode and str(f.device) == "cpu"
    assert (tuple(f.shape), f.stride()) == ((3, 2), (1, 3))
    with pytest.raises(AssertionError, match="elem.device.type must be 'meta', got cpu"):
        FakeTensor(mode, dispatcher.ones(2), "cpu")


# --- from_tensor --------------------------------------------------------------------------------------------------
def test_from_tensor_is_memoized_weakly() -> None:
    mode = FakeTensorMode()
    x, y = dispatcher.ones(2, 3), dispatcher.ones(2, 3)
    fx = mode.from_tensor(x)
    assert mode.from_tensor(x) is fx and mode.from_tensor(y) is not fx
    assert mode.from_tensor(fx) is fx  # already ours
    other = FakeTensorMode()
    assert other.from_tensor(x) is not fx and other.from_tensor(x).fake_mode is other
    assert other.from_tensor(fx).fake_mode is other  # another mode's fake: a new fake of this one
    ref = weakref.ref(y)
    mode.from_tensor(y)
    n = len(mode.tensor_memo)
    del y
    gc.collect()
    assert ref() is None and len(mode.tensor_memo) == n - 1
    with pytest.raises(TypeError, match="from_tensor expects a Tensor"):
        mode.from_tensor(np.ones(2))


def test_from_tensor_keeps_views_strides_and_requires_grad(torch: Any) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    def facts(T: Any, mode: Any) -> list:
        base = T.from_numpy(np.arange(12.0, dtype=np.float32).reshape(3, 4))
        view = base[1:, ::2]
        fv, fb = mode.from_tensor(view), mode.from_tensor(base)
        leaf = T.ones(3, requires_grad=True)
        fl = mode.from_tensor(leaf)
        ft = mode.from_tensor(T.ones(2, 3).t())
        return [fv._is_view(), fv._base is fb, tuple(fv.shape), fv.stride(), fv.storage_offset(),
                fl.requires_grad, fl.is_leaf, ft.stride(), ft.is_contiguous()]

    assert facts(dispatcher, FakeTensorMode()) == facts(torch, TorchFakeTensorMode())


def test_from_tensor_of_a_non_leaf_cannot_be_backpropagated_through(torch: Any) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    def scenario(T: Any, mode: Any) -> list:
        y = T.ones(3, requires_grad=True) * 2
        fy = mode.from_tensor(y)
        with mode:
            loss = (fy * fy).sum()
            try:
                loss.backward()
                error = "no error"
            except RuntimeError as e:
                error = str(e)
        return [fy.requires_grad, fy.is_leaf, type(fy.grad_fn).__name__, error]

    ours = scenario(dispatcher, FakeTensorMode())
    assert ours == scenario(torch, TorchFakeTensorMode())
    assert ours[3] == "Internal error: Tried to backward() through example input"


# --- factory functions ----------------------------------------------------------------------------------------------
FACTORIES = {
    "ones": lambda T: T.ones(2, 3),
    "zeros_int": lambda T: T.zeros(4, dtype=T.int64),
    "empty": lambda T: T.empty(3, 2),
    "empty_strided": lambda T: T.ops.aten.empty_strided.default([2, 3], [1, 2]),
    "full": lambda T: T.full((2, 2), 1.5),
    "arange": lambda T: T.arange(5),
    "arange_float": lambda T: T.arange(0, 1, 0.25),
    "eye": lambda T: T.eye(3, 4),
    "randn": lambda T: T.randn(2, 5),
    "rand": lambda T: T.rand(3),
    "scalar_tensor": lambda T: T.scalar_tensor(2.5),
    "tensor_list": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "tensor_scalar": lambda T: T.tensor(3),
    "from_numpy": lambda T: T.from_numpy(np.ones((2, 2), dtype=np.float64)),
    "meta_device": lambda T: T.ones(2, device="meta"),
    "zeros_like": lambda T: T.zeros_like(T.ones(2, 3).t()),
    "new_full": lambda T: T.ones(2).new_full((3,), 2.0),
    "to_float64": lambda T: T.ones(2, 3).to(T.float64),
    "to_cpu": lambda T: T.ones(2).to("cpu"),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factory_functions_inside_the_mode_make_fakes(torch: Any, name: str) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    def facts(T: Any, mode: Any) -> tuple:
        with mode:
            t = FACTORIES[name](T)
        return (type(t).__name__, tuple(t.shape), str(t.dtype), tuple(t.stride()), str(t.device))

    assert facts(dispatcher, FakeTensorMode()) == facts(torch, TorchFakeTensorMode())


# --- mixing real and fake tensors ---------------------------------------------------------------------------------
_ADDRESS = re.compile(r"0x[0-9a-f]+")


def _message(fn: Any) -> str:
    try:
        fn()
    except AssertionError as e:
        return _ADDRESS.sub("0x", str(e)).replace("torch._subclasses.fake_tensor", "<fake>").replace(
            "dispatcher.fake.fake_mode", "<fake>")
    return "no error"


def test_mixing_real_and_fake_tensors_raises_torchs_errors(torch: Any) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    def scenario(T: Any, mode_cls: Any) -> list[str]:
        mode, other = mode_cls(), mode_cls()
        real, row = T.ones(2, 3), T.ones(1, 2)
        f, g = mode.from_tensor(T.ones(2, 3)), other.from_tensor(T.ones(2, 3))
        messages = [_message(lambda: f + real), _message(lambda: real * f)]
        with mode:
            messages += [_message(lambda: f + real), _message(lambda: T.cat([f, real])),
                         _message(lambda: T.ones(3) + T.ones(3, dtype=T.float64) * real.sum()),
                         _message(lambda: f + g), _message(lambda: T.ops.aten.squeeze_.dim(row, 0))]
        messages.append(_message(lambda: g + f))
        return messages

    ours = scenario(dispatcher, FakeTensorMode)
    assert ours == scenario(torch, TorchFakeTensorMode)
    assert ours[0] == ("Please convert all Tensors to FakeTensors first or instantiate FakeTensorMode with "
                       "'allow_non_fake_inputs'. Found in aten.add.Tensor(FakeTensor(..., size=(2, 3)), "
                       "tensor([...], size=(2, 3)))")
    assert ours[5].startswith("Mixing fake modes NYI x.fake_mode=<<fake>.FakeTensorMode object at 0x> vs self=")
    assert ours[6] == ("Can't call metadata mutating ops on non-Fake Tensor inputs. Found in "
                       "aten.squeeze_.dim(tensor([...], size=(1, 2)), 0)")


def test_allow_non_fake_inputs_converts_real_tensors() -> None:
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    real = dispatcher.ones(2, 3)
    f = mode.from_tensor(dispatcher.ones(3))
    with mode:
        out = f + real
    assert type(out) is FakeTensor and tuple(out.shape) == (2, 3)
    assert mode.from_tensor(real) is mode.tensor_memo[real]  # the conversion was memoized
    assert real.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]  # the real tensor is untouched


def test_a_fake_tensor_outside_its_mode_uses_its_mode() -> None:
    mode = FakeTensorMode()
    f = mode.from_tensor(dispatcher.ones(2, 3))
    out = (f + 1).sum(0)
    assert type(out) is FakeTensor and out.fake_mode is mode and tuple(out.shape) == (3,)
    assert _get_current_dispatch_mode_stack() == []


# --- data-dependent ops ---------------------------------------------------------------------------------------------
DATA_DEPENDENT = {
    "item": lambda T, x: x.sum().item(),
    "bool": lambda T, x: bool(x.sum() > 0),
    "if": lambda T, x: 1 if x[0, 0] > 0 else 0,
    "float": lambda T, x: float(x[0, 0]),
    "int": lambda T, x: int(x[0, 0]),
    "tolist": lambda T, x: x.tolist(),
    "tolist_0d": lambda T, x: x[0, 0].tolist(),
    "nonzero": lambda T, x: x.nonzero(),
    "bool_mask_index": lambda T, x: x[x > 0],
    "masked_select": lambda T, x: T.ops.aten.masked_select.default(x, x > 0),
    "item_of_many": lambda T, x: x.item(),
    "float_of_many": lambda T, x: float(x),
    "empty_tolist": lambda T, x: x[:0].tolist(),
}


@pytest.mark.parametrize("name", sorted(DATA_DEPENDENT))
def test_data_dependent_ops_raise_torchs_exceptions(torch: Any, name: str) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    def outcome(T: Any, mode: Any) -> tuple:
        x = mode.from_tensor(T.ones(2, 3))
        with mode:
            try:
                return ("value", DATA_DEPENDENT[name](T, x))
            except Exception as e:  # noqa: BLE001 - the exception is what is compared
                return (type(e).__name__, str(e), getattr(e, "func", None) is not None)

    ours = outcome(dispatcher, FakeTensorMode())
    assert ours == outcome(torch, TorchFakeTensorMode())
    if name in ("nonzero", "bool_mask_index", "masked_select"):
        assert ours[0] == "DynamicOutputShapeException"
    elif name not in ("item_of_many", "float_of_many", "empty_tolist"):
        assert ours == ("DataDependentOutputException", "aten._local_scalar_dense.default", True)


def test_exception_classes() -> None:
    nonzero = dispatcher.ops.aten.nonzero.default
    e = DynamicOutputShapeException(nonzero)
    assert isinstance(e, RuntimeError) and e.func is nonzero and str(e) == "aten.nonzero.default"
    assert repr(e) == "DynamicOutputShapeException(func=<OpOverload(op='aten.nonzero', overload='default')>)"
    assert DataDependentOutputException(nonzero) == DataDependentOutputException(nonzero) != e


def test_constant_propagation(torch: Any) -> None:
    """One-element tensors made by ``tensor(...)`` keep their value; ops on constants only stay constant."""
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    def scenario(T: Any, mode: Any) -> list:
        x = mode.from_tensor(T.ones(2, 3))
        with mode:
            c = T.tensor(2.0)
            seen = [c.constant is not None, (c * 3 + 1).item(), T.tensor([1.0, 2.0]).constant is None]
            d = T.tensor(5.0)
            same = d.add_(1)
            seen += [same is d, d.item()]
            d.add_(x.sum())  # a non-constant written into a constant: its value is unknown now
            try:
                d.item()
                seen.append("no error")
            except Exception as e:  # noqa: BLE001 - compared by name with torch
                seen.append(type(e).__name__)
            seen.append(d.constant is None)
        return seen

    ours = scenario(dispatcher, FakeTensorMode())
    assert ours == scenario(torch, TorchFakeTensorMode())
    assert ours == [True, 7.0, True, True, 6.0, "DataDependentOutputException", True]


# --- decompositions, missing Meta kernels ------------------------------------------------------------------------------
def test_composite_implicit_ops_reaching_the_mode_are_decomposed_under_it() -> None:
    """With autograd excluded a CIA op reaches the Python key whole; the mode runs its decomposition, whose ops
    come back to the mode (not run inside a kernel)."""
    lib = Library("h8cia", "DEF")
    lib.define("double(Tensor x) -> Tensor")
    seen: list = []
    mode = FakeTensorMode()

    def double(x: Any) -> Any:
        seen.append((type(x).__name__, mode.in_kernel_invocation, len(_get_current_dispatch_mode_stack())))
        return dispatcher.ops.aten.mul.Tensor(x, 2)

    lib.impl("double", double, "CompositeImplicitAutograd")
    x = mode.from_tensor(dispatcher.ones(2, 3))
    with mode:
        with dispatcher.AutoDispatchBelowADInplaceOrView():
            out = dispatcher.ops.h8cia.double.default(x)
            linear = dispatcher.ops.aten.linear.default(x, mode.from_tensor(dispatcher.ones(4, 3)))
    assert seen == [("FakeTensor", False, 1)]
    assert type(out) is FakeTensor and tuple(linear.shape) == (2, 4) and type(linear) is FakeTensor
    del lib


def test_ops_without_a_meta_kernel(torch: Any) -> None:
    """A custom op with only a CPU kernel: UnsupportedOperatorException (as torch); an aten / prims op: the
    real kernel on zero-filled inputs (``allow_fallback_kernels``)."""
    tlib = torch.library.Library("h8nometa", "DEF")
    tlib.define("f(Tensor x) -> Tensor")
    tlib.impl("f", lambda x: x * 2, "CPU")
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    tmode = TorchFakeTensorMode()
    with tmode, pytest.raises(Exception) as theirs:
        torch.ops.h8nometa.f(tmode.from_tensor(torch.ones(3)))

    lib = Library("h8nometa", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: dispatcher.ops.aten.mul.Tensor(x, 2), "CPU")
    mode = FakeTensorMode()
    with mode, pytest.raises(UnsupportedOperatorException) as ours:
        dispatcher.ops.h8nometa.f.default(mode.from_tensor(dispatcher.ones(3)))
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert repr(ours.value).replace("h8nometa.f", "X") == repr(theirs.value).replace("h8nometa.f", "X")

    prims = Library("prims", "FRAGMENT")
    prims.define("h8_twice(Tensor x) -> Tensor")
    calls: list = []

    def twice(x: Any) -> Any:
        calls.append(x.tolist())
        return dispatcher.ops.aten.cat.default([x, x])

    prims.impl("h8_twice", twice, "CPU")
    with mode:
        out = dispatcher.ops.prims.h8_twice.default(mode.from_tensor(dispatcher.ones(2, 2)))
    assert type(out) is FakeTensor and tuple(out.shape) == (4, 2) and calls == [[[0.0, 0.0], [0.0, 0.0]]]
    strict = FakeTensorMode(allow_fallback_kernels=False)
    with strict, pytest.raises(UnsupportedOperatorException):
        dispatcher.ops.prims.h8_twice.default(strict.from_tensor(dispatcher.ones(2, 2)))
    del lib, prims


# --- entering the mode ------------------------------------------------------------------------------------------------
def test_entering_keeps_the_fake_slot_and_a_second_mode_displaces_the_first() -> None:
    first, second = FakeTensorMode(), FakeTensorMode()
    user = LoggingTensorMode()
    with user, first:
        assert _get_current_dispatch_mode_stack() == [first, user]  # the infra slot is at the bottom
        with first:  # re-entering the active mode changes nothing
            assert _get_current_dispatch_mode_stack() == [first, user]
        assert _get_current_dispatch_mode_stack() == [first, user]
        with second:
            assert _get_current_dispatch_mode_stack() == [second, user]
            assert type(dispatcher.ones(1)) is FakeTensor and dispatcher.ones(1).fake_mode is second
        assert _get_current_dispatch_mode_stack() == [first, user]
    assert _get_current_dispatch_mode_stack() == []
    assert "Python" not in str(dispatcher.tls_local_include_set())
    with pytest.raises(NotImplementedError, match="symbolic shapes"):
        FakeTensorMode(shape_env=object())


def test_unknown_subclasses_get_notimplemented() -> None:
    class Other(dispatcher.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN206
            handled.append(str(func))
            return dispatcher.zeros(2)

    handled: list = []
    mode = FakeTensorMode()
    other = dispatcher.Tensor._make_wrapper_subclass(Other, (2,), dtype=dispatcher.float32)
    assert mode.__torch_dispatch__(dispatcher.ops.aten.neg.default, (Other,), (other,), {}) is NotImplemented
    with mode:
        out = dispatcher.ops.aten.neg.default(other)
    assert handled == ["aten.neg.default"] and type(out) is FakeTensor  # zeros() ran under the fake mode


# --- FakeTensorMode with a logging mode -------------------------------------------------------------------------------
@contextlib.contextmanager
def _torch_capture(torch: Any) -> Any:
    """torch's lines, without the ``prim.device`` calls its FakeTensor makes (its C++ ``device()`` asks Python)."""
    from torch.testing._internal.logging_tensor import LoggingTensorMode as TorchLoggingTensorMode
    from torch.testing._internal.logging_tensor import capture_logs

    class NoDevice(TorchLoggingTensorMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            if func is torch.ops.prim.device.default:
                return func(*args, **(kwargs or {}))
            return super().__torch_dispatch__(func, types, args, kwargs)

    import logging

    log = logging.getLogger("LoggingTensor")
    saved = (list(log.handlers), log.propagate, log.level)
    log.handlers = []
    try:
        with NoDevice(), capture_logs(True) as lines:
            yield lines
    finally:
        log.handlers, log.propagate = saved[0], saved[1]
        log.setLevel(saved[2])


def _normalize(lines: list[str]) -> list[str]:
    return [line.replace("torch._ops.", "").replace("'", "") for line in lines]


def _logged_programs() -> list:
    out = [pytest.param("fwd", p.values[0], marks=p.marks) for p in _forward_programs()]
    out += [pytest.param("bwd", p.values[0], marks=p.marks) for p in _backward_programs()]
    return out


@pytest.mark.parametrize("order", ["fake_outside", "logging_outside"])
@pytest.mark.parametrize(("kind", "name"), _logged_programs())
def test_logging_mode_nested_with_fake_mode_sees_torchs_ops(torch: Any, kind: str, name: str, order: str) -> None:
    """The fake mode is an infra mode at the bottom of the stack whatever the order of entering, so the logging
    mode sees every op first, as in torch: the same lines as torch's, forward and backward."""
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    fn, inputs = forward_program(name) if kind == "fwd" else backward_program(name)

    def lines(T: Any, mode: Any, capture: Any) -> list[str]:
        fakes = {k: mode.from_tensor(v) for k, v in inputs(T).items()}
        if order == "fake_outside":
            outer, inner = mode, capture()
        else:
            outer, inner = capture(), mode
        with outer as a, inner as b:
            logs = a if isinstance(a, list) else b
            stack = _get_current_dispatch_mode_stack() if T is dispatcher else None
            try:
                run_real(T, fn, fakes)
            except (DataDependentOutputException, DynamicOutputShapeException):
                pass
            except RuntimeError as e:
                if "DataDependentOutputException" not in type(e).__name__ and "DynamicOutput" not in type(e).__name__:
                    raise
        if stack is not None:
            assert stack[0] is mode and isinstance(stack[1], LoggingTensorMode)
        return _normalize(logs)

    theirs = lines(torch, TorchFakeTensorMode(), lambda: _torch_capture(torch))
    ours = lines(dispatcher, FakeTensorMode(), capture_logs_with_logging_tensor_mode)
    first = next((i for i, (o, t) in enumerate(zip(ours, theirs)) if o != t), min(len(ours), len(theirs)))
    assert ours == theirs, f"line {first}:\n torch: {theirs[first:first + 3]}\n ours:  {ours[first:first + 3]}"
    assert ours


def test_a_mode_above_the_fake_mode_sees_fakes() -> None:
    seen: list = []

    class Types(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            out = func(*args, **(kwargs or {}))
            seen.append((str(func), [t.__name__ for t in types], type(out).__name__))
            return out

    mode = FakeTensorMode()
    x = mode.from_tensor(dispatcher.ones(2))
    with mode, Types():
        x + dispatcher.ones(2)
    assert seen == [("aten.ones.default", [], "FakeTensor"), ("aten.add.Tensor", ["FakeTensor"], "FakeTensor")]


def _grad_fn_chain(fn: Any) -> list[str]:
    names = []
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


def test_modified_views_of_fakes_replay_their_view_ops_plain_tensors_as_strided_even_under_a_mode(torch: Any) -> None:
    """A view of a Python-key tensor keeps the view ops that made it (a view of a fake made from a real view starts
    with an as_strided to it); a plain tensor's view regenerates as AsStridedBackward0, a dispatch mode or not."""
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode
    from torch.testing._internal.logging_tensor import LoggingTensorMode as TorchLoggingTensorMode

    def run(T: Any, mode: Any, logging: Any) -> list:
        fake_view = mode.from_tensor(T.ones(4, 6)[1:3])
        x = mode.from_tensor(T.ones(2)).requires_grad_()
        with mode:
            col = fake_view.t()[1]
            col.mul_(x)
            flat = fake_view.view(-1)
            out = [_grad_fn_chain(col.grad_fn), _grad_fn_chain(flat.grad_fn)]
        y = T.ones(3, 4, requires_grad=True)
        with logging:
            z = y * 2
            row = z.view(-1)[4:8]
            row.add_(1)
            out.append(_grad_fn_chain(row.grad_fn))
        return out

    ours = run(dispatcher, FakeTensorMode(), LoggingTensorMode())
    assert ours == run(torch, TorchFakeTensorMode(), TorchLoggingTensorMode())
    assert ours[0] == ["SelectBackward0", "TBackward0", "AsStridedBackward0", "CopySlices"]
    assert ours[2] == ["AsStridedBackward0", "CopySlices", "MulBackward0", "AccumulateGrad"]
