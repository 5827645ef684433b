"""Memory formats of a tensor's geometry, against torch: ``is_contiguous(memory_format=...)`` and what relies on
the same c10 predicates (``contiguous``, ``to``'s aliasing, ``cat``'s output layout, the factories).

c10 keeps three flags per tensor: row-major contiguous, channels-last contiguous (exactly NHWC strides, size-1 dims
ignored; 4-d only) and channels-last-3d contiguous (NDHWC; 5-d only), plus the looser "strides like channels last"
that ``suggest_memory_format`` uses (2d first, then 3d). ``is_contiguous`` used to ignore its argument, and each op
had its own partial copy of the others (4-d only, exact strides only).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D

FORMATS = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")

#: (shape, permutation made contiguous then undone, a slice applied after)
GEOMETRIES = [
    ((2, 3, 4, 5), None, None),
    ((2, 3, 4, 5), (0, 2, 3, 1), None),
    ((2, 1, 4, 5), None, None),
    ((2, 1, 4, 5), (0, 2, 3, 1), None),
    ((1, 3, 1, 1), None, None),
    ((2, 3, 1, 1), (0, 2, 3, 1), None),
    ((1, 1, 2, 1), (0, 2, 3, 1), None),
    ((2, 3, 4, 5), (0, 3, 2, 1), None),
    ((2, 3, 4, 5), (0, 2, 3, 1), (slice(None), slice(None), slice(None), slice(0, None, 2))),
    ((2, 3, 4, 5), (0, 2, 3, 1), (slice(None), slice(0, 2))),
    ((0, 3, 4, 5), None, None),
    ((2, 3, 0, 5), (0, 2, 3, 1), None),
    ((2, 3, 4, 5, 6), None, None),
    ((2, 3, 4, 5, 6), (0, 2, 3, 4, 1), None),
    ((2, 1, 4, 1, 6), (0, 2, 3, 4, 1), None),
    ((2, 3, 4, 5, 6), (0, 2, 3, 4, 1), (slice(None),) * 4 + (slice(0, None, 2),)),
    ((2, 3, 4, 5, 6), (0, 2, 3, 4, 1), (slice(None), slice(0, 2))),
    ((3, 4), None, None),
    ((3, 4, 5), (0, 2, 1), None),
]


def _make(T: Any, shape: tuple, perm: tuple | None, sl: tuple | None) -> Any:
    x = T.tensor(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))
    if perm:
        x = x.permute(*perm).contiguous().permute(*np.argsort(perm).tolist())
    if sl:
        x = x[sl]
    return x


def _outcome(fn: Any) -> Any:
    try:
        r = fn()
    except RuntimeError as e:
        return ("RuntimeError", str(e).split("\n")[0])
    return r


def _layouts(T: Any, x: Any) -> list:
    """Everything the memory-format predicates decide for ``x``."""
    out: list = [tuple(x.stride())]
    out += [x.is_contiguous(memory_format=getattr(T, f)) for f in FORMATS]
    for f in FORMATS:  # contiguous: itself when already laid out so, else a copy (strides), or an error
        def contig(f: str = f) -> Any:
            y = x.contiguous(memory_format=getattr(T, f))
            return ("self",) if y is x else tuple(y.stride())
        out.append(_outcome(contig))
    for f in FORMATS:  # to(memory_format=...) aliases when suggest_memory_format agrees
        def to(f: str = f) -> Any:
            y = x.to(T.float32, memory_format=getattr(T, f))
            return ("self",) if y is x else tuple(y.stride())
        out.append(_outcome(to))
    out.append(tuple(T.cat([x, x], 0).stride()))  # cat keeps a format every input suggests
    out.append(tuple(T.cat([x, x.contiguous()], 1).stride()))
    out.append(tuple(T.empty_like(x).stride()))
    out.append(tuple(x.to(T.float64).stride()))
    for f in ("channels_last", "channels_last_3d"):
        out.append(_outcome(lambda f=f: tuple(T.empty_like(x, memory_format=getattr(T, f)).stride())))
        out.append(_outcome(lambda f=f: tuple(T.empty(*x.shape, memory_format=getattr(T, f)).stride())))
        out.append(_outcome(lambda f=f: tuple(x.clone(memory_format=getattr(T, f)).stride())))
    return out


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: f"{g[0]}-{g[1]}-{'sliced' if g[2] else ''}")
def test_layout_decisions_match_torch(torch: Any, geometry: tuple) -> None:
    assert _layouts(D, _make(D, *geometry)) == _layouts(torch, _make(torch, *geometry))


def test_the_issue_cases() -> None:
    x = D.randn(2, 3, 4, 5)
    nhwc = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    assert x.is_contiguous() and not x.is_contiguous(memory_format=D.channels_last)
    assert nhwc.is_contiguous(memory_format=D.channels_last) and not nhwc.is_contiguous()
    y = D.randn(2, 3, 4, 5, 6).contiguous(memory_format=D.channels_last_3d)
    assert y.stride() == (360, 1, 90, 18, 3)
    assert y.is_contiguous(memory_format=D.channels_last_3d) and not y.is_contiguous(memory_format=D.channels_last)


def test_is_contiguous_rejects_a_non_format(torch: Any) -> None:
    for T in (D, torch):
        with pytest.raises(TypeError, match="argument 'memory_format' must be torch.memory_format, not str"):
            T.ones(2).is_contiguous(memory_format="channels_last")


def test_contiguous_in_a_trace_returns_the_input_when_it_is_already_so(torch: Any) -> None:
    """A channels-last input asked for channels_last: nothing recorded in any mode (torch's binding returns self)."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from tests import corpus as C
    from tracer import make_fx

    def f(T: Any) -> Any:
        return lambda x: x.contiguous(memory_format=T.channels_last) * 2

    for kw in ({}, {"pre_dispatch": True}, {"tracing_mode": "fake"}):
        gm_t = torch_make_fx(f(torch), **kw)(_make(torch, (2, 3, 4, 5), (0, 2, 3, 1), None))
        gm_o = make_fx(f(D), **kw)(_make(D, (2, 3, 4, 5), (0, 2, 3, 1), None))
        assert C.targets(gm_o) == C.targets(gm_t) == ["aten.mul.Tensor"]
