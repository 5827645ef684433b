"""dropout under make_fx in every configuration, against torch 2.13 (tracer/decompositions/dropout.py).

torch/_decomp registers a Python kernel for ``aten.dropout`` (CompositeImplicitAutograd and Autograd):
``native_dropout(...)[0]`` when training with ``p != 0``, else ``input.clone()``. It runs where the Python
dispatcher is on (pre-dispatch tracing) and in ``op.decompose()``; post-dispatch tracing uses the C++ kernel
(eval: the input itself; training: ``empty_like`` + ``bernoulli_`` + ``div_`` + ``mul``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tracer import make_fx
from tracer.decompositions import get_decompositions


def _prog(T: Any, F: Any) -> Any:
    def f(x):
        a = F.dropout(x, 0.5, training=False)
        b = F.dropout(x, 0.0, training=True)
        c = F.dropout(x, 0.3, training=True)
        d = F.dropout(x, 1.0, training=True)
        return a, b, c, d
    return f


_CONFIGS = {"post": {}, "pre": {"pre_dispatch": True}, "fake": {"tracing_mode": "fake"},
            "pre_fake": {"pre_dispatch": True, "tracing_mode": "fake"}}


@pytest.mark.parametrize("requires_grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("config", sorted(_CONFIGS))
def test_dropout_graph_matches_torch(torch: Any, config: str, requires_grad: bool) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    arrays = [np.ones((2, 3), np.float32)]
    rg = (0,) if requires_grad else ()
    kw = _CONFIGS[config]
    gm_t = torch_make_fx(_prog(torch, torch.nn.functional), **kw)(*C.inputs(torch, arrays, rg))
    gm_o = make_fx(_prog(D, DF), **kw)(*C.inputs(D, arrays, rg))
    assert gm_o.code == gm_t.code
    if config.startswith("pre"):
        # each eval / p=0 dropout is its own value (the clone), not the input: the output reads its node
        out = next(n for n in gm_o.graph.nodes if n.op == "output")
        assert [a.name for a in out.args[0]] == ["dropout", "dropout_1", "dropout_2", "dropout_3"]


def test_inference_mode_decompose_uses_the_python_kernel(torch: Any) -> None:
    """A dropout reaching the post-dispatch proxy mode whole is decomposed by ``decompose()``, which prefers the
    Python CompositeImplicitAutograd kernel: clone / native_dropout, as torch."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from dispatcher.tls import AutoDispatchBelowAutograd

    arrays = [np.ones((2, 3), np.float32)]
    with torch.inference_mode():
        gm_t = torch_make_fx(_prog(torch, torch.nn.functional))(*C.inputs(torch, arrays, ()))
    with AutoDispatchBelowAutograd():
        gm_o = make_fx(_prog(D, DF))(*C.inputs(D, arrays, ()))
    assert gm_o.code == gm_t.code
    assert "aten.clone.default" in C.targets(gm_o) and "aten.native_dropout.default" in C.targets(gm_o)


def test_dropout_is_in_the_global_table(torch: Any) -> None:
    """``register_decomposition(aten.dropout)``: get_decompositions finds it, and it decomposes as torch's."""
    from torch._decomp import get_decompositions as torch_get
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    table = get_decompositions([D.ops.aten.dropout])
    assert list(table) == [D.ops.aten.dropout.default]
    arrays = [np.ones((2, 3), np.float32)]
    gm_t = torch_make_fx(_prog(torch, torch.nn.functional), decomposition_table=torch_get([torch.ops.aten.dropout]),
                         pre_dispatch=True)(*C.inputs(torch, arrays, ()))
    gm_o = make_fx(_prog(D, DF), decomposition_table=table, pre_dispatch=True)(*C.inputs(D, arrays, ()))
    assert gm_o.code == gm_t.code


def test_eval_dropout_replays_and_gives_eager_grads() -> None:
    prog, shapes, _ = C.PROGRAMS["dropout_eval"]
    gm = make_fx(prog(D, DF), pre_dispatch=True)(*C.inputs(D, C.arrays(shapes, 0), (0, 1)))
    fresh = C.arrays(shapes, 3)
    eager_in, replay_in = C.inputs(D, fresh, (0, 1)), C.inputs(D, fresh, (0, 1))
    expected, got = prog(D, DF)(*eager_in), gm(*replay_in)
    C.assert_close(C.to_np(expected), C.to_np(got))
    expected.sum().backward()
    got.sum().backward()
    for a, b in zip(eager_in, replay_in, strict=True):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_training_dropout_mask_saved_inside_stays_baked(torch: Any) -> None:
    """The mask native_dropout saves inside dropout is random: not recomputed (a new draw would differ), so it
    stays a constant, as in torch."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    def prog(T: Any, F: Any) -> Any:
        def f(x, w):
            y = F.dropout(F.linear(x, w), 0.3, training=True)
            return T.autograd.grad(y.sum(), [w])
        return f

    arrays = C.arrays([(2, 3), (4, 3)], 0)
    gm_t = torch_make_fx(prog(torch, torch.nn.functional), pre_dispatch=True)(*C.inputs(torch, arrays, (1,)))
    gm_o = make_fx(prog(D, DF), pre_dispatch=True)(*C.inputs(D, arrays, (1,)))
    assert gm_o.code == gm_t.code
    assert [n.target for n in gm_o.graph.nodes if n.op == "get_attr"] == ["_tensor_constant0"]
