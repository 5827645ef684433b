"""Issue 18's bad-input sweep as a test: every listed aten op, its first sample mutated one argument at a time
(tests/bad_input_sweep.py), run on torch 2.13 and here.

Each op is one test over its mutated calls. A case passes when torch and ours agree: both raise (ours an instance
of torch's public class, never an internal error such as AttributeError / KeyError / ZeroDivisionError or NumPy's
own), or both return the same dtype, shape and values (NaN-aware) without a NumPy RuntimeWarning from ours.
``KNOWN`` lists the cases that still differ, each with its category and the reason; a case outside it that
differs fails, and so does a listed case that no longer differs as listed (the entry must then go).
"""

from __future__ import annotations

import sys

import pytest

sys.path.insert(0, __file__.rsplit("/", 1)[0])

from bad_input_sweep import OPS, SCHEMAS, TORCH_CRASHES, cases, run_case  # noqa: E402
from known_bad_input import KNOWN  # noqa: E402

OP_NAMES = sorted(n for n in OPS if n in SCHEMAS)


def test_every_listed_op_is_swept():
    missing = sorted(set(SCHEMAS) - set(OP_NAMES))
    assert not missing, missing
    assert all(cases(n) for n in OP_NAMES if OPS[n].samples)


def test_known_entries_name_real_cases():
    labels = {(c.op, c.label) for n in {k[0] for k in KNOWN} for c in cases(n)}
    stale = sorted(set(KNOWN) - labels)
    assert not stale, f"KNOWN entries for cases the sweep no longer makes: {stale}"
    for key, (category, reason) in KNOWN.items():
        assert category in ("leak", "wrong_class", "silent", "reject", "value", "warning"), key
        assert len(reason) > 15, key


@pytest.mark.parametrize("name", OP_NAMES)
def test_bad_inputs(torch, name):
    problems = []
    for case in cases(name):
        key = (case.op, case.label)
        if key in TORCH_CRASHES:
            continue
        out = run_case(case)
        if key in KNOWN:
            category, reason = KNOWN[key]
            if out.category != category:
                problems.append(f"{case.label}: listed as {category} ({reason}) but now {out.category} "
                                f"{out.detail}: update KNOWN")
        elif out.category != "ok":
            problems.append(f"{case.label}: {out.category}: {out.detail}")
    assert not problems, f"aten::{name}:\n" + "\n".join(problems)


def _outcome(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e), str(e).split("\n")[0]
    return "ok", (out.device.type, tuple(out.shape)) if hasattr(out, "shape") else out


_RULES = [  # (id, call on a library L): one per rule of docs/bad_input.md, compared with torch
    ("none-for-tensor", lambda L: L.ops.aten.add.Tensor(L.ones(3), None)),
    ("none-for-self", lambda L: L.ops.aten.neg.default(None)),
    ("str-for-tensor", lambda L: L.ops.aten.add.Tensor(L.ones(3), "a")),
    ("missing", lambda L: L.ops.aten.add.Tensor(L.ones(3))),
    ("extra", lambda L: L.ops.aten.neg.default(L.ones(3), L.ones(3))),
    ("unknown-kwarg", lambda L: L.ops.aten.sum.dim_IntList(L.ones(3), [0], foo=1)),
    ("cpu-meta", lambda L: L.ops.aten.add.Tensor(L.ones(3), L.ones(3).to("meta"))),
    ("meta-cpu", lambda L: L.ops.aten.mul.Tensor(L.ones(3).to("meta"), L.ones(3))),
    ("meta-mm", lambda L: L.ops.aten.mm.default(L.ones(3, 1).to("meta"), L.ones(1, 3))),
    ("cat-mix", lambda L: L.ops.aten.cat.default([L.ones(3), L.ones(3).to("meta")])),
    ("overlap-mul_", lambda L: L.ones(3, 1).expand(3, 4).mul_(2)),
    ("overlap-uniform_", lambda L: L.ones(3, 1).expand(3, 4).uniform_()),
    ("overlap-masked_fill_", lambda L: L.ones(3, 1).expand(3, 4).masked_fill_(L.ones(3, 4) > 0, 2.0)),
    ("dim-range", lambda L: L.ops.aten.sum.dim_IntList(L.ones(2, 3), [5])),
    ("nll-target-dtype", lambda L: L.ops.aten.nll_loss2d_forward(L.ones(2, 3, 2, 2), L.ones(2, 2, 2), None, 1, -100)),
    ("norm-weight-dtype", lambda L: L.ops.aten.native_group_norm(
        L.ones(2, 4, 3), L.ones(4, dtype=L.int64), None, 2, 4, 3, 2, 1e-5)),
]


@pytest.mark.parametrize("call", [c for _, c in _RULES], ids=[i for i, _ in _RULES])
def test_rules(torch, call):
    import dispatcher

    expected = _outcome(lambda: call(torch))
    got = _outcome(lambda: call(dispatcher))
    if expected[0] == "ok":
        assert got == expected
    else:
        assert got[0] != "ok", f"torch raises {expected}, ours returns {got[1]}"
        assert issubclass(got[0], expected[0]) and got[1] == expected[1], (got, expected)


def test_binding_errors_are_runtime_and_type_errors(torch):
    """torch.ops raises RuntimeError for a call that does not fit the schema, the torch-level function TypeError:
    ours reach one binding, whose error is both."""
    import dispatcher

    with pytest.raises(RuntimeError):
        torch.ops.aten.add.Tensor(torch.ones(3), "a")
    with pytest.raises(TypeError):
        torch.add(torch.ones(3), "a")
    with pytest.raises(RuntimeError):
        dispatcher.ops.aten.add.Tensor(dispatcher.ones(3), "a")
    with pytest.raises(TypeError):
        dispatcher.add(dispatcher.ones(3), "a")
