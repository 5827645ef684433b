"""Every ``python`` block of docs/modes.md runs as written (its asserts pin what the prose says)."""

from __future__ import annotations

import os
import re

import pytest

from tests.subclass_env import skip_logging_tensor_in_pytest_capture

_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "modes.md")


def _blocks() -> list[str]:
    with open(DOC, encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), flags=re.DOTALL)


def test_the_page_has_its_examples() -> None:
    assert len(_blocks()) >= 4


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_example_runs(index: int, capsys: pytest.CaptureFixture) -> None:
    exec(compile(_blocks()[index], f"docs/modes.md[block {index}]", "exec"), {"__name__": "__doc_example__"})
