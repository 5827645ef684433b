"""passes.functionalize: in-place and view-mutation ops become out-of-place ops; results and input updates
match eager on fresh inputs; op sequences match torch.func.functionalize + make_fx where comparable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from passes.functionalize import FunctionalizationError, functionalize
from passes.side_effects import is_mutable
from tests import corpus as C
from tracer import make_fx

CONFIGS = {"post": {}, "pre": {"pre_dispatch": True}, "fake": {"tracing_mode": "fake"}}

# --- dedicated programs: name -> (program(T), input shapes) ------------------------------------------------------------


def c_view_then_mutate(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y.add_(1)
        v = y.view(-1)
        v.mul_(2)
        return y
    return f


def c_input_through_select(T: Any) -> Callable[..., Any]:
    def f(x, y):
        x.add_(y)
        v = x[0]
        v.mul_(2)
        return x.sum()
    return f


def c_setitem_slices(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y[0, 1:] = 5.0
        y[1] += x[0]
        return y
    return f


def c_no_grad_input(T: Any) -> Callable[..., Any]:
    def f(x):
        with T.no_grad():
            x.mul_(2)
        return x + 1
    return f


def c_view_of_view(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        a = y[1:]
        b = a[:, 0]
        b.mul_(10)
        return y, a * 1
    return f


def c_alias_of_input(T: Any) -> Callable[..., Any]:
    def f(x):
        v = x.view(-1)
        v.add_(1)
        return x * 2
    return f


def c_index_put(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y[T.tensor([0, 2])] = 0.0
        return y
    return f


def c_transpose(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y.t().add_(T.arange(2.0))
        return y
    return f


def c_split_pieces(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        a, b = y.split(2)
        a.mul_(0)
        b.add_(1)
        return y
    return f


def c_unbind(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        r = y.unbind(0)
        r[1].zero_()
        return y, r[0] + 0
    return f


def c_copy_broadcast(T: Any) -> Callable[..., Any]:
    def f(x, z):
        y = x.clone()
        y[0].copy_(z)
        y[1:].copy_(T.ones(3, dtype=T.float64))
        return y
    return f


def c_fill(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y[:, 1].fill_(7.0)
        y[0].fill_(x[1, 1])
        return y
    return f


def c_relu_input(T: Any) -> Callable[..., Any]:
    def f(x):
        x.relu_()
        return x
    return f


def c_stale_view(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        v = y[0]
        y.add_(1)
        return v * 2
    return f


def c_two_inputs_twice(T: Any) -> Callable[..., Any]:
    def f(x, y):
        x.mul_(2)
        y[1:].sub_(x[:2])
        x.add_(y)
        return x.sum() + y.sum()
    return f


def c_squeeze_inplace(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        T.ops.aten.squeeze_.dim(y, 0)
        y.mul_(3)
        return y
    return f


def c_masked_fill(T: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y.masked_fill_(y > 0, 0.5)
        return y
    return f


CASES: dict[str, tuple[Callable[[Any], Callable[..., Any]], list]] = {
    "view_then_mutate": (c_view_then_mutate, [(2, 3)]),
    "input_through_select": (c_input_through_select, [(2, 3), (2, 3)]),
    "setitem_slices": (c_setitem_slices, [(2, 3)]),
    "no_grad_input": (c_no_grad_input, [(3,)]),
    "view_of_view": (c_view_of_view, [(3, 4)]),
    "alias_of_input": (c_alias_of_input, [(2, 3)]),
    "index_put": (c_index_put, [(4, 2)]),
    "transpose": (c_transpose, [(2, 3)]),
    "split_pieces": (c_split_pieces, [(4, 3)]),
    "unbind": (c_unbind, [(3, 2)]),
    "copy_broadcast": (c_copy_broadcast, [(3, 3), (3,)]),
    "fill": (c_fill, [(2, 3)]),
    "relu_input": (c_relu_input, [(5,)]),
    "stale_view": (c_stale_view, [(2, 3)]),
    "two_inputs_twice": (c_two_inputs_twice, [(3,), (3,)]),
    "squeeze_inplace": (c_squeeze_inplace, [(1, 3)]),
    "masked_fill": (c_masked_fill, [(2, 3)]),
}


# --- helpers --------------------------------------------------------------------------------------------------------


def _check_pure(gm: Any) -> None:
    """No mutable op remains except the trailing copy_ into placeholders."""
    nodes = list(gm.graph.nodes)
    for i, n in enumerate(nodes):
        if n.op == "call_function" and is_mutable(n.target):
            assert str(n.target) == "aten.copy_.default", f"{n.name}: {n.target} left in the graph"
            assert n.args[0].op == "placeholder"
            assert all(m.op in ("output", "call_function") and (str(m.target) in (
                "aten.copy_.default",) or m.op == "output" or m.target.__name__ == "_set_grad_enabled")
                for m in nodes[i:]), "copy_ epilogue must come last"


def _run_and_compare(gm: Any, fgm: Any, eager: Callable[..., Any] | None, shapes: list, rg: tuple = ()) -> None:
    fresh = C.arrays(shapes, 7)
    a_ref, a_fn = C.inputs(D, fresh, rg), C.inputs(D, fresh, rg)
    expected = C.to_np((eager or gm)(*a_ref))
    got = C.to_np(fgm(*a_fn))
    C.assert_close(_as_list(expected), _as_list(got))
    C.assert_close(C.to_np(a_ref), C.to_np(a_fn))  # mutated inputs end with the same values


def _as_list(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def _live_targets(gm: Any) -> list[str]:
    """call_function targets of the nodes the output or an in-place op depends on, in graph order."""
    nodes = list(gm.graph.nodes)
    live: set[Any] = set()
    for n in reversed(nodes):
        keep = n.op == "output" or (n.op == "call_function" and str(n.target).endswith("copy_.default")) \
            or any(u in live for u in n.users)
        if keep:
            live.add(n)
    # the documented differences: no *_scatter / zero / fill ops in our listing
    mapping = {"aten.select_scatter.default": "aten.index_put.default",
               "aten.slice_scatter.default": "aten.index_put.default",
               "aten.zero.default": "aten.zeros_like.default", "aten.fill.Scalar": "aten.full_like.default"}
    return [mapping.get(str(n.target), str(n.target)) for n in nodes if n in live and n.op == "call_function"]


# --- tests ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_dedicated_cases_match_eager(name: str, config: str) -> None:
    prog, shapes = CASES[name]
    gm = make_fx(prog(D), **CONFIGS[config])(*C.inputs(D, C.arrays(shapes, 0), ()))
    before = gm.code
    fgm = functionalize(gm)
    fgm.graph.lint()
    _check_pure(fgm)
    assert gm.code == before  # the input module is untouched
    _run_and_compare(gm, fgm, prog(D), shapes)


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("name", sorted(C.PROGRAMS))
def test_corpus_programs(name: str, config: str) -> None:
    prog, shapes, rg = C.PROGRAMS[name]
    if name == "captured_global" and "fake" in str(CONFIGS[config]):
        with pytest.raises(AssertionError, match="Please convert all Tensors to FakeTensors"):
            make_fx(prog(D, DF), **CONFIGS[config])(*C.inputs(D, C.arrays(shapes, 0), rg))
        return  # fake tracing refuses a real tensor captured from outside, as torch does
    gm = make_fx(prog(D, DF), **CONFIGS[config])(*C.inputs(D, C.arrays(shapes, 0), rg))
    fgm = functionalize(gm)
    fgm.graph.lint()
    _check_pure(fgm)
    # pre-dispatch graphs replay under eager autograd (inputs keep requires_grad); post-dispatch ones hold it already
    _run_and_compare(gm, fgm, None, shapes, rg if config == "pre" else ())


def test_corpus_has_in_place_programs() -> None:
    """The corpus test above is only meaningful if some programs mutate; count them."""
    mutating = 0
    for name in ("inplace_view", "views_inplace", "train_step"):
        prog, shapes, rg = C.PROGRAMS[name]
        gm = make_fx(prog(D, DF))(*C.inputs(D, C.arrays(shapes, 0), rg))
        mutating += any(n.op == "call_function" and is_mutable(n.target) for n in gm.graph.nodes)
        assert not any(n.op == "call_function" and is_mutable(n.target) and str(n.target) != "aten.copy_.default"
                       for n in functionalize(gm).graph.nodes)
    assert mutating == 3


def test_train_step_updates_weights_like_eager() -> None:
    prog, shapes, rg = C.PROGRAMS["train_step"]
    gm = make_fx(prog(D, DF), pre_dispatch=True)(*C.inputs(D, C.arrays(shapes, 0), rg))
    fgm = functionalize(gm)
    text = fgm.code
    # the weights were updated under no_grad: the copy_ back runs with grad disabled too
    assert text.index("_set_grad_enabled(False)", text.index("copy_") - 120) < text.index("copy_")
    fresh = C.arrays(shapes, 5)
    eager_in, graph_in = C.inputs(D, fresh, rg), C.inputs(D, fresh, rg)
    prog(D, DF)(*eager_in)
    fgm(*graph_in)
    for a, b in zip(eager_in[2:], graph_in[2:], strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["view_then_mutate", "input_through_select", "no_grad_input", "alias_of_input",
                                  "relu_input", "stale_view", "view_of_view", "two_inputs_twice", "transpose",
                                  "split_pieces", "unbind", "squeeze_inplace", "masked_fill",
                                  "corpus:inplace_view", "corpus:views_inplace", "corpus:index_put_setitem",
                                  "corpus:inplace_activations"])
def test_same_ops_as_torch_functionalize(torch: Any, name: str) -> None:
    """The live ops (what the outputs and input updates depend on) equal torch's, modulo the op mapping above.

    Not compared: programs using copy_ / fill_ with a tensor (torch emits aten.copy / aten.fill on the
    view, which this listing lacks) and torch.tensor literals (torch's extra detach, see test_make_fx).
    """
    from torch.func import functionalize as torch_functionalize
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    if name.startswith("corpus:"):
        corpus_prog, shapes, _ = C.PROGRAMS[name[len("corpus:"):]]

        def prog(T: Any) -> Callable[..., Any]:
            return corpus_prog(T, T.nn.functional)
    else:
        prog, shapes = CASES[name]
    arrays = C.arrays(shapes, 0)
    theirs = torch_make_fx(torch_functionalize(prog(torch), remove="mutations"))(*C.inputs(torch, arrays, ()))
    ours = functionalize(make_fx(prog(D))(*C.inputs(D, arrays, ())))
    assert _live_targets(ours) == _live_targets(theirs)


def test_view_then_mutate_graph() -> None:
    prog, shapes = CASES["view_then_mutate"]
    fgm = functionalize(make_fx(prog(D))(D.randn(2, 3)))
    assert C.targets(fgm) == ["aten.clone.default", "aten.add.Tensor", "aten.view.default", "aten.mul.Tensor",
                              "aten.view.default"]
    assert fgm.graph.output_node().args[0].args[1] == [2, 3]  # the view back to the base's shape is returned


def test_select_scatter_is_index_put_with_a_constant() -> None:
    prog, shapes = CASES["input_through_select"]
    fgm = functionalize(make_fx(prog(D))(D.randn(2, 3), D.randn(2, 3)))
    (put,) = fgm.graph.find_nodes(op="call_function", target=D.ops.aten.index_put.default)
    (index,) = put.args[1]
    assert index.op == "get_attr"
    assert fgm.fetch_attr(index.target).tolist() == 0
    assert C.targets(fgm)[-1] == "aten.copy_.default"


def test_meta_and_stack_traces() -> None:
    prog, shapes = CASES["setitem_slices"]
    fgm = functionalize(make_fx(prog(D))(D.randn(2, 3)))
    puts = 0
    for n in fgm.graph.nodes:
        if n.op == "call_function":
            assert isinstance(n.meta["val"], D.Tensor)
            assert "in f" in n.meta["stack_trace"]  # the user line of the op it was made from
            puts += n.target is D.ops.aten.index_put.default
    assert puts == 4
    assert "y[1] += x[0]" in fgm.print_readable(print_output=False)


def test_errors() -> None:
    gm = make_fx(c_relu_input(D))(D.randn(3))
    with pytest.raises(NotImplementedError, match="mutations_and_views.*view_copy"):
        functionalize(gm, remove="mutations_and_views")
    with pytest.raises(ValueError, match="remove must be"):
        functionalize(gm, remove="views")
    with pytest.raises(TypeError, match="expects a GraphModule"):
        functionalize(gm.graph)

    def rand(x):
        y = x.clone()
        D.ops.aten.bernoulli_.float(y, 0.5)
        return y
    with pytest.raises(FunctionalizationError, match=r"bernoulli_.*random in-place"):
        functionalize(make_fx(rand)(D.randn(3)))
