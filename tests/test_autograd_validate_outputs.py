"""The engine fits *all* of a node's gradients to their inputs before it buffers any of them (validate_outputs).

PyTorch's engine calls ``validate_outputs(fn.next_edges(), outputs)`` right after a node's ``apply``: every gradient
the node returned is summed to its input's shape (``sum_to``: ``sum.dim_IntList`` + ``view``) and converted to its
input's dtype, and only then are they added into the input buffers, one edge after the other. So when a node's
first input already has a buffered gradient (an ``add`` will accumulate into it) and its second input was broadcast
(a ``sum`` will reduce it), torch's trace shows the ``sum`` before the ``add``. Post hooks of the node see the
fitted gradients. These tests compare the traced graphs with torch's in every configuration, replay them on fresh
inputs, and check the eager results (values and what a post hook sees).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tests import op_program_checks as K
from tracer import make_fx


def _programs(T: Any, F: Any) -> dict[str, tuple[Any, list, tuple[int, ...]]]:
    progs: dict[str, tuple[Any, list, tuple[int, ...]]] = {}

    def reg(shapes: list, rg: tuple[int, ...] = ()) -> Any:
        def deco(f: Any) -> Any:
            progs[f.__name__] = (f, shapes, rg)
            return f
        return deco

    @reg([(2, 3), (3,)], rg=(0, 1))
    def rms_norm_residual(x, w):
        # x's gradient from "+ x" is buffered first; MulBackward(x, rsqrt) then reduces rsqrt's gradient to (2, 1)
        # before adding its x gradient to the buffered one
        y = x * T.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w + x
        y.sum().backward()
        return x.grad, w.grad

    @reg([(3, 4), (4, 4), (1, 4)], rg=(1, 2))
    def broadcast_scale_residual(x, w, b):
        h = x @ w
        y = h * b + h  # MulBackward(h, b): b's gradient is summed over dim 0 before h's two gradients are added
        y.sum().backward()
        return w.grad, b.grad

    @reg([(2, 3), (3,)], rg=(0, 1))
    def broadcast_add_then_reuse(x, b):
        z = x + b  # AddBackward(x, b): b's gradient (2, 3) is reduced to (3,) first, then x's is accumulated
        y = z * x
        (gx, gb) = T.autograd.grad(y.sum(), [x, b])
        return gx, gb

    @reg([(2, 3), (3,)], rg=(0, 1))
    def rms_norm_module_style(x, w):
        var = x.pow(2).mean(-1, keepdim=True)
        y = (x * T.rsqrt(var + 1e-6)).to(T.float32) * w
        (y + x).pow(2).sum().backward()
        return x.grad, w.grad

    @reg([(2, 3), (3,)], rg=(0, 1))
    def mixed_dtype_broadcast_add(a, b):
        # AddBackward(a, b64): a's gradient comes back float64 and is converted (to.dtype), b's is reduced to (3,),
        # both before a's gradient is accumulated with the one from "+ a"
        y = (a + b.double()) * 2 + a
        y.sum().backward()
        return a.grad, b.grad

    return progs


_NAMES = sorted(_programs(D, DF))


def _inputs(lib: Any, shapes: list, rg: tuple[int, ...], seed: int) -> list:
    return C.inputs(lib, C.arrays(shapes, seed), rg)


@pytest.mark.parametrize("config", list(K.CONFIGS))
@pytest.mark.parametrize("name", _NAMES)
def test_backward_graph_order_matches_torch(torch: Any, name: str, config: str) -> None:
    f_t, f_o, shapes, rg = K.same_graph_and_replay(torch, _programs, name, config)
    expected = C.to_np(f_o(*_inputs(D, shapes, rg, 1)))
    C.assert_close(C.to_np(f_t(*_inputs(torch, shapes, rg, 1))), expected)


def test_sum_to_comes_before_the_accumulation_in_the_rms_norm_backward() -> None:
    """The issue's case, spelled out: ``sum.dim_IntList`` (rsqrt's gradient reduced) precedes the ``add``."""
    f = _programs(D, DF)["rms_norm_residual"][0]
    gm = make_fx(f)(*_inputs(D, [(2, 3), (3,)], (0, 1), 0))
    tail = [t for t in C.targets(gm) if t in ("aten.sum.dim_IntList", "aten.add.Tensor")]
    assert tail[-4:] == ["aten.sum.dim_IntList", "aten.sum.dim_IntList", "aten.add.Tensor", "aten.add.Tensor"]


def _seen_by_post_hook(T: Any) -> list:
    a = T.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    b = T.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    y = a * b
    seen: list = []
    y.grad_fn.register_hook(lambda gi, go: seen.append([tuple(g.shape) for g in gi]))
    y.sum().backward()
    return seen + [b.grad.numpy().tolist()]


def test_post_hooks_see_gradients_already_fitted_to_the_inputs(torch: Any) -> None:
    """validate_outputs runs before the node's post hooks: the hook gets b's gradient as (3,), not (2, 3)."""
    assert _seen_by_post_hook(D) == _seen_by_post_hook(torch) == [[(2, 3), (3,)], [3.0, 5.0, 7.0]]
