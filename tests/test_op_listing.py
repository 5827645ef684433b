"""Whole-listing checks: every aten op of ``native_functions.py`` against its kernels, its Meta twin and torch.

* the listing is complete: every op has the kernels its kind requires, and a sample entry in ``op_samples.OPS``;
* Meta vs CPU: for every sample, the op on meta tensors gives the shapes, dtypes and strides the CPU run gives;
* ours vs torch: for every sample, values (float tolerance), dtype, shape and stride agree with
  ``torch.ops.aten.<op>.<overload>``; a sample torch rejects must be rejected by ours with the same exception type;
* a bad-input sweep: hand-written bad calls (``OpInfo.bad``) plus calls derived from each schema (a str or a dict
  where a Tensor is required, no arguments, too many arguments, an out-of-range ``dim``): ours raises the
  exception type torch raises with the same first line of message, never a NumPy error, never a silent success.

Ops whose kernels are not registered yet (``registration.missing_kernels()``) are left out of the parametrized
tests at collection time; a sample whose run reaches a missing kernel of another op is skipped, naming it.
"""

from __future__ import annotations

import re
import traceback
from typing import Any

import numpy as np
import pytest
from hypothesis import Phase

import dispatcher
from dispatcher.errors import SchemaArgumentError
from dispatcher.math_bits import logical_values
from dispatcher.ops import registration
from dispatcher.ops.native_functions import NATIVE_FUNCTIONS
from dispatcher.tensor import Tensor
from tests.op_samples import FLOAT_DTYPES, OPS, Sample, T, build, check_table

MISSING = registration.missing_kernels()
MISSING_OPS = {m.split(":", 1)[0] for m in MISSING}
READY = [op.name for op in NATIVE_FUNCTIONS if op.name not in MISSING_OPS]
SCHEMAS = {op.name: op.schema for op in NATIVE_FUNCTIONS}

CASES = [pytest.param(name, i, id=f"{name}-{i}") for name in READY for i in range(len(OPS[name].samples))]

# Ops writing to arguments their schemas do not mark : batch norm's running statistics in training.
UNANNOTATED_WRITES = frozenset({"native_batch_norm", "batch_norm", "instance_norm"})

# Builtin exception types an error is compared by (torch's C++ errors subclass these).
BUILTIN_ERRORS = (IndexError, TypeError, ValueError, NotImplementedError, RuntimeError)

# Type differences we accept, recorded: torch.ops calls raise RuntimeError for arguments that do not fit the
# schema, ours raise SchemaArgumentError (a TypeError) with the same wording.
SCHEMA_MISMATCH_TYPE_DIFFERENCE = (RuntimeError, SchemaArgumentError)


def ours_op(name: str) -> Any:
    base, _, overload = name.partition(".")
    return getattr(getattr(dispatcher.ops.aten, base), overload or "default")


def torch_op(torch: Any, name: str) -> Any:
    base, _, overload = name.partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def run(fn: Any, args: tuple, kwargs: dict) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return None, e


_MISSING_KERNEL = re.compile(r"Could not run 'aten::([\w.]+)' with arguments from the '(\w+)' backend")


def skip_if_missing_kernel(exc: BaseException | None) -> None:
    """A call that reached an op whose kernel is not written yet is skipped, naming the op."""
    if exc is None:
        return
    m = _MISSING_KERNEL.search(str(exc))
    if m and m.group(1) in MISSING_OPS:
        pytest.skip(f"reaches aten::{m.group(1)}, whose kernel is missing")


def flatten(out: Any) -> list[Any]:
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in flatten(o)]
    return [out]


def builtin_type(exc: BaseException) -> type:
    for t in BUILTIN_ERRORS:
        if isinstance(exc, t):
            return t
    return type(exc)


def assert_not_numpy_error(exc: BaseException) -> None:
    assert not type(exc).__module__.startswith("numpy"), f"NumPy exception leaked: {type(exc).__name__}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1].filename.replace("\\", "/")
        assert "/numpy/" not in last, f"error raised inside NumPy ({last}): {type(exc).__name__}: {exc}"


def first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0].strip() if text else ""


