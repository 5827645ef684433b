"""dispatcher: PyTorch's dispatcher rebuilt in Python.

Keys and key sets (``DispatchKey``, ``DispatchKeySet``), thread-local state and
its guards, operator schemas, ``Library`` registration, per-operator dispatch
tables with PyTorch 2.13's precedence rules, the Python dispatcher
(``py_impl``), the ``ops`` namespace and ``explain_dispatch``. Imports nothing
from ``tracer`` or ``passes``. See DESIGN.md for the path of one call.
"""

from . import fallbacks as _fallbacks
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
from .op_overload import OpOverload, OpOverloadPacket, ops
from .schema import FunctionSchema, parse_schema
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

__all__ = [
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
