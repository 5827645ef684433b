"""Golden tests of make_fx's generated code, independent of torch.

For a few corpus programs, ``gm.code`` of the post-dispatch and the pre-dispatch trace must equal
the file ``tests/data/golden_make_fx/<program>.<post|pre>.py`` byte for byte. These tests pin
the output without torch and make every change to the printed graphs visible in review; when the
torch oracle is installed, ``test_goldens_equal_torch`` also checks every golden against torch
2.13's make_fx (one known, intended difference: ``autograd_grad.pre``, where we track the
activation autograd saved and PyTorch bakes it into ``_tensor_constant0``).

Regenerate after an intended change with::

    DISPATCHKIT_REGEN_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_make_fx_golden.py

(then read the diff of tests/data/golden_make_fx/ before keeping it).

The file also checks ``print_readable()``: each group of nodes is headed by the user source line
that produced it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tracer import make_fx

GOLDEN_DIR = Path(__file__).parent / "data" / "golden_make_fx"
REGENERATE = os.environ.get("DISPATCHKIT_REGEN_GOLDEN") == "1"

#: programs with goldens: forward, nested outputs, joint forward+backward, in-place / views, grad-mode regions,
#: tensor literals, masking, a training step with an SGD update
GOLDEN_PROGRAMS = ["linear_softmax_ln", "mlp", "autograd_grad", "views_inplace", "no_grad_region", "constants",
                   "masked_attention", "sgd_autograd_grad", "index_put_setitem"]
CONFIGS = {"post": {}, "pre": {"pre_dispatch": True}}


def _trace(name: str, config: str):  # noqa: ANN202
    prog, shapes, rg = C.PROGRAMS[name]
    return make_fx(prog(D, DF), **CONFIGS[config])(*C.inputs(D, C.arrays(shapes, 0), rg))


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("name", GOLDEN_PROGRAMS)
def test_code_matches_golden(name: str, config: str) -> None:
    gm = _trace(name, config)
    gm.graph.lint()
    path = GOLDEN_DIR / f"{name}.{config}.py"
    if REGENERATE:
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(gm.code)
    assert path.exists(), f"no golden file {path}: regenerate with DISPATCHKIT_REGEN_GOLDEN=1 (module docstring)"
    assert gm.code == path.read_text(), f"{path} differs from the traced code (module docstring: regenerate?)"


def test_no_stale_golden_files() -> None:
    expected = {f"{n}.{c}.py" for n in GOLDEN_PROGRAMS for c in CONFIGS}
    assert {p.name for p in GOLDEN_DIR.glob("*.py")} == expected


#: (program, config) -> why our golden differs from torch's make_fx output
_DIFFERS_FROM_TORCH = {("autograd_grad", "pre"): "the relu output autograd saved is tracked, not a constant"}


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("name", GOLDEN_PROGRAMS)
def test_goldens_equal_torch(torch, name: str, config: str) -> None:  # noqa: ANN001
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    prog, shapes, rg = C.PROGRAMS[name]
    gm = torch_make_fx(prog(torch, torch.nn.functional), **CONFIGS[config])(*C.inputs(torch, C.arrays(shapes, 0), rg))
    same = gm.code.strip() == (GOLDEN_DIR / f"{name}.{config}.py").read_text().strip()
    assert same != ((name, config) in _DIFFERS_FROM_TORCH)


def test_golden_code_runs() -> None:
    """A golden file is the real forward: executed, it gives what the traced function gives."""
    import numpy as np

    prog, shapes, _ = C.PROGRAMS["mlp"]
    arrays = C.arrays(shapes, 3)
    namespace: dict = {"torch": D}
    exec(compile((GOLDEN_DIR / "mlp.post.py").read_text(), "mlp.post.py", "exec"), namespace)  # noqa: S102
    got = namespace["forward"](None, *C.inputs(D, arrays, ()))
    np.testing.assert_allclose(got.numpy(), prog(D, DF)(*C.inputs(D, arrays, ())).numpy(), rtol=1e-6)


# --- print_readable ------------------------------------------------------------------------------------------------


def _block(x, w, b):
    h = DF.linear(x, w, b)  # readable: linear
    s = DF.softmax(h, -1)  # readable: softmax
    return s.sum()  # readable: sum


@pytest.mark.parametrize("pre", [False, True], ids=["post", "pre"])
def test_print_readable_shows_the_user_line_of_each_node(pre: bool) -> None:
    gm = make_fx(_block, pre_dispatch=pre)(D.randn(2, 3), D.randn(4, 3), D.randn(4))
    text = gm.print_readable(print_output=False)
    first = _block.__code__.co_firstlineno
    headers = [line.strip() for line in text.splitlines() if line.strip().startswith("# File:")]
    assert headers == [f"# File: {__file__}:{first + 1 + i} in _block, code: {src}"
                       for i, src in enumerate(["h = DF.linear(x, w, b)  # readable: linear",
                                                "s = DF.softmax(h, -1)  # readable: softmax",
                                                "return s.sum()  # readable: sum"])]
    # every op node sits under the header of its line: t + addmm (post) or linear (pre) under the linear line
    body = text.split("# File:")
    linear_ops = ["torch.ops.aten.linear.default"] if pre else ["torch.ops.aten.t.default",
                                                                 "torch.ops.aten.addmm.default"]
    assert all(op in body[1] for op in linear_ops)
    assert ("softmax.int" if pre else "_softmax.default") in body[2]
    assert "sum.default" in body[3]
    assert 'x_1: "f32[2, 3]"' in text and 'sum_1: "f32[]"' in text


def test_print_readable_without_recorded_traces() -> None:
    gm = make_fx(_block, record_stack_traces=False)(D.randn(2, 3), D.randn(4, 3), D.randn(4))
    text = gm.print_readable(print_output=False)
    assert "# File:" not in text
    assert "# No stacktrace found for following nodes" in text


def test_print_readable_frame_without_source_keeps_innermost_frame() -> None:
    """Code from exec() has no source line: the header names the innermost frame (PyTorch shows the outer one)."""
    namespace: dict = {"DF": DF}
    exec("def g(x):\n    y = x.sin()\n    return DF.relu(y)\n", namespace)  # noqa: S102
    gm = make_fx(namespace["g"])(D.randn(3))
    headers = [line.strip() for line in gm.print_readable(print_output=False).splitlines() if "# File:" in line]
    assert headers == ["# File: <string>:2 in g", "# File: <string>:3 in g"]
