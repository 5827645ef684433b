"""``nn.Parameter`` and ``nn.Buffer``: the tensors a ``Module`` registers when they are assigned to it.

Corresponds to torch/nn/parameter.py. A ``Parameter`` is a Tensor subclass made with
``Tensor._make_subclass`` (it shares ``data``'s storage, is a leaf, and requires grad by
default). It opts out of ``__torch_function__``, so ops on a Parameter return plain Tensors,
as in PyTorch. ``make_fx`` reads an untracked Parameter as a ``_param_constantN`` attribute
(a plain tensor: ``_tensor_constantN``).
"""

from __future__ import annotations

import copy

from ..modes.function_mode import _disabled_torch_function_impl
from ..tensor import Tensor

__all__ = ["Buffer", "Parameter"]


def _empty() -> Tensor:
    from ..api.factories import empty

    return empty(0)


class _ParameterMeta(type):
    """``isinstance(t, Parameter)`` also holds for a tensor subclass instance (a FakeTensor) made a parameter."""

    def __instancecheck__(cls, instance: object) -> bool:
        if cls is Parameter and isinstance(instance, Tensor) and getattr(instance, "_is_param", False):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that a Module registers as a parameter when it is assigned as an attribute."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = _empty()
        if type(data) is Tensor or type(data) is Parameter:
            return Tensor._make_subclass(cls, data, requires_grad)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter: expected a Tensor as data, got {type(data).__name__}")
        # a tensor subclass (e.g. a FakeTensor) stays of its type and is marked, as PyTorch does
        t = data.detach().requires_grad_(requires_grad)
        if type(t) is not type(data):
            raise RuntimeError(f"Creating a Parameter from an instance of type {type(data).__name__} requires that "
                               "detach() returns an instance of the same type, but return type "
                               f"{type(t).__name__} was found instead. To use the type as a Parameter, please "
                               "correct the detach() semantics defined by its __torch_dispatch__() implementation.")
        t._is_param = True
        return t

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # (everything happens in __new__; Tensor has no __init__ to call)

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __copy__(self) -> Parameter:
        return copy.deepcopy(self)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    @property
    def data(self) -> Tensor:
        """A plain Tensor over the same storage, without history (PyTorch's ``p.data`` is not a Parameter)."""
        from ..modes.subclass import _retype

        return _retype(Tensor.data.fget(self), Tensor)

    @data.setter
    def data(self, new_data: Tensor) -> None:
        Tensor.data.fset(self, new_data)

    __torch_function__ = _disabled_torch_function_impl


class _BufferMeta(type):
    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor to be registered as a buffer when assigned to a Module (``persistent`` as in
    ``register_buffer``). Like PyTorch, ``Buffer(t)`` is a plain Tensor (``t.detach()``) carrying the mark."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:  # type: ignore[misc]
        if data is None:
            data = _empty()
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
