"""Metadata a subclass answers in ``__torch_dispatch__``: ``_make_wrapper_subclass`` / ``_make_subclass`` with
``dispatch_sizes_strides_policy="strides" | "sizes"``, ``dispatch_device=True``, ``dispatch_layout=True``.

For each policy and each query (``size()``, ``stride(0)``, ``dim()``, ``len()``, ``numel()``, ``is_contiguous()``,
``contiguous()``, ``device``, ``layout``, ``data_ptr()`` ...), the subclass's handler returns NotImplemented,
None (use the stored value) or a value of its own; torch and dispatcher must hand the same ops (with the same
extra arguments) to the handler, in the same order, and give the same results or the same errors. A mode on the
stack sees the query first. These are the behaviours of test_python_dispatch.py's test_is_contiguous_slow_path,
test_fancy_strides, test_device_slowpath, test_dim_slowpath, test_strides_slow_path, test_sizes_slow_path,
test_data_ptr_respects_numel_slow_path and test_layout_slow_path (without symbolic sizes).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.subclass_env import both, outcome, skip_logging_tensor_in_pytest_capture

_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)

QUERIES = {
    "size": lambda e: tuple(e.size()),
    "size_dim": lambda e: e.size(1),
    "shape": lambda e: tuple(e.shape),
    "stride": lambda e: e.stride(),
    "stride_dim": lambda e: e.stride(0),
    "dim": lambda e: e.dim(),
    "ndim": lambda e: e.ndim,
    "len": lambda e: len(e),
    "numel": lambda e: e.numel(),
    "storage_offset": lambda e: e.storage_offset(),
    "is_contiguous": lambda e: e.is_contiguous(),
    "is_contiguous_channels_last": lambda e: e.is_contiguous(memory_format=e.__class__._T.channels_last),
    "contiguous_returns_self": lambda e: e.contiguous() is e,
    "device": lambda e: str(e.device),
    "is_meta": lambda e: e.is_meta,
    "layout": lambda e: repr(e.layout),
    "type_as": lambda e: str(e.__class__._T.rand(1).type_as(e).device),
    "data_ptr_is_set": lambda e: e.data_ptr() != 0,
}

#: what the handler answers: NotImplemented for everything, None for everything, or its own values
ANSWERS = {
    "not_implemented": lambda E, func: NotImplemented,
    "none_but_dim": lambda E, func: 2 if str(func) == "aten.dim.default" else None,
    "own_values": lambda E, func: {
        "aten.dim.default": 2, "aten.sym_size.default": (5, 3), "aten.sym_stride.default": (4, 2),
        "aten.sym_numel.default": 15, "aten.sym_storage_offset.default": 1, "aten.is_contiguous.default": False,
        "aten.is_contiguous.memory_format": True, "prim.device.default": E.T.device("meta"),
        "prim.layout.default": E.T.sparse_csr,
    }.get(str(func), NotImplemented),
}

POLICIES = {
    "strides": {"dispatch_sizes_strides_policy": "strides"},
    "sizes": {"dispatch_sizes_strides_policy": "sizes"},
    "device_layout": {"dispatch_device": True, "dispatch_layout": True},
}


def _program(E: Any, wrapper: bool, policy: str, answer: str, query: str, with_mode: bool) -> tuple:
    calls: list = []

    class Example(E.T.Tensor):
        _T = E.T

        @staticmethod
        def __new__(cls, data):
            kwargs = dict(POLICIES[policy])
            if wrapper:
                return E.T.Tensor._make_wrapper_subclass(cls, data.size(), device=data.device, dtype=data.dtype,
                                                         layout=data.layout, requires_grad=True, **kwargs)
            return E.T.Tensor._make_subclass(cls, data, True, **kwargs)

        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            calls.append(("subclass", str(func), [repr(a) for a in args[1:]]))
            return ANSWERS[answer](E, func)

    class Mode(E.pd.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(("mode", str(func), [t.__name__ for t in types]))
            return func(*args, **(kwargs or {}))

    e = Example(E.T.randn(3, 2))
    if with_mode:
        with Mode():
            result = outcome(lambda: QUERIES[query](e))
    else:
        result = outcome(lambda: QUERIES[query](e))
    return result, calls


# (not compared: contiguous() of a tensor that says it is not contiguous; torch asks is_contiguous three times, in
# the binding, TensorBase::contiguous and the kernel, and sym_size for autograd's input metadata, before the clone)
CASES = [pytest.param(w, p, a, q, False, id=f"{'wrapper' if w else 'make_subclass'}-{p}-{a}-{q}")
         for w in (True, False) for p in ("strides", "sizes") for a in ANSWERS
         for q in QUERIES if q not in ("device", "is_meta", "layout", "type_as")
         and not (q == "contiguous_returns_self" and a == "own_values")]
CASES += [pytest.param(True, "device_layout", a, q, False, id=f"wrapper-device_layout-{a}-{q}")
          for a in ANSWERS for q in ("device", "is_meta", "layout", "size", "type_as")]
CASES += [pytest.param(w, "sizes", "none_but_dim", q, True, id=f"{'wrapper' if w else 'make_subclass'}-mode-{q}")
          for w in (True, False) for q in ("size", "size_dim", "stride", "is_contiguous")]


@pytest.mark.parametrize("wrapper,policy,answer,query,with_mode", CASES)
def test_metadata_policy(torch: Any, wrapper: bool, policy: str, answer: str, query: str, with_mode: bool) -> None:
    theirs, ours = both(torch, lambda E: _program(E, wrapper, policy, answer, query, with_mode))
    assert ours == theirs


def _fancy_strides(E: Any) -> list:
    calls: list = []

    class ExampleTensor(E.T.Tensor):
        @staticmethod
        def __new__(cls, data):
            return E.T.Tensor._make_subclass(cls, data, True, dispatch_sizes_strides_policy="strides")

        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            if func in [E.T.ops.aten.is_contiguous.default, E.T.ops.aten.is_contiguous.memory_format,
                        E.T.ops.aten.is_strides_like_format.default,
                        E.T.ops.aten.is_non_overlapping_and_dense.default, E.T.ops.aten.stride.default]:
                calls.append((str(func), [repr(a) for a in args[1:]]))
                return None
            with E.mu.no_dispatch():
                return func(*args, **kwargs)

    e = ExampleTensor(E.T.randn(2, 2))
    return [e.is_contiguous(memory_format=E.T.channels_last),
            E.T.ops.aten.is_strides_like_format.default(e, E.T.channels_last),
            E.T.ops.aten.is_non_overlapping_and_dense.default(e), calls]


def test_fancy_strides(torch: Any) -> None:
    theirs, ours = both(torch, _fancy_strides)
    assert ours == theirs
