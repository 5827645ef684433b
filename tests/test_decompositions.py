"""CompositeImplicitAutograd decompositions vs torch 2.13: the aten ops called (op for op) and the results.

torch's sequence is recorded with a TorchDispatchMode (a mode sits below autograd, so it
sees the ops a CIA kernel calls). Ours is read off ``explain_dispatch``: the calls a mode
would see are the non-CIA calls not nested inside a non-CIA kernel. While a mode is on,
PyTorch's kernels take their ``isTensorSubclassLike`` branches; to compare like with like,
ours runs with ``dispatch_mode_enabled`` forced on (``as_mode=True``), and a few cases also
check the no-mode branch against torch's values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher import explain_dispatch
from dispatcher.ops import composite as decompositions
from dispatcher.ops import registration as _registration
from dispatcher.ops.losses_nll import nll_loss2d_forward
from dispatcher.ops.native_functions import NATIVE_FUNCTIONS
from dispatcher.ops.views import squeeze__dim
from dispatcher.tensor import Tensor, device

aten = dispatcher.ops.aten
LISTED = {op.name for op in NATIVE_FUNCTIONS}
MATH = "CompositeImplicitAutograd kernel (a decomposition into other ops)"


# --- inputs built the same way for both libraries -----------------------------------------------------


@dataclass
class T:
    """A tensor argument: values of ``shape`` (after ``perm``), optionally sliced / requiring grad."""

    shape: tuple
    dtype: str = "float32"
    perm: tuple | None = None  # build contiguous in permuted order, then permute back (non-contiguous)
    step: int = 1  # slice the last dim with this step (non-contiguous)
    rg: bool = False
    values: Any = None
    seed: int = 0

    def array(self) -> np.ndarray:
        if self.values is not None:
            return np.asarray(self.values, dtype=self.dtype)
        rng = np.random.default_rng(self.seed)
        shape = list(self.shape)
        shape[-1:] = [shape[-1] * self.step] if shape else []
        if self.dtype == "int64":
            return rng.integers(0, 3, size=shape).astype(np.int64)
        if self.dtype == "bool":
            return rng.integers(0, 2, size=shape).astype(bool)
        return rng.standard_normal(shape).astype(self.dtype)

    def build(self, lib: str, torch: Any, meta: bool = False) -> Any:
        arr = self.array()
        if self.perm is not None:
            inv = np.argsort(self.perm)
            arr = np.ascontiguousarray(arr.transpose(self.perm))  # stored in permuted order
        if lib == "torch":
            t = torch.tensor(arr) if arr.size else torch.empty(arr.shape, dtype=getattr(torch, self.dtype))
            if meta:
                t = t.to("meta")
            if self.perm is not None:
                t = t.permute(*inv.tolist())
            if self.step != 1:
                t = t[..., :: self.step]
            if self.rg:
                t.requires_grad_(True)
            return t
        t = Tensor._from_numpy(arr.copy())
        if meta:
            t = Tensor._empty(t._shape, t._dtype, device("meta"))
        if self.perm is not None:
            t = aten.permute(t, inv.tolist())
        if self.step != 1:
            t = aten.slice.Tensor(t, -1, 0, None, self.step)
        t.requires_grad = self.rg
        return t


@dataclass
class DT:
    name: str


def build(args: tuple, lib: str, torch: Any, meta: bool = False) -> list:
    out = []
    for a in args:
        if isinstance(a, T):
            out.append(a.build(lib, torch, meta))
        elif isinstance(a, DT):
            out.append(getattr(torch if lib == "torch" else dispatcher, a.name))
        else:
            out.append(a)
    return out


# --- recording ------------------------------------------------------------------------------------------


def torch_sequence(torch: Any, op_name: str, args: list, kwargs: dict) -> tuple[list[str], Any]:
    from torch.utils._python_dispatch import TorchDispatchMode

    seen: list[str] = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, a=(), kw=None):
            seen.append(func.name().split("::", 1)[1].replace(".default", ""))
            return func(*a, **(kw or {}))

    base, _, overload = op_name.partition(".")
    op = getattr(getattr(torch.ops.aten, base), overload or "default")
    with Log():
        result = op(*args, **kwargs)
    return seen, result


def our_sequence(op_name: str, args: list, kwargs: dict, monkeypatch: Any, as_mode: bool = True):
    """The ops a dispatch mode would see when ``op_name`` runs, and its result."""
    base, _, overload = op_name.partition(".")
    op = getattr(getattr(aten, base), overload or "default")
    with monkeypatch.context() as m:
        if as_mode:
            m.setattr(decompositions, "dispatch_mode_enabled", lambda: True)
        explanation = explain_dispatch(op, *args, **kwargs)
    if explanation.error is not None:
        raise explanation.error
    seen: list[str] = []
    transparent: list[bool] = []  # per depth: calls below it are visible (it is a CIA call)
    for step in explanation.steps:
        if getattr(step, "how", None) != "call":
            continue
        depth = step.depth
        del transparent[depth:]
        is_cia = step.reason == MATH
        if all(transparent) and not is_cia and depth > 0:
            seen.append(step.op.split("::", 1)[1])
        transparent.append(is_cia)
    return seen, explanation.result


def _missing_ops() -> set[str]:
    return {m.split(":", 1)[0] for m in _registration.missing_kernels()}


def _needs(names: list[str]) -> list[str]:
    missing = _missing_ops()
    return sorted({n for n in names if n in missing})


def assert_same_result(ours: Any, theirs: Any, torch: Any) -> None:
    if isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert_same_result(o, t, torch)
        return
    if not isinstance(theirs, torch.Tensor):
        assert ours == theirs
        return
    assert isinstance(ours, Tensor)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).split(".")[1]
    assert ours.stride() == theirs.stride()
    if theirs.device.type == "meta":
        assert ours.device.type == "meta"
        return
    expected = theirs.detach().numpy()
    if theirs.dtype.is_floating_point:
        np.testing.assert_allclose(np.asarray(ours._data), expected, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(np.asarray(ours._data), expected)


# --- cases ------------------------------------------------------------------------------------------------

CASES = [
    # where with scalars
    ("where_self_float", "where.ScalarSelf", (T((2, 3), "bool"), 1.5, T((2, 3))), {}),
    ("where_self_int_into_int32", "where.ScalarSelf", (T((3,), "bool"), 1, T((3,), "int32", values=[1, 2, 3])), {}),
    ("where_self_promotes", "where.ScalarSelf", (T((3,), "bool"), 1.5, T((3,), "int32", values=[1, 2, 3])), {}),
    ("where_other", "where.ScalarOther", (T((2, 3), "bool"), T((2, 3)), 2), {}),
    ("where_other_promotes", "where.ScalarOther", (T((3,), "bool"), T((3,), "int64", values=[4, 5, 6]), 2.5), {}),
    ("where_scalar_int", "where.Scalar", (T((4,), "bool"), 1, 2), {}),
    ("where_scalar_float", "where.Scalar", (T((4,), "bool"), 1, 2.5), {}),
    ("where_scalar_bool", "where.Scalar", (T((4,), "bool"), True, False), {}),
    ("where_scalar_bool_int", "where.Scalar", (T((4,), "bool"), True, 2), {}),
    # matmul, every rank case
    ("matmul_dot", "matmul", (T((3,)), T((3,), seed=1)), {}),
    ("matmul_mv", "matmul", (T((2, 3)), T((3,), seed=1)), {}),
    ("matmul_vm", "matmul", (T((3,)), T((3, 4), seed=1)), {}),
    ("matmul_mm", "matmul", (T((2, 3)), T((3, 4), seed=1)), {}),
    ("matmul_mm_int", "matmul", (T((2, 3), "int64"), T((3, 4), "int64", seed=1)), {}),
    ("matmul_fold_3x2", "matmul", (T((5, 2, 3)), T((3, 4), seed=1)), {}),
    ("matmul_fold_3x1", "matmul", (T((5, 2, 3)), T((3,), seed=1)), {}),
    ("matmul_fold_4x1", "matmul", (T((7, 1, 2, 3)), T((3,), seed=1)), {}),
    ("matmul_fold_4x2", "matmul", (T((6, 5, 2, 3)), T((3, 4), seed=1)), {}),
    ("matmul_fold_empty", "matmul", (T((5, 0, 3)), T((3, 4), seed=1)), {}),
    ("matmul_1x3", "matmul", (T((3,)), T((5, 3, 4), seed=1)), {}),
    ("matmul_2x3", "matmul", (T((2, 3)), T((5, 3, 4), seed=1)), {}),
    ("matmul_2x4", "matmul", (T((2, 3)), T((6, 5, 3, 4), seed=1)), {}),
    ("matmul_1x4", "matmul", (T((3,)), T((7, 1, 3, 2), seed=1)), {}),
    ("matmul_3x3", "matmul", (T((5, 2, 3)), T((5, 3, 4), seed=1)), {}),
    ("matmul_3x3_batch1_rhs", "matmul", (T((5, 2, 3)), T((1, 3, 4), seed=1)), {}),
    ("matmul_3x3_batch1_lhs", "matmul", (T((1, 2, 3)), T((5, 3, 4), seed=1)), {}),
    ("matmul_4x3_broadcast", "matmul", (T((7, 1, 2, 3)), T((5, 3, 4), seed=1)), {}),
    ("matmul_4x4", "matmul", (T((2, 5, 2, 3)), T((2, 5, 3, 4), seed=1)), {}),
    ("matmul_3nc_x2", "matmul", (T((5, 2, 3), perm=(1, 0, 2)), T((3, 4), seed=1)), {}),
    ("matmul_3nc_x1", "matmul", (T((5, 2, 3), perm=(1, 0, 2)), T((3,), seed=1)), {}),
    ("matmul_3t_x2", "matmul", (T((5, 2, 3), perm=(0, 2, 1)), T((3, 4), seed=1)), {}),
    ("matmul_2x3t", "matmul", (T((2, 3)), T((5, 3, 4), perm=(0, 2, 1), seed=1)), {}),
    ("matmul_fold_rg", "matmul", (T((5, 2, 3), perm=(1, 0, 2)), T((3, 4), rg=True, seed=1)), {}),
    ("matmul_2x3_rg_transposed_fold", "matmul", (T((2, 3), rg=True), T((5, 3, 4), seed=1)), {}),
    ("matmul_1x3_rg", "matmul", (T((3,), rg=True), T((5, 3, 4), seed=1)), {}),
    # linear
    ("linear_2d", "linear", (T((2, 3)), T((4, 3), seed=1), T((4,), seed=2)), {}),
    ("linear_2d_nobias", "linear", (T((2, 3)), T((4, 3), seed=1)), {}),
    ("linear_2d_nc", "linear", (T((2, 3), perm=(1, 0)), T((4, 3), seed=1), T((4,), seed=2)), {}),
    ("linear_3d", "linear", (T((5, 2, 3)), T((4, 3), seed=1), T((4,), seed=2)), {}),
    ("linear_3d_nobias", "linear", (T((5, 2, 3)), T((4, 3), seed=1)), {}),
    ("linear_3d_nc", "linear", (T((5, 2, 3), perm=(1, 0, 2)), T((4, 3), seed=1), T((4,), seed=2)), {}),
    ("linear_3d_bias2d", "linear", (T((5, 2, 3)), T((4, 3), seed=1), T((2, 4), seed=2)), {}),
    ("linear_3d_bias1x4", "linear", (T((5, 2, 3)), T((4, 3), seed=1), T((1, 4), seed=2)), {}),
    ("linear_3d_bias_nc", "linear", (T((5, 2, 3)), T((4, 3), seed=1), T((4,), step=2, seed=2)), {}),
    ("linear_4d", "linear", (T((6, 5, 2, 3)), T((4, 3), seed=1), T((4,), seed=2)), {}),
    ("linear_4d_nobias", "linear", (T((6, 5, 2, 3)), T((4, 3), seed=1)), {}),
    ("linear_1d", "linear", (T((3,)), T((4, 3), seed=1), T((4,), seed=2)), {}),
    ("linear_1d_nobias", "linear", (T((3,)), T((4, 3), seed=1)), {}),
    # reshape family
    ("reshape_view", "reshape", (T((2, 3)), [3, 2]), {}),
    ("reshape_same", "reshape", (T((2, 3)), [2, 3]), {}),
    ("reshape_contig_infer", "reshape", (T((2, 3)), [-1, 2]), {}),
    ("reshape_copy", "reshape", (T((2, 3), perm=(1, 0)), [6]), {}),
    ("reshape_nc_infer_view", "reshape", (T((3, 2), perm=(1, 0)), [-1, 2]), {}),
    ("reshape_nc_view", "reshape", (T((2, 3), perm=(1, 0)), [1, 2, 3]), {}),
    ("reshape_zero_size", "reshape", (T((0, 3), perm=(1, 0)), [0]), {}),
    ("flatten", "flatten.using_ints", (T((2, 3, 4)), 1), {}),
    ("flatten_neg", "flatten.using_ints", (T((2, 3, 4)), -2, -1), {}),
    ("flatten_nc", "flatten.using_ints", (T((2, 3, 4), perm=(2, 1, 0)), 0, 1), {}),
    ("flatten_0d", "flatten.using_ints", (T(()), 0), {}),
    ("flatten_noop", "flatten.using_ints", (T((2, 3)), 1, 1), {}),
    ("chunk", "chunk", (T((5, 2)), 2), {}),
    ("chunk_dim1", "chunk", (T((2, 6)), 4, 1), {}),
    ("chunk_neg_dim", "chunk", (T((2, 5)), 2, -1), {}),
    ("contiguous_yes", "contiguous", (T((2, 3)),), {}),
    ("contiguous_no", "contiguous", (T((2, 3), perm=(1, 0)),), {}),
    ("expand_as", "expand_as", (T((3,)), T((2, 3))), {}),
    ("view_as", "view_as", (T((6,)), T((2, 3))), {}),
    ("sum_to_size", "sum_to_size", (T((2, 3, 4)), [3, 1]), {}),
    ("sum_to_size_lead", "sum_to_size", (T((2, 3)), [1, 3]), {}),
    ("sum_to_size_same", "sum_to_size", (T((3, 4)), [3, 4]), {}),
    # to
    ("to_dtype_same", "to.dtype", (T((2,)), DT("float32")), {}),
    ("to_dtype_diff", "to.dtype", (T((2,)), DT("float64")), {}),
    ("to_dtype_copy", "to.dtype", (T((2,)), DT("float32"), False, True), {}),
    ("to_dtype_nc", "to.dtype", (T((2, 3), perm=(1, 0)), DT("float64")), {}),
    ("to_device_same", "to.device", (T((2,)), "cpu", DT("float32")), {}),
    ("to_device_meta", "to.device", (T((2,)), "meta", DT("float32")), {}),
    ("to_dtype_layout_none", "to.dtype_layout", (T((2,)),), {}),
    ("to_dtype_layout_dtype", "to.dtype_layout", (T((2,)),), {"dtype": DT("int64")}),
    ("to_dtype_layout_device", "to.dtype_layout", (T((2,)),), {"device": "meta"}),
    ("to_dtype_layout_copy", "to.dtype_layout", (T((2, 3)),), {"copy": True}),
    # softmax family
    ("softmax", "softmax.int", (T((2, 3)), 1), {}),
    ("softmax_same_dtype", "softmax.int", (T((2, 3)), 1, DT("float32")), {}),
    ("softmax_dtype", "softmax.int", (T((2, 3)), 1, DT("float64")), {}),
    ("softmax_half_to_float", "softmax.int", (T((2, 3), "float16"), 1, DT("float32")), {}),
    ("log_softmax", "log_softmax.int", (T((2, 3)), -1), {}),
    ("log_softmax_dtype", "log_softmax.int", (T((2, 3)), 1, DT("float64")), {}),
    # layer_norm / dropout
    ("layer_norm", "layer_norm", (T((2, 3)), [3], T((3,), seed=1), T((3,), seed=2)), {}),
    ("layer_norm_noweight", "layer_norm", (T((2, 3)), [3]), {}),
    ("layer_norm_eps", "layer_norm", (T((2, 3)), [3], None, None, 1e-3), {}),
    ("dropout_eval", "dropout", (T((2, 3)), 0.5, False), {}),
    ("dropout_p0", "dropout", (T((2, 3)), 0.0, True), {}),
    ("dropout_empty", "dropout", (T((0, 3)), 0.5, True), {}),
    # losses
    ("nll_loss", "nll_loss", (T((2, 3)), T((2,), "int64", values=[0, 2])), {}),
    ("nll_loss_nd_2d", "nll_loss_nd", (T((2, 3)), T((2,), "int64", values=[0, 2])), {}),
    ("nll_loss_nd_1d", "nll_loss_nd", (T((3,)), T((), "int64", values=1)), {}),
    ("nll_loss_nd_3d", "nll_loss_nd", (T((2, 3, 4)), T((2, 4), "int64")), {}),
    ("nll_loss_nd_3d_none", "nll_loss_nd", (T((2, 3, 4)), T((2, 4), "int64"), None, 0), {}),
    ("nll_loss_nd_3d_nc", "nll_loss_nd", (T((2, 3, 4), perm=(0, 2, 1)), T((2, 4), "int64", perm=(1, 0))), {}),
    ("nll_loss_nd_4d", "nll_loss_nd", (T((2, 3, 4, 5)), T((2, 4, 5), "int64"), None, 0), {}),
    ("nll_loss_nd_5d", "nll_loss_nd", (T((2, 3, 4, 5, 6)), T((2, 4, 5, 6), "int64"), None, 0), {}),
    ("cross_entropy", "cross_entropy_loss", (T((2, 3)), T((2,), "int64", values=[0, 2])), {}),
    ("cross_entropy_weight", "cross_entropy_loss",
     (T((2, 3)), T((2,), "int64", values=[0, 2]), T((3,), seed=1), 2, 1), {}),
    ("cross_entropy_1d", "cross_entropy_loss", (T((3,)), T((), "int64", values=1)), {}),
    ("cross_entropy_3d", "cross_entropy_loss", (T((2, 3, 4)), T((2, 4), "int64")), {}),
    ("cross_entropy_smooth", "cross_entropy_loss",
     (T((4, 3)), T((4,), "int64", values=[0, 2, -100, 1]), None, 1, -100, 0.1), {}),
    ("cross_entropy_smooth_sum", "cross_entropy_loss", (T((4, 3)), T((4,), "int64"), None, 2, -100, 0.2), {}),
    ("cross_entropy_smooth_none", "cross_entropy_loss", (T((4, 3)), T((4,), "int64"), None, 0, -100, 0.3), {}),
    ("cross_entropy_probs", "cross_entropy_loss", (T((2, 3)), T((2, 3), seed=1)), {}),
    ("cross_entropy_probs_none", "cross_entropy_loss", (T((2, 3)), T((2, 3), seed=1), None, 0), {}),
    ("cross_entropy_probs_sum", "cross_entropy_loss", (T((2, 3)), T((2, 3), seed=1), None, 2), {}),
    ("cross_entropy_probs_3d", "cross_entropy_loss", (T((2, 3, 4)), T((2, 3, 4), seed=1)), {}),
    ("embedding_backward", "embedding_backward",
     (T((2, 3)), T((2,), "int64", values=[0, 2]), 4, -1, False, False), {}),
    ("embedding_backward_scale", "embedding_backward",
     (T((3, 3)), T((3,), "int64", values=[0, 2, 2]), 4, 1, True, False), {}),
    ("is_nonzero", "is_nonzero", (T((1,), values=[1.0]),), {}),
    ("is_nonzero_0d_false", "is_nonzero", (T((), "int64", values=0),), {}),
]

#: ops PyTorch calls that are not in our listing yet: the sequence check is skipped for them
UNLISTED = {"squeeze_.dim", "nll_loss2d_forward", "split_with_sizes"}


def _case_id(case: tuple) -> str:
    return case[0]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_same_ops_and_values_as_torch(case: tuple, torch: Any, monkeypatch: Any) -> None:
    _, op_name, args, kwargs = case
    expected_ops, expected = torch_sequence(
        torch, op_name, build(args, "torch", torch), {k: build((v,), "torch", torch)[0] for k, v in kwargs.items()}
    )
    unlisted = sorted(set(expected_ops) & UNLISTED - LISTED)
    if unlisted:
        pytest.skip(f"PyTorch calls {unlisted} here, not in the op listing yet")
    needs = _needs(expected_ops + [op_name])
    if needs:
        pytest.skip(f"kernels not written yet (other helpers' ops): {needs}")
    ours_args = build(args, "ours", torch)
    ours_kwargs = {k: build((v,), "ours", torch)[0] for k, v in kwargs.items()}
    ops, result = our_sequence(op_name, ours_args, ours_kwargs, monkeypatch)
    assert ops == expected_ops
    assert_same_result(result, expected, torch)


META_SKIP = {"is_nonzero", "is_nonzero_0d_false", "to_device_same"}  # data-dependent / copies out of meta


@pytest.mark.parametrize("case", [c for c in CASES if c[0] not in META_SKIP], ids=_case_id)
def test_meta_matches_cpu(case: tuple, torch: Any, monkeypatch: Any) -> None:
    """The same decomposition on meta inputs gives torch's meta shapes, dtypes and strides."""
    _, op_name, args, kwargs = case
    t_args = build(args, "torch", torch, meta=True)
    t_kwargs = {k: build((v,), "torch", torch, meta=True)[0] for k, v in kwargs.items()}
    expected_ops, expected = torch_sequence(torch, op_name, t_args, t_kwargs)
    if set(expected_ops) & UNLISTED - LISTED:
        pytest.skip("PyTorch calls an op not in the listing here")
    needs = _needs(expected_ops + [op_name])
    if needs:
        pytest.skip(f"kernels not written yet (other helpers' ops): {needs}")
    _, result = our_sequence(op_name, build(args, "ours", torch, meta=True),
                             {k: build((v,), "ours", torch, meta=True)[0] for k, v in kwargs.items()}, monkeypatch)
    assert_same_result(result, expected, torch)


