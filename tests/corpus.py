"""The make_fx program corpus shared by the tracing, passes and compile tests.

Each program is written once against a namespace ``T`` (torch, or the ``dispatcher`` package) and
``F`` (its ``nn.functional``): ``PROGRAMS[name] = (program, input shapes, indices of inputs that
require grad)``. A shape is a tuple (a float32 tensor), a list / dict of shapes (nested inputs) or a
Python constant. ``arrays(shapes, seed)`` draws NumPy data; ``inputs(lib, arrays, rg)`` turns it into
tensors of ``lib`` so both libraries run on the same values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

# --- programs --------------------------------------------------------------------------------------------------------


def p_linear_softmax_ln(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, b):
        return F.layer_norm(F.softmax(F.linear(x, w, b), -1), (4,))
    return f


def p_mlp(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w1, b1, w2, b2):
        h = F.relu(F.linear(x, w1, b1))
        return F.linear(h, w2, b2).sum(-1)
    return f


def p_attention(T: Any, F: Any) -> Callable[..., Any]:
    def f(q, k, v):
        s = (q @ k.transpose(-2, -1)) / 4.0
        return F.softmax(s, -1) @ v
    return f


def p_inplace_view(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        x = x.clone()
        x.add_(y)
        v = x.view(-1)
        return v.mul_(2)
    return f


def p_nested_out(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        return (x.sin(), [x.cos(), {"k": x + 1}], 7)
    return f


def p_scalars(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, n, s):
        return x * n + s
    return f


def p_constants(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        return x * 3 + T.tensor([1.0, 2.0]) + T.tensor([1.0, 2.0, 3.0]).sum() + T.ones(2)
    return f


def p_multi_output(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        a, b = x.max(dim=1)
        parts = x.split(2, dim=0)
        return a + b.float(), parts[0].sum() + parts[1].mean()
    return f


def p_autograd_grad(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        loss = F.relu(x @ w).sum()
        (gw,) = T.autograd.grad(loss, [w])
        return loss, gw
    return f


def p_backward_grad(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        loss = (x * w).sum()
        loss.backward()
        return w.grad
    return f


def p_no_grad_region(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        with T.no_grad():
            y = x.sin()
        return y + x.cos()
    return f


def p_transformer_block(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, wq, wk, wv, wo, w1, w2, g, b):
        B, S, Dm = x.shape
        h = F.layer_norm(x, (Dm,), g, b)
        q = F.linear(h, wq).view(B, S, 4, Dm // 4).transpose(1, 2)
        k = F.linear(h, wk).view(B, S, 4, Dm // 4).transpose(1, 2)
        v = F.linear(h, wv).view(B, S, 4, Dm // 4).transpose(1, 2)
        a = F.softmax(q @ k.transpose(-2, -1) * (Dm // 4) ** -0.5, dim=-1) @ v
        x = x + F.linear(a.transpose(1, 2).reshape(B, S, Dm), wo)
        return x + F.linear(F.gelu(F.linear(F.layer_norm(x, (Dm,)), w1)), w2)
    return f


def p_train_step(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, w1, w2):
        loss = ((F.relu(x @ w1) @ w2 - y) ** 2).mean()
        loss.backward()
        with T.no_grad():
            w1.sub_(w1.grad * 0.1)
            w2.sub_(w2.grad * 0.1)
        return loss, w1, w2
    return f


def p_views_inplace(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y[0].mul_(3)
        y[:, 1:].add_(1)
        z = y.t().contiguous().unsqueeze(0)
        return z.expand(2, 3, 2).sum(0), y.unbind(1)
    return f


def p_cat_stack_where(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        c = T.cat([x, y], dim=0)
        s = T.stack([x, y]).amax(0)
        return T.where(c > 0, c, T.zeros_like(c)), s.exp()
    return f


def p_item_of_constant(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        return x * T.tensor(3.0).item()
    return f


def p_nested_in(T: Any, F: Any) -> Callable[..., Any]:
    def f(xs, d):
        return {"s": xs[0] + xs[1] * d["a"], "n": [d["b"].neg()]}
    return f


_GLOBALS: dict[Any, Any] = {}


def p_captured_global(T: Any, F: Any) -> Callable[..., Any]:
    if T not in _GLOBALS:
        _GLOBALS[T] = (T.arange(3.0), T.ones(2, 2))
    g, out_const = _GLOBALS[T]

    def f(x):
        return x * g + g.sum(), out_const
    return f


def p_ln_backward_partial(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, b):
        y = F.layer_norm(x, (4,), w, b)
        (gx,) = T.autograd.grad(y.sin().sum(), [x])
        return gx
    return f


def p_sgd_autograd_grad(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y, w, b):
        loss = F.mse_loss(F.linear(x, w, b), y)
        gw, gb = T.autograd.grad(loss, [w, b])
        with T.no_grad():
            w_new = w - 0.1 * gw
            b_new = b - 0.1 * gb
        return loss.detach(), w_new, b_new
    return f


def p_slice_assign(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, z):
        y = x.clone()
        y[:, 1:3] = z
        y[0] = 0.0
        y[1, 0] += 5.0
        return y * 2
    return f


def p_index_put_setitem(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, idx, v):
        y = x.clone()
        y[idx] = v
        return y, x[idx].sum(0)
    return f


def p_transpose_contiguous_expand(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, b):
        t = x.transpose(0, 1).contiguous()
        e = b.unsqueeze(1).expand(3, 4)
        return t.view(-1) + 1, (t + e).permute(1, 0).reshape(2, 6), e.expand_as(t).sum()
    return f


def p_masked_attention(T: Any, F: Any) -> Callable[..., Any]:
    def f(q, k, v):
        S = q.shape[-2]
        scores = q @ k.transpose(-2, -1) * (q.shape[-1] ** -0.5)
        causal = T.arange(S).unsqueeze(0) > T.arange(S).unsqueeze(1)
        scores = scores.masked_fill(causal, float("-inf"))
        return F.softmax(scores, dim=-1) @ v
    return f


def p_multi_head_attention(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w_qkv, b_qkv, w_o, b_o):
        B, S, E = x.shape
        H = 2
        q, k, v = F.linear(x, w_qkv, b_qkv).chunk(3, dim=-1)
        q = q.reshape(B, S, H, E // H).permute(0, 2, 1, 3)
        k = k.reshape(B, S, H, E // H).permute(0, 2, 1, 3)
        v = v.reshape(B, S, H, E // H).permute(0, 2, 1, 3)
        a = F.softmax(T.matmul(q, k.transpose(-1, -2)) / (E // H) ** 0.5, dim=-1)
        o = T.matmul(a, v).permute(0, 2, 1, 3).reshape(B, S, E)
        return F.linear(o, w_o, b_o)
    return f


def p_embedding_classifier(T: Any, F: Any) -> Callable[..., Any]:
    def f(tokens, emb, w, b, labels):
        h = F.embedding(tokens, emb).mean(1)
        loss = F.cross_entropy(F.linear(h, w, b), labels)
        loss.backward()
        return loss, emb.grad, w.grad
    return f


def p_dropout_eval(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        h = F.dropout(F.relu(x @ w), p=0.5, training=False)
        return F.dropout(h, p=0.0) + F.dropout(h, 0.3, False)
    return f


def p_gelu_silu_mlp(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w1, w2, w3):
        h = F.gelu(F.linear(x, w1)) * F.silu(F.linear(x, w2))
        return F.linear(F.gelu(h, approximate="tanh"), w3)
    return f


def p_residual_layer_norm(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, g, b):
        h = x + F.relu(F.linear(x, w))
        return F.layer_norm(h, (x.shape[-1],), g, b, 1e-6)
    return f


def p_reductions(T: Any, F: Any) -> Callable[..., Any]:
    def f(x):
        m = x.amax(-1, keepdim=True)
        lse = (x - m).exp().sum(-1, keepdim=True).log() + m  # logsumexp, spelled out
        return lse, x.mean(0), x.mean(1, keepdim=True), x.argmax(1), x.amin(), x.max(), x.sum((0, 1))
    return f


def p_where_masked_fill(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        mask = (x + y) > 0
        a = T.where(mask, x, y)
        b = x.masked_fill(~mask, 0.0)
        c = T.where(x > y, x, 0.0)
        return a + b, c, x.clamp(min=-0.5, max=0.5)
    return f


def p_cat_stack_split(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        a, b, c = T.cat([x, y], dim=1).split([1, 2, 3], dim=1)
        parts = T.stack([x, y, x * y], dim=0).unbind(0)
        return T.cat([c, b, a], 1), parts[2] - parts[0], T.chunk(x, 3, 1)[1]
    return f


def p_int_index(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, idx, labels):
        rows = x[idx]
        picked = x[T.arange(4), labels]
        return rows.sum(1), picked, x.index_select(0, idx), idx * 2 + 1
    return f


def p_log_softmax_nll_grad(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w, labels):
        logp = F.log_softmax(x @ w, dim=-1)
        loss = F.nll_loss(logp, labels)
        (gw,) = T.autograd.grad(loss, [w])
        return loss, gw
    return f


def p_mlp_train_rg(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w1, b1, w2):
        h = T.tanh(F.linear(x, w1, b1))
        out = T.sigmoid(h @ w2)
        out.sum().backward()
        return out, w1.grad, b1.grad, w2.grad
    return f


def p_inplace_activations(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, y):
        h = x.clone()
        h.mul_(y).add_(1.0).relu_()
        h.sub_(0.5).div_(2.0)
        return h, h.abs().sqrt() + h.neg().exp()
    return f


def p_broadcast_scalars(T: Any, F: Any) -> Callable[..., Any]:
    def f(a, b, c):
        return (a * b - c) / 2 + 1.0 - a ** 2, 2.0 - b, (c @ a.t()).rsqrt().abs()
    return f


def p_no_grad_then_grad(T: Any, F: Any) -> Callable[..., Any]:
    def f(x, w):
        with T.no_grad():
            scale = x.abs().amax() + 1.0
        y = (x / scale) @ w
        with T.enable_grad():
            z = y.sin().sum()
        return y, z
    return f


# name -> (program, input shapes, which inputs require grad)
PROGRAMS: dict[str, tuple[Callable[..., Any], list, tuple[int, ...]]] = {
    "linear_softmax_ln": (p_linear_softmax_ln, [(2, 3), (4, 3), (4,)], ()),
    "linear_softmax_ln_rg": (p_linear_softmax_ln, [(2, 3), (4, 3), (4,)], (0,)),
    "mlp": (p_mlp, [(3, 5), (8, 5), (8,), (2, 8), (2,)], ()),
    "attention": (p_attention, [(1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8)], ()),
    "inplace_view": (p_inplace_view, [(2, 3), (2, 3)], ()),
    "nested_out": (p_nested_out, [(3,)], ()),
    "scalars": (p_scalars, [(2,), 3, 0.5], ()),
    "constants": (p_constants, [(2,)], ()),
    "multi_output": (p_multi_output, [(4, 3)], ()),
    "autograd_grad": (p_autograd_grad, [(2, 3), (3, 4)], (1,)),
    "backward_grad": (p_backward_grad, [(2, 3), (2, 3)], (1,)),
    "no_grad_region": (p_no_grad_region, [(3,)], (0,)),
    "transformer_block": (p_transformer_block, [(1, 16, 64)] + [(64, 64)] * 4 + [(128, 64), (64, 128), (64,), (64,)],
                          ()),
    "train_step": (p_train_step, [(4, 3), (4, 2), (3, 5), (5, 2)], (2, 3)),
    "views_inplace": (p_views_inplace, [(2, 3)], ()),
    "cat_stack_where": (p_cat_stack_where, [(2, 3), (2, 3)], ()),
    "item_of_constant": (p_item_of_constant, [(3,)], ()),
    "nested_in": (p_nested_in, [[(2,), (2,)], {"a": (2,), "b": (3,)}], ()),
    "captured_global": (p_captured_global, [(3,)], ()),
    "ln_backward_partial": (p_ln_backward_partial, [(2, 4), (4,), (4,)], (0,)),
    "sgd_autograd_grad": (p_sgd_autograd_grad, [(4, 3), (4, 2), (2, 3), (2,)], (2, 3)),
    "slice_assign": (p_slice_assign, [(3, 4), (3, 2)], ()),
    "index_put_setitem": (p_index_put_setitem, [(5, 3), ("i64", (2,), 5), (3,)], ()),
    "transpose_contiguous_expand": (p_transpose_contiguous_expand, [(4, 3), (3,)], ()),
    "masked_attention": (p_masked_attention, [(1, 2, 4, 8)] * 3, ()),
    "multi_head_attention": (p_multi_head_attention, [(2, 3, 8), (24, 8), (24,), (8, 8), (8,)], ()),
    "multi_head_attention_rg": (p_multi_head_attention, [(2, 3, 8), (24, 8), (24,), (8, 8), (8,)], (1, 3)),
    "embedding_classifier": (p_embedding_classifier, [("i64", (2, 5), 10), (10, 6), (3, 6), (3,), ("i64", (2,), 3)],
                             (1, 2)),
    "dropout_eval": (p_dropout_eval, [(3, 4), (4, 5)], ()),
    "gelu_silu_mlp": (p_gelu_silu_mlp, [(3, 6), (8, 6), (8, 6), (2, 8)], ()),
    "residual_layer_norm": (p_residual_layer_norm, [(2, 3, 4), (4, 4), (4,), (4,)], ()),
    "residual_layer_norm_rg": (p_residual_layer_norm, [(2, 3, 4), (4, 4), (4,), (4,)], (1, 2)),
    "reductions": (p_reductions, [(3, 5)], ()),
    "where_masked_fill": (p_where_masked_fill, [(3, 4), (3, 4)], ()),
    "cat_stack_split": (p_cat_stack_split, [(2, 3), (2, 3)], ()),
    "int_index": (p_int_index, [(4, 3), ("i64", (3,), 4), ("i64", (4,), 3)], ()),
    "log_softmax_nll_grad": (p_log_softmax_nll_grad, [(4, 3), (3, 5), ("i64", (4,), 5)], (1,)),
    "mlp_train_rg": (p_mlp_train_rg, [(4, 3), (5, 3), (5,), (5, 2)], (1, 2, 3)),
    "inplace_activations": (p_inplace_activations, [(2, 3), (2, 3)], ()),
    "broadcast_scalars": (p_broadcast_scalars, [(2, 3), (3,), (2, 3)], ()),
    "no_grad_then_grad": (p_no_grad_then_grad, [(3, 4), (4, 2)], (1,)),
}


# --- helpers -----------------------------------------------------------------------------------------------------------


def arrays(shapes: list, seed: int) -> list:
    """NumPy data for ``shapes``: a tuple is a float32 array of that shape, ``("i64", shape, high)`` an int64
    array of values in ``[0, high)`` (indices, labels), lists / dicts nest, anything else is kept as is."""
    rng = np.random.default_rng(seed)

    def make(s: Any) -> Any:
        if isinstance(s, tuple) and s and s[0] == "i64":
            _, shape, high = s
            return rng.integers(0, high, size=shape, dtype=np.int64)
        if isinstance(s, tuple):
            return rng.standard_normal(s).astype(np.float32)
        if isinstance(s, list):
            return [make(e) for e in s]
        if isinstance(s, dict):
            return {k: make(v) for k, v in s.items()}
        return s

    return [make(s) for s in shapes]


def inputs(lib: Any, arrays: list, rg: tuple[int, ...]) -> list:
    def make(a: Any, grad: bool) -> Any:
        if isinstance(a, np.ndarray):
            t = lib.tensor(a.copy())
            return t.requires_grad_() if grad and a.dtype.kind == "f" else t
        if isinstance(a, list):
            return [make(e, grad) for e in a]
        if isinstance(a, dict):
            return {k: make(v, grad) for k, v in a.items()}
        return a

    return [make(a, i in rg) for i, a in enumerate(arrays)]


def target_str(t: Any) -> str:
    """``str(target)``, unchanged: ours print as torch's (``aten.addmm.default``, ``<built-in function getitem>``,
    ``<built-in function _set_grad_enabled>``)."""
    return str(t)


def targets(gm: Any) -> list[str]:
    return [target_str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


def to_np(x: Any) -> Any:
    if hasattr(x, "detach"):
        return np.asarray(x.detach().numpy())
    if isinstance(x, (list, tuple)):
        return [to_np(e) for e in x]
    if isinstance(x, dict):
        return {k: to_np(v) for k, v in x.items()}
    return x


def assert_close(a: Any, b: Any) -> None:
    if isinstance(a, np.ndarray):
        # float32 results of long accumulations (attention, convolution backward) differ from torch's by a few
        # ulps times the accumulation length, and by how much depends on which SIMD kernels torch picks on the
        # machine's CPU: float32 gets float32-sized tolerances, everything else stays tight
        single = a.dtype == np.float32 or getattr(b, "dtype", None) == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-4 if single else 1e-5, atol=1e-5 if single else 1e-6)
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_close(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_close(a[k], b[k])
    else:
        assert a == b
