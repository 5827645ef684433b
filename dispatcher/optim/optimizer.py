"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and the ``step`` wrapper.

Corresponds to torch/optim/optimizer.py. As in PyTorch, every subclass's ``step`` is wrapped
(once per class) to run inside ``record_function("Optimizer.step#<Class>.step")`` with the
step hooks, and ``zero_grad`` inside ``record_function("Optimizer.zero_grad#<Class>.zero_grad")``,
so a traced training step shows the two ``profiler::`` region ops. ``_use_grad_for_differentiable``
runs a step with grad mode set to the ``differentiable`` default (off), then restores it: a
pre-dispatch trace records the two ``_set_grad_enabled`` calls.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from copy import deepcopy
from itertools import chain
from typing import Any

from ..autograd import grad_mode
from ..autograd.hooks import RemovableHandle
from ..autograd.profiler import record_function
from ..tensor import Tensor

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a default every parameter group must give (``torch.optim.optimizer.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_optimizer_pre_hooks: dict[int, Callable[..., Any]] = OrderedDict()
_global_optimizer_post_hooks: dict[int, Callable[..., Any]] = OrderedDict()


def _typename(obj: Any) -> str:
    from ..nn.module import typename

    return typename(obj)


def _use_grad_for_differentiable(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``step`` with grad mode = ``defaults["differentiable"]`` (False: no autograd graph), then restore it."""

    def _use_grad(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        prev_grad = grad_mode.is_grad_enabled()
        try:
            grad_mode.set_grad_enabled(self.defaults["differentiable"])
            ret = func(self, *args, **kwargs)
        finally:
            grad_mode.set_grad_enabled(prev_grad)
        return ret

    functools.update_wrapper(_use_grad, func)
    return _use_grad


def _closure_loss(closure: Callable[[], Any] | None) -> Any:
    """The start of every ``step``: ``closure()`` run with grad mode on (its loss), or None without a closure."""
    if closure is None:
        return None
    with grad_mode.enable_grad():
        return closure()


def _to_scalar(x: Any) -> Any:
    """A hyperparameter given as a 1-element tensor becomes 0-d; a number stays a number."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


_HYPERPARAMETER_LABELS = {"lr": "learning rate", "eps": "epsilon value"}


def _check_lr_elements(lr: Any) -> None:
    """Torch's constructor check of a tensor learning rate."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def _check_nonnegative(*, nan_passes: bool = False, **values: Any) -> None:
    """Torch's constructor checks ``if not 0.0 <= value: raise ValueError(f"Invalid {label}: {value}")``, in the
    order given (``lr`` is "learning rate", ``eps`` "epsilon value", any other ``name`` "name value"). With
    ``nan_passes`` the test is SGD's ``value < 0.0``, which lets a NaN through."""
    for name, value in values.items():
        if (value < 0.0) if nan_passes else not 0.0 <= value:
            raise ValueError(f"Invalid {_HYPERPARAMETER_LABELS.get(name, name + ' value')}: {value}")


class Optimizer:
    """Base class of the optimizers: ``param_groups`` (dicts with ``params`` and the options) and ``state``."""

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: dict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_step_post_hooks: dict[int, Callable[..., Any]] = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state: defaultdict[Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # --- the step wrapper --------------------------------------------------------------------------
    @staticmethod
    def profile_hook_step(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self, *_ = args
            with record_function(f"Optimizer.step#{self.__class__.__name__}.step"):
                for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                    result = pre_hook(self, args, kwargs)
                    if result is not None:
                        if isinstance(result, tuple) and len(result) == 2:
                            args, kwargs = result
                        else:
                            raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), but "
                                               f"got {result}.")
                out = func(*args, **kwargs)
                for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                    post_hook(self, args, kwargs)
                return out

        return wrapper

    def _patch_step_function(self) -> None:
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = self.profile_hook_step(self.__class__.step)  # type: ignore[method-assign]
            self.__class__.step.hooked = True  # type: ignore[attr-defined]

    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before each ``step``; may return new ``(args, kwargs)``."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after each ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        raise NotImplementedError

    # --- parameter groups ----------------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group (a dict with ``params``; missing options take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param._retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        param_set: set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {current} to the optimizer")
        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of the optimized tensors: to None, or (``set_to_none=False``) to zeros in place."""
        from ..nn.module import _reset_grad

        with record_function(self._zero_grad_profile_name):
            for group in self.param_groups:
                for p in group["params"]:
                    _reset_grad(p, set_to_none)

    # --- state dict ------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: state}, "param_groups": [group with params as indices]}`` (PyTorch's layout)."""
        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load what ``state_dict`` returned (groups matched by position; state tensors copied)."""
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups), strict=True))
        state: defaultdict[Tensor, dict[Any, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = {key: (value.to(dtype=param.dtype) if isinstance(value, Tensor) and key != "step"
                                      and param.is_floating_point() else value)
                                for key, value in v.items()}
            else:
                state[k] = v
        param_groups = []
        for group, new_group in zip(groups, saved_groups, strict=True):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            param_groups.append(new_group)
        self.state = state
        self.param_groups = param_groups

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        return format_string + ")"
