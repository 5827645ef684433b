"""``dispatcher.optim``: optimizers (torch/optim/__init__.py): SGD, Adam, AdamW (single-tensor CPU updates)."""

from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer"]
