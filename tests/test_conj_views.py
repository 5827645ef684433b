"""Conj views against torch 2.13: the Conjugate / Negative math bits, their fallbacks, the complex views.

Each test runs the same program with torch and with dispatcher (``L`` is the library) and compares values, the
is_conj / is_neg flags, key sets, the op logs a LoggingTensorMode prints, make_fx graphs (post- and pre-dispatch,
replayed on fresh inputs), the TLS a ``__torch_dispatch__`` sees (test_python_dispatch.py's
test_multiple_ops_subclass), errors and gradients through conj views for real-valued losses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher.math_bits import CONJUGATE_FALLTHROUGH, NEGATIVE_FALLTHROUGH, logical_values
from dispatcher.ops.native_functions import NATIVE_FUNCTIONS
from tests.subclass_env import skip_logging_tensor_in_pytest_capture

#: torch's LoggingTensor records cannot be formatted by pytest's capture handlers: they skip them
_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)


def _lib(torch: Any, which: str) -> Any:
    return torch if which == "torch" else dispatcher


def _vals(t: Any) -> np.ndarray:
    if isinstance(t, dispatcher.Tensor):
        return np.asarray(logical_values(t))
    return t.detach().resolve_conj().resolve_neg().numpy()


def _tools(L: Any) -> tuple:
    if L is dispatcher:
        from dispatcher.modes import no_dispatch
        from dispatcher.testing._internal.logging_tensor import LoggingTensorMode, capture_logs
        from tracer import make_fx
    else:
        from torch.fx.experimental.proxy_tensor import make_fx
        from torch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs
        from torch.utils._mode_utils import no_dispatch
    return no_dispatch, LoggingTensorMode, capture_logs, make_fx


def program(L: Any, x: Any) -> tuple:
    y = x.conj()
    z = y.exp() + y
    w = y.imag
    r = y.real
    return z, w * 2, r, y.resolve_conj(), x.conj_physical(), L._neg_view(x).resolve_neg(), L.mm(y.view(2, 2), x.view(2, 2))


def _x(L: Any) -> Any:
    return L.tensor([1 + 2j, 3 - 4j, -0.5 + 0.25j, 2j])


def test_fake_tensors_carry_the_bits(torch: Any) -> None:
    out = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        if L is dispatcher:
            from dispatcher.fake import FakeTensorMode
        else:
            from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode() as mode:
            fx = mode.from_tensor(_x(L).conj())
            y = fx.conj()
            out[which] = (fx.is_conj(), y.is_conj(), str(L._C._dispatch_keys(fx)), y.imag.is_neg(), (y + 1).is_conj(),
                          tuple(L.view_as_real(y.resolve_conj()).shape))
    assert out["ours"] == out["torch"]


def test_flags_keys_values_and_repr(torch: Any) -> None:
    out = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        x = _x(L)
        y = x.conj()
        a = L.tensor([1.0, -2.0])
        out[which] = [
            (y.is_conj(), L.is_conj(y), y.imag.is_neg(), y.real.is_neg(), y.conj().is_conj(), y.t().is_conj(),
             y[1:].is_conj(), y.clone().is_conj(), L.empty_like(y).is_conj(), y.resolve_conj().is_conj(),
             L._neg_view(a).is_neg(), x.imag.is_neg()),
            str(L._C._dispatch_keys(y)), str(L._C._dispatch_keys(y.imag)),
            repr(y), repr(y.imag), repr(L._neg_view(x)), repr(y.reshape(2, 2).t()),
            (a.conj() is a, a.real is a, a.resolve_conj() is a, a.conj_physical() is a, a.resolve_neg() is a),
            y.imag._base is x, y._base is x,
            [_vals(t).tolist() for t in (y, y.imag, y.real, y.conj_physical(), L.view_as_real(x), y.exp())],
        ]
    assert out["ours"] == out["torch"]


def test_mutation_through_conj_and_neg_views_writes_back(torch: Any) -> None:
    out = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        res = []
        for step in ("add_", "mul_", "conj_physical_", "copy_", "neg_imag"):
            c = _x(L)
            v = c.conj()
            if step == "add_":
                v.add_(1)
            elif step == "mul_":
                v.mul_(1j)
            elif step == "conj_physical_":
                v.conj_physical_()
            elif step == "copy_":
                v.copy_(L.tensor([1j, 2, 3, 4 - 1j]))
            else:
                v.imag.mul_(3)
            res.append((c.numpy().tolist(), _vals(v).tolist(), v.is_conj()))
        out[which] = res
    assert out["ours"] == out["torch"]


def test_errors_as_torch(torch: Any) -> None:
    def run(L: Any) -> list:
        got = []
        for f in (lambda: L.view_as_real(_x(L).conj()), lambda: L.tensor([1.0]).imag,
                  lambda: L.view_as_real(L.tensor([1.0])), lambda: L.view_as_complex(L.ones(3, 3)),
                  lambda: L.view_as_complex(L.ones(2, 2).t()), lambda: _x(L).conj().numpy(),
                  lambda: L._neg_view(L.ones(2)).numpy()):
            try:
                f()
                got.append(None)
            except Exception as e:  # noqa: BLE001 - compared with torch's
                got.append((type(e).__name__, str(e)))
        return got

    assert run(dispatcher) == run(torch)


def test_fallthrough_lists_match_torch(torch: Any) -> None:
    listed = {op.name for op in NATIVE_FUNCTIONS}
    for key, ours in (("Conjugate", CONJUGATE_FALLTHROUGH), ("Negative", NEGATIVE_FALLTHROUGH)):
        theirs = set()
        for name in listed:
            table = torch._C._dispatch_dump_table("aten::" + name)
            line = next((ln for ln in table.splitlines() if ln.startswith(key + ":")), "")
            if "fallthrough" in line and "[kernel]" in line:
                theirs.add(name)
        assert set(ours) & listed == theirs, key
        for name in ("clone", "view", "mm" if key == "Conjugate" else "neg_"):  # our tables say the same
            line = next(ln for ln in dispatcher._C._dispatch_dump_table("aten::" + name).splitlines()
                        if ln.startswith(key + ":"))
            assert "fallthrough" in line, line
        line = next(ln for ln in dispatcher._C._dispatch_dump_table("aten::exp").splitlines()
                    if ln.startswith(key + ":"))
        assert "fallback" in line and "fallthrough" not in line, line


def test_logging_mode_logs_equal_torch(torch: Any) -> None:
    logs = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        _, LoggingTensorMode, capture_logs, _ = _tools(L)
        x = _x(L)
        with capture_logs(is_mode=True) as got, LoggingTensorMode():
            program(L, x)
        logs[which] = list(got)
    assert logs["ours"] == logs["torch"]
    assert any("clone" in line for line in logs["ours"])  # the Conjugate fallback's materializing clone


@pytest.mark.parametrize("config", ["real", "pre_dispatch", "fake", "core_aten"])
def test_make_fx_graphs_equal_torch_and_replay(torch: Any, config: str) -> None:
    codes = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        make_fx = _tools(L)[3]
        if L is dispatcher:
            from tracer.decompositions import core_aten_decompositions
        else:
            from torch._decomp import core_aten_decompositions
        kwargs: dict[str, Any] = {"pre_dispatch": config == "pre_dispatch"}
        if config == "fake":
            kwargs["tracing_mode"] = "fake"
        if config == "core_aten":
            kwargs["decomposition_table"] = core_aten_decompositions()

        def f(x: Any, L: Any = L) -> tuple:
            return program(L, x)

        gm = make_fx(lambda x: f(x), **kwargs)(_x(L))
        codes[which] = gm.code.strip()
        fresh = L.tensor([0.5 - 1j, 2 + 2j, -3j, 1.5 + 0j])
        for a, b in zip(gm(fresh), program(L, fresh)):
            np.testing.assert_allclose(_vals(a), _vals(b), rtol=1e-6)
    assert codes["ours"] == codes["torch"]


def _multiple_ops_subclass(L: Any) -> tuple:
    no_dispatch = _tools(L)[0]
    seen = []

    class MySubclass(L.Tensor):
        @staticmethod
        def __new__(cls, elem):  # noqa: ANN001, ANN205
            return L.Tensor._make_subclass(cls, elem)

        __torch_function__ = L._C._disabled_torch_function_impl

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN206
            seen.append((str(func), str(L._C._dispatch_tls_local_include_set()),
                         str(L._C._dispatch_tls_local_exclude_set())))
            with no_dispatch():
                return func(*args, **(kwargs or {}))

    x = MySubclass(L.rand(2, 2, dtype=L.complex64))
    y = x.conj()
    z = y.exp()
    with no_dispatch():
        expected = np.exp(np.conj(_vals(x.detach() if L is dispatcher else x)))
    np.testing.assert_allclose(_vals(z), expected, rtol=1e-5)
    return (type(y).__name__, str(L._C._dispatch_keys(x)), str(L._C._dispatch_keys(y)), str(L._C._dispatch_keys(z)),
            y.is_conj(), seen)


def test_multiple_ops_subclass_program_and_tls(torch: Any) -> None:
    """test_python_dispatch.py's test_multiple_ops_subclass: ``_conj`` of a ``_make_subclass`` subclass under
    no_dispatch gives a plain tensor with the Conjugate key; exp then runs the Conjugate fallback (clone), no
    __torch_dispatch__; the TLS inside the handler excludes every key above Python, Conjugate / Negative included."""
    ours, theirs = _multiple_ops_subclass(dispatcher), _multiple_ops_subclass(torch)
    assert ours == theirs
    assert "Conjugate" in ours[2] and "Conjugate" in ours[5][0][2]


def test_grads_through_conj_views_for_real_losses(torch: Any) -> None:
    grads = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        x = _x(L).requires_grad_()
        w = L.tensor([1.0, 2.0, -1.0, 0.5])
        y = x.conj()
        loss = (y.imag * w).sum() + (y.real ** 2).sum() + (L.view_as_real(x.conj_physical()) ** 2).sum()
        loss.backward()
        names = [type(t.grad_fn).__name__ for t in (y, y.imag, x.conj_physical(), L._neg_view(x), L.view_as_real(x))]
        grads[which] = (names, _vals(x.grad).tolist())
    assert grads["ours"] == grads["torch"]


def test_random_complex_draws_both_parts() -> None:
    dispatcher.manual_seed(0)
    x = dispatcher.randn(20000, dtype=dispatcher.complex128)
    re, im = np.asarray(x.real._data), np.asarray(x.imag._data)
    assert abs(re.var() - 0.5) < 0.03 and abs(im.var() - 0.5) < 0.03  # torch: variance 1/2 per part
    u = dispatcher.rand(1000, dtype=dispatcher.complex64)
    assert (np.asarray(u.imag._data) > 0).mean() > 0.9 and (np.asarray(u.real._data) < 1).all()


def test_conjugating_transposes_as_torch(torch: Any) -> None:
    """``mH`` / ``H`` / ``adjoint()`` are ``transpose`` + ``Tensor::conj`` (``_conj`` for complex), ``mT`` not."""
    codes = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        make_fx = _tools(L)[3]
        x = L.tensor([[1 + 2j, 3], [1j, 2]])
        gm = make_fx(lambda x: (x.mH, x.H, x.adjoint(), x.mT))(x)
        codes[which] = gm.code.strip()
        assert [o.is_conj() for o in gm(x)] == [True, True, True, False]
        np.testing.assert_allclose(_vals(x.mH), np.conj(_vals(x)).T)
    assert codes["ours"] == codes["torch"]


def test_reading_and_mixing_conj_views_as_torch(torch: Any) -> None:
    """Python-side reads resolve the bits; ops mixing bit / no-bit inputs go through the fallbacks."""
    out = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        x = _x(L)
        y = x.conj()
        out[which] = [
            y[0].item(), y.tolist(), y.imag.tolist(), complex(y[1]), float(y.imag[0]), (y == x).tolist(),
            L.equal(y, x.conj_physical()), L.allclose(y, x.conj_physical()), y.contiguous().is_conj(),
            y.to(L.complex128).is_conj(), y.detach().is_conj(), L.stack([y, x]).tolist(), L.cat([y.imag, x.imag]).tolist(),
            y[L.tensor([1, 0])].tolist(), y.sum().item(), y.imag.abs().tolist(),
        ]
        n = L._neg_view(L.tensor([1.0, 2.0]))
        n.neg_()
        out[which] += [n.is_neg(), n.tolist()]
    assert out["ours"] == out["torch"]


@pytest.mark.parametrize("loss", ["exp", "mul", "mm", "sin", "cos", "real_weight", "abs"])
def test_complex_grads_of_conj_programs(torch: Any, loss: str) -> None:
    """Real-valued losses of conj programs: the formulas conjugate as torch's (``grad * other.conj()``, ``grad *
    result.conj()``, ``mm_mat1_backward``'s ``mat2.t().conj()`` ...), a real input gets the real part."""
    grads = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        x = _x(L).requires_grad_()
        w = L.tensor([1.0, 2.0, -1.0, 0.5], requires_grad=True)
        y = x.conj()
        value = {
            "exp": lambda: y.exp().real.sum(),  # noqa: B023 - called at once
            "mul": lambda: (y * x).imag.sum() + (y * y).real.sum(),  # noqa: B023
            "mm": lambda: L.mm(y.view(4, 1), x.view(1, 4)).imag.sum(),  # noqa: B023
            "sin": lambda: y.sin().imag.sum(),  # noqa: B023
            "cos": lambda: y.cos().real.sum(),  # noqa: B023
            "real_weight": lambda: (y * w).imag.sum(),  # noqa: B023
            "abs": lambda: (y * w).abs().sum(),  # noqa: B023 - a complex magnitude is real, as torch's
        }[loss]()
        value.backward()
        grads[which] = (np.round(_vals(x.grad), 4).tolist(), w.grad is None or (str(w.grad.dtype), _vals(w.grad).tolist()))
    assert grads["ours"] == grads["torch"]


