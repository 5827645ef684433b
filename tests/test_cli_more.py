"""The command line's manners and new outputs: one-line errors (exit 2), output paths checked before any tracing,
``--version``, ``-q`` after the subcommand, help with a description and examples, ``dispatch-table --compact``
and ``--svg``, ``explain --svg``, ``--html`` (the viewer) and ``view``; and the torch names that do not exist.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

import dispatcher as D
from passes.cli import build_parser, main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

USER_FILE = '''
import pathlib
import dispatcher.nn.functional as F

def f(x, w):
    pathlib.Path(__file__).with_name("traced.marker").write_text("traced")
    return F.softmax(F.linear(x, w), -1)
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


def test_version_and_quiet_after_the_subcommand(capsys: Any, user_file: str) -> None:
    rc, out, _ = run(capsys, "--version")
    assert rc == 0 and out.strip() == f"dispatchkit {D.__version__}"
    rc, out, err = run(capsys, "trace", f"{user_file}:f", "--input", "f32[2,3]", "--input", "f32[4,3]", "-q")
    assert rc == 0 and err == "" and "torch.ops.aten._softmax.default" in out
    rc, out, err = run(capsys, "trace", f"{user_file}:f", "--input", "f32[2,3]", "--input", "f32[4,3]")
    assert rc == 0 and "tracing f" in err  # not quiet by default


def test_every_subcommand_has_a_description_and_examples() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == {"demo", "trace", "show", "replay", "view", "dispatch-table", "explain", "where"}
    for name, p in sub.choices.items():
        text = p.format_help()
        assert p.description and len(p.description) > 60, name
        assert "example" in text and f"dispatchkit {name}" in text, name
        assert "-q, --quiet" in text, name
    assert "examples:" in parser.format_help()


@pytest.mark.parametrize(("argv", "message"), [
    (["trace", "{file}:f", "--input", "f32[2,3]", "--input", "f32[4,3]", "--svg", "{dir}/out.jpg"],
     "--svg '{dir}/out.jpg': expected a file name ending in .svg, .dot, .gv, .png"),
    (["trace", "{file}:f", "--input", "f32[2,3]", "--input", "f32[4,3]", "--save", "{dir}/missing/g.json"],
     "the folder '{dir}/missing' does not exist"),
    (["trace", "{file}:f", "--input", "f32[2,3]", "--input", "f32[4,3]", "--save", "{dir}/g.txt"],
     "expected a file name ending in .json"),
    (["trace", "{file}:f", "--input", "f32[2,3]", "--input", "f32[4,3]", "--html", "{dir}"],
     "expected a file name ending in .html"),
])
def test_outputs_are_checked_before_tracing(capsys: Any, user_file: str, tmp_path: Any, argv: list[str],
                                            message: str) -> None:
    argv = [a.format(file=user_file, dir=tmp_path) for a in argv]
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and err.count("\n") == 1 and err.startswith("dispatchkit: error: ")
    assert message.format(dir=tmp_path) in err
    assert not (tmp_path / "traced.marker").exists()  # the function never ran
    assert out == ""


@pytest.mark.parametrize("argv", [
    ["trace"],                                  # missing argument
    ["nonsense"],                               # unknown command
    ["trace", "x.py:f", "--frobnicate"],        # unknown option
    ["dispatch-table", "aten.add.Tensor", "--svg"],  # option without its value
])
def test_usage_errors_are_one_line_exit_2(capsys: Any, argv: list[str]) -> None:
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("dispatchkit: error: ") and "--help" in err


def test_unexpected_errors_are_one_line_unless_asked(capsys: Any, monkeypatch: Any) -> None:
    import passes.cli as cli

    def boom(args: Any, progress: Any) -> int:
        raise ValueError("first line\nsecond line")

    monkeypatch.setitem(cli._COMMANDS, "explain", boom)
    rc, _, err = run(capsys, "explain", "aten.add.Tensor")
    assert rc == 2 and err.count("\n") == 1
    assert "dispatchkit: error: ValueError: first line | second line (set DISPATCHKIT_TRACEBACK=1" in err
    monkeypatch.setenv("DISPATCHKIT_TRACEBACK", "1")
    with pytest.raises(ValueError, match="first line"):
        main(["explain", "aten.add.Tensor"])


def test_tracing_error_is_one_line_with_the_user_location(capsys: Any, tmp_path: Any) -> None:
    path = tmp_path / "bad.py"
    path.write_text("def f(x):\n    return x.view(7)\n")
    rc, _, err = run(capsys, "-q", "trace", f"{path}:f", "--input", "f32[4,8]")
    assert rc == 2 and err.count("\n") == 1 and f"(at {path}:2: return x.view(7))" in err


def test_dispatch_table_compact_and_pictures(capsys: Any, tmp_path: Any) -> None:
    rc, full, _ = run(capsys, "dispatch-table", "aten.linear.default")
    rc2, compact, _ = run(capsys, "dispatch-table", "aten.linear.default", "--compact", "--svg", str(tmp_path / "t.svg"))
    assert rc == rc2 == 0
    assert full.strip() == D.ops.aten.linear.default.dump_table().strip()
    assert len(compact.splitlines()) < len(full.splitlines()) / 3
    assert "AutogradOther \u2026 AutogradNestedTensor (18 keys)" in compact
    assert (tmp_path / "t.svg").read_text().startswith("<svg") and f"wrote {tmp_path / 't.svg'}" in compact
    rc, out, _ = run(capsys, "explain", "aten.add.Tensor", "--input", "f32[2]", "--input", "f32[2]+grad",
                     "--svg", str(tmp_path / "e.html"))
    assert rc == 0 and "dk-explain" in (tmp_path / "e.html").read_text()
    rc, _, err = run(capsys, "explain", "aten.add.Tensor", "--svg", str(tmp_path / "e.png"))
    assert rc == 2 and "expected a file name ending in .svg, .html" in err


def test_html_viewer_outputs_and_view_command(capsys: Any, user_file: str, tmp_path: Any) -> None:
    args = ["--input", "f32[2,3]", "--input", "f32[4,3]", "-q"]
    rc, out, _ = run(capsys, "trace", f"{user_file}:f", *args, "--html", str(tmp_path / "post.html"),
                     "--save", str(tmp_path / "post.json"))
    assert rc == 0 and "dk-data" in (tmp_path / "post.html").read_text()
    rc, out, _ = run(capsys, "trace", f"{user_file}:f", *args, "--pre-dispatch", "--save", str(tmp_path / "pre.json"))
    assert rc == 0
    rc, out, _ = run(capsys, "view", str(tmp_path / "pre.json"), str(tmp_path / "post.json"), "-o",
                     str(tmp_path / "both.html"))
    page = (tmp_path / "both.html").read_text()
    assert rc == 0 and '"title":"pre"' in page and '"title":"post"' in page and '"links":[[' in page
    rc, _, err = run(capsys, "view", str(tmp_path / "pre.json"), "-o", str(tmp_path / "x.svg"))
    assert rc == 2 and "--out" in err


def test_missing_torch_names_say_what_to_use() -> None:
    with pytest.raises(AttributeError, match=r"torch\.compile's counterpart is tracer\.compile"):
        D.compile  # noqa: B018
    with pytest.raises(AttributeError, match="'cpu' or 'meta' only"):
        D.cuda  # noqa: B018
    assert callable(D.linalg.lstsq) and callable(D.fft.fft)  # torch.linalg (lstsq, pinv, ...) and torch.fft exist
    with pytest.raises(AttributeError, match=r"^module 'dispatcher' has no attribute 'no_such_name'$"):
        D.no_such_name  # noqa: B018
    assert not hasattr(D, "cuda") and getattr(D, "cuda", None) is None
    # every name listed is really missing (a name that gets implemented must leave the list)
    from dispatcher._missing import MISSING

    assert not [n for n in MISSING if n in vars(D)]


def test_packaging_metadata() -> None:
    import passes
    import tracer

    assert D.__version__ == passes.__version__ == tracer.__version__
    for pkg in ("dispatcher", "tracer", "passes"):
        assert os.path.exists(os.path.join(ROOT, pkg, "py.typed"))
    assert os.path.exists(os.path.join(ROOT, "LICENSE"))
    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    assert 'license = "MIT"' in text and "classifiers" in text and '"numpy>=' in text
    assert '"graphviz"' not in text  # Graphviz is run as an executable; the Python package is not used
    proc = subprocess.run([sys.executable, "-c", "import passes, sys; print('graphviz' in sys.modules)"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "False"
