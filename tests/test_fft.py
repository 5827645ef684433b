"""The FFT family against torch 2.13: torch.fft's functions (values, dtypes, shapes, strides, conj bits), the
argument handling of SpectralOps.cpp (n / s padding and trimming, dims, norm), errors, and make_fx graphs (post- and
pre-dispatch, fake, core-aten decomposition) replayed on fresh inputs.

Each program runs once with torch and once with dispatcher (``L`` is the library).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher.math_bits import logical_values


def _lib(torch: Any, which: str) -> Any:
    return torch if which == "torch" else dispatcher


def _vals(t: Any) -> np.ndarray:
    if isinstance(t, dispatcher.Tensor):
        return np.asarray(logical_values(t))
    return t.detach().resolve_conj().resolve_neg().numpy()


def _input(L: Any, shape: tuple, complex_: bool = False, seed: int = 0) -> Any:
    rs = np.random.RandomState(seed)
    a = rs.randn(*shape).astype(np.float32)
    if complex_:
        a = (a + 1j * rs.randn(*shape)).astype(np.complex64)
    return L.from_numpy(a)


def _meta(t: Any) -> tuple:
    return tuple(t.shape), str(t.dtype).rsplit(".", 1)[-1], tuple(t.stride()), bool(t.is_conj())


#: (id, program(L, x), input shape, complex input)
PROGRAMS = [
    ("fft", lambda L, x: L.fft.fft(x), (3, 5), False),
    ("fft_n_pad_dim0_ortho", lambda L, x: L.fft.fft(x, n=8, dim=0, norm="ortho"), (3, 5), False),
    ("fft_int_input", lambda L, x: L.fft.fft((x * 4).to(L.int64)), (6,), False),
    ("ifft_trim", lambda L, x: L.fft.ifft(x, n=3), (3, 5), True),
    ("ifft_real_forward", lambda L, x: L.fft.ifft(x, norm="forward"), (3, 5), False),
    ("rfft_pad", lambda L, x: L.fft.rfft(x, n=7), (3, 5), False),
    ("irfft", lambda L, x: L.fft.irfft(x), (3, 5), True),
    ("irfft_n_dim0", lambda L, x: L.fft.irfft(x, n=11, dim=0), (3, 5), True),
    ("hfft", lambda L, x: L.fft.hfft(x, n=6), (3, 5), True),
    ("ihfft", lambda L, x: L.fft.ihfft(x), (3, 5), False),
    ("fft2", lambda L, x: L.fft.fft2(x), (2, 3, 4), False),
    ("fft2_s", lambda L, x: L.fft.fft2(x, s=(5, 2)), (2, 3, 4), True),
    ("ifft2_dims", lambda L, x: L.fft.ifft2(x, dim=(0, 2)), (2, 3, 4), True),
    ("rfft2", lambda L, x: L.fft.rfft2(x), (2, 3, 4), False),
    ("irfft2", lambda L, x: L.fft.irfft2(x), (2, 3, 4), True),
    ("fftn_transposed", lambda L, x: L.fft.fftn(x.transpose(0, 2)), (2, 3, 4), True),
    ("rfftn_dims", lambda L, x: L.fft.rfftn(x.transpose(0, 2), dim=(0, 1)), (2, 3, 4), False),
    ("irfftn_s", lambda L, x: L.fft.irfftn(x.transpose(0, 2), s=(4, -1)), (2, 3, 4), True),
    ("ifftn_s_dims_ortho", lambda L, x: L.fft.ifftn(x, s=(3, 3), dim=(2, 0), norm="ortho"), (2, 3, 4), True),
    ("hfft2", lambda L, x: L.fft.hfft2(x), (2, 3, 4), True),
    ("hfftn_s", lambda L, x: L.fft.hfftn(x, s=(2, 5)), (2, 3, 4), True),
    ("hfftn_one_dim", lambda L, x: L.fft.hfftn(x, dim=[1], norm="ortho"), (3, 4), True),
    ("ihfft2", lambda L, x: L.fft.ihfft2(x, s=(2, 7)), (3, 5), False),
    ("ihfftn_one_dim", lambda L, x: L.fft.ihfftn(x, dim=[0], norm="forward"), (3, 5), False),
    ("ihfftn", lambda L, x: L.fft.ihfftn(x.transpose(0, 2)), (2, 3, 4), False),
    ("fftshift", lambda L, x: L.fft.fftshift(x), (3, 4), False),
    ("ifftshift_dim", lambda L, x: L.fft.ifftshift(x, dim=0), (3, 4), False),
    ("r2c_two_sided", lambda L, x: L.ops.aten._fft_r2c(x.transpose(0, 1), [1, 0], 1, False), (3, 4, 2), False),
    ("c2c_permuted", lambda L, x: L.ops.aten._fft_c2c(x.permute(2, 0, 1), [0, 2], 1, False), (3, 4, 2), True),
    ("c2r_transposed", lambda L, x: L.ops.aten._fft_c2r(x.transpose(0, 1), [0, 1], 2, 4), (3, 4), True),
]


@pytest.mark.parametrize("program,shape,complex_", [p[1:] for p in PROGRAMS], ids=[p[0] for p in PROGRAMS])
def test_values_and_metadata(torch: Any, program: Any, shape: tuple, complex_: bool) -> None:
    """Values (float32 in: complex64 / float32 out), shapes, strides (MKL's _exec_fft layout) and conj bits."""
    t = program(torch, _input(torch, shape, complex_))
    o = program(dispatcher, _input(dispatcher, shape, complex_))
    assert _meta(o) == _meta(t)
    np.testing.assert_allclose(_vals(o), _vals(t), rtol=1e-5, atol=1e-5)


def test_freqs_and_namespace(torch: Any) -> None:
    for f in (lambda L: L.fft.fftfreq(5), lambda L: L.fft.fftfreq(6, 0.25, dtype=L.float64),
              lambda L: L.fft.rfftfreq(7, 2.0), lambda L: L.fft.rfftfreq(8, requires_grad=True)):
        t, o = f(torch), f(dispatcher)
        assert _meta(o) == _meta(t) and o.requires_grad == t.requires_grad
        np.testing.assert_allclose(_vals(o), _vals(t), rtol=1e-6)
    assert sorted(dispatcher.fft.__all__) == sorted(n for n in dir(torch.fft) if not n.startswith("_")
                                                     and callable(getattr(torch.fft, n))
                                                     and n != "Tensor")
    import dispatcher.fft as fft_module

    assert fft_module is dispatcher.fft


ERRORS = [
    ("norm", lambda L: L.fft.fft(L.ones(4), norm="bad")),
    ("n_zero", lambda L: L.fft.rfft(L.ones(4), n=0)),
    ("irfft_n_default_zero", lambda L: L.fft.irfft(L.ones(1, dtype=L.complex64))),
    ("dim_range", lambda L: L.fft.fft(L.ones(4), dim=2)),
    ("scalar", lambda L: L.fft.fft(L.tensor(1.0))),
    ("rfft_complex", lambda L: L.fft.rfft(L.ones(4, dtype=L.complex64))),
    ("half_cpu", lambda L: L.fft.fft(L.ones(4, dtype=L.float16))),
    ("dims_unique", lambda L: L.fft.fftn(L.ones(3, 4), dim=(0, -2))),
    ("s_dim_length", lambda L: L.fft.fftn(L.ones(3, 4), s=(2,), dim=(0, 1))),
    ("s_too_long", lambda L: L.fft.fft2(L.ones(3), s=(2, 2))),
    ("s_zero", lambda L: L.fft.fftn(L.ones(3, 4), s=(0, 2))),
    ("rfftn_no_axis", lambda L: L.fft.rfftn(L.ones(3, 4), dim=())),
    ("irfftn_no_axis", lambda L: L.fft.irfftn(L.ones(3, 4), dim=())),
    ("hfftn_no_axis", lambda L: L.fft.hfftn(L.ones(3, 4), dim=())),
    ("ihfftn_complex", lambda L: L.fft.ihfftn(L.ones(3, dtype=L.complex64))),
    ("empty", lambda L: L.fft.fft(L.ones(0, 4))),
    ("c2c_real", lambda L: L.ops.aten._fft_c2c(L.ones(4), [0], 0, True)),
    ("r2c_no_dims", lambda L: L.ops.aten._fft_r2c(L.ones(4), [], 0, True)),
    ("fftfreq_int", lambda L: L.fft.fftfreq(4, dtype=L.int64)),
    ("fftfreq_negative", lambda L: L.fft.fftfreq(-2)),
]


@pytest.mark.parametrize("call", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_as_torch(torch: Any, call: Any) -> None:
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(dispatcher)
    assert isinstance(ours.value, type(theirs.value).__mro__[0 if type(theirs.value) in
                                                             (RuntimeError, IndexError, NotImplementedError) else 1])
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def _graph_program(L: Any, x: Any, c: Any) -> tuple:
    return (L.fft.fft(x, n=6), L.fft.ifft(x), L.fft.rfft(x, dim=0), L.fft.irfft(c, n=4), L.fft.hfft(c),
            L.fft.fft2(c, s=(4, 2)), L.fft.rfftn(x), L.fft.fftshift(x), L.fft.hfft2(c), L.fft.ihfftn(x))


@pytest.mark.parametrize("config", ["real", "pre_dispatch", "fake", "core_aten"])
def test_make_fx_graphs_equal_torch_and_replay(torch: Any, config: str) -> None:
    codes = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        if L is dispatcher:
            from tracer import make_fx
            from tracer.decompositions import core_aten_decompositions
        else:
            from torch._decomp import core_aten_decompositions
            from torch.fx.experimental.proxy_tensor import make_fx
        kwargs: dict[str, Any] = {"pre_dispatch": config == "pre_dispatch"}
        if config == "fake":
            kwargs["tracing_mode"] = "fake"
        if config == "core_aten":
            kwargs["decomposition_table"] = core_aten_decompositions()
        traced = make_fx(lambda x, c: _graph_program(L, x, c), **kwargs)  # noqa: B023 - used in this iteration
        gm = traced(_input(L, (3, 5)), _input(L, (3, 5), True))
        codes[which] = gm.code.strip()
        fresh = _input(L, (3, 5), seed=1), _input(L, (3, 5), True, seed=2)
        for a, b in zip(gm(*fresh), _graph_program(L, *fresh)):
            np.testing.assert_allclose(_vals(a), _vals(b), rtol=1e-5, atol=1e-5)
    assert codes["ours"] == codes["torch"]
    if config == "pre_dispatch":  # torch's pre-dispatch tracing keeps the CompositeImplicitAutograd fft_* ops
        assert "aten.fft_fft2.default" in codes["ours"] and "_fft_r2c" not in codes["ours"]
    else:  # below autograd: the three primitives
        assert "_fft_r2c" in codes["ours"] and "_fft_c2r" in codes["ours"] and "_fft_c2c" in codes["ours"]


def _grad_program(L: Any, x: Any, c: Any) -> tuple:
    A = L.ops.aten
    a, b = A._fft_r2c(x, [1], 2, True), A._fft_r2c(x, [0, 1], 1, False)
    d, e = A._fft_c2c(c, [0], 0, True), A._fft_c2r(c, [1], 2, 6)
    nodes = (a.grad_fn.name(), b.grad_fn.name(), d.grad_fn.name(), e.grad_fn.name())
    loss_x = L.view_as_real(a).sum() + (L.view_as_real(b) ** 2).sum()
    loss_c = (L.view_as_real(d) ** 2).sum() + (e * e).sum() + (L.fft.irfft(c, n=5) ** 2).sum()
    gx, gc = L.autograd.grad([loss_x, loss_c], [x, c])
    return gx, gc, nodes


def test_derivatives_as_torch(torch: Any) -> None:
    """FftR2CBackward0 (one- and two-sided), FftC2CBackward0, FftC2RBackward0: node names, gradients (complex ones
    included, torch's conjugate-Wirtinger convention) and the traced backward graph."""
    got, codes = {}, {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        x, c = _input(L, (3, 5)).requires_grad_(), _input(L, (3, 4), True).requires_grad_()
        got[which] = _grad_program(L, x, c)
        if L is dispatcher:
            from tracer import make_fx
        else:
            from torch.fx.experimental.proxy_tensor import make_fx
        gm = make_fx(lambda x, c: _grad_program(L, x, c)[:2])(  # noqa: B023 - used in this iteration
            _input(L, (3, 5)).requires_grad_(), _input(L, (3, 4), True).requires_grad_())
        codes[which] = gm.code.strip()
    assert got["ours"][2] == got["torch"][2] == ("FftR2CBackward0", "FftR2CBackward0", "FftC2CBackward0",
                                                 "FftC2RBackward0")
    for k in range(2):
        np.testing.assert_allclose(_vals(got["ours"][k]), _vals(got["torch"][k]), rtol=1e-4, atol=1e-4)
    assert codes["ours"] == codes["torch"]


#: real-valued losses through the user ops (their CompositeImplicitAutograd decompositions, conj views, padding)
GRAD_PROGRAMS = {
    "fft_abs": lambda L, x, c: L.fft.fft(x).abs().sum(),
    "rfft_real_imag": lambda L, x, c: (L.fft.rfft(x, n=8).real ** 2).sum() + L.fft.rfft(x).imag.sum(),
    "ifft_real_input": lambda L, x, c: L.view_as_real(L.fft.ifft(x).resolve_conj()).sum(),
    "ihfft": lambda L, x, c: (L.fft.ihfft(x).imag * 3).sum(),
    "hfft": lambda L, x, c: (L.fft.hfft(c, n=6) ** 2).sum(),
    "fft2_pad": lambda L, x, c: L.view_as_real(L.fft.fft2(c, s=(4, 6))).sum(),
    "irfftn": lambda L, x, c: (L.fft.irfftn(c) ** 2).sum(),
    "fftshift": lambda L, x, c: (L.fft.fftshift(x) * L.arange(15.0).view(3, 5)).sum(),
}


@pytest.mark.parametrize("program", list(GRAD_PROGRAMS.values()), ids=list(GRAD_PROGRAMS))
def test_user_op_gradients_as_torch(torch: Any, program: Any) -> None:
    grads = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        x, c = _input(L, (3, 5)).requires_grad_(), _input(L, (3, 4), True).requires_grad_()
        grads[which] = L.autograd.grad(program(L, x, c), [x, c], allow_unused=True)
    for ours, theirs in zip(grads["ours"], grads["torch"]):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(_vals(ours), _vals(theirs), rtol=1e-4, atol=1e-4)


def test_where_names_the_family_and_torch_fft() -> None:
    from tracer.op_sources import where

    sources = where("aten.fft_rfft2.default")[0]
    assert sources.family == "fft"
    assert [p.label for p in sources.of_kind("torch-level")] == ["torch.fft.rfft2"]
    assert where("aten._fft_c2r.default")[0].of_kind("autograd")[0].label == "FftC2RBackward0"