# --- branches that differ with and without a mode --------------------------------------------------------


def test_subclass_like_follows_mode_stack(monkeypatch: Any) -> None:
    x = dispatcher.tensor([1.0])
    assert not decompositions.is_tensor_subclass_like(x)
    from dispatcher.tls import state

    monkeypatch.setattr(state, "dispatch_mode_stack", [object()])
    assert decompositions.is_tensor_subclass_like(x)


def _needs_or_skip(*names: str) -> None:
    needs = _needs(list(names))
    if needs:
        pytest.skip(f"kernels not written yet (other helpers' ops): {needs}")


def test_linear_without_mode_adds_bias_in_place(torch: Any, monkeypatch: Any) -> None:
    _needs_or_skip("t", "matmul", "expand", "bmm", "_unsafe_view", "add_.Tensor", "view")
    args = (T((5, 2, 3), perm=(1, 0, 2)), T((4, 3), seed=1), T((4,), seed=2))
    ops, result = our_sequence("linear", build(args, "ours", torch), {}, monkeypatch, as_mode=False)
    assert ops[-1] == "add_.Tensor"
    expected = torch.nn.functional.linear(*build(args, "torch", torch))
    assert_same_result(result, expected, torch)


def test_matmul_without_mode_broadcasts_batch1(torch: Any, monkeypatch: Any) -> None:
    _needs_or_skip("expand", "bmm", "_unsafe_view", "view")
    args = (T((5, 2, 3)), T((1, 3, 4), seed=1))
    ops, result = our_sequence("matmul", build(args, "ours", torch), {}, monkeypatch, as_mode=False)
    assert "squeeze.dim" not in ops and "bmm" in ops
    assert_same_result(result, torch.matmul(*build(args, "torch", torch)), torch)


