"""Pointwise kernels (dispatcher/ops/pointwise.py) against torch 2.13: values, dtype, shape, strides, errors.

Every call goes through the dispatcher (``ops.aten.<name>.<overload>``) and through ``torch.ops.aten`` with the
same arguments; the outcomes must agree: the same result (values within float tolerance, same dtype, shape and
strides) or the same exception type and message. Each successful CPU call is repeated on meta tensors of the
same layout, which must give the CPU result's shape, dtype and strides.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dispatcher
from dispatcher import dtypes as _dt
from dispatcher.ops import aten
from dispatcher.ops.transcendental import erf_numpy
from dispatcher.tensor import Tensor, contiguous_strides, device

ALL = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
FLOATS = ("float16", "float32", "float64")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
META = device("meta")
CPU = device("cpu")


# --- building inputs ------------------------------------------------------------------------------


def _values(rng: np.random.Generator, n: int, dtype: str, kind: str = "normal") -> np.ndarray:
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype == "uint8":
        return rng.integers(0, 12, n).astype(np.uint8)
    if dtype.startswith("int"):
        return rng.integers(-6, 7, n).astype(dtype)
    x = rng.standard_normal(n) * 2.5
    if kind == "positive":
        x = np.abs(x) + 0.1
    # a few exact integers and halves so rounding modes and comparisons are exercised
    x[::3] = np.round(x[::3] * 2) / 2
    return x.astype(dtype)


def _layout_geometry(shape: tuple[int, ...], layout: str, perm_seed: int) -> tuple[int, tuple[int, ...], int]:
    """(storage size, strides, offset) of a tensor of ``shape`` laid out as ``layout``."""
    ndim = len(shape)
    if layout == "contiguous" or ndim == 0:
        return max(int(np.prod(shape)), 1), contiguous_strides(shape), 0
    if layout == "permuted":
        perm = list(np.random.default_rng(perm_seed).permutation(ndim))
        pshape = tuple(shape[p] for p in perm)
        pstride = contiguous_strides(pshape)
        stride = [0] * ndim
        for i, p in enumerate(perm):
            stride[p] = pstride[i]
        return max(int(np.prod(shape)), 1), tuple(stride), 0
    # "sliced": every other element along the last dim, from offset 1
    big = shape[:-1] + (2 * shape[-1] + 1,)
    stride = list(contiguous_strides(big))
    stride[-1] *= 2
    return max(int(np.prod(big)), 1), tuple(stride), 1


class Case:
    """One tensor argument: the same values as a torch tensor and as a dispatcher tensor (and a meta one)."""

    def __init__(self, shape: tuple[int, ...], dtype: str, layout: str = "contiguous", seed: int = 0,
                 kind: str = "normal") -> None:
        size, stride, offset = _layout_geometry(shape, layout, seed)
        self.shape, self.stride, self.offset, self.dtype = shape, stride, offset, dtype
        self.storage = _values(np.random.default_rng(seed), size, dtype, kind)

    def ours(self) -> Tensor:
        return Tensor._from_storage(self.storage.copy(), self.shape, self.stride, self.offset,
                                    _dt.from_code(self.dtype), CPU)

    def meta(self) -> Tensor:
        t = Tensor._empty(self.shape, _dt.from_code(self.dtype), META, self.stride)
        return t

    def torch(self, torch: Any) -> Any:
        base = torch.from_numpy(self.storage.copy())
        return base.as_strided(self.shape, self.stride, self.offset)


def _op(ns: Any, name: str) -> Any:
    base, _, overload = name.partition(".")
    return getattr(getattr(ns, base), overload or "default")


def _convert(args: tuple, kwargs: dict, target: str, torch: Any) -> tuple[tuple, dict]:
    def conv(a: Any) -> Any:
        if isinstance(a, Case):
            return a.torch(torch) if target == "torch" else (a.ours() if target == "cpu" else a.meta())
        return a

    return tuple(conv(a) for a in args), {k: conv(v) for k, v in kwargs.items()}


def _tol(dtype: str) -> dict[str, float]:
    return {
        "float16": {"rtol": 2e-3, "atol": 2e-3},
        "float32": {"rtol": 2e-5, "atol": 1e-6},
        "float64": {"rtol": 1e-10, "atol": 1e-12},
    }.get(dtype, {"rtol": 0, "atol": 0})


def assert_same_tensor(ours: Tensor, ref: Any, tol: dict | None = None) -> None:
    assert repr(ours.dtype) == str(ref.dtype)
    assert tuple(ours.shape) == tuple(ref.shape)
    assert tuple(ours.stride()) == tuple(ref.stride()), (ours.stride(), ref.stride())
    name = ours.dtype.name
    got = np.asarray(ours._data)
    want = ref.numpy()
    if name in FLOATS:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), equal_nan=True,
                                   **(tol or _tol(name)))
    else:
        np.testing.assert_array_equal(got, want)


def check(torch: Any, name: str, *args: Any, tol: dict | None = None, **kwargs: Any) -> Any:
    """Run ``name`` on torch and on ours; require the same result or the same error. Returns ours (or None)."""
    targs, tkwargs = _convert(args, kwargs, "torch", torch)
    oargs, okwargs = _convert(args, kwargs, "cpu", torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref = _op(torch.ops.aten, name)(*targs, **tkwargs)
        except Exception as e:  # noqa: BLE001 - the oracle's error is what we compare with
            with pytest.raises(type(e)) as info:
                _op(aten, name)(*oargs, **okwargs)
            assert str(info.value) == str(e).split("\n")[0], (str(info.value), str(e))
            return None
        ours = _op(aten, name)(*oargs, **okwargs)
    assert_same_tensor(ours, ref, tol)
    # meta: same layout as our CPU result, nothing computed
    margs, mkwargs = _convert(args, kwargs, "meta", torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = _op(aten, name)(*margs, **mkwargs)
    assert m.device.type == "meta"
    assert (tuple(m.shape), m.stride(), m.dtype) == (tuple(ours.shape), ours.stride(), ours.dtype)
    return ours


# --- strategies -----------------------------------------------------------------------------------

dtypes = st.sampled_from(ALL)
layouts = st.sampled_from(("contiguous", "permuted", "sliced"))
seeds = st.integers(0, 2**16)


@st.composite
def broadcast_pair(draw: Any, n: int = 2) -> tuple[tuple[int, ...], ...]:
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=n, min_dims=0, max_dims=4, min_side=0, max_side=3))
    return shapes.input_shapes


def _case(shape: tuple[int, ...], dtype: str, layout: str, seed: int, kind: str = "normal") -> Case:
    return Case(tuple(shape), dtype, layout, seed, kind)


# --- binary tensor-tensor ops ---------------------------------------------------------------------

BINARY = (
    "add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "maximum", "minimum", "pow.Tensor_Tensor",
    "eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Tensor", "gt.Tensor", "ge.Tensor",
    "tanh_backward", "sigmoid_backward", "gelu_backward",
)


@pytest.mark.parametrize("name", BINARY)
@given(shapes=broadcast_pair(), dt=st.tuples(dtypes, dtypes), lay=st.tuples(layouts, layouts), seed=seeds)
@SETTINGS
def test_binary(torch: Any, name: str, shapes: Any, dt: Any, lay: Any, seed: int) -> None:
    if name == "gelu_backward" and (dt[0] != dt[1] or dt[0] not in FLOATS):
        dt = ("float32", "float32")  # other dtypes hit unrelated mkldnn messages in torch (tested separately)
    if name == "gelu_backward":
        shapes = (shapes[1], shapes[1])  # torch's mkldnn gelu_backward fails on broadcasting grads
    a = _case(shapes[0], dt[0], lay[0], seed)
    b = _case(shapes[1], dt[1], lay[1], seed + 1)
    check(torch, name, a, b)


@pytest.mark.parametrize("mode", ("trunc", "floor", None))
@given(shapes=broadcast_pair(), dt=st.tuples(dtypes, dtypes), lay=st.tuples(layouts, layouts), seed=seeds)
@SETTINGS
def test_div_mode(torch: Any, mode: Any, shapes: Any, dt: Any, lay: Any, seed: int) -> None:
    check(torch, "div.Tensor_mode", _case(shapes[0], dt[0], lay[0], seed),
          _case(shapes[1], dt[1], lay[1], seed + 1), rounding_mode=mode)


@pytest.mark.parametrize("name", ("add.Tensor", "sub.Tensor"))
@given(shapes=broadcast_pair(), dt=st.tuples(dtypes, dtypes), seed=seeds,
       alpha=st.sampled_from((1, 2, -3, 0, 1.5, -0.25, True, False)))
@SETTINGS
def test_alpha(torch: Any, name: str, shapes: Any, dt: Any, seed: int, alpha: Any) -> None:
    check(torch, name, _case(shapes[0], dt[0], "contiguous", seed), _case(shapes[1], dt[1], "permuted", seed + 1),
          alpha=alpha)


# --- tensor-scalar ops ----------------------------------------------------------------------------

SCALARS = (True, False, 0, 1, 2, -3, 1.5, -0.5, 2.0, 0.0)
TENSOR_SCALAR = (
    "add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "add.Scalar", "rsub.Scalar", "mul.Scalar",
    "div.Scalar", "pow.Tensor_Scalar", "eq.Scalar", "ne.Scalar", "lt.Scalar", "le.Scalar", "gt.Scalar",
    "ge.Scalar", "clamp_min", "clamp_max",
)


@pytest.mark.parametrize("name", TENSOR_SCALAR)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4), dt=dtypes, lay=layouts,
       seed=seeds, scalar=st.sampled_from(SCALARS))
@SETTINGS
def test_tensor_scalar(torch: Any, name: str, shape: Any, dt: str, lay: str, seed: int, scalar: Any) -> None:
    check(torch, name, _case(shape, dt, lay, seed), scalar)


@pytest.mark.parametrize("name", ("add.Scalar", "rsub.Scalar", "add.Tensor", "sub.Tensor"))
@given(dt=dtypes, scalar=st.sampled_from(SCALARS), alpha=st.sampled_from((1, 2, -1, 0.5, True)))
@SETTINGS
def test_scalar_alpha(torch: Any, name: str, dt: str, scalar: Any, alpha: Any) -> None:
    kwargs = {"alpha": alpha}
    check(torch, name, _case((2, 3), dt, "permuted", 3), scalar, *([alpha] if ".Scalar" in name else []),
          **({} if ".Scalar" in name else kwargs))


@given(dt=dtypes, scalar=st.sampled_from(SCALARS), seed=seeds,
       shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4), lay=layouts)
@SETTINGS
def test_pow_scalar_base(torch: Any, dt: str, scalar: Any, seed: int, shape: Any, lay: str) -> None:
    check(torch, "pow.Scalar", scalar, _case(shape, dt, lay, seed))


@pytest.mark.parametrize("mode", ("trunc", "floor"))
@given(dt=dtypes, scalar=st.sampled_from((2, -3, 1.5, -0.5, 0, 0.0)), seed=seeds, lay=layouts)
@SETTINGS
def test_div_mode_scalar(torch: Any, mode: str, dt: str, scalar: Any, seed: int, lay: str) -> None:
    check(torch, "div.Tensor_mode", _case((3, 4), dt, lay, seed), scalar, rounding_mode=mode)


@given(dt=dtypes, bounds=st.tuples(st.sampled_from((None, -1, 0, 2, -0.5, 1.5, True, float("nan"))),
                                   st.sampled_from((None, -2, 1, 3, 0.5, 2.5, False))),
       seed=seeds, lay=layouts, shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
@SETTINGS
def test_clamp_scalar(torch: Any, dt: str, bounds: Any, seed: int, lay: str, shape: Any) -> None:
    check(torch, "clamp", _case(shape, dt, lay, seed), *bounds)


# --- unary ops ------------------------------------------------------------------------------------

UNARY = (
    "neg", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "rsqrt", "abs", "reciprocal", "erf",
    "logical_not", "bitwise_not", "silu", "gelu",
)


@pytest.mark.parametrize("name", UNARY)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3), dt=dtypes, lay=layouts, seed=seeds)
@SETTINGS
def test_unary(torch: Any, name: str, shape: Any, dt: str, lay: str, seed: int) -> None:
    check(torch, name, _case(shape, dt, lay, seed))


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("approximate", ("none", "tanh"))
def test_gelu_and_backward(torch: Any, dt: str, approximate: str) -> None:
    x = _case((5, 7), dt, "permuted", 11)
    g = _case((5, 7), dt, "sliced", 12)
    check(torch, "gelu", x, approximate=approximate)
    check(torch, "gelu_backward", g, x, approximate=approximate)


@given(shapes=broadcast_pair(), dt=st.tuples(dtypes, dtypes), lay=st.tuples(layouts, layouts), seed=seeds,
       threshold=st.sampled_from((0, 0.5, -1, True)))
@SETTINGS
def test_threshold_backward(torch: Any, shapes: Any, dt: Any, lay: Any, seed: int, threshold: Any) -> None:
    check(torch, "threshold_backward", _case(shapes[0], dt[0], lay[0], seed),
          _case(shapes[1], dt[1], lay[1], seed + 1), threshold)


# --- ternary ops ----------------------------------------------------------------------------------


@given(shapes=broadcast_pair(3), dt=st.tuples(st.sampled_from(("bool", "bool", "uint8", "float32")), dtypes, dtypes),
       lay=st.tuples(layouts, layouts, layouts), seed=seeds)
@SETTINGS
def test_where(torch: Any, shapes: Any, dt: Any, lay: Any, seed: int) -> None:
    check(torch, "where.self", *(_case(s, d, la, seed + i) for i, (s, d, la) in enumerate(zip(shapes, dt, lay))))


@given(shapes=broadcast_pair(3), dt=st.tuples(dtypes, dtypes, dtypes), lay=st.tuples(layouts, layouts, layouts),
       seed=seeds, which=st.sampled_from(("both", "min", "max", "none")))
@SETTINGS
def test_clamp_tensor(torch: Any, shapes: Any, dt: Any, lay: Any, seed: int, which: str) -> None:
    x, lo, hi = (_case(s, d, la, seed + i) for i, (s, d, la) in enumerate(zip(shapes, dt, lay)))
    check(torch, "clamp.Tensor", x, lo if which in ("both", "min") else None, hi if which in ("both", "max") else None)


@given(shapes=broadcast_pair(), dt=dtypes, mask_dt=st.sampled_from(("bool", "bool", "uint8", "float32", "int64")),
       lay=st.tuples(layouts, layouts), seed=seeds, value=st.sampled_from((0, 1, -2, 1.5, True, float("nan"))))
@SETTINGS
def test_masked_fill(torch: Any, shapes: Any, dt: str, mask_dt: str, lay: Any, seed: int, value: Any) -> None:
    if dt not in FLOATS and value != value:
        value = 3
    x = _case(shapes[0], dt, lay[0], seed)
    mask = _case(shapes[1], mask_dt, lay[1], seed + 1)
    check(torch, "masked_fill.Scalar", x, mask, value)
    check(torch, "masked_fill.Tensor", x, mask, Case((), "float64" if isinstance(value, float) else "int64",
                                                      seed=seed))


def test_masked_fill_value_must_be_0_dim(torch: Any) -> None:
    x, mask = Case((2, 3), "float32"), Case((2, 3), "bool", seed=1)
    check(torch, "masked_fill.Tensor", x, mask, Case((1,), "float32", seed=2))
    check(torch, "masked_fill.Tensor", x, mask, Case((2, 3), "float32", seed=2))


# --- in-place ops ---------------------------------------------------------------------------------

INPLACE = ("add_.Tensor", "sub_.Tensor", "mul_.Tensor", "div_.Tensor")


def check_inplace(torch: Any, name: str, self_case: Case, *args: Any, **kwargs: Any) -> None:
    """In-place: the same values written into self (which is returned), or the same error."""
    t_self = self_case.torch(torch)
    o_self = self_case.ours()
    targs, tkwargs = _convert(args, kwargs, "torch", torch)
    oargs, okwargs = _convert(args, kwargs, "cpu", torch)
    try:
        ref = _op(torch.ops.aten, name)(t_self, *targs, **tkwargs)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as info:
            _op(aten, name)(o_self, *oargs, **okwargs)
        assert str(info.value) == str(e).split("\n")[0]
        return
    ours = _op(aten, name)(o_self, *oargs, **okwargs)
    assert ours is o_self and ref is t_self
    assert_same_tensor(o_self, t_self)
    m_self = self_case.meta()
    margs, mkwargs = _convert(args, kwargs, "meta", torch)
    assert _op(aten, name)(m_self, *margs, **mkwargs) is m_self


@pytest.mark.parametrize("name", INPLACE)
@given(shapes=broadcast_pair(), dt=st.tuples(dtypes, dtypes), lay=st.tuples(layouts, layouts), seed=seeds)
@SETTINGS
def test_inplace_binary(torch: Any, name: str, shapes: Any, dt: Any, lay: Any, seed: int) -> None:
    check_inplace(torch, name, _case(shapes[0], dt[0], lay[0], seed), _case(shapes[1], dt[1], lay[1], seed + 1))


@pytest.mark.parametrize("name", ("add_.Tensor", "sub_.Tensor", "mul_.Tensor", "div_.Tensor", "div_.Scalar"))
@given(dt=dtypes, scalar=st.sampled_from(SCALARS), lay=layouts, seed=seeds)
@SETTINGS
def test_inplace_scalar(torch: Any, name: str, dt: str, scalar: Any, lay: str, seed: int) -> None:
    check_inplace(torch, name, _case((3, 4), dt, lay, seed), scalar)


@given(dt=dtypes, lay=layouts, seed=seeds, shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
@SETTINGS
def test_relu_(torch: Any, dt: str, lay: str, seed: int, shape: Any) -> None:
    check_inplace(torch, "relu_", _case(shape, dt, lay, seed))


@given(shapes=broadcast_pair(), dt=dtypes, lay=layouts, seed=seeds, value=st.sampled_from((0, -1, 2.5, True)))
@SETTINGS
def test_masked_fill_(torch: Any, shapes: Any, dt: str, lay: str, seed: int, value: Any) -> None:
    check_inplace(torch, "masked_fill_.Scalar", _case(shapes[0], dt, lay, seed),
                  _case(shapes[1], "bool", "contiguous", seed + 1), value)


def test_inplace_through_view_updates_base() -> None:
    base = dispatcher.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    view = aten.slice.Tensor(base, 1, 1, 3)
    aten.add_.Tensor(view, 100.0)
    aten.relu_(base)
    np.testing.assert_array_equal(base.numpy()[:, 1:3], np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1:3] + 100)


# --- specific behaviours and error messages -----------------------------------------------------


ERROR_CASES = [
    ("neg", (Case((2,), "bool"),), {}),
    ("sub.Tensor", (Case((2,), "bool"), Case((2,), "bool", seed=1)), {}),
    ("sub.Tensor", (Case((2,), "int64"), True), {}),
    ("rsub.Scalar", (Case((2,), "bool"), 1), {}),
    ("add.Tensor", (Case((2,), "int64"), Case((2,), "int64")), {"alpha": 1.5}),
    ("add.Tensor", (Case((2,), "float32"), Case((2,), "float32")), {"alpha": True}),
    ("add.Tensor", (Case((2,), "float32"), Case((3,), "float32")), {}),
    ("mul.Tensor", (Case((2, 3), "float32"), Case((4, 1, 2), "float32")), {}),
    ("pow.Tensor_Scalar", (Case((2,), "int64"), -1), {}),
    ("pow.Tensor_Scalar", (Case((2,), "bool"), -2), {}),
    ("pow.Tensor_Tensor", (Case((2,), "bool"), Case((2,), "bool")), {}),
    ("where.self", (Case((2,), "float32"), Case((2,), "float32"), Case((2,), "float32")), {}),
    ("where.self", (Case((2,), "int64"), Case((2,), "float32"), Case((2,), "float32")), {}),
    ("masked_fill.Scalar", (Case((2,), "float32"), Case((2,), "int64"), 1.0), {}),
    ("masked_fill.Scalar", (Case((2,), "float32"), Case((2,), "float16"), 1.0), {}),
    ("clamp", (Case((2,), "float32"),), {}),
    ("clamp.Tensor", (Case((2,), "float32"),), {}),
    ("clamp", (Case((2,), "bool"), False, True), {}),
    ("div.Tensor_mode", (Case((2,), "float32"), 2), {"rounding_mode": "round"}),
    ("div.Tensor_mode", (Case((2,), "int64"), 0), {"rounding_mode": "floor"}),
    ("div.Tensor_mode", (Case((2,), "int32"), 0), {"rounding_mode": "trunc"}),
    ("div.Tensor_mode", (Case((2,), "bool"), Case((2,), "bool")), {"rounding_mode": "trunc"}),
    ("gelu", (Case((2,), "float32"),), {"approximate": "sigmoid"}),
    ("gelu", (Case((2,), "int64"),), {}),
    ("silu", (Case((2,), "int32"),), {}),
    ("abs", (Case((2,), "bool"),), {}),
    ("relu", (Case((2,), "bool"),), {}),
    ("bitwise_not", (Case((2,), "float16"),), {}),
    ("tanh_backward", (Case((2,), "int64"), Case((2,), "int64")), {}),
    ("sigmoid_backward", (Case((2,), "bool"), Case((2,), "bool")), {}),
    ("threshold_backward", (Case((2,), "bool"), Case((2,), "bool"), 0), {}),
    # Scalar -> element conversions are overflow-checked (c10's checked_convert)
    ("add.Tensor", (Case((2,), "int8"), Case((2,), "int8")), {"alpha": 300}),
    ("add.Tensor", (Case((2,), "float16"), Case((2,), "float16")), {"alpha": 1e6}),
    ("clamp", (Case((2,), "int8"), 300), {}),
    ("clamp_min", (Case((2,), "uint8"), -256), {}),
    ("masked_fill.Scalar", (Case((2,), "int16"), Case((2,), "bool"), 1e6), {}),
    ("masked_fill.Scalar", (Case((2,), "float32"), Case((2,), "bool"), 1e300), {}),
    ("masked_fill.Scalar", (Case((2,), "int32"), Case((2,), "bool"), float("nan")), {}),
    ("threshold_backward", (Case((2,), "int8"), Case((2,), "int8"), 1000), {}),
]


@pytest.mark.parametrize("name,args,kwargs", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors(torch: Any, name: str, args: tuple, kwargs: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        targs, tkwargs = _convert(args, kwargs, "torch", torch)
        with pytest.raises(Exception) as ref:
            _op(torch.ops.aten, name)(*targs, **tkwargs)
    oargs, okwargs = _convert(args, kwargs, "cpu", torch)
    with pytest.raises(ref.type) as info:
        _op(aten, name)(*oargs, **okwargs)
    assert str(info.value) == str(ref.value).split("\n")[0]


INPLACE_ERRORS = [
    ("add_.Tensor", Case((2,), "int64"), (Case((2,), "float32"),), {}),
    ("add_.Tensor", Case((2,), "float32"), (Case((2, 2), "float32"),), {}),
    ("add_.Tensor", Case((2,), "int64"), (Case((2,), "int64"),), {"alpha": 2.5}),
    ("mul_.Tensor", Case((2,), "int64"), (1.5,), {}),
    ("div_.Tensor", Case((2,), "int64"), (2,), {}),
    ("div_.Scalar", Case((2,), "int32"), (2,), {}),
    ("sub_.Tensor", Case((2,), "bool"), (Case((2,), "bool"),), {}),
    ("masked_fill_.Scalar", Case((2,), "float32"), (Case((2, 2), "bool"), 1.5), {}),
    ("masked_fill_.Scalar", Case((2,), "float32"), (Case((2,), "uint8"), 1.5), {}),
    ("relu_", Case((2,), "bool"), (), {}),
]


@pytest.mark.parametrize("name,self_case,args,kwargs", INPLACE_ERRORS, ids=[c[0] for c in INPLACE_ERRORS])
def test_inplace_errors(torch: Any, name: str, self_case: Case, args: tuple, kwargs: dict) -> None:
    with pytest.raises(Exception):  # noqa: B017 - check_inplace compares the exact error
        _op(torch.ops.aten, name)(self_case.torch(torch), *_convert(args, kwargs, "torch", torch)[0], **kwargs)
    check_inplace(torch, name, self_case, *args, **kwargs)


def test_meta_does_not_raise_cpu_only_errors(torch: Any) -> None:
    """Errors PyTorch raises inside CPU kernels (dtype dispatch, zero division) do not fire on meta."""
    for name, case, extra in (("abs", Case((2,), "bool"), ()), ("relu", Case((2,), "bool"), ()),
                              ("pow.Tensor_Scalar", Case((2,), "int64"), (-1,)),
                              ("div.Tensor_mode", Case((2,), "int64"), (0,))):
        kwargs = {"rounding_mode": "floor"} if name == "div.Tensor_mode" else {}
        ref = _op(torch.ops.aten, name)(case.torch(torch).to("meta"), *extra, **kwargs)
        ours = _op(aten, name)(case.meta(), *extra, **kwargs)
        assert repr(ours.dtype) == str(ref.dtype) and tuple(ours.shape) == tuple(ref.shape)


def test_where_uint8_condition_warns(torch: Any) -> None:
    cond, a, b = Case((3,), "uint8"), Case((3,), "float32", seed=1), Case((3,), "int64", seed=2)
    with pytest.warns(UserWarning, match="where received a uint8 condition tensor"):
        aten.where.self(cond.ours(), a.ours(), b.ours())


def test_type_promotion_examples(torch: Any) -> None:
    i = Case((2, 2), "int64")
    assert check(torch, "add.Tensor", i, 2.5).dtype is dispatcher.float32
    assert check(torch, "div.Tensor", i, Case((2, 2), "int64", seed=5)).dtype is dispatcher.float32
    assert check(torch, "sin", i).dtype is dispatcher.float32
    assert check(torch, "eq.Scalar", i, 1.5).dtype is dispatcher.bool
    assert check(torch, "neg", Case((2,), "uint8")).dtype is dispatcher.uint8
    assert check(torch, "abs", Case((2,), "int8")).dtype is dispatcher.int8


def test_default_dtype_float64_for_int_unary(torch: Any) -> None:
    old_t, old_o = torch.get_default_dtype(), _dt.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    _dt.set_default_dtype(_dt.float64)
    try:
        assert check(torch, "exp", Case((3,), "int32")).dtype is dispatcher.float64
        assert check(torch, "mul.Tensor", Case((3,), "int32"), 0.5).dtype is dispatcher.float64
    finally:
        torch.set_default_dtype(old_t)
        _dt.set_default_dtype(old_o)


def test_clamp_min_greater_than_max(torch: Any) -> None:
    x = Case((4, 3), "float32", "permuted", 2)
    assert check(torch, "clamp", x, 1.0, -1.0) is not None
    assert check(torch, "clamp.Tensor", x, Case((3,), "float32", seed=1), Case((4, 1), "float32", seed=2)) is not None


def test_float16_rounding_matches(torch: Any) -> None:
    x = Case((64,), "float16", seed=7)
    for name in ("exp", "sigmoid", "tanh", "silu", "gelu", "erf", "rsqrt", "reciprocal"):
        check(torch, name, x)
    check(torch, "add.Tensor", x, Case((64,), "float16", seed=8), alpha=3)
    check(torch, "div.Tensor_mode", x, 0.3, rounding_mode="floor")


def test_erf_numpy_accuracy(torch: Any) -> None:
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, -0.0, 1e-300, 3.0, -3.0, 5.92, 30.0, np.inf, -np.inf]])
    ref = torch.erf(torch.from_numpy(x)).numpy()
    got = erf_numpy(x)
    np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-300)
    assert np.isnan(erf_numpy(np.array([np.nan]))[0])


@pytest.mark.parametrize("dt", ("uint8", "int8", "int64", "float16", "float32"))
@pytest.mark.parametrize("value", (-255, -1, 127, 255, 2.5, float("inf")))
def test_scalar_conversions_in_range(torch: Any, dt: str, value: Any) -> None:
    """Values PyTorch accepts (negative ints wrap into unsigned types; inf fills floats) agree."""
    check(torch, "masked_fill.Scalar", Case((3,), dt), Case((3,), "bool", seed=1), value)
    check(torch, "add.Tensor", Case((3,), dt), Case((3,), dt, seed=2), alpha=value if dt in FLOATS else 1)
    check(torch, "clamp", Case((3,), dt), value)


def test_mixed_dtype_inputs_are_converted_before_layout(torch: Any) -> None:
    """On CPU, TensorIterator converts inputs to the common dtype first (a preserve-format copy)."""
    a = Case((3, 4), "int32", "sliced", 1)
    b = Case((3, 4), "float32", "permuted", 2)
    check(torch, "add.Tensor", a, b)
    check(torch, "div.Tensor", a, Case((3, 4), "int64", "permuted", 3))
    check(torch, "lt.Tensor", a, b)
    check(torch, "where.self", Case((3, 4), "uint8", "sliced", 4), b, a)


def test_zero_size_and_0_dim(torch: Any) -> None:
    check(torch, "add.Tensor", Case((0, 3), "float32"), Case((3,), "float32", seed=1))
    check(torch, "mul.Tensor", Case((), "int64"), Case((), "float64", seed=1))
    check(torch, "where.self", Case((), "bool"), Case((2, 0), "float32"), 1.0 if False else Case((), "float32"))
