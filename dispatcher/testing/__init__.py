"""Test helpers under torch.testing's names: ``_internal.logging_tensor`` and ``_internal.two_tensor``.

Corresponds to torch/testing/_internal/ (the helpers PyTorch's own tests of ``__torch_dispatch__`` use).
"""
