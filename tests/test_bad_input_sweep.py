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
