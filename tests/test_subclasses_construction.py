"""Building tensor subclasses as torch does: the legacy ``Tensor(...)`` / ``SubTensor(...)`` constructor,
``_make_subclass`` / ``as_subclass`` / ``_make_wrapper_subclass`` (metadata, errors), repr, deepcopy and pickling,
version counters and ``detach`` of wrapper subclasses.

Every case is one program run on torch 2.13 and on dispatcher (tests/subclass_env.py); their outcomes (values, or
error class and message) must be equal. The behaviours are those of test/test_python_dispatch.py's
TestPythonDispatch (test_subclass_creation, test_make_wrapper_subclass_propagates_metadata,
test_make_wrapper_subclass_noalloc, test_version, test_format, test_construct_int_tensor, test_new_ones, test_like,
test_index_put_where_only_index_is_subclass, test_deepcopy_*, test_wrapper_subclass_serializes (as pickling),
test_tolist_numpy_with_torch_dispatch_mode, test_invalid_ret, test_list_ret, test_mode_with_make_subclass).
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest

from tests.subclass_env import both, outcome, skip_logging_tensor_in_pytest_capture

_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)


def desc(t: Any) -> tuple:
    """What is compared of a tensor: type name, dtype, shape, stride, autograd state (and values when it has any)."""
    values = None
    if type(t).__name__ in ("Tensor", "Sub") and t.device.type == "cpu" and t.numel() and not t.is_meta:
        values = np.asarray(t.detach().numpy() if type(t).__name__ == "Tensor" else t.detach().as_subclass(
            type(t).__mro__[1]).numpy()).tolist()
    grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    return (type(t).__name__, repr(t.dtype), tuple(t.shape), tuple(t.stride()), t.requires_grad, grad_fn, values)


def _sub(E: Any) -> type:
    class Sub(E.T.Tensor):
        pass

    return Sub


def _x(E: Any) -> Any:
    return E.T.tensor([1.5, -2.0], requires_grad=True)


LEGACY = {
    "empty": lambda E: desc(E.T.Tensor()),
    "sizes": lambda E: desc(E.T.Tensor(2, 3))[:5],
    "torch_size": lambda E: desc(E.T.Tensor(E.T.Size([2, 3])))[:5],
    "nested_list": lambda E: desc(E.T.Tensor([[1, 2]])),
    "tuple_is_data": lambda E: desc(E.T.Tensor((2, 3))),
    "bool_list": lambda E: desc(E.T.Tensor([True, False])),
    "ndarray": lambda E: desc(E.T.Tensor(np.ones(2))),
    "alias_of_tensor": lambda E: desc(E.T.Tensor(_x(E))),
    "alias_is_view": lambda E: E.T.Tensor(_x(E))._is_view(),
    "alias_keeps_int_dtype": lambda E: desc(E.T.Tensor(E.T.tensor([1, 2]))),
    "alias_keeps_float64": lambda E: desc(E.T.Tensor(E.T.ones(2, dtype=E.T.float64))),
    "float_is_no_sequence": lambda E: E.T.Tensor(2.5),
    "bool_is_no_sequence": lambda E: E.T.Tensor(True),
    "str_is_invalid": lambda E: E.T.Tensor("a"),
    "negative_size": lambda E: E.T.Tensor(-1),
    "dtype_keyword": lambda E: E.T.Tensor(2, dtype=E.T.float64),
    "requires_grad_keyword": lambda E: E.T.Tensor([1.0], requires_grad=True),
    "tensor_and_int": lambda E: E.T.Tensor(_x(E), 2),
    "meta_device": lambda E: E.T.Tensor(2, device="meta"),
    "meta_device_data": lambda E: E.T.Tensor([1.0], device="meta"),
    "cpu_device": lambda E: desc(E.T.Tensor([1.0], device="cpu")),
    "subclass_of_int_tensor": lambda E: desc(_sub(E)(E.T.tensor([1, 2]))),
    "subclass_alias_attached": lambda E: desc(_sub(E)(_x(E))),
    "subclass_shares_storage": lambda E: (lambda x: _sub(E)(x).data_ptr() == x.data_ptr())(_x(E)),
    "subclass_empty": lambda E: desc(_sub(E)()),
    "subclass_sizes": lambda E: desc(_sub(E)(3))[:5],
    "subclass_data": lambda E: desc(_sub(E)([1, 2])),
    "tensor_new_of_subclass": lambda E: desc(E.T.Tensor.__new__(_sub(E), 2))[:5],
    "tensor_new_of_int": lambda E: E.T.Tensor.__new__(int, 2),
}


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_legacy_constructor(torch: Any, name: str) -> None:
    theirs, ours = both(torch, lambda E: outcome(lambda: LEGACY[name](E)))
    if name == "tensor_new_of_int":  # torch names its C base class: compare the class and the shape of the message
        assert theirs[:2] == ours[:2] and "int is not a subtype of" in ours[2]
        return
    assert ours == theirs


def _logging_mode_program(E: Any, make: Any) -> Any:
    class Mode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    seen: list[str] = []
    x = _x(E)
    with Mode():
        result = outcome(lambda: make(E, x))
    if result[0] == "ok":
        result = ("ok", desc(result[1])[:6])
    return result, seen


@pytest.mark.parametrize("name,make", [
    ("sizes", lambda E, x: E.T.Tensor(2)),
    ("data", lambda E, x: E.T.Tensor([1.0])),
    ("alias", lambda E, x: E.T.Tensor(x)),
    ("subclass_alias_under_a_mode", lambda E, x: _sub(E)(x)),
])
def test_legacy_constructor_under_a_mode(torch: Any, name: str, make: Any) -> None:
    """The constructor's ops reach the modes (empty.memory_format / lift_fresh / alias); a subclass built from a
    tensor a mode returned is torch's "already associated to a python object" error."""
    theirs, ours = both(torch, lambda E: _logging_mode_program(E, make))
    assert ours == theirs


