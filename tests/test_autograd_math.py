"""Derivative formulas of the math ops (pointwise and reduction modules of autograd/derivatives/) against torch.

For every case the same program runs in torch and here, on the same inputs (float64 and float32):

* the gradients of every input that requires grad (``autograd.grad`` with the same random ``grad_output``)
  and the ``grad_fn`` name;
* the aten ops the backward pass calls, with their arguments, as a logging TorchDispatchMode sees them (the
  same mode class on both sides; PyTorch's formulas take their "tensor subclass" branches while a mode is
  active, and unpacking a saved output shows as ``aten.detach``). Tensor arguments are compared by shape,
  dtype *and values*, so an operand order that differs from PyTorch's fails even when the shapes agree;
* the same gradients without a mode (PyTorch's other branches, e.g. ``evenly_distribute_backward``'s
  ``masked_fill_`` path).

Ties get their own cases (maximum / clamp bounds / amax / max / max.dim): PyTorch splits or routes the
gradient by fixed rules, which the formulas must reproduce. Double backward (``create_graph=True``) of the
backward ops PyTorch differentiates is checked the same way.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dispatcher
from dispatcher.modes import TorchDispatchMode
from tests.test_frontend import _norm, _norm_kwargs

# --- recording with values ------------------------------------------------------------------------------------


def _snapshot(args: Any, kwargs: dict) -> list[np.ndarray]:
    """Copies of the values of every tensor argument (at call time: later in-place ops must not change them)."""
    out: list[np.ndarray] = []

    def walk(x: Any) -> None:
        if isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
        elif hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, np.ndarray):
            arr = x._data if isinstance(x, dispatcher.Tensor) else x.detach().numpy(force=True)
            out.append(np.array(arr, copy=True))

    walk(list(args))
    walk(list(kwargs.values()))
    return out


def _record_values(mode_cls: type, fn: Callable[[], Any], quiet: bool) -> tuple[list, list]:
    """The aten calls (and their tensor arguments' values) a logging ``mode_cls`` (a TorchDispatchMode) sees
    during ``fn()`` (warnings ignored with ``quiet``)."""
    log: list = []
    values: list = []

    class Log(mode_cls):  # type: ignore[misc, valid-type]
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            kwargs = kwargs or {}
            log.append((str(func), _norm(list(args)), _norm_kwargs(str(func), kwargs)))
            values.append(_snapshot(args, kwargs))
            return func(*args, **kwargs)

    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        with Log():
            fn()
    return log, values


def record_ours_values(fn: Callable[[], Any]) -> tuple[list, list]:
    """The aten calls (and their tensor arguments' values) a logging TorchDispatchMode sees here during ``fn()``."""
    return _record_values(TorchDispatchMode, fn, quiet=False)


def record_torch_values(torch: Any, fn: Callable[[], Any]) -> tuple[list, list]:
    from torch.utils._python_dispatch import TorchDispatchMode as TorchsMode

    return _record_values(TorchsMode, fn, quiet=True)


def _close(a: np.ndarray, b: np.ndarray, dtype: str) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "biu":
        return bool(np.array_equal(a, b))
    rtol, atol = (1e-10, 1e-12) if dtype == "float64" else (2e-5, 1e-6)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def _nan_safe(x: Any) -> Any:
    """NaN arguments compare equal (a logged ``('float', nan)`` is never ``==`` itself)."""
    if isinstance(x, float) and x != x:
        return "nan"
    if isinstance(x, (list, tuple)):
        return type(x)(_nan_safe(v) for v in x)
    if isinstance(x, dict):
        return {k: _nan_safe(v) for k, v in x.items()}
    return x


#: ops that write their first argument without reading it
_OVERWRITES_SELF = frozenset({"aten.fill_.Scalar", "aten.fill_.Tensor", "aten.zero_.default", "aten.copy_.default"})


def assert_same_calls(theirs: tuple[list, list], ours: tuple[list, list], dtype: str, what: str) -> None:
    (t_log, t_vals), (o_log, o_vals) = theirs, ours
    t_log, o_log = _nan_safe(t_log), _nan_safe(o_log)
    assert o_log == t_log, f"{what}: backward ops differ\n torch: {t_log}\n ours:  {o_log}"
    for i, (tv, ov) in enumerate(zip(t_vals, o_vals)):
        for k, (a, b) in enumerate(zip(tv, ov)):
            if k == 0 and t_log[i][0] in _OVERWRITES_SELF:
                continue  # uninitialised memory (empty_like) about to be overwritten
            assert _close(b, a, dtype), f"{what}: call {i} ({t_log[i][0]}) tensor argument {k} differs"


# --- running one case in both libraries ----------------------------------------------------------------------


@dataclass
class Case:
    """``fn(T, *tensors)`` with inputs built from ``arrays``; ``grad`` says which inputs require grad."""

    name: str
    fn: Callable[..., Any]
    arrays: list[Any]
    node: str | None  #: PyTorch's grad_fn name of the output (None: whatever torch's is)
    grad: tuple[int, ...] | None = None  #: indices of the inputs that require grad (default: all float inputs)
    dtypes: tuple[str, ...] = ("float64", "float32")
    extra: dict = field(default_factory=dict)


def _inputs(lib: Any, case: Case, dtype: str) -> tuple[list[Any], list[Any]]:
    tensors, leaves = [], []
    for i, arr in enumerate(case.arrays):
        a = np.asarray(arr)
        if a.dtype.kind == "f":
            a = a.astype(dtype)
        t = lib.from_numpy(np.array(a, copy=True))
        wants = (a.dtype.kind == "f") if case.grad is None else (i in case.grad)
        if wants:
            t.requires_grad_(True)
            leaves.append(t)
        tensors.append(t)
    return tensors, leaves


def _first(out: Any) -> Any:
    return out[0] if isinstance(out, (tuple, list)) else out


def _grad_output(shape: tuple[int, ...], dtype: str, seed: int = 1) -> np.ndarray:
    return np.asarray(np.random.default_rng(seed).standard_normal(shape)).astype(dtype)


def run_case(lib: Any, case: Case, dtype: str, record: Callable | None = None, create_graph: bool = False) -> dict:
    """Forward, then ``autograd.grad`` (optionally recorded); returns grads, grad_fn name, output, log."""
    tensors, leaves = _inputs(lib, case, dtype)
    out = case.fn(lib, *tensors)
    y = _first(out)
    go = lib.from_numpy(_grad_output(tuple(y.shape), str(y.dtype).replace("torch.", "")))
    result: dict[str, Any] = {"out": out, "node": type(y.grad_fn).__name__, "leaves": leaves}

    def backward() -> None:
        result["grads"] = lib.autograd.grad(y, leaves, go, allow_unused=True, create_graph=create_graph)

    if record is None:
        backward()
    else:
        result["log"] = record(backward)
    return result


def _np(t: Any) -> np.ndarray:
    if isinstance(t, dispatcher.Tensor):
        return np.asarray(t._data)
    return np.asarray(t.detach().numpy(force=True))  # force: a ZeroTensor gradient (sgn) has no plain .numpy()


def assert_same_grads(torch_res: dict, ours_res: dict, dtype: str, what: str) -> None:
    for k, (gt, go) in enumerate(zip(torch_res["grads"], ours_res["grads"])):
        assert (gt is None) == (go is None), f"{what}: gradient {k} defined in one library only"
        if gt is None:
            continue
        a, b = _np(gt), _np(go)
        assert str(go.dtype).replace("torch.", "") == str(gt.dtype).replace("torch.", ""), f"{what}: grad {k} dtype"
        assert _close(b, a, dtype), f"{what}: gradient {k} differs\n torch: {a}\n ours:  {b}"


def check_case(torch: Any, case: Case, dtype: str) -> None:
    what = f"{case.name} [{dtype}]"
    theirs = run_case(torch, case, dtype, record=lambda f: record_torch_values(torch, f))
    ours = run_case(dispatcher, case, dtype, record=record_ours_values)
    if case.node is not None:  # hypothesis cases leave the name to torch
        assert theirs["node"] == case.node, f"{what}: the case expects {case.node}, torch says {theirs['node']}"
    assert ours["node"] == theirs["node"], f"{what}: grad_fn {ours['node']}, torch's is {theirs['node']}"
    assert_same_grads(theirs, ours, dtype, what)
    assert_same_calls(theirs["log"], ours["log"], dtype, what)
    # No mode: PyTorch's non-subclass branches (in place, masked_select, item()) give the same values, or the
    # same error (clamp.Tensor's in-place logical_and_ cannot broadcast self's comparison to a bigger bound's).
    plain = []
    for lib in (torch, dispatcher):
        try:
            plain.append(run_case(lib, case, dtype))
        except RuntimeError as e:
            plain.append(e)
    if isinstance(plain[0], RuntimeError):
        assert isinstance(plain[1], RuntimeError), f"{what} without a mode: torch raises {plain[0]}, ours succeeds"
        assert str(plain[1]).splitlines()[0] == str(plain[0]).splitlines()[0], f"{what}: {plain[1]} vs {plain[0]}"
        return
    assert not isinstance(plain[1], RuntimeError), f"{what} without a mode: ours raises {plain[1]}"
    assert_same_grads(plain[0], plain[1], dtype, what + " without a mode")


# --- the cases ---------------------------------------------------------------------------------------------------

_rng = np.random.default_rng(0)


def _r(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def _pos(*shape: int) -> np.ndarray:
    return _rng.uniform(0.5, 2.0, shape)


A, B, V = _r(3, 4), _r(3, 4), _r(4)
MASK = _rng.random((3, 4)) > 0.5
TIES = np.array([[1.0, 2.0, 2.0, -1.0], [0.5, 0.5, 0.5, 0.5], [3.0, -2.0, 3.0, 1.0]])
TIES_OTHER = np.array([[1.0, 0.0, 2.0, -1.0], [0.5, 1.5, -0.5, 0.5], [2.0, -2.0, 3.0, 4.0]])
BOUNDS = np.array([[-0.5, 0.5, 0.0, -1.0], [0.25, -0.5, 0.5, 2.0], [-0.75, 0.5, -0.5, 0.1]])


def _t(lib: Any, arr: Any) -> Any:
    return lib.from_numpy(np.array(arr, copy=True))


def _pow_scalar(base: Any) -> Callable[..., Any]:
    return lambda T, e: T.pow(base, e)


CASES = [
    # --- unary
    Case("sqrt", lambda T, x: x.sqrt(), [_pos(3, 4)], "SqrtBackward0"),
    Case("rsqrt", lambda T, x: x.rsqrt(), [_pos(3, 4)], "RsqrtBackward0"),
    Case("reciprocal", lambda T, x: x.reciprocal(), [A], "ReciprocalBackward0"),
    Case("erf", lambda T, x: T.ops.aten.erf.default(x), [A], "ErfBackward0"),
    Case("abs", lambda T, x: x.abs(), [np.array([[-1.5, 0.0, 2.0], [0.5, -0.0, -3.0]])], "AbsBackward0"),
    Case("silu", lambda T, x: T.nn.functional.silu(x), [A], "SiluBackward0"),
    # --- pow
    Case("pow.Tensor_Tensor", lambda T, x, y: x.pow(y), [_pos(3, 4), B], "PowBackward1"),
    Case("pow.Tensor_Tensor broadcast", lambda T, x, y: x.pow(y), [_pos(3, 4), V], "PowBackward1"),
    Case("pow.Tensor_Tensor zeros", lambda T, x, y: x.pow(y),
         [np.array([0.0, 0.0, 0.0, 2.0]), np.array([0.0, 2.0, -1.0, 0.0])], "PowBackward1"),
    Case("pow.Tensor_Tensor exponent only", lambda T, x, y: x.pow(y), [_pos(3, 4), B], "PowBackward1", grad=(1,)),
    Case("pow.Tensor_Tensor float32 ** float64", lambda T, x, y: x.pow(y.double()), [_pos(3, 4), B],
         "PowBackward1", dtypes=("float32",)),
    Case("pow.Scalar", _pow_scalar(2.0), [B], "PowBackward2"),
    Case("pow.Scalar int base", _pow_scalar(3), [B], "PowBackward2"),
    Case("pow.Scalar zero base", _pow_scalar(0.0), [np.array([-1.0, 0.0, 2.0])], "PowBackward2"),
    Case("pow.Tensor_Scalar", lambda T, x: x.pow(3), [A], "PowBackward0"),
    Case("pow.Tensor_Scalar half", lambda T, x: x.pow(0.5), [_pos(3, 4)], "PowBackward0"),
    Case("pow.Tensor_Scalar zero", lambda T, x: x.pow(0), [A], "PowBackward0"),
    # --- maximum / minimum / where / masked_fill
    Case("maximum", lambda T, x, y: T.maximum(x, y), [A, B], "MaximumBackward0"),
    Case("maximum ties", lambda T, x, y: T.maximum(x, y), [TIES, TIES_OTHER], "MaximumBackward0"),
    Case("maximum broadcast", lambda T, x, y: T.maximum(x, y), [A, V], "MaximumBackward0"),
    Case("minimum ties", lambda T, x, y: T.minimum(x, y), [TIES, TIES_OTHER], "MinimumBackward0"),
    Case("minimum broadcast", lambda T, x, y: T.minimum(x, y), [V, A], "MinimumBackward0"),
    Case("where", lambda T, x, y: T.where(_t(T, MASK), x, y), [A, B], "WhereBackward0"),
    Case("where broadcast", lambda T, x, y: T.where(_t(T, MASK), x, y), [V, _r(3, 1)], "WhereBackward0"),
    Case("where other only", lambda T, x, y: T.where(_t(T, MASK), x, y), [A, B], "WhereBackward0", grad=(1,)),
    Case("masked_fill.Scalar", lambda T, x: x.masked_fill(_t(T, MASK), 0.5), [A], "MaskedFillBackward0"),
    Case("masked_fill.Scalar broadcast mask", lambda T, x: x.masked_fill(_t(T, MASK), 0.5), [V],
         "MaskedFillBackward0"),
    Case("masked_fill.Tensor", lambda T, x, v: x.masked_fill(_t(T, MASK), v), [A, np.array(2.0)],
         "MaskedFillBackward1"),
    # --- clamp
    Case("clamp", lambda T, x: x.clamp(-0.5, 0.5), [BOUNDS], "ClampBackward1"),
    Case("clamp min", lambda T, x: x.clamp(min=-0.5), [BOUNDS], "ClampBackward1"),
    Case("clamp max", lambda T, x: x.clamp(max=0.5), [BOUNDS], "ClampBackward1"),
    Case("clamp min > max", lambda T, x: x.clamp(0.5, -0.5), [BOUNDS], "ClampBackward1"),
    Case("clamp.Tensor", lambda T, x, lo, hi: x.clamp(lo, hi), [A, B - 1, B + 1], "ClampBackward0"),
    Case("clamp.Tensor ties", lambda T, x, lo, hi: x.clamp(lo, hi),
         [BOUNDS, np.full((3, 4), -0.5), np.full((3, 4), 0.5)], "ClampBackward0"),
    Case("clamp.Tensor min > max", lambda T, x, lo, hi: x.clamp(lo, hi), [A, B + 1, B - 1], "ClampBackward0"),
    Case("clamp.Tensor broadcast", lambda T, x, lo, hi: x.clamp(lo, hi), [A, _r(4) - 1, _r(3, 1) + 1],
         "ClampBackward0"),
    Case("clamp.Tensor bounds bigger than self", lambda T, x, lo, hi: x.clamp(lo, hi), [V, B - 1, B + 1],
         "ClampBackward0"),
    Case("clamp.Tensor min only", lambda T, x, lo: x.clamp(min=lo), [A, B], "ClampBackward0"),
    Case("clamp.Tensor max only", lambda T, x, hi: x.clamp(max=hi), [A, B], "ClampBackward0"),
    Case("clamp.Tensor bounds only", lambda T, x, lo, hi: x.clamp(lo, hi), [A, B - 1, B + 1], "ClampBackward0",
         grad=(1, 2)),
    Case("clamp_min", lambda T, x: T.ops.aten.clamp_min.default(x, 0.5), [BOUNDS], "ClampMinBackward0"),
    Case("clamp_max", lambda T, x: T.ops.aten.clamp_max.default(x, -0.5), [BOUNDS], "ClampMaxBackward0"),
    # --- arithmetic
    Case("add.Tensor alpha", lambda T, x, y: T.add(x, y, alpha=2), [A, V], "AddBackward0"),
    Case("add.Scalar", lambda T, x: T.ops.aten.add.Scalar(x, 3, 2), [A], "AddBackward1"),
    Case("sub.Tensor alpha", lambda T, x, y: T.sub(x, y, alpha=0.5), [A, B], "SubBackward0"),
    Case("rsub.Scalar", lambda T, x: T.ops.aten.rsub.Scalar(x, 2, 3), [A], "RsubBackward1"),
    Case("mul.Tensor", lambda T, x, y: x * y, [A, V], "MulBackward0"),
    Case("mul.Scalar", lambda T, x: T.ops.aten.mul.Scalar(x, 3), [A], "MulBackward1"),
    Case("div.Tensor", lambda T, x, y: x / y, [A, _pos(4)], "DivBackward0"),
    Case("div.Scalar", lambda T, x: T.ops.aten.div.Scalar(x, 3), [A], "DivBackward1"),
    Case("div.Tensor_mode floor", lambda T, x, y: T.div(x, y, rounding_mode="floor"), [A, _pos(3, 4)],
         "DivBackward2"),
    Case("div.Tensor_mode trunc", lambda T, x, y: T.div(x, y, rounding_mode="trunc"), [A, _pos(4)], "DivBackward2"),
    Case("div.Tensor_mode None", lambda T, x, y: T.ops.aten.div.Tensor_mode(x, y, rounding_mode=None),
         [A, _pos(3, 4)], "DivBackward2"),
    # --- matrix products
    Case("mm", lambda T, x, y: T.mm(x, y), [A, _r(4, 5)], "MmBackward0"),
    Case("mm column-major", lambda T, x, y: T.mm(x.t(), y.t()), [_r(4, 3), _r(5, 4)], "MmBackward0"),
    Case("addmm", lambda T, b, x, y: T.addmm(b, x, y, beta=2, alpha=0.5), [_r(5), A, _r(4, 5)], "AddmmBackward0"),
    Case("linear", lambda T, x, w, b: T.nn.functional.linear(x, w, b), [A, _r(5, 4), _r(5)], "AddmmBackward0"),
    Case("bmm", lambda T, x, y: T.bmm(x, y), [_r(2, 3, 4), _r(2, 4, 5)], "BmmBackward0"),
    Case("baddbmm", lambda T, s, x, y: T.ops.aten.baddbmm.default(s, x, y, beta=2, alpha=3),
         [_r(2, 3, 5), _r(2, 3, 4), _r(2, 4, 5)], "BaddbmmBackward0"),
    Case("baddbmm broadcast self", lambda T, s, x, y: T.ops.aten.baddbmm.default(s, x, y),
         [_r(5), _r(2, 3, 4), _r(2, 4, 5)], "BaddbmmBackward0"),
    Case("mv", lambda T, m, v: T.mv(m, v), [A, V], "MvBackward0"),
    Case("dot", lambda T, x, y: T.dot(x, y), [V, _r(4)], "DotBackward0"),
    # --- reductions
    Case("sum.dim_IntList", lambda T, x: x.sum(-1), [A], "SumBackward1"),
    Case("sum.dim_IntList two dims", lambda T, x: x.sum((0, -1)), [_r(2, 3, 4)], "SumBackward1"),
    Case("sum.dim_IntList keepdim", lambda T, x: x.sum(1, keepdim=True), [A], "SumBackward1"),
    Case("sum.dim_IntList empty dims", lambda T, x: T.ops.aten.sum.dim_IntList(x, []), [A], "SumBackward1"),
    Case("mean.dim", lambda T, x: x.mean(1), [A], "MeanBackward1"),
    Case("mean.dim two dims", lambda T, x: x.mean((0, -1)), [_r(2, 3, 4)], "MeanBackward1"),
    Case("mean.dim keepdim", lambda T, x: x.mean(-1, keepdim=True), [A], "MeanBackward1"),
    Case("mean.dim None", lambda T, x: T.ops.aten.mean.dim(x, None), [A], "MeanBackward1"),
    Case("amax", lambda T, x: x.amax(1), [A], "AmaxBackward0"),
    Case("amax ties", lambda T, x: x.amax(1), [TIES], "AmaxBackward0"),
    Case("amax all", lambda T, x: x.amax(), [TIES], "AmaxBackward0"),
    Case("amax keepdim", lambda T, x: x.amax(-1, keepdim=True), [TIES], "AmaxBackward0"),
    Case("amin two dims", lambda T, x: x.amin((0, -1)), [_r(2, 3, 4)], "AminBackward0"),
    Case("amin ties", lambda T, x: x.amin(0), [TIES], "AminBackward0"),
    Case("max", lambda T, x: x.max(), [A], "MaxBackward1"),
    Case("max ties", lambda T, x: x.max(), [TIES], "MaxBackward1"),
    Case("max nan", lambda T, x: x.max(), [np.array([1.0, np.nan, 3.0, np.nan])], "MaxBackward1"),
    Case("min ties", lambda T, x: x.min(), [TIES], "MinBackward1"),
    Case("max.dim", lambda T, x: x.max(1), [A], "MaxBackward0"),
    Case("max.dim ties", lambda T, x: x.max(-1), [TIES], "MaxBackward0"),
    Case("max.dim keepdim", lambda T, x: x.max(0, keepdim=True), [TIES], "MaxBackward0"),
    Case("max.dim 0-dim", lambda T, x: x.max(0), [np.array(2.5)], "MaxBackward0"),
    Case("min.dim ties", lambda T, x: x.min(1), [TIES], "MinBackward0"),
    Case("var.correction", lambda T, x: T.ops.aten.var.correction(x, [1]), [A], "VarBackward0"),
    Case("var.correction all", lambda T, x: T.ops.aten.var.correction(x), [A], "VarBackward0"),
    Case("var.correction keepdim", lambda T, x: T.ops.aten.var.correction(x, [0], correction=0, keepdim=True),
         [A], "VarBackward0"),
    Case("var.correction two dims", lambda T, x: T.ops.aten.var.correction(x, [-1, 0], correction=2), [_r(2, 3, 4)],
         "VarBackward0"),
    Case("var.correction 1-d", lambda T, x: T.ops.aten.var.correction(x, [0]), [V], "VarBackward0"),
    Case("var.correction dof <= 0", lambda T, x: T.ops.aten.var.correction(x, None, correction=12), [A],
         "VarBackward0"),
    # a reduction in another dtype: the engine casts the gradient back (validate_outputs' _to_copy)
    Case("mean.dim dtype", lambda T, x: T.ops.aten.mean.dim(x, [1], dtype=T.float64), [A], "MeanBackward1",
         dtypes=("float32",)),
    Case("sum.dim_IntList dtype", lambda T, x: T.ops.aten.sum.dim_IntList(x, [0], dtype=T.float64), [A],
         "SumBackward1", dtypes=("float32",)),
    # --- ops the formulas call, differentiable themselves
    Case("sgn", lambda T, x: T.ops.aten.sgn.default(x), [A], "SgnBackward0"),
    Case("sub.Scalar", lambda T, x: T.ops.aten.sub.Scalar(x, 2, 3), [A], "SubBackward1"),
    Case("masked_select", lambda T, x: T.ops.aten.masked_select.default(x, _t(T, MASK)), [A], "MaskedSelectBackward0"),
    Case("masked_select broadcast", lambda T, x: T.ops.aten.masked_select.default(x, _t(T, MASK)), [_r(3, 1)], "MaskedSelectBackward0"),
    Case("masked_scatter", lambda T, x, s: T.ops.aten.masked_scatter.default(x, _t(T, MASK), s), [A, _r(12)], "MaskedScatterBackward0"),
    Case("masked_scatter broadcast", lambda T, x, s: T.ops.aten.masked_scatter.default(x, _t(T, MASK), s), [V, _r(3, 5)],
         "MaskedScatterBackward0"),
    Case("masked_scatter_backward", lambda T, g: T.ops.aten.masked_scatter_backward.default(g, _t(T, MASK), [4, 5]),
         [A], "MaskedScatterBackwardBackward0"),
    Case("gather", lambda T, x, i: T.ops.aten.gather.default(x, 1, i), [A, np.array([[0, 0], [3, 1], [2, 2]])], "GatherBackward0"),
    Case("scatter.src", lambda T, x, i, s: T.ops.aten.scatter.src(x, 1, i, s), [A, np.array([[0, 2], [3, 1], [2, 0]]), _r(3, 2)],
         "ScatterBackward0"),
    Case("scatter.value", lambda T, x, i: T.ops.aten.scatter.value(x, 0, i, 2.5), [A, np.array([[0, 2, 1, 1]])], "ScatterBackward1"),
    Case("scatter_add", lambda T, x, i, s: T.ops.aten.scatter_add.default(x, 1, i, s), [A, np.array([[0, 0], [3, 1], [2, 2]]), _r(3, 2)],
         "ScatterAddBackward0"),
    Case("scatter_.src", lambda T, x, i, s: T.ops.aten.scatter_.src(x * 1, 1, i, s), [A, np.array([[0, 2], [3, 1], [2, 0]]),
                                                                         _r(3, 2)], "ScatterBackward0"),
    Case("scatter_add_", lambda T, x, i, s: T.ops.aten.scatter_add_.default(x * 1, 0, i, s), [A, np.array([[0, 2, 1, 1]]), _r(1, 4)],
         "ScatterAddBackward0"),
    Case("masked_fill_.Tensor", lambda T, x, v: (x * 1).masked_fill_(_t(T, MASK), v), [A, np.array(2.0)],
         "MaskedFillBackward1"),
    Case("masked_scatter_", lambda T, x, s: T.ops.aten.masked_scatter_.default(x * 1, _t(T, MASK), s), [A, _r(12)],
         "MaskedScatterBackward0"),
]


def _params(cases: list[Case]) -> list[Any]:
    return [pytest.param(c, dtype, id=f"{c.name}-{dtype}") for c in cases for dtype in c.dtypes]


@pytest.mark.parametrize(("case", "dtype"), _params(CASES))
def test_gradients_and_backward_ops(torch: Any, case: Case, dtype: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_case(torch, case, dtype)


# --- double backward -------------------------------------------------------------------------------------------


def run_double(lib: Any, case: Case, dtype: str, record: Callable | None = None) -> dict:
    """First-order gradients with ``create_graph=True``, then the gradients of ``sum(v_k * g_k)`` with respect to
    the inputs and ``grad_output`` (the second pass is the one recorded)."""
    tensors, leaves = _inputs(lib, case, dtype)
    y = _first(case.fn(lib, *tensors))
    go = lib.from_numpy(_grad_output(tuple(y.shape), str(y.dtype).replace("torch.", ""))).requires_grad_(True)
    firsts = lib.autograd.grad(y, leaves, go, create_graph=True, allow_unused=True)
    used = [g for g in firsts if g is not None and g.requires_grad]
    vs = [lib.from_numpy(_grad_output(tuple(g.shape), dtype, seed=2 + k)) for k, g in enumerate(used)]
    result: dict[str, Any] = {
        "firsts": firsts,
        "nodes": [type(g.grad_fn).__name__ if g is not None and g.grad_fn is not None else None for g in firsts],
    }

    def second() -> None:
        result["grads"] = lib.autograd.grad(used, leaves + [go], vs, allow_unused=True)

    if record is None:
        second()
    else:
        result["log"] = record(second)
    return result


def check_double(torch: Any, case: Case, dtype: str) -> None:
    what = f"double backward of {case.name} [{dtype}]"
    theirs = run_double(torch, case, dtype, record=lambda f: record_torch_values(torch, f))
    ours = run_double(dispatcher, case, dtype, record=record_ours_values)
    assert ours["nodes"] == theirs["nodes"], f"{what}: first-order grad_fns {ours['nodes']}, torch {theirs['nodes']}"
    assert theirs["nodes"][0] == case.node, f"{what}: the case expects {case.node}, torch says {theirs['nodes']}"
    assert_same_grads({"grads": theirs["firsts"]}, {"grads": ours["firsts"]}, dtype, what + " (first order)")
    assert_same_grads(theirs, ours, dtype, what)
    assert_same_calls(theirs["log"], ours["log"], dtype, what)
    assert_same_grads(run_double(torch, case, dtype), run_double(dispatcher, case, dtype), dtype,
                      what + " without a mode")


DOUBLE_CASES = [
    Case("tanh", lambda T, x: x.tanh(), [A], "TanhBackwardBackward0"),
    Case("sigmoid", lambda T, x: x.sigmoid(), [A], "SigmoidBackwardBackward0"),
    Case("relu", lambda T, x: x.relu(), [A], "ThresholdBackwardBackward0"),
    Case("gelu", lambda T, x: T.nn.functional.gelu(x), [A], "GeluBackwardBackward0"),
    Case("gelu tanh", lambda T, x: T.nn.functional.gelu(x, approximate="tanh"), [A], "GeluBackwardBackward0"),
    Case("mse_loss mean", lambda T, x, y: T.nn.functional.mse_loss(x, y), [A, B], "MseLossBackwardBackward0"),
    Case("mse_loss sum", lambda T, x, y: T.nn.functional.mse_loss(x, y, reduction="sum"), [A, B],
         "MseLossBackwardBackward0"),
    Case("mse_loss none", lambda T, x, y: T.nn.functional.mse_loss(x, y, reduction="none"), [A, B],
         "MseLossBackwardBackward0"),
    Case("mse_loss target only", lambda T, x, y: T.nn.functional.mse_loss(x, y), [A, B], "MseLossBackwardBackward0",
         grad=(1,)),
    Case("softmax", lambda T, x: x.softmax(1), [A], "SoftmaxBackwardDataBackward0"),
    Case("log_softmax", lambda T, x: x.log_softmax(0), [A], "LogSoftmaxBackwardDataBackward0"),
    # first-order formulas run with grad mode on: their own ops get differentiated
    Case("silu", lambda T, x: T.nn.functional.silu(x), [A], "MulBackward0"),
    Case("sqrt", lambda T, x: x.sqrt(), [_pos(3, 4)], "DivBackward0"),
    Case("erf", lambda T, x: T.ops.aten.erf.default(x), [A], "MulBackward0"),
    Case("pow.Tensor_Tensor", lambda T, x, y: x.pow(y), [_pos(3, 4), B], "WhereBackward0"),
    Case("maximum", lambda T, x, y: T.maximum(x, y), [TIES, TIES_OTHER], "MaskedFillBackward0"),
    Case("clamp", lambda T, x: x.clamp(-0.5, 0.5), [BOUNDS], "WhereBackward0"),
    Case("amax", lambda T, x: x.amax(1), [TIES], "MulBackward0"),
    Case("max.dim", lambda T, x: x.max(1), [TIES], "ScatterBackward0"),
    Case("var", lambda T, x: T.ops.aten.var.correction(x, [1]), [A], "MulBackward0"),
    Case("abs", lambda T, x: x.abs(), [A], "MulBackward0"),
    Case("gather", lambda T, x, i: T.ops.aten.gather.default(x, 1, i), [A, np.array([[0, 0], [3, 1], [2, 2]])],
         "ScatterAddBackward0"),
    Case("masked_select", lambda T, x: T.ops.aten.masked_select.default(x, _t(T, MASK)), [A],
         "MaskedScatterBackward0"),
    Case("masked_scatter", lambda T, x, s: T.ops.aten.masked_scatter.default(x, _t(T, MASK), s), [A, _r(12)],
         "MaskedFillBackward0"),
]


@pytest.mark.parametrize(("case", "dtype"), _params(DOUBLE_CASES))
def test_double_backward(torch: Any, case: Case, dtype: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_double(torch, case, dtype)


# --- random shapes, broadcasting and ties (hypothesis) ---------------------------------------------------------

_SETTINGS = settings(max_examples=12, deadline=None, derandomize=True)


@st.composite
def _shapes(draw: Any, count: int) -> list[tuple[int, ...]]:
    """``count`` shapes that broadcast together (some dims dropped or set to 1)."""
    base = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    shapes = []
    for _ in range(count):
        drop = draw(st.integers(0, len(base) - 1))
        shapes.append(tuple(1 if draw(st.booleans()) else n for n in base[drop:]))
    return shapes


def _data(shape: tuple[int, ...], kind: str, seed: int) -> np.ndarray:
    """Values of ``kind``: "normal", "ties" (small integers, so equal values are common), "positive", "bool"."""
    rng = np.random.default_rng(seed)
    if kind == "bool":
        return np.asarray(rng.random(shape) > 0.5)
    if kind == "ties":
        return np.asarray(rng.integers(-2, 3, shape)).astype(np.float64)
    if kind == "positive":
        return np.asarray(rng.uniform(0.5, 2.0, shape))
    return np.asarray(rng.standard_normal(shape))


#: name -> (fn, kinds of its inputs; "*" is normal or ties, drawn)
POINTWISE = {
    "maximum": (lambda T, x, y: T.maximum(x, y), ("*", "*")),
    "minimum": (lambda T, x, y: T.minimum(x, y), ("*", "*")),
    "pow.Tensor_Tensor": (lambda T, x, y: x.pow(y), ("positive", "*")),
    "div.Tensor": (lambda T, x, y: x / y, ("*", "positive")),
    "mul.Tensor": (lambda T, x, y: x * y, ("*", "*")),
    "sub.Tensor": (lambda T, x, y: T.sub(x, y, alpha=2), ("*", "*")),
    "where.self": (lambda T, c, x, y: T.where(c, x, y), ("bool", "*", "*")),
    "clamp.Tensor": (lambda T, x, lo, hi: x.clamp(lo, hi), ("*", "*", "*")),
    "masked_fill.Scalar": (lambda T, x, m: x.masked_fill(m, 1.5), ("*", "bool")),
    "masked_fill.Tensor": (lambda T, x, m, v: x.masked_fill(m, v), ("*", "bool", "scalar")),
    "clamp": (lambda T, x: x.clamp(-1, 1), ("*",)),
    "abs": (lambda T, x: x.abs(), ("*",)),
    "sqrt": (lambda T, x: x.sqrt(), ("positive",)),
    "rsqrt": (lambda T, x: x.rsqrt(), ("positive",)),
    "reciprocal": (lambda T, x: x.reciprocal(), ("positive",)),
    "erf": (lambda T, x: T.ops.aten.erf.default(x), ("*",)),
    "silu": (lambda T, x: T.nn.functional.silu(x), ("*",)),
}


@pytest.mark.parametrize("name", sorted(POINTWISE))
def test_pointwise_random(torch: Any, name: str) -> None:
    fn, kinds = POINTWISE[name]

    @_SETTINGS
    @given(data=st.data())
    def run(data: Any) -> None:
        shapes = data.draw(_shapes(len(kinds)))
        arrays = []
        for k, (kind, shape) in enumerate(zip(kinds, shapes)):
            if kind == "*":
                kind = data.draw(st.sampled_from(["normal", "ties"]))
            arrays.append(_data((), "normal", k) if kind == "scalar" else _data(shape, kind, 10 * k + len(shape)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_case(torch, Case(name, fn, arrays, None), "float64")

    run()


#: name -> fn(T, x, dims, keepdim); dims is a list of dims (single-dim ops use its first)
REDUCTIONS = {
    "amax": lambda T, x, dims, keep: x.amax(dims, keepdim=keep),
    "amin": lambda T, x, dims, keep: x.amin(dims, keepdim=keep),
    "mean.dim": lambda T, x, dims, keep: T.ops.aten.mean.dim(x, dims, keep),
    "sum.dim_IntList": lambda T, x, dims, keep: T.ops.aten.sum.dim_IntList(x, dims, keep),
    "var.correction": lambda T, x, dims, keep: T.ops.aten.var.correction(x, dims, correction=len(dims) % 2,
                                                                          keepdim=keep),
    "max.dim": lambda T, x, dims, keep: T.ops.aten.max.dim(x, dims[0], keep),
    "min.dim": lambda T, x, dims, keep: T.ops.aten.min.dim(x, dims[0], keep),
    "max": lambda T, x, dims, keep: T.ops.aten.max.default(x),
    "min": lambda T, x, dims, keep: T.ops.aten.min.default(x),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_random(torch: Any, name: str) -> None:
    reduce = REDUCTIONS[name]

    @_SETTINGS
    @given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
    def run(shape: list[int], data: Any) -> None:
        ndim = len(shape)
        dims = data.draw(st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim,
                                  unique_by=lambda d: d % ndim))
        keep = data.draw(st.booleans())
        arr = _data(tuple(shape), data.draw(st.sampled_from(["normal", "ties"])), ndim)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_case(torch, Case(name, lambda T, x: reduce(T, x, dims, keep), [arr], None), "float64")

    run()


# --- outputs that carry no gradient, saved values and version counters ------------------------------------------


@pytest.mark.parametrize("op", ["max", "min"])
def test_indices_of_max_dim_do_not_require_grad(torch: Any, op: str) -> None:
    for lib in (torch, dispatcher):
        x = lib.from_numpy(TIES.copy()).requires_grad_(True)
        values, indices = getattr(lib.ops.aten, op).dim(x, 1)
        assert values.requires_grad and not indices.requires_grad, lib.__name__
        assert indices.grad_fn is None and indices.is_leaf, lib.__name__
        assert type(values.grad_fn).__name__ == ("MaxBackward0" if op == "max" else "MinBackward0")


#: (name, forward on y (a non-leaf), whether PyTorch saves y itself): modifying y in place afterwards breaks
#: backward exactly when y itself was saved; sizes, dims and outputs are saved apart from it.
SAVES = [
    ("sum.dim_IntList", lambda T, y: y.sum(1), False),
    ("mean", lambda T, y: y.mean(), False),
    ("mean.dim", lambda T, y: y.mean(0), False),
    ("max.dim", lambda T, y: y.max(1)[0], False),
    ("sqrt", lambda T, y: y.exp().sqrt(), False),
    ("erf", lambda T, y: T.ops.aten.erf.default(y), True),
    ("amax", lambda T, y: y.amax(1), True),
    ("var.correction", lambda T, y: T.ops.aten.var.correction(y, [1]), True),
    ("maximum", lambda T, y: T.maximum(y, y.detach() * 0.5), True),
    ("where.self", lambda T, y: T.where(_t(T, MASK), y, 0.0), False),
    ("masked_fill.Scalar", lambda T, y: y.masked_fill(_t(T, MASK), 0.0), False),
]


@pytest.mark.parametrize(("name", "fn", "saves_input"), SAVES, ids=[s[0] for s in SAVES])
def test_in_place_change_after_the_op(torch: Any, name: str, fn: Callable, saves_input: bool) -> None:
    outcomes = []
    for lib in (torch, dispatcher):
        x = lib.from_numpy(A.copy()).requires_grad_(True)
        y = x * 1
        out = fn(lib, y)
        y.add_(1)
        try:
            out.sum().backward()
            outcomes.append(None)
        except RuntimeError as e:
            outcomes.append(str(e))
    assert (outcomes[0] is not None) == saves_input, f"{name}: the case's expectation is wrong: {outcomes[0]}"
    assert (outcomes[1] is None) == (outcomes[0] is None), f"{name}: torch {outcomes[0]!r}, ours {outcomes[1]!r}"
    if saves_input:
        assert "modified by an inplace operation" in outcomes[1]


def test_silu_backward_has_no_derivative(torch: Any) -> None:
    """PyTorch records a ``NotImplemented`` node for silu_backward and fails when backward reaches it."""
    errors = []
    for lib in (torch, dispatcher):
        x = lib.from_numpy(A.copy()).requires_grad_(True)
        y = lib.ops.aten.silu_backward.default(x * 2, x)
        assert type(y.grad_fn).__name__ == "NotImplemented" and y.requires_grad
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        errors.append(str(info.value))
    assert errors[1] == errors[0]
