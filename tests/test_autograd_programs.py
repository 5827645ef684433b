"""Programs that call ``backward()`` / ``autograd.grad`` inside, run unchanged on torch and on dispatcher.

Each program is written once as a function of the module ``T`` (torch or
dispatcher), its ``nn.functional`` ``F`` and input tensors made from seeded
NumPy arrays (as in tests/test_programs.py, whose ``needs`` marker it reuses).
A program returns a dict of everything worth checking: outputs, losses, every
``.grad``, the gradients ``autograd.grad`` returned, parameters after update
steps, flags. Every tensor in it is compared with torch's for shape, dtype and
values, and also for ``requires_grad``, ``is_leaf`` and the name of its
``grad_fn`` (``MulBackward0``, ``CopySlices``, ...). Each program runs in float32
(tolerance 1e-4) and float64 (1e-10): the float inputs are cast to the dtype.
A second test logs the aten ops each program calls, forward and backward, with the
same logging TorchDispatchMode on both sides, and requires torch's calls, so that
backward graphs match op for op.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher
from tests.test_frontend import _norm, _norm_kwargs
from tests.test_programs import needs

DTYPES = ("float32", "float64")
PROGRAMS: dict[str, tuple[Callable[..., Any], Callable[[np.random.Generator], dict[str, np.ndarray]]]] = {}
MARKS: dict[str, Any] = {}


def program(inputs: Callable[[np.random.Generator], dict[str, np.ndarray]], *ops: str) -> Callable[..., Any]:
    """Register a program; ``ops`` are the forward kernels it needs (skipped, op named, while one is missing)."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        PROGRAMS[fn.__name__] = (fn, inputs)
        MARKS[fn.__name__] = needs(*ops)
        return fn

    return register


def normal(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Float64 standard normal values (cast to the program's dtype when run)."""
    return rng.standard_normal(shape)


def clone_grads(**params: Any) -> dict[str, Any]:
    """``{name: p.grad.clone()}``: a snapshot of the gradients (a later step may change them in place)."""
    return {k: (None if p.grad is None else p.grad.clone()) for k, p in params.items()}


# --- training steps -------------------------------------------------------------------------------------------
def _mlp_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": normal(rng, 8, 6), "y": normal(rng, 8, 3), "w1": normal(rng, 16, 6) * 0.4, "b1": normal(rng, 16) * 0.1,
            "w2": normal(rng, 3, 16) * 0.3, "b2": normal(rng, 3) * 0.1}


@program(_mlp_inputs, "linear", "t", "addmm", "relu", "mse_loss", "sub_.Tensor", "mul.Tensor", "zero_", "mm")
def mlp_sgd_steps(T, F, x, y, w1, b1, w2, b2):  # noqa: ANN001, ANN201, N803
    params = {"w1": w1, "b1": b1, "w2": w2, "b2": b2}
    for p in params.values():
        p.requires_grad_()
    record: dict[str, Any] = {}
    for step in range(3):
        out = F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)
        loss = F.mse_loss(out, y)
        loss.backward()
        record[f"loss{step}"] = loss
        record[f"out{step}"] = out
        record[f"grads{step}"] = clone_grads(**params)
        with T.no_grad():
            for p in params.values():
                p -= 0.1 * p.grad
            record[f"no_grad_update_flag{step}"] = T.is_grad_enabled()
        record[f"params{step}"] = {k: p.clone() for k, p in params.items()}
        for p in params.values():
            p.grad.zero_()
        record[f"zeroed{step}"] = w1.grad.clone()
    record["params"] = params
    return record


def _block_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    d = 8
    return {"x": normal(rng, 2, 5, d), "ln_w": 1 + 0.1 * normal(rng, d), "ln_b": 0.1 * normal(rng, d),
            "w_qkv": normal(rng, 3 * d, d) * 0.3, "b_qkv": normal(rng, 3 * d) * 0.1, "w_o": normal(rng, d, d) * 0.3,
            "w_fc": normal(rng, 4 * d, d) * 0.3, "b_fc": normal(rng, 4 * d) * 0.1, "w_proj": normal(rng, d, 4 * d) * 0.2,
            "target": normal(rng, 2, 5, d)}