def _creation_errors(E: Any) -> list:
    class Foo(E.T.Tensor):
        pass

    LT = E.lt.LoggingTensor
    return [
        outcome(lambda: E.T.Tensor._make_subclass(Foo, LT(E.T.rand(2)))),
        outcome(lambda: LT(E.T.rand(2)).as_subclass(Foo)),
        outcome(lambda: Foo(LT(E.T.rand(2)))),
        outcome(lambda: E.T.Tensor._make_wrapper_subclass(Foo, (2, 2))),
    ]


def test_subclass_creation_errors(torch: Any) -> None:
    theirs, ours = both(torch, _creation_errors)
    assert ours == theirs
    assert [o[0] for o in ours] == ["error"] * 4


def _wrapper(E: Any, on_dispatch: Any = None) -> type:
    class WrapperTensor(E.T.Tensor):
        @staticmethod
        def __new__(cls, elem, *args, **kwargs):
            r = E.T.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype, layout=elem.layout,
                                                  device=elem.device, requires_grad=elem.requires_grad,
                                                  strides=elem.stride(), storage_offset=elem.storage_offset())
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            if on_dispatch is not None:
                return on_dispatch(cls, func, args, kwargs or {})
            raise RuntimeError("NYI")

    return WrapperTensor


def _metadata(E: Any) -> tuple:
    x = E.T.randn(4, 6).t().diagonal(offset=2)
    y = _wrapper(E)(x)
    z = E.T.Tensor._make_wrapper_subclass(E.lt.LoggingTensor, (1000000000000,))  # no allocation
    positional = E.T.Tensor._make_wrapper_subclass(_wrapper(E), (2, 3), (1, 2), 1, E.T.contiguous_format,
                                                   E.T.float64, E.T.strided, E.T.device("cpu"), False, False, None,
                                                   False, False)
    return (tuple(y.size()), y.stride(), y.storage_offset(), tuple(x.size()), x.stride(), x.storage_offset(),
            tuple(z.shape), repr(z.dtype), tuple(positional.shape), positional.stride(), positional.storage_offset(),
            repr(positional.dtype))


def test_make_wrapper_subclass_metadata_and_positional_form(torch: Any) -> None:
    theirs, ours = both(torch, _metadata)
    assert ours == theirs


