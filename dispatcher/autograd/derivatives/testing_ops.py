"""Derivatives of ATen's test operators: none, as in PyTorch.

Corresponds to the absence of ``_foobar`` from tools/autograd/derivatives.yaml: torchgen gives the op a
``NotImplemented`` node, so a call on an input requiring grad succeeds and backward fails when it reaches the node.
"""

from __future__ import annotations

from .not_implemented import register_not_implemented

register_not_implemented("_foobar", ("self",), "_foobar")
