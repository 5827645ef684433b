"""What torch's test/test_proxy_tensor.py checks, as our own programs against the torch oracle.

One test here per torch test (TestGenericProxyTensor in its real and fake variants, TestRealProxyTensor,
TestFakeProxyTensor); the torch test name is in each test's docstring, and docs/tracing.md has the table of
what is covered, what is not applicable (symbolic shapes, CUDA, Dynamo, higher-order ops, torchvision, the
OpInfo-wide sweeps) and why. Each program is written once against a namespace ``T`` (torch or dispatcher) with
its kit ``K`` (make_fx, FakeTensorMode, ...), run on both, and compared: graph targets or code, values against
eager on fresh inputs, errors (class and words), ``meta["val"]``.
"""

from __future__ import annotations

import pickle
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import passes
import tracer

MODES = ["real", "fake"]


def _kit(T: Any) -> SimpleNamespace:
    """The names a program needs, from torch or from our packages."""
    if T is D:
        from dispatcher.fake import DataDependentOutputException, FakeTensorMode
        from dispatcher.op_overload import OpOverload
        from tracer import proxy_tensor as pt
        from tracer.decompositions.registry import global_decomposition_table
        return SimpleNamespace(make_fx=tracer.make_fx, FakeTensorMode=FakeTensorMode, OpOverload=OpOverload,
                               DDOE=DataDependentOutputException, Graph=tracer.Graph, GraphModule=tracer.GraphModule,
                               decomposition_table=global_decomposition_table,
                               DecompositionInterpreter=passes.DecompositionInterpreter,
                               get_isolated_graphmodule=tracer.get_isolated_graphmodule, pt=pt)
    import torch.fx
    from torch._decomp import decomposition_table
    from torch._subclasses.fake_tensor import DataDependentOutputException, FakeTensorMode
    from torch.fx.experimental import proxy_tensor as pt
    return SimpleNamespace(make_fx=pt.make_fx, FakeTensorMode=FakeTensorMode, OpOverload=T._ops.OpOverload,
                           DDOE=DataDependentOutputException, Graph=torch.fx.Graph, GraphModule=torch.fx.GraphModule,
                           decomposition_table=decomposition_table, DecompositionInterpreter=pt.DecompositionInterpreter,
                           get_isolated_graphmodule=pt.get_isolated_graphmodule, pt=pt)


def _libs(torch: Any) -> list[tuple[Any, SimpleNamespace]]:
    return [(torch, _kit(torch)), (D, _kit(D))]


def _targets(gm: Any) -> list[str]:
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


