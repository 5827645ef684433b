"""``dispatcher.nn.functional``: PyTorch's ``torch.nn.functional`` for the supported subset.

Corresponds to torch/nn/functional.py. Each function does the Python-side work PyTorch's does (argument
checks, the reduction string -> enum, the implicit softmax dim, embedding's padding_idx normalisation,
mse_loss's broadcasting) and then calls the same aten op: ``linear`` -> ``aten.linear``, ``softmax`` ->
``aten.softmax.int``, ``cross_entropy`` -> ``aten.cross_entropy_loss`` with the reduction as an int,
``dropout`` -> ``aten.dropout``, and so on.

One module per op family: ``activations``, ``losses``, ``linalg`` (linear, cosine_similarity),
``convolution``, ``pooling``, ``normalization``, ``attention``, ``embedding``, ``dropout``, ``shape`` (pad).
This package's namespace is torch.nn.functional's: ``F.dropout`` and ``F.embedding`` are the functions,
not the modules of those names (``from dispatcher.nn.functional.dropout import ...`` and
``importlib.import_module`` still reach the modules). The functions say they are of this module, as torch's
do, so graphs print and name them ``torch.nn.functional.<name>``.
"""

from .activations import (
    celu,
    elu,
    gelu,
    glu,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    log_softmax,
    logsigmoid,
    mish,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    softmax,
    softmin,
    softplus,
    softsign,
    tanh,
    tanhshrink,
    threshold,
    threshold_,
)
from .attention import _canonical_mask, _none_or_dtype, multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from .convolution import conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d, fold, unfold
from .dropout import dropout
from .embedding import embedding, one_hot
from .linalg import cosine_similarity, linear
from .losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
)
from .normalization import batch_norm, group_norm, instance_norm, layer_norm, normalize, rms_norm
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from .shape import pad

__all__ = [
    # activations
    "relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "leaky_relu", "elu", "softplus", "hardtanh",
    "relu6", "hardswish", "logsigmoid", "mish", "selu", "celu", "hardsigmoid", "softsign", "tanhshrink", "softmin",
    "glu", "threshold", "threshold_",
    # losses
    "mse_loss", "cross_entropy", "nll_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "huber_loss", "kl_div", "soft_margin_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "poisson_nll_loss", "cosine_embedding_loss", "gaussian_nll_loss",
    # linalg, convolution, pooling, normalization, attention, embedding, dropout, shape
    "linear", "cosine_similarity", "conv1d", "conv2d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "layer_norm", "batch_norm", "instance_norm", "group_norm",
    "rms_norm", "normalize", "scaled_dot_product_attention", "embedding", "one_hot", "dropout", "pad",
    # issue 19: convolution
    "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold",
]
__all__ += ["multi_head_attention_forward"]  # attention (issue 19)
from .dropout import alpha_dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout  # noqa: E402
from .embedding import embedding_bag  # noqa: E402
from .linalg import bilinear  # noqa: E402
from .shape import channel_shuffle, native_channel_shuffle  # noqa: E402

__all__ += ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "channel_shuffle",
            "bilinear", "embedding_bag", "native_channel_shuffle"]

# normalization / pooling / resizing additions (issue 19)
from .normalization import local_response_norm  # noqa: E402
from .pooling import (  # noqa: E402
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool3d,
    max_unpool1d,
    max_unpool2d,
)
from .resizing import (  # noqa: E402
    interpolate,
    pixel_shuffle,
    pixel_unshuffle,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)

__all__ += ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle"]
__all__ += ["local_response_norm", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
            "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool2d", "lp_pool1d", "lp_pool2d",
            "max_unpool1d", "lp_pool3d"]

for _name in __all__:
    if globals()[_name].__module__.startswith(f"{__name__}."):
        globals()[_name].__module__ = __name__
del _name
