"""torch.linalg.lstsq (aten ``linalg_lstsq``) and ``linalg_pinv.atol_rtol_tensor`` against the torch 2.13 oracle.

Values, shapes, dtypes and strides of the four outputs per driver (gels / gelsy / gelsd / gelss) and per right-hand
side kind (matrix, vector, batched vector, broadcast batch, empty); the rank-deficient rules (residuals dropped,
gels's LinAlgError); errors (class and message); meta and fake tensors; the named tuple; gradients of solution and
residuals (LinalgLstsqBackward0) and of pinv (LinalgPinvBackward0); make_fx graphs (real and pre-dispatch) equal to
torch's and replayed on fresh inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tracer import make_fx

DRIVERS = [None, "gels", "gelsy", "gelsd", "gelss"]
SHAPES = [((4, 3), (4, 2)), ((3, 4), (3, 2)), ((4, 3), (4,)), ((2, 4, 3), (2, 4)), ((1, 4, 3), (2, 4, 2)),
          ((0, 3), (0, 2)), ((4, 0), (4, 2)), ((0, 4, 3), (0, 4, 2)), ((1, 4, 3), (4, 2))]
FIELDS = ("solution", "residuals", "rank", "singular_values")


def _arrays(seed: int, *shapes: tuple[int, ...], dtype: str = "float64") -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        a = rng.standard_normal(s)
        if dtype.startswith("complex"):
            a = a + 1j * rng.standard_normal(s)
        out.append(a.astype(dtype))
    return out


def _outcome(fn: Any) -> tuple:
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return ("error", type(e).__name__, str(e).splitlines()[0])
    return ("ok", r)


def _check_result(theirs: Any, ours: Any, atol: float = 1e-8) -> None:
    assert type(ours).__name__ == "linalg_lstsq"
    for f in FIELDS:
        t, o = getattr(theirs, f), getattr(ours, f)
        assert tuple(o.shape) == tuple(t.shape), f
        assert str(o.dtype) == str(t.dtype), f
        assert o.stride() == t.stride(), f
        np.testing.assert_allclose(o.numpy(), t.numpy(), atol=atol, rtol=1e-6, err_msg=f)


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_values_per_driver(torch: Any, driver: str | None, shapes: tuple) -> None:
    a, b = _arrays(0, *shapes)
    theirs = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver=driver)
    ours = D.linalg.lstsq(D.from_numpy(a), D.from_numpy(b), driver=driver)
    _check_result(theirs, ours)


@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128"])
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd"])
def test_other_dtypes(torch: Any, dtype: str, driver: str) -> None:
    a, b = _arrays(1, (5, 3), (5, 2), dtype=dtype)
    theirs = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver=driver)
    ours = D.linalg.lstsq(D.from_numpy(a), D.from_numpy(b), driver=driver)
    _check_result(theirs, ours, atol=1e-4 if dtype.endswith("64") and dtype != "complex128" else 1e-8)


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss", "GELSD"])
@pytest.mark.parametrize("rcond", [None, 0.5])
def test_rank_deficient_and_rcond(torch: Any, driver: str, rcond: float | None) -> None:
    """A repeated column: rank 2 (rcond 0.5 can cut more), no residuals for any driver of a deficient batch."""
    a, b = _arrays(2, (2, 5, 3), (2, 5, 2))
    a[1, :, 2] = a[1, :, 1]
    theirs = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), rcond, driver=driver)
    ours = D.linalg.lstsq(D.from_numpy(a), D.from_numpy(b), rcond, driver=driver)
    _check_result(theirs, ours)
    assert ours.residuals.shape == (0,)


def test_gels_zero_matrix_and_errors(torch: Any) -> None:
    """xGELS's quick return for an all-zero matrix (zero solution and residuals); an exactly singular triangular
    factor is torch.linalg.LinAlgError with the 1-based diagonal, and the batch element when batched."""
    a0, b0 = np.zeros((4, 3)), _arrays(3, (4, 2))[0]
    _check_result(torch.linalg.lstsq(torch.from_numpy(a0), torch.from_numpy(b0), driver="gels"),
                  D.linalg.lstsq(D.from_numpy(a0), D.from_numpy(b0), driver="gels"))
    cases = []
    a, b = _arrays(4, (2, 4, 3), (2, 4, 2))
    a[1, :, 0] = 0
    cases.append((a, b))
    a, b = _arrays(5, (4, 3), (4, 2))
    a[:, 1] = 0
    cases.append((a, b))
    a, b = _arrays(6, (3, 4), (3, 2))
    a[1] = 0
    cases.append((a, b))
    for a, b in cases:
        theirs = _outcome(lambda a=a, b=b: torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver="gels"))
        ours = _outcome(lambda a=a, b=b: D.linalg.lstsq(D.from_numpy(a), D.from_numpy(b), driver="gels"))
        assert ours == theirs
        assert theirs[0] == "error"
    with pytest.raises(D.linalg.LinAlgError):
        D.linalg.lstsq(D.from_numpy(a), D.from_numpy(b), driver="gels")
    assert issubclass(D.linalg.LinAlgError, RuntimeError)


ERRORS = [
    lambda L: L.linalg.lstsq(L.randn(3), L.randn(3)),
    lambda L: L.linalg.lstsq(L.randn(4, 3), L.tensor(1.0)),
    lambda L: L.linalg.lstsq(L.randn(4, 3), L.randn(4, 2, dtype=L.float64)),
    lambda L: L.linalg.lstsq(L.ones(4, 3, dtype=L.int64), L.ones(4, 2, dtype=L.int64)),
    lambda L: L.linalg.lstsq(L.ones(4, 3, dtype=L.int64), L.ones(4, 2, dtype=L.int64), 1e-3),
    lambda L: L.linalg.lstsq(L.randn(4, 3, dtype=L.float16), L.randn(4, 2, dtype=L.float16)),
    lambda L: L.linalg.lstsq(L.randn(2, 4, 3), L.randn(4)),
    lambda L: L.linalg.lstsq(L.randn(2, 4, 3), L.randn(5, 1, 4, 2)),
    lambda L: L.linalg.lstsq(L.randn(4, 3), L.randn(5)),
    lambda L: L.linalg.lstsq(L.randn(4, 3), L.randn(5, 2)),
    lambda L: L.linalg.lstsq(L.randn(1, 4, 3), L.randn(2, 4)),
    lambda L: L.linalg.lstsq(L.randn(2, 4, 3), L.randn(4, 2)),
    lambda L: L.linalg.lstsq(L.randn(3, 4, 3), L.randn(2, 4, 2)),
    lambda L: L.linalg.lstsq(L.randn(4, 3), L.randn(4, 2), driver="svd"),
    lambda L: L.linalg.lstsq(L.randn(4, 3), L.randn(4, 2), driver=""),
    lambda L: L.linalg.lstsq(L.randn(4, 3).index_fill(0, L.tensor([0]), float("nan")), L.randn(4, 2)),
    lambda L: L.linalg.lstsq(L.randn(4, 3), L.randn(4, 2).index_fill(0, L.tensor([1]), float("nan")), driver="gels"),
    lambda L: L.linalg.lstsq(L.randn(4, 3, device="meta"), L.randn(4, 2, device="meta")),
    lambda L: L.linalg.pinv(L.randn(3)),
    lambda L: L.linalg.pinv(L.ones(4, 3, dtype=L.int64)),
    lambda L: L.linalg.pinv(L.randn(4, 3), hermitian=True),
    lambda L: L.linalg.pinv(L.randn(4, 3).index_fill(0, L.tensor([0]), float("nan"))),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(torch: Any, i: int) -> None:
    theirs, ours = _outcome(lambda: ERRORS[i](torch)), _outcome(lambda: ERRORS[i](D))
    assert theirs[0] == "error"
    assert ours == theirs


def test_fake_tensors_refuse_dynamic_output_shape(torch: Any) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFake

    from dispatcher.fake import FakeTensorMode

    def run(L: Any, mode: Any) -> tuple:
        with mode:
            return _outcome(lambda: L.linalg.lstsq(L.randn(4, 3), L.randn(4, 2)))
    theirs, ours = run(torch, TorchFake()), run(D, FakeTensorMode())
    assert ours[:2] == theirs[:2] == ("error", "DynamicOutputShapeException")


def test_named_tuple(torch: Any) -> None:
    a, b = _arrays(7, (4, 3), (4, 2))
    theirs = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver="gelsd")
    ours = D.linalg.lstsq(D.from_numpy(a), b=D.from_numpy(b), driver="gelsd")
    assert type(ours).__module__ == type(theirs).__module__ == "torch.return_types"
    assert type(ours).__name__ == type(theirs).__name__ == "linalg_lstsq"
    assert repr(ours).splitlines()[0] == repr(theirs).splitlines()[0] == "torch.return_types.linalg_lstsq("
    assert [line.split("=")[0] for line in repr(ours).splitlines() if "=" in line] == \
        [line.split("=")[0] for line in repr(theirs).splitlines() if "=" in line]
    solution, residuals, rank, sv = ours
    assert solution is ours.solution and rank is ours[2] and len(ours) == 4
    assert D.linalg.lstsq(D.from_numpy(a), D.from_numpy(b)).rank.dtype is D.int64


GRAD_CASES = [((4, 3), (4, 2), "gelsd", True), ((3, 4), (3, 2), None, False), ((4, 3), (4,), "gels", True),
              ((2, 4, 3), (2, 4, 2), "gelss", True), ((4, 3), (4, 2), "gelsy", False),
              ((2, 5, 3), (2, 5), "gelsd", False)]


def _grad_program(L: Any, driver: str | None, use_residuals: bool) -> Any:
    def g(A: Any, B: Any) -> Any:
        r = L.linalg.lstsq(A, B, driver=driver)
        loss = (r.solution * r.solution).sum()
        if use_residuals:
            loss = loss + r.residuals.sum()
        return L.autograd.grad(loss, (A, B))
    return g


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_grads_and_graphs(torch: Any, case: tuple) -> None:
    """Gradients of solution (and residuals) w.r.t. both inputs; the backward graph, post- and pre-dispatch, is
    torch's op for op (linalg_pinv, pinv_backward's products in torch's order); replayed on fresh inputs."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    sa, sb, driver, use_res = case
    a, b = _arrays(8, sa, sb)
    A_t, B_t = (torch.tensor(x, requires_grad=True) for x in (a, b))
    A_d, B_d = (D.tensor(x, requires_grad=True) for x in (a, b))
    r_t, r_d = torch.linalg.lstsq(A_t, B_t, driver=driver), D.linalg.lstsq(A_d, B_d, driver=driver)
    assert type(r_d.solution.grad_fn).__name__ == type(r_t.solution.grad_fn).__name__ == "LinalgLstsqBackward0"
    assert r_d.residuals.grad_fn is r_d.solution.grad_fn
    assert not r_d.rank.requires_grad and not r_d.singular_values.requires_grad
    g_t, g_d = _grad_program(torch, driver, use_res), _grad_program(D, driver, use_res)
    for x, y in zip(g_t(A_t, B_t), g_d(A_d, B_d)):
        np.testing.assert_allclose(y.numpy(), x.numpy(), rtol=1e-7, atol=1e-9)
    for pre in (False, True):
        gm_t = torch_make_fx(g_t, pre_dispatch=pre)(A_t, B_t)
        gm_d = make_fx(g_d, pre_dispatch=pre)(A_d, B_d)
        targets = [str(n.target) for n in gm_d.graph.nodes if n.op == "call_function"]
        assert targets == [str(n.target) for n in gm_t.graph.nodes if n.op == "call_function"]
        a2, b2 = _arrays(9, sa, sb)
        A2, B2 = (D.tensor(x, requires_grad=True) for x in (a2, b2))
        for x, y in zip(gm_d(A2, B2), g_d(A2, B2)):
            np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_forward_graph_records_the_op_whole(torch: Any) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    def f(L: Any) -> Any:
        return lambda A, B: tuple(L.linalg.lstsq(A, B, 1e-3, driver="gelsd"))
    a, b = _arrays(10, (4, 3), (4, 2))
    gm_t = torch_make_fx(f(torch))(torch.from_numpy(a), torch.from_numpy(b))
    gm_d = make_fx(f(D))(D.from_numpy(a), D.from_numpy(b))
    assert [str(n.target) for n in gm_d.graph.nodes] == [str(n.target) for n in gm_t.graph.nodes]
    lstsq_node = next(n for n in gm_d.graph.nodes if "linalg_lstsq" in str(n.target))
    assert lstsq_node.kwargs == {"driver": "gelsd"} and lstsq_node.args[2] == 1e-3
    _check_result(torch.return_types.linalg_lstsq(gm_t(torch.from_numpy(a), torch.from_numpy(b))),
                  type(D.linalg.lstsq(D.from_numpy(a), D.from_numpy(b)))(*gm_d(D.from_numpy(a), D.from_numpy(b))))


