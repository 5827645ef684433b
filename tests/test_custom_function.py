"""autograd.Function against torch 2.13: values, gradients, grad_fn names and edges, ctx features
(save_for_backward, needs_input_grad, mark_dirty, mark_non_differentiable, set_materialize_grads,
setup_context, once_differentiable), hooks, errors, and make_fx graphs op for op in the four configurations."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tracer import make_fx
from tracer.decompositions import core_aten_decompositions


def functions(T: Any) -> Any:  # noqa: N803 - the library namespace, torch or dispatcher
    """The same custom Functions written against ``T``."""
    once_differentiable = T.autograd.function.once_differentiable if T.__name__ == "torch" else \
        D.autograd.once_differentiable
    seen: dict[str, Any] = {}

    class ScaledExp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            y = x.exp() * k
            ctx.save_for_backward(y, x)
            ctx.k = k
            seen["needs"] = ctx.needs_input_grad
            return y

        @staticmethod
        def backward(ctx, g):
            y, x = ctx.saved_tensors
            return g * y, None

    class MulSetup(T.autograd.Function):  # the setup_context style, a default argument
        @staticmethod
        def forward(x, w, scale=2.0):
            return x * w * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, w, scale = inputs
            ctx.save_for_backward(x, w)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g * w * ctx.scale, g * x * ctx.scale, None

    class SplitSort(T.autograd.Function):  # several outputs: an input as is, a non-differentiable, a non-tensor
        @staticmethod
        def forward(ctx, x):
            idx = x.argsort()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return x, x.sin(), idx, 7

        @staticmethod
        def backward(ctx, g0, g1, g2, g3):
            seen["grads"] = (g2 is None, g3)
            return g0 + g1 * 3

    class NoMaterialize(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx, g0, g1):
            seen["none"] = (g0 is None, g1 is None)
            return g0 if g1 is None else g0 + g1

    class DoubleInPlace(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class OnceExp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            seen["grad_mode"] = T.is_grad_enabled()
            return g * x.exp()

    class Square(T.autograd.Function):  # twice differentiable: its backward uses differentiable ops
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return {"ScaledExp": ScaledExp, "MulSetup": MulSetup, "SplitSort": SplitSort, "NoMaterialize": NoMaterialize,
            "DoubleInPlace": DoubleInPlace, "OnceExp": OnceExp, "Square": Square, "seen": seen}


def _np(t: Any) -> Any:
    return None if t is None else np.asarray(t.detach().numpy())


def _scenario(T: Any) -> dict[str, Any]:  # noqa: N803
    """Run every Function eagerly; collect values, gradients, names and what backward saw."""
    f = functions(T)
    seen, out = f["seen"], {}
    data = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    x = T.tensor(data.copy(), requires_grad=True)
    w = T.tensor((data * 0.5 + 1).copy(), requires_grad=True)

    y = f["ScaledExp"].apply(x, 1.5)
    out["exp_name"] = type(y.grad_fn).__name__
    out["exp_edges"] = [type(n).__name__ for n, _ in y.grad_fn.next_functions]
    out["exp_needs"] = seen["needs"]
    out["exp_k"] = y.grad_fn.k
    out["exp_saved"] = [_np(s) for s in y.grad_fn.saved_tensors]
    y.sum().backward()
    out["exp_grad"] = _np(x.grad)
    with pytest.raises(RuntimeError) as e:
        y.grad_fn.saved_tensors  # noqa: B018
    out["freed"] = str(e.value)
    x.grad = None

    z = f["MulSetup"].apply(x, w)
    z2 = f["MulSetup"].apply(x, w, scale=0.5)
    (z.sum() + z2.sum()).backward()
    out["setup"] = (_np(z), _np(z2), _np(x.grad), _np(w.grad), type(z.grad_fn).__name__)
    x.grad = w.grad = None

    a, b, idx, seven = f["SplitSort"].apply(x)
    out["split"] = (a is x, a._base is x, b.requires_grad, idx.requires_grad, idx.grad_fn, seven,
                    type(a.grad_fn).__name__, a.grad_fn is b.grad_fn, a.is_leaf)
    (a * 2 + b).sum().backward()
    out["split_grad"] = (_np(x.grad), seen["grads"])
    x.grad = None

    p, q = f["NoMaterialize"].apply(x)
    p.sum().backward()
    out["nomat"] = (seen["none"], _np(x.grad))
    x.grad = None

    base = x * 1
    view = base[0]
    r = f["DoubleInPlace"].apply(view)
    out["dirty"] = (r is view, type(r.grad_fn).__name__, type(base.grad_fn).__name__, base._version, _np(base))
    base.sum().backward()
    out["dirty_grad"] = _np(x.grad)
    x.grad = None

    o = f["OnceExp"].apply(x)
    (g,) = T.autograd.grad(o.sum(), x, create_graph=True)
    out["once"] = (seen["grad_mode"], g.requires_grad, _np(g))
    o = f["OnceExp"].apply(x)
    gout = T.ones_like(o, requires_grad=True)
    (g,) = T.autograd.grad(o, x, gout, create_graph=True)
    out["once_error_node"] = g.requires_grad
    with pytest.raises(RuntimeError) as e:
        g.sum().backward()
    out["once_error"] = str(e.value)

    s = f["Square"].apply(x)
    (g,) = T.autograd.grad(s.sum(), x, create_graph=True)
    (gg,) = T.autograd.grad(g.sum(), x)
    out["double"] = (_np(g), _np(gg), type(g.grad_fn).__name__)

    # hooks: a tensor hook on the output, a prehook and a hook on the node
    calls = []
    y = f["ScaledExp"].apply(x, 2.0)
    y.register_hook(lambda grad: calls.append("tensor") or grad * 2)
    y.grad_fn.register_prehook(lambda grads: calls.append("pre") or None)
    y.grad_fn.register_hook(lambda gi, go: calls.append("post") or None)
    y.sum().backward()
    out["hooks"] = (calls, _np(x.grad))
    x.grad = None

    with T.no_grad():
        y = f["ScaledExp"].apply(x, 2.0)
    out["no_grad"] = (y.requires_grad, y.grad_fn, seen["needs"])
    return out


def _same(a: Any, b: Any) -> None:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b, (a, b)


def test_eager_matches_torch(torch: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _scenario(D), _scenario(torch)
    assert ours.keys() == theirs.keys()
    for key in ours:
        _same(ours[key], theirs[key])


def _errors(T: Any) -> list[Any]:  # noqa: N803
    x = T.ones(2, requires_grad=True)

    def fn(forward: Any, backward: Any = None, **extra: Any) -> Any:
        body = {"forward": staticmethod(forward), **{k: staticmethod(v) for k, v in extra.items()}}
        if backward is not None:
            body["backward"] = staticmethod(backward)
        return type("Custom", (T.autograd.Function,), body)

    cases = [
        lambda: fn(lambda ctx, x: x * 2, lambda ctx, g: (g, None, 3)).apply(x).sum().backward(),
        lambda: fn(lambda ctx, x, k: x * k, lambda ctx, g: g).apply(x, 2).sum().backward(),
        lambda: fn(lambda ctx, x, k: x * k, lambda ctx, g: (g, g)).apply(x, 2).sum().backward(),
        lambda: fn(lambda ctx, x: x * 2, lambda ctx, g: T.ones(3)).apply(x).sum().backward(),
        lambda: fn(lambda ctx, x: x * 2, lambda ctx, g: 3).apply(x).sum().backward(),
        lambda: fn(lambda ctx, x: ctx.save_for_backward(x, 3) or x * 2, lambda ctx, g: g).apply(x),
        lambda: fn(lambda ctx, x: x * 2).apply(x).sum().backward(),
        lambda: type("Empty", (T.autograd.Function,), {}).apply(x),
        lambda: fn(lambda ctx, x: x * 2, lambda ctx, g: g)()(x),
        lambda: fn(lambda ctx, x, y: ctx.mark_dirty(y) or x * 1, lambda ctx, g: (g, None)).apply(x, T.ones(2)),
        lambda: fn(lambda ctx, x: ctx.mark_dirty(x) or x, lambda ctx, g: g).apply(x),
        lambda: fn(lambda x: x, lambda ctx, g: g,
                   setup_context=lambda ctx, inputs, output: ctx.save_for_backward(output)).apply(x),
        lambda: fn(lambda ctx, x: x.view(2, 1), lambda ctx, g: g.view(2)).apply(x).mul_(2),
        lambda: fn(lambda ctx, x: (x[0], x[1:]), lambda ctx, a, b: T.cat([a.unsqueeze(0), b])).apply(x)[0].mul_(2),
        lambda: fn(lambda ctx, x: x * 2, lambda ctx, g: g, vjp=lambda ctx, g: g).apply(x).sum().backward(),
    ]
    out = []
    for case in cases:
        try:
            case()
            out.append(None)
        except Exception as e:  # noqa: BLE001 - kinds and messages are compared
            out.append((type(e).__name__, str(e)))
    return out


def test_errors_match_torch(torch: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _errors(D), _errors(torch)
    assert ours == theirs


def test_instantiating_warns_and_backward_node_class() -> None:
    f = functions(D)
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        f["Square"]()
    y = f["Square"].apply(D.ones(2, requires_grad=True))
    assert type(y.grad_fn).__name__ == "SquareBackward" and y.grad_fn.name() == "SquareBackward"
    assert isinstance(y.grad_fn, D.autograd.FunctionCtx) and isinstance(y.grad_fn, D.autograd.Node)
    assert "grad_fn=<SquareBackward>" in repr(y)
    g = y.grad_fn.apply(D.ones(2))  # called directly: the user's backward
    np.testing.assert_allclose(g.detach().numpy(), [2.0, 2.0])


# --- make_fx ---------------------------------------------------------------------------------------------------------


def _program(T: Any, name: str) -> Any:  # noqa: N803
    f = functions(T)

    def train(x, w):
        y = f["ScaledExp"].apply(x, 2.0)
        a, b, idx, _ = f["SplitSort"].apply(y)
        loss = (f["MulSetup"].apply(a, w) + b).sum()
        loss.backward()
        return loss, x.grad, w.grad

    def forward_only(x, w):
        y = f["ScaledExp"].apply(x, 2.0)
        a, b, idx, _ = f["SplitSort"].apply(y)
        return f["MulSetup"].apply(a, w, scale=3.0) + b

    def grads(x, w):
        p, q = f["NoMaterialize"].apply(x * w)
        o = f["OnceExp"].apply(p)
        s = f["Square"].apply(q)
        return T.autograd.grad((o.sum(), s.sum()), (x, w))

    def dirty(x, w):
        base = x * w
        r = f["DoubleInPlace"].apply(base[0])
        out = (base.sin() + r.sum()).sum()
        out.backward()
        return out, x.grad

    return {"train": train, "forward_only": forward_only, "grads": grads, "dirty": dirty}[name]


CONFIGS = {"post": {}, "pre": {"pre_dispatch": True}, "fake": {"tracing_mode": "fake"}, "core_aten": "core"}


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("name", ["train", "forward_only", "grads", "dirty"])
def test_make_fx_matches_torch(torch: Any, name: str, config: str) -> None:
    from torch._decomp import core_aten_decompositions as torch_core
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    kw_t = {"decomposition_table": torch_core()} if config == "core_aten" else CONFIGS[config]
    kw_o = {"decomposition_table": core_aten_decompositions()} if config == "core_aten" else CONFIGS[config]
    arrays = C.arrays([(2, 3), (2, 3)], 0)
    gm_t = torch_make_fx(_program(torch, name), **kw_t)(*C.inputs(torch, arrays, (0, 1)))
    gm_o = make_fx(_program(D, name), **kw_o)(*C.inputs(D, arrays, (0, 1)))
    assert C.targets(gm_o) == C.targets(gm_t)
    gm_o.graph.lint()
    if config == "fake" or name == "train" or name == "dirty":
        return  # fake graphs are checked for ops only; backward() graphs read .grad of the example inputs
    fresh = C.arrays([(2, 3), (2, 3)], 1)
    expected = C.to_np(_program(D, name)(*C.inputs(D, fresh, (0, 1))))
    got = C.to_np(gm_o(*C.inputs(D, fresh, (0, 1))))
    C.assert_close(expected, list(got) if isinstance(got, (tuple, list)) else got)
