"""make_fx parity and Python surface for diagonals, moves and splits (``diagonal`` / ``diag`` / ``diag_embed``, ``movedim``,
``swapaxes``, ``unflatten``, ``tensor_split``, ``hstack`` / ``vstack``, ...) against torch 2.13.

Each program is written once against ``T`` (torch or dispatcher) and ``F`` (its nn.functional) and traced by
both libraries on the same data: post-dispatch, pre-dispatch, fake and core-ATen-decomposed graphs must call the
same targets in the same order; post-dispatch code must be identical; graphs replayed on fresh inputs must give
eager's values; backward programs must give torch's gradients; ``tracer.compile(backend="numpy")`` must give
eager's values. The argument parsing of the torch-level functions and Tensor methods is compared call for call
with torch's under a logging dispatch mode (tests/test_frontend.py's harness), and a TorchFunctionMode sees them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tests import op_program_checks as K
from tests.test_frontend import _run_both, _split, make_inputs
from tracer import make_fx


def p_diagonals(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, v, b):
        d = x.diagonal() + x.diagonal(1)[:3].sum()
        m = T.diag(v) + T.diag(v, 1)[1:, :-1]
        e = T.diag_embed(b, 1) + b.diag_embed(-1, 0, 2).sum()
        return d, m * x.diag(-1).sum() + T.diagonal(b, 0, 2, 0).sum(), e, T.diag(x, 1)
    return f


def p_reshaping(T: Any, F: Any) -> Callable[..., Any]:
    def f(b, x):
        a = b.movedim(-1, 0) + T.moveaxis(b, (0, 1), (1, 0)).sum()
        c = T.swapaxes(b, 0, 2) * b.swapdims(0, 2)
        u = x.unflatten(1, (2, 2)) + T.unflatten(x, -1, (-1, 1)).sum()
        p, q = x.split([1, 2])
        r = T.tensor_split(b, 3, dim=2)
        s = x.tensor_split([1, 3], 1)
        h = T.hstack([p, q[:1], s[1].T[:1]])
        w = T.vstack([x, x[0]])
        return a, c, u, h, w, r[0] * r[2], s[0] + s[2]
    return f


def p_diagonals_backward(T: Any, F: Any) -> Callable[..., Any]:
    # one chain, each result used once (pre-dispatch traces accumulate repeated uses with add_ in torch, add here)
    def f(x, w, v):
        d = (x @ w).diagonal(1) * v[:3]
        f = T.diag(T.diag_embed(d).movedim(0, 1), -1)  # diag of a matrix: diagonal_copy
        k = T.diag(f, 1).unflatten(1, (3, 1)).swapaxes(0, 1)
        loss = T.diagonal(k, 0, 0, 1).sum()
        loss.backward()
        return loss, w.grad
    return f


def p_inplace_views(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, v):
        a = x.clone()
        a.t_()
        a.unsqueeze_(0).transpose_(1, 2)
        b = v * 2
        b.unsqueeze_(-1).unsqueeze_(0)
        b.squeeze_((0,)).t_()
        c = (a + 1).squeeze_()
        return a * 2, b + c[:1], c
    return f


def p_inplace_views_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(a, w):
        b = a @ w
        b.t_()
        b.unsqueeze_(0)
        b.transpose_(1, 2)
        b.squeeze_()
        b.unsqueeze_(-1).squeeze_((2,))
        loss = (b * b.detach()).sum()
        loss.backward()
        return loss, w.grad
    return f


def p_index_ops(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, s):
        idx = T.arange(2) * 2  # rows 0 and 2
        a = T.index_copy(x, 0, idx, s) + x.index_fill(1, idx, -1.0)
        b = x.clone()
        b.index_copy_(0, idx, s * 2)
        b.index_fill_(1, idx[:1], T.ones(()))
        c = x.index_add(0, idx, s, alpha=0.5)
        return a, b, c, x.index_fill(0, idx, T.zeros(()))
    return f


def p_index_ops_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, s):
        idx = T.arange(2) * 2
        h = (x @ w).index_copy(0, idx, s).index_fill(1, idx, 0.5)
        loss = (h * h.detach()).sum()
        loss.backward()
        return loss, w.grad
    return f


def p_nan_reductions(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, b):
        z = x.log()  # NaN where x < 0
        mn, mx = T.aminmax(x, dim=1)
        r = x.aminmax(dim=0, keepdim=True)
        return (T.nansum(z, 1), z.nansum(), T.nanmean(z, 0, keepdim=True), z.nanmean((0, 1)), mn, mx, r.min, r.max,
                T.aminmax(b).max, T.nansum(b, dtype=T.float64))
    return f


def p_nan_reductions_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        n = T.nansum((x @ w).log(), 1, keepdim=True)
        loss = T.aminmax(n * 1.5, dim=0).max.sum()  # (one output: torch's pre-dispatch accumulates with add_)
        loss.backward()
        return loss, w.grad
    return f


def p_random(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        a = T.empty(3, 4).uniform_(-1, 1)
        b = T.empty(3).normal_()
        c = T.empty(2).normal_(0.5, 2.0).uniform_()
        return a, b, c, T.bernoulli(x.sigmoid()), x.bernoulli(0.25)
    return f


#: name -> (program, input shapes (float32), inputs requiring grad)
PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "diagonals": (p_diagonals, [(3, 4), (4,), (2, 3, 4)], ()),
    "reshaping": (p_reshaping, [(2, 3, 6), (3, 4)], ()),
    "inplace_views": (p_inplace_views, [(3, 4), (4,)], ()),
    "index_ops": (p_index_ops, [(3, 4), (2, 4)], ()),
    "nan_reductions": (p_nan_reductions, [(3, 4), (2, 3, 4)], ()),
}

#: programs that call backward() themselves: gradients compared with torch's (w requires grad)
BACKWARD_PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "diagonals_backward": (p_diagonals_backward, [(4, 3), (3, 4), (4,)], (1,)),
    "inplace_views_backward": (p_inplace_views_backward, [(3, 4), (4, 5)], (1,)),
    "index_ops_backward": (p_index_ops_backward, [(3, 4), (4, 5), (2, 5)], (1,)),
    "nan_reductions_backward": (p_nan_reductions_backward, [(3, 4), (4, 5)], (1,)),
}

#: programs drawing random numbers: graphs compared with torch's, values only with ours under the same seed
RANDOM_PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "random": (p_random, [(3, 4)], ()),
}


def _trace_both(torch: Any, prog: Any, shapes: list, rg: tuple[int, ...], config: str) -> tuple[Any, Any]:
    return K.trace_both(torch, prog, C.arrays(shapes, 0), rg, config)


# test_same_targets_as_torch, test_post_dispatch_code_matches_torch, test_replay_on_fresh_inputs_matches_eager,
# test_eager_values_match_torch, test_gradients_match_torch, test_compile_numpy_backend_matches_eager
globals().update(K.program_tests(PROGRAMS, BACKWARD_PROGRAMS, traced_only=RANDOM_PROGRAMS))


@pytest.mark.parametrize("config", ["post", "core"])
def test_random_graph_replays_eagers_draws_under_the_same_seed(torch: Any, config: str) -> None:
    prog, shapes, rg = RANDOM_PROGRAMS["random"]
    _, gm_o = _trace_both(torch, prog, shapes, rg, config)
    fresh = C.arrays(shapes, 1)
    D.manual_seed(7)
    expected = C.to_np(list(prog(D, DF)(*C.inputs(D, fresh, rg))))
    D.manual_seed(7)
    got = C.to_np(list(gm_o(*C.inputs(D, fresh, ()))))
    if config == "post":
        C.assert_close(expected, got)
    else:  # the core graph draws bernoulli's numbers with rand: same shapes and 0 / 1 values, not the same draws
        assert [np.shape(e) for e in expected] == [np.shape(g) for g in got]
        assert set(np.unique(got[3])) <= {0.0, 1.0}


# --- Python surface: the aten calls of each binding, as torch's parser makes them ---------------------------------

SURFACE_EXPRS = """
x.diagonal() | x.diagonal(1) | x.diagonal(0, 1, 0) | x.diagonal(offset=-1) | x.diagonal(dim1=1, dim2=0) | T.diagonal(x)
T.diagonal(bb, 1, 2, 0) | T.diagonal(bb, offset=0, dim1=-1, dim2=0) | T.diagonal_copy(x, 1) | T.diagonal_copy(x)
T.diagonal_scatter(x, v[:3]) | x.diagonal_scatter(v[:3], 1) | T.diagonal_scatter(x, v[:2], -1, 0, 1)
x.diag() | x.diag(1) | T.diag(v) | T.diag(v, -2) | T.diag(x, diagonal=1) | v.diag_embed() | T.diag_embed(x, 1)
T.diag_embed(x, -1, 0, 2) | x.diag_embed(dim1=0, dim2=1) | T.diag_embed(x, offset=0, dim1=-2, dim2=-1)
bb.movedim(0, 2) | bb.movedim(-1, 0) | T.movedim(bb, (0, 1), (2, 0)) | T.movedim(bb, [0], [1]) | bb.moveaxis(1, 0)
T.moveaxis(bb, (0,), (2,)) | s0.movedim(0, 0) | T.swapaxes(bb, 0, 2) | bb.swapaxes(1, -1) | T.swapdims(x, 0, 1)
x.swapdims(1, 0) | x.unflatten(1, (2, 2)) | x.unflatten(-1, [-1, 4]) | T.unflatten(bb, 0, (1, 2)) | v.unflatten(0, (2, 2))
x.split([1, 2]) | x.split([1, 3], 1) | x.split((2, 2), dim=1) | T.split(x, [2, 1]) | x.split(2)
T.tensor_split(x, 2) | T.tensor_split(x, 3, 1) | T.tensor_split(x, [1, 2]) | x.tensor_split((1, 3), dim=1)
T.tensor_split(x, sections=2) | T.tensor_split(x, indices=[1]) | x.tensor_split(i) | x.tensor_split(i, 1)
T.hstack([x, y]) | T.hstack((v, v)) | T.hstack([s0, s0]) | T.hstack([bb, bb]) | T.vstack([x, y]) | T.vstack((v, v))
T.vstack([s0, s0]) | T.vstack([x, v])
x.clone().t_() | v.clone().t_() | x.clone().transpose_(0, 1) | bb.clone().transpose_(-1, 0) | x.clone().unsqueeze_(1)
x.clone().unsqueeze_(-1) | bb[:1].clone().squeeze_() | bb[:1].clone().squeeze_(0) | bb[:1].clone().squeeze_((0, 2))
x.clone().unsqueeze_(0).squeeze_([0])
T.index_copy(x, 0, i, y[:2]) | x.index_copy(1, i, y[:, :2]) | x.clone().index_copy_(0, i, y[:2])
T.index_fill(x, 1, i, 2) | x.index_fill(0, i, -1.5) | x.index_fill(1, i, s0) | x.clone().index_fill_(1, i, 0)
x.clone().index_fill_(0, i, s0) | T.index_add(x, 0, i, y[:2]) | x.index_add(1, i, y[:, :2], alpha=2)
x.clone().index_add_(0, i, y[:2]) | x.clone().index_add_(0, i, y[:2], alpha=-1) | T.masked_select(x, b)
x.masked_select(b) | T.masked_select(v, b)
T.nansum(x) | T.nansum(x, 1) | x.nansum((0, 1), keepdim=True) | x.nansum(dtype=T.float64) | xi.nansum(0) | T.nanmean(x)
x.nanmean(1) | T.nanmean(x, [0], True) | x.nanmean(dim=1, dtype=T.float64) | T.aminmax(x) | T.aminmax(x, dim=1)
x.aminmax(dim=0, keepdim=True) | xi.aminmax() | b.clone().logical_not_() | x.clone().logical_not_()
x.new_tensor([1, 2]) | x.new_tensor(2.5) | xi.new_tensor([[1.5]]) | x.new_tensor([1], dtype=T.int64) | T.is_floating_point(x)
x.clone().uniform_() | x.clone().uniform_(-1, 1) | x.clone().uniform_(0.5) | x.clone().normal_() | x.clone().normal_(1)
x.clone().normal_(0, 2.5) | T.bernoulli(x.sigmoid()) | x.sigmoid().bernoulli() | x.bernoulli(0.5) | T.bernoulli(x, 1)
"""


@pytest.mark.parametrize("expr", _split(SURFACE_EXPRS))
def test_bindings_call_torchs_overloads(torch: Any, expr: str) -> None:
    _run_both(torch, expr)


ERROR_EXPRS = """
x.diagonal(0, 0, 0) | T.diagonal(s0) | x.diag_embed(0, 0, 0) | bb.diag() | T.diag(s0) | bb.movedim((0, 1), (1,))
bb.movedim((0, 0), (1, 2)) | bb.movedim(0, 3) | x.unflatten(1, ()) | x.unflatten(1, (3, 2)) | T.tensor_split(x, 0)
T.tensor_split(s0, 2) | T.hstack([]) | T.vstack([]) | T.hstack([x, v]) | x.split([1, 1]) | T.diagonal_scatter(x, v)
bb.clone().t_() | x.clone().transpose_(0, 2) | x.clone().unsqueeze_(3) | x.clone().squeeze_((0, 0))
x.requires_grad_().t_() | x.requires_grad_().unsqueeze_(0)
T.diagonal(x, 1.5) | x.diagonal(1.5) | T.diag_embed(x, 1.5) | x.diag_embed(0, 1.5) | T.diag(x, 1.5) | x.diag(1.5)
x.diagonal_scatter(v, 0.5) | T.diagonal_scatter(x, v[:3], 0, 1.0)
x.index_copy(0, i, y) | x.index_copy(0, i.float(), y[:2]) | x.index_fill(2, i, 1) | x.index_fill(0, i, v)
x.masked_select(x) | T.masked_select(x, b[:2])
T.nanmean(xi) | T.aminmax(x[:0]) | x.nansum(2) | x.clone().uniform_(1, 0) | x.clone().normal_(0, -1) | T.bernoulli(x + 2)
x.bernoulli(1.5) | xi.clone().uniform_() | xi.clone().normal_()
"""


@pytest.mark.parametrize("expr", _split(ERROR_EXPRS))
def test_binding_errors_match_torch(torch: Any, expr: str) -> None:
    K.same_error(torch, expr, make_inputs)


def test_torch_function_mode_sees_the_functions_and_methods(torch: Any) -> None:
    def calls(T: Any, x: Any) -> None:
        T.diagonal(x, 1)
        x.diag()
        T.diag_embed(x)
        T.movedim(x, 0, 1)
        x.swapaxes(0, 1)
        T.unflatten(x, 1, (2, 2))
        T.tensor_split(x, 2)
        T.hstack([x, x])
        T.vstack([x, x])
        T.index_copy(x, 0, T.zeros(1, dtype=T.int64), x[:1])
        x.index_fill(0, T.zeros(1, dtype=T.int64), 1)
        T.masked_select(x, x > 0)

    want = K.torch_function_names(torch, (3, 4), calls)
    assert want[:3] == ["diagonal", "diag", "diag_embed"]


def test_masked_select_has_a_data_dependent_shape_under_fake_tensors(torch: Any) -> None:
    """A FakeTensorMode refuses masked_select (DynamicOutputShapeException) as torch's does. make_fx's fake mode
    has no symbolic shapes here, so it refuses the op with a TracingError naming it (torch traces it)."""
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeMode

    from dispatcher.fake import FakeTensorMode

    def prog(x):
        return x.masked_select(x > 0)

    def refusal(mode: Any, x: Any) -> str:
        with mode:
            fx = mode.from_tensor(x)
            try:
                prog(fx)
            except Exception as e:  # noqa: BLE001 - the exception is the result under test
                return type(e).__name__
        return "no error"

    assert refusal(TorchFakeMode(), torch.ones(3)) == refusal(FakeTensorMode(), D.ones(3)) == (
        "DynamicOutputShapeException")
    from tracer.proxy_tensor import TracingError

    with pytest.raises(TracingError, match="aten.masked_select.default"):
        make_fx(prog, tracing_mode="fake")(D.ones(3))


# --- inference_mode -----------------------------------------------------------------------------------------------


def test_inference_mode_switches_grad_and_inference_flags_as_torch(torch: Any) -> None:
    def states(T: Any) -> list[tuple[bool, bool]]:
        out = [(T.is_grad_enabled(), T.is_inference_mode_enabled())]
        with T.inference_mode():
            out.append((T.is_grad_enabled(), T.is_inference_mode_enabled()))
            with T.inference_mode(False):
                out.append((T.is_grad_enabled(), T.is_inference_mode_enabled()))
            with T.enable_grad():
                out.append((T.is_grad_enabled(), T.is_inference_mode_enabled()))
            out.append((T.is_grad_enabled(), T.is_inference_mode_enabled()))
        with T.no_grad(), T.inference_mode(False):
            out.append((T.is_grad_enabled(), T.is_inference_mode_enabled()))

        @T.inference_mode
        def bare() -> tuple[bool, bool]:
            return T.is_grad_enabled(), T.is_inference_mode_enabled()

        @T.inference_mode(mode=False)
        def off() -> tuple[bool, bool]:
            return T.is_grad_enabled(), T.is_inference_mode_enabled()

        out += [bare(), off()]
        try:
            with T.inference_mode():
                raise KeyError("x")
        except KeyError:
            out.append((T.is_grad_enabled(), T.is_inference_mode_enabled()))
        return out

    assert states(D) == states(torch)


def p_inference(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        with T.inference_mode():
            y = F.relu(x @ w)
        return y + 1, y.requires_grad
    return f


@pytest.mark.parametrize("config", ["post", "pre"])
def test_inference_mode_graph_matches_torch(torch: Any, config: str) -> None:
    arrays = C.arrays([(2, 3), (3, 4)], 0)
    gm_t, gm_o = K.trace_both(torch, p_inference, arrays, (1,), config)
    assert gm_o.code.strip() == gm_t.code.strip()
    theirs = p_inference(torch, torch.nn.functional)(*C.inputs(torch, arrays, (1,)))
    ours = p_inference(D, DF)(*C.inputs(D, arrays, (1,)))
    assert ours[1] is theirs[1] is False
    C.assert_close(C.to_np([theirs[0]]), C.to_np([ours[0]]))