@pytest.mark.parametrize("shape,kw", [((4, 3), {}), ((3, 5), {}), ((2, 3, 4), {}), ((4, 3), {"atol": 0.5}),
                                      ((4, 3), {"rtol": [0.5, 1e-3]}), ((3, 3), {"hermitian": True}),
                                      ((0, 3), {})], ids=str)
def test_pinv_values_and_grads(torch: Any, shape: tuple, kw: dict) -> None:
    (a,) = _arrays(11, shape)
    if kw.get("hermitian"):
        a = a + a.T
    def call(L: Any, x: Any) -> Any:
        k = {n: (L.tensor(v, dtype=L.float64) if n in ("atol", "rtol") else v) for n, v in kw.items()}
        return L.ops.aten.linalg_pinv.atol_rtol_tensor(x, **k)
    x_t, x_d = torch.tensor(a, requires_grad=True), D.tensor(a, requires_grad=True)
    p_t, p_d = call(torch, x_t), call(D, x_d)
    assert tuple(p_d.shape) == tuple(p_t.shape) and p_d.stride() == p_t.stride()
    np.testing.assert_allclose(p_d.detach().numpy(), p_t.detach().numpy(), rtol=1e-8, atol=1e-10)
    if p_t.numel():
        assert type(p_d.grad_fn).__name__ == type(p_t.grad_fn).__name__ == "LinalgPinvBackward0"
        (g_t,) = torch.autograd.grad((p_t * p_t).sum(), x_t)
        (g_d,) = D.autograd.grad((p_d * p_d).sum(), x_d)
        np.testing.assert_allclose(g_d.numpy(), g_t.numpy(), rtol=1e-7, atol=1e-9)
    meta = call(D, D.empty(shape, dtype=D.float64, device="meta"))
    assert meta.device.type == "meta" and tuple(meta.shape) == tuple(p_t.shape)