# --- dropout in training mode (random: compare the ops and the statistics) ---------------------------------


def test_dropout_train_ops_match_torch(torch: Any, monkeypatch: Any) -> None:
    args = (T((2, 3)), 0.5, True)
    expected_ops, _ = torch_sequence(torch, "dropout", build(args, "torch", torch), {})
    assert expected_ops == ["empty_like", "bernoulli_.float", "div_.Scalar", "mul.Tensor"]
    _needs_or_skip(*expected_ops)
    ops, result = our_sequence("dropout", build(args, "ours", torch), {}, monkeypatch)
    assert ops == expected_ops
    x = build(args, "ours", torch)[0].numpy()
    values = result.numpy()
    kept = values != 0
    np.testing.assert_allclose(values[kept], (x * 2)[kept], rtol=1e-6)


def test_dropout_p1_is_mul_by_zero(torch: Any, monkeypatch: Any) -> None:
    args = (T((2, 3)), 1.0, True)
    expected_ops, expected = torch_sequence(torch, "dropout", build(args, "torch", torch), {})
    assert expected_ops == ["zeros", "mul.Tensor"]
    _needs_or_skip(*expected_ops)
    ops, result = our_sequence("dropout", build(args, "ours", torch), {}, monkeypatch)
    assert ops == expected_ops
    assert_same_result(result, expected, torch)