def _np(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    if hasattr(x, "detach") and hasattr(x, "shape"):
        return np.asarray(x.detach().numpy())
    return x


def _close(a: Any, b: Any, atol: float = 1e-5) -> None:
    a, b = _np(a), _np(b)
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for u, v in zip(a, b):
            _close(u, v, atol)
        return
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype, (a, b)
        np.testing.assert_allclose(a, b, atol=atol, rtol=1e-5)
        return
    assert a == b


def _inputs(T: Any, specs: list, seed: int) -> list:
    """Tensors of ``T`` from specs ``(shape, dtype_name, requires_grad)``; same values for both libraries."""
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype, rg in specs:
        if dtype == "float32":
            arr = rng.standard_normal(shape).astype(np.float32)
        else:
            arr = rng.integers(0, 5, shape).astype(dtype)
        t = T.tensor(arr)
        out.append(t.requires_grad_(True) if rg else t)
    return out


def _generic(torch: Any, prog: Any, specs: list, mode: str, *, compare_values: bool = True) -> None:
    """torch's ``_test``: trace on inputs, replay on fresh ones, equal to eager; here also graph and values
    against torch."""
    seen = {}
    for T, K in _libs(torch):
        f = prog(T, K)
        gm = K.make_fx(f, tracing_mode=mode)(*_inputs(T, specs, 0))
        replay = gm(*_inputs(T, specs, 1))
        eager = f(*_inputs(T, specs, 1))
        _close(replay, eager)
        seen[T is D] = (_targets(gm), replay, gm.code)
    assert seen[True][0] == seen[False][0]
    assert seen[True][2] == seen[False][2]
    if compare_values:
        _close(seen[True][1], seen[False][1])


def _codes(torch: Any, prog: Any, specs: list, **kw: Any) -> list[str]:
    out = []
    for T, K in _libs(torch):
        out.append(K.make_fx(prog(T, K), **kw)(*_inputs(T, specs, 0)).code.strip())
    return out


# --- TestGenericProxyTensor: pre_dispatch ---------------------------------------------------------------------------


def test_pre_dispatch_mode_stack(torch: Any) -> None:
    """test_pre_dispatch_mode_stack: ones() stays a node with its device, matmul is not decomposed."""
    def prog(T, K):
        def f(a):
            return T.matmul(a, T.ones(4, 4))
        return f
    for T, _ in _libs(torch):  # the Python dispatcher used eagerly first: make_fx must not see stale caches
        python_dispatcher = T._dispatch.python.enable_python_dispatcher if T is not D else D.EnablePythonDispatcher
        with python_dispatcher():
            prog(T, None)(T.ones(4, 4))
    ours, theirs = _codes(torch, prog, [((4, 4), "float32", False)], pre_dispatch=True)[::-1]
    assert ours == theirs
    assert "aten.ones.default([4, 4], device = device(type='cpu'), pin_memory = False)" in ours


def test_pre_dispatch_linear(torch: Any) -> None:
    """test_pre_dispatch_linear: a pre_dispatch trace of linear replays to eager's values."""
    def prog(T, K):
        return lambda a, b, c: T.nn.functional.linear(a, b, c)
    specs = [((4, 4), "float32", False), ((4, 4), "float32", False), ((4,), "float32", False)]
    seen = []
    for T, K in _libs(torch):
        f = prog(T, K)
        gm = K.make_fx(f, pre_dispatch=True)(*_inputs(T, specs, 0))
        _close(gm(*_inputs(T, specs, 1)), f(*_inputs(T, specs, 1)))
        seen.append(_targets(gm))
    assert seen[0] == seen[1] == ["aten.linear.default"]


def test_pre_dispatch_no_grad(torch: Any) -> None:
    """test_pre_dispatch_no_grad: set_grad_enabled(False/True) inside f is recorded; replay gives eager's grads."""
    def prog(T, K):
        def f(a):
            b = a.sin()
            T.set_grad_enabled(False)
            c = b.cos()
            T.set_grad_enabled(True)
            return b + c.sin()
        return f
    specs = [((4,), "float32", True)]
    seen = []
    for T, K in _libs(torch):
        f = prog(T, K)
        gm = K.make_fx(f, pre_dispatch=True)(*_inputs(T, specs, 0))
        (a1,), (a2,) = _inputs(T, specs, 1), _inputs(T, specs, 1)
        out1, out2 = f(a1), gm(a2)
        _close(out1, out2)
        out1.sum().backward()
        out2.sum().backward()
        _close(a1.grad, a2.grad)
        seen.append((_targets(gm), _np(a2.grad)))
    assert seen[0][0] == seen[1][0]
    _close(seen[0][1], seen[1][1])


# --- TestGenericProxyTensor: the _test programs ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_make_fx_simple(torch: Any, mode: str) -> None:
    """test_make_fx_simple"""
    _generic(torch, lambda T, K: lambda x: T.sin(x), [((3,), "float32", False)], mode)


@pytest.mark.parametrize("mode", MODES)
def test_scalar_device(torch: Any, mode: str) -> None:
    """test_scalar_device: a 0-dim int64 tensor added to a float tensor."""
    _generic(torch, lambda T, K: lambda a, b: a + b, [((3,), "float32", False), ((), "int64", False)], mode)


@pytest.mark.parametrize("mode", MODES)
def test_varargs(torch: Any, mode: str) -> None:
    """test_varargs: f(*args) with sum(args)."""
    _generic(torch, lambda T, K: lambda *args: sum(args), [((2,), "float32", False)] * 2, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("how", ["grad", "backward"])
def test_proxy_tensor(torch: Any, mode: str, how: str) -> None:
    """test_proxy_tensor: autograd.grad and .backward() inside the traced function."""
    def prog(T, K):
        def f_grad(x):
            return T.autograd.grad(x.cos().cos().sum(), x)

        def f_backward(x):
            x.cos().cos().sum().backward()
            return x.grad
        return f_grad if how == "grad" else f_backward
    _generic(torch, prog, [((3,), "float32", True)], mode)


@pytest.mark.parametrize("mode", MODES)
def test_inplace_metadata(torch: Any, mode: str) -> None:
    """test_inplace_metadata: unsqueeze_ updates the traced tensor's shape."""
    def prog(T, K):
        def f(x):
            x = x.clone()
            x.unsqueeze_(-1)
            assert x.shape[-1] == 1
            return x
        return f
    _generic(torch, prog, [((5,), "float32", False)], mode)


@pytest.mark.parametrize("mode", MODES)
def test_tensor_constants(torch: Any, mode: str) -> None:
    """test_tensor_constants: torch.tensor(inf) used by full()."""
    def prog(T, K):
        return lambda: T.full((100, 100), T.tensor(float("inf")))
    _generic(torch, prog, [], mode)


@pytest.mark.parametrize("mode", MODES)
def test_pr_86917(torch: Any, mode: str) -> None:
    """test_pr_86917: nll_loss_forward called through torch.ops with an int64 target."""
    def prog(T, K):
        return lambda a, b: T.ops.aten.nll_loss_forward(a, b, None, 1, 10)
    specs = [((1, 10), "float32", False), ((1,), "int64", False)]
    seen = []
    for T, K in _libs(torch):
        f = prog(T, K)
        a, b = _inputs(T, specs[:1], 0)[0], T.zeros(1, dtype=T.long)
        gm = K.make_fx(f, tracing_mode=mode)(a, b)
        a2 = _inputs(T, specs[:1], 1)[0]
        _close(gm(a2, b), f(a2, b))
        seen.append((_targets(gm), gm(a2, b)))
    assert seen[0][0] == seen[1][0]
    _close(seen[0][1], seen[1][1])


# --- TestGenericProxyTensor: graphs, metadata, constants -------------------------------------------------------------


def test_empty_like_doesnt_burn_in_defaults(torch: Any) -> None:
    """test_empty_like_doesnt_burn_in_defaults: only pin_memory=False is added to empty_like's call."""
    theirs, ours = _codes(torch, lambda T, K: lambda x: T.empty_like(x), [((3,), "float32", False)])
    assert ours == theirs
    assert "empty_like = torch.ops.aten.empty_like.default(x_1, pin_memory = False)" in ours


def test_proxy_tensor_mode_with_decomp_table_preserves_proxy(torch: Any) -> None:
    """test_proxy_tensor_mode_with_decomp_table_preserves_proxy: a decomposition calling a factory (zeros) is
    traced by the (re-entered) mode."""
    def prog(T, K):
        def f(x):
            y = x.new_zeros(x.size())
            y.copy_(x)
            return y
        return f

    def table(T):
        def new_zeros(inp, size, dtype=None, layout=None, device=None, pin_memory=None):
            return T.zeros(size, dtype=inp.dtype, device=inp.device)
        return {T.ops.aten.new_zeros.default: new_zeros}
    codes = []
    for T, K in _libs(torch):
        codes.append(K.make_fx(prog(T, K), decomposition_table=table(T))(T.ones(2)).code)
    assert codes[0] == codes[1]
    assert "zeros = torch.ops.aten.zeros.default([2], dtype = torch.float32, device = device(type='cpu'), " \
        "pin_memory = False)" in codes[1]


@pytest.mark.parametrize("mode", MODES)
def test_make_fx_reentrant_dispatch(torch: Any, mode: str) -> None:
    """test_make_fx_reentrant_dispatch: a decomposition of norm.Scalar whose own ops decompose further."""
    def decomp(T):
        def norm(x, p=2.0):
            if p != 2.0:
                raise RuntimeError("can't handle with p != 2")
            return T.sqrt(T.sum(T.square(x)))
        return {T.ops.aten.norm.Scalar: norm}
    seen = []
    for T, K in _libs(torch):
        gm = K.make_fx((lambda L: lambda x: L.ops.aten.norm.Scalar(x, 2.0))(T), decomposition_table=decomp(T),
                       tracing_mode=mode)(T.rand(3))
        tg = _targets(gm)
        assert not any("square" in t or "norm" in t for t in tg), tg
        seen.append(tg)
    assert seen[0] == seen[1]


@pytest.mark.parametrize("mode", MODES)
def test_pickle_issue89626(torch: Any, mode: str) -> None:
    """test_pickle_issue89626: a tensor traced through make_fx pickles afterwards."""
    for T, K in _libs(torch):
        x = T.randn(2)
        K.make_fx(lambda x: x * 2, tracing_mode=mode)(x)
        pickle.dumps(x)


@pytest.mark.parametrize("mode", MODES)
def test_mode_tracing_factory_function(torch: Any, mode: str) -> None:
    """test_mode_tracing_factory_function: randn inside f is a node."""
    for T, K in _libs(torch):
        gm = K.make_fx((lambda L: lambda x: x + L.randn(x.shape))(T), tracing_mode=mode)(T.randn(3))
        assert any(n.target == T.ops.aten.randn.default for n in gm.graph.nodes)


@pytest.mark.parametrize("mode", MODES)
def test_val_metadata_mutation(torch: Any, mode: str) -> None:
    """test_val_metadata_mutation: meta['val'] of each node keeps the shape it had when made."""
    def f(x):
        y = x.clone()
        y.unsqueeze_(0)
        return y
    seen = []
    for T, K in _libs(torch):
        gm = K.make_fx(f, tracing_mode=mode)(T.randn(3, requires_grad=True))
        vals = [tuple(n.meta["val"].shape) for n in gm.graph.nodes if "val" in n.meta]
        assert vals == [(3,), (3,), (1, 3)]
        seen.append([(tuple(v.stride()), str(v.dtype).split(".")[-1], v.requires_grad)
                     for v in (n.meta["val"] for n in gm.graph.nodes if "val" in n.meta)])
    assert seen[0] == seen[1]


@pytest.mark.parametrize("mode", MODES)
def test_make_fx_overloads(torch: Any, mode: str) -> None:
    """test_make_fx_overloads: every call_function target is an OpOverload."""
    for T, K in _libs(torch):
        gm = K.make_fx((lambda L: lambda x: x.cos() + L.randn(x.shape))(T), tracing_mode=mode)(T.randn(3))
        calls = [n.target for n in gm.graph.nodes if n.op == "call_function"]
        assert calls and all(isinstance(t, K.OpOverload) for t in calls)


def _raises_same(torch: Any, run: Any) -> tuple:
    """Run ``run(T, K)`` on both libraries; both must raise; return (torch's, ours) exceptions."""
    errs = []
    for T, K in _libs(torch):
        with pytest.raises(Exception) as info:
            run(T, K)
        errs.append(info.value)
    return errs[0], errs[1]


@pytest.mark.parametrize("mode", MODES)
def test_allclose(torch: Any, mode: str) -> None:
    """test_allclose: allclose in a trace is data-dependent (DataDependentOutputException with fake tensors,
    a RuntimeError naming data-dependence with real ones)."""
    def run(T, K):
        K.make_fx(lambda a, b: T.allclose(a, b), tracing_mode=mode)(T.zeros(3), T.zeros(3))
    theirs, ours = _raises_same(torch, run)
    if mode == "fake":
        assert isinstance(ours, _kit(D).DDOE) and isinstance(theirs, _kit(torch).DDOE)
        assert str(ours.func) == str(theirs) == "aten.allclose.default"
    else:
        assert isinstance(ours, RuntimeError) and isinstance(theirs, RuntimeError)
        assert "data-dependent" in str(ours) and "data-dependent" in str(theirs)


@pytest.mark.parametrize("mode", MODES)
def test_constant_proxy_tensor_mut(torch: Any, mode: str) -> None:
    """test_constant_proxy_tensor_mut: a constant mutated in place; replaying twice gives eager's value."""
    def prog(T, K):
        def f():
            val = T.tensor(float(1))
            val.add_(2)
            return T.full((100, 100), val)
        return f
    seen = []
    for T, K in _libs(torch):
        f = prog(T, K)
        g = K.make_fx(f, tracing_mode=mode)()
        _close(g(), f())
        _close(g(), f())
        seen.append(_targets(g))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("mode", MODES)
def test_constant_unbind(torch: Any, mode: str) -> None:
    """test_constant_unbind: item() of an unbound element of a constant is known while tracing."""
    def prog(T, K):
        def f():
            r, = T.unbind(T.tensor([2]), 0)
            return r.item()
        return f
    for T, K in _libs(torch):
        f = prog(T, K)
        assert K.make_fx(f, tracing_mode=mode)()() == f() == 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("which", ["blowup", "random"])
def test_constant_blowup_and_random(torch: Any, mode: str, which: str) -> None:
    """test_constant_blowup, test_constant_random: item() of a constant too big to keep (repeat(1000)) or made
    random in place (normal_) is data-dependent."""
    def prog(T):
        def blowup():
            return bool(T.tensor([2]).repeat(1000).sum().item() == 2)

        def random():
            val = T.tensor([2.0])
            val.normal_()
            return bool(val.item() == 2.1)
        return blowup if which == "blowup" else random
    theirs, ours = _raises_same(torch, lambda T, K: K.make_fx(prog(T), tracing_mode=mode)())
    assert isinstance(theirs, RuntimeError) and "data-dependent" in str(theirs)
    assert isinstance(ours, RuntimeError) and "data-dependent" in str(ours), repr(ours)


@pytest.mark.parametrize("mode", MODES)
def test_decomposition_interpreter(torch: Any, mode: str) -> None:
    """test_decomposition_interpreter: DecompositionInterpreter rewrites silu with the table's decomposition
    into a new graph; same values."""
    seen = []
    for T, K in _libs(torch):
        x = T.tensor(np.random.default_rng(0).random((4, 4)).astype(np.float32))
        f = (lambda L: lambda x: L.nn.functional.silu(x))(T)
        gm = K.make_fx(f, tracing_mode=mode, decomposition_table=None)(x)
        assert any(n.target in (T.ops.aten.silu, T.ops.aten.silu.default) for n in gm.graph.nodes)
        new_graph = K.Graph()
        table = {T.ops.aten.silu.default: K.decomposition_table[T.ops.aten.silu.default]}
        K.DecompositionInterpreter(gm, new_graph=new_graph, decomposition_table=table).run(x)
        dm = K.GraphModule(gm, new_graph)
        assert all(n.target not in (T.ops.aten.silu, T.ops.aten.silu.default) for n in dm.graph.nodes)
        _close(gm(x), dm(x))
        # torch's graph also holds a dead empty_strided node per placeholder: the FakeTensorMode its
        # track_tensor_tree enters to make the placeholder's meta["val"] sits below the proxy mode, which records
        # it; ours makes meta["val"] off the mode stack (docs/tracing.md). The live nodes are the same.
        seen.append([str(n.target) for n in dm.graph.nodes if n.op == "call_function" and n.users])
    assert seen[0] == seen[1] == ["aten.sigmoid.default", "aten.mul.Tensor"]


# --- TestGenericProxyTensor: models ----------------------------------------------------------------------------------


def _linear_relu(T: Any) -> Any:
    class Foo(T.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = T.nn.Linear(5, 5)

        def forward(self, x):
            return self.linear(x).relu()
    model = Foo()
    rng = np.random.default_rng(3)
    with T.no_grad():
        model.linear.weight.copy_(T.tensor(rng.standard_normal((5, 5)).astype(np.float32)))
        model.linear.bias.copy_(T.tensor(rng.standard_normal(5).astype(np.float32)))
    return model


def _fwd_bwd(T: Any, model: Any) -> Any:
    def f(x, params):
        T.func.functional_call(model, params, x).sum().backward()
        return list(params.values())
    return f


def _fwd_bwd_update(T: Any, model: Any) -> Any:
    def f(args, params, buffers):
        for p in params.values():
            p.grad = None
        out = T.func.functional_call(model, {**params, **buffers}, args)
        out.sum().backward()
        return [p - 1e-4 * p.grad for p in params.values()]
    return f


@pytest.mark.parametrize("mode", MODES)
def test_make_fx_model_fwd_bwd(torch: Any, mode: str) -> None:
    """test_make_fx_model_fwd_bwd: functional_call + backward inside f; the replay returns the parameters."""
    seen = []
    for T, K in _libs(torch):
        model = _linear_relu(T)
        f = _fwd_bwd(T, model)
        x = _inputs(T, [((3, 5), "float32", True)], 0)[0]
        params = dict(model.named_parameters())
        gm = K.make_fx(f, tracing_mode=mode)(x, params)
        got, want = gm(x, params), f(x, params)
        _close(got, want)
        seen.append((_targets(gm), got))
    assert seen[0][0] == seen[1][0]
    _close(seen[0][1], seen[1][1])


@pytest.mark.parametrize("mode", MODES)
def test_make_fx_model_fwd_bwd_wgtupdate(torch: Any, mode: str) -> None:
    """test_make_fx_model_fwd_bwd_wgtupdate: grads reset, forward, backward, SGD-style update, in one trace."""
    seen = []
    for T, K in _libs(torch):
        model = _linear_relu(T)
        f = _fwd_bwd_update(T, model)
        x = _inputs(T, [((3, 5), "float32", True)], 0)[0]
        params, buffers = dict(model.named_parameters()), dict(model.named_buffers())
        gm = K.make_fx(f, tracing_mode=mode)(x, params, buffers)
        got, want = gm(x, params, buffers), f(x, params, buffers)
        _close(got, want, atol=1e-3)
        seen.append((_targets(gm), got))
    assert seen[0][0] == seen[1][0]
    _close(seen[0][1], seen[1][1], atol=1e-4)


def test_make_fx_model_double_param(torch: Any) -> None:
    """test_make_fx_model_double_param: a LayerNorm called twice; its weight stays a Tensor; two distinct ops."""
    seen = []
    for T, K in _libs(torch):
        class Emformer(T.nn.Module):
            def __init__(self, input_dim: int = 256, T=T) -> None:
                super().__init__()
                self.layer_norm = T.nn.LayerNorm(input_dim)

            def forward(mod_self, x, T=T):  # noqa: N805 - torch's test names it so
                assert isinstance(mod_self.layer_norm.weight, T.Tensor)
                y = mod_self.layer_norm(x)
                assert isinstance(mod_self.layer_norm.weight, T.Tensor)
                return mod_self.layer_norm(y)
        gm = K.make_fx(Emformer())(T.randn(16, 1, 256))
        ops = {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
        assert len(ops) == 2
        seen.append(ops)
    assert seen[0] == seen[1]


def _unwrap_tensor_class(T: Any) -> Any:
    """torch's UnwrapTensor: a wrapper subclass whose ops see ``cos()`` of what it holds."""
    from_tree_map = T.utils._pytree.tree_map if T is not D else tracer.pytree.tree_map

    class UnwrapTensor(T.Tensor):
        @staticmethod
        def __new__(cls, tensor):
            r = T.Tensor._make_wrapper_subclass(cls, tensor.size(), dtype=tensor.dtype, device=tensor.device,
                                                layout=tensor.layout, requires_grad=tensor.requires_grad)
            r._tensor = tensor
            return r

        __torch_function__ = T._C._disabled_torch_function_impl

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def unwrap(e):
                return e._tensor.cos() if isinstance(e, UnwrapTensor) else e
            return func(*from_tree_map(unwrap, args), **from_tree_map(unwrap, kwargs))
    return UnwrapTensor


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("which", ["wrapped_times_2", "x_times_wrapped"])
def test_trace_subclasses(torch: Any, mode: str, which: str) -> None:
    """test_trace_subclasses: a wrapper subclass made inside f is traced through its __torch_dispatch__."""
    def prog(T, K):
        U = _unwrap_tensor_class(T)
        if which == "wrapped_times_2":
            return lambda x: U(x) * 2
        return lambda x: x * U(x)
    _generic(torch, prog, [((5,), "float32", False)], mode)


def test_decomp_of_capture(torch: Any) -> None:
    """test_decomp_of_capture: a table entry applies to a captured (constant) tensor too: no t() is left."""
    seen = []
    for T, K in _libs(torch):
        val = T.randn(5)
        gm = K.make_fx((lambda L, v: lambda x: x.t() + v.t())(T, val),
                       decomposition_table={T.ops.aten.t.default: lambda x: x.cos()})(T.randn(5))
        assert not [n for n in gm.graph.nodes if n.target == T.ops.aten.t.default]
        seen.append(_targets(gm))
    assert seen[0] == seen[1]


def test_strides(torch: Any) -> None:
    """test_strides: is_contiguous (both memory formats) of traced tensors after permute and slicing."""
    for T, K in _libs(torch):
        def f(x, T=T):
            assert x.is_contiguous()
            assert not x.is_contiguous(memory_format=T.channels_last)
            x = x.permute(0, 3, 1, 2)
            assert not x.is_contiguous()
            assert x.is_contiguous(memory_format=T.channels_last)
            return x

        def g(x):
            assert x.is_contiguous()
            assert not x[:, 1].is_contiguous()
            assert not x[:, ::2].is_contiguous()
            return x.cos()
        for fn in (f, g):
            K.make_fx((lambda h: lambda x: h(x))(fn))(T.randn(2, 3, 4, 5))


# --- TestRealProxyTensor ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("pre_dispatch", [False, True])
def test_error_on_data_dependent_ops(torch: Any, pre_dispatch: bool) -> None:
    """test_error_on_data_dependent_ops: with _error_on_data_dependent_ops=False, allclose and float() of traced
    tensors read their real values."""
    for T, K in _libs(torch):
        def f(T=T):
            x = T.randn([])
            y = T.randn([])
            assert T.allclose(x * y, y * x)
            float(x)
            float(y)
        K.make_fx((lambda h: lambda: h())(f), pre_dispatch=pre_dispatch, _error_on_data_dependent_ops=False)()


# --- TestFakeProxyTensor ---------------------------------------------------------------------------------------------


def test_issue82547(torch: Any) -> None:
    """test_issue82547: a real Parameter captured by a fake trace is an error naming the fix; a captured plain
    Tensor subclass fails its multiple dispatch."""
    msgs = []
    for T, K in _libs(torch):
        x = T.nn.Parameter(T.randn(3, 3))
        with pytest.raises(Exception, match="Please convert all Tensors") as info:
            K.make_fx((lambda L, v: lambda: L.ops.aten.t.default(v))(T, x), tracing_mode="fake")()
        msgs.append(str(info.value))

        class A(T.Tensor):
            pass
        a = A(T.randn(3, 3))
        with pytest.raises(TypeError, match="Multiple dispatch failed"):
            K.make_fx((lambda L, v: lambda: L.ops.aten.t.default(v))(T, a), tracing_mode="fake")()
    assert msgs[0].split("\n")[0] == msgs[1].split("\n")[0]


def test_use_fake_and_tensor(torch: Any) -> None:
    """test_use_fake_and_tensor: torch.tensor([...]) made inside a fake trace is a constant; replay equals eager."""
    def prog(T, K):
        return lambda x, y: x + y + T.tensor([2.0, 3.0])
    _generic(torch, prog, [((2,), "float32", False)] * 2, "fake")


def test_free_fake(torch: Any) -> None:
    """test_free_fake: a real-mode trace under an active FakeTensorMode, reading a fake tensor made by it."""
    seen = []
    for T, K in _libs(torch):
        with K.FakeTensorMode():
            y = T.randn(2)
            gm = K.make_fx((lambda L, v: lambda x: L.add(x, v))(T, y), tracing_mode="real")(T.randn(2))
        seen.append(_targets(gm))
    assert seen[0] == seen[1]


def test_alias(torch: Any) -> None:
    """test_alias: aten.alias is recorded as it is (no detach) in a fake trace."""
    theirs, ours = _codes(torch, lambda T, K: lambda x: T.ops.aten.alias(x), [((2,), "float32", False)],
                          tracing_mode="fake")
    assert ours == theirs
    assert "alias = torch.ops.aten.alias.default(x_1);  x_1 = None\n    return alias" in ours


def test_meta(torch: Any) -> None:
    """test_meta: every node of a fake trace (var_mean's tuple and its getitems included) has meta['val']."""
    def prog(T, K):
        return lambda x: T.var_mean(x.cos(), dim=0)[0] * 2
    seen = []
    for T, K in _libs(torch):
        gm = K.make_fx(prog(T, K), tracing_mode="fake")(T.randn(5, 5))
        assert all("val" in n.meta for n in gm.graph.nodes if n.op != "output")
        seen.append(_targets(gm))
    assert seen[0] == seen[1]


def test_fake_tensor_mode(torch: Any) -> None:
    """test_fake_tensor_mode: a real-mode trace under an existing FakeTensorMode keeps that mode in meta['val']."""
    for T, K in _libs(torch):
        existing = K.FakeTensorMode()
        with existing:
            gm = K.make_fx(lambda a: a.cos(), tracing_mode="real")(T.tensor([[1, 1, 1, 1, 1, 1, 1, 1]]))
        modes = {id(n.meta["val"].fake_mode) for n in gm.graph.nodes if hasattr(n.meta.get("val"), "fake_mode")}
        assert modes == {id(existing)}


def _isolated_flags(T: Any, K: Any) -> list:
    """torch's test_isolated_graphmodule, as (sum, sigmoid, cos) presence flags of each graph (cos for its digamma)."""
    from_logging = (T.testing._internal.logging_tensor if T is not D
                    else __import__("dispatcher.testing._internal.logging_tensor", fromlist=["x"]))
    iso, make_fx = K.get_isolated_graphmodule, K.make_fx
    flags = []

    def has(gm):
        targets = {n.target for n in gm.graph.nodes}
        return tuple(op in targets for op in (T.ops.aten.sum.default, T.ops.aten.sigmoid.default,
                                              T.ops.aten.cos.default))

    def note(gm):
        flags.append(has(gm))
        return gm

    def inner_with_factory():
        val = T.tensor(float(1))
        val.add_(2)
        return T.full((10, 10), val).sum()

    def f(x):
        note(iso(lambda x: T.sum(x), (x,), {}))
        return x + T.randn(x.shape)
    note(make_fx(f)(T.randn(3)))

    def f1(x):
        note(iso(inner_with_factory, (), {}))
        return T.sigmoid(x)

    def f2(x):
        note(iso(f1, (x,), {}))
        return T.cos(x)
    note(make_fx(f2)(T.randn(3)))

    def f2_nested(x):
        note(make_fx(f1)(x))
        return T.cos(x)
    note(make_fx(f2_nested)(T.randn(3)))

    def f3(x):
        gm = note(make_fx(f1)(x))
        return T.cos(gm(x))  # the inner module's forward is traced by the outer trace
    note(make_fx(f3)(T.randn(3)))

    def f1_logging(x):
        with from_logging.LoggingTensorMode():
            note(iso(inner_with_factory, (), {}))
        return T.sigmoid(x)

    def f2_logging(x):
        with from_logging.LoggingTensorMode(), from_logging.LoggingTensorMode():
            note(iso(f1_logging, (x,), {}))
        return T.cos(x)
    note(make_fx(f2_logging)(T.randn(3)))

    def f2_logging_tensor(x):
        x = from_logging.LoggingTensor(x)
        note(iso(f1, (x,), {}))
        return T.cos(x)
    note(make_fx(f2_logging_tensor)(T.randn(3)))
    return flags


def test_isolated_graphmodule(torch: Any) -> None:
    """test_isolated_graphmodule (all its cases): get_isolated_graphmodule and nested make_fx never leak into the
    outer graph; an inner GraphModule's forward is traced; LoggingTensorMode and LoggingTensor around it."""
    import logging

    logging.getLogger("LoggingTensor").propagate = False
    theirs, ours = (_isolated_flags(T, K) for T, K in _libs(torch))
    assert ours == theirs
    # the outer graphs: no sum; cos; sigmoid only where the inner module was called (f3)
    no, cos, sig_cos = (False, False, False), (False, False, True), (False, True, True)
    assert [ours[i] for i in (1, 4, 7, 10, 13, 16)] == [no, cos, cos, sig_cos, cos, cos]


def _small_resnet(T: Any) -> Any:
    """A residual conv block with batch norm, pooling and a linear head (what resnet18 exercises, small)."""
    class Block(T.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = T.nn.Conv2d(3, 4, 3, padding=1, bias=False)
            self.bn1 = T.nn.BatchNorm2d(4)
            self.conv2 = T.nn.Conv2d(4, 4, 3, padding=1, bias=False)
            self.bn2 = T.nn.BatchNorm2d(4)
            self.pool = T.nn.AdaptiveAvgPool2d(1)
            self.fc = T.nn.Linear(4, 2)

        def forward(self, x):
            h = T.nn.functional.relu(self.bn1(self.conv1(x)))
            h = T.nn.functional.relu(self.bn2(self.conv2(h)) + h)
            return self.fc(T.flatten(self.pool(h), 1))
    mod = Block()
    rng = np.random.default_rng(7)
    with T.no_grad():
        for _, p in mod.named_parameters():
            p.copy_(T.tensor((rng.standard_normal(tuple(p.shape)) * 0.3).astype(np.float32)))
    return mod


def _backward_trace(T: Any, mod: Any) -> Any:
    def f(x, params, buffers):
        for p in params.values():
            p.grad = None
        loss = T.func.functional_call(mod, {**params, **buffers}, (x,)).sum()
        loss.backward()
        return [p.grad for p in params.values()]
    return f


@pytest.mark.parametrize("mode", MODES)
def test_resnet18_backward_trace(torch: Any, mode: str) -> None:
    """test_resnet18_backward_trace (torchvision's resnet18 there, a residual conv block here): functional_call,
    backward and the parameters' grads, traced; replayed on fresh input, equal to eager and to torch."""
    seen = []
    for T, K in _libs(torch):
        mod = _small_resnet(T)
        f = _backward_trace(T, mod)
        params, buffers = dict(mod.named_parameters()), dict(mod.named_buffers())
        gm = K.make_fx(f, tracing_mode=mode)(_inputs(T, [((2, 3, 6, 6), "float32", False)], 0)[0], params, buffers)
        x = _inputs(T, [((2, 3, 6, 6), "float32", False)], 1)[0]
        fresh = {k: v.clone() for k, v in buffers.items()}
        got = gm(x, params, fresh)
        want = f(x, params, {k: v.clone() for k, v in buffers.items()})
        _close(got, want, atol=1e-4)
        seen.append((_targets(gm), got))
    assert seen[0][0] == seen[1][0]
    _close(seen[0][1], seen[1][1], atol=1e-4)


# --- beyond the file's test names: the make_fx helpers its neighbours use ---------------------------------------------


def _proxy_helpers(T: Any) -> tuple:
    if T is D:
        from tracer.proxy_tensor import get_proxy_mode, unset_fake_temporarily
        return get_proxy_mode, unset_fake_temporarily
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    from torch.fx.experimental.proxy_tensor import get_proxy_mode
    return get_proxy_mode, unset_fake_temporarily


def test_trivial_return(torch: Any) -> None:
    """make_fx of a function returning its input (and constants beside it): the graph returns the placeholder."""
    for prog in (lambda T, K: lambda x: x, lambda T, K: lambda x: (x, 3, None)):
        theirs, ours = _codes(torch, prog, [((2,), "float32", False)])
        assert ours == theirs and "return" in ours


def test_get_proxy_mode(torch: Any) -> None:
    """get_proxy_mode(): the active proxy mode in real, fake and pre_dispatch traces; None outside."""
    seen = []
    for T, K in _libs(torch):
        get_proxy_mode, _ = _proxy_helpers(T)
        names = []

        def f(x, get_proxy_mode=get_proxy_mode, names=names):
            names.append(type(get_proxy_mode()).__name__)
            return x + 1
        for kw in ({}, {"tracing_mode": "fake"}, {"pre_dispatch": True}):
            K.make_fx((lambda h: lambda x: h(x))(f), **kw)(T.randn(2))
        f(T.randn(2))
        seen.append(names)
    assert seen[0] == seen[1] == ["ProxyTorchDispatchMode"] * 3 + ["NoneType"]


def test_unset_fake_temporarily_and_allow_non_fake_inputs(torch: Any) -> None:
    """A real tensor made under unset_fake_temporarily() inside a fake trace: mixing it in is torch's error, unless
    make_fx(_allow_non_fake_inputs=True), which converts it (same graph)."""
    codes, errors = [], []
    for T, K in _libs(torch):
        _, unset_fake_temporarily = _proxy_helpers(T)

        def g(x, T=T, unset=unset_fake_temporarily):
            with unset() as m:
                t = T.ones(2)
            assert type(t).__name__ == "Tensor" and type(m).__name__ == "FakeTensorMode"
            return x + t
        prog = (lambda h: lambda x: h(x))(g)
        with pytest.raises(AssertionError) as info:
            K.make_fx(prog, tracing_mode="fake")(T.randn(2))
        errors.append(str(info.value))
        codes.append(K.make_fx(prog, tracing_mode="fake", _allow_non_fake_inputs=True)(T.randn(2)).code)
    assert errors[0] == errors[1] and "Please convert all Tensors to FakeTensors first" in errors[1]
    assert codes[0] == codes[1]


def _functional_call_outcomes(T: Any) -> list:
    m = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.BatchNorm1d(2))
    w = T.zeros(2, 2)
    calls = [
        lambda: T.func.functional_call(m, ({"0.weight": w}, {"0.weight": w}), (T.ones(3, 2),)),
        lambda: T.func.functional_call(m, 3, (T.ones(3, 2),)),
        lambda: T.func.functional_call(m, {"0.weight": w, "zz": w}, (T.ones(3, 2),), strict=True),
        lambda: T.func.functional_call(T.nn.Linear(2, 2), {"weight": w, "bias": T.ones(2)}, (),
                                       {"input": T.ones(1, 2)}).tolist(),
    ]
    out = []
    for call in calls:
        try:
            out.append(call())
        except Exception as e:  # noqa: BLE001 - the errors are compared with torch's
            out.append((type(e).__name__, str(e)))
    running = T.ones(2)
    T.func.functional_call(m[1], {"running_mean": running}, T.tensor([[1.0, 3.0], [3.0, 5.0]]))
    out.append((type(m[0].weight).__name__, m[1].running_mean.tolist(), running.tolist()))
    return out


def test_functional_call(torch: Any) -> None:
    """torch.func.functional_call (the model tests use it): errors, kwargs, swapped buffers updated in place, the
    module's own tensors restored."""
    theirs, ours = (_functional_call_outcomes(T) for T, _ in _libs(torch))
    assert ours == theirs


CONFIGS = {"post": {}, "pre": {"pre_dispatch": True}, "fake": {"tracing_mode": "fake"}}


@pytest.mark.parametrize("inner", list(CONFIGS))
@pytest.mark.parametrize("outer", list(CONFIGS))
def test_isolated_graphmodule_nested_configs(torch: Any, outer: str, inner: str) -> None:
    """test_isolated_graphmodule's nested make_fx, for every pair of configurations: the inner trace stashes the
    outer proxy mode (pre-dispatch or not), so its ops land in its own graph only."""
    seen = []
    for T, K in _libs(torch):
        inner_targets: list = []

        def f2(x, T=T, K=K, inner_targets=inner_targets):
            gm = K.make_fx((lambda L: lambda y: L.sigmoid(y).sum())(T), **CONFIGS[inner])(x)
            inner_targets.append(_targets(gm))
            return T.cos(x)
        gm = K.make_fx((lambda h: lambda x: h(x))(f2), **CONFIGS[outer])(T.randn(3))
        seen.append((_targets(gm), inner_targets))
    assert seen[0] == seen[1] == (["aten.cos.default"], [["aten.sigmoid.default", "aten.sum.default"]])


_LIST_OPS: dict = {}


def _pair_lists_op(T: Any) -> Any:
    """A library op returning a tuple of Tensor lists (``_fused_adam``'s output structure), defined once."""
    if T not in _LIST_OPS:
        lib = T.library.Library("ptsuite", "DEF")
        lib.define("pair_lists(Tensor[] a, Tensor[] b, *, float lr) -> (Tensor[], Tensor[])")
        lib.impl("pair_lists", lambda a, b, *, lr: ([x - lr * y for x, y in zip(a, b)], [y.clone() for y in b]), "CPU")
        lib.impl("pair_lists", lambda a, b, *, lr: ([T.empty_like(x) for x in a], [T.empty_like(y) for y in b]),
                 "Meta")
        _LIST_OPS[T] = (lib, T.ops.ptsuite.pair_lists.default)
    return _LIST_OPS[T][1]


@pytest.mark.parametrize("mode", MODES)
def test_fused_adam(torch: Any, mode: str) -> None:
    """test_fused_adam (there is no aten._fused_adam here): an op returning a tuple of Tensor lists, its results
    copied into the list inputs; the op and every getitem (of the tuple, of each list) have meta['val']; same code
    and placeholder targets as torch's."""
    seen = []
    for T, K in _libs(torch):
        op = _pair_lists_op(T)

        def f(params, grads, op=op):
            new_params, _ = op(params, grads, lr=0.1)
            for p, q in zip(params, new_params):
                p.copy_(q)
            return params
        gm = K.make_fx((lambda h: lambda params, grads: h(params, grads))(f), tracing_mode=mode)(
            [T.ones(2), T.ones(2)], [T.ones(2), T.ones(2)])
        for n in gm.graph.nodes:
            if n.op == "call_function" and (n.target is op or n.target.__name__ == "getitem"):
                assert "val" in n.meta
        params = [T.ones(2), T.zeros(2)]
        out = gm(params, [T.ones(2), T.ones(2)])
        assert out[1].tolist() == params[1].tolist()
        np.testing.assert_allclose(params[1].tolist(), [-0.1, -0.1], rtol=1e-6)
        seen.append((gm.code, [n.target for n in gm.graph.nodes if n.op == "placeholder"]))
    assert seen[0] == seen[1]