def assert_same_error(name: str, torch_exc: BaseException, ours_exc: BaseException | None, what: str) -> None:
    assert ours_exc is not None, f"{name} {what}: torch raises {type(torch_exc).__name__}({torch_exc}) but ours succeeds"
    skip_if_missing_kernel(ours_exc)
    assert_not_numpy_error(ours_exc)
    expected = builtin_type(torch_exc)
    theirs_line, ours_line = first_line(torch_exc), first_line(ours_exc)
    if isinstance(ours_exc, expected):
        assert ours_line == theirs_line, f"{name} {what}: message ours {ours_line!r}, torch {theirs_line!r}"
        return
    if expected is SCHEMA_MISMATCH_TYPE_DIFFERENCE[0] and isinstance(ours_exc, SCHEMA_MISMATCH_TYPE_DIFFERENCE[1]):
        text = str(ours_exc)
        base = name.split(".")[0]
        assert f"aten::{base}" in text or "argument" in text, f"{name}: schema error names neither op nor argument"
        assert ours_line == theirs_line, f"{name} {what}: message ours {ours_line!r}, torch {theirs_line!r}"
        return
    raise AssertionError(
        f"{name} {what}: torch raises {type(torch_exc).__name__}({str(torch_exc)[:200]!r}), "
        f"ours {type(ours_exc).__name__}({str(ours_exc)[:200]!r})"
    )


def dtype_name(d: Any) -> str:
    return str(d).rsplit(".", 1)[-1]


def tolerance(name: str) -> dict:
    return {"float16": {"rtol": 2e-3, "atol": 2e-3}, "float32": {"rtol": 1e-5, "atol": 1e-5},
            "float64": {"rtol": 1e-10, "atol": 1e-10},
            # (LAPACK-based complex kernels, e.g. linalg_lstsq's, round differently from NumPy's: wt-lstsq)
            "complex64": {"rtol": 1e-5, "atol": 1e-5}, "complex128": {"rtol": 1e-10, "atol": 1e-10}}.get(
                name, {"rtol": 0, "atol": 0})


# ----------------------------------------------------------------------------------------------------------------
# (a) the listing is complete


def test_sample_table_covers_the_listing() -> None:
    assert check_table() == []
    assert len(OPS) == len(NATIVE_FUNCTIONS)


def test_every_listed_op_has_its_kernels() -> None:
    assert registration.missing_kernels() == []


# ----------------------------------------------------------------------------------------------------------------
# (b) Meta vs CPU


#: ops whose torch meta function shapes some outputs by the tensors' own device (device_hint: offsets really on meta
#: give other offset2bag / bag_size / max_indices shapes than the CPU kernel): their meta outputs are compared with
#: torch's outputs on meta tensors instead of with the CPU run
META_AS_TORCH_META = {"_embedding_bag", "_embedding_bag_forward_only", "embedding_bag", "embedding_bag.padding_idx"}


def _torch_meta_want(name: str, sample: Sample) -> list[tuple]:
    torch = pytest.importorskip("torch")
    args, kwargs = build(sample, "torch")

    def meta(v: Any) -> Any:
        return v.to("meta") if isinstance(v, torch.Tensor) else v

    out = torch_op(torch, name)(*[meta(a) for a in args], **{k: meta(v) for k, v in kwargs.items()})
    return [(tuple(t.shape), str(t.dtype).removeprefix("torch."), tuple(t.stride())) for t in flatten(out)]


