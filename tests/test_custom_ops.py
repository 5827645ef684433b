"""Custom operators end to end (``dispatcher.library`` = ``torch.library``), against torch.

The same ops are defined in both libraries (``custom_op`` with type hints, ``register_fake``,
``register_autograd``, ``mutates_args``; ``define`` / ``impl`` / ``register_fake``); then eager values, gradients,
version counters, fake shapes and make_fx graphs in four configurations are compared.
"""

from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.op_program_checks import CONFIGS, trace_both

NS = "dk_custom"


def define_ops(T: Any) -> dict[str, Any]:
    """The test ops in library ``T`` (torch or dispatcher)."""
    def scaled_sin(x, scale=1.0):
        return T.sin(x) * scale

    scaled_sin.__annotations__ = {"x": T.Tensor, "scale": float, "return": T.Tensor}
    op = T.library.custom_op(f"{NS}::scaled_sin", mutates_args=())(scaled_sin)

    @op.register_fake
    def _(x, scale=1.0):
        return T.empty_like(x)

    def setup_context(ctx, inputs, output):
        x, scale = inputs
        ctx.save_for_backward(x)
        ctx.scale = scale

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * T.cos(x) * ctx.scale, None

    op.register_autograd(backward, setup_context=setup_context)

    def add_into(x, y):
        x.add_(y)

    add_into.__annotations__ = {"x": T.Tensor, "y": T.Tensor, "return": None}
    mut = T.library.custom_op(f"{NS}::add_into", mutates_args=("x",), device_types="cpu")(add_into)

    def split_two(x):
        return x[0].clone(), x[1:].clone() * 2

    split_two.__annotations__ = {"x": T.Tensor, "return": tuple[T.Tensor, T.Tensor]}
    two = T.library.custom_op(f"{NS}::split_two", mutates_args=())(split_two)
    two.register_fake(lambda x: (x.new_empty(x.shape[1:]), x.new_empty((x.shape[0] - 1,) + tuple(x.shape[1:]))))

    # the function API: define, impl (a decorator), register_fake
    T.library.define(f"{NS}::cube", "(Tensor x) -> Tensor")
    T.library.impl(f"{NS}::cube", "cpu")(lambda x: x * x * x)
    T.library.register_fake(f"{NS}::cube", lambda x: T.empty_like(x))
    return {"scaled_sin": op, "add_into": mut, "split_two": two}


@pytest.fixture(scope="module")
def both(torch: Any) -> tuple[Any, Any]:
    return define_ops(torch), define_ops(D)


def p_sin(T: Any, F: Any = None) -> Any:
    return lambda x: T.ops.dk_custom.scaled_sin(x, 2.0) + 1


def p_mutate(T: Any, F: Any = None) -> Any:
    def f(a, b):
        T.ops.dk_custom.add_into(a, b)
        return a * 2

    return f


def p_two_cube(T: Any, F: Any = None) -> Any:
    def f(x):
        first, rest = T.ops.dk_custom.split_two(x)
        return T.ops.dk_custom.cube.default(rest).sum(0) + first

    return f


def test_schemas_are_inferred_as_torch_does(both, torch):
    for name in ("scaled_sin", "add_into", "split_two", "cube"):
        ours = getattr(D.ops.dk_custom, name).default._schema
        theirs = getattr(torch.ops.dk_custom, name).default._schema
        assert str(ours) == str(theirs)


def test_eager_values_and_grads(both, torch):
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    xt, xo = torch.tensor(x, requires_grad=True), D.tensor(x, requires_grad=True)
    yt, yo = torch.ops.dk_custom.scaled_sin(xt, 3.0), D.ops.dk_custom.scaled_sin(xo, 3.0)
    C.assert_close(C.to_np(yt), C.to_np(yo))
    assert type(yo.grad_fn).__name__ == type(yt.grad_fn).__name__ == "GeneratedBackwardFor_dk_custom_scaled_sin_defaultBackward"
    (yt * yt).sum().backward()
    (yo * yo).sum().backward()
    C.assert_close(C.to_np(xt.grad), C.to_np(xo.grad))
    C.assert_close(C.to_np(p_two_cube(torch)(torch.tensor(x))), C.to_np(p_two_cube(D)(D.tensor(x))))


def test_backward_without_formula_is_an_error(both, torch):
    for T in (torch, D):
        first, rest = T.ops.dk_custom.split_two(T.ones(3, 2, requires_grad=True))
        with pytest.raises(RuntimeError, match="no autograd formula was registered. Please use register_autograd"):
            first.sum().backward()


