"""Constant propagation in make_fx, as torch's ``proxy_call`` / ``track_tensor_tree(constant=...)``.

A tensor made from Python data inside the traced function (``torch.tensor(2.)``, ``lift_fresh``) with at most one
element keeps its real value while traced, and so do small results of non-random ops on constants only: reading
them (``item()``, ``bool``) gives that value instead of a data-dependent error. Every element of a tuple / list
result is a constant (``unbind``, ``max.dim``). A result that is not computed so has no constant, also when it is
an input written in place: after ``val.normal_()`` or ``val.add_(traced)``, ``val`` is no longer a constant.
"""

from __future__ import annotations

from typing import Any

import pytest

import dispatcher as D
from tracer import make_fx


def _programs(T: Any) -> dict[str, tuple[Any, int]]:
    """name -> (function, number of (3,) inputs)"""

    def constant_random():  # torch's test_constant_random
        val = T.tensor([2.0])
        val.normal_()
        return bool(val.item() == 2.1)

    def constant_unbind():  # torch's test_constant_unbind
        val = T.tensor([2])
        (r,) = T.unbind(val, 0)
        return r.item()

    def constant_mutated():  # torch's test_constant_proxy_tensor_mut
        val = T.tensor(float(1))
        val.add_(2)
        return T.full((3,), val)

    def constant_blowup():  # torch's test_constant_blowup: more than one element is no constant
        val = T.tensor([2])
        return bool(val.repeat(1000).sum().item() == 2)

    def constant_overwritten_with_traced(x):
        val = T.tensor(1.0)
        val.add_(x.sum())
        return val.item()

    def constant_uniform():
        val = T.tensor(0.5)
        val.uniform_()
        return val.item()

    def constant_bernoulli_of():
        val = T.tensor([0.5])
        return T.bernoulli(val).item()

    def multi_output_constants():
        val = T.tensor([[3.0]])
        v, i = val.max(0)
        (c,) = T.tensor([4.0]).chunk(1)
        return v.item() + i.item() + c.item()

    def view_of_a_constant():
        val = T.tensor([[7.0]])
        return val[0, 0].item() + val.t().item()

    def constant_in_place_then_view(x):
        val = T.tensor([1.0])
        val.mul_(3)
        return x * val[0].item()

    return {f.__name__: (f, f.__code__.co_argcount) for f in (
        constant_random, constant_unbind, constant_mutated, constant_blowup, constant_overwritten_with_traced,
        constant_uniform, constant_bernoulli_of, multi_output_constants, view_of_a_constant,
        constant_in_place_then_view)}


def _outcome(T: Any, trace: Any, name: str, mode: str) -> Any:
    f, n = _programs(T)[name]
    inputs = [T.ones(3) for _ in range(n)]
    try:
        gm = trace(f, tracing_mode=mode)(*inputs)
    except RuntimeError as e:
        assert "data-dependent" in str(e), e
        return "data-dependent"
    out = gm(*[T.full((3,), 2.0) for _ in range(n)])
    return out.tolist() if hasattr(out, "tolist") else out


@pytest.mark.parametrize("name", sorted(_programs(D)))
def test_constants_like_torch(torch: Any, name: str) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    assert _outcome(D, make_fx, name, "real") == _outcome(torch, torch_make_fx, name, "real")


@pytest.mark.parametrize("name", ["constant_random", "constant_unbind", "constant_mutated", "constant_blowup",
                                  "multi_output_constants", "view_of_a_constant"])
def test_constants_under_fake_tracing(torch: Any, name: str) -> None:
    """Without traced inputs feeding the read, fake tracing gives the same answers (torch's fake tracing reads a
    non-constant as an unbacked symbol, then guards on it: data-dependent too)."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    assert _outcome(D, make_fx, name, "fake") == _outcome(torch, torch_make_fx, name, "fake")


def test_the_issue_cases() -> None:
    with pytest.raises(RuntimeError, match="data-dependent"):
        make_fx(_programs(D)["constant_random"][0])()
    assert make_fx(_programs(D)["constant_unbind"][0])()() == 2
