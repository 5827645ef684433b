"""The table of NumPy lowerings: for each aten overload, the NumPy code one graph node becomes.

Used by numpy_codegen.py (``lowering_for``, ``Lowering``, ``view_text``). lowering.py holds the core (the
``Lowering`` kinds, the ``LOWERINGS`` table, its helpers); the rules are filed by op family, one module each:
arithmetic, transcendental, comparison (and logical), bitwise, activations, conversions (copies, aliases, fills),
views, indexing, shape (joining), linalg, reductions, normalization, losses, embedding, factories. Importing this
package fills the table. An op without a rule runs through the dispatcher (the generator's fallback).

PyTorch counterpart: Inductor's lowering table (torch/_inductor/lowering.py), which targets loops instead of
NumPy calls.
"""

from __future__ import annotations

from . import (  # noqa: F401 - each family module registers its rules in LOWERINGS
    activations,
    arithmetic,
    bitwise,
    comparison,
    conversions,
    embedding,
    factories,
    indexing,
    linalg,
    losses,
    normalization,
    reductions,
    shape,
    transcendental,
    views,
)
from .lowering import LOWERINGS, Lowering, lowering_for
from .views import view_lowering, view_text

__all__ = ["LOWERINGS", "Lowering", "lowering_for", "view_lowering", "view_text"]
