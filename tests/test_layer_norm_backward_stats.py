"""``native_layer_norm_backward`` with mean / rstd of other shapes (issue 18): PyTorch's CPU kernel reads them as M
consecutive values from their data pointers whatever their shape or strides (M = the input's rows), so every layout
with M values there gives torch's values here; fewer values (a (2, 1, 1) mean for 6 rows) would be read past the
end of the tensor (torch's results then change from call to call): we raise a RuntimeError naming the op, the
argument and what was expected, where torch returns undefined values (torch is the odd one out)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D

_X, _G = (np.random.default_rng(s).standard_normal((2, 3, 4)).astype(np.float32) for s in (0, 1))
_W, _B = (np.random.default_rng(s).standard_normal((4,)).astype(np.float32) for s in (2, 3))


#: how mean / rstd are laid out, made from 12 values
_LAYOUTS = {
    "rows_kept_dim": lambda t: t[:6].reshape(2, 3, 1),
    "flat": lambda t: t[:6],
    "2d": lambda t: t[:6].reshape(2, 3),
    "column": lambda t: t[:6].reshape(6, 1),
    "transposed": lambda t: t[:6].reshape(3, 2).t(),  # (torch reads the storage order)
    "longer": lambda t: t,  # (torch reads the first 6)
    "longer_3d": lambda t: t.reshape(2, 3, 2),
    "view_of_longer_storage": lambda t: t[:2],  # 2 elements, but 12 in its storage from its data pointer
    "too_few": lambda t: t[:2].clone().reshape(2, 1, 1),
    "one": lambda t: t[:1].clone(),
    "scalar": lambda t: t[0].clone(),
    "expanded_scalar": lambda t: t[0].clone().expand(6),
}


def _stats(L: Any, layout: str) -> tuple[Any, Any]:
    rng = np.random.default_rng(7)
    mean, rstd = rng.standard_normal(12).astype(np.float32), (np.abs(rng.standard_normal(12)) + 0.5).astype(np.float32)
    return _LAYOUTS[layout](L.tensor(mean)), _LAYOUTS[layout](L.tensor(rstd))


def _call(L: Any, layout: str) -> Any:
    mean, rstd = _stats(L, layout)
    return L.ops.aten.native_layer_norm_backward.default(L.tensor(_G), L.tensor(_X), [4], mean, rstd, L.tensor(_W),
                                                          L.tensor(_B), [True, True, True])


@pytest.mark.parametrize("layout", ["rows_kept_dim", "flat", "2d", "column", "transposed", "longer", "longer_3d",
                                    "view_of_longer_storage"])
def test_stats_layouts_give_torchs_values(torch: Any, layout: str) -> None:
    ours, theirs = _call(D, layout), _call(torch, layout)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layout", ["too_few", "one", "scalar", "expanded_scalar"])
def test_too_few_stats_are_refused(layout: str) -> None:
    with pytest.raises(RuntimeError, match=r"native_layer_norm_backward: expected mean to hold 6 values \(one per row "
                                           r"of input \[2, 3, 4\] over normalized_shape \[4\]\)"):
        _call(D, layout)


def test_meta_inputs_take_any_stats_shape() -> None:
    """The Meta kernel (as torch's meta function) does not look at mean / rstd: shapes only."""
    x = D.empty(2, 3, 4, device="meta")
    out = D.ops.aten.native_layer_norm_backward.default(x, x, [4], D.empty(2, 1, 1, device="meta"),
                                                       D.empty(1, device="meta"), D.empty(4, device="meta"),
                                                       D.empty(4, device="meta"), [True, True, True])
    assert [tuple(t.shape) for t in out] == [(2, 3, 4), (4,), (4,)]
