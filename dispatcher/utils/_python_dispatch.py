"""Dispatch modes and traceable wrapper subclasses: torch/utils/_python_dispatch.py under its own names.

The mode stack (``TorchDispatchMode``, ``_get_current_dispatch_mode``, ``_pop_mode_temporarily`` ...) is
``dispatcher/modes/dispatch_mode.py``, re-exported here. This file adds the helpers for *traceable* wrapper
subclasses, the ones tracing and fake tensors can see through:

* a traceable wrapper subclass defines ``__tensor_flatten__(self) -> (inner attribute names, context)`` and
  ``__tensor_unflatten__(inner_tensors: dict, context, outer_size, outer_stride)`` (a static- or classmethod that
  rebuilds an instance from new inner tensors); ``is_traceable_wrapper_subclass(t)`` /
  ``is_traceable_wrapper_subclass_type(cls)`` test for the pair;
* ``transform_subclass(t, callback)`` rebuilds ``t`` with ``callback(name, inner)`` applied to each inner
  tensor (``FakeTensorMode.from_tensor`` makes a subclass of fake inner tensors this way);
* ``return_and_correct_aliasing(func, args, kwargs, out)``: what a wrapper's ``__torch_dispatch__`` returns
  so that the aliasing its schema promises holds for the wrappers: an in-place or ``out=`` op returns the very
  argument object it mutated (``x.mul_(2) is x``).
* ``is_in_torch_dispatch_mode(include_infra_modes=True)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..modes.dispatch_mode import (
    BaseTorchDispatchMode,
    TorchDispatchMode,
    TorchDispatchModeKey,
    _disable_current_modes,
    _get_current_dispatch_mode,
    _get_current_dispatch_mode_stack,
    _get_dispatch_mode,
    _get_dispatch_mode_pre_dispatch,
    _get_dispatch_stack_at,
    _len_torch_dispatch_stack,
    _pop_mode,
    _pop_mode_temporarily,
    _push_mode,
    _unset_dispatch_mode,
    unset_mode_pre_dispatch,
)
from ..tensor import Tensor
from ..tls import per_thread


def is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    """A dispatch mode is on this thread's stack (``include_infra_modes=False``: one that is not an infra mode)."""
    s = per_thread.s
    stack = s.dispatch_mode_stack + s.pre_dispatch_mode_stack  # (torch counts entered modes of both stacks)
    if include_infra_modes:
        return bool(stack)
    return any(not m.is_infra_mode() for m in stack)


def any_torch_dispatch_mode_on_stack() -> bool:
    """A mode on the stack that is neither an infra mode nor one that ignores compile internals."""
    for idx in range(_len_torch_dispatch_stack()):
        mode = _get_dispatch_stack_at(idx)
        if mode.is_infra_mode() or mode.ignore_compile_internals():
            continue
        return True
    return False


def is_in_any_mode_without_ignore_compile_internals() -> bool:
    """A mode is active that does not ignore compile internals (torch keeps a counter; the stack says the same)."""
    return any(not m.ignore_compile_internals() for m in per_thread.s.dispatch_mode_stack)


def _check_infra_key(key: TorchDispatchModeKey) -> None:
    if key not in (TorchDispatchModeKey.FUNCTIONAL, TorchDispatchModeKey.PROXY):
        raise AssertionError(f"expected an infra mode key (FUNCTIONAL or PROXY), got {key}")


def _detect_infra_mode(key: TorchDispatchModeKey) -> Any:
    """The active infra mode with ``key``, on the pre-dispatch stack or the regular one (never both), or None."""
    _check_infra_key(key)
    pre = _get_dispatch_mode_pre_dispatch(key)
    post = _get_dispatch_mode(key)
    if pre is not None and post is not None:
        raise AssertionError("At most one active infra mode should be present for the key")
    return post if pre is None else pre


