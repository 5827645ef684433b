"""Zero tensors (dispatcher/zero_tensor.py) against torch 2.13: ``_efficientzerotensor`` / ``_is_zerotensor``, the
ZeroTensor fallback (materialized inputs, immutability), the ZeroTensor kernels of add / sub / mul / div / view /
as_strided, the fallthrough ops, the dispatch tables' ZeroTensor lines, make_fx graphs of programs using zero
tensors.

Counterpart of torch's ZeroTensor tests (test_python_dispatch.py's library overrides are in
tests/test_python_dispatch_suite.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import dispatcher
from dispatcher.ops.native_functions import NATIVE_FUNCTIONS
from dispatcher.zero_tensor import ZERO_TENSOR_FALLTHROUGH, ZERO_TENSOR_KERNELS


def _describe(L: Any, r: Any) -> Any:
    if isinstance(r, L.Tensor):
        values = repr(r.clone().tolist()) if r.device.type != "meta" else None  # repr: nan == nan
        return ("tensor", str(r.dtype), tuple(r.shape), r.stride(), r._is_zerotensor(), values)
    return r


def _run(L: Any, f: Any) -> Any:
    try:
        return _describe(L, f())
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return ("error", type(e).__name__, str(e))


def _programs(L: Any) -> dict[str, Any]:
    Z = L._efficientzerotensor
    z = Z((2, 3))
    x = L.arange(6.0).reshape(2, 3)
    xi = L.arange(3)
    return {
        # the ZeroTensor kernels
        "add_zx": lambda: L.add(z, x),
        "add_xz_alpha": lambda: L.add(x, z, alpha=2),
        "add_zz": lambda: L.add(z, Z((3,), dtype=L.float64)),
        "add_z_int_alpha": lambda: L.add(z, xi, alpha=3),
        "add_zint_x": lambda: L.add(Z((3,), dtype=L.int64), x),
        "add_broadcast": lambda: L.add(L.ones(3), z),
        "add_number": lambda: z + 1,
        "add_mismatch": lambda: L.add(Z(3), L.ones(2)),
        "sub_zx": lambda: L.sub(z, x),
        "sub_xz": lambda: L.sub(x, z),
        "sub_zz": lambda: L.sub(z, z, alpha=3),
        "mul_zx": lambda: L.mul(z, xi),
        "mul_broadcast": lambda: L.mul(L.ones(4, 1, 1), z),
        "mul_number": lambda: L.mul(z, 2.5),
        "mul_mismatch": lambda: L.mul(z, L.ones(4)),
        "div_zx": lambda: L.div(z, x),
        "div_xz": lambda: L.div(L.tensor([-1.0, 0.0, 1.0]), Z(3)),
        "div_zz": lambda: L.div(z, z),
        "div_int": lambda: L.div(Z((2,), dtype=L.int64), L.tensor([1, 2])),
        "view": lambda: z.view(3, 2),
        "as_strided": lambda: z.as_strided((2,), (1,)),
        # fallthrough ops: views keep the key, clone / *_like / copy_ do not
        "t": lambda: z.t(),
        "unsqueeze": lambda: z.unsqueeze(0),
        "reshape": lambda: z.reshape(6),
        "select": lambda: z[0],
        "detach": lambda: z.detach(),
        "t_": lambda: Z((2, 3)).t_(),
        "clone": lambda: z.clone(),
        "zeros_like": lambda: L.zeros_like(z),
        "copy_from_zero": lambda: x.clone().copy_(z),
        "dot": lambda: L.dot(Z(3), L.ones(3)),
        "dot_mismatch": lambda: L.dot(Z(2), L.ones(3)),
        "vdot": lambda: L.vdot(Z(3, dtype=L.complex64), L.ones(3, dtype=L.complex64)),
        "real": lambda: Z((2,), dtype=L.complex64).real,
        "conj": lambda: Z((2,), dtype=L.complex64).conj(),
        "mul_scalar_overload": lambda: L.ops.aten.mul.Scalar(z, 3),
        # the fallback: materialized inputs, plain results; written zero tensors refused
        "sin": lambda: z.sin(),
        "sum": lambda: z.sum(),
        "mm": lambda: L.mm(z, x.t()),
        "cat": lambda: L.cat([z, x]),
        "eq": lambda: z == 0,
        "add_": lambda: Z(2).add_(1),
        "fill_": lambda: Z(2).fill_(1),
        "zero_": lambda: Z(2).zero_(),
        "copy_into_zero": lambda: Z(2).copy_(L.ones(2)),
        "mul_x_by_z_": lambda: x.clone().mul_(z),
        "add_x_by_z_": lambda: x.clone().add_(z),
        # the factory and the query
        "int_dtype": lambda: Z((2,), dtype=L.int32),
        "scalar": lambda: Z(()),
        "requires_grad": lambda: Z(2, requires_grad=True).requires_grad,
        "negative_size": lambda: Z((-1,)),
        "meta": lambda: Z((2,), device="meta"),
        "is_zerotensor_plain": lambda: x._is_zerotensor(),
        "is_zerotensor_op": lambda: L.ops.aten._is_zerotensor.default(z),
        "is_zerotensor_fn": lambda: L._is_zerotensor(z),
        "repr": lambda: repr(z) + repr(Z((2,), dtype=L.int64)),
        "item": lambda: Z(()).item(),
        "tolist": lambda: z.tolist(),
        "numpy": lambda: z.numpy(),
        "numpy_force": lambda: z.numpy(force=True).tolist(),
        "keys": lambda: [str(L._C._dispatch_keys(t)) for t in (z, z.t(), z.clone(), L.mul(z, x))],
    }


def test_zero_tensor_behaviour_matches_torch(torch: Any) -> None:
    theirs = {name: _run(torch, f) for name, f in _programs(torch).items()}
    ours = {name: _run(dispatcher, f) for name, f in _programs(dispatcher).items()}
    assert ours == theirs


def _zero_line(table: str) -> str:
    line = next((ln for ln in table.splitlines() if ln.startswith("ZeroTensor:")), "")
    if "fallthrough" in line:
        return "fallthrough"
    return "kernel" if "[kernel]" in line else ("fallback" if "fallback" in line else line)


def test_zero_tensor_table_lines_match_torch(torch: Any) -> None:
    """The ZeroTensor line of every listed op's dispatch table: fallthrough / kernel / fallback as torch's."""
    listed = sorted({op.name for op in NATIVE_FUNCTIONS})
    mismatched = []
    for name in listed:
        theirs = _zero_line(torch._C._dispatch_dump_table("aten::" + name))
        ours = _zero_line(dispatcher._C._dispatch_dump_table("aten::" + name))
        if ours != theirs:
            mismatched.append((name, ours, theirs))
    assert mismatched == []
    assert set(ZERO_TENSOR_KERNELS) <= set(listed)
    assert sum(1 for name in ZERO_TENSOR_FALLTHROUGH if name in listed) > 40


def test_efficientzerotensor_tables_match_torch(torch: Any) -> None:
    keep = ("CPU:", "Meta:", "BackendSelect:", "AutogradCPU:", "CompositeImplicitAutograd", "ZeroTensor:")
    for name in ("_efficientzerotensor", "_is_zerotensor"):
        def lines(L: Any, name: str = name) -> list[str]:
            table = L._C._dispatch_dump_table("aten::" + name)
            return [re.sub(r"registered at \S+", "registered", ln).split("[")[-1] + ln.split(":")[0]
                    for ln in table.splitlines() if ln.startswith(keep)]
        assert lines(dispatcher) == lines(torch), name
        assert str(getattr(dispatcher.ops.aten, name).default._schema) == \
            str(getattr(torch.ops.aten, name).default._schema)


def _graph_program(L: Any) -> Any:
    def f(x):  # noqa: ANN001, ANN202 - no annotations: they would show in the graph code
        z = L._efficientzerotensor(x.shape)
        return L.mul(x, z), z.sin(), L.add(z, x), z.t(), L.div(z, x + 1)
    return f


def _code(gm: Any) -> list[str]:
    """The graph's lines; torch's Meta kernels of mul / add / div are Python references recording dead
    ``prims.*`` nodes, which ours (kernel-level metas) do not: those lines, and the dead-value tails, are dropped."""
    out = []
    for ln in gm.code.strip().splitlines():
        if "torch.ops.prims." in ln:
            continue
        ln = re.sub(r";  [\w, =]*None$", "", ln).strip()
        out.append(re.sub(r"\b([a-z_]+?)_\d+\b", r"\1", ln))  # numbering shifted by the dropped nodes
    return out


@pytest.mark.parametrize("mode", ["real", "fake", "pre_dispatch", "core_aten"])
def test_make_fx_of_zero_tensors_matches_torch(torch: Any, mode: str) -> None:
    from torch._decomp import core_aten_decompositions as torch_core
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from tracer import make_fx
    from tracer.decompositions import core_aten_decompositions as our_core

    def kwargs(core: Any) -> dict:
        if mode == "pre_dispatch":
            return {"pre_dispatch": True}
        if mode == "core_aten":
            return {"decomposition_table": core()}
        return {"tracing_mode": mode}

    theirs = torch_make_fx(_graph_program(torch), **kwargs(torch_core))(torch.ones(2, 3))
    ours = make_fx(_graph_program(dispatcher), **kwargs(our_core))(dispatcher.ones(2, 3))
    assert _code(ours) == _code(theirs)
    x = dispatcher.arange(6.0).reshape(2, 3)
    replay = ours(x)
    eager = _graph_program(dispatcher)(x)
    assert [r._is_zerotensor() for r in replay] == [r._is_zerotensor() for r in eager] == \
        [r._is_zerotensor() for r in _graph_program(torch)(torch.arange(6.0).reshape(2, 3))]
    assert [r.clone().tolist() for r in replay] == [r.clone().tolist() for r in eager]


def test_sgn_gradient_is_a_zero_tensor_as_torch(torch: Any) -> None:
    """sgn's backward returns ``_efficientzerotensor`` (derivatives.yaml ``sgn_backward``): the accumulated
    ``.grad`` is a zero tensor, until a real gradient is added to it."""
    def run(L: Any) -> list:
        out = []
        x = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
        x.sgn().sum().backward()
        out.append((x.grad._is_zerotensor(), repr(x.grad)))
        x = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
        (x.sgn() + x).sum().backward()
        out.append((x.grad._is_zerotensor(), x.grad.tolist()))
        x = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out.append(L.autograd.grad(x.sgn().sum(), x)[0]._is_zerotensor())
        return out

    assert run(dispatcher) == run(torch)