@pytest.mark.parametrize("name,i", CASES)
def test_meta_matches_cpu(name: str, i: int) -> None:
    info = OPS[name]
    sample = info.samples[i]
    op = ours_op(name)
    cpu_out, cpu_exc = run(op, *build(sample, "cpu"))
    skip_if_missing_kernel(cpu_exc)
    meta_out, meta_exc = run(op, *build(sample, "meta"))
    skip_if_missing_kernel(meta_exc)
    if not info.meta:
        assert meta_exc is not None, f"{name}{sample}: data-dependent op succeeded on meta tensors"
        assert_not_numpy_error(meta_exc)
        return
    if cpu_exc is not None:
        pytest.skip(f"the CPU run raises {type(cpu_exc).__name__} (checked against torch elsewhere)")
    if meta_exc is not None:
        assert_not_numpy_error(meta_exc)
        raise AssertionError(f"{name}{sample}: CPU succeeds, meta raises {type(meta_exc).__name__}: {meta_exc}")
    cpu_flat, meta_flat = flatten(cpu_out), flatten(meta_out)
    assert len(cpu_flat) == len(meta_flat), f"{name}{sample}: {len(cpu_flat)} CPU outputs, {len(meta_flat)} meta"
    if name in META_AS_TORCH_META:
        got = [(tuple(m.shape), m.dtype.name, tuple(m.stride())) for m in meta_flat]
        assert got == _torch_meta_want(name, sample), f"{name}{sample}: meta outputs differ from torch's on meta"
        return
    for k, (c, m) in enumerate(zip(cpu_flat, meta_flat)):
        if c is None or m is None:
            assert c is None and m is None, f"{name}{sample} output {k}: {c!r} vs {m!r}"
            continue
        if not isinstance(c, Tensor):  # metadata (dim, numel, is_contiguous): the same number on meta
            assert type(m) is type(c) and m == c, f"{name}{sample} output {k}: meta {m!r} != CPU {c!r}"
            continue
        assert isinstance(m, Tensor) and m.device.type == "meta", f"{name} output {k} is not a meta tensor"
        got = (tuple(m.shape), m.dtype.name, tuple(m.stride()))
        want = (tuple(c.shape), c.dtype.name, tuple(c.stride()))
        assert got == want, f"{name}{sample} output {k}: meta (shape, dtype, stride) {got} != CPU {want}"


# ----------------------------------------------------------------------------------------------------------------
# (c) ours vs torch


#: outputs whose contents a backend defines: oneDNN's LSTM workspace (machine-dependent bytes; empty here)
OPAQUE_OUTPUTS = {"mkldnn_rnn_layer": (3,)}


def compare_outputs(name: str, sample: Sample, theirs: Any, ours: Any, values: bool) -> None:
    t_flat, o_flat = flatten(theirs), flatten(ours)
    assert len(t_flat) == len(o_flat), f"{name}{sample}: torch gives {len(t_flat)} outputs, ours {len(o_flat)}"
    for k, (t, o) in enumerate(zip(t_flat, o_flat)):
        where = f"{name}{sample} output {k}"
        if k in OPAQUE_OUTPUTS.get(name, ()):  # its shape and bytes are the backend's own
            continue
        if t is None or o is None:
            assert t is None and o is None, f"{where}: torch {t!r}, ours {o!r}"
            continue
        if not hasattr(t, "shape"):  # a Python scalar (_local_scalar_dense, is_nonzero)
            assert type(o) is type(t), f"{where}: torch returns {type(t).__name__}, ours {type(o).__name__}"
            assert o == t or (o != o and t != t), f"{where}: torch {t!r}, ours {o!r}"
            continue
        assert isinstance(o, Tensor), f"{where}: ours returns {type(o).__name__}, not a Tensor"
        assert tuple(o.shape) == tuple(t.shape), f"{where}: shape ours {tuple(o.shape)} torch {tuple(t.shape)}"
        assert o.dtype.name == dtype_name(t.dtype), f"{where}: dtype ours {o.dtype.name} torch {dtype_name(t.dtype)}"
        assert tuple(o.stride()) == tuple(t.stride()), f"{where}: stride ours {o.stride()} torch {t.stride()}"
        if values:
            np.testing.assert_allclose(
                # force=True: torch's ZeroTensors (_efficientzerotensor) refuse a plain .numpy()
                np.asarray(logical_values(o)), t.detach().numpy(force=True), equal_nan=True, err_msg=where,
                **tolerance(o.dtype.name),
            )


