"""``dispatcher.optim``: optimizers (torch/optim/__init__.py). Only SGD so far (Adam needs ``lerp_``,
``addcmul_`` and ``addcdiv_``, which the op listing does not have yet)."""

from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Optimizer"]
