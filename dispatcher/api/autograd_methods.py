"""Tensor's autograd methods: ``requires_grad_``, ``retain_grad`` / ``retains_grad``, ``register_hook``,
``register_post_accumulate_grad_hook``, and the factories' ``requires_grad=True``.

Corresponds to the python_variable_methods.cpp bindings of these methods and torch/_tensor.py. The logic lives
in dispatcher/autograd/tensor_api.py and hooks.py, imported where used.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor


def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    from ..autograd.tensor_api import requires_grad_ as impl

    return impl(self, requires_grad)


def _factory_requires_grad(result: Tensor) -> Tensor:
    """``requires_grad=True`` of a factory function (its error says "floating point and complex")."""
    from ..autograd.tensor_api import factory_requires_grad

    return factory_requires_grad(result)


def retain_grad(self: Tensor) -> None:
    from ..autograd.hooks import retain_grad as impl

    impl(self)


def _retains_grad(self: Tensor) -> bool:
    return self._retains_grad


def register_hook(self: Tensor, hook: Any) -> Any:
    from ..autograd.hooks import register_hook as impl

    return impl(self, hook)


def register_post_accumulate_grad_hook(self: Tensor, hook: Any) -> Any:
    from ..autograd.hooks import register_post_accumulate_grad_hook as impl

    return impl(self, hook)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the autograd Tensor methods and ``retains_grad`` (called by ``tensor_methods.install``)."""
    T.requires_grad_ = requires_grad_
    T.retain_grad = retain_grad
    T.register_hook = register_hook
    T.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
    T.retains_grad = property(_retains_grad)