@pytest.mark.parametrize("name,i", CASES)
def test_matches_torch(torch: Any, name: str, i: int) -> None:
    info = OPS[name]
    sample = info.samples[i]
    t_args, t_kwargs = build(sample, "torch")
    theirs, torch_exc = run(torch_op(torch, name), t_args, t_kwargs)
    o_args, o_kwargs = build(sample, "cpu")
    ours, ours_exc = run(ours_op(name), o_args, o_kwargs)
    if torch_exc is not None:
        assert_same_error(name, torch_exc, ours_exc, f"on {sample}")
        return
    skip_if_missing_kernel(ours_exc)
    if ours_exc is not None:
        raise AssertionError(f"{name}{sample}: torch succeeds, ours raises {type(ours_exc).__name__}: {ours_exc}")
    compare_outputs(name, sample, theirs, ours, values=not info.random)
    compare_aliasing(name, sample, t_args, theirs, o_args, ours)
    if name in UNANNOTATED_WRITES:  # the running statistics are updated in place: as torch's are
        for j, (a, b) in enumerate(zip(flatten(o_args), flatten(t_args))):
            if isinstance(a, Tensor):
                np.testing.assert_allclose(np.asarray(a._data), b.numpy(), rtol=1e-5, atol=1e-6,
                                           err_msg=f"{name}{sample}: input {j} differs from torch's after the call")
    elif not ours_op(name)._schema.is_mutable:  # a functional op leaves its inputs alone
        fresh = [x for x in flatten(build(sample, "cpu")[0]) if isinstance(x, Tensor)]
        used = [x for x in flatten(o_args) if isinstance(x, Tensor)]
        for j, (a, b) in enumerate(zip(used, fresh)):
            np.testing.assert_array_equal(np.asarray(a._data), np.asarray(b._data),
                                          err_msg=f"{name}{sample}: input {j} was modified")


def _torch_storage(t: Any) -> int:
    return t.untyped_storage().data_ptr()


def compare_aliasing(name: str, sample: Sample, t_args: tuple, theirs: Any, o_args: tuple, ours: Any) -> None:
    """In-place ops return ``self`` itself; an output aliases an input (same storage, same offset) iff torch's does."""
    t_in = [x for x in flatten(t_args) if hasattr(x, "untyped_storage")]
    o_in = [x for x in flatten(o_args) if isinstance(x, Tensor)]
    for k, (t, o) in enumerate(zip(flatten(theirs), flatten(ours))):
        if not isinstance(o, Tensor) or not hasattr(t, "untyped_storage"):
            continue
        where = f"{name}{sample} output {k}"
        for j, (ti, oi) in enumerate(zip(t_in, o_in)):
            assert (t is ti) == (o is oi), f"{where}: torch returns input {j} itself: {t is ti}, ours: {o is oi}"
            if t.numel() == 0 or ti.numel() == 0:
                continue
            t_alias = _torch_storage(t) == _torch_storage(ti)
            o_alias = o.untyped_storage_ptr() == oi.untyped_storage_ptr()
            assert t_alias == o_alias, f"{where}: shares input {j}'s storage in torch: {t_alias}, ours: {o_alias}"
            if t_alias:
                got, want = o.storage_offset() - oi.storage_offset(), t.storage_offset() - ti.storage_offset()
                assert got == want, f"{where}: storage offset relative to input {j}: ours {got}, torch {want}"


# ----------------------------------------------------------------------------------------------------------------
# (d) bad-input sweep


def _schema_arguments(name: str) -> list[Any]:
    return list(ours_op(name)._schema.arguments)


def derived_bad_calls(name: str) -> list[tuple[str, Any]]:
    """Bad calls derived from the schema and the op's first sample: (label, callable building (args, kwargs))."""
    info = OPS[name]
    if not info.samples:  # (an op only reachable from another op's outputs: mkldnn_rnn_layer_backward)
        return []
    first = info.samples[0]
    arguments = _schema_arguments(name)
    positional = [a for a in arguments if not a.kwarg_only]
    calls: list[tuple[str, Any]] = []
    tensor_pos = next((k for k, a in enumerate(positional) if a.kind in ("tensor", "tensor_list")), None)
    target = tensor_pos if tensor_pos is not None else (0 if positional else None)
    if target is not None and target < len(first.args):
        for label, junk in (("str", "abc"), ("dict", {"a": 1})):
            args = list(first.args)
            args[target] = junk
            calls.append((f"{label}-for-{positional[target].name}", Sample(tuple(args), dict(first.kwargs))))
    if any(not a.has_default for a in positional):
        calls.append(("no-args", Sample((), {})))
    extra = len(arguments) + 1 - len(first.args)
    calls.append(("too-many-args", Sample(tuple(first.args) + (1,) * max(extra, 1), {})))
    for k, a in enumerate(positional):
        if a.name == "dim" and k <= len(first.args):
            args = list(first.args[:k]) + [None] + list(first.args[k + 1:])
            args[k] = [17] if "[" in str(a.type) else 17
            calls.append(("dim-17", Sample(tuple(args), dict(first.kwargs))))
    return calls


