"""``dispatcher.nn``: ``Module``, ``Parameter``, the layers, ``init`` and ``functional``.

Corresponds to torch/nn/__init__.py.
"""

from . import functional, init, utils
from .module import Module
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["Buffer", "Module", "Parameter", "functional", "init", "utils", *_modules_all]
