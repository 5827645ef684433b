"""Dispatch modes and tensor subclasses: the Python extension points below autograd.

Corresponds to torch/utils/_python_dispatch.py, torch/utils/_mode_utils.py and the subclass
constructors of torch/csrc/autograd/python_variable.cpp. The Python key's fallback itself
(modes first, then subclasses; ``shallow_copy_and_detach``) is ``dispatcher/python_key.py``.

* ``dispatch_mode.py``: ``TorchDispatchMode``, the thread-local mode stacks (user modes,
  infra slots, the pre-dispatch stack), ``no_dispatch``, ``enable_torch_dispatch_mode``;
* ``function_mode.py``: ``TorchFunctionMode`` and the ``__torch_function__`` protocol (Python API level);
* ``subclass.py``: ``Tensor._make_wrapper_subclass`` / ``_make_subclass`` / ``as_subclass``;
* ready-made modes: ``logging_tensor.py`` (``LoggingTensorMode``, ``LoggingTensor``, ``capture_logs``),
  ``flop_counter.py`` (``FlopCounterMode``), ``meta_check.py`` (``MetaCheckMode``: each op's result
  against its Meta kernel); ``weak.py`` (``WeakIdKeyDictionary``).

Fake tensors (``FakeTensorMode``) are in ``dispatcher.fake``.
"""

from .dispatch_mode import (
    BaseTorchDispatchMode,
    TorchDispatchMode,
    TorchDispatchModeKey,
    _disable_current_modes,
    _get_current_dispatch_mode,
    _get_current_dispatch_mode_pre_dispatch,
    _get_current_dispatch_mode_stack,
    _get_current_dispatch_mode_stack_pre_dispatch,
    _get_dispatch_mode,
    _get_dispatch_mode_pre_dispatch,
    _get_dispatch_stack_at,
    _len_torch_dispatch_stack,
    _len_torch_dispatch_stack_pre_dispatch,
    _pop_mode,
    _pop_mode_from_pre_dispatch,
    _pop_mode_temporarily,
    _push_mode,
    _set_mode_pre_dispatch,
    _unset_dispatch_mode,
    enable_reentrant_dispatch,
    enable_torch_dispatch_mode,
    no_dispatch,
    unset_mode_pre_dispatch,
)
from .flop_counter import FlopCounterMode, register_flop_formula
from .function_mode import (
    BaseTorchFunctionMode,
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    TorchFunctionMode,
    _disabled_torch_function_impl,
    _get_current_function_mode,
    _get_current_function_mode_stack,
    _len_torch_function_stack,
)
from .logging_tensor import (
    LoggingTensor,
    LoggingTensorMode,
    LoggingTensorReentrant,
    OpCall,
    capture_logs,
    capture_logs_with_logging_tensor_mode,
)
from .meta_check import MetaCheckMode, MetadataMismatchError
from .subclass import has_torch_dispatch
from .weak import WeakIdKeyDictionary

__all__ = [
    "BaseTorchDispatchMode",
    "BaseTorchFunctionMode",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "TorchFunctionMode",
    "_disabled_torch_function_impl",
    "_get_current_function_mode",
    "_get_current_function_mode_stack",
    "_len_torch_function_stack",
    "FlopCounterMode",
    "LoggingTensor",
    "LoggingTensorMode",
    "LoggingTensorReentrant",
    "MetaCheckMode",
    "MetadataMismatchError",
    "OpCall",
    "WeakIdKeyDictionary",
    "capture_logs",
    "capture_logs_with_logging_tensor_mode",
    "register_flop_formula",
    "TorchDispatchMode",
    "TorchDispatchModeKey",
    "_disable_current_modes",
    "_get_current_dispatch_mode",
    "_get_current_dispatch_mode_pre_dispatch",
    "_get_current_dispatch_mode_stack",
    "_get_current_dispatch_mode_stack_pre_dispatch",
    "_get_dispatch_mode",
    "_get_dispatch_mode_pre_dispatch",
    "_get_dispatch_stack_at",
    "_len_torch_dispatch_stack",
    "_len_torch_dispatch_stack_pre_dispatch",
    "_pop_mode",
    "_pop_mode_from_pre_dispatch",
    "_pop_mode_temporarily",
    "_push_mode",
    "_set_mode_pre_dispatch",
    "_unset_dispatch_mode",
    "enable_reentrant_dispatch",
    "enable_torch_dispatch_mode",
    "has_torch_dispatch",
    "no_dispatch",
    "unset_mode_pre_dispatch",
]
