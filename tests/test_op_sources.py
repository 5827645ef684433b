"""``where`` / ``dispatchkit where``: every registered op answers, and every piece of an aten op lives in
the file of its family in each layer (tracer/op_sources.py; docs/op_families.md is generated and compared)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import dispatcher  # noqa: F401 - defines the aten library
from dispatcher.library import Library
from dispatcher.ops.native_functions import NATIVE_FUNCTIONS
from dispatcher.registry import REGISTRY
from tracer.op_sources import FAMILIES, describe, family_of, family_table_markdown, where

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: the directory each kind of piece must be in, when it belongs to a family
LAYER_DIRS = {
    "kernel": "dispatcher/ops/",
    "autograd": "dispatcher/autograd/derivatives/",
    "decomposition": ("tracer/decompositions/", "dispatcher/ops/"),  # CIA ops decompose through their kernel
    "torch-level": ("dispatcher/api/", "dispatcher/nn/functional/"),
}
#: shared machinery that serves every op of a kind, not one family (generated kernels)
SHARED = ("dispatcher/ops/inplace_or_view.py", "dispatcher/autograd/views.py", "dispatcher/ops/backend_select.py",
          "dispatcher/autograd/__init__.py")  # the last: detach_'s manual Autograd kernel (VariableTypeManual)


def _listed():
    return [getattr(getattr(dispatcher.ops.aten, e.name.partition(".")[0]), e.name.partition(".")[2] or "default")
            for e in NATIVE_FUNCTIONS]


def _stem(location: str) -> str:
    return os.path.splitext(os.path.basename(location.rsplit(":", 1)[0]))[0]


def _line_of(location: str) -> str:
    path, line = location.rsplit(":", 1)
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.readlines()[int(line) - 1]


def test_every_registered_op_answers():
    ops = [op for op in REGISTRY.all_operators() if op._schema is not None]
    assert len(ops) >= len(NATIVE_FUNCTIONS)
    for op in ops:
        (sources,) = where(op)
        assert sources.of_kind("schema"), op
        assert sources.of_kind("kernel"), f"{op}: no kernel found"
        for piece in sources.pieces:
            if ":" in piece.location and not piece.location.startswith(("fallthrough", "registered")):
                path = piece.location.rsplit(":", 1)[0]
                assert os.path.exists(os.path.join(ROOT, path)) or os.path.isabs(path), (op, piece)


def test_every_listed_op_has_a_family():
    missing = [op.name() for op in _listed() if family_of(op) is None]
    assert missing == []


@pytest.mark.parametrize("family", list(FAMILIES))
def test_pieces_live_in_their_family_files(family):
    wrong = []
    for op in _listed():
        if family_of(op) != family:
            continue
        (sources,) = where(op)
        for piece in sources.pieces:
            if piece.kind not in LAYER_DIRS or ":" not in piece.location:
                continue
            if piece.location.startswith(SHARED):
                continue
            dirs = LAYER_DIRS[piece.kind]
            dirs = dirs if isinstance(dirs, tuple) else (dirs,)
            stem = _stem(piece.location)
            in_layer = piece.location.startswith(dirs)
            if piece.kind == "torch-level" and not in_layer:
                continue  # e.g. torch.manual_seed-like helpers outside the api package are not op surfaces
            families = (family,)
            if piece.kind == "torch-level":
                # one torch-level function serves every overload of its name (torch.max: max.dim, max.other), and
                # torch's nn.functional lists tanh / sigmoid / ... among its activation functions
                packet = getattr(dispatcher.ops.aten, op._opname)
                families += tuple(f for o in packet.overloads() if (f := family_of(getattr(packet, o))))
                families += ("activations",) if piece.label.startswith("nn.functional.") else ()
            if not in_layer or not any(stem == f or stem.startswith(f + "_") for f in families):
                wrong.append(f"{op.name()} {piece.kind} {piece.label}: {piece.location}")
    assert wrong == []


def test_docs_table_is_generated_from_the_registry():
    with open(os.path.join(ROOT, "docs", "op_families.md"), encoding="utf-8") as f:
        assert f.read() == family_table_markdown(), "regenerate: python -m tracer.op_sources > docs/op_families.md"


def test_where_points_at_the_definitions():
    (logaddexp,) = where("aten.logaddexp")
    assert logaddexp.family == "transcendental"
    kinds = {p.kind for p in logaddexp.pieces}
    assert {"schema", "kernel", "autograd", "decomposition", "torch-level"} <= kinds
    assert "logaddexp" in _line_of(logaddexp.of_kind("schema")[0].location)
    for piece in logaddexp.of_kind("kernel") + logaddexp.of_kind("torch-level"):
        assert "logaddexp" in _line_of(piece.location), piece
    assert "Logaddexp" in logaddexp.of_kind("autograd")[0].label
    conv = where("aten.conv2d")
    assert [s.op.name() for s in conv] == ["aten::conv2d", "aten::conv2d.padding"]
    assert all(s.family == "convolution" for s in conv)
    assert [p.label for p in conv[0].of_kind("kernel")] == ["CompositeImplicitAutograd"]
    labels = {p.label for p in conv[0].of_kind("torch-level")}
    assert {"torch.conv2d", "nn.functional.conv2d"} <= labels


def test_where_accepts_torch_spellings_and_rejects_unknown_ops():
    a = describe("aten::add.Tensor")
    assert describe(dispatcher.ops.aten.add.Tensor) == a == describe("add.Tensor")
    assert "family: arithmetic" in a
    with pytest.raises(ValueError, match="no operator named aten::not_an_op"):
        where("aten.not_an_op")
    with pytest.raises(ValueError, match="has no overload 'Nope'"):
        where("aten.add.Nope")
    with pytest.raises(TypeError, match="expected an OpOverload"):
        where(3)


def test_where_finds_a_custom_op():
    lib = Library("wheretest", "DEF")
    try:
        lib.define("scale(Tensor x, float k) -> Tensor")

        def scale_cpu(x, k):
            return x * k

        lib.impl("scale", scale_cpu, "CPU")
        (sources,) = where("wheretest.scale")
        assert sources.family is None
        assert sources.of_kind("schema")[0].location.startswith("tests/test_op_sources.py:")
        (cpu,) = sources.of_kind("kernel")
        assert cpu.label == "CPU" and "def scale_cpu" in _line_of(cpu.location)
        assert "family: none" in str(sources)
    finally:
        lib._destroy()


def test_cli_where():
    run = subprocess.run([sys.executable, "-m", "tracer", "where", "aten.logaddexp"], capture_output=True,
                         text=True, cwd=ROOT, check=False)
    assert run.returncode == 0, run.stderr
    assert "family: transcendental" in run.stdout and "LogaddexpBackward0" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "tracer", "where", "aten.nope"], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "aten::nope" in bad.stderr


def test_where_an_op_with_only_a_cuda_kernel_is():
    """wt-stream: record_stream has no kernel here (torch's only one is CUDA's): its family comes from the
    ``elsewhere(...)`` record in its family file, shown as the op's CUDA kernel piece."""
    (sources,) = where("aten.record_stream")
    assert sources.family == "streams"
    (kernel,) = sources.of_kind("kernel")
    assert kernel.label == "CUDA" and kernel.location.startswith("dispatcher/ops/streams.py:")
    assert "record_stream" in _line_of(kernel.location)
    assert [p.label for p in sources.of_kind("torch-level")] == ["Tensor.record_stream"]
