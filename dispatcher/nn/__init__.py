"""``dispatcher.nn``: the neural-network function namespace (``dispatcher.nn.functional``).

Corresponds to torch/nn/__init__.py; only ``functional`` exists here (no Module classes).
"""

from . import functional

__all__ = ["functional"]
