"""Dimension wrapping for decompositions: a possibly negative dim checked against a rank and made non-negative.

Corresponds to ``canonicalize_dim`` of torch/_prims_common/__init__.py (``maybe_wrap_dim`` in
c10/core/WrapDimMinimal.h), with PyTorch's IndexError message. ``_wrap`` treats a 0-d tensor as 1-d (views.py,
shape.py); ``_canonicalize_dim`` takes the rank as given (shape.py, indexing.py).
"""

from __future__ import annotations


def _wrap(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _canonicalize_dim(rank: int, idx: int) -> int:
    if idx < -rank or idx >= rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {idx})")
    return idx + rank if idx < 0 else idx
