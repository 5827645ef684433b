"""``torch.allclose`` / ``Tensor.allclose`` and ``torch.equal`` / ``Tensor.equal`` against PyTorch 2.13: values
(Python bools), schemas and error classes / messages."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dispatcher as dk

NAN = math.nan

_CASES = [
    ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),
    ([1.0, 2.0, 3.0], [1.0, 2.0, 3.000001]),
    ([1.0, 2.0, 3.0], [1.0, 2.0, 3.1]),
    ([1.0, NAN], [1.0, NAN]),
    ([[1.0, 2.0], [3.0, 4.0]], [1.0, 2.0]),
    ([], []),
]


def _both(torch, data, **kw):
    return torch.tensor(data, **kw), dk.tensor(data, **{k: getattr(dk, str(v).split(".")[-1]) for k, v in kw.items()})


@pytest.mark.parametrize("a,b", _CASES)
@pytest.mark.parametrize("kw", [{}, {"rtol": 0.1}, {"atol": 0.2, "equal_nan": True}])
def test_allclose_values(torch, a, b, kw):
    ta, da = _both(torch, a)
    tb, db = _both(torch, b)
    expected = torch.allclose(ta, tb, **kw)
    got = dk.allclose(da, db, **kw)
    assert type(got) is bool and got == expected
    assert da.allclose(db, **kw) == ta.allclose(tb, **kw)


@pytest.mark.parametrize("a,b", _CASES + [([1.0, 2.0], [1.0, 2.0, 3.0]), ([[1.0, 2.0]], [1.0, 2.0])])
def test_equal_values(torch, a, b):
    ta, da = _both(torch, a)
    tb, db = _both(torch, b)
    got = dk.equal(da, db)
    assert type(got) is bool and got == torch.equal(ta, tb)
    assert da.equal(db) == ta.equal(tb)


def test_equal_mixed_dtypes_and_layouts(torch):
    data = np.arange(6.0).reshape(2, 3)
    t, d = torch.tensor(data), dk.tensor(data)
    for other_t, other_d in [(t.long(), d.long()), (t.t().contiguous().t(), d.t().contiguous().t()),
                             (t + 1, d + 1), (t.int() + 0.5, d.int() + 0.5)]:
        assert dk.equal(d, other_d) == torch.equal(t, other_t)


def test_schemas(torch):
    for name in ("allclose", "equal"):
        ours = str(getattr(dk.ops.aten, name).default._schema)
        theirs = str(getattr(torch.ops.aten, name).default._schema)
        assert ours == theirs


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e).split("\n")[0]
    return None


@pytest.mark.parametrize("call", [
    lambda m: m.allclose(m.ones(3), m.ones(3, dtype=m.int64)),
    lambda m: m.allclose(m.ones(3), m.ones(2)),
    lambda m: m.allclose(m.ones(3), m.ones(3), rtol=-1.0),
    lambda m: m.equal(m.ones(3), 1),
    lambda m: m.allclose(m.ones(3), 1.0),
])
def test_errors(torch, call):
    expected = _error(lambda: call(torch))
    assert expected is not None
    assert _error(lambda: call(dk)) == expected


def test_equal_has_no_meta_kernel(torch):
    expected = _error(lambda: torch.equal(torch.ones(3, device="meta"), torch.ones(3, device="meta")))
    got = _error(lambda: dk.equal(dk.ones(3, device="meta"), dk.ones(3, device="meta")))
    assert got[0] == expected[0] == "NotImplementedError"
    assert got[1].split(". ")[0] == expected[1].split(". ")[0]
