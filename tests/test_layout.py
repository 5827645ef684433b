"""The house rules of the source tree: no module-level import cycles, files of one job and bounded size,
docstrings naming a role (never the order work happened), arrows only pointing down the package list."""

from __future__ import annotations

import ast
import os
import re

import networkx as nx
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("dispatcher", "tracer", "passes")
#: data files exempt from the size rule: the op listing, the schema parser's tables
DATA_FILES = {"dispatcher/ops/native_functions.py", "dispatcher/schema.py"}
MAX_LINES = 640  # "about 600"
#: words of the project's history that say nothing to a reader
HISTORY = re.compile(r"\b(ops_[abc]|(pw|attn|conv|loss|ops|later|first|listing) batch(es)?|more_[abc])\b|_more(_[abc])?\.py",
                     re.IGNORECASE)


def _modules() -> dict[str, tuple[str, bool]]:
    mods = {}
    for package in PACKAGES:
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if name.endswith(".py"):
                    rel = os.path.relpath(os.path.join(folder, name), ROOT)
                    module = rel[:-3].replace(os.sep, ".")
                    is_package = module.endswith(".__init__")
                    mods[module.removesuffix(".__init__")] = (rel, is_package)
    return mods


def _module_level_imports(body):
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            test = node.test
            if getattr(test, "id", getattr(test, "attr", None)) == "TYPE_CHECKING":
                continue
            yield from _module_level_imports(node.body)
            yield from _module_level_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                yield from _module_level_imports(block)
        elif isinstance(node, (ast.For, ast.With)):
            yield from _module_level_imports(node.body)


def import_graph() -> nx.DiGraph:
    """Module -> module it imports at module level (a ``from pkg import mod`` names the submodule)."""
    mods = _modules()
    graph = nx.DiGraph()
    for module, (rel, is_package) in mods.items():
        graph.add_node(module)
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in _module_level_imports(tree.body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                if node.level:
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                else:
                    base = node.module
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != module:
                    graph.add_edge(module, target)
    return graph


def test_no_module_level_import_cycles():
    cycles = [sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert cycles == []


def test_arrows_only_point_down():
    order = {package: i for i, package in enumerate(PACKAGES)}
    # tracer/__main__.py only forwards ``python -m tracer`` to the command line, which lives in passes
    upward = [(a, b) for a, b in import_graph().edges
              if order[a.split(".")[0]] < order.get(b.split(".")[0], -1) and a != "tracer.__main__"]
    assert upward == []


@pytest.mark.parametrize("package", PACKAGES)
def test_files_are_bounded_and_say_what_they_are(package):
    too_long, undocumented, historical = [], [], []
    for rel, _ in _modules().values():
        if not rel.startswith(package + os.sep):
            continue
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            text = f.read()
        if text.count("\n") > MAX_LINES and rel not in DATA_FILES:
            too_long.append(f"{rel}: {text.count(chr(10))} lines")
        tree = ast.parse(text)
        doc = ast.get_docstring(tree)
        if text.strip() and not doc:
            undocumented.append(rel)
        if HISTORY.search(os.path.basename(rel)) or HISTORY.search(text):
            historical.append(rel)
    assert too_long == []
    assert undocumented == []
    assert historical == []
