"""``dispatcher.optim``: optimizers (torch/optim/__init__.py): SGD, Adam, AdamW, Adagrad, RMSprop, Adadelta
(single-tensor CPU updates, as torch picks for CPU tensors), and ``lr_scheduler``."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
