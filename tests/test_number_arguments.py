"""Number arguments of the torch-level functions and Tensor methods take 0-dim tensors, as torch's argument parser
does (dispatcher/arg_parser.py).

A ``Scalar`` / ``float`` parameter takes a 0-dim tensor that does not require grad, an ``int`` one a 0-dim integral
tensor, read with ``item()`` (a dispatched op: folded in a trace when the tensor is a constant, a data-dependent
error when it is traced). Anything else is the binding's TypeError; an operator called directly
(``torch.ops.aten.full.default``) keeps its schema's error.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tracer import make_fx

#: expressions over T (torch / dispatcher) and x (a 2x3 float tensor)
CALLS = [
    "T.full((2,), T.tensor(1.5))",
    "T.full((2,), T.tensor(3))",
    "T.add(x, x, alpha=T.tensor(2.))",
    "x.add(x, alpha=T.tensor(2))",
    "x.sub(x, alpha=T.tensor(2))",
    "x.add_(T.tensor(1.), alpha=T.tensor(2.))",
    "T.clamp(x, min=T.tensor(0.))",
    "T.clamp(x, T.tensor(-0.5), 0.5)",
    "x.clamp(0.1, T.tensor(0.5))",
    "x.clamp_(T.tensor(-0.5), 1.0)",
    "T.nn.functional.leaky_relu(x, T.tensor(0.2))",
    "T.nn.functional.hardtanh(x, T.tensor(-0.5), 0.5)",
    "T.nn.functional.elu(x, T.tensor(1.5))",
    "T.nn.functional.threshold(x, T.tensor(0.1), 2.0)",
    "x.new_full((2,), T.tensor(3.))",
    "T.full_like(x, T.tensor(3.))",
    "x.addcmul(x, x, value=T.tensor(2.))",
    "x.addmm(x.t(), x, beta=T.tensor(2.), alpha=T.tensor(0.5))",
    "T.arange(T.tensor(3))",
    "T.cumsum(x, T.tensor(1))",
    "x.diagonal(T.tensor(1))",
    "T.diag_embed(x, T.tensor(1))",
    # not numbers: the binding's TypeError
    "T.full((2,), T.tensor([1.5]))",
    "T.add(x, x, alpha=T.tensor(2., requires_grad=True))",
    "x.add(x, alpha=T.tensor([2.]))",
    "T.cumsum(x, T.tensor(1.))",
    "T.cumsum(x, T.tensor(True))",
    "x.diagonal(T.tensor([1]))",
    # operators called directly keep their schema
    "T.ops.aten.add.Tensor(x, x, alpha=T.tensor(2.))",
    "T.ops.aten.full.default([2], T.tensor(1.5))",
]


def _outcome(T: Any, expr: str) -> Any:
    x = T.tensor([[1.0, -2.0, 3.0], [0.5, 0.25, -1.0]])
    try:
        v = eval(expr)  # noqa: S307 - test table
    except (TypeError, RuntimeError) as e:
        # (ours raises SchemaArgumentError, a TypeError, where torch's operator call raises RuntimeError)
        kind = "schema" if "Expected a value of type" in str(e) else type(e).__name__
        # (the argument's position is not told by the public functions that check their ints themselves)
        message = re.sub(r" \(position \d+\)", "", str(e).split("\n")[0])
        return kind, message if kind == "TypeError" else ""
    return "ok", np.asarray(v.numpy()).tolist(), str(v.dtype).removeprefix("torch."), np.asarray(x.numpy()).tolist()


@pytest.mark.parametrize("expr", CALLS)
def test_number_arguments_like_torch(torch: Any, expr: str) -> None:
    assert _outcome(D, expr) == _outcome(torch, expr)


# --- every number argument of the op table's samples, through the torch-level function and the Tensor method ---

#: op -> why the torch-level function still differs (its own checks / overload choice, before any operator)
_LEFT = {
    "movedim.int": "movedim's own int check (api/views.py's _movedim_call) takes no tensor",
    "moveaxis.int": "the same check as movedim",
    "all.dim": "all's dim handling iterates the 0-dim tensor as a list of dims",
    "any.dim": "the same as all",
    "lerp.Scalar": "lerp picks the Tensor-weight overload for any tensor (torch's parser tries Scalar first)",
    "lerp_.Scalar": "the same as lerp",
    "add.Scalar": "torch's deprecated add(input, alpha, other) signature, not modelled",
    "sub.Scalar": "torch's deprecated sub(input, alpha, other) signature, not modelled",
    "add_.Scalar": "the deprecated signature again",
    "max.dim": "max(input, tensor, keepdim) is taken as max(input, other) (torch: the int-dim overload)",
    "min.dim": "the same as max",
}


def _number_slots() -> list[tuple[str, int, Any, str]]:
    from dispatcher.ops.native_functions import NATIVE_FUNCTIONS
    from tests.op_samples import OPS

    out, seen = [], set()
    for od in NATIVE_FUNCTIONS:
        info = OPS.get(od.name)
        if info is None or info.random or od.name in _LEFT:
            continue
        base, _, overload = od.name.partition(".")
        schema = getattr(getattr(D.ops.aten, base), overload or "default")._schema
        positional = [a for a in schema.arguments if not a.kwarg_only]
        keyword = {a.name: a for a in schema.arguments if a.kwarg_only}
        for si, s in enumerate(info.samples):
            where = [(i, a, positional[i]) for i, a in enumerate(s.args) if i < len(positional)]
            where += [(k, v, keyword[k]) for k, v in s.kwargs.items() if k in keyword]
            for w, value, arg in where:
                t = arg.type.elem if type(arg.type).__name__ == "OptionalType" else arg.type
                if getattr(t, "name", None) in ("Scalar", "float", "int") and type(value) in (int, float, bool):
                    for how, exists in (("function", hasattr(D, base)), ("method", hasattr(D.Tensor, base))):
                        if exists and (od.name, w, how) not in seen:  # (the first sample of each argument)
                            seen.add((od.name, w, how))
                            out.append((od.name, si, w, how))
    return out


def _call_with_tensor_number(T: Any, target: str, name: str, index: int, where: Any, how: str) -> Any:
    from tests.op_samples import OPS, build

    args, kwargs = build(OPS[name].samples[index], target, 0)
    args = list(args)
    if isinstance(where, int):
        args[where] = T.tensor(args[where])
    else:
        kwargs[where] = T.tensor(kwargs[where])
    base = name.split(".")[0]
    if how == "function":
        fn = getattr(T, base, None)
        if fn is None:
            return "missing"
        call = lambda: fn(*args, **kwargs)  # noqa: E731
    else:
        if not args or not hasattr(args[0], base):
            return "missing"
        call = lambda: getattr(args[0], base)(*args[1:], **kwargs)  # noqa: E731
    try:
        out = call()
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__ if not isinstance(e, TypeError) else "TypeError"
    first = out[0] if isinstance(out, (tuple, list)) else out
    return np.asarray(first.detach().numpy(), dtype=np.float64) if hasattr(first, "detach") else first


def _half(name: str, index: int) -> bool:
    """Does the sample compute in float16 (rounded differently by NumPy)?"""
    from tests.op_samples import OPS, tensor_specs

    return any(t.dtype == "float16" for t in tensor_specs(OPS[name].samples[index]))


@pytest.mark.parametrize(("name", "index", "where", "how"), _number_slots())
def test_every_number_argument_takes_a_0dim_tensor(torch: Any, name: str, index: int, where: Any, how: str) -> None:
    theirs = _call_with_tensor_number(torch, "torch", name, index, where, how)
    ours = _call_with_tensor_number(D, "cpu", name, index, where, how)
    if isinstance(theirs, str) or isinstance(ours, str):
        if "missing" in (str(theirs), str(ours)):
            pytest.skip("no such torch-level function / method in one of the libraries")
        assert isinstance(ours, str) and isinstance(theirs, str) and ours == theirs, (ours, theirs)
    elif isinstance(theirs, np.ndarray):
        half = _half(name, index)
        np.testing.assert_allclose(ours, theirs, rtol=2e-3 if half else 1e-5, atol=2e-3 if half else 1e-6,
                                   equal_nan=True)
    else:
        assert ours == theirs or (isinstance(ours, float) and math.isnan(ours) and math.isnan(theirs))


# --- traced ---------------------------------------------------------------------------------------------------------

PROGRAMS = {
    "full_of_a_constant": lambda T: lambda x: T.full((2, 3), T.tensor(1.5)) + x,
    "alpha_of_a_constant": lambda T: lambda x: x.add(x, alpha=T.tensor(2.)),
    "leaky_relu_slope": lambda T: lambda x: T.nn.functional.leaky_relu(x, T.tensor(0.2)),
    "clamp_bounds": lambda T: lambda x: x.clamp(T.tensor(-0.5), 0.5),
    "cumsum_dim": lambda T: lambda x: T.cumsum(x, T.tensor(1)),
}


@pytest.mark.parametrize("config", [{}, {"pre_dispatch": True}, {"tracing_mode": "fake"}],
                         ids=["post", "pre", "fake"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_constant_numbers_are_folded_into_the_graph(torch: Any, name: str, config: dict) -> None:
    """A constant 0-dim tensor read as a number: its value is in the graph (item() folded), as in torch."""
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    arrays = C.arrays([(2, 3)], 0)
    gm_t = torch_make_fx(PROGRAMS[name](torch), **config)(*C.inputs(torch, arrays, ()))
    gm_o = make_fx(PROGRAMS[name](D), **config)(*C.inputs(D, arrays, ()))
    assert C.targets(gm_o) == C.targets(gm_t)
    assert "aten._local_scalar_dense.default" not in C.targets(gm_o)
    fresh = C.arrays([(2, 3)], 1)
    C.assert_close(C.to_np(PROGRAMS[name](D)(*C.inputs(D, fresh, ()))), C.to_np(gm_o(*C.inputs(D, fresh, ()))))


def test_a_traced_number_is_data_dependent(torch: Any) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    def prog(T: Any) -> Any:
        return lambda x, s: T.full((2,), s) + x

    for lib, trace in ((torch, torch_make_fx), (D, make_fx)):
        with pytest.raises(RuntimeError, match="trying to get value out of a tracing tensor with "
                                               "aten._local_scalar_dense.default"):
            trace(prog(lib))(lib.randn(2), lib.tensor(2.0))
