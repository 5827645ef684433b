"""``nn.utils.parametrize``: a parameter or buffer computed by modules from stored originals.

Corresponds to torch/nn/utils/parametrize.py. ``register_parametrization(module, "weight", P)`` moves the tensor to
``module.parametrizations.weight.original`` (a ``ParametrizationList``, a ModuleList of the parametrizations), gives the
module a class of its own, ``Parametrized<Class>``, with a ``weight`` property that returns ``P(original)`` (or, with
``right_inverse`` returning several tensors, ``P(original0, original1, ...)``) and whose setter calls
``right_inverse``; so state dict keys are ``parametrizations.weight.original`` as in PyTorch. ``cached()`` computes
each parametrized tensor once inside the block. ``remove_parametrizations`` puts a plain tensor back (the
parametrized value by default) and restores the class. PyTorch's checks and messages (dtype and shape kept unless
``unsafe=True``, tensor results, sequences from ``right_inverse``) are kept.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from copy import deepcopy
from typing import Any

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..module import Module
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization", "remove_parametrizations",
           "type_before_parametrizations"]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor | None] = {}


@contextmanager
def cached() -> Iterator[None]:
    """Inside the block each parametrized tensor is computed once, on first use."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, x: Tensor) -> None:
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    """``dest.set_(src)``: ``dest`` (keeping its identity) takes ``src``'s data."""
    if dest is not src:
        dest.data = src.detach() if src.requires_grad else src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the ``original`` tensor(s) they start from."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):  # type: ignore[call-overload]
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {z.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Set the originals so that the parametrized tensor becomes ``value`` (``module.weight = value``)."""
        with no_grad():
            for module in reversed(self):  # type: ignore[call-overload]
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                if self.original is not value:
                    self.original.copy_(value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                     f"Got a sequence of length {len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError("'right_inverse' must return a sequence of tensors or reference-type "
                                         f"opaques. Got element {i} of type {type(tensor).__name__}.")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                                         f"`original{i}` has dtype {original_i.dtype}")
                    original_i.copy_(tensor)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        curr_idx = 1
        while hasattr(self, str(curr_idx)):
            x = self[curr_idx](x)
            curr_idx += 1
        return x


def _inject_new_class(module: Module) -> None:
    """Give ``module`` a class of its own, ``Parametrized<Class>``, to hold the properties."""
    cls = module.__class__

    def default_deepcopy(self: Module, memo: dict) -> Module:
        obj = memo.get(id(self), None)
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = deepcopy(self.__dict__, memo)
        return replica

    def getstate(self: Module) -> Any:
        raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                           "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                           "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    dct: dict[str, Any] = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(module), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        return parametrization()

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` the result of ``parametrization`` (added after any already registered)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.dtype: {y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
            if x.shape != y.shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.shape: {y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {x.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
                         f"'{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Has ``module`` any parametrization (on ``tensor_name``)?"""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Remove the parametrizations on ``tensor_name``: it becomes a plain parameter (or buffer) again, holding the
    parametrized value (``leave_parametrized=True``) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        t = getattr(module, tensor_name)
        original = Parameter(t.detach()) if t.requires_grad else t
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before ``register_parametrization`` gave it its own."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)