def _unset_infra_mode(key: TorchDispatchModeKey) -> Any:
    """Remove and return the infra mode with ``key`` from whichever stack holds it (None if it is not active)."""
    pre = _get_dispatch_mode_pre_dispatch(key)
    post = _get_dispatch_mode(key)
    if pre is not None and post is not None:
        raise AssertionError("Can't have active infra mode on both pre and post dispatch mode stack")
    if pre is not None:
        return unset_mode_pre_dispatch(key)
    if post is not None:
        return _unset_dispatch_mode(key)
    return None


def _disable_infra_mode(key: TorchDispatchModeKey) -> Iterator[Any]:
    """A generator (as in torch 2.13, not itself a context manager; ``disable_proxy_modes_tracing`` wraps it): the
    infra mode with ``key`` (PROXY or FUNCTIONAL) is off until it resumes, then pushed back to its stack; yields
    it, or None."""
    if key not in (TorchDispatchModeKey.FUNCTIONAL, TorchDispatchModeKey.PROXY):
        raise AssertionError("key must be either FUNCTIONAL or PROXY _TorchDispatchModeKey")
    mode = _unset_infra_mode(key)
    try:
        yield mode
    finally:
        if mode is not None:
            _push_mode(mode)


def is_traceable_wrapper_subclass(t: object) -> bool:
    """``t`` is an instance of a Tensor subclass with ``__tensor_flatten__`` and ``__tensor_unflatten__``."""
    return (isinstance(t, Tensor) and type(t) is not Tensor and hasattr(t, "__tensor_flatten__")
            and hasattr(t, "__tensor_unflatten__"))


def is_traceable_wrapper_subclass_type(t: type) -> bool:
    """``t`` is a Tensor subclass with ``__tensor_flatten__`` and ``__tensor_unflatten__``."""
    return (isinstance(t, type) and issubclass(t, Tensor) and t is not Tensor and hasattr(t, "__tensor_flatten__")
            and hasattr(t, "__tensor_unflatten__"))


def transform_subclass(t: Any, callback: Callable[[str, Any], Any], outer_size: Any = None,
                       outer_stride: Any = None) -> Any:
    """``type(t).__tensor_unflatten__`` of ``callback(name, inner)`` for each inner tensor of ``t``.

    The rebuilt tensor must keep ``t``'s outer size (PyTorch's check and message)."""
    outer_size = t.size() if outer_size is None else outer_size
    outer_stride = t.stride() if outer_stride is None else outer_stride
    attrs, ctx = t.__tensor_flatten__()
    inner = {attr: callback(attr, getattr(t, attr)) for attr in attrs}
    sub = type(t).__tensor_unflatten__(inner, ctx, outer_size, outer_stride)
    if tuple(sub.shape) != tuple(outer_size):
        raise AssertionError(f"Expected return value from {type(t)}__tensor_unflatten__() to have shape equal to "
                             f"{tuple(outer_size)}, but got: {tuple(sub.shape)}")
    if tuple(sub.stride()) != tuple(outer_stride):
        raise AssertionError(f"Expected return value from {type(t)}__tensor_unflatten__() to have stride equal to "
                             f"{tuple(outer_stride)}, but got: {tuple(sub.stride())}")
    return sub


