"""``dispatcher.optim``: optimizers (torch/optim/__init__.py): SGD, Adam, AdamW, Adagrad, RMSprop (single-tensor CPU updates)."""

from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "RMSprop", "Optimizer"]