def test_namespace_and_function_mode(torch: Any) -> None:
    """torch.linalg's functions go through __torch_function__ under their aten names; float tolerances of pinv and
    vector_norm give torch's values."""
    def program(L: Any) -> tuple:
        seen: list = []
        base = L.overrides.TorchFunctionMode if L is torch else L.TorchFunctionMode

        class Mode(base):  # type: ignore[misc, valid-type]
            def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
                seen.append(func.__name__)
                return func(*args, **(kwargs or {}))
        a, b = (L.from_numpy(x) for x in _arrays(12, (4, 3), (4, 2)))
        with Mode():
            r = L.linalg.lstsq(a, b)
            p = L.linalg.pinv(a, atol=0.5)
            v = L.linalg.vector_norm(a, 3, dim=1)
        return seen, r.solution.numpy(), p.numpy(), v.numpy()
    theirs, ours = program(torch), program(D)
    assert ours[0] == theirs[0] == ["linalg_lstsq", "linalg_pinv", "linalg_vector_norm"]
    for x, y in zip(theirs[1:], ours[1:]):
        np.testing.assert_allclose(y, x, rtol=1e-10, atol=1e-12)


def test_complex_grads(torch: Any) -> None:
    """Complex inputs: the adjoints (mH) of linalg_lstsq_backward / pinv_backward give torch's gradients."""
    a, b = _arrays(13, (4, 3), (4, 2), dtype="complex128")
    grads = []
    for L in (torch, D):
        A, B = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
        r = L.linalg.lstsq(A, B, driver="gelsd")
        loss = (r.solution * r.solution.conj()).real.sum() + r.residuals.sum()
        grads.append([g.detach().numpy() for g in L.autograd.grad(loss, (A, B))])
    for x, y in zip(*grads):
        np.testing.assert_allclose(y, x, rtol=1e-8, atol=1e-10)


