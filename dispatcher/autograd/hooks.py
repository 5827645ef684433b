"""Tensor hooks: ``register_hook``, ``retain_grad`` and the handles that remove them.

Corresponds to torch/_tensor.py (``register_hook``, ``retain_grad`` Python side),
torch/csrc/autograd/python_hook.cpp (how a hook's result is checked),
VariableHooks::retain_grad / update_tensor_hooks_on_new_gradfn in variable.cpp and
torch/utils/hooks.py (``RemovableHandle``).

Where hooks live, as in PyTorch:

* a leaf's hooks stay on the tensor (``_backward_hooks``); its AccumulateGrad node
  runs them before accumulating;
* a non-leaf's hooks are a *tensor pre-hook* of its grad_fn, for the output the
  tensor is: they see (and may replace) that output's gradient before the node runs;
* ``retain_grad`` adds one more pre-hook, run after the tensor hooks, that stores
  the gradient in ``.grad`` (``clone`` the first time, ``add`` after).

When an in-place op gives a tensor a new grad_fn, hooks registered before stay on
the old node (they fire for the gradient of the old value); the tensor gets a fresh
hook dict for the new node, and a retain_grad hook moves to the new node.
"""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

_handle_ids = itertools.count()


class RemovableHandle:
    """A handle that removes the hook it was returned for (``torch.utils.hooks.RemovableHandle``)."""

    def __init__(self, hooks_dict: dict[int, Any]) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_handle_ids)

    def remove(self) -> None:
        hooks = self.hooks_dict_ref()
        if hooks is not None and self.id in hooks:
            del hooks[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _hook_name(hook: Any) -> str:
    return getattr(hook, "__name__", None) or type(hook).__name__


def check_hook_result(original: Any, result: Any, hook: Any) -> None:
    """check_single_result / check_variable_result: a hook may not change a gradient's type, device or size."""
    from ..tensor import Tensor

    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    from .graph import _type_string

    if result._dtype is not original._dtype or result._device.type != original._device.type:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was {_type_string(original)} "
                           f"got {_type_string(result)})")
    if tuple(result._shape) != tuple(original._shape):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")


def call_hooks(hook_dicts: list[dict[int, Any]], grad: Any) -> Any:
    """Run every hook of every dict in order; a hook returning a tensor replaces the gradient."""
    for hooks in hook_dicts:
        for hook in list(hooks.values()):
            result = hook(grad)
            if result is not None:
                check_hook_result(grad, result, hook)
                grad = result
    return grad


class _TensorPreHooks:
    """The first pre-hook of a node with tensor hooks: tensor hooks per output, then retain_grad hooks."""

    __slots__ = ("node",)

    def __init__(self, node: Any) -> None:
        self.node = node

    def __call__(self, grads: list[Any]) -> None:
        # Replaces the gradients in the engine's list itself: a new list kept by the engine would be one
        # more reference to each gradient, and AccumulateGrad steals only unshared ones.
        node = self.node
        for nr, dicts in (node._tensor_hooks or {}).items():
            if nr < len(grads) and grads[nr] is not None:
                grads[nr] = call_hooks(dicts, grads[nr])
        for nr, hook in list((node._retains_grad_hooks or {}).items()):
            if nr < len(grads) and grads[nr] is not None:
                hook(grads[nr])


def _runner(node: Any) -> None:
    """Make sure the node's first pre-hook is its tensor-hook runner (tensor hooks run before node pre-hooks)."""
    hooks = node.own_pre_hooks()
    if not hooks or not isinstance(hooks[0], _TensorPreHooks):
        hooks.insert(0, _TensorPreHooks(node))


def add_tensor_hooks(node: Any, output_nr: int, hooks: dict[int, Any]) -> None:
    if node._tensor_hooks is None:
        node._tensor_hooks = {}
    node._tensor_hooks.setdefault(output_nr, []).append(hooks)
    _runner(node)


def leaf_hooks_runner(variable: Any) -> Callable[[list[Any]], None]:
    """The tensor pre-hook of a leaf's AccumulateGrad: the leaf's own hooks, read when it runs."""

    def run(grads: list[Any]) -> None:
        if grads and grads[0] is not None and variable._backward_hooks:
            grads[0] = call_hooks([variable._backward_hooks], grads[0])  # in place, as _TensorPreHooks

    return run


def register_hook(tensor: Any, hook: Callable[[Any], Any]) -> RemovableHandle:
    """``Tensor.register_hook``: ``hook(grad)`` runs when the gradient for ``tensor`` is computed."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor._backward_hooks is None:
        tensor._backward_hooks = OrderedDict()
        fn = tensor.grad_fn
        if fn is not None:
            fn._register_hook_dict(tensor)
    handle = RemovableHandle(tensor._backward_hooks)
    tensor._backward_hooks[handle.id] = hook
    return handle


def register_post_accumulate_grad_hook(tensor: Any, hook: Callable[[Any], Any]) -> RemovableHandle:
    """``hook(tensor)`` after AccumulateGrad stored a gradient into this leaf's ``.grad``."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = tensor.__dict__.get("_post_accumulate_grad_hooks")
    if hooks is None:
        hooks = tensor._post_accumulate_grad_hooks = OrderedDict()
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def _retain_grad_hook(tensor: Any) -> Callable[[Any], None]:
    ref = weakref.ref(tensor)

    def hook(grad: Any) -> None:
        from ..memory_format import contiguous_format
        from ..op_overload import namespace

        var = ref()
        if var is None or grad is None:
            return
        aten = namespace("aten")
        if var._grad is None:
            var._grad = aten.clone.default(grad, memory_format=contiguous_format)
        else:
            var._grad = aten.add.Tensor(var._grad, grad)

    return hook


def retain_grad(tensor: Any) -> None:
    """``Tensor.retain_grad``: keep this non-leaf's gradient in ``.grad`` (a no-op on leaves)."""
    if not tensor.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    fn = tensor.grad_fn
    if fn is None or tensor._retains_grad:
        return
    if fn._retains_grad_hooks is None:
        fn._retains_grad_hooks = {}
    fn._retains_grad_hooks[tensor._output_nr] = _retain_grad_hook(tensor)
    _runner(fn)
    tensor._retains_grad = True


def update_tensor_hooks_on_new_gradfn(tensor: Any, old_fn: Any, old_nr: int, new_fn: Any) -> None:
    """The tensor got a new grad_fn (in-place op): fresh hook dict, retain_grad hook moved to the new node.

    ``old_nr`` is the output of ``old_fn`` the tensor was; ``tensor._output_nr`` is already the new one.
    """
    if tensor._backward_hooks is not None:
        tensor._backward_hooks = None
    if tensor._retains_grad and old_fn is not None and old_fn._retains_grad_hooks:
        hook = old_fn._retains_grad_hooks.pop(old_nr, None)
        if hook is not None:
            if new_fn._retains_grad_hooks is None:
                new_fn._retains_grad_hooks = {}
            new_fn._retains_grad_hooks[tensor._output_nr] = hook
            _runner(new_fn)
