"""torch's top-level names real code uses (issue 17 item 13): the dtype aliases exported from ``dispatcher``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D

_NAMES = ("long", "float", "double", "int", "half", "short", "cfloat", "cdouble", "uint8", "int8", "int16", "int32",
          "int64", "float16", "float32", "float64", "bool", "complex64", "complex128")


@pytest.mark.parametrize("name", _NAMES)
def test_dtype_alias_is_torchs(torch: Any, name: str) -> None:
    ours, theirs = getattr(D, name), getattr(torch, name)
    assert isinstance(ours, D.dtype) and repr(ours) == repr(theirs)
    assert name in D.__all__
    t = D.zeros(2, dtype=ours)
    assert repr(t.dtype) == repr(torch.zeros(2, dtype=theirs).dtype)


def test_nanogpt_style_arange_long() -> None:
    pos = D.arange(0, 5, dtype=D.long)
    assert pos.dtype is D.int64
    np.testing.assert_array_equal(pos.numpy(), np.arange(5))
    assert D.float is D.float32 and D.int is D.int32 and D.double is D.float64


# --- issue 17 item 2: Tensor methods bound to CompositeImplicitAutograd ops keep them in pre-dispatch traces ---
def _calls(lib: Any) -> list[tuple[str, Any]]:
    return [
        ("type_as", lambda x, y: x.type_as(y.double())),
        ("type_as_same", lambda x, y: x.type_as(y)),
        ("max_other", lambda x, y: x.max(y)),
        ("min_other", lambda x, y: x.min(y)),
        ("torch_max_other", lambda x, y: lib.max(x, y)),
        ("torch_min_other", lambda x, y: lib.min(x, y)),
        ("clip", lambda x, y: x.clip(-0.5, 0.5)),
        ("clip_tensor", lambda x, y: lib.clip(x, y)),
        ("clip_", lambda x, y: x.clone().clip_(y, None)),
        ("divide", lambda x, y: x.divide(y)),
        ("divide_number", lambda x, y: lib.divide(x, 2.5)),
        ("divide_mode", lambda x, y: x.divide(y, rounding_mode="floor")),
        ("divide_", lambda x, y: x.clone().divide_(y)),
        ("true_divide", lambda x, y: lib.true_divide(x, y)),
        ("true_divide_", lambda x, y: x.clone().true_divide_(2)),
        ("multiply", lambda x, y: x.multiply(y)),
        ("multiply_", lambda x, y: x.clone().multiply_(y)),
        ("subtract", lambda x, y: lib.subtract(x, y, alpha=2)),
        ("subtract_", lambda x, y: x.clone().subtract_(y)),
    ]


@pytest.mark.parametrize("i", range(19))
@pytest.mark.parametrize("pre_dispatch", [True, False])
def test_cia_method_graphs_match_torch(torch: Any, i: int, pre_dispatch: bool) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from tracer import make_fx

    a, b = (np.random.default_rng(s).standard_normal((3, 4)).astype(np.float32) for s in (0, 1))
    name, f = _calls(D)[i]
    _, tf = _calls(torch)[i]
    gm = make_fx(f, pre_dispatch=pre_dispatch)(D.tensor(a), D.tensor(b))
    gt = torch_make_fx(tf, pre_dispatch=pre_dispatch)(torch.tensor(a), torch.tensor(b))
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert targets == [str(n.target) for n in gt.graph.nodes if n.op == "call_function"], name
    a2, b2 = (np.random.default_rng(s).standard_normal((3, 4)).astype(np.float32) for s in (5, 6))
    out, ref = gm(D.tensor(a2), D.tensor(b2)), tf(torch.tensor(a2), torch.tensor(b2))
    assert repr(out.dtype) == repr(ref.dtype)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)


def test_type_as_error_is_torchs(torch: Any) -> None:
    with pytest.raises(TypeError, match=r"type_as\(\): argument 'other' \(position 1\) must be Tensor, not int"):
        torch.zeros(2).type_as(1)
    with pytest.raises(TypeError, match=r"type_as\(\): argument 'other' \(position 1\) must be Tensor, not int"):
        D.zeros(2).type_as(1)


# --- isclose (issue 17 item 13) ---
_NAN, _INF = float("nan"), float("inf")
_A = np.array([1.0, _NAN, _INF, -_INF, 2.0, 0.0], np.float32)
_B = np.array([1.0, _NAN, _INF, _INF, 2.00001, 1e-9], np.float32)


@pytest.mark.parametrize("kwargs", [{}, {"equal_nan": True}, {"rtol": 0, "atol": 0}, {"rtol": 1e-3, "atol": 1e-4}])
def test_isclose_values_and_graphs(torch: Any, kwargs: dict) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from tracer import make_fx

    ours = D.isclose(D.tensor(_A), D.tensor(_B), **kwargs)
    theirs = torch.isclose(torch.tensor(_A), torch.tensor(_B), **kwargs)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert D.tensor(_A).isclose(D.tensor(_B), **kwargs).numpy().tolist() == theirs.tolist()
    for pre in (True, False):
        gm = make_fx(lambda x, y: D.isclose(x, y, **kwargs), pre_dispatch=pre)(D.tensor(_A), D.tensor(_B))
        gt = torch_make_fx(lambda x, y: torch.isclose(x, y, **kwargs), pre_dispatch=pre)(
            torch.tensor(_A), torch.tensor(_B))
        assert [str(n.target) for n in gm.graph.nodes if n.op == "call_function"] == \
            [str(n.target) for n in gt.graph.nodes if n.op == "call_function"]
        if pre:
            assert gm.code.strip() == gt.code.strip()
        np.testing.assert_array_equal(gm(D.tensor(_B), D.tensor(_A)).numpy(), torch.isclose(
            torch.tensor(_B), torch.tensor(_A), **kwargs).numpy())


def test_isclose_ints_bools_and_errors(torch: Any) -> None:
    i, j = np.array([1, 2, 5]), np.array([1, 3, 3])
    assert D.isclose(D.tensor(i), D.tensor(j), atol=1).tolist() == torch.isclose(
        torch.tensor(i), torch.tensor(j), atol=1).tolist()
    bt, bf = np.array([True, False]), np.array([True, True])
    assert D.isclose(D.tensor(bt), D.tensor(bf)).tolist() == torch.isclose(torch.tensor(bt), torch.tensor(bf)).tolist()
    for lib in (D, torch):
        x = lib.zeros(3)
        with pytest.raises(RuntimeError, match="^Float did not match Long$"):
            lib.isclose(x, lib.zeros(3, dtype=lib.int64))
        with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero, but got -1"):
            lib.isclose(x, x, rtol=-1)
        with pytest.raises(RuntimeError, match="atol must be greater than or equal to zero, but got -1"):
            lib.isclose(x, x, atol=-1)
        with pytest.raises(TypeError, match=r"isclose\(\): argument 'other' \(position 2\) must be Tensor, not int"):
            lib.isclose(x, 1)
