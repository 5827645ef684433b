"""dispatcher: PyTorch's dispatcher rebuilt in Python.

Keys and key sets (``DispatchKey``, ``DispatchKeySet``), thread-local state and
its guards, operator schemas, ``Library`` registration, per-operator dispatch
tables with PyTorch 2.13's precedence rules, the Python dispatcher
(``py_impl``), the ``ops`` namespace and ``explain_dispatch``. Imports nothing
from ``tracer`` or ``passes``. See DESIGN.md for the path of one call.
"""

from . import dtypes as _dtype_module
from . import fallbacks as _fallbacks
from . import ops
from .api.from_data import as_tensor, from_numpy, tensor
from .dtypes import (
    bool,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .errors import (
    AmbiguousAutogradOtherError,
    DispatchError,
    RegistrationError,
    SchemaArgumentError,
    SchemaError,
)
from .explain import DispatchExplanation, explain_dispatch
from .keys import DispatchKey
from .keyset import DispatchKeySet, full_after
from .library import Library, fallthrough_kernel
from .memory_format import (  # torch.preserve_format etc. (generated graph code names them so)  # noqa: E402, F401
    channels_last,
    channels_last_3d,
    contiguous_format,
    jagged,
    preserve_format,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from .op_overload import OpOverload, OpOverloadPacket
from .schema import FunctionSchema, parse_schema
from .tensor import Size, Tensor, device
from .tls import (
    AutoDispatchBelowADInplaceOrView,
    AutoDispatchBelowAutograd,
    DisablePythonDispatcher,
    EnablePreDispatch,
    EnablePythonDispatcher,
    ExcludeDispatchKeyGuard,
    IncludeDispatchKeyGuard,
    tls_local_exclude_set,
    tls_local_include_set,
)

_fallbacks.install()
from .api import tensor_methods as _tensor_methods  # noqa: E402
from .ops import registration as _registration  # noqa: E402

_tensor_methods.install()
_registration.register_aten()

from . import autograd  # noqa: E402
from .autograd import (  # noqa: E402
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)


def _backward(self: Tensor, gradient: object = None, retain_graph: object = None, create_graph: bool = False,
              inputs: object = None) -> None:
    """``Tensor.backward``: accumulate gradients of this tensor into the leaves' ``.grad``."""
    autograd.backward(self, gradient, retain_graph, create_graph, inputs)


Tensor.backward = _backward
dtype = _dtype_module.dtype

# --- modes exports ---
from . import fake, modes  # noqa: E402  (fake: FakeTensor, FakeTensorMode, see dispatcher/fake/)
from .modes import TorchDispatchMode  # noqa: E402

# --- end modes exports ---

__all__ = [
    "TorchDispatchMode",
    "fake",
    "modes",
    "autograd",
    "enable_grad",
    "is_grad_enabled",
    "no_grad",
    "inference_mode",
    "is_inference_mode_enabled",
    "set_grad_enabled",
    "Size",
    "Tensor",
    "as_tensor",
    "bool",
    "complex64",
    "complex128",
    "uint16",
    "uint32",
    "uint64",
    "device",
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "preserve_format",
    "strided",
    "dtype",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "get_default_dtype",
    "int8",
    "int16",
    "int32",
    "int64",
    "promote_types",
    "set_default_dtype",
    "tensor",
    "uint8",
    "AmbiguousAutogradOtherError",
    "AutoDispatchBelowADInplaceOrView",
    "AutoDispatchBelowAutograd",
    "DisablePythonDispatcher",
    "DispatchError",
    "DispatchExplanation",
    "DispatchKey",
    "DispatchKeySet",
    "EnablePreDispatch",
    "EnablePythonDispatcher",
    "ExcludeDispatchKeyGuard",
    "FunctionSchema",
    "IncludeDispatchKeyGuard",
    "Library",
    "OpOverload",
    "OpOverloadPacket",
    "RegistrationError",
    "SchemaArgumentError",
    "SchemaError",
    "explain_dispatch",
    "fallthrough_kernel",
    "full_after",
    "ops",
    "parse_schema",
    "tls_local_exclude_set",
    "tls_local_include_set",
]

# --- front end exports ---
# torch-level functions (dispatcher/api/torch_functions.py) and dispatcher.nn; owned by the front end.
from . import nn  # noqa: E402, F401
from .api import torch_functions as _functional  # noqa: E402

for _name in _functional.__all__:
    globals()[_name] = getattr(_functional, _name)
__all__ += [_n for _n in _functional.__all__ if _n not in __all__] + ["nn"]
del _name
# --- end front end exports ---

# --- __torch_function__ (dispatcher/modes/function_mode.py): wrap the public callables ---
import sys as _sys  # noqa: E402

from .modes import TorchFunctionMode  # noqa: E402
from .modes import function_mode as _function_mode  # noqa: E402
from .nn import functional as _nn_functional  # noqa: E402

_NOT_OVERRIDABLE = {"tensor", "as_tensor", "from_numpy", "is_tensor", "manual_seed"}  # torch's ignored functions
_function_mode.install(Tensor, [
    (_sys.modules[__name__], [n for n in _functional.__all__ if n not in _NOT_OVERRIDABLE]),
    (_nn_functional, list(_nn_functional.__all__)),
])
__all__ += ["TorchFunctionMode"]
# --- end __torch_function__ ---

from . import _C  # noqa: E402, F401  (torch._C's private names: _EnablePythonDispatcher, _set_grad_enabled, ...)

# --- nn modules / optim exports (dispatcher/nn/module.py, dispatcher/optim/) ---
__all__ += ["optim", "ScriptObject"]
from . import optim  # noqa: E402
from .script_object import ScriptObject  # noqa: E402

# --- end nn modules / optim exports ---

# --- training utilities (generators, NumPy interop, checkpoints: dispatcher/serialization/) ---
__all__ += ["Generator", "default_generator", "get_rng_state", "initial_seed", "load", "random", "save", "seed",
            "serialization", "set_rng_state"]
from . import numpy_interop as _numpy_interop  # noqa: E402
from . import random, serialization  # noqa: E402
from .random import Generator, get_rng_state, initial_seed, seed, set_rng_state  # noqa: E402
from .serialization import load, save  # noqa: E402

default_generator = random.default_generator()  #: the process-wide CPU generator (``torch.default_generator``)
_numpy_interop.install(Tensor, from_numpy, as_tensor)
# --- end training utilities ---

# --- torch names that do not exist here (dispatcher/_missing.py): an AttributeError naming what to use ---
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    from ._missing import missing_attribute

    raise missing_attribute(__name__, name)
# --- end torch names ---

# --- dtype aliases (torch.long, torch.float, ...): the names torch exports for our dtypes (issue 17) ---
__all__ += ["cdouble", "cfloat", "double", "float", "half", "int", "long", "short"]
# --- end dtype aliases ---
# --- torch.backends (dispatcher/backends/): the MHA / Transformer fast-path switch (issue 19) ---
from . import backends  # noqa: E402, F401
from .dtypes import cdouble, cfloat, double, half, long, short  # noqa: E402
from .dtypes import float as float  # noqa: E402, A004 - torch.float is float32
from .dtypes import int as int  # noqa: E402, A004 - torch.int is int32

__all__ += ["backends"]
# --- end torch.backends ---
# --- storages (dispatcher/storage.py): torch.UntypedStorage, TypedStorage, Storage, FloatStorage ... (wt-storage) ---
from . import multiprocessing, storage  # noqa: E402  (multiprocessing: reductions.StorageWeakRef only)
from .storage import LEGACY_STORAGE_CLASSES as _LEGACY_STORAGE_CLASSES  # noqa: E402
from .storage import TypedStorage, UntypedStorage, is_storage  # noqa: E402

globals().update(_LEGACY_STORAGE_CLASSES)
Storage = _LEGACY_STORAGE_CLASSES["FloatStorage"]  # torch.Storage: the default dtype's legacy class
__all__ += ["Storage", "TypedStorage", "UntypedStorage", "is_storage", "multiprocessing", "storage",
            *_LEGACY_STORAGE_CLASSES]
# --- end storages ---
from .api.storage import _functionalize_unsafe_set  # noqa: E402, F401  (torch._functionalize_unsafe_set)

# torch.utils.data (dispatcher/utils/data/): datasets, samplers, collation, DataLoader
from .utils import data as _utils_data  # noqa: E402, F401  (makes dispatcher.utils.data reachable as torch's)

# --- torch.func (functional_call: dispatcher/func.py) ---
__all__ += ["func"]
from . import func  # noqa: E402

# --- end torch.func ---

# --- torch.Stream (dispatcher/stream.py) ---
__all__ += ["Stream"]
from .stream import Stream  # noqa: E402

# --- end torch.Stream ---

# --- torch.fft (dispatcher/fft.py, functions in dispatcher/api/fft.py; wt-fft) ---
__all__ += ["fft"]
from . import fft  # noqa: E402

# --- end torch.fft ---
# --- torch.linalg (dispatcher/linalg.py): lstsq, pinv, vector_norm, LinAlgError (wt-lstsq) ---
__all__ += ["linalg"]
from . import linalg  # noqa: E402

_function_mode._wrap_module(linalg, ["lstsq", "pinv", "vector_norm", "matmul"])  # seen by __torch_function__
for _name in ("lstsq", "pinv", "vector_norm", "matmul"):  # named as torch's bindings: linalg_lstsq, ...
    getattr(linalg, _name).__name__ = f"linalg_{_name}"
# --- end torch.linalg ---
