"""``dispatcher.optim``: optimizers (torch/optim/__init__.py): SGD, Adam, AdamW, Adagrad, RMSprop, Adadelta (single-tensor CPU updates)."""

from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "RMSprop", "Optimizer"]
