"""The command line end to end: every subcommand, its outputs and its error paths."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from passes.cli import main
from passes.cli.specs import make_inputs, parse_input
from tracer import make_fx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

USER_FILE = '''
import dispatcher as torch
import dispatcher.nn.functional as F

def f(x, w):
    return F.softmax(F.linear(x, w), -1)

def g(x, idx):
    return x[idx].sum(0)

def broken(x):
    y = x.sin()
    return y.view(7)
'''


@pytest.fixture
def user_file(tmp_path: Any) -> str:
    path = tmp_path / "prog.py"
    path.write_text(USER_FILE)
    return str(path)


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _user_f() -> Any:
    import dispatcher.nn.functional as F

    return lambda x, w: F.softmax(F.linear(x, w), -1)


# --- trace ---------------------------------------------------------------------------------------------------------


def test_trace_prints_the_same_code_as_make_fx(capsys: Any, user_file: str) -> None:
    rc, out, err = run(capsys, "trace", f"{user_file}:f", "--input", "f32[4,8]", "--input", "f32[3,8]", "--code")
    assert rc == 0
    inputs = make_inputs([parse_input("f32[4,8]"), parse_input("f32[3,8]")], 0)
    assert out.strip() == make_fx(_user_f())(*inputs).code.strip()
    assert "tracing f" in err and "nodes" in err


def test_trace_pre_dispatch_readable_and_quiet(capsys: Any, user_file: str) -> None:
    rc, out, err = run(capsys, "--quiet", "trace", f"{user_file}:f", "--input", "f32[4,8]", "--input", "f32[3,8]",
                       "--pre-dispatch")
    assert rc == 0 and err == ""
    assert "torch.ops.aten.linear.default" in out and 'x_1: "f32[4, 8]"' in out
    assert f"# File: {user_file}:6" in out  # the user line that produced the nodes


def test_trace_fake_and_integer_inputs(capsys: Any, user_file: str) -> None:
    rc, out, _ = run(capsys, "-q", "trace", f"{user_file}:g", "--input", "f32[5,3]", "--input", "i64[4]:0..5",
                     "--fake", "--code")
    assert rc == 0 and "torch.ops.aten.index.Tensor" in out


def test_trace_decompose_core_and_preserve(capsys: Any, user_file: str) -> None:
    argv = ["-q", "trace", f"{user_file}:f", "--input", "f32[4,8]", "--input", "f32[3,8]", "--code"]
    rc, plain, _ = run(capsys, *argv)
    assert rc == 0 and "aten.t.default" in plain
    rc, core, _ = run(capsys, *argv, "--decompose", "core")
    assert rc == 0 and "aten.t.default" not in core and "aten.permute.default" in core  # t is not core aten
    rc, kept, _ = run(capsys, *argv, "--preserve", "aten.linear.default")
    assert rc == 0 and "aten.linear.default" in kept and "aten.mm.default" not in kept


def test_trace_svg_save_show_replay_round_trip(capsys: Any, user_file: str, tmp_path: Any) -> None:
    graph, svg, dot = str(tmp_path / "g.json"), str(tmp_path / "g.svg"), str(tmp_path / "g.dot")
    rc, out, _ = run(capsys, "-q", "trace", f"{user_file}:f", "--input", "f32[4,8]", "--input", "f32[3,8]",
                     "--save", graph, "--svg", dot, "--stats")
    assert rc == 0 and os.path.exists(graph) and open(dot).read().lstrip().startswith("digraph")
    assert "aten.mm.default" in out  # the op statistics table
    rc, shown, _ = run(capsys, "-q", "show", graph, "--code")
    inputs = make_inputs([parse_input("f32[4,8]"), parse_input("f32[3,8]")], 0)
    assert rc == 0 and shown.strip() == make_fx(_user_f())(*inputs).code.strip()
    if shutil.which("dot"):
        rc, _, _ = run(capsys, "-q", "show", graph, "--svg", svg)
        assert rc == 0 and ET.parse(svg).getroot().tag.endswith("svg")
    rc, out, _ = run(capsys, "-q", "replay", graph, "--input", "f32[4,8]", "--input", "f32[3,8]", "--seed", "3")
    assert rc == 0
    expected = _user_f()(*make_inputs([parse_input("f32[4,8]"), parse_input("f32[3,8]")], 3))
    assert out.startswith("output 0: tensor float32[4, 3] [")
    first = float(out.split("[", 2)[2].split(",")[0])
    np.testing.assert_allclose(first, float(expected.reshape(-1)[0].item()), rtol=1e-3)


def test_replay_checks_the_inputs(capsys: Any, user_file: str, tmp_path: Any) -> None:
    graph = str(tmp_path / "g.json")
    assert run(capsys, "-q", "trace", f"{user_file}:f", "--input", "f32[4,8]", "--input", "f32[3,8]",
               "--save", graph)[0] == 0
    rc, _, err = run(capsys, "-q", "replay", graph, "--input", "f32[4,8]")
    assert rc == 2 and "takes 2 inputs" in err
    rc, _, err = run(capsys, "-q", "replay", graph, "--input", "f32[4,9]", "--input", "f32[3,8]")
    assert rc == 2 and "traced with shape [4, 8]" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["trace", "{file}:nope", "--input", "f32[2]"], "defines no 'nope'"),
    (["trace", "/no/such/file.py:f"], "no such file"),
    (["trace", "{file}"], "expected FILE.py:FUNCTION"),
    (["trace", "{file}:f", "--input", "f32[4,"], "bad --input 'f32[4,'"),
    (["trace", "{file}:f", "--input", "q8[4]"], "unknown dtype 'q8'"),
    (["trace", "{file}:f", "--input", "i64[2]+grad"], "only floating point tensors can require gradients"),
    (["trace", "{file}:broken", "--input", "f32[4,8]"], "tracing broken failed: RuntimeError: shape '[7]' is invalid"),
    (["trace", "{file}:f", "--input", "f32[4,8]", "--input", "f32[3,8]", "--preserve", "aten.nope.default"],
     "unknown operator 'aten::nope'"),
    (["show", "{dir}/missing.json"], "no such file"),
    (["show", "{dir}/bad.json"], "cannot load"),
    (["dispatch-table", "aten.add"], "has overloads Tensor, Scalar"),
    (["dispatch-table", "os.system.default"], "unknown operator 'os::system'"),
    (["explain", "aten.add.Tensor", "--input", "nonsense"], "bad --input 'nonsense'"),
])
def test_errors_are_clear_and_exit_2(capsys: Any, user_file: str, tmp_path: Any, argv: list[str],
                                     message: str) -> None:
    (tmp_path / "bad.json").write_text("{ not json")
    argv = [a.format(file=user_file, dir=tmp_path) for a in argv]
    rc, _, err = run(capsys, "--quiet", *argv)
    assert rc == 2
    assert message in err and err.startswith("dispatchkit: error:")
    assert "Traceback" not in err


def test_failing_function_error_points_at_the_user_line(capsys: Any, user_file: str) -> None:
    _, _, err = run(capsys, "-q", "trace", f"{user_file}:broken", "--input", "f32[4,8]")
    assert f"at {user_file}:13: return y.view(7)" in err


# --- dispatcher commands ------------------------------------------------------------------------------------------


def test_dispatch_table_and_explain(capsys: Any) -> None:
    rc, out, _ = run(capsys, "dispatch-table", "aten::linear")
    assert rc == 0 and out.strip() == D.ops.aten.linear.default.dump_table().strip()
    rc, out, _ = run(capsys, "explain", "aten.add.Tensor", "--input", "f32[2]", "--input", "f32[2]+grad")
    assert rc == 0 and "AutogradCPU" in out and "redispatch aten::add.Tensor" in out
    rc, out, _ = run(capsys, "explain", "aten.mm.default", "--input", "f32[2,3]", "--input", "f32[2,3]")
    assert rc == 1 and "mat1 and mat2 shapes cannot be multiplied" in out


# --- demo ----------------------------------------------------------------------------------------------------------


def test_demo_writes_graphs_and_checks_replay(capsys: Any, tmp_path: Any) -> None:
    out_dir = tmp_path / "demo"
    rc, out, err = run(capsys, "demo", "--out", str(out_dir))
    assert rc == 0, out + err
    ext = "svg" if shutil.which("dot") else "dot"
    for level in ("post-dispatch", "pre-dispatch"):
        assert (out_dir / f"{level}.{ext}").exists()
        assert f"transformer_block, {level}" in out
    page = (out_dir / "index.html").read_text()
    assert "post-dispatch" in page and "pre-dispatch" in page and "<img" in page
    assert out.count("(match)") == 3 and "MISMATCH" not in out
    assert "torch.ops.aten.addmm.default" in out or "torch.ops.aten.mm.default" in out  # post-dispatch
    assert "torch.ops.aten.linear.default" in out  # pre-dispatch
    assert "dispatch path of aten::linear" in out
    assert "tracing transformer_block" in err


# --- entry points ----------------------------------------------------------------------------------------------------


def test_python_dash_m_tracer_and_console_script() -> None:
    proc = subprocess.run([sys.executable, "-m", "tracer", "dispatch-table", "aten.add.Tensor"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "CPU:" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "tracer", "explain", "aten.add.Tensor", "--input", "bad"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "python -m tracer: error: bad --input 'bad'" in proc.stderr
    script = shutil.which("dispatchkit", path=os.path.dirname(sys.executable))
    if script is None:
        pytest.skip("the dispatchkit console script is not installed (pip install -e .)")
    proc = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "dispatch-table" in proc.stdout


def test_saved_graph_is_json(capsys: Any, user_file: str, tmp_path: Any) -> None:
    graph = str(tmp_path / "g.json")
    assert run(capsys, "-q", "trace", f"{user_file}:f", "--input", "f32[4,8]", "--input", "f32[3,8]",
               "--save", graph)[0] == 0
    with open(graph) as fh:
        assert isinstance(json.load(fh), dict)