def test_dropout_train_reproducible_under_manual_seed(monkeypatch: Any) -> None:
    _needs_or_skip("empty_like", "bernoulli_.float", "div_.Scalar", "mul.Tensor")
    from dispatcher import random as drandom

    x = dispatcher.from_numpy(np.ones((50, 40), dtype=np.float32))
    drandom.manual_seed(3)
    a = aten.dropout(x, 0.3, True).numpy()
    drandom.manual_seed(3)
    b = aten.dropout(x, 0.3, True).numpy()
    np.testing.assert_array_equal(a, b)
    assert 0.2 < (a == 0).mean() < 0.4
    np.testing.assert_allclose(a[a != 0], 1 / 0.7, rtol=1e-6)


def test_dropout_eval_returns_input_itself() -> None:
    x = dispatcher.from_numpy(np.ones((2, 2), dtype=np.float32))
    assert aten.dropout(x, 0.5, False) is x


# --- errors: type and message as torch --------------------------------------------------------------------

ERROR_CASES = [
    ("matmul_0d", "matmul", (T(()), T((3,)))),
    ("matmul_batch_mismatch", "matmul", (T((5, 2, 3)), T((4, 3, 4)))),
    ("linear_0d", "linear", (T(()), T((4, 3)))),
    ("reshape_bad", "reshape", (T((2, 3), perm=(1, 0)), [4])),
    ("reshape_bad_infer", "reshape", (T((3, 2), perm=(1, 0)), [-1, 4])),
    ("flatten_order", "flatten.using_ints", (T((2, 3, 4)), 2, 1)),
    ("flatten_range", "flatten.using_ints", (T((2, 3, 4)), 3)),
    ("chunk_0d", "chunk", (T(()), 2)),
    ("chunk_zero", "chunk", (T((3,)), 0)),
    ("contiguous_preserve", "contiguous", (T((2, 3), perm=(1, 0)),)),
    ("dropout_p_big", "dropout", (T((2,)), 1.5, True)),
    ("dropout_p_2", "dropout", (T((2,)), 2.0, True)),
    ("dropout_p_neg", "dropout", (T((2,)), -0.25, False)),
    ("nll_loss_nd_0d", "nll_loss_nd", (T(()), T((), "int64", values=1))),
    ("nll_loss_nd_batch", "nll_loss_nd", (T((2, 3)), T((3,), "int64", values=[1, 1, 1]))),
    ("nll_loss_nd_target", "nll_loss_nd", (T((2, 3, 4)), T((2, 5), "int64"))),
    ("cross_entropy_int_probs", "cross_entropy_loss", (T((2, 3)), T((2, 3), "int64"))),
    ("is_nonzero_many", "is_nonzero", (T((2,)),)),
    ("is_nonzero_none", "is_nonzero", (T((0,)),)),
    ("sum_to_size_bad", "sum_to_size", (T((2, 3)), [4])),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=_case_id)
