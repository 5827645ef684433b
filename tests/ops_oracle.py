"""Run one aten op on torch and on dispatcher with the same arguments and compare everything.

Used by test_ops_reductions.py, test_ops_linalg.py and test_ops_nn.py. Arguments are
NumPy arrays (tensors: torch.from_numpy / dispatcher.from_numpy keep the array's
layout, so transposed / sliced arrays give non-contiguous tensors on both sides),
``D("float32")`` dtype placeholders, and plain Python values. ``compare`` checks
values, dtype, shape and strides, then reruns ours on meta tensors with the same
layouts and checks the metadata again; if torch raises, ours must raise the same
exception type with the same message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import dispatcher
from dispatcher import dtypes as _dt
from dispatcher.api.from_data import from_numpy
from dispatcher.ops import aten
from dispatcher.tensor import Tensor, device

INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
FLOAT_DTYPES = ("float16", "float32", "float64")
ALL_DTYPES = ("bool",) + INT_DTYPES + FLOAT_DTYPES

TOL = {"float16": (2e-3, 2e-3), "float32": (1e-5, 1e-5), "float64": (1e-10, 1e-12)}


@dataclass(frozen=True)
class D:
    """A dtype placeholder."""

    name: str


def make_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, layout: str = "contiguous") -> np.ndarray:
    """Random values of ``dtype`` in ``layout``: "contiguous", "transposed" (reversed dims) or "sliced" (step 2)."""
    if layout == "transposed":
        return make_array(rng, tuple(reversed(shape)), dtype).T
    if layout == "sliced" and shape:
        big = make_array(rng, shape[:-1] + (shape[-1] * 2,), dtype)
        return big[..., ::2]
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in INT_DTYPES:
        lo = 0 if dtype == "uint8" else -5
        return np.asarray(rng.integers(lo, 6, size=shape)).astype(dtype)
    return np.asarray(rng.standard_normal(shape)).astype(dtype)


def ours_from_numpy(a: np.ndarray) -> Tensor:
    """Like ``torch.from_numpy``: keep NumPy's strides exactly, even a size-1 dim's (dispatcher's from_numpy
    normalizes C-contiguous arrays to contiguous strides)."""
    t = from_numpy(a)
    want = tuple(s // a.itemsize for s in a.strides)
    if t._stride == want:
        return t
    if a.size == 0:
        return Tensor._from_storage(np.zeros(0, a.dtype), tuple(a.shape), want, 0, t._dtype, device("cpu"))
    base = a
    while isinstance(base.base, np.ndarray):
        base = base.base
    storage = base.reshape(-1)
    offset = (a.__array_interface__["data"][0] - storage.__array_interface__["data"][0]) // a.itemsize
    return Tensor._from_storage(storage, tuple(a.shape), want, offset, t._dtype, device("cpu"))


def _convert(x: Any, target: str, torch: Any) -> Any:
    if isinstance(x, np.ndarray):
        if target == "torch":
            return torch.from_numpy(x)
        t = ours_from_numpy(x)
        if target == "meta":
            return Tensor._empty(t._shape, t._dtype, device("meta"), t._stride)
        return t
    if isinstance(x, D):
        return getattr(torch, x.name) if target == "torch" else getattr(dispatcher, x.name)
    if isinstance(x, (list, tuple)) and any(isinstance(v, (np.ndarray, D)) for v in x):
        return type(x)(_convert(v, target, torch) for v in x)
    return x


def _torch_op(torch: Any, name: str) -> Any:
    base, _, overload = name.partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def _our_op(name: str) -> Any:
    base, _, overload = name.partition(".")
    return getattr(getattr(aten, base), overload or "default")


def _as_list(out: Any) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def check_same(ours: Any, theirs: Any, rtol: float | None = None, atol: float | None = None,
               values: bool = True, strides: bool = True) -> None:
    """``ours`` (a dispatcher tensor or None) equals ``theirs`` (a torch tensor or None)."""
    if theirs is None:
        assert ours is None
        return
    assert isinstance(ours, Tensor), type(ours)
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", ""), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    if strides:
        assert ours.stride() == theirs.stride(), (ours.stride(), theirs.stride())
    if not values:
        return
    got = ours.numpy()
    want = theirs.numpy()
    if ours.dtype.is_floating_point:
        r, a = TOL[ours.dtype.name]
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=rtol if rtol is not None else r, atol=atol if atol is not None else a)
    else:
        np.testing.assert_array_equal(got, want)


def check_meta(name: str, args: tuple, kwargs: dict, cpu_out: Any, torch: Any) -> None:
    """Ours on meta tensors with the CPU arguments' layouts: same shape / dtype / strides as ours on CPU."""
    meta_out = _our_op(name)(*_convert(args, "meta", torch), **_convert_kw(kwargs, "meta", torch))
    for m, c in zip(_as_list(meta_out), _as_list(cpu_out)):
        if c is None:
            assert m is None
            continue
        assert m.device.type == "meta"
        assert (m.dtype, tuple(m.shape), m.stride()) == (c.dtype, tuple(c.shape), c.stride())


def _convert_kw(kwargs: dict, target: str, torch: Any) -> dict:
    return {k: _convert(v, target, torch) for k, v in kwargs.items()}


def compare(torch: Any, name: str, *args: Any, rtol: float | None = None, atol: float | None = None,
            meta: bool = True, values: bool = True, strides: bool = True, **kwargs: Any) -> Any:
    """Run ``aten.<name>`` on torch and on ours; compare results (or errors). Returns ours."""
    try:
        expected = _torch_op(torch, name)(*_convert(args, "torch", torch), **_convert_kw(kwargs, "torch", torch))
    except Exception as e:  # noqa: BLE001 - the oracle's error is what we must reproduce
        check_error(name, args, kwargs, e, torch)
        return None
    ours = _our_op(name)(*_convert(args, "cpu", torch), **_convert_kw(kwargs, "cpu", torch))
    assert len(_as_list(ours)) == len(_as_list(expected))
    for o, t in zip(_as_list(ours), _as_list(expected)):
        check_same(o, t, rtol, atol, values, strides)
    if meta:
        check_meta(name, args, kwargs, ours, torch)
    return ours


def check_error(name: str, args: tuple, kwargs: dict, expected: Exception, torch: Any) -> None:
    try:
        _our_op(name)(*_convert(args, "cpu", torch), **_convert_kw(kwargs, "cpu", torch))
    except Exception as e:  # noqa: BLE001
        assert type(e).__name__ == type(expected).__name__, (e, expected)
        assert str(e) == str(expected).split("\nException raised from")[0], (str(e), str(expected))
        return
    raise AssertionError(f"torch raised {type(expected).__name__}: {expected}; ours did not")


def dtype_of(name: str) -> _dt.dtype:
    return getattr(_dt, name)