def _argument_values(func: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The schema's argument names -> the values of this call (positional, then keyword)."""
    values: dict[str, Any] = {}
    for i, arg in enumerate(func._schema.arguments):
        if i < len(args) and not arg.kwarg_only:
            values[arg.name] = args[i]
        elif arg.name in kwargs:
            values[arg.name] = kwargs[arg.name]
    return values


def _take_geometry(wrapper: Tensor, new: Tensor) -> None:
    """An in-place view op (``t_``, ``unsqueeze_``, ...) on a wrapper changes the wrapper's own sizes and strides
    to the inner result's (PyTorch reruns the op on the outer tensor's metadata)."""
    wrapper._shape, wrapper._stride = tuple(new._shape), tuple(new._stride)
    wrapper._storage_offset = new._storage_offset
    wrapper._contiguous = new._contiguous


def _correct_storage_aliasing(func: Any, args: tuple, outs: Any) -> None:
    """A view op (a return sharing an alias set with a read-only argument, ``Tensor(a) self -> Tensor(a)``): each such
    returned tensor is re-pointed at that argument's storage (``torch._functionalize_unsafe_set``), its own sizes and
    strides kept. PyTorch asserts that the argument and the returns have the same type when either is a traceable
    wrapper subclass."""
    from ..api.storage import _functionalize_unsafe_set

    schema = func._schema
    for i, arg in enumerate(schema.arguments):
        a_info = arg.alias_info
        if a_info is None or a_info.is_write or i >= len(args):
            continue
        for j, r in enumerate(schema.returns):
            r_info = r.alias_info
            if r_info is None or not (set(a_info.before_set) & set(r_info.before_set)) or j >= len(outs):
                continue
            src, ret = args[i], outs[j]
            if type(src) is not type(ret) and (is_traceable_wrapper_subclass_type(type(src))
                                               or is_traceable_wrapper_subclass_type(type(ret))):
                for each in (ret if isinstance(ret, list) else [ret]):
                    if type(src) is not type(each):
                        raise AssertionError(f"Called {func} with input of type {type(src)}\nand output of type "
                                             f"{type(ret)}. But expected types to match.")
            for each in (ret if isinstance(ret, list) else [ret]):
                if not isinstance(each, Tensor):
                    raise AssertionError(f"expected torch.Tensor, got {type(each)}")
                _functionalize_unsafe_set(each, src)


def return_and_correct_aliasing(func: Any, args: tuple, kwargs: dict | None, out: Any) -> Any:
    """``out`` with each mutated-alias return (``Tensor(a!)``) replaced by the argument it aliases; and, for a view
    op, each returned wrapper re-pointed at its input's storage (``_correct_storage_aliasing``), so
    ``torch._C._is_alias_of(out, input)`` holds and both report the same ``untyped_storage()``, as in PyTorch.
    """
    schema = func._schema
    returns = schema.returns
    _correct_storage_aliasing(func, args, out if isinstance(out, tuple) else (out,))
    if not any(r.alias_info is not None and r.alias_info.is_write for r in returns):
        return out
    values = _argument_values(func, args, kwargs or {})
    if "inplace_view" in func.tags and isinstance(out, Tensor) and args and isinstance(args[0], Tensor):
        _take_geometry(args[0], out)
    by_set: dict[frozenset, Any] = {}
    for arg in schema.arguments:
        info = arg.alias_info
        if info is not None and info.is_write and arg.name in values:
            by_set[frozenset(info.before_set)] = values[arg.name]

    def fix(ret: Any, r: Any) -> Any:
        info = r.alias_info
        if info is not None and info.is_write:
            return by_set.get(frozenset(info.before_set), ret)
        return ret

    if len(returns) == 1:
        return fix(out, returns[0])
    return tuple(fix(o, r) for o, r in zip(out, returns, strict=True))


__all__ = [
    "BaseTorchDispatchMode",
    "TorchDispatchMode",
    "TorchDispatchModeKey",
    "_detect_infra_mode",
    "_disable_infra_mode",
    "_unset_infra_mode",
    "any_torch_dispatch_mode_on_stack",
    "is_in_any_mode_without_ignore_compile_internals",
    "_disable_current_modes",
    "_get_current_dispatch_mode",
    "_get_current_dispatch_mode_stack",
    "_len_torch_dispatch_stack",
    "_pop_mode",
    "_pop_mode_temporarily",
    "_push_mode",
    "is_in_torch_dispatch_mode",
    "is_traceable_wrapper_subclass",
    "is_traceable_wrapper_subclass_type",
    "return_and_correct_aliasing",
    "transform_subclass",
]
