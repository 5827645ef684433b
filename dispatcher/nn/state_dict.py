"""Saving and loading a Module's state: ``state_dict`` and ``load_state_dict`` with PyTorch's keys, checks and errors.

``nn.Module``'s state-dict methods (module.py) call these functions; the methods stay the points a layer
overrides (``_save_to_state_dict``, ``_load_from_state_dict``, ``get_extra_state`` / ``set_extra_state``), and
the functions call them back on every module of the tree. Keys are dotted names in traversal order; only
persistent buffers are saved; ``_metadata`` records each module's ``_version``; loading copies in place under
``no_grad`` (or assigns, ``assign=True``), reports missing and unexpected keys, and raises with PyTorch's
wording (``Error(s) in loading state_dict for ...``, ``size mismatch for ...``).

PyTorch counterpart: the state-dict part of torch/nn/modules/module.py (``_save_to_state_dict``,
``state_dict``, ``_load_from_state_dict``, ``load_state_dict``, ``_IncompatibleKeys``).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from .parameter import Parameter

if TYPE_CHECKING:
    from .module import Module

__all__ = ["collect_state_dict", "load_own_state", "load_state_dict_into", "save_own_state"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns (PyTorch's ``_IncompatibleKeys``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def save_own_state(module: Module, destination: dict, prefix: str, keep_vars: bool, has_extra_state: bool) -> None:
    """``module._save_to_state_dict``: its own parameters, persistent buffers and extra state (when
    ``has_extra_state``: its class overrides ``get_extra_state``) into ``destination``."""
    for name, param in module._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in module._buffers.items():
        if buf is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    if has_extra_state:
        destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = module.get_extra_state()


def collect_state_dict(module: Module, destination: dict | None, prefix: str, keep_vars: bool) -> dict[str, Any]:
    """``module.state_dict(destination=, prefix=, keep_vars=)``: this module's state, then each child's."""
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()  # type: ignore[attr-defined]
    metadata = getattr(destination, "_metadata", None)
    if metadata is not None:
        metadata[prefix[:-1]] = {"version": module._version}
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
    return destination


def load_own_state(module: Module, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                   missing_keys: list, unexpected_keys: list, error_msgs: list, has_extra_state: bool) -> None:
    """``module._load_from_state_dict``: copy (or assign) its own parameters and persistent buffers from
    ``state_dict``, hand its extra state to ``set_extra_state`` (when ``has_extra_state``: its class overrides
    it), and record missing / unexpected keys and errors."""
    persistent_buffers = {k: v for k, v in module._buffers.items() if k not in module._non_persistent_buffers_set}
    local_state = {k: v for k, v in itertools.chain(module._parameters.items(), persistent_buffers.items())
                   if v is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key in state_dict:
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(input_param)}")
                continue
            if len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                                  f"from checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter) and not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param, requires_grad=param.requires_grad)
                        elif isinstance(param, Parameter):
                            input_param.requires_grad_(param.requires_grad)
                        setattr(module, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model '
                                  f"are {param.size()} and whose dimensions in the checkpoint are "
                                  f"{input_param.size()}, an exception occurred : {ex.args}.")
        elif strict:
            missing_keys.append(key)
    extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
    if has_extra_state:
        if extra_state_key in state_dict:
            module.set_extra_state(state_dict[extra_state_key])
        elif strict:
            missing_keys.append(extra_state_key)
    elif strict and extra_state_key in state_dict:
        unexpected_keys.append(extra_state_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_state_key:
                input_name = key[len(prefix):].split(".", 1)
                if len(input_name) > 1:
                    if input_name[0] not in module._modules:
                        unexpected_keys.append(key)
                elif input_name[0] not in local_state:
                    unexpected_keys.append(key)


def load_state_dict_into(root: Module, state_dict: Mapping[str, Any], strict: bool, assign: bool) -> _IncompatibleKeys:
    """``root.load_state_dict(state_dict, strict, assign)``: each module of the tree loads the keys under its
    prefix (``_load_from_state_dict``); errors are collected and raised together."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys: list[str] = []
    unexpected_keys: list[str] = []
    error_msgs: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)

    def load(module: Module, local_state_dict: dict, prefix: str = "") -> None:
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                     unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state_dict = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                load(child, child_state_dict, child_prefix)

    load(root, state_dict)
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing_keys)))
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            root.__class__.__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)
