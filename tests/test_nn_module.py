"""``nn.Module`` / ``nn.Parameter`` / layers / ``nn.init`` behaviour against torch 2.13.

Each check is written once against ``L`` (torch or dispatcher) and run by both: names and order of
``named_parameters`` & co., ``state_dict`` keys, ``load_state_dict`` results and error texts, registration
errors, ``repr`` strings, hooks, train / eval, and each layer's forward values with weights copied from torch.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C


def both(torch: Any, fn: Callable[[Any], Any]) -> Any:
    """``fn(torch)`` and ``fn(dispatcher)`` give equal results; returns ours."""
    theirs, ours = fn(torch), fn(D)
    assert ours == theirs
    return ours


def same_error(torch: Any, fn: Callable[[Any], Any]) -> str:
    """``fn`` raises the same exception type with the same message in both libraries; returns the message."""
    msgs = []
    for L in (torch, D):
        with pytest.raises(Exception) as info:  # noqa: PT011 - the type is compared below
            fn(L)
        msgs.append((type(info.value).__name__, str(info.value)))
    assert msgs[1] == msgs[0]
    return msgs[1][1]


def copy_weights(src: Any, dst: Any) -> None:
    dst.load_state_dict({k: D.tensor(v.detach().numpy().copy()) for k, v in src.state_dict().items()})


# --- a nested model with shared parameters, buffers and None entries ----------------------------------------------
def nested(L: Any) -> Any:
    nn = L.nn

    class Inner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.register_buffer("running", L.zeros(3))
            self.register_buffer("scratch", L.ones(2), persistent=False)
            self.register_parameter("missing", None)
            self.scale = nn.Parameter(L.ones(1))

        def forward(self, x: Any) -> Any:
            return self.fc(x) * self.scale + self.running

    class Outer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.first = Inner()
            self.blocks = nn.ModuleList([nn.Linear(3, 3), Inner()])
            self.shared = self.first  # the same module twice
            self.tied = nn.Linear(3, 3)
            self.tied.weight = self.blocks[0].weight  # a shared parameter
            self.heads = nn.ModuleDict({"b": nn.Linear(3, 2), "a": nn.Identity()})
            self.none_child = None
            self.register_module("later", nn.Sequential(nn.Tanh()))

        def forward(self, x: Any) -> Any:
            x = self.first(x)
            for b in self.blocks:
                x = b(x)
            return self.heads["b"](self.tied(x))

    return Outer()


def test_named_parameters_buffers_modules_order_and_dedup(torch: Any) -> None:
    def names(L: Any) -> Any:
        m = nested(L)
        return (
            [n for n, _ in m.named_parameters()],
            [n for n, _ in m.named_parameters(remove_duplicate=False)],
            [n for n, _ in m.named_parameters(prefix="model", recurse=False)],
            [n for n, _ in m.first.named_parameters(prefix="p")],
            [n for n, _ in m.named_buffers()],
            [n for n, _ in m.named_children()],
            [n for n, _ in m.named_modules()],
            [n for n, _ in m.named_modules(remove_duplicate=False)],
            [type(c).__name__ for c in m.children()],
            len(list(m.parameters())), len(list(m.buffers())), len(list(m.modules())),
            list(m.state_dict().keys()),
            list(m.state_dict(prefix="x.").keys()),
            list(m.state_dict(keep_vars=True).keys()),
        )

    ours = both(torch, names)
    assert "tied.weight" not in ours[0] and "tied.weight" in ours[1]


def test_state_dict_values_are_detached_and_share_memory(torch: Any) -> None:
    def check(L: Any) -> Any:
        m = L.nn.Linear(2, 2)
        sd, kv = m.state_dict(), m.state_dict(keep_vars=True)
        with L.no_grad():
            m.weight.fill_(3.0)
        return (sd["weight"].requires_grad, kv["weight"].requires_grad, type(kv["weight"]).__name__,
                type(sd["weight"]).__name__, float(sd["weight"][0, 0]))

    assert both(torch, check) == (False, True, "Parameter", "Tensor", 3.0)


def test_load_state_dict_round_trip_and_errors(torch: Any) -> None:
    def round_trip(L: Any) -> Any:
        L.manual_seed(1)
        a, b = nested(L), nested(L)
        result = b.load_state_dict(a.state_dict())
        same = all(bool((a.state_dict()[k] == v).all()) for k, v in b.state_dict().items())
        return repr(result), same, result.missing_keys, result.unexpected_keys

    assert both(torch, round_trip)[:2] == ("<All keys matched successfully>", True)

    def sd(L: Any) -> Any:
        return {k: v.clone() for k, v in nested(L).state_dict().items()}

    def missing_unexpected(L: Any) -> Any:
        s = sd(L)
        del s["first.fc.bias"], s["blocks.1.running"]
        s["first.nope"] = L.ones(1)
        s["blocks.7.weight"] = L.ones(1)
        s["zzz"] = L.ones(1)
        nested(L).load_state_dict(s)

    msg = same_error(torch, missing_unexpected)
    assert msg.startswith("Error(s) in loading state_dict for Outer:\n\tMissing key(s) in state_dict:")

    def non_strict(L: Any) -> Any:
        s = sd(L)
        del s["first.fc.bias"]
        s["extra"] = L.ones(1)
        r = nested(L).load_state_dict(s, strict=False)
        return r.missing_keys, r.unexpected_keys, repr(r)

    assert both(torch, non_strict)[:2] == (["first.fc.bias"], ["extra"])

    def size_mismatch(L: Any) -> Any:
        s = sd(L)
        s["tied.bias"] = L.ones(5)
        nested(L).load_state_dict(s)

    assert "size mismatch for tied.bias" in same_error(torch, size_mismatch)

    def not_a_tensor(L: Any) -> Any:
        s = sd(L)
        s["tied.bias"] = 3
        nested(L).load_state_dict(s)

    same_error(torch, not_a_tensor)
    same_error(torch, lambda L: nested(L).load_state_dict([1, 2]))

    def assign(L: Any) -> Any:
        m = L.nn.Linear(2, 2)
        new = {"weight": L.ones(2, 2), "bias": L.zeros(2)}
        m.load_state_dict(new, assign=True)
        return type(m.weight).__name__, m.weight.requires_grad, float(m.weight.detach().sum())

    assert both(torch, assign) == ("Parameter", True, 4.0)


@pytest.mark.parametrize("case", [
    "param_before_init", "module_before_init", "buffer_name_dot", "param_name_type", "param_wrong_type",
    "param_non_leaf", "assign_tensor_to_param", "assign_int_to_module", "assign_str_to_buffer",
    "add_module_not_module", "add_module_dot", "add_module_empty", "buffer_exists", "missing_attr",
    "register_buffer_bad", "param_empty_name",
])
def test_registration_errors_match_torch(torch: Any, case: str) -> None:
    def run(L: Any) -> Any:
        nn = L.nn

        class Early(nn.Module):
            def __init__(self, what: str) -> None:
                if what == "param":
                    self.p = nn.Parameter(L.ones(1))
                else:
                    self.m = nn.Identity()

        m = nn.Linear(2, 2)
        m.register_buffer("buf", L.ones(1))
        if case == "param_before_init":
            Early("param")
        elif case == "module_before_init":
            Early("module")
        elif case == "buffer_name_dot":
            m.register_buffer("a.b", L.ones(1))
        elif case == "param_name_type":
            m.register_parameter(3, None)
        elif case == "param_wrong_type":
            m.register_parameter("p", L.ones(1))
        elif case == "param_non_leaf":
            m.register_parameter("p", nn.Parameter(L.ones(1)) * 2)
        elif case == "assign_tensor_to_param":
            m.weight = L.ones(2, 2)
        elif case == "assign_int_to_module":
            s = nn.Sequential(nn.ReLU())
            s._modules["0"]
            setattr(s, "0", 5)
        elif case == "assign_str_to_buffer":
            m.buf = "x"
        elif case == "add_module_not_module":
            m.add_module("x", 3)
        elif case == "add_module_dot":
            m.add_module("x.y", nn.ReLU())
        elif case == "add_module_empty":
            m.add_module("", nn.ReLU())
        elif case == "buffer_exists":
            m.register_buffer("weight", L.ones(1))
        elif case == "missing_attr":
            return m.nothing
        elif case == "register_buffer_bad":
            m.register_buffer("b2", 3)
        elif case == "param_empty_name":
            m.register_parameter("", None)

    same_error(torch, run)


def test_setattr_moves_between_kinds_and_delattr(torch: Any) -> None:
    def run(L: Any) -> Any:
        nn = L.nn
        m = nn.Module()
        m.x = nn.Parameter(L.ones(1))
        m.x = None  # stays a (None) parameter
        m.y = nn.ReLU()
        m.y = nn.Parameter(L.ones(1))  # module -> parameter
        m.register_buffer("z", L.ones(1))
        m.z = L.zeros(2)  # buffer stays a buffer
        m.w = nn.Buffer(L.ones(3), persistent=False)
        m.plain = L.ones(1)  # a plain attribute
        out = (sorted(m._parameters), sorted(m._buffers), sorted(m._modules), sorted(m._non_persistent_buffers_set),
               list(m.state_dict()), m.x is None)
        del m.y, m.z
        return out, sorted(m._parameters), sorted(m._buffers), hasattr(m, "plain")

    both(torch, run)


def test_train_eval_zero_grad_requires_grad_apply(torch: Any) -> None:
    def run(L: Any) -> Any:
        nn = L.nn
        m = nested(L)
        m.eval()
        flags = [mod.training for mod in m.modules()]
        m.train()
        flags2 = [mod.training for mod in m.modules()]
        out = m(L.ones(2, 3)).sum()
        out.backward()
        had = [p.grad is not None for p in m.parameters()]
        m.zero_grad(set_to_none=False)
        zeros = [float(p.grad.abs().sum()) for p in m.parameters() if p.grad is not None]
        m.zero_grad()
        nones = [p.grad is None for p in m.parameters()]
        m.requires_grad_(False)
        rg = [p.requires_grad for p in m.parameters()]
        seen = []
        m.apply(lambda mod: seen.append(type(mod).__name__))
        return flags, flags2, had, zeros, nones, rg, seen, isinstance(m.eval(), nn.Module)

    both(torch, run)
    same_error(torch, lambda L: L.nn.ReLU().train("yes"))


def test_forward_hooks(torch: Any) -> None:
    def run(L: Any) -> Any:
        nn = L.nn
        m = nn.Linear(2, 2)
        log = []
        h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        h2 = m.register_forward_hook(lambda mod, args, out: out + 100)
        m.register_forward_hook(lambda mod, args, out: log.append("first"), prepend=True)
        m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(sorted(kwargs)), with_kwargs=True)
        x = L.ones(1, 2)
        with L.no_grad():
            a = m(x) - m.weight.sum(1) * 2 - m.bias
            h1.remove()
            h2.remove()
            b = m(x) - m.weight.sum(1) - m.bias
        return [round(float(v), 3) for v in a.flatten()], [round(float(v), 3) for v in b.flatten()], log

    both(torch, run)


def test_to_double_float(torch: Any) -> None:
    def run(L: Any) -> Any:
        nn = L.nn
        m = nn.Sequential(nn.Linear(2, 2), nn.Embedding(3, 2))
        m[0].register_buffer("idx", L.zeros(2, dtype=L.int64))
        m.double()
        a = [str(p.dtype) for p in m.parameters()] + [str(b.dtype) for b in m.buffers()]
        m.to(L.float32)
        b = [str(p.dtype) for p in m.parameters()] + [str(b.dtype) for b in m.buffers()]
        m.to(dtype=L.float64).float()
        return a, b, [str(p.dtype) for p in m.parameters()], type(m[0].weight).__name__

    both(torch, run)
    same_error(torch, lambda L: L.nn.Linear(2, 2).to(L.int64))


# --- Parameter --------------------------------------------------------------------------------------------------
def test_parameter_semantics(torch: Any) -> None:
    def run(L: Any) -> Any:
        nn = L.nn
        p = nn.Parameter(L.tensor([1.0, 2.0]))
        q = nn.Parameter(L.tensor([1.0]), requires_grad=False)
        d = copy.deepcopy(p)
        (p * 3).sum().backward()
        return (repr(p), repr(q), str(p), isinstance(p, L.Tensor), isinstance(p, nn.Parameter), p.requires_grad,
                p.is_leaf, type(p * 2).__name__, type(p.detach()).__name__, type(p.data).__name__,
                type(p.clone()).__name__, [float(v) for v in p.grad], type(d).__name__, d is not p,
                d.requires_grad, isinstance(p.data, nn.Parameter), repr(nn.Parameter()),
                isinstance(L.ones(1), nn.Parameter), isinstance(nn.Buffer(L.ones(1)), nn.Buffer),
                isinstance(L.ones(1), nn.Buffer), type(nn.Buffer(L.ones(1))).__name__)

    both(torch, run)


def test_parameter_is_a_leaf_for_inplace_checks(torch: Any) -> None:
    def run(L: Any) -> Any:
        p = L.nn.Parameter(L.ones(2))
        p.add_(1)

    assert "leaf Variable that requires grad" in same_error(torch, run)


# --- repr --------------------------------------------------------------------------------------------------------
def layer_zoo(L: Any) -> Any:
    nn = L.nn
    return nn.Sequential(OrderedDict([
        ("lin", nn.Linear(3, 4)), ("lin_nb", nn.Linear(3, 4, bias=False)), ("id", nn.Identity(5, x=1)),
        ("relu", nn.ReLU()), ("relu_ip", nn.ReLU(inplace=True)), ("gelu", nn.GELU()),
        ("gelu_t", nn.GELU(approximate="tanh")), ("silu", nn.SiLU()), ("tanh", nn.Tanh()), ("sig", nn.Sigmoid()),
        ("sm", nn.Softmax(dim=-1)), ("sm_none", nn.Softmax()), ("lsm", nn.LogSoftmax(1)),
        ("ln", nn.LayerNorm(4)), ("ln2", nn.LayerNorm([2, 4], eps=1e-3, elementwise_affine=False)),
        ("ln_nb", nn.LayerNorm(4, bias=False)),
        ("emb", nn.Embedding(10, 3)), ("emb_pad", nn.Embedding(10, 3, padding_idx=-1)),
        ("drop", nn.Dropout()), ("drop2", nn.Dropout(0.25, inplace=True)), ("flat", nn.Flatten()),
        ("flat2", nn.Flatten(0, 2)), ("unflat", nn.Unflatten(1, (2, 2))), ("mse", nn.MSELoss()),
        ("ce", nn.CrossEntropyLoss(label_smoothing=0.1)), ("nll", nn.NLLLoss(reduction="sum")),
        ("l1", nn.L1Loss()), ("sl1", nn.SmoothL1Loss(beta=0.5)),
        ("lrelu", nn.LeakyReLU(0.2, inplace=True)), ("elu", nn.ELU(alpha=0.5)), ("softplus", nn.Softplus(2.0)),
        ("hardtanh", nn.Hardtanh(-2.0, 2.0)), ("relu6", nn.ReLU6()), ("logsig", nn.LogSigmoid()),
        ("mish", nn.Mish()), ("hswish", nn.Hardswish()),
        ("list", nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Linear(2, 2), nn.Tanh(), nn.Tanh(), nn.Tanh()])),
        ("empty_list", nn.ModuleList()), ("dict", nn.ModuleDict({"x": nn.ReLU()})),
        ("inner", nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))),
    ]))


def test_repr_strings_match_torch(torch: Any) -> None:
    both(torch, lambda L: repr(layer_zoo(L)))
    both(torch, lambda L: repr(nested(L)))
    both(torch, lambda L: [n for n, _ in layer_zoo(L).named_parameters()])
    both(torch, lambda L: list(layer_zoo(L).state_dict()))


# --- containers --------------------------------------------------------------------------------------------------
def test_sequential_indexing_slicing_and_mutation(torch: Any) -> None:
    def run(L: Any) -> Any:
        nn = L.nn
        s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        out = [len(s), type(s[-1]).__name__, repr(s[1:]), type(s[1:]).__name__, [type(m).__name__ for m in s]]
        s.append(nn.Tanh())
        s.insert(1, nn.Identity())
        del s[0]
        out += [list(s._modules), repr(s)]
        s[0] = nn.Sigmoid()
        s.extend([nn.ReLU()])
        out += [repr(s), repr(s + nn.Sequential(nn.Tanh())), type(s.pop(0)).__name__, len(s)]
        od = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
        out += [list(od._modules), repr(od[0:1])]
        return out

    both(torch, run)
    same_error(torch, lambda L: L.nn.Sequential(L.nn.ReLU())[3])
    same_error(torch, lambda L: L.nn.Sequential(L.nn.ReLU()) + 1)


def test_module_list_and_dict(torch: Any) -> None:
    def run(L: Any) -> Any:
        nn = L.nn
        ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
        ml.append(nn.Linear(1, 1))
        ml += [nn.Identity()]
        ml.insert(0, nn.Sigmoid())
        out = [len(ml), [type(m).__name__ for m in ml], list(ml._modules), type(ml[-1]).__name__,
               repr(ml[1:3])]
        del ml[1]
        ml[0] = nn.SiLU()
        out += [list(ml._modules), repr(ml), type(ml.pop(1)).__name__, [n for n, _ in ml.named_parameters()]]
        md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(1, 2)})
        md["c"] = nn.Tanh()
        md.update([("d", nn.Identity())])
        out += [list(md.keys()), [type(v).__name__ for v in md.values()], "a" in md, len(md), list(md),
                type(md.pop("b")).__name__, [n for n, _ in md.named_parameters()], repr(md)]
        return out

    both(torch, run)
    same_error(torch, lambda L: L.nn.ModuleList([L.nn.ReLU()])[2])
    same_error(torch, lambda L: L.nn.ModuleList().extend(3))
    same_error(torch, lambda L: L.nn.ModuleDict().update(3))
    same_error(torch, lambda L: L.nn.ModuleDict().update([("a", L.nn.ReLU(), 1)]))
    same_error(torch, lambda L: L.nn.ModuleList([L.nn.ReLU()])(L.ones(1)))


# --- layers: forward values with torch's weights ------------------------------------------------------------------
def _run_layer(torch: Any, make: Callable[[Any], Any], make_inputs: Callable[[Any], list],
               backward: bool = True) -> None:
    torch.manual_seed(0)
    m_t, m_o = make(torch), make(D)
    if list(m_t.state_dict()):
        copy_weights(m_t, m_o)
    a_t, a_o = make_inputs(torch), make_inputs(D)
    out_t, out_o = m_t(*a_t), m_o(*a_o)
    C.assert_close(C.to_np(out_t), C.to_np(out_o))
    assert out_o.dtype.__repr__() == repr(out_t.dtype)
    if backward and out_t.requires_grad:
        out_t.sum().backward()
        out_o.sum().backward()
        C.assert_close([p.grad.numpy() for p in m_t.parameters()], [p.grad.numpy() for p in m_o.parameters()])


def _x(*shape: int, seed: int = 0) -> Callable[[Any], list]:
    arr = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return lambda L: [L.tensor(arr)]


LAYERS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], list]]] = {
    "linear": (lambda L: L.nn.Linear(4, 3), _x(2, 5, 4)),
    "linear_nobias": (lambda L: L.nn.Linear(4, 3, bias=False), _x(2, 4)),
    "identity": (lambda L: L.nn.Identity(), _x(2, 4)),
    "relu": (lambda L: L.nn.ReLU(), _x(2, 4)),
    "gelu": (lambda L: L.nn.GELU(), _x(2, 4)),
    "gelu_tanh": (lambda L: L.nn.GELU("tanh"), _x(2, 4)),
    "silu": (lambda L: L.nn.SiLU(), _x(2, 4)),
    "tanh": (lambda L: L.nn.Tanh(), _x(2, 4)),
    "sigmoid": (lambda L: L.nn.Sigmoid(), _x(2, 4)),
    "softmax": (lambda L: L.nn.Softmax(dim=1), _x(2, 4)),
    "log_softmax": (lambda L: L.nn.LogSoftmax(dim=-1), _x(2, 4)),
    "leaky_relu": (lambda L: L.nn.LeakyReLU(0.1), _x(2, 4)),
    "elu": (lambda L: L.nn.ELU(0.7), _x(2, 4)),
    "softplus": (lambda L: L.nn.Softplus(2.0, 5.0), _x(2, 4)),
    "hardtanh": (lambda L: L.nn.Hardtanh(-0.5, 0.5), _x(2, 4)),
    "relu6": (lambda L: L.nn.ReLU6(), _x(2, 4)),
    "logsigmoid": (lambda L: L.nn.LogSigmoid(), _x(2, 4)),
    "mish": (lambda L: L.nn.Mish(), _x(2, 4)),
    "hardswish": (lambda L: L.nn.Hardswish(), _x(2, 4)),
    "layer_norm": (lambda L: L.nn.LayerNorm(4), _x(3, 4)),
    "layer_norm_2d": (lambda L: L.nn.LayerNorm((2, 4), eps=1e-3, bias=False), _x(3, 2, 4)),
    "layer_norm_plain": (lambda L: L.nn.LayerNorm(4, elementwise_affine=False), _x(3, 4)),
    "embedding": (lambda L: L.nn.Embedding(6, 3, padding_idx=2), lambda L: [L.tensor([[0, 2, 5], [1, 2, 2]])]),
    "dropout_eval": (lambda L: L.nn.Dropout(0.3).eval(), _x(2, 4)),
    "flatten": (lambda L: L.nn.Flatten(), _x(2, 3, 4)),
    "unflatten": (lambda L: L.nn.Unflatten(1, (2, 2)), _x(3, 4)),
    "sequential": (lambda L: L.nn.Sequential(L.nn.Linear(4, 8), L.nn.GELU(), L.nn.LayerNorm(8),
                                             L.nn.Linear(8, 2)), _x(5, 4)),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_forward_and_grads_match_torch(torch: Any, name: str) -> None:
    make, make_inputs = LAYERS[name]
    _run_layer(torch, make, make_inputs)


def _pred_target(L: Any) -> list:
    rng = np.random.default_rng(3)
    return [L.tensor(rng.standard_normal((4, 5)).astype(np.float32)), L.tensor(rng.integers(0, 5, (4,)))]


def _pred_pred(L: Any) -> list:
    rng = np.random.default_rng(4)
    return [L.tensor(rng.standard_normal((4, 5)).astype(np.float32)),
            L.tensor(rng.standard_normal((4, 5)).astype(np.float32))]


LOSSES: dict[str, tuple[Callable[[Any], Any], Callable[[Any], list]]] = {
    "mse": (lambda L: L.nn.MSELoss(), _pred_pred),
    "mse_sum": (lambda L: L.nn.MSELoss(reduction="sum"), _pred_pred),
    "mse_none": (lambda L: L.nn.MSELoss(reduction="none"), _pred_pred),
    "l1": (lambda L: L.nn.L1Loss(), _pred_pred),
    "smooth_l1": (lambda L: L.nn.SmoothL1Loss(beta=0.5), _pred_pred),
    "ce": (lambda L: L.nn.CrossEntropyLoss(), _pred_target),
    "ce_smooth": (lambda L: L.nn.CrossEntropyLoss(label_smoothing=0.2, reduction="sum"), _pred_target),
    "ce_weight": (lambda L: L.nn.CrossEntropyLoss(weight=L.tensor([1.0, 2.0, 0.5, 1.0, 3.0]), ignore_index=1),
                  _pred_target),
    "nll": (lambda L: L.nn.NLLLoss(), _pred_target),
    "nll_none": (lambda L: L.nn.NLLLoss(reduction="none"), _pred_target),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_modules_match_torch(torch: Any, name: str) -> None:
    make, make_inputs = LOSSES[name]
    _run_layer(torch, make, make_inputs)
    both(torch, lambda L: (repr(make(L)), list(make(L).state_dict()), [n for n, _ in make(L).named_buffers()]))


def test_loss_legacy_reduction_arguments(torch: Any) -> None:
    def run(L: Any) -> Any:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = L.nn.MSELoss(size_average=False).reduction
        return r, [str(x.message) for x in w]

    assert both(torch, run)[0] == "sum"


def test_dropout_train_and_errors(torch: Any) -> None:
    x = D.ones(2000)
    d = D.nn.Dropout(0.25)
    y = d(x)
    kept = y != 0
    frac = float(kept.float().mean())
    assert 0.65 < frac < 0.85
    np.testing.assert_allclose(y.numpy()[kept.numpy()], 1 / 0.75, rtol=1e-6)
    d.eval()
    assert bool((d(x) == x).all())
    same_error(torch, lambda L: L.nn.Dropout(1.5))
    same_error(torch, lambda L: L.nn.Embedding(3, 2, padding_idx=3))
    same_error(torch, lambda L: L.nn.Hardtanh(1.0, 0.0))


# --- default initialisation and nn.init ---------------------------------------------------------------------------
def test_default_initialisation_follows_torch_bounds() -> None:
    D.manual_seed(0)
    lin = D.nn.Linear(50, 400)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    bound = 1 / math.sqrt(50)  # kaiming_uniform_(a=sqrt(5)) on fan_in 50
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.8 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01
    emb = D.nn.Embedding(500, 40, padding_idx=3).weight.detach().numpy()
    assert abs(emb.std() - 1) < 0.05 and abs(emb.mean()) < 0.05 and not emb[3].any()
    ln = D.nn.LayerNorm(5)
    assert ln.weight.detach().numpy().tolist() == [1.0] * 5 and ln.bias.detach().numpy().tolist() == [0.0] * 5
    D.manual_seed(7)
    a = D.nn.Linear(3, 3).weight.detach().numpy().copy()
    D.manual_seed(7)
    assert np.array_equal(a, D.nn.Linear(3, 3).weight.detach().numpy())  # reproducible from the seed
    assert lin.weight.grad_fn is None and lin.weight.requires_grad  # initialised under no_grad


def test_init_functions(torch: Any) -> None:
    def gains(L: Any) -> Any:
        init = L.nn.init
        return ([init.calculate_gain(n) for n in ("linear", "conv2d", "sigmoid", "tanh", "relu", "selu")],
                init.calculate_gain("leaky_relu"), init.calculate_gain("leaky_relu", 0.2),
                init._calculate_fan_in_and_fan_out(L.empty(4, 3, 2, 5)))

    both(torch, gains)
    same_error(torch, lambda L: L.nn.init.calculate_gain("foo"))
    same_error(torch, lambda L: L.nn.init.calculate_gain("leaky_relu", True))
    same_error(torch, lambda L: L.nn.init._calculate_fan_in_and_fan_out(L.empty(3)))
    same_error(torch, lambda L: L.nn.init.kaiming_uniform_(L.empty(3, 3), mode="fan_avg"))

    def deterministic(L: Any) -> Any:
        init = L.nn.init
        t = L.empty(2, 3)
        return ([float(v) for v in init.constant_(t, 0.5).flatten()], [float(v) for v in init.ones_(t).flatten()],
                [float(v) for v in init.zeros_(t).flatten()], [float(v) for v in init.eye_(L.empty(2, 3)).flatten()])

    both(torch, deterministic)
    D.manual_seed(0)
    init = D.nn.init
    big = D.empty(300, 200)
    for fn, expected_std in (
        (lambda t: init.xavier_uniform_(t, gain=2.0), 2.0 * math.sqrt(2 / 500)),
        (lambda t: init.xavier_normal_(t), math.sqrt(2 / 500)),
        (lambda t: init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(2) / math.sqrt(200)),
        (lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"), math.sqrt(2) / math.sqrt(300)),
        (lambda t: init.uniform_(t, -2, 2), 4 / math.sqrt(12)),
        (lambda t: init.normal_(t, 1.0, 0.5), 0.5),
    ):
        assert fn(big) is big
        assert abs(big.numpy().std() - expected_std) / expected_std < 0.03
    p = D.nn.Parameter(D.empty(3, 3))
    init.normal_(p)
    assert p.grad_fn is None and p.is_leaf  # no autograd history from the in-place fill
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(D.empty(0, 3))