def test_errors_match_torch(case: tuple, torch: Any) -> None:
    _, op_name, args = case
    base, _, overload = op_name.partition(".")
    kwargs = {"memory_format": torch.preserve_format} if op_name == "contiguous" else {}
    with pytest.raises(Exception) as expected:
        getattr(getattr(torch.ops.aten, base), overload or "default")(*build(args, "torch", torch), **kwargs)
    ours_kwargs = {"memory_format": 1} if op_name == "contiguous" else {}
    with pytest.raises(type(expected.value)) as got:
        getattr(getattr(aten, base), overload or "default")(*build(args, "ours", torch), **ours_kwargs)
    assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]


def test_is_nonzero_meta_raises() -> None:
    _needs_or_skip("_local_scalar_dense")
    x = Tensor._empty((1,), dispatcher.float32, device("meta"))
    with pytest.raises(RuntimeError, match="Tensor.item\\(\\) cannot be called on meta tensors"):
        aten.is_nonzero(x)


def test_label_smoothing_with_weight_not_supported_clearly() -> None:
    x = Tensor._from_numpy(np.zeros((2, 3), dtype=np.float32))
    target = dispatcher.tensor([0, 1])
    w = Tensor._from_numpy(np.ones(3, dtype=np.float32))
    with pytest.raises(NotImplementedError, match="label_smoothing"):
        aten.cross_entropy_loss(x, target, w, 1, -100, 0.1)



