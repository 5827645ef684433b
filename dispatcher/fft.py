"""``dispatcher.fft``: the ``torch.fft`` namespace (the functions live in dispatcher/api/fft.py).

Corresponds to torch/fft/__init__.py.
"""

from __future__ import annotations

from .api.fft import *  # noqa: F403
from .api.fft import __all__ as __all__
