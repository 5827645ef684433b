"""Programs written once for PyTorch run unchanged on dispatcher (``import dispatcher as torch``).

Each program is a function of the module ``T`` (torch or dispatcher), its
``nn.functional`` ``F`` and input tensors; it runs on both with the same
inputs and the outputs are compared (values, dtypes, shapes). Each program
lists the aten ops it needs; while one of their kernels is missing it is
skipped with the op named (``needs`` below), so it turns on when the kernel lands.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher.ops import registration

_MISSING = {m.split(":")[0] for m in registration.missing_kernels()}
PROGRAMS: dict[str, tuple[Callable[..., Any], Callable[[np.random.Generator], dict[str, np.ndarray]]]] = {}
MARKS: dict[str, Any] = {}
NEEDS: dict[str, tuple[str, ...]] = {}


def _listed(name: str) -> bool:
    base, _, overload = name.partition(".")
    try:
        getattr(getattr(dispatcher.ops.aten, base), overload or "default")
    except AttributeError:
        return False
    return True


def needs(*ops: str) -> Any:
    """skipif one of ``ops`` (names as in the listing: "add.Tensor", "relu") has no kernel or is not listed."""
    unlisted = [op for op in ops if not _listed(op)]
    blocked = [op for op in ops if op in _MISSING]
    if unlisted:
        return pytest.mark.skipif(True, reason=f"aten::{unlisted[0]} is not in the op listing yet")
    reason = f"kernel for aten::{blocked[0]} not written yet" if blocked else ""
    return pytest.mark.skipif(bool(blocked), reason=reason)


def program(inputs: Callable[[np.random.Generator], dict[str, np.ndarray]], *ops: str) -> Callable[..., Any]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        PROGRAMS[fn.__name__] = (fn, inputs)
        MARKS[fn.__name__] = needs(*ops)
        NEEDS[fn.__name__] = ops
        return fn

    return register


def f32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


# --- the programs -------------------------------------------------------------------------------------
def _mlp_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": f32(rng, 8, 16), "w1": f32(rng, 16, 32), "b1": f32(rng, 32), "w2": f32(rng, 32, 4)}


@program(_mlp_inputs, "mm", "add.Tensor", "relu", "matmul")
def mlp(T, F, x, w1, b1, w2):  # noqa: ANN001, ANN201, N803
    return T.relu(x @ w1 + b1) @ w2


def _linear_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": f32(rng, 2, 5, 16), "w1": f32(rng, 32, 16), "b1": f32(rng, 32), "w2": f32(rng, 3, 32)}


@program(_linear_inputs, "linear", "t", "addmm", "view", "mm", "_unsafe_view", "gelu", "matmul", "reshape",
         "transpose.int")
def mlp_linear_gelu(T, F, x, w1, b1, w2):  # noqa: ANN001, ANN201, N803
    h = F.gelu(F.linear(x, w1, b1))
    return F.linear(h, w2)


def _attn_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"q": f32(rng, 2, 6, 8), "k": f32(rng, 2, 6, 8), "v": f32(rng, 2, 6, 8)}


@program(_attn_inputs, "matmul", "transpose.int", "bmm", "div.Tensor", "softmax.int", "_softmax", "expand", "view",
         "_unsafe_view", "reshape")
def attention(T, F, q, k, v):  # noqa: ANN001, ANN201, N803
    d = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d)
    return F.softmax(scores, dim=-1) @ v


@program(_attn_inputs, "matmul", "arange", "unsqueeze", "slice.Tensor", "gt.Tensor", "masked_fill.Scalar",
         "softmax.int", "_softmax", "bmm", "_unsafe_view", "expand", "mul.Tensor", "reshape", "transpose.int", "view")
def masked_attention(T, F, q, k, v):  # noqa: ANN001, ANN201, N803
    s = q.shape[1]
    idx = T.arange(s)
    mask = idx[None, :] > idx[:, None]
    scores = T.matmul(q, k.transpose(1, 2)) * (1.0 / math.sqrt(q.shape[-1]))
    scores = scores.masked_fill(mask, float("-inf"))
    return T.softmax(scores, -1) @ v


def _block_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    d = 16
    return {
        "x": f32(rng, 2, 5, d), "ln_w": f32(rng, d), "ln_b": f32(rng, d), "w_qkv": f32(rng, 3 * d, d) * 0.2,
        "w_o": f32(rng, d, d) * 0.2, "w_fc": f32(rng, 4 * d, d) * 0.2, "b_fc": f32(rng, 4 * d),
        "w_proj": f32(rng, d, 4 * d) * 0.2,
    }


@program(_block_inputs, "layer_norm", "native_layer_norm", "linear", "split.Tensor", "view", "transpose.int",
         "matmul", "bmm", "_softmax", "clone", "_unsafe_view", "gelu", "add.Tensor", "mm", "addmm", "t", "contiguous",
         "div.Tensor", "expand", "reshape", "softmax.int")
def transformer_block(T, F, x, ln_w, ln_b, w_qkv, w_o, w_fc, b_fc, w_proj):  # noqa: ANN001, ANN201, N803
    b, s, d = x.shape
    heads = 2
    h = F.layer_norm(x, (d,), ln_w, ln_b)
    q, k, v = F.linear(h, w_qkv).split(d, dim=-1)

    def split_heads(t):  # noqa: ANN001, ANN202
        return t.view(b, s, heads, d // heads).transpose(1, 2)

    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    att = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // heads), dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(b, s, d)
    x = x + F.linear(y, w_o)
    h = F.layer_norm(x, [d], ln_w, ln_b, eps=1e-5)
    x = x + F.linear(F.gelu(F.linear(h, w_fc, b_fc), approximate="tanh"), w_proj)
    return x


def _emb_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"tokens": rng.integers(0, 20, size=(4, 7)).astype(np.int64), "emb": f32(rng, 20, 8),
            "w": f32(rng, 3, 8), "b": f32(rng, 3), "labels": np.array([0, 2, 1, 2], dtype=np.int64)}


@program(_emb_inputs, "embedding", "index_select", "mean.dim", "linear", "addmm", "cross_entropy_loss",
         "_log_softmax", "nll_loss_forward", "argmax", "eq.Tensor", "sum", "_to_copy", "mean", "nll_loss",
         "nll_loss_nd", "reshape", "t", "to.dtype", "transpose.int", "view")
def embedding_classifier(T, F, tokens, emb, w, b, labels):  # noqa: ANN001, ANN201, N803
    h = F.embedding(tokens, emb).mean(1)
    logits = F.linear(h, w, b)
    loss = F.cross_entropy(logits, labels)
    acc = (logits.argmax(-1) == labels).float().mean()
    return loss, acc, F.cross_entropy(logits, labels, reduction="none")


def _x34(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": f32(rng, 3, 4), "y": f32(rng, 3, 4)}


@program(_x34, "clone", "view", "mul_.Tensor", "select.int", "add_.Tensor", "copy_", "slice.Tensor", "sub_.Tensor")
def inplace_view_updates(T, F, x, y):  # noqa: ANN001, ANN201, N803
    z = x.clone()
    z.view(-1).mul_(2)
    z[0] += 1
    row = z[1]
    row.sub_(y[1])
    z[:, 1:3].mul_(0.5)
    return z, row


@program(_x34, "zeros", "slice.Tensor", "copy_", "select.int", "fill_.Scalar", "arange", "lift_fresh",
         "_local_scalar_dense")
def slice_assignment(T, F, x, y):  # noqa: ANN001, ANN201, N803
    z = T.zeros(5, 8)
    z[1:4, ::2] = x
    z[:, 0] = 7
    z[-1] = T.arange(8.0)
    z[0, 1:3] = y[0, :2]
    return z


@program(_x34, "slice.Tensor", "select.int", "unsqueeze", "add.Tensor", "alias")
def slicing(T, F, x, y):  # noqa: ANN001, ANN201, N803
    return x[1:, :2] + y[:-1, -2:], x[..., 0], x[None, 0], x[:, None, 1:3], x[::2, 1::2], x[:, :]


@program(_x34, "cat", "stack", "sum.dim_IntList", "unsqueeze", "view")
def cat_stack(T, F, x, y):  # noqa: ANN001, ANN201, N803
    return T.cat([x, y], 1), T.cat((x, y)), T.stack([x, y]).sum(0), T.stack((x, y), dim=-1)


@program(_x34, "mean.dim", "sub.Tensor", "amax", "sum.dim_IntList", "amin", "mul.Tensor", "sum", "mean")
def reductions_keepdim(T, F, x, y):  # noqa: ANN001, ANN201, N803
    centered = x - x.mean(-1, keepdim=True)
    var = (centered * centered).mean(dim=1, keepdim=True)
    return centered, var, x.amax(1, keepdim=True), x.sum((0, 1)), x.amin(0), x.sum(), y.mean()


def _bcast(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"a": f32(rng, 4), "b": f32(rng, 5), "c": f32(rng, 3, 1, 5)}


@program(_bcast, "unsqueeze", "mul.Tensor", "add.Tensor", "sub.Tensor", "div.Tensor")
def broadcasting(T, F, a, b, c):  # noqa: ANN001, ANN201, N803
    outer = a[:, None] * b[None, :]
    return outer + c, (c - b) / 2, a.unsqueeze(1) + b, c * 3 + 1


@program(_x34, "gt.Scalar", "where.self", "scalar_tensor", "mul.Tensor", "lt.Scalar", "masked_fill.Scalar",
         "where.ScalarOther", "gt.Tensor")
def where_and_masked_fill(T, F, x, y):  # noqa: ANN001, ANN201, N803
    leaky = T.where(x > 0, x, 0.1 * x)
    return leaky, x.masked_fill(x < 0, 0.0), T.where(y > 0, y, 0.0), T.where(x > y, x, y)


@program(_x34, "_softmax", "_log_softmax", "exp", "sum.dim_IntList", "log_softmax.int", "softmax.int")
def softmax_family(T, F, x, y):  # noqa: ANN001, ANN201, N803
    p = F.softmax(x, -1)
    lp = F.log_softmax(x, dim=1)
    return p, lp, lp.exp(), p.sum(-1), T.softmax(y, 0), y.log_softmax(0)


def _ln(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": f32(rng, 4, 6), "w": f32(rng, 6), "b": f32(rng, 6)}


@program(_ln, "native_layer_norm", "mean.dim", "sub.Tensor", "pow.Tensor_Scalar", "add.Tensor", "rsqrt", "mul.Tensor",
         "layer_norm")
def layer_norm_manual(T, F, x, w, b):  # noqa: ANN001, ANN201, N803
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    manual = (x - mu) * (var + 1e-5).rsqrt() * w + b
    return manual, F.layer_norm(x, (6,), w, b)


def _reg(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": f32(rng, 16, 3), "w_true": f32(rng, 3, 1), "w": np.zeros((3, 1), dtype=np.float32)}


@program(_reg, "mm", "sub.Tensor", "t", "mul.Tensor", "div.Tensor", "sub_.Tensor", "mse_loss", "cat", "matmul",
         "stack", "transpose.int", "unsqueeze")
def linear_regression_sgd(T, F, x, w_true, w):  # noqa: ANN001, ANN201, N803
    y = x @ w_true
    losses = []
    for _ in range(5):
        pred = x @ w
        losses.append(F.mse_loss(pred, y))
        grad = 2 * x.t() @ (pred - y) / x.shape[0]
        w.sub_(0.1 * grad)
    return w, T.stack(losses), F.mse_loss(pred, y, reduction="sum")


def _cls(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": f32(rng, 6, 5), "t": rng.integers(0, 5, size=6).astype(np.int64)}


@program(_cls, "_log_softmax", "nll_loss_forward", "nll_loss_nd", "log_softmax.int", "nll_loss")
def nll_of_log_softmax(T, F, x, t):  # noqa: ANN001, ANN201, N803
    lp = F.log_softmax(x, dim=1)
    return F.nll_loss(lp, t), F.nll_loss(lp, t, reduction="sum"), F.nll_loss(lp, t, reduction="none")


@program(_x34, "max.dim", "argmin", "max", "min.dim", "argmax", "min")
def max_min_argmax(T, F, x, y):  # noqa: ANN001, ANN201, N803
    values, idx = x.max(1)
    m = T.min(x, 0)
    return values, idx, x.argmin(0), T.max(x), m.values, m.indices, y.argmax(), y.min(), x.max(1, keepdim=True)[0]


def _ints(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"xi": rng.integers(-10, 10, size=(3, 4)).astype(np.int64), "x": f32(rng, 3, 4)}


@program(_ints, "mul.Tensor", "add.Tensor", "div.Tensor", "sum", "_to_copy", "mean", "add.Tensor", "mean.dim",
         "sum.dim_IntList", "to.dtype")
def int_arithmetic(T, F, xi, x):  # noqa: ANN001, ANN201, N803
    return xi * 2 + 1, xi / 2, xi.sum(), xi.float().mean(), xi + x, xi + 2.5, (xi * 3).sum(1)


@program(_x34, "gt.Scalar", "sum", "eq.Tensor", "amax", "_to_copy", "bitwise_not", "ne.Scalar", "le.Tensor", "mean",
         "mean.dim", "sum.dim_IntList", "to.dtype")
def comparisons_and_bool(T, F, x, y):  # noqa: ANN001, ANN201, N803
    pos = x > 0
    is_max = (x == x.amax(1, keepdim=True)).long()
    return pos.sum(), is_max, ~pos, (x != 0).sum(1), x <= y, 0 < x, pos.float().mean()


def _x24(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": f32(rng, 24)}


@program(_x24, "view", "permute", "t", "clone", "_unsafe_view", "squeeze.dim", "unsqueeze", "expand", "contiguous",
         "flatten.using_ints", "reshape", "transpose.int")
def reshape_permute(T, F, x):  # noqa: ANN001, ANN201, N803
    a = x.reshape(2, 3, 4).permute(2, 0, 1)
    b = a.flatten(1).t().contiguous().view(-1)
    c = a.reshape(-1)
    return a, b, c, x.view(4, 6).T.reshape(3, 8), x.unsqueeze(0).squeeze(0), x.view(1, 24).expand(3, 24)


@program(_x34, "unbind.int", "split.Tensor", "add.Tensor", "split_with_sizes", "chunk")
def unbind_split_chunk(T, F, x, y):  # noqa: ANN001, ANN201, N803
    r0, r1, r2 = x.unbind(0)
    a, b = x.split(2, 1)
    c = y.chunk(3)
    d = list(T.split(x, [1, 3], dim=1))
    return r0 + r1 * r2, a - b, c[0] + c[2], d[0] * d[1]


def _gather(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": f32(rng, 5, 4), "idx": np.array([4, 0, 2], dtype=np.int64)}


@program(_gather, "index_select", "index.Tensor", "gt.Scalar", "lift_fresh", "nonzero", "slice.Tensor")
def index_select_and_masks(T, F, x, idx):  # noqa: ANN001, ANN201, N803
    return x.index_select(0, idx), x[idx], x[x > 0], x[:, idx[1:]], x[[1, 3]], (x > 0).nonzero()


@program(_x34, "clamp", "add.Tensor", "sqrt", "pow.Tensor_Scalar", "abs", "rsqrt", "maximum", "minimum",
         "clamp.Tensor", "sub.Tensor")
def clamp_pow_sqrt(T, F, x, y):  # noqa: ANN001, ANN201, N803
    a = (x.clamp(min=0) + 1).sqrt().pow(2)
    b = (x.abs() + 1).rsqrt()
    return a, b, T.maximum(x, y), T.minimum(x, y), x.clamp(-0.5, 0.5), T.clamp(x, max=0.0), x.clamp(y - 1, y + 1)


@program(_x34, "rsub.Scalar", "pow.Scalar", "reciprocal", "mul.Tensor", "neg", "abs", "add.Tensor")
def reflected_operators(T, F, x, y):  # noqa: ANN001, ANN201, N803
    return 1.0 - x, 2.0 ** x, 3.0 / (x.abs() + 1), 2 * x, -x, 1 + y, 2 ** y, 5 - y


@program(_x34, "zeros", "ones", "full", "eye.m", "arange", "view", "zeros_like", "ones_like", "full_like",
         "add.Tensor", "mul.Tensor", "new_zeros", "new_ones", "new_full", "scalar_tensor", "arange.start",
         "arange.start_step", "eye")
def factories(T, F, x, y):  # noqa: ANN001, ANN201, N803
    base = T.zeros(3, 4) + T.ones(3, 4) * 2 + T.full((3, 4), 0.5) + T.eye(3, 4) + T.arange(12.0).view(3, 4)
    likes = T.zeros_like(x) + T.ones_like(x) + T.full_like(x, 3)
    news = x.new_zeros(2, 2) + x.new_ones((2, 2)) + x.new_full((2, 2), 4.0)
    ints = T.arange(5) * 2 + T.ones(5, dtype=T.int64)
    return base, likes, news, ints, T.arange(1, 4), T.arange(0, 1, 0.25), T.eye(3), T.scalar_tensor(2.5)


@program(_x34, "dropout", "gelu", "silu", "sigmoid", "tanh", "relu", "exp", "log", "sin", "cos", "abs", "add.Tensor")
def activations(T, F, x, y):  # noqa: ANN001, ANN201, N803
    return (F.dropout(x, 0.5, training=False), F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), x.sigmoid(),
            T.tanh(x), F.relu(y), T.exp(x), (x.abs() + 1).log(), x.sin() + x.cos())


def _mm(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"a": f32(rng, 2, 3, 4), "b": f32(rng, 2, 4, 5), "m": f32(rng, 3, 4), "w": f32(rng, 4, 5),
            "bias": f32(rng, 5), "v": f32(rng, 4)}


@program(_mm, "addmm", "bmm", "mm", "view", "_unsafe_view", "mv", "dot", "expand", "matmul", "add.Tensor", "reshape")
def matrix_products(T, F, a, b, m, w, bias, v):  # noqa: ANN001, ANN201, N803
    return (T.addmm(bias, m, w), T.bmm(a, b), a @ w, T.matmul(m, v), v @ v, m.mm(w), m @ w + bias,
            T.addmm(bias, m, w, beta=0.5, alpha=2.0), a @ b)


@program(_x34, "clone", "add_.Tensor", "relu_", "mm", "mul_.Tensor", "div_.Tensor", "zero_", "fill_.Scalar",
         "masked_fill_.Scalar", "t", "gt.Scalar", "matmul", "transpose.int")
def residual_inplace(T, F, x, y):  # noqa: ANN001, ANN201, N803
    h = x.clone()
    h += y
    h = F.relu(h, inplace=True)
    h *= 2
    h /= 4
    g = y.clone().masked_fill_(y > 0, 1.0)
    z = x.clone().zero_()
    f = x.clone().fill_(3)
    return h, g, z, f, h @ h.t()


@program(_ints, "_to_copy", "sum", "add.Tensor", "div.Tensor", "sum.dim_IntList", "to.dtype", "to.dtype_layout")
def dtype_conversions(T, F, xi, x):  # noqa: ANN001, ANN201, N803
    return (x.double().sum(), x.half().float(), xi.to(T.float32), x.type_as(xi), x.long(), xi.bool(), x.int(),
            x.to(T.float64) + 1, xi.double() / 3)


@program(_x34, "view", "expand", "mul.Tensor", "sum.dim_IntList", "unsqueeze", "expand_as", "view_as", "add.Tensor",
         "select.int", "t", "transpose.int")
def expand_view_as(T, F, x, y):  # noqa: ANN001, ANN201, N803
    col = x.sum(1, keepdim=True)
    return col.expand_as(x) * y, x.view_as(y.t()), x[0].expand(3, 4) + y, col.expand(-1, 4)


@program(_x34, "mean.dim", "sub.Tensor", "mul.Tensor", "sum.dim_IntList", "sqrt", "div.Tensor", "add.Tensor")
def cosine_similarity(T, F, x, y):  # noqa: ANN001, ANN201, N803
    dot = (x * y).sum(-1)
    norm = (x * x).sum(-1).sqrt() * (y * y).sum(-1).sqrt()
    return dot / (norm + 1e-8)


def _seq(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": f32(rng, 4, 3), "w_ih": f32(rng, 5, 3) * 0.5, "w_hh": f32(rng, 5, 5) * 0.5, "b": f32(rng, 5)}


@program(_seq, "select.int", "linear", "t", "addmm", "mm", "add.Tensor", "tanh", "zeros", "stack", "unsqueeze", "cat",
         "matmul", "reshape", "squeeze.dim", "transpose.int", "view")
def tiny_rnn(T, F, x, w_ih, w_hh, b):  # noqa: ANN001, ANN201, N803
    h = T.zeros(5)
    outs = []
    for t in range(x.shape[0]):
        h = T.tanh(F.linear(x[t], w_ih, b) + F.linear(h, w_hh))
        outs.append(h)
    return T.stack(outs), h


@program(_x34, "_local_scalar_dense", "sum", "select.int", "max", "gt.Scalar", "is_nonzero", "sum.dim_IntList")
def python_scalars(T, F, x, y):  # noqa: ANN001, ANN201, N803
    total = x.sum().item()
    first = float(x[0, 0])
    biggest = x.max().item()
    return total, first, biggest, x.tolist(), bool((x > 0).sum() > 3), int(x.shape[0])


# --- running ------------------------------------------------------------------------------------------
def _to_module(T: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    return {k: T.from_numpy(v.copy()) for k, v in arrays.items()}


def _compare(ours: Any, theirs: Any, path: str = "out") -> None:
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), path
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _compare(o, t, f"{path}[{i}]")
        return
    if hasattr(theirs, "dtype") and hasattr(theirs, "shape"):
        assert isinstance(ours, dispatcher.Tensor), f"{path}: got {type(ours).__name__}"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{path}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
        assert str(ours.dtype) == str(theirs.dtype), f"{path}: dtype {ours.dtype} vs {theirs.dtype}"
        expected = theirs.detach().numpy()
        got = ours.detach().numpy()
        if expected.dtype.kind == "f":
            tol = 1e-3 if expected.dtype == np.float16 else 1e-4
            np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, err_msg=path)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=path)
        return
    if isinstance(theirs, float):
        assert isinstance(ours, float), path
        assert math.isclose(ours, theirs, rel_tol=1e-5, abs_tol=1e-6), (path, ours, theirs)
        return
    assert type(ours) is type(theirs) and ours == theirs, (path, ours, theirs)


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS[n]) for n in PROGRAMS])
def test_program_matches_torch(torch: Any, name: str) -> None:
    fn, make_inputs = PROGRAMS[name]
    arrays = make_inputs(np.random.default_rng(zlib.crc32(name.encode())))
    theirs = fn(torch, torch.nn.functional, **_to_module(torch, arrays))
    ours = fn(dispatcher, dispatcher.nn.functional, **_to_module(dispatcher, arrays))
    _compare(ours, theirs)


def test_there_are_at_least_25_programs() -> None:
    assert len(PROGRAMS) >= 25
