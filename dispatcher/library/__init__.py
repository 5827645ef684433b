"""``dispatcher.library``: the ``torch.library`` API.

Corresponds to torch/library.py: ``Library`` (core.py; registrations live as long as the object),
``fallthrough_kernel``, ``define`` / ``impl`` / ``register_kernel`` / ``register_fake`` / ``register_autograd`` /
``register_torch_dispatch`` (functions.py), ``custom_op`` (custom_ops.py), ``infer_schema`` and ``opcheck``.
"""

from __future__ import annotations

from .core import Library, fallthrough_kernel
from .custom_ops import CustomOpDef, custom_op
from .functions import (
    _keep_alive,
    _scoped_library,
    define,
    get_ctx,
    impl,
    register_autograd,
    register_fake,
    register_kernel,
    register_torch_dispatch,
)
from .infer_schema import infer_schema
from .opcheck import opcheck

__all__ = [
    "CustomOpDef", "Library", "_keep_alive", "_scoped_library", "custom_op", "define", "fallthrough_kernel",
    "get_ctx", "impl", "infer_schema", "opcheck", "register_autograd", "register_fake", "register_kernel",
    "register_torch_dispatch",
]
