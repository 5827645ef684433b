"""Shared test helpers: the torch oracle (optional) and tensor-like stand-ins."""

from __future__ import annotations

import pytest

try:
    import torch as _torch
except Exception:  # pragma: no cover - exercised only on machines without the oracle
    _torch = None

TORCH_SKIP_REASON = "torch oracle (torch==2.13.0) not installed; `make test` installs it"


@pytest.fixture(scope="session")
def torch():
    """The torch oracle, or a visible skip when it is absent."""
    if _torch is None:
        pytest.skip(TORCH_SKIP_REASON)
    return _torch
