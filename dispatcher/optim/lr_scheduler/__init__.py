"""``dispatcher.optim.lr_scheduler``: learning-rate schedulers (torch/optim/lr_scheduler.py, PyTorch 2.13).

``base.py`` holds ``LRScheduler`` (initial step, chainable vs closed form, the step-order warning,
state dicts); ``decay.py`` the rule-of-the-epoch schedulers; ``cyclic.py`` CyclicLR,
CosineAnnealingWarmRestarts and OneCycleLR; ``composite.py`` SequentialLR, ChainedScheduler and
ReduceLROnPlateau. They work with any ``dispatcher.optim.Optimizer``.
"""

from .base import EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler
from .composite import ChainedScheduler, ReduceLROnPlateau, SequentialLR
from .cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from .decay import (
    ConstantLR,
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
           "EPOCH_DEPRECATION_WARNING", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR",
           "MultiplicativeLR", "OneCycleLR", "PolynomialLR", "ReduceLROnPlateau", "SequentialLR", "StepLR",
           "_LRScheduler"]
