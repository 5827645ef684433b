"""make_fx parity and Python surface for convolution, pooling and normalization (``conv1d`` / ``conv2d``, max / avg / adaptive pooling,
``batch_norm`` / ``instance_norm`` / ``group_norm``) against torch 2.13.

Each program is written once against ``T`` (torch or dispatcher) and ``F`` (its nn.functional) and traced by
both libraries on the same data: post-dispatch, pre-dispatch, fake and core-ATen-decomposed graphs must call the
same targets in the same order; post-dispatch code must be identical; graphs replayed on fresh inputs must give
eager's values; backward programs (a small CNN training step, a group-norm + average-pooling network) must give
torch's gradients; ``tracer.compile(backend="numpy")`` must give eager's values. Bad arguments raise torch's
exception with torch's message.

Pre-dispatch traces of the backward programs differ from torch's in one documented way (tracer/saved_inside.py):
what autograd saved inside an op kept whole (``max_pool2d``'s indices) is recomputed by nodes marked
``meta["saved_inside"]`` where torch bakes a ``_tensor_constant``; without those nodes the targets are torch's.
``batch_norm``'s saved statistics stay constants as in torch: recomputing ``native_batch_norm`` in training would
update the running statistics a second time.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests import op_program_checks as K


def p_convs(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, b, w1, v):
        a = F.conv2d(x, w, b, padding=1)
        c = F.conv2d(x, w[:, :2], None, stride=(2, 1), padding=(0, 1), dilation=(1, 2), groups=2)
        s = F.conv2d(x, w, b, padding="same") + F.conv2d(x, w, padding="valid").mean()
        u = F.conv2d(x[0], w, b, stride=2)
        d = F.conv1d(v, w1, None, 2, 1) + F.conv1d(v, w1, padding="same").mean()
        return a, c, s, u, d, F.conv1d(v[0], w1, dilation=2)
    return f


def p_pools(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, v):
        m = F.max_pool2d(x, 2) + F.max_pool2d(x, 3, 2, 1, ceil_mode=True).sum()
        mv, mi = F.max_pool2d(x, (2, 3), stride=1, dilation=(2, 1), return_indices=True)
        a = F.avg_pool2d(x, 2) + F.avg_pool2d(x, 3, 2, 1, True, False).sum() + F.avg_pool2d(x, 3, 2, 1, False, True, 5).mean()
        ad = F.adaptive_avg_pool2d(x, 1) * F.adaptive_avg_pool2d(x, (3, 2))[..., :1, :1]
        ap = F.adaptive_avg_pool2d(x, (None, 2))
        one = F.max_pool1d(v, 3, 2, 1) + F.avg_pool1d(v, 2, 2)[..., :1] + F.adaptive_avg_pool1d(v, 2)[..., :1]
        ov, oi = F.max_pool1d(v, 2, return_indices=True)
        return m, mv, mi, a, ad, ap, one, ov, oi
    return f


def p_norms(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, g, b, rm, rv):
        var = rv * rv + 0.5
        e = F.batch_norm(x, rm, var, g, b, training=False, eps=1e-3)
        t = F.batch_norm(x, rm, var, g, training=True, momentum=0.2)
        n = F.batch_norm(x, None, None, None, b, training=True)
        gn = F.group_norm(x, 2, g, b) + F.group_norm(x, 1)
        i = F.instance_norm(x) + F.instance_norm(x, rm, var, g, b)
        return e, t, n, gn, i, rm + 0, var
    return f


def p_cnn_train(T: Any, F: Any) -> Callable[..., Any]:
    # conv2d -> batch_norm (training) -> relu -> max_pool2d -> flatten -> linear, one backward
    def f(x, w, b, rm, rv, g, beta, lw, lb):
        h = F.conv2d(x, w, b, padding=1)
        h = F.batch_norm(h, rm, rv, g, beta, training=True, momentum=0.1, eps=1e-5)
        h = F.max_pool2d(F.relu(h), 2)
        out = F.linear(T.flatten(h, 1), lw, lb)
        loss = (out * out).sum()
        loss.backward()
        # (b.grad is zero up to rounding: batch norm removes the per-channel mean)
        return loss, w.grad, g.grad, beta.grad, lw.grad, rm + 0, rv + 0
    return f


def p_group_norm_avg_pool(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, g, beta, lw):
        h = F.conv2d(x, w, None, stride=1, padding=1)
        h = F.group_norm(h, 2, g, beta)
        h = F.avg_pool2d(T.tanh(h), 2, 1)
        h = F.adaptive_avg_pool2d(h, (2, 2)) + F.adaptive_avg_pool2d(h, 1)
        loss = (T.flatten(h, 1) @ lw).sum()
        loss.backward()
        return loss, x.grad, w.grad, g.grad, beta.grad, lw.grad
    return f


def p_conv1d_eval_bn(T: Any, F: Any) -> Callable[..., Any]:
    def f(v, w1, b1, rm, rv, g):
        h = F.conv1d(v, w1, b1, padding="same")
        h = F.batch_norm(h, rm, rv * rv + 1, g, None, training=False)
        h = F.max_pool1d(h, 2) + F.avg_pool1d(h, 2)
        loss = F.adaptive_avg_pool1d(h, 1).sum()
        loss.backward()
        return loss, w1.grad, b1.grad, g.grad
    return f


_CNN_SHAPES = [(2, 3, 6, 6), (4, 3, 3, 3), (4,), (4,), (4,), (4,), (4,), (5, 36), (5,)]

#: name -> (program, input shapes (float32), inputs requiring grad)
PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "convs": (p_convs, [(2, 4, 6, 5), (4, 4, 3, 3), (4,), (3, 2, 3), (2, 2, 7)], ()),
    "pools": (p_pools, [(2, 3, 7, 6), (2, 3, 9)], ()),
    "norms": (p_norms, [(3, 4, 3, 3), (4,), (4,), (4,), (4,)], ()),
}

#: programs that call backward() themselves: gradients compared with torch's
BACKWARD_PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "cnn_train": (p_cnn_train, _CNN_SHAPES, (1, 2, 5, 6, 7, 8)),
    "group_norm_avg_pool": (p_group_norm_avg_pool, [(2, 4, 5, 5), (4, 4, 3, 3), (4,), (4,), (16, 3)],
                            (0, 1, 2, 3, 4)),
    "conv1d_eval_bn": (p_conv1d_eval_bn, [(2, 3, 8), (4, 3, 3), (4,), (4,), (4,), (4,)], (1, 2, 5)),
}


def _trace_both(torch: Any, prog: Any, shapes: list, rg: tuple[int, ...], config: str) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # padding="same" with an even kernel warns in both libraries
        return K.trace_both(torch, prog, C.arrays(shapes, 0), rg, config)


def _targets_without_recomputation(gm: Any) -> list[str]:
    return [C.target_str(n.target) for n in gm.graph.nodes
            if n.op == "call_function" and "saved_inside" not in n.meta]


def _same_targets(gm_t: Any, gm_o: Any, config: str, name: str) -> None:
    assert _targets_without_recomputation(gm_o) == C.targets(gm_t)
    if config != "pre":
        assert C.targets(gm_o) == C.targets(gm_t)


# test_same_targets_as_torch, test_post_dispatch_code_matches_torch, test_replay_on_fresh_inputs_matches_eager,
# test_eager_values_match_torch, test_gradients_match_torch, test_compile_numpy_backend_matches_eager
globals().update(K.program_tests(PROGRAMS, BACKWARD_PROGRAMS, trace=_trace_both, same_targets=_same_targets,
                                 quiet=True))


# --- Python surface: the aten calls of each function, as torch's parser and nn.functional make them ---------------


def make_inputs(T: Any) -> dict[str, Any]:
    rng = np.random.default_rng(0)

    def f(*shape: int, positive: bool = False) -> Any:
        a = rng.standard_normal(shape).astype(np.float32)
        return T.from_numpy(np.abs(a) + 0.5 if positive else a)

    return {
        "xc": f(2, 3, 5, 5), "wc": f(4, 3, 3, 3), "bc": f(4), "wg": f(6, 1, 3, 3), "xl": f(2, 3, 7), "wl": f(4, 3, 3),
        "rm": f(3), "rv": f(3, positive=True), "g": f(3), "bt": f(3), "xi": T.from_numpy(np.ones((1, 2, 4, 4), np.int64)),
        "T": T, "F": T.nn.functional,
    }


def _run_both(torch: Any, code: str) -> None:
    from tests.test_frontend import compare_logs, record_ours, record_torch

    tenv, denv = make_inputs(torch), make_inputs(D)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        theirs = record_torch(torch, lambda: eval(code, tenv))  # noqa: S307 - test table
        ours, missing, _ = record_ours(lambda: eval(code, denv))  # noqa: S307 - test table
    compare_logs(theirs, ours, missing, code)


def _split(table: str) -> list[str]:
    return [e.strip() for line in table.strip().splitlines() for e in line.split("|") if e.strip()]


SURFACE_EXPRS = """
F.conv2d(xc, wc) | F.conv2d(xc, wc, bc, 2) | F.conv2d(xc, wc, bc, stride=(2, 1), padding=1) | F.conv2d(xc, wc, padding='same')
F.conv2d(xc, wc, None, 1, 'valid', 2) | F.conv2d(xc[0], wc) | F.conv2d(xc, wg, groups=3, dilation=(1, 2))
F.conv1d(xl, wl) | F.conv1d(xl, wl, stride=2, padding=1, dilation=2) | F.conv1d(xl, wl, padding='same') | F.conv1d(xl[0], wl)
T.conv2d(xc, wc, bc, 1, 1) | T.conv1d(xl, wl, None, [2]) | T.convolution(xc, wc, bc, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
F.max_pool2d(xc, 2) | F.max_pool2d(xc, 3, 2, 1, ceil_mode=True) | F.max_pool2d(xc, (2, 3), stride=1, dilation=(2, 1), return_indices=True)
F.max_pool2d(xc, kernel_size=2, stride=None) | T.max_pool2d(xc, 2) | T.max_pool2d(xc, [3, 2], 1, 1) | F.max_pool2d(xi, 2)
F.max_pool1d(xl, 2) | F.max_pool1d(xl, 3, 2, 1, return_indices=True) | T.max_pool1d(xl, 3, 1, 1, 1, True)
T.max_pool1d_with_indices(xl, 2)
F.avg_pool2d(xc, 2) | F.avg_pool2d(xc, 3, 2, 1, True, False, 5) | F.avg_pool2d(xc, (2, 3), count_include_pad=False)
F.avg_pool2d(xi, 2) | F.avg_pool1d(xl, 2) | F.avg_pool1d(xl, 3, 2, 1, True) | T.avg_pool1d(xl, 3, padding=1)
F.adaptive_avg_pool2d(xc, 1) | F.adaptive_avg_pool2d(xc, (2, 3)) | F.adaptive_avg_pool2d(xc, (None, 2))
F.adaptive_avg_pool2d(xc[0], 4) | F.adaptive_avg_pool1d(xl, 3) | T.adaptive_avg_pool1d(xl, 1)
F.batch_norm(xc, rm, rv) | F.batch_norm(xc, rm, rv, g, bt, True, 0.2, 1e-3) | F.batch_norm(xc, None, None, training=True)
F.batch_norm(xc[:0], rm, rv, g, bt) | T.batch_norm(xc, g, None, rm, rv, True, 0.1, 1e-5, True)
F.instance_norm(xc) | F.instance_norm(xc, rm, rv, g, bt) | F.instance_norm(xc, rm, rv, use_input_stats=False)
F.group_norm(xc, 3) | F.group_norm(xc, 1, g, bt, 1e-3) | T.group_norm(xl, 3, g)
"""


@pytest.mark.parametrize("expr", _split(SURFACE_EXPRS))
def test_functions_call_torchs_overloads(torch: Any, expr: str) -> None:
    _run_both(torch, expr)


ERROR_EXPRS = """
F.conv2d(xc[0, 0], wc) | F.conv2d(xc, wc[0]) | F.conv2d(xc, wc[:, :2]) | F.conv2d(xc, wc, bc[:3]) | F.conv2d(xc, wc.double())
F.conv2d(xc, wc, bc.double()) | F.conv2d(xc.double(), wc) | F.conv2d(xc, wc, groups=2) | F.conv2d(xc, wc, groups=0)
F.conv2d(xc, wc, stride=0) | F.conv2d(xc, wc, padding=-1) | F.conv2d(xc, wc, dilation=0) | F.conv2d(xc[:, :, :2], wc)
F.conv2d(xc, wc, padding='same', stride=2) | F.conv2d(xc, wc, padding='foo') | F.conv2d(xc, wc, stride=(1, 1, 1))
F.conv1d(xc, wc) | F.conv2d(xc, T.ones(4, 1, 3, 3), groups=3) | F.conv1d(xl[0], wl, padding='same', stride=2)
F.conv2d(1, wc) | F.conv2d(xc, None)
F.max_pool2d(xc, 0) | F.max_pool2d(xc, 2, padding=2) | F.max_pool2d(xc, 7) | F.max_pool2d(xc[0, 0], 2)
F.max_pool2d(xc, 2, stride=0) | F.max_pool2d(xc, 2, dilation=0) | F.max_pool2d(xc, (2, 2, 2))
F.avg_pool2d(xc, 0) | F.avg_pool2d(xc, 2, padding=2) | F.avg_pool2d(xc, 7) | F.avg_pool2d(xc, 2, divisor_override=0)
F.avg_pool2d(xc[0, 0], 2) | F.adaptive_avg_pool2d(xc[0, 0], 2) | F.adaptive_avg_pool2d(xc, (1, 2, 3))
F.adaptive_avg_pool2d(xi, 2) | F.max_pool1d(xl[0], 0) | F.max_pool1d(xl[0, 0], 2) | F.avg_pool1d(xc, 2)
F.max_pool1d(xl, 2, padding=2) | F.adaptive_avg_pool1d(xc, 2)
F.batch_norm(xc, T.zeros(4), T.ones(4)) | F.batch_norm(xc, rm, rv, T.ones(4)) | F.batch_norm(xc[:1, :, :1, :1], None, None, training=True)
F.batch_norm(xc, None, None, training=False) | F.batch_norm(xi, None, None, training=True)
F.group_norm(xc, 2) | F.group_norm(xc, 3, T.ones(4)) | F.group_norm(xc[0, 0, 0], 1) | F.group_norm(xc, 0)
F.instance_norm(xc[:, :, :1, :1]) | F.instance_norm(xc, use_input_stats=False)
"""


@pytest.mark.parametrize("expr", _split(ERROR_EXPRS))
def test_errors_match_torch(torch: Any, expr: str) -> None:
    K.same_error(torch, expr, make_inputs)


def test_batch_norm_updates_the_running_statistics_as_torch(torch: Any) -> None:
    """In training, native_batch_norm writes the running statistics in place (unbiased variance) without bumping
    their version counters; instance_norm writes the mean over the batch of its per-instance updates."""
    def run(T: Any) -> list:
        env = make_inputs(T)
        xc, rm, rv = env["xc"], env["rm"], env["rv"]
        before = rm._version
        T.nn.functional.batch_norm(xc, rm, rv, training=True, momentum=0.3)
        rm2, rv2 = rm.clone(), rv.clone()
        T.nn.functional.instance_norm(xc, rm2, rv2, momentum=0.5)
        return [rm.numpy(), rv.numpy(), rm2.numpy(), rv2.numpy(), rm._version - before]

    C.assert_close(run(torch), run(D))
