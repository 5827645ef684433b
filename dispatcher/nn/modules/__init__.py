"""The layer classes of ``dispatcher.nn`` (torch/nn/modules/__init__.py)."""

from .activation import (
    ELU,
    GELU,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .linear import Identity, Linear
from .loss import CrossEntropyLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss
from .normalization import LayerNorm
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .sparse import Embedding

__all__ = [
    "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU", "Hardswish", "Hardtanh", "Identity",
    "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax", "MSELoss", "Mish", "ModuleDict",
    "ModuleList", "NLLLoss", "ReLU", "ReLU6", "Sequential", "SiLU", "Sigmoid", "SmoothL1Loss", "Softmax",
    "Softplus", "Tanh", "Unflatten",
    # issue 19: convolution, padding, fold / unfold
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Fold", "Unfold",
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]