@program(_block_inputs, "layer_norm", "native_layer_norm", "linear", "split.Tensor", "view", "transpose.int",
         "matmul", "bmm", "_softmax", "clone", "_unsafe_view", "gelu", "add.Tensor", "mm", "addmm", "t", "contiguous",
         "mul.Tensor", "expand", "reshape", "softmax.int", "dropout", "mse_loss", "sub_.Tensor")
def transformer_block_step(T, F, x, ln_w, ln_b, w_qkv, b_qkv, w_o, w_fc, b_fc, w_proj, target):  # noqa: ANN001, ANN201, N803
    params = {"ln_w": ln_w, "ln_b": ln_b, "w_qkv": w_qkv, "b_qkv": b_qkv, "w_o": w_o, "w_fc": w_fc, "b_fc": b_fc,
              "w_proj": w_proj}
    for p in params.values():
        p.requires_grad_()
    x.requires_grad_()
    b, s, d = x.shape
    heads = 2

    def block(x):  # noqa: ANN001, ANN202
        h = F.layer_norm(x, (d,), ln_w, ln_b)
        q, k, v = F.linear(h, w_qkv, b_qkv).split(d, dim=-1)
        q, k, v = (t.view(b, s, heads, d // heads).transpose(1, 2) for t in (q, k, v))
        att = F.softmax(q @ k.transpose(-2, -1) * (1.0 / math.sqrt(d // heads)), dim=-1)
        att = F.dropout(att, 0.1, training=False)
        y = (att @ v).transpose(1, 2).contiguous().view(b, s, d)
        x = x + F.dropout(F.linear(y, w_o), 0.1, training=False)
        h = F.layer_norm(x, [d], ln_w, ln_b, eps=1e-5)
        return x + F.linear(F.gelu(F.linear(h, w_fc, b_fc)), w_proj)

    record: dict[str, Any] = {}
    for step in range(2):
        out = block(x)
        loss = F.mse_loss(out, target)
        loss.backward()
        record[f"out{step}"] = out
        record[f"loss{step}"] = loss
        record[f"grads{step}"] = clone_grads(x=x, **params)
        with T.no_grad():
            for p in params.values():
                p.sub_(0.05 * p.grad)
                p.grad = None
        x.grad = None
    record["params"] = params
    return record


def _emb_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"tokens": rng.integers(0, 12, size=(5, 4)).astype(np.int64), "emb": normal(rng, 12, 6),
            "w": normal(rng, 3, 6), "b": normal(rng, 3) * 0.1, "labels": np.array([0, 2, 1, 2, 0], dtype=np.int64)}


@program(_emb_inputs, "embedding", "mean.dim", "linear", "addmm", "cross_entropy_loss", "_log_softmax",
         "nll_loss_forward", "nll_loss_nd", "t", "argmax", "eq.Tensor")
def embedding_cross_entropy(T, F, tokens, emb, w, b, labels):  # noqa: ANN001, ANN201, N803
    for p in (emb, w, b):
        p.requires_grad_()
    h = F.embedding(tokens, emb).mean(1)
    logits = F.linear(h, w, b)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    record = {"h": h, "logits": logits, "loss": loss, "grads": clone_grads(emb=emb, w=w, b=b),
              "correct": (logits.argmax(-1) == labels)}
    # a second objective with label smoothing off and sum reduction, gradients through autograd.grad
    loss_sum = F.cross_entropy(F.linear(F.embedding(tokens, emb).sum(1), w, b), labels, reduction="sum")
    record["loss_sum"] = loss_sum
    record["autograd_grad"] = T.autograd.grad(loss_sum, [emb, w])
    record["grads_untouched_by_autograd_grad"] = clone_grads(emb=emb, w=w, b=b)
    return record


def _reg_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": normal(rng, 20, 3), "w_true": normal(rng, 3, 1), "w": np.zeros((3, 1)), "b": np.zeros(1)}


@program(_reg_inputs, "mm", "add.Tensor", "mse_loss", "zero_", "add_.Tensor", "matmul", "mul.Tensor")
def mse_regression(T, F, x, w_true, w, b):  # noqa: ANN001, ANN201, N803
    y = x @ w_true + 0.5
    w.requires_grad_()
    b.requires_grad_()
    record: dict[str, Any] = {"y": y}
    for step in range(4):
        pred = x @ w + b
        loss = F.mse_loss(pred, y)
        loss.backward()
        record[f"loss{step}"] = loss
        record[f"grads{step}"] = clone_grads(w=w, b=b)
        with T.no_grad():
            w.add_(w.grad, alpha=-0.2)
            b.add_(b.grad, alpha=-0.2)
        w.grad.zero_()
        b.grad.zero_()
        record[f"w{step}"] = w.clone()
    record["w"], record["b"] = w, b
    record["final_loss_sum"] = F.mse_loss(x @ w + b, y, reduction="sum")
    return record


def _rnn_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"xs": normal(rng, 5, 2, 3), "w_ih": normal(rng, 4, 3) * 0.5, "w_hh": normal(rng, 4, 4) * 0.5,
            "b": normal(rng, 4) * 0.1, "h0": normal(rng, 2, 4) * 0.1}


@program(_rnn_inputs, "select.int", "linear", "t", "addmm", "mm", "add.Tensor", "tanh", "stack", "sum", "mul.Tensor",
         "pow.Tensor_Scalar", "mean")
def rnn_tanh_loop(T, F, xs, w_ih, w_hh, b, h0):  # noqa: ANN001, ANN201, N803
    for p in (w_ih, w_hh, b, xs):
        p.requires_grad_()
    h = h0
    hs = []
    for t in range(xs.shape[0]):
        h = T.tanh(F.linear(xs[t], w_ih, b) + F.linear(h, w_hh))
        hs.append(h)
    seq = T.stack(hs)
    loss = (seq ** 2).mean() + h.sum()
    loss.backward()
    return {"seq": seq, "h": h, "loss": loss, "grads": clone_grads(w_ih=w_ih, w_hh=w_hh, b=b, xs=xs),
            "h0_grad": h0.grad, "h0_requires_grad": h0.requires_grad}


# --- attention and classification losses ----------------------------------------------------------------------
def _attn_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"q": normal(rng, 2, 5, 4), "k": normal(rng, 2, 5, 4), "v": normal(rng, 2, 5, 4)}


@program(_attn_inputs, "matmul", "arange", "unsqueeze", "gt.Tensor", "masked_fill.Scalar", "softmax.int", "_softmax",
         "bmm", "_unsafe_view", "expand", "mul.Tensor", "transpose.int", "view", "sum", "slice.Tensor")
def masked_fill_attention(T, F, q, k, v):  # noqa: ANN001, ANN201, N803
    for p in (q, k, v):
        p.requires_grad_()
    s = q.shape[1]
    idx = T.arange(s)
    mask = idx[None, :] > idx[:, None]
    scores = T.matmul(q, k.transpose(1, 2)) * (1.0 / math.sqrt(q.shape[-1]))
    masked = scores.masked_fill(mask, float("-inf"))
    att = T.softmax(masked, -1)
    out = att @ v
    loss = (out * out).sum()
    loss.backward()
    return {"scores": scores, "masked": masked, "att": att, "out": out, "loss": loss,
            "grads": clone_grads(q=q, k=k, v=v)}


def _cls_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": normal(rng, 6, 5), "w": normal(rng, 5, 5) * 0.5, "t": rng.integers(0, 5, size=6).astype(np.int64),
            "weight": rng.uniform(0.5, 1.5, size=5)}


@program(_cls_inputs, "_log_softmax", "nll_loss_forward", "nll_loss_nd", "log_softmax.int", "nll_loss", "mm",
         "matmul", "add.Tensor")
def log_softmax_nll(T, F, x, w, t, weight):  # noqa: ANN001, ANN201, N803
    w.requires_grad_()
    x.requires_grad_()
    lp = F.log_softmax(x @ w, dim=1)
    mean = F.nll_loss(lp, t)
    summed = F.nll_loss(lp, t, reduction="sum")
    weighted = F.nll_loss(lp, t, weight=weight)
    total = mean + summed * 0.1 + weighted
    per = F.nll_loss(lp, t, reduction="none")
    g_per, = T.autograd.grad(per, x, grad_outputs=T.ones_like(per), retain_graph=True)
    total.backward()
    return {"lp": lp, "mean": mean, "summed": summed, "weighted": weighted, "total": total, "per": per,
            "grads": clone_grads(w=w, x=x), "g_per": g_per}


def _hinge_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": normal(rng, 6, 4), "w": normal(rng, 4, 3), "y": normal(rng, 6, 3)}


@program(_hinge_inputs, "mm", "where.self", "gt.Scalar", "clamp", "maximum", "mul.Tensor", "sub.Tensor", "mean",
         "sum", "abs", "minimum", "scalar_tensor", "where.ScalarOther")
def where_clamp_maximum_loss(T, F, x, w, y):  # noqa: ANN001, ANN201, N803
    w.requires_grad_()
    x.requires_grad_()
    pred = x @ w
    diff = pred - y
    huber = T.where(diff.abs() < 1.0, 0.5 * diff * diff, diff.abs() - 0.5)
    hinge = (1 - pred * y).clamp(min=0)
    bounded = T.clamp(pred, -0.5, 0.5)
    peak = T.maximum(pred, y) - T.minimum(pred, 0.5 * y)
    leaky = T.where(pred > 0, pred, 0.0)
    loss = huber.mean() + hinge.sum() * 0.1 + bounded.sum() + peak.mean() + leaky.sum()
    loss.backward()
    return {"huber": huber, "hinge": hinge, "bounded": bounded, "peak": peak, "leaky": leaky, "loss": loss,
            "grads": clone_grads(w=w, x=x)}


def _pool_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": normal(rng, 3, 4, 5), "w": normal(rng, 5, 2)}


@program(_pool_inputs, "max.dim", "amax", "mm", "matmul", "add.Tensor", "sum", "max", "amin", "mul.Tensor",
         "_unsafe_view", "view")
def max_amax_pooling(T, F, x, w):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    w.requires_grad_()
    h = x @ w
    values, indices = h.max(dim=1)
    pooled = h.amax(dim=(0, 1))
    kept = h.amax(-1, keepdim=True)
    low = h.amin(1)
    loss = values.sum() + (pooled * pooled).sum() + kept.sum() * 0.5 - low.sum() + h.max()
    loss.backward()
    return {"values": values, "indices": indices, "pooled": pooled, "kept": kept, "low": low, "loss": loss,
            "grads": clone_grads(x=x, w=w)}


def _csx(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"a": normal(rng, 3, 4), "b": normal(rng, 3, 2), "w": normal(rng, 6, 6)}


@program(_csx, "cat", "stack", "split.Tensor", "split_with_sizes", "chunk", "mm", "mul.Tensor", "sum",
         "sum.dim_IntList", "unbind.int", "add.Tensor", "tanh", "matmul")
def cat_stack_split(T, F, a, b, w):  # noqa: ANN001, ANN201, N803
    for p in (a, b, w):
        p.requires_grad_()
    h = T.cat([a, b], dim=1) @ w
    left, right = h.split(3, dim=1)
    parts = T.split(h, [1, 2, 3], dim=1)
    c0, c1 = h.chunk(2, dim=0)[0], h.chunk(2, dim=0)[1]
    stacked = T.stack([left, right.tanh()], dim=0)
    rows = stacked.unbind(1)
    loss = stacked.sum() + (parts[2] * parts[0]).sum() + c0.sum() * 2 - c1.sum(1).mean() + (rows[0] * rows[2]).sum()
    loss.backward()
    return {"h": h, "stacked": stacked, "parts": parts, "c0": c0, "rows": rows, "loss": loss,
            "grads": clone_grads(a=a, b=b, w=w)}


def _bce_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": normal(rng, 10, 3), "w": normal(rng, 3, 1), "y": (rng.uniform(size=(10, 1)) > 0.5).astype(np.float64)}


@program(_bce_inputs, "mm", "sigmoid", "log", "rsub.Scalar", "mul.Tensor", "add.Tensor", "neg", "mean", "exp",
         "matmul", "div.Tensor")
def logistic_regression_manual_bce(T, F, x, w, y):  # noqa: ANN001, ANN201, N803
    w.requires_grad_()
    record: dict[str, Any] = {}
    for step in range(3):
        p = T.sigmoid(x @ w)
        loss = -(y * p.log() + (1 - y) * (1 - p).log()).mean()
        loss.backward()
        record[f"p{step}"], record[f"loss{step}"], record[f"grad{step}"] = p, loss, w.grad.clone()
        with T.no_grad():
            w -= 0.5 * w.grad
        w.grad.zero_()
    soft = (x @ w).exp() / (1 + (x @ w).exp())
    record["soft"], record["w"] = soft, w
    return record


# --- in-place updates, views, detach --------------------------------------------------------------------------
def _x34(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": normal(rng, 3, 4), "y": normal(rng, 3, 4)}


@program(_x34, "clone", "select.int", "copy_", "fill_.Scalar", "mul_.Tensor", "add_.Tensor", "mul.Tensor", "sum",
         "slice.Tensor", "lift_fresh", "exp", "sub_.Tensor")
def inplace_on_clone(T, F, x, y):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    y.requires_grad_()
    z = x.clone()
    z[0] = 5.0
    after_setitem = z.grad_fn
    z.mul_(2)
    z[1] = y[1] * 3
    z[:, 2:] += y[:, :2].exp()
    z.sub_(y)
    loss = (z * z).sum()
    loss.backward()
    return {"z": z, "loss": loss, "after_setitem": type(after_setitem).__name__, "z_version_bumped": z._version > 0,
            "grads": clone_grads(x=x, y=y)}


@program(_x34, "mul.Tensor", "view", "select.int", "slice.Tensor", "mul_.Tensor", "add_.Tensor", "sum", "t",
         "transpose.int", "div_.Tensor", "clone")
def inplace_on_views(T, F, x, y):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    y.requires_grad_()
    base = x * 1.5
    flat = base.view(-1)
    flat[2:5].mul_(y[0, :3])
    row = base[1]
    row.add_(y[2])
    col = base.t()[3]
    col.div_(2.0)
    scaled = y * 2
    diag = scaled.view(12)[::5]
    diag.mul_(x.view(12)[:3])
    loss = (base * base).sum() + (scaled * y).sum() + (row * col[1]).sum()
    loss.backward()
    return {"base": base, "flat": flat, "row": row, "col": col, "scaled": scaled, "diag": diag, "loss": loss,
            "grads": clone_grads(x=x, y=y), "views_share_version": base._version == row._version == flat._version}


@program(_x34, "detach", "mul.Tensor", "sum", "add.Tensor", "mul_.Tensor", "exp", "sin", "clone")
def detach_paths(T, F, x, y):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    y.requires_grad_()
    h = x * y
    d = h.detach()
    stop = h * d + x.detach().exp()
    loss = stop.sum()
    loss.backward()
    e = y.sin()
    e2 = e.detach()
    e2.mul_(0)  # shares storage and the version counter with e
    e_after = e.clone().detach()
    return {"h": h, "d": d, "stop": stop, "loss": loss, "grads": clone_grads(x=x, y=y), "e": e, "e_after": e_after,
            "d_shares_version": d._version == h._version, "e_version": e._version}


@program(_x34, "detach_", "mul.Tensor", "sum", "select.int", "clone", "add.Tensor")
def detach_in_place(T, F, x, y):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    h = x * 2
    try:
        h[0].detach_()
        view_error = "no error"
    except RuntimeError as e:
        view_error = str(e).split(" If you are using")[0]
    c = x.clone()
    same = c.detach_()
    kept = h * y
    h.detach_()  # cuts h from the graph; kept was recorded before and still reaches x
    (kept + h).sum().backward()
    return {"view_error": view_error, "c": c, "same_object": same is c, "h": h, "kept": kept, "x_grad": x.grad}


# --- the graph API: accumulation, retain_graph, autograd.grad, higher order -----------------------------------
@program(_x34, "mul.Tensor", "sum", "exp", "mean", "add.Tensor", "tanh", "zero_")
def grads_accumulate(T, F, x, y):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    y.requires_grad_()
    (x * y).sum().backward()
    first = clone_grads(x=x, y=y)
    first_is_same = x.grad
    (x.exp() * y).mean().backward()
    second = clone_grads(x=x, y=y)
    accumulated_in_place = first_is_same is x.grad
    x.grad.zero_()
    T.tanh(x + y).sum().backward()
    third = clone_grads(x=x, y=y)
    y.grad = None
    (y * 3).sum().backward()
    return {"first": first, "second": second, "third": third, "fourth": clone_grads(x=x, y=y),
            "accumulated_in_place": accumulated_in_place}


@program(_x34, "mul.Tensor", "sum", "exp", "sin", "add.Tensor", "tanh", "pow.Tensor_Scalar")
def retain_graph_twice(T, F, x, y):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    y.requires_grad_()
    h = (x * y).exp() + x.sin()
    loss = (h ** 2).sum() + T.tanh(y).sum()
    loss.backward(retain_graph=True)
    first = clone_grads(x=x, y=y)
    gx, = T.autograd.grad(h.sum() * 2, x, retain_graph=True)
    gx2, gy2 = T.autograd.grad(h.sum(), [x, y], retain_graph=True)
    loss.backward()  # the graph is still there; this one frees it
    second = clone_grads(x=x, y=y)
    return {"h": h, "loss": loss, "first": first, "second": second, "gx": gx, "gx2": gx2, "gy2": gy2}


def _vec(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": normal(rng, 5), "y": normal(rng, 5)}


@program(_vec, "pow.Tensor_Scalar", "mul.Tensor", "sum", "sin", "cos", "exp", "add.Tensor", "neg")
def double_backward(T, F, x, y):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    y.requires_grad_()
    f = (x ** 3).sum() + (x * y).sum() + x.sin().sum() + (y.exp() * x).sum()
    dx, dy = T.autograd.grad(f, [x, y], create_graph=True)
    flags = {"dx_requires_grad": dx.requires_grad, "dx_is_leaf": dx.is_leaf}
    d2x, d2xy = T.autograd.grad(dx.sum(), [x, y], retain_graph=True)
    (dy * dy).sum().backward()
    grads_from_second = clone_grads(x=x, y=y)
    g = (x * x * x).sum()
    gx, = T.autograd.grad(g, x, create_graph=True)
    ggx, = T.autograd.grad(gx, x, grad_outputs=T.ones_like(gx), create_graph=True)
    gggx, = T.autograd.grad(ggx.sum(), x)
    return {"f": f, "dx": dx, "dy": dy, "d2x": d2x, "d2xy": d2xy, "grads": grads_from_second, "gx": gx, "ggx": ggx,
            "gggx": gggx, **flags}


@program(_x34, "mul.Tensor", "sum", "add.Tensor", "exp", "relu")
def grad_mode_blocks(T, F, x, y):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    record: dict[str, Any] = {}
    with T.no_grad():
        a = x * 2
        record["in_no_grad"] = T.is_grad_enabled()
        with T.enable_grad():
            b = x * 3
            record["in_enable_grad"] = T.is_grad_enabled()
        c = x.exp()
    with T.set_grad_enabled(False):
        d = x + 1
        with T.set_grad_enabled(True):
            e = F.relu(x)
    record["after_blocks"] = T.is_grad_enabled()

    @T.no_grad()
    def frozen(t):  # noqa: ANN001, ANN202
        return t * y

    @T.enable_grad()
    def thawed(t):  # noqa: ANN001, ANN202
        return t * y

    f = frozen(x)
    with T.no_grad():
        g = thawed(x)
    T.set_grad_enabled(False)
    try:
        h = x * y
        record["set_grad_enabled_call"] = T.is_grad_enabled()
    finally:
        T.set_grad_enabled(True)
    loss = (b * e).sum() + g.sum()
    loss.backward()
    record.update(a=a, b=b, c=c, d=d, e=e, f=f, g=g, h=h, loss=loss, x_grad=x.grad)
    return record


@program(_x34, "mul.Tensor", "sum", "exp", "add.Tensor", "sin", "mm", "t", "matmul", "transpose.int", "ones_like")
def backward_arguments(T, F, x, y):  # noqa: ANN001, ANN201, N803
    w = y.clone().requires_grad_()
    x.requires_grad_()
    out = (x @ w.t()).sin()
    gradient = T.ones_like(out) * 0.5
    out.backward(gradient=gradient, retain_graph=True)
    both = clone_grads(x=x, w=w)
    x.grad, w.grad = None, None
    out.backward(gradient=gradient, inputs=[w], retain_graph=True)
    only_w = clone_grads(x=x, w=w)
    T.autograd.backward([out.sum(), (x * 2).sum()], inputs=[x], retain_graph=True)
    unused = T.zeros(2, requires_grad=True)
    gx, gunused = T.autograd.grad(out.sum(), [x, unused], allow_unused=True)
    return {"out": out, "both": both, "only_w": only_w, "after_list_backward": clone_grads(x=x, w=w), "gx": gx,
            "gunused_is_none": gunused is None, "w_is_leaf": w.is_leaf}


@program(_x34, "exp", "mul.Tensor", "sum", "mul_.Tensor", "add.Tensor", "sin", "clone")
def saved_tensor_modified(T, F, x, y):  # noqa: ANN001, ANN201, N803
    x.requires_grad_()
    h = x.exp()
    loss = (h * y).sum()
    h.mul_(2)  # exp saved its output: backward must refuse
    try:
        loss.backward()
        message = "no error"
    except RuntimeError as e:
        message = str(e).split(" Hint:")[0]
    second = x.sin().sum()
    second.backward()
    try:
        second.backward()
        again = "no error"
    except RuntimeError as e:
        again = str(e).split(" Specify retain_graph")[0]
    return {"message": message, "again": again, "x_grad": x.grad}


# --- running --------------------------------------------------------------------------------------------------
def _tensors(T: Any, arrays: dict[str, np.ndarray], dtype: str) -> dict[str, Any]:
    out = {}
    for k, v in arrays.items():
        a = v.astype(dtype) if v.dtype.kind == "f" else v
        out[k] = T.from_numpy(a.copy())
    return out


def _grad_fn_name(t: Any) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _compare(ours: Any, theirs: Any, path: str = "out") -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys(), (path, sorted(ours), sorted(theirs))
        for k in theirs:
            _compare(ours[k], theirs[k], f"{path}.{k}")
        return
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), path
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _compare(o, t, f"{path}[{i}]")
        return
    if hasattr(theirs, "dtype") and hasattr(theirs, "shape"):
        assert isinstance(ours, dispatcher.Tensor), f"{path}: got {type(ours).__name__}"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{path}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
        assert str(ours.dtype) == str(theirs.dtype), f"{path}: dtype {ours.dtype} vs {theirs.dtype}"
        assert ours.requires_grad == theirs.requires_grad, f"{path}: requires_grad {ours.requires_grad}"
        assert ours.is_leaf == theirs.is_leaf, f"{path}: is_leaf {ours.is_leaf}"
        assert _grad_fn_name(ours) == _grad_fn_name(theirs), f"{path}: grad_fn {_grad_fn_name(ours)} vs " \
                                                             f"{_grad_fn_name(theirs)}"
        expected = theirs.detach().numpy()
        got = ours.detach().numpy()
        if expected.dtype.kind == "f":
            tol = 1e-10 if expected.dtype == np.float64 else 1e-4
            np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, err_msg=path)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=path)
        return
    if isinstance(theirs, float):
        assert isinstance(ours, float) and math.isclose(ours, theirs, rel_tol=1e-6, abs_tol=1e-9), (path, ours, theirs)
        return
    assert type(ours) is type(theirs) and ours == theirs, (path, ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS[n]) for n in PROGRAMS])