def test_setting_real_and_imag_through_views(torch: Any) -> None:
    out = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        x = _x(L)
        y = x.conj()
        x.real = L.tensor([5.0, 6.0, 7.0, 8.0])
        y.imag = L.tensor([1.0, 1.0, 1.0, 1.0])  # writes -1 into x's imaginary parts, through the neg bit
        out[which] = (x.tolist(), y.tolist(), y.is_conj())
    assert out["ours"] == out["torch"]


def test_logging_tensor_wrapping_a_conj_view(torch: Any) -> None:
    """A wrapper subclass (LoggingTensor) around a conj view: the wrapper has no Conjugate key (its element has),
    so ops reach its __torch_dispatch__ unresolved and ``imag`` fails in view_as_real, as in torch."""
    out = {}
    for which in ("torch", "ours"):
        L = _lib(torch, which)
        if L is dispatcher:
            from dispatcher.testing._internal.logging_tensor import LoggingTensor, capture_logs, log_input
        else:
            from torch.testing._internal.logging_tensor import LoggingTensor, capture_logs, log_input
        x = LoggingTensor(_x(L))
        with capture_logs() as logs:
            log_input("x", x)
            y = x.conj()
            y.exp()
            (y * 2).sum()
        try:
            _ = y.imag
            error = None
        except RuntimeError as e:
            error = str(e)
        out[which] = (y.is_conj(), str(L._C._dispatch_keys(y)), list(logs), error)
    assert out["ours"] == out["torch"]
