"""``dispatcher.nn.utils``: gradient clipping, parameters as a vector, parametrizations, weight / spectral norm,
packed sequences (``rnn``).

Corresponds to torch/nn/utils/__init__.py (``stateless``, ``fusion``, ``skip_init``, the memory-format
helpers and the legacy hook-based ``spectral_norm`` are not reproduced; the legacy ``weight_norm`` is).
"""

from . import parametrizations, parametrize, rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
    "parameters_to_vector", "vector_to_parameters", "parametrizations", "parametrize", "rnn",
    "remove_weight_norm", "weight_norm",
]