BAD_CASES = []
for _name in READY:
    for _k, _s in enumerate(OPS[_name].bad):
        BAD_CASES.append(pytest.param(_name, _s, id=f"{_name}-bad{_k}"))
    for _label, _s in derived_bad_calls(_name):
        BAD_CASES.append(pytest.param(_name, _s, id=f"{_name}-{_label}"))


@pytest.mark.parametrize("name,sample", BAD_CASES)
def test_bad_input(torch: Any, name: str, sample: Sample) -> None:
    _theirs, torch_exc = run(torch_op(torch, name), *build(sample, "torch"))
    if torch_exc is None:
        pytest.skip(f"torch accepts {name}{sample}")
    ours, ours_exc = run(ours_op(name), *build(sample, "cpu"))
    assert_same_error(name, torch_exc, ours_exc, f"on {sample}")


def test_samples_build_on_every_target() -> None:
    """The sample table itself: every sample builds for CPU and meta with identical metadata."""
    for name, info in OPS.items():
        for sample in info.samples + info.bad:
            cpu_args, cpu_kwargs = build(sample, "cpu")
            meta_args, meta_kwargs = build(sample, "meta")
            c = [x for x in flatten([*cpu_args, *cpu_kwargs.values()]) if isinstance(x, Tensor)]
            m = [x for x in flatten([*meta_args, *meta_kwargs.values()]) if isinstance(x, Tensor)]
            assert [(x._shape, x._stride, x.dtype) for x in c] == [(x._shape, x._stride, x.dtype) for x in m], name
            specs = [x for x in flatten(list(sample.args) + list(sample.kwargs.values())) if isinstance(x, T)]
            assert len(specs) == len(c), name


def test_samples_build_alike_for_torch(torch: Any) -> None:
    """Torch and dispatcher inputs of every sample have the same shapes, strides and values.

    (Storage offsets differ for sliced arrays: the torch input is a strided copy with the dispatcher's layout.)
    """
    for name, info in OPS.items():
        for sample in info.samples:
            t = [x for x in flatten(build(sample, "torch")[0]) if hasattr(x, "untyped_storage")]
            o = [x for x in flatten(build(sample, "cpu")[0]) if isinstance(x, Tensor)]
            assert [(tuple(x.shape), x.stride(), x.dtype.itemsize) for x in t] == [
                (tuple(x.shape), tuple(x.stride()), x.dtype.itemsize) for x in o], f"{name}{sample}"
            for a, b in zip(t, o):
                np.testing.assert_array_equal(a.numpy(), np.asarray(b._data), err_msg=name)


# ----------------------------------------------------------------------------------------------------------------
# random shapes / dtypes / layouts for the pointwise ops (hypothesis)

ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
LAYOUTS = ("contiguous", "transposed", "sliced")
# Failing examples are reported as found: shrinking them costs minutes over a whole listing.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


def _pointwise_arity(op: Any) -> int:
    """1 or 2 for pointwise ops taking only that many tensors (and defaulted extras), else 0."""
    if "pointwise" not in op.tags or "inplace" in op.tags:
        return 0
    args = [a for a in _schema_arguments(op.name) if not a.kwarg_only]
    tensors = [a for a in args if a.kind == "tensor"]
    if len(tensors) != len([a for a in args if not a.has_default]) or len(tensors) not in (1, 2):
        return 0
    return len(tensors)


POINTWISE = [pytest.param(op.name, _pointwise_arity(op), id=op.name) for op in NATIVE_FUNCTIONS
             if op.name in READY and _pointwise_arity(op)]


