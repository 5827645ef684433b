"""``dispatcher.backends``: torch.backends's switches that change which path a layer takes (torch/backends/).

Only ``mha`` so far: whether ``nn.MultiheadAttention`` and the Transformer encoder may take their fused fast path.
"""

from . import mha

__all__ = ["mha"]
