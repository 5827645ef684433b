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
