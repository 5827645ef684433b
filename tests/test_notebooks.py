"""Every notebook in notebooks/ runs top to bottom, shows pictures, is committed without outputs, and matches its
generator."""

from __future__ import annotations

import glob
import os
import sys

import pytest

nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e .[test])")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install -e .[test])")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOK_DIR = os.path.join(ROOT, "notebooks")
NOTEBOOKS = sorted(glob.glob(os.path.join(NOTEBOOK_DIR, "*.ipynb")))
#: pictures each notebook must show when executed (at least one each)
MIN_PICTURES = {"01_dispatcher.ipynb": 3, "02_modes.ipynb": 2, "03_make_fx.ipynb": 3, "04_compile.ipynb": 1,
                "05_passes.ipynb": 4}  # (and the op statistics table)


def test_there_are_notebooks() -> None:
    names = {os.path.basename(p) for p in NOTEBOOKS}
    assert {"01_dispatcher.ipynb", "02_modes.ipynb", "03_make_fx.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_is_output_free_and_generated(path: str) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path}: commit notebooks without outputs"
    sys.path.insert(0, NOTEBOOK_DIR)
    try:
        import make_notebooks
    finally:
        sys.path.remove(NOTEBOOK_DIR)
    expected = make_notebooks.build(os.path.basename(path))
    assert [c.source for c in nb.cells] == [c.source for c in expected.cells], \
        "notebook differs from notebooks/make_notebooks.py: run `python notebooks/make_notebooks.py`"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_runs_top_to_bottom(path: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = nbformat.read(path, as_version=4)
    env_path = os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", env_path)  # the kernel imports this checkout's packages
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError with the failing cell's traceback
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    # every notebook shows pictures of what it explains (inline SVG drawings, or the viewer's page)
    pictures = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
                if o.output_type in ("display_data", "execute_result")
                and ("image/svg+xml" in o.data or "<svg" in o.data.get("text/html", "")
                     or "dk-data" in o.data.get("text/html", ""))]
    assert len(pictures) >= MIN_PICTURES.get(os.path.basename(path), 1), f"{path}: {len(pictures)} pictures"