def test_mutation_bumps_the_version_counter(both, torch):
    seen = []
    for T in (torch, D):
        a, b = T.zeros(3), T.ones(3)
        v0 = a._version
        assert T.ops.dk_custom.add_into(a, b) is None
        seen.append((a._version - v0, C.to_np(a).tolist()))
    assert seen[0] == seen[1] and seen[0][0] >= 1


def test_fake_shapes(both, torch):
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFake

    from dispatcher.fake import FakeTensorMode

    shapes = []
    for T, Mode in ((torch, TorchFake), (D, FakeTensorMode)):
        with Mode() as m:
            x = m.from_tensor(T.ones(4, 5))
            outs = [T.ops.dk_custom.scaled_sin(x), *T.ops.dk_custom.split_two(x), T.ops.dk_custom.cube(x)]
            shapes.append([(tuple(o.shape), str(o.dtype).split(".")[-1], type(o).__name__) for o in outs])
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("prog,shapes", [(p_sin, [(3, 4)]), (p_mutate, [(3,), (3,)]), (p_two_cube, [(3, 2)])],
                         ids=["sin", "mutate", "two_cube"])
def test_make_fx_keeps_custom_ops_whole(both, torch, prog, shapes, config):
    gm_t, gm_o = trace_both(torch, prog, C.arrays(shapes, 0), (), config)
    assert gm_o.code == gm_t.code
    assert any(t.startswith("dk_custom.") for t in C.targets(gm_o))
    fresh = C.arrays(shapes, 1)
    C.assert_close(C.to_np(prog(D)(*C.inputs(D, fresh, ()))), C.to_np(gm_o(*C.inputs(D, fresh, ()))))


def test_opcheck(both, torch):
    x = np.ones((2, 3), np.float32)
    theirs = torch.library.opcheck(both[0]["scaled_sin"], (torch.tensor(x, requires_grad=True),))
    ours = D.library.opcheck(both[1]["scaled_sin"], (D.tensor(x, requires_grad=True),))
    assert ours == {k: v for k, v in theirs.items() if k in ours} and set(ours) <= set(theirs)


def p_joint(T: Any, F: Any = None) -> Any:
    """The forward and, through register_autograd's backward, the gradient in one traced graph."""
    def f(x):
        y = T.ops.dk_custom.scaled_sin(x, 2.0)
        (g,) = T.autograd.grad(y.sum(), [x])
        return y, g

    return f


@pytest.mark.parametrize("config", list(CONFIGS))
def test_make_fx_joint_graph_through_the_registered_backward(both, torch, config):
    gm_t, gm_o = trace_both(torch, p_joint, C.arrays([(3,)], 0), (0,), config)
    assert gm_o.code == gm_t.code
    assert "aten.cos.default" in C.targets(gm_o)  # the user's backward ran while tracing


def test_overloads_of_a_library_op_are_picked_by_schema(torch):
    results = []
    for T in (torch, D):
        with T.library._scoped_library("dk_overloads", "FRAGMENT") as lib:
            lib.define("pick(Tensor x) -> Tensor")
            lib.define("pick.int(Tensor x, int n) -> Tensor")
            lib.impl("pick", lambda x: x + 1, "CPU")
            lib.impl("pick.int", lambda x, n: x + n, "CPU")
            packet = T.ops.dk_overloads.pick
            results.append((sorted(packet.overloads()), C.to_np(packet(T.zeros(2))).tolist(),
                            C.to_np(packet(T.zeros(2), 5)).tolist(), str(packet.int)))
    assert results[0] == results[1]


def test_register_kernel_overrides_the_default_for_one_device(torch):
    results = []
    for T in (torch, D):
        def plus(x):
            return x + 1

        plus.__annotations__ = {"x": T.Tensor, "return": T.Tensor}
        op = T.library.custom_op(f"{NS}::plus", mutates_args=())(plus)
        before = C.to_np(op(T.zeros(2))).tolist()
        T.library.register_kernel(f"{NS}::plus", "cpu", lambda x: x + 10)
        results.append((before, C.to_np(op(T.zeros(2))).tolist(),
                        T._C._dispatch_has_kernel_for_dispatch_key(f"{NS}::plus", "CPU")))
    assert results[0] == results[1] == ([1.0, 1.0], [10.0, 10.0], True)
