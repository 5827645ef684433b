"""make_fx parity and Python surface for statistics and triangles (``tril`` / ``triu``, ``var`` / ``std`` / ``var_mean`` /
``std_mean``, ``logsumexp``, ...) against torch 2.13.

Each program is written once against ``T`` (torch or dispatcher) and ``F`` (its nn.functional) and traced by
both libraries on the same data: post-dispatch, pre-dispatch, fake and core-ATen-decomposed graphs must call the
same targets in the same order; post-dispatch code must be identical; graphs replayed on fresh inputs must give
eager's values; backward programs must give torch's gradients; ``tracer.compile(backend="numpy")`` must give
eager's values. The argument parsing of the torch-level functions and Tensor methods is compared call for call
with torch's under a logging dispatch mode (tests/test_frontend.py's harness), and a TorchFunctionMode sees them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from tests import op_program_checks as K
from tests.test_frontend import _run_both, _split, make_inputs


def p_causal_attention(T: Any, F: Any) -> Callable[..., Any]:
    def f(q, k, v):
        n = q.shape[-2]
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        keep = T.ones(n, n).tril()
        scores = scores.masked_fill(keep == 0, float("-inf"))
        upper = T.triu(scores, 1)
        return scores.softmax(-1) @ v, upper
    return f


def p_statistics(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        a = x.var(1) + x.std(1, unbiased=False)
        b = T.var(x, 0, keepdim=True).sum() + x.var() + x.std(correction=0)
        v, m = T.var_mean(x, 1, keepdim=True)
        s, m2 = T.std_mean(x, unbiased=False)
        lse = T.logsumexp(x, 1) + x.logsumexp((0, 1))
        return a + lse, b + s + m2, (x - m) / (v + 1).sqrt()
    return f


def p_statistics_backward(T: Any, F: Any) -> Callable[..., Any]:
    # one chain, each result used once (pre-dispatch traces accumulate repeated uses with add_ in torch, add here)
    def f(x, w, y):
        h = (x @ w).triu().tril(1)
        v, m = T.var_mean(h, 0, keepdim=True)
        s, m2 = T.std_mean((v + 1) * m + y, 1, keepdim=True)
        k = (s * m2 + y).var(0, keepdim=True) + y
        loss = k.logsumexp(1).std()
        loss.backward()
        return loss, w.grad
    return f


def p_scans_and_norms(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        c = x.cumsum(1) + T.cumprod(y, 0) + x.flip(0) + T.flip(y, [0, 1])
        p = x.prod(1) + T.prod(y, 0, keepdim=True).sum() + y.prod()
        n = x.norm() + T.norm(y, dim=1) + x.norm(1, 0).sum() + y.norm(float("inf"), 1, keepdim=True).sum()
        ok = (x > 0).all(1).logical_and((y < 1).any(1)).logical_or(x.any()).logical_and(T.all(y, (0, 1)))
        return c, p + n, ok, c.cumsum(0, dtype=T.float64)
    return f


def p_scans_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, y):
        h = (x @ w).cumsum(1).flip(1)
        k = (h * 0.1 + y).cumprod(0).norm(3, 1) + T.norm(y, dim=0).sum()
        loss = (k.prod() + 1) * 2
        loss.backward()
        return loss, w.grad
    return f


def p_indexing_and_shapes(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, idx):
        g = x.gather(1, idx) + T.gather(y, 1, idx)
        s = x.scatter(1, idx, g) + y.scatter(1, idx, 0.5) + T.scatter_add(x, 1, idx, g)
        z = x * 2
        r = x.roll(1, 0) + T.roll(y, (1, -1), (0, 1)) + x.narrow(1, 1, 3).repeat(1, 2)[:, :4]
        t = T.tile(x[0], (3, 1)) + T.outer(x[:, 0], y[0]).select(1, 0).unsqueeze(1)
        v, i = x.topk(2, 1)
        sv, si = T.sort(y, 0, descending=True)
        b = T.baddbmm(x.unsqueeze(0), x.unsqueeze(0)[:, :, :2], y.unsqueeze(0)[:, 1:, :], beta=0.5)
        return s + z + r + t + b[0], v, i, sv, si, y.argsort(1), x.select(0, -1)
    return f


def p_scatter_inplace(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, idx):
        z = x.clone()
        z.scatter_(1, idx, -1.0)
        z.scatter_add_(1, idx, y[:, :2])
        z.scatter_(0, idx[:2], y)
        return z
    return f


def p_indexing_backward(T: Any, F: Any) -> Callable[..., Any]:
    # one chain, each result used once (pre-dispatch traces accumulate repeated uses with add_ in torch, add here)
    def f(x, w):
        h = (x @ w).roll(1, 1).repeat(2, 1)
        h = T.tile(h, (1, 2)).narrow(1, 0, 3)
        v, _ = h.topk(2, 1)
        s, _ = v.sort(0, descending=True)
        loss = s.select(1, 0).sum()
        loss.backward()
        return loss, w.grad
    return f


def p_gather_outer_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, idx):
        h = (x @ w).gather(1, idx)
        loss = T.outer(h.select(1, 0), h.select(1, 1)).sum()
        loss.backward()
        return loss, w.grad
    return f


def p_pad_normalize(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        a = F.pad(x, (1, 2)) + F.pad(y, (0, 3), value=0.5)
        b = F.normalize(F.pad(x, (1, 1, 0, 2), "constant", 2.0), dim=0) + F.normalize(y, p=1)[..., :1].sum()
        return a, b, F.pad(x, (-1, 0))
    return f


def p_pad_normalize_backward(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        h = F.normalize(F.pad(x @ w, (1, 1), value=1.0), p=3, dim=1)
        loss = F.pad(h, (-1, -1, 0, 1)).pow(2).sum()
        loss.backward()
        return loss, w.grad
    return f


#: name -> (program, input shapes (float32), inputs requiring grad)
PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "causal_attention": (p_causal_attention, [(2, 4, 3), (2, 4, 3), (2, 4, 3)], ()),
    "statistics": (p_statistics, [(3, 4)], ()),
    "scans_and_norms": (p_scans_and_norms, [(3, 4), (3, 4)], ()),
    "indexing_and_shapes": (p_indexing_and_shapes, [(3, 4), (3, 4), ("i64", (3, 2), 4)], ()),
    "scatter_inplace": (p_scatter_inplace, [(3, 4), (3, 4), ("i64", (3, 2), 3)], ()),
    "pad_normalize": (p_pad_normalize, [(3, 4), (3, 4)], ()),
}

#: programs tracer.compile(backend="numpy") gets wrong (none since in-place scatter_ keeps its put_along_axis)
_COMPILE_WRONG: set[str] = set()

#: programs that call backward() themselves: gradients compared with torch's (w requires grad)
BACKWARD_PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "statistics_backward": (p_statistics_backward, [(3, 4), (4, 5), (3, 5)], (1,)),
    "scans_backward": (p_scans_backward, [(3, 4), (4, 5), (3, 5)], (1,)),
    "indexing_backward": (p_indexing_backward, [(3, 4), (4, 5)], (1,)),
    "gather_outer_backward": (p_gather_outer_backward, [(3, 4), (4, 5), ("i64", (3, 2), 5)], (1,)),
    "pad_normalize_backward": (p_pad_normalize_backward, [(3, 4), (4, 5)], (1,)),
}

#: pre-dispatch graphs that differ from torch's on purpose or by a known gap (the other configs are compared):
#: outer's saved reshape is recomputed (tracer/saved_inside.py) and gather's backward is not an op of its own here
#: (aten::gather_backward is not listed)
_PRE_DIFFERENT = {"gather_outer_backward"}


# test_same_targets_as_torch, test_post_dispatch_code_matches_torch, test_replay_on_fresh_inputs_matches_eager,
# test_eager_values_match_torch, test_gradients_match_torch, test_compile_numpy_backend_matches_eager
globals().update(K.program_tests(PROGRAMS, BACKWARD_PROGRAMS, skip_targets={("pre", n) for n in _PRE_DIFFERENT},
                                 no_compile=_COMPILE_WRONG))


# --- Python surface: the aten calls of each binding, as torch's parser makes them ---------------------------------

SURFACE_EXPRS = """
x.tril() | x.tril(1) | x.triu(-1) | x.tril(diagonal=2) | T.tril(x) | T.triu(x, 1) | T.triu(bb, diagonal=-1) | b.tril()
x.var() | x.var(1) | x.var(1, unbiased=False) | x.var(correction=0) | x.var(1, True, True) | x.var(True) | x.var(False)
x.var(dim=None) | x.var([1], correction=None) | x.var(1, keepdim=False, correction=2) | x.var(unbiased=True)
x.var(dim=1, unbiased=True) | x.var((0, 1)) | x.var(None, True, True) | x.var(1, False) | x.var(keepdim=True)
x.var(correction=1.0) | x.var(1, correction=0.5) | T.var(x) | T.var(x, 0, keepdim=True) | T.var(x, None, keepdim=True)
T.var(x, dim=1, correction=0) | x.std() | x.std(1) | x.std(0, unbiased=False, keepdim=True) | x.std(correction=2)
T.std(x, [0, 1], correction=2) | T.std(x, False) | T.var_mean(x) | T.var_mean(x, 1) | T.var_mean(x, unbiased=False)
T.var_mean(x, 1, True, True) | T.var_mean(x, [0], correction=0, keepdim=True) | T.std_mean(x) | T.std_mean(x, 1, True)
T.std_mean(x, dim=0, unbiased=False) | T.std_mean(x, correction=0) | T.std_mean(bb, (0, 2), keepdim=True)
x.logsumexp(1) | x.logsumexp((0, 1)) | x.logsumexp(-1, True) | T.logsumexp(x, 1) | T.logsumexp(x, [0], keepdim=True)
T.logsumexp(xi, 1) | T.logsumexp(x, dim=0)
x.cumsum(1) | x.cumsum(dim=0) | T.cumsum(x, 0, dtype=T.float64) | xi.cumsum(1) | x.cumprod(-1) | T.cumprod(xi, 0)
x.prod() | x.prod(1) | x.prod(1, keepdim=True) | x.prod(dtype=T.float64) | T.prod(x, 0, dtype=T.float64) | xi.prod()
b.all() | b.all(1) | b.all((0, 1)) | x.all(dim=None) | x.all(keepdim=True) | b.any() | T.any(b, dim=1, keepdim=True)
x.any([]) | x.any(dim=(1,)) | T.all(b, None, True) | xi.any(0)
x.norm() | x.norm(2, 1) | T.norm(x, dim=1) | x.norm(p=1) | T.norm(x, p='fro') | x.norm(float('inf'), 1, keepdim=True)
x.norm(dim=(0, 1)) | T.norm(x, 2) | x.norm(1.5) | T.norm(x, None) | x.norm(2, None, True) | x.norm(dtype=T.float64)
x.flip(0) | x.flip(0, 1) | x.flip([1]) | T.flip(x, (0,)) | bb.flip(-1, 0)
z = b.clone(); z &= b | z = xi.clone(); z &= xi
x.gather(1, i.view(1, 2).expand(3, 2)) | T.gather(x, 0, xi.remainder(3) if False else i.view(2, 1).expand(2, 4))
x.scatter(0, i.view(2, 1).expand(2, 4), 5.0) | x.scatter(0, i.view(2, 1).expand(2, 4), y) | T.scatter(x, 1, i.view(1, 2), y)
z = x.clone(); z.scatter_(0, i.view(2, 1).expand(2, 4), y) | z = x.clone(); z.scatter_(1, i.view(1, 2), 2)
x.scatter_add(0, i.view(2, 1).expand(2, 4), y) | z = x.clone(); z.scatter_add_(0, i.view(2, 1).expand(2, 4), y)
x.select(1, -1) | T.select(x, 0, 1) | T.baddbmm(bb[:, :, :3], bb, bb.transpose(1, 2)) | bb[:, :, :3].baddbmm(bb, x3.transpose(1, 2), beta=0.5, alpha=2)
x.narrow(1, 1, 2) | T.narrow(x, 0, -2, 1) | x.repeat(2, 1) | x.repeat((1, 2, 1)) | x.tile((2,)) | x.tile(2, 1) | T.tile(v, (2, 2))
T.outer(v, v) | v.outer(bias) | x.roll(1) | T.roll(x, 1, 0) | x.roll((1, 2), (0, 1)) | x.roll(1, None) | x.roll([1], [-1])
x.topk(2) | T.topk(x, 2, dim=0, largest=False) | x.topk(2, 1) | x.topk(2, largest=True, sorted=False) | xi.topk(1)
x.sort() | x.sort(0, True) | T.sort(x, stable=True) | x.sort(stable=False, descending=True) | x.argsort() | x.argsort(0)
T.argsort(x, 0, descending=True) | x.argsort(stable=True) | T.argsort(x, stable=True, dim=0)
F.pad(x, (1, 2)) | F.pad(x, (1, 1, 0, 2), value=3.0) | F.pad(x, [1, 1], "constant", 0.5) | F.pad(xi, (2, 0), value=7)
F.pad(x, (-1, 1)) | F.normalize(x) | F.normalize(x, p=1, dim=0) | F.normalize(x3, 3.0, -1, 1e-6) | F.normalize(v, dim=0)
"""


@pytest.mark.parametrize("expr", _split(SURFACE_EXPRS))
def test_bindings_call_torchs_overloads(torch: Any, expr: str) -> None:
    if ";" in expr:  # statements (in-place operators)
        _run_both(torch, expr.replace("; ", "\n"), mode="exec")
    else:
        _run_both(torch, expr)


ERROR_EXPRS = """
x.var(1, correction=1, unbiased=True) | x.var(1.5) | x.var(unbiased=False, keepdim=True) | xi.norm() | x.flip(0, 0)
x.cumsum(2) | x.prod(3) | xi.norm(2, 1) | x.norm(2, 5) | b.all(2) | x.norm(dtype=T.float16) | x.cumprod(dim=None) | v.tril() | T.triu(s0) | x.logsumexp(5) | xi.var() | xi.std(1)
T.var_mean(xi) | T.std_mean(xi, 0) | x.narrow(1, 3, 2) | x.roll(1, (0, 1)) | x.topk(5) | x.repeat(2) | T.outer(x, v)
x.sort(2) | F.pad(x, (1, 1, 1)) | F.pad(x, (1, 1, 1, 1, 1, 1)) | F.pad(x, (-3, -2)) | F.normalize(x, dim=3)
"""


@pytest.mark.parametrize("expr", _split(ERROR_EXPRS))
def test_binding_errors_match_torch(torch: Any, expr: str) -> None:
    K.same_error(torch, expr, make_inputs)


def test_torch_function_mode_sees_the_functions_and_methods(torch: Any) -> None:
    def calls(T: Any, x: Any) -> None:
        F = T.nn.functional  # noqa: N806
        T.tril(x, 1)
        x.triu()
        x.var(1)
        T.std(x)
        T.var_mean(x, 0)
        T.std_mean(x)
        T.logsumexp(x, 1)
        x.logsumexp(0)
        x.norm()
        T.norm(x, dim=1)
        T.flip(x, [0])
        x.cumsum(1)
        T.prod(x, 0)
        x.all()
        T.topk(x, 2)
        x.sort()
        T.argsort(x)
        T.roll(x, 1)
        x.repeat(2, 1)
        T.tile(x, (2,))
        T.outer(x[0], x[1])
        x.narrow(0, 0, 1)
        F.pad(x, (1, 1))
        F.normalize(x)

    want = K.torch_function_names(torch, (3, 4), calls)
    assert want[:2] == ["tril", "triu"]