# --- kernels written for ops not listed yet (called directly until the listing has them) -------------------


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("with_weight", [False, True])
def test_nll_loss2d_forward_kernel(torch: Any, reduction: int, with_weight: bool) -> None:
    x = T((2, 3, 1, 4)).array()
    target = np.array([[[0, 2, -100, 1]], [[1, 1, 0, 2]]], dtype=np.int64)
    w = T((3,), seed=4).array() if with_weight else None
    expected = torch.ops.aten.nll_loss2d_forward(torch.tensor(x), torch.tensor(target),
                                                 None if w is None else torch.tensor(w), reduction, -100)
    ours = nll_loss2d_forward(Tensor._from_numpy(x), Tensor._from_numpy(target),
                              None if w is None else Tensor._from_numpy(w), reduction, -100)
    for o, e in zip(ours, expected):
        assert_same_result(o, e, torch)
    meta = nll_loss2d_forward(Tensor._empty((2, 3, 1, 4), dispatcher.float32, device("meta")),
                              Tensor._empty((2, 1, 4), dispatcher.int64, device("meta")),
                              None, reduction, -100)
    for o, e in zip(meta, expected):
        assert o.device.type == "meta" and tuple(o.shape) == tuple(e.shape) and o.stride() == e.stride()


def test_squeeze__dim_kernel(torch: Any) -> None:
    x = Tensor._from_numpy(np.arange(4, dtype=np.float32).reshape(1, 4))
    assert squeeze__dim(x, 0) is x
    tx = torch.arange(4, dtype=torch.float32).reshape(1, 4).squeeze_(0)
    assert_same_result(x, tx, torch)
    y = Tensor._from_numpy(np.zeros((2, 3), dtype=np.float32))
    assert squeeze__dim(y, 1).shape == (2, 3)
