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
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
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

# --- attention and Transformer layers (issue 19) ---
from .activation_mha import MultiheadAttention  # noqa: E402
from .linear import NonDynamicallyQuantizableLinear  # noqa: E402

__all__ += ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]
# --- end attention and Transformer layers ---

# --- Transformer layers (issue 19) ---
from .transformer import (  # noqa: E402
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ += ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
            "TransformerEncoderLayer"]
# --- end Transformer layers ---

# --- other layers real code uses (issue 19) ---
from .activation import Softmax2d  # noqa: E402
from .channelshuffle import ChannelShuffle  # noqa: E402
from .container import ParameterDict, ParameterList  # noqa: E402
from .dropout import AlphaDropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout  # noqa: E402
from .linear import Bilinear  # noqa: E402
from .sparse import EmbeddingBag  # noqa: E402

__all__ += ["AlphaDropout", "ChannelShuffle", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout", "Softmax2d",
            "ParameterDict", "ParameterList", "Bilinear", "EmbeddingBag"]
# --- end other layers ---
# normalization / pooling / resizing layers (issue 19)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d  # noqa: E402
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: E402
from .normalization import GroupNorm, LocalResponseNorm, RMSNorm  # noqa: E402
from .pooling import (  # noqa: E402
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
)
from .upsampling import PixelShuffle, PixelUnshuffle, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402

__all__ += [
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "LocalResponseNorm", "RMSNorm",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d", "MaxPool1d", "MaxPool2d",
    "MaxPool3d", "MaxUnpool2d", "LPPool3d", "MaxUnpool1d",
    "PixelShuffle", "PixelUnshuffle", "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d",
    "GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase",
]
