"""``dispatcher.optim``: optimizers (torch/optim/__init__.py) and ``lr_scheduler``. Only SGD so far (Adam needs
``lerp_``, ``addcmul_`` and ``addcdiv_``, which the op listing does not have yet)."""

from . import lr_scheduler
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Optimizer", "lr_scheduler"]
