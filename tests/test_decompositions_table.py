"""tracer.decompositions against torch._decomp: coverage of core_aten_decompositions(), op sequences, values, API.

For every op of our listing that torch 2.13's ``core_aten_decompositions()`` holds, each sample call of
tests/op_samples.py is traced by both libraries with ``make_fx(decomposition_table=core table)``: the
``call_function`` target sequences and the generated code (so the arguments too) must be identical, and
our traced graph must compute what the op computes eagerly.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from dispatcher.op_overload import namespace
from dispatcher.ops.native_functions import NATIVE_FUNCTIONS
from tests import op_samples as S
from tracer import make_fx
from tracer.decompositions import (
    CORE_ATEN_DECOMPOSITION_OPS,
    MISSING_CORE_DECOMPOSITIONS,
    core_aten_decompositions,
    get_decompositions,
    is_preservable_cia_op,
    register_decomposition,
)
from tracer.decompositions.registry import global_decomposition_table

aten = namespace("aten")

_LISTED = {d.name if "." in d.name else d.name + ".default": d for d in NATIVE_FUNCTIONS}


def _key(name: str) -> str:
    """``aten::add.Tensor`` / ``aten::t`` -> ``add.Tensor`` / ``t.default``."""
    n = name.split("::", 1)[1]
    return n if "." in n else n + ".default"


def _torch_core(torch: Any) -> dict[str, Any]:
    from torch._decomp import core_aten_decompositions as torch_core

    return {_key(op.name()): op for op in torch_core() if op.name().startswith("aten::")}


def test_core_table_covers_the_intersection_with_torch(torch: Any) -> None:
    theirs = set(_torch_core(torch)) & set(_LISTED)
    ours = {_key(op.name()) for op in core_aten_decompositions()}
    missing = {_key(n) for n in MISSING_CORE_DECOMPOSITIONS}
    # every op torch decomposes is decomposed here, or listed as missing with the op it needs
    assert theirs - ours == missing
    assert ours <= theirs, f"decomposed here but not in torch's core table: {sorted(ours - theirs)}"
    for name, needed in MISSING_CORE_DECOMPOSITIONS.items():
        if needed.startswith("aten::"):  # (prims ops are never listed)
            assert _key(needed) not in _LISTED, f"{needed} is now listed: write the decomposition of {name}"


def test_core_table_is_fresh_and_only_overloads() -> None:
    a, b = core_aten_decompositions(), core_aten_decompositions()
    assert a == b and a is not b
    a.clear()
    assert core_aten_decompositions() == b
    assert set(CORE_ATEN_DECOMPOSITION_OPS) <= set(b)
    assert all(callable(fn) for fn in b.values())
    # functional CIA ops are in it (their own CIA kernel), aliasing / mutating ones are not
    assert aten.linear.default in b and aten.softmax.int in b
    assert aten.reshape.default not in b and aten.dropout.default not in b and aten.contiguous.default not in b
    assert is_preservable_cia_op(aten.linear.default) and not is_preservable_cia_op(aten.reshape.default)
    assert not is_preservable_cia_op(aten.addmm.default)


def test_get_decompositions_expands_packets() -> None:
    table = get_decompositions([aten.squeeze, aten.t.default, aten.add])
    # squeeze.dims has no decomposition: the packet stands only for overloads in the table
    assert set(table) == {aten.squeeze.default, aten.squeeze.dim, aten.t.default}
    with pytest.raises(TypeError, match="OpOverload or an OpOverloadPacket"):
        get_decompositions(["aten::t"])


def test_register_decomposition_packet_and_duplicates() -> None:
    registry: dict = {}

    @register_decomposition(aten.eye, registry=registry)
    def my_eye(*args: Any, **kwargs: Any) -> Any:
        return None

    assert registry == {aten.eye.default: my_eye, aten.eye.m: my_eye}
    with pytest.raises(RuntimeError, match="duplicate registrations for aten.eye.m"):
        register_decomposition(aten.eye.m, registry=registry)(my_eye)
    with pytest.raises(TypeError, match="got str"):
        register_decomposition("aten.eye", registry=registry)
    assert aten.eye.default in global_decomposition_table  # the global table was left alone
    assert global_decomposition_table[aten.eye.default] is not my_eye


def test_addmm_softmax_entries_in_a_user_table(torch: Any) -> None:
    """A user table built with register_decomposition works like torch's (SEMANTICS 6.5)."""
    from torch._decomp import get_decompositions as torch_get
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    table: dict = {}

    @register_decomposition(aten.addmm, registry=table)
    def addmm(bias: Any, m1: Any, m2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        out = aten.mm.default(m1, m2)
        return bias * beta + out * alpha

    x, w, b = (np.random.default_rng(0).standard_normal(s).astype(np.float32) for s in ((2, 3), (4, 3), (4,)))
    gm = make_fx(lambda x, w, b: D.nn.functional.linear(x, w, b), decomposition_table=table)(
        D.tensor(x), D.tensor(w), D.tensor(b))
    gm_t = torch_make_fx(lambda x, w, b: torch.nn.functional.linear(x, w, b),
                         decomposition_table=torch_get([torch.ops.aten.addmm]))(
        torch.tensor(x), torch.tensor(w), torch.tensor(b))
    assert _targets(gm) == _targets(gm_t) == ["aten.t.default", "aten.mm.default", "aten.mul.Tensor",
                                              "aten.mul.Tensor", "aten.add.Tensor"]


# --- every op of the intersection, every sample: same op sequence as torch, same values as eager ---------------------------


def _targets(gm: Any) -> list[str]:
    return [("getitem" if n.target is operator.getitem else str(n.target)) for n in gm.graph.nodes
            if n.op == "call_function"]


def _split(args: tuple, kwargs: dict, is_tensor: Any) -> tuple[list, Any]:
    """Tensors of (args, kwargs) become graph inputs; the rest is baked into the traced function."""
    flat: list = []

    def sub(a: Any) -> Any:
        if is_tensor(a):
            flat.append(a)
            return _Slot(len(flat) - 1)
        if isinstance(a, (list, tuple)):
            return type(a)(sub(e) for e in a)
        return a

    spec = (sub(args), {k: sub(v) for k, v in kwargs.items()})
    return flat, spec


class _Slot:
    def __init__(self, i: int) -> None:
        self.i = i


def _fill(a: Any, ts: tuple) -> Any:
    if isinstance(a, _Slot):
        return ts[a.i]
    if isinstance(a, (list, tuple)):
        return type(a)(_fill(e, ts) for e in a)
    return a


def _caller(op: Any, spec: Any) -> Any:
    args, kwargs = spec
    return lambda *ts: op(*_fill(args, ts), **{k: _fill(v, ts) for k, v in kwargs.items()})


#: op -> why its traced graph cannot equal torch's
_KNOWN: dict[str, str] = {
    # attention, einsum, products
    "_scaled_dot_product_flash_attention_for_cpu.default": "torch's decomposition returns the attention weights "
    "as the second output, where the op returns the logsumexp (the graph matches torch's; its values differ)",
}

_CASES = [(name, i) for name in sorted(_key(op.name()) for op in core_aten_decompositions())
          for i in range(len(S.OPS[_LISTED[name].name].samples))]


@pytest.mark.parametrize(("name", "i"), [
    pytest.param(n, i, marks=pytest.mark.xfail(strict=True, reason=_KNOWN[n]) if n in _KNOWN else ())
    for n, i in _CASES])
def test_same_ops_as_torch_and_values(torch: Any, name: str, i: int) -> None:
    from torch._decomp import core_aten_decompositions as torch_core
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    sample = S.OPS[_LISTED[name].name].samples[i]
    packet, overload = name.split(".")
    op_t = getattr(getattr(torch.ops.aten, packet), overload)
    op_o = getattr(getattr(aten, packet), overload)
    args_t, kwargs_t = S.build(sample, "torch")
    flat_t, spec_t = _split(args_t, kwargs_t, lambda a: isinstance(a, torch.Tensor))
    try:
        gm_t = torch_make_fx(_caller(op_t, spec_t), decomposition_table=torch_core())(*flat_t)
    except RuntimeError as e:
        theirs: Exception | None = e
    else:
        theirs = None
    args_o, kwargs_o = S.build(sample, "cpu")
    flat_o, spec_o = _split(args_o, kwargs_o, lambda a: isinstance(a, D.Tensor))
    if theirs is not None:  # e.g. is_nonzero: a data-dependent value, refused by both
        with pytest.raises(RuntimeError) as ours:
            make_fx(_caller(op_o, spec_o), decomposition_table=core_aten_decompositions())(*flat_o)
        assert str(ours.value).split(" - ")[0] == str(theirs).split(" - ")[0]
        return
    gm_o = make_fx(_caller(op_o, spec_o), decomposition_table=core_aten_decompositions())(*flat_o)
    assert _targets(gm_o) == _targets(gm_t)
    # the same arguments too: the generated code is torch's, line for line
    assert gm_o.code.strip() == gm_t.code.strip()
    gm_o.graph.lint()
    # _pad_packed_sequence writes its lengths through a data pointer, which no graph records (torch's returns an
    # ``empty`` too)
    if S.OPS[_LISTED[name].name].random or name in ("new_empty.default", "_pad_packed_sequence.default"):
        return
    # the graph computes what the op computes (fresh inputs for the graph, the same values)
    eager_args, eager_kwargs = S.build(sample, "cpu")
    expected = op_o(*eager_args, **eager_kwargs)
    replay_flat, _ = _split(*S.build(sample, "cpu"), lambda a: isinstance(a, D.Tensor))
    got = gm_o(*replay_flat)
    _assert_same(got, expected)


def _assert_same(got: Any, expected: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _assert_same(g, e)
        return
    if expected is None:
        assert got is None
        return
    if not isinstance(expected, D.Tensor):  # sym_size.int, sym_is_contiguous, ...: a Python number or bool
        assert type(got) is type(expected) and got == expected
        return
    assert got.dtype == expected.dtype and tuple(got.shape) == tuple(expected.shape)
    g, e = got.numpy(force=True), expected.numpy(force=True)  # (force: a conj view's values)
    if not np.iscomplexobj(e):
        g, e = g.astype(np.float64), e.astype(np.float64)
    np.testing.assert_allclose(g, e, rtol=2e-3 if expected.dtype is D.float16 else 1e-5, atol=1e-5)