@pytest.mark.parametrize("name,arity", POINTWISE)
def test_pointwise_random_inputs(torch: Any, name: str, arity: int) -> None:
    """Random broadcastable shapes (incl. 0-dim and empty), every dtype, every layout: values, dtype, shape, stride."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import mutually_broadcastable_shapes

    tensor_spec = st.tuples(st.sampled_from(ALL_DTYPES), st.sampled_from(LAYOUTS))

    @settings(max_examples=25, deadline=None, derandomize=True, phases=NO_SHRINK)
    @given(shapes=mutually_broadcastable_shapes(num_shapes=arity, max_dims=3, min_side=0, max_side=4),
           specs=st.lists(tensor_spec, min_size=arity, max_size=arity), seed=st.integers(0, 2**16))
    def check(shapes: Any, specs: list, seed: int) -> None:
        sample = Sample(tuple(T(tuple(shape), dt, layout) for shape, (dt, layout) in zip(shapes.input_shapes, specs)))
        t_args, _ = build(sample, "torch", seed)
        theirs, torch_exc = run(torch_op(torch, name), t_args, {})
        ours, ours_exc = run(ours_op(name), build(sample, "cpu", seed)[0], {})
        if torch_exc is not None:
            assert_same_error(name, torch_exc, ours_exc, f"on {sample}")
            return
        skip_if_missing_kernel(ours_exc)
        assert ours_exc is None, f"{name}{sample}: torch succeeds, ours raises {type(ours_exc).__name__}: {ours_exc}"
        compare_outputs(name, sample, theirs, ours, values=True)

    check()


def _dim_list(dims: list[int], keepdim: bool) -> tuple[tuple, dict]:
    return (dims, keepdim), {}


def _one_dim(dims: list[int], keepdim: bool) -> tuple[tuple, dict]:
    return (dims[0] if dims else 0, keepdim), {}


REDUCTIONS = {
    "sum.dim_IntList": _dim_list, "mean.dim": _dim_list, "amax": _dim_list, "amin": _dim_list,
    "var.correction": lambda dims, keepdim: ((dims,), {"keepdim": keepdim}),
    "max.dim": _one_dim, "min.dim": _one_dim, "argmax": _one_dim, "argmin": _one_dim,
    "_softmax": lambda dims, keepdim: ((dims[0] if dims else 0, False), {}),
    "_log_softmax": lambda dims, keepdim: ((dims[0] if dims else 0, False), {}),
}


@pytest.mark.parametrize("name", [n for n in REDUCTIONS if n in READY])
def test_reduction_random_inputs(torch: Any, name: str) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import array_shapes

    dtypes = FLOAT_DTYPES if name.startswith("_") else ALL_DTYPES  # other dtypes: OPS[name].bad and samples

    @settings(max_examples=25, deadline=None, derandomize=True, phases=NO_SHRINK)
    @given(shape=array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4), dtype=st.sampled_from(dtypes),
           layout=st.sampled_from(LAYOUTS), keepdim=st.booleans(), data=st.data())
    def check(shape: tuple, dtype: str, layout: str, keepdim: bool, data: Any) -> None:
        ndim = max(len(shape), 1)
        dims = data.draw(st.lists(st.integers(-ndim, ndim - 1), max_size=2))
        args, kwargs = REDUCTIONS[name](dims, keepdim)
        sample = Sample((T(tuple(shape), dtype, layout),) + args, kwargs)
        theirs, torch_exc = run(torch_op(torch, name), *build(sample, "torch"))
        ours, ours_exc = run(ours_op(name), *build(sample, "cpu"))
        if torch_exc is not None:
            assert_same_error(name, torch_exc, ours_exc, f"on {sample}")
            return
        skip_if_missing_kernel(ours_exc)
        assert ours_exc is None, f"{name}{sample}: torch succeeds, ours raises {type(ours_exc).__name__}: {ours_exc}"
        compare_outputs(name, sample, theirs, ours, values=True)
        meta_out, meta_exc = run(ours_op(name), *build(sample, "meta"))
        assert meta_exc is None, f"{name}{sample}: meta raises {type(meta_exc).__name__}: {meta_exc}"
        for c, m in zip(flatten(ours), flatten(meta_out)):
            assert (c._shape, c._stride, c.dtype) == (m._shape, m._stride, m.dtype), f"{name}{sample}: meta vs CPU"

    check()