def test_autograd_program_matches_torch(torch: Any, name: str, dtype: str) -> None:
    fn, make_inputs = PROGRAMS[name]
    arrays = make_inputs(np.random.default_rng(zlib.crc32(name.encode())))
    theirs = fn(torch, torch.nn.functional, **_tensors(torch, arrays, dtype))
    ours = fn(dispatcher, dispatcher.nn.functional, **_tensors(dispatcher, arrays, dtype))
    _compare(ours, theirs)


def record_ops(mode_class: Any, fn: Callable[[], Any]) -> list[tuple[str, list, dict]]:
    """The aten calls a logging dispatch mode (a subclass of ``mode_class``) sees while ``fn`` runs."""
    log: list[tuple[str, list, dict]] = []

    class Log(mode_class):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            kwargs = kwargs or {}
            log.append((str(func), _norm(list(args)), _norm_kwargs(str(func), kwargs)))
            return func(*args, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with Log():
            fn()
    return log


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS[n]) for n in PROGRAMS])
def test_autograd_program_calls_torchs_ops(torch: Any, name: str) -> None:
    """Forward and backward call the aten ops torch calls, in the same order, with the same arguments,
    as a logging TorchDispatchMode sees them (float64 inputs)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    fn, make_inputs = PROGRAMS[name]
    arrays = make_inputs(np.random.default_rng(zlib.crc32(name.encode())))
    theirs_in, ours_in = _tensors(torch, arrays, "float64"), _tensors(dispatcher, arrays, "float64")
    theirs = record_ops(TorchDispatchMode, lambda: fn(torch, torch.nn.functional, **theirs_in))
    ours = record_ops(dispatcher.TorchDispatchMode, lambda: fn(dispatcher, dispatcher.nn.functional, **ours_in))
    first = next((i for i, (o, t) in enumerate(zip(ours, theirs)) if o != t), min(len(ours), len(theirs)))
    assert ours == theirs, (f"first difference at call {first} of {len(theirs)} (ours made {len(ours)}):\n"
                            f" torch: {theirs[first:first + 3]}\n ours:  {ours[first:first + 3]}")


def test_the_programs_compare_something(torch: Any) -> None:
    """The comparison is not vacuous: a wrong gradient, grad_fn or flag is caught."""
    x = torch.ones(2, requires_grad=True)
    ours = dispatcher.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    (ours * 3).sum().backward()
    with pytest.raises(AssertionError):
        _compare({"g": ours.grad}, {"g": x.grad})
    with pytest.raises(AssertionError, match="grad_fn"):
        _compare(ours * 2, x + 2)
    with pytest.raises(AssertionError, match="requires_grad"):
        _compare(ours.detach(), x)


def test_there_are_at_least_20_programs() -> None:
    assert len(PROGRAMS) >= 20