def _extra_keys(E: Any) -> tuple:
    DK, DKS = E.T._C.DispatchKey, E.T._C.DispatchKeySet

    class ExtraKeysTensor(E.T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return E.T.Tensor._make_wrapper_subclass(cls, elem.size(), elem.stride(), elem.storage_offset(),
                                                     E.T.contiguous_format, elem.dtype, elem.layout, elem.device,
                                                     False, False, None, False, False, DKS(DK.NestedTensor))

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            pass

    x = ExtraKeysTensor(E.T.randn(3))
    keys = E.T._C._dispatch_keys(x)
    return keys.has(DK.NestedTensor), keys.has(DK.AutogradNestedTensor), keys.has(DK.Python)


def test_wrapper_subclass_extra_dispatch_keys(torch: Any) -> None:
    theirs, ours = both(torch, _extra_keys)
    assert ours == theirs == (True, False, True)


def _version(E: Any) -> tuple:
    x = E.lt.LoggingTensor(E.T.ones(1))
    prev = x._version
    x.detach().add_(2)
    cur = x._version
    x.data.add_(2)
    return prev != cur, cur == x._version


def test_version_counter_of_a_wrapper(torch: Any) -> None:
    theirs, ours = both(torch, _version)
    assert ours == theirs == (True, True)


def _format(E: Any) -> tuple:
    x = E.lt.LoggingTensor(E.T.ones(1))
    g = E.lt.LoggingTensor(E.T.ones(2), requires_grad=True)
    sub = _sub(E)([1.0, 2.0])
    return str(x), repr(x), f"{x}", repr(g), repr(sub), repr(E.T.Tensor([3.0]))


def test_repr_of_subclasses(torch: Any) -> None:
    theirs, ours = both(torch, _format)
    assert ours == theirs
    assert ours[0] == "LoggingTensor(tensor([1.]))"


def _factories(E: Any) -> list:
    class MyTensor(E.T.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return MyTensor(3)

    out = [type(MyTensor(2).new_ones(3)).__name__]
    for f in ["empty", "ones", "rand", "randn", "zeros"]:
        out.append(type(getattr(E.T, f + "_like")(MyTensor(2))).__name__)
    out.append(type(E.T.full_like(MyTensor(2), 1.0)).__name__)
    return out


def test_factories_of_a_subclass_go_to_its_dispatch(torch: Any) -> None:
    theirs, ours = both(torch, _factories)
    assert ours == theirs


def _index_put(E: Any) -> list:
    called: list = []

    def record(cls, func, args, kwargs):
        called.append(str(func))
        return cls(E.T.tensor(3))

    W = _wrapper(E, record)
    x = E.T.randn(3, 3)
    x.index_put_((W(E.T.tensor(0)),), E.T.randn(1))
    return called


def test_index_put_where_only_the_index_is_a_subclass(torch: Any) -> None:
    theirs, ours = both(torch, _index_put)
    assert ours == theirs == ["aten.index_put_.default"]


def _deepcopy_and_pickle(E: Any) -> list:
    x = E.lt.LoggingTensor(E.T.arange(3))
    out = []
    for copied in (copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        out.append((type(copied).__name__, repr(copied.dtype), copied.elem.tolist(), copied is x,
                    copied.elem is x.elem))

    def clone_plain(cls, func, args, kwargs):
        if func.overloadpacket.__name__ == "clone":
            return args[0].elem.clone()
        raise RuntimeError("NYI")

    out.append(outcome(lambda: copy.deepcopy(_wrapper(E, clone_plain)(E.T.randn(3)))))

    class E1(E.T.Tensor):
        pass

    class E2(E.T.Tensor):
        def new_empty(self, shape):
            return E.T.Tensor(shape)

    class Ok(E.T.Tensor):
        def new_empty(self, shape):
            return type(self)(shape)

    out += [outcome(lambda: copy.deepcopy(E1(3))), outcome(lambda: copy.deepcopy(E2(3))),
            outcome(lambda: type(copy.deepcopy(Ok(3))).__name__)]
    out.append(outcome(lambda: copy.deepcopy(E.T.ones(2, requires_grad=True) * 2)))
    g = E.lt.LoggingTensor(E.T.ones(1), requires_grad=True)
    out.append(copy.deepcopy(g).requires_grad)
    return out


def test_deepcopy_and_pickle(torch: Any) -> None:
    theirs, ours = both(torch, _deepcopy_and_pickle)
    assert ours == theirs


def _tolist_numpy(E: Any) -> list:
    x = E.lt.LoggingTensor(E.T.tensor([2.0, 3.0]))
    return [outcome(x.tolist), outcome(x.numpy)]


def test_tolist_and_numpy_of_a_wrapper(torch: Any) -> None:
    theirs, ours = both(torch, _tolist_numpy)
    assert ours == theirs


def _returns(E: Any) -> list:
    out = []
    for list_type in (list, tuple):
        class A(E.T.Tensor):
            @staticmethod
            def __new__(cls, elem):
                return E.T.Tensor._make_subclass(cls, elem, elem.requires_grad)

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None, list_type=list_type):
                if func.overloadpacket == E.T.ops.aten.split:
                    with E.mu.no_dispatch():
                        return list_type(E.T.split(*args))
                raise AssertionError(f"unrecognized func: {func}")

        out.append([t.tolist() for t in E.T.split(A(E.T.tensor([0, 1])), 2)])

    class Bad(E.T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return E.T.Tensor._make_subclass(cls, elem, elem.requires_grad)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return "arf"

    out.append(outcome(lambda: Bad(E.T.zeros(1)).neg())[:2])
    out.append(outcome(lambda: Bad(E.T.zeros(1)).detach())[:2])
    return out


def test_list_and_invalid_returns(torch: Any) -> None:
    theirs, ours = both(torch, _returns)
    assert ours == theirs


def _make_subclass_under_mode(E: Any) -> str:
    class SubTensor(E.T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return E.T.Tensor._make_subclass(cls, elem, elem.requires_grad)

    class BasicMode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with BasicMode():
        y = SubTensor(E.T.randn(3))
    return type(y).__name__


def test_make_subclass_under_a_mode(torch: Any) -> None:
    theirs, ours = both(torch, _make_subclass_under_mode)
    assert ours == theirs == "SubTensor"


def _disabled_impls(E: Any) -> list:
    class NoDispatch(E.T.Tensor):
        __torch_dispatch__ = E.T._C._disabled_torch_dispatch_impl

    class NoFunction(E.T.Tensor):
        __torch_function__ = E.T._C._disabled_torch_function_impl

    class Plain(E.T.Tensor):
        pass

    keys = [E.T._C._dispatch_keys(cls(E.T.ones(2))).has(E.T._C.DispatchKey.Python)
            for cls in (NoDispatch, NoFunction, Plain)]
    results = [type(cls(E.T.ones(2)) + 1).__name__ for cls in (NoDispatch, NoFunction, Plain)]
    return keys + results


def test_disabled_torch_function_and_dispatch_impls(torch: Any) -> None:
    """``_disabled_torch_dispatch_impl`` is Tensor's own (no Python key); ``_disabled_torch_function_impl`` turns off
    the wrapping of results into the subclass."""
    theirs, ours = both(torch, _disabled_impls)
    assert ours == theirs


def _save_load(E: Any) -> list:
    import io

    x = E.lt.LoggingTensor(E.T.arange(3))
    f = io.BytesIO()
    E.T.save(x, f)
    f.seek(0)
    refused = outcome(lambda: E.T.load(f))[:2]
    f.seek(0)
    with E.T.serialization.safe_globals([E.lt.LoggingTensor]):
        loaded = E.T.load(f)
    return [refused, type(loaded).__name__, repr(loaded.dtype), loaded.elem.tolist(), loaded is x,
            tuple(loaded.shape), loaded.stride()]


def test_wrapper_subclass_save_and_load(torch: Any) -> None:
    """test_wrapper_subclass_serializes: torch.save writes the wrapper's metadata and state; torch.load rebuilds it
    once its class is an allowed global."""
    theirs, ours = both(torch, _save_load)
    assert ours == theirs
