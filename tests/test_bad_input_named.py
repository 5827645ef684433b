"""Issue 18's named bad-input defects, each compared with PyTorch 2.13: the error class and first line of its
message, or the values where torch computes."""

from __future__ import annotations

import pytest

import dispatcher as dk


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e).split("\n")[0]


@pytest.mark.parametrize("call", [
    lambda m: m.add(m.ones(3), None),
    lambda m: m.ones(3).add(None),
    lambda m: m.ones(3).mul_(None),
    lambda m: m.mul(m.ones(3), None),
    lambda m: m.ones(3).sub_(None),
    lambda m: m.div(m.ones(3), None),
    lambda m: m.ones(3).div(None, rounding_mode="floor"),
    lambda m: m.ones(3).div_(None, rounding_mode="trunc"),
    lambda m: m.add(m.ones(3), "abc"),
], ids=["add", "add-method", "mul_", "mul", "sub_", "div", "div-floor", "div_-trunc", "add-str"])
def test_none_or_str_for_other_is_a_type_error(torch, call):
    expected = _outcome(lambda: call(torch))
    assert expected[0] == "TypeError"
    assert _outcome(lambda: call(dk)) == expected


_NAN_DATA = [[1.0, float("nan"), 3.0, 2.0, float("nan")], [float("nan"), -1.0, 0.0, 5.0, 4.0]]


@pytest.mark.parametrize("call", [
    lambda m, x: m.topk(x, 2),
    lambda m, x: m.topk(x, 3, largest=False),
    lambda m, x: m.topk(x, 4, dim=0 if x.dim() == 1 else 1),
    lambda m, x: m.sort(x, descending=True),
    lambda m, x: m.sort(x),
    lambda m, x: m.sort(x, dim=0, descending=True),
], ids=["topk", "topk-smallest", "topk-4", "sort-descending", "sort", "sort-dim0-descending"])
def test_nan_ranks_highest(torch, call):
    import numpy as np

    tv, ti = call(torch, torch.tensor(_NAN_DATA))
    dv, di = call(dk, dk.tensor(_NAN_DATA))
    np.testing.assert_array_equal(dv.numpy(), tv.numpy())
    np.testing.assert_array_equal(di.numpy(), ti.numpy())


@pytest.mark.parametrize("call", [
    lambda m: m.ops.aten._softmax_backward_data(m.ones(3), m.ones(3), 0, "abc"),
    lambda m: m.ops.aten.sum.dim_IntList(m.ones(3), [0], dtype="abc"),
], ids=["_softmax_backward_data", "sum-dtype"])
def test_bad_scalar_type_fails_schema_matching(torch, call):
    """A string naming no dtype does not fit a ScalarType: the schema-matching error with torch's message (no
    KeyError from a kernel). Class: torch.ops raises RuntimeError, ours SchemaArgumentError, the difference
    recorded in tests/test_op_listing.py (SCHEMA_MISMATCH_TYPE_DIFFERENCE)."""
    from dispatcher.errors import SchemaArgumentError

    expected = _outcome(lambda: call(torch))
    got = _outcome(lambda: call(dk))
    assert expected[0] == "RuntimeError" and got[0] == SchemaArgumentError.__name__
    assert got[1] == expected[1]


@pytest.mark.parametrize("shape", [(1, 2, 0), (1, 0, 4), (2, 1, 3, 0)])
def test_sdpa_math_on_zero_size_input(torch, shape):
    import numpy as np

    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(shape).astype(np.float32) for _ in range(3))
    expected = torch.ops.aten._scaled_dot_product_attention_math(*(torch.tensor(a) for a in (q, k, v)))
    got = dk.ops.aten._scaled_dot_product_attention_math(*(dk.tensor(a) for a in (q, k, v)))
    for g, e in zip(got, expected):
        assert tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("mask", [(True, False, False), (False, True, False), (False, False, True), (True, True, True)])
def test_convolution_backward_of_an_integer_input_is_refused_like_torch(torch, dims, mask):
    """The slow CPU kernels an integer input reaches have no integer case: torch's NotImplementedError names the
    kernel of the first gradient asked for; the bias gradient alone is computed."""
    def call(L):
        x = L.ones((2, 3) + (5,) * dims, dtype=L.int64)
        w, g = L.ones((4, 3) + (2,) * dims), L.ones((2, 4) + (4,) * dims)
        return L.ops.aten.convolution_backward(g, x, w, [4], [1] * dims, [0] * dims, [1] * dims, False,
                                               [0] * dims, 1, list(mask))
    outcomes = []
    for L in (torch, dk):
        try:
            out = call(L)
            outcomes.append(("ok", [None if t is None else t.tolist() for t in out]))
        except Exception as e:  # noqa: BLE001 - compared below
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[1] == outcomes[0]


@pytest.mark.parametrize("which", [1, 2, 3])
def test_flash_attention_backward_reads_a_size_before_its_rank_check_like_torch(torch, which):
    """A 3-d query, key or value reaches torch's ``size(3)`` before the 4-d check: an IndexError, as here."""
    def call(L):
        q, k, v = L.ones(2, 3, 4, 8), L.ones(2, 3, 5, 8), L.ones(2, 3, 5, 8)
        out, lse = L.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v)[:2]
        args = [L.ones(2, 3, 4, 8), q, k, v, out, lse]
        args[which] = args[which][0]
        return L.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(*args, 0.0, False)
    errors = []
    for L in (torch, dk):
        with pytest.raises(IndexError) as info:
            call(L)
        errors.append(str(info.value))
    assert errors[1] == errors[0]