def test_core_aten_config_keeps_the_op(torch: Any) -> None:
    """Neither torch's core_aten_decompositions() nor ours decomposes linalg_lstsq / linalg_pinv: the lowered
    backward graph is the post-dispatch one, op for op."""
    from torch._decomp import core_aten_decompositions as torch_core
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from tracer.decompositions import core_aten_decompositions

    a, b = _arrays(14, (5, 3), (5, 2))
    g_t, g_d = _grad_program(torch, "gelsd", True), _grad_program(D, "gelsd", True)
    gm_t = torch_make_fx(g_t, decomposition_table=torch_core())(torch.tensor(a, requires_grad=True),
                                                                torch.tensor(b, requires_grad=True))
    gm_d = make_fx(g_d, decomposition_table=core_aten_decompositions())(D.tensor(a, requires_grad=True),
                                                                        D.tensor(b, requires_grad=True))
    targets = [str(n.target) for n in gm_d.graph.nodes if n.op == "call_function"]
    assert targets == [str(n.target) for n in gm_t.graph.nodes if n.op == "call_function"]
    assert "aten.linalg_pinv.atol_rtol_tensor" in targets and "aten.linalg_lstsq.default" in targets


def _residual_program(L: Any) -> Any:
    def g(A: Any, B: Any) -> Any:
        r = L.linalg.lstsq(A, B, driver="gelss")
        return L.autograd.grad(r.residuals.sum(), [t for t in (A, B) if t.requires_grad])
    return g


@pytest.mark.parametrize("needs", [(True, False), (False, True)], ids=str)
def test_residuals_only_and_one_input(torch: Any, needs: tuple) -> None:
    """Only the residuals used (no solution gradient: no pinv in the graph), one input requiring grad."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    a, b = _arrays(15, (5, 3), (5,))
    out = []
    for L, mf in ((torch, torch_make_fx), (D, make_fx)):
        A, B = L.tensor(a, requires_grad=needs[0]), L.tensor(b, requires_grad=needs[1])
        g = _residual_program(L)
        out.append(([x.detach().numpy() for x in g(A, B)],
                    [str(n.target) for n in mf(g)(A, B).graph.nodes if n.op == "call_function"]))
    (g_t, targets_t), (g_d, targets_d) = out
    assert targets_d == targets_t and "aten.linalg_pinv.atol_rtol_tensor" not in targets_d
    for x, y in zip(g_t, g_d):
        np.testing.assert_allclose(y, x, rtol=1e-8, atol=1e-10)
