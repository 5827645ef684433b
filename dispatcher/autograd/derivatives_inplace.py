"""Derivative formulas for in-place ops.

Same conventions as derivatives.py: every formula is written with aten ops,
named and shaped as in PyTorch's derivatives.yaml / FunctionsManual.cpp.
"""

from __future__ import annotations

from ..op_overload import namespace
from .function import derivative  # noqa: F401

aten = namespace("aten")
