"""Custom operators through the rest of the project: explain_dispatch, ``dispatchkit where``, saved graphs,
``compile``, ``register_torch_dispatch``, ``_scoped_library``, the legacy ``impl(lib, name)`` decorator and
``opcheck`` catching a wrong fake kernel. (Runs without torch; the comparisons with torch are in
test_custom_ops.py.)"""

import itertools

import pytest

import dispatcher as D
from dispatcher import Tensor
from dispatcher.library import _scoped_library
from tracer import make_fx

_names = itertools.count()


def _op(ns: str):
    def twice(x):
        return x * 2

    twice.__annotations__ = {"x": Tensor, "return": Tensor}
    op = D.library.custom_op(f"{ns}::twice", mutates_args=())(twice)
    op.register_fake(lambda x: D.empty_like(x))
    return op


def test_explain_dispatch_and_where_show_a_custom_op():
    from tracer.op_sources import describe

    ns = f"e2e{next(_names)}"
    _op(ns)
    text = str(D.explain_dispatch(getattr(D.ops, ns).twice.default, D.ones(2)))
    assert f"call {ns}::twice" in text and "CompositeExplicitAutograd" in text and "call aten::mul.Tensor" in text
    where = describe(f"{ns}.twice")
    assert "another namespace" in where and "test_custom_ops_e2e.py" in where
    assert "Meta" in where and "<lambda>" in where  # the fake kernel is the user's function


def test_saved_graph_loads_when_registered_and_fails_cleanly_when_not():
    from passes.serialize import SerializationError, dumps, loads

    ns = f"e2e{next(_names)}"
    with _scoped_library(ns, "DEF") as lib:
        lib.define("scale(Tensor x) -> Tensor")
        lib.impl("scale", lambda x: x * 3, "CPU")
        lib.impl("scale", lambda x: D.empty_like(x), "Meta")
        gm = make_fx(lambda x: getattr(D.ops, ns).scale(x) + 1)(D.ones(2))
        text = dumps(gm)
        again = loads(text)
        assert again(D.ones(2)).tolist() == [4.0, 4.0]
    with pytest.raises(SerializationError, match=f"target '{ns}.scale.default' is not a registered operator"):
        loads(text)


def test_compile_keeps_the_custom_op_in_the_graph():
    import tracer

    ns = f"e2e{next(_names)}"
    op = _op(ns)
    seen = []

    def backend(gm, example_inputs):
        seen.append([str(n.target) for n in gm.graph.nodes if n.op == "call_function"])
        return gm

    f = tracer.compile(lambda x: op(x).sin(), backend=backend)
    assert f(D.ones(3)).tolist() == D.ones(3).mul(2).sin().tolist()
    assert seen and f"{ns}.twice.default" in seen[0]


def test_register_torch_dispatch_overrides_a_mode_for_one_op():
    ns = f"e2e{next(_names)}"
    op = _op(ns)
    calls = []

    class Mode(D.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(str(func))
            return func(*args, **(kwargs or {}))

    D.library.register_torch_dispatch(f"{ns}::twice", Mode, lambda mode, func, types, args, kwargs: args[0] + 100)
    with Mode():
        out = op(D.ones(2))
        D.ones(2).neg()
    assert out.tolist() == [101.0, 101.0]
    assert f"{ns}.twice.default" not in calls and "aten.neg.default" in calls


def test_scoped_library_and_legacy_impl_decorator():
    ns = f"e2e{next(_names)}"
    with _scoped_library(ns, "FRAGMENT") as lib:
        lib.define("inc(Tensor x) -> Tensor")

        @D.library.impl(lib, "inc", "CPU")
        def inc(x):
            return x + 1

        assert getattr(D.ops, ns).inc(D.zeros(1)).tolist() == [1.0]
    assert D._C._dispatch_dump(f"{ns}::inc") == ""


def test_opcheck_catches_a_wrong_fake_kernel_and_a_missing_mutation_mark():
    ns = f"e2e{next(_names)}"
    op = _op(ns)
    op.register_fake(lambda x: D.empty(1))
    with pytest.raises(D.library.opcheck.__globals__["OpCheckError"], match="fake kernel gives"):
        D.library.opcheck(op, (D.ones(3),), test_utils="test_faketensor")

    def sneaky(x):
        x.add_(1)
        return x.clone()

    sneaky.__annotations__ = {"x": Tensor, "return": Tensor}
    bad = D.library.custom_op(f"{ns}::sneaky", mutates_args=())(sneaky)
    result = D.library.opcheck(bad, (D.ones(2),), test_utils="test_schema", raise_exception=False)
    assert "mutated but not marked as mutable" in str(result["test_schema"])


def test_custom_op_errors():
    ns = f"e2e{next(_names)}"

    def untyped(x):
        return x

    with pytest.raises(ValueError, match="Parameter x must have a type annotation"):
        D.library.custom_op(f"{ns}::untyped", mutates_args=())(untyped)
    with pytest.raises(ValueError, match='Expected `qualname` to be of the form "namespace::name"'):
        D.library.define("nonamespace", "(Tensor x) -> Tensor")
    op = _op(ns)
    x = D.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="no autograd formula was registered"):
        op(x).sum().backward()
