"""Checks shared by the nn module tests: one module, built by torch and by us, compared op for op.

A module is written once as ``make(L)`` against ``L`` (torch or the ``dispatcher`` package); its inputs as
``make_inputs(L, seed)``. Both libraries build it after ``manual_seed(0)``; ours then loads torch's ``state_dict``
(through NumPy), so the weights are equal. ``check_module`` compares:

- eager forward values (and the ``repr``, ``state_dict`` keys and parameter shapes),
- gradients of the floating inputs and of every parameter after ``backward`` of a weighted sum of the outputs,
- make_fx graphs in the four configurations ("post", "pre", "fake" with the module built under FakeTensorMode,
  "core": post-dispatch with the core-ATen decompositions): the same call_function targets in the same order,
- the replay of our graphs on fresh inputs against our eager result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import dispatcher as D
from tests import corpus as C
from tracer import make_fx
from tracer.decompositions import core_aten_decompositions

CONFIGS = ("post", "pre", "fake", "core")


def copy_weights(src: Any, dst: Any) -> None:
    """Load torch module ``src``'s state (parameters and buffers) into our module ``dst`` through NumPy."""
    result = dst.load_state_dict({k: D.tensor(v.detach().numpy().copy()) for k, v in src.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"


def fake_mode(L: Any) -> Any:
    """A FakeTensorMode of library ``L``."""
    if L is D:
        from dispatcher.fake import FakeTensorMode

        return FakeTensorMode()
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode

    return TorchFakeTensorMode()


def trace(L: Any, f: Any, args: Sequence[Any], config: str) -> Any:
    """``L``'s make_fx of ``f`` on ``args`` in one of CONFIGS."""
    if L is D:
        kw: dict[str, Any] = {"core": {"decomposition_table": core_aten_decompositions()}, "pre": {"pre_dispatch": True},
                              "fake": {"tracing_mode": "fake"}}.get(config, {})
        return make_fx(f, **kw)(*args)
    from torch._decomp import core_aten_decompositions as torch_core
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    kw = {"core": {"decomposition_table": torch_core()}, "pre": {"pre_dispatch": True},
          "fake": {"tracing_mode": "fake"}}.get(config, {})
    return torch_make_fx(f, **kw)(*args)


def build_both(torch: Any, make: Callable[[Any], Any], make_inputs: Callable[[Any, int], list], config: str = "post",
               seed: int = 0) -> tuple[Any, list, Any, list]:
    """(torch module, torch inputs, our module, our inputs); built under a fake mode for the "fake" configuration,
    otherwise ours holds torch's weights."""
    built = []
    for L in (torch, D):
        L.manual_seed(0)
        if config == "fake":
            fm = fake_mode(L)
            with fm:
                model = make(L)
            args = [fm.from_tensor(a) if isinstance(a, L.Tensor) else a for a in make_inputs(L, seed)]
        else:
            model, args = make(L), make_inputs(L, seed)
        built.append((model, args))
    (m_t, a_t), (m_o, a_o) = built
    if config != "fake":
        copy_weights(m_t, m_o)
    return m_t, a_t, m_o, a_o


def _flat_tensors(out: Any, L: Any) -> list:
    if isinstance(out, L.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat_tensors(o, L)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _flat_tensors(o, L)]
    return []


def _weighted_sum(out: Any, L: Any) -> Any:
    """A scalar that depends on every floating output element with distinct weights (so a gradient mistake shows)."""
    total = None
    for t in _flat_tensors(out, L):
        if not t.is_floating_point() or not t.requires_grad:
            continue
        w = L.arange(t.numel(), dtype=t.dtype).reshape(t.shape) / max(t.numel(), 1) + 0.5
        term = (t * w).sum()
        total = term if total is None else total + term
    return total


def _requiring_grad(args: list, L: Any) -> list:
    out = []
    for a in args:
        if isinstance(a, L.Tensor) and a.is_floating_point():
            a = a.detach().requires_grad_(True)
        out.append(a)
    return out


def check_eager(torch: Any, make: Callable[[Any], Any], make_inputs: Callable[[Any, int], list], *,
                grads: bool = True, rtol: float | None = None, atol: float | None = None) -> tuple[Any, Any]:
    """Same repr, state_dict keys and shapes, forward values and (``grads``) input and parameter gradients."""
    m_t, a_t, m_o, a_o = build_both(torch, make, make_inputs)
    assert repr(m_o) == repr(m_t)
    assert [(k, tuple(v.shape)) for k, v in m_o.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in m_t.state_dict().items()]
    if grads:
        a_t, a_o = _requiring_grad(a_t, torch), _requiring_grad(a_o, D)
    out_t, out_o = m_t(*a_t), m_o(*a_o)
    kw = {k: v for k, v in (("rtol", rtol), ("atol", atol)) if v is not None}
    C.assert_close(C.to_np(out_t), C.to_np(out_o), **kw)
    if grads:
        loss_t, loss_o = _weighted_sum(out_t, torch), _weighted_sum(out_o, D)
        assert (loss_t is None) == (loss_o is None)
        if loss_t is not None:
            loss_t.backward()
            loss_o.backward()
            for x_t, x_o in zip(a_t, a_o):
                if isinstance(x_t, torch.Tensor) and x_t.requires_grad:
                    C.assert_close(C.to_np(x_t.grad), C.to_np(x_o.grad), **kw)
            for (n_t, p_t), (n_o, p_o) in zip(m_t.named_parameters(), m_o.named_parameters()):
                assert n_t == n_o
                assert (p_t.grad is None) == (p_o.grad is None), n_o
                if p_t.grad is not None:
                    C.assert_close(C.to_np(p_t.grad), C.to_np(p_o.grad), **kw)
    return m_t, m_o


def own_targets(gm: Any) -> list[str]:
    """call_function targets, without the nodes recomputing what autograd saved inside a whole op."""
    return [C.target_str(n.target) for n in gm.graph.nodes if n.op == "call_function" and "saved_inside" not in n.meta]


def check_graphs(torch: Any, make: Callable[[Any], Any], make_inputs: Callable[[Any, int], list],
                 configs: Sequence[str] = CONFIGS, *, replay: bool = True) -> None:
    """make_fx of the module's forward: the same op sequence as torch's in each configuration; our graph replayed on
    fresh inputs (seed 7) gives our eager values (post / pre / core)."""
    for config in configs:
        m_t, a_t, m_o, a_o = build_both(torch, make, make_inputs, config)
        gm_t, gm_o = trace(torch, m_t, a_t, config), trace(D, m_o, a_o, config)
        assert own_targets(gm_o) == own_targets(gm_t), config
        gm_o.graph.lint()
        if replay and config != "fake":
            fresh = make_inputs(D, 7)
            C.assert_close(C.to_np(m_o(*fresh)), C.to_np(gm_o(*fresh)))


def check_module(torch: Any, make: Callable[[Any], Any], make_inputs: Callable[[Any, int], list],
                 configs: Sequence[str] = CONFIGS, **kw: Any) -> None:
    """check_eager, then check_graphs."""
    check_eager(torch, make, make_inputs, **kw)
    check_graphs(torch, make, make_inputs, configs)


def randn(L: Any, seed: int, *shape: int) -> Any:
    """A float32 tensor of ``L`` with standard-normal values drawn by NumPy (the same in both libraries)."""
    return L.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def check_same_error(torch: Any, make: Callable[[Any], Any], make_inputs: Callable[[Any, int], list]) -> None:
    """The module's forward raises in torch; ours raises the same exception class with the same message."""
    import pytest

    m_t, a_t, m_o, a_o = build_both(torch, make, make_inputs)
    with pytest.raises(Exception) as e_t:  # noqa: PT011 - compared below
        m_t(*a_t)
    with pytest.raises(Exception) as e_o:  # noqa: PT011 - compared below
        m_o(*a_o)
    assert type(e_o.value).__name__ == type(e_t.value).__name__
    assert str(e_o.value) == str(e_t.value)


def regression_batch(L: Any, seed: int) -> list:
    """``[x, y]``: a (5, 3) input and a (5, 2) target of library ``L``, float32 normal draws of ``seed``."""
    rng = np.random.default_rng(seed)
    return [L.tensor(rng.standard_normal((5, 3)).astype(np.float32)),
            L.tensor(rng.standard_normal((5, 2)).astype(np.float32))]


def mlp_training_step(L: Any, make_optimizer: Callable[[Any], Any]) -> tuple[Any, Any, Callable[..., Any]]:
    """``(model, opt, step)``: Linear(3, 4) - Tanh - Linear(4, 2) built after ``manual_seed(0)``, the optimizer
    ``make_optimizer(model.parameters())`` and ``step(x, y)``: MSE loss, backward, ``opt.step()``, ``zero_grad()``."""
    nn = L.nn
    L.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    opt = make_optimizer(model.parameters())

    def step(x, y):  # (no annotations: torch's generated code would copy a return annotation, `-> _Any_`)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    return model, opt, step


def wrap_module(L: Any, inner: Any, call: Callable[..., Any]) -> Any:
    """A module of ``L`` holding ``inner`` (as ``m``) whose forward is ``call(m, *inputs)``."""
    class Wrap(L.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.m = inner

        def forward(self, *args: Any) -> Any:
            return call(self.m, *args)

    return Wrap()


def same_error(torch: Any, fn: Callable[[Any], Any], *, first_line: bool = False) -> None:
    """``fn(L)`` raises in torch and ours (warnings ignored): the same class (or class name) and message (its first
    line with ``first_line``)."""
    import warnings

    import pytest

    excs = []
    for L in (torch, D):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:  # noqa: PT011 - compared below
                fn(L)
        excs.append(info.value)
    e_t, e_o = excs
    assert isinstance(e_o, type(e_t)) or type(e_o).__name__ == type(e_t).__name__, (e_t, e_o)
    if first_line:
        assert str(e_o).splitlines()[0] == str(e_t).splitlines()[0]
    else:
        assert str(e_o) == str(e_t)
