"""The make_fx program corpus shared by the tracing, passes and compile tests.

Each program is written once against a namespace ``T`` (torch, or the ``dispatcher`` package) and
``F`` (its ``nn.functional``): ``PROGRAMS[name] = (program, input shapes, indices of inputs that
require grad)``. A shape is a tuple (a float32 tensor), a list / dict of shapes (nested inputs) or a
Python constant. ``arrays(shapes, seed)`` draws NumPy data; ``inputs(lib, arrays, rg)`` turns it into
tensors of ``lib`` so both libraries run on the same values.
"""

from __future__ import annotations

import operator
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
}


# --- helpers -----------------------------------------------------------------------------------------------------------


def arrays(shapes: list, seed: int) -> list:
    rng = np.random.default_rng(seed)

    def make(s: Any) -> Any:
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
            return t.requires_grad_() if grad else t
        if isinstance(a, list):
            return [make(e, grad) for e in a]
        if isinstance(a, dict):
            return {k: make(v, grad) for k, v in a.items()}
        return a

    return [make(a, i in rg) for i, a in enumerate(arrays)]


def target_str(t: Any) -> str:
    if t is operator.getitem:
        return "<built-in function getitem>"
    if getattr(t, "__name__", None) == "_set_grad_enabled":
        return "_set_grad_enabled"
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
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
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
