"""Dispatch keys: PyTorch's ``DispatchKey`` enum, backend components and alias keys.

Corresponds to c10/core/DispatchKey.h. The *value* of a key is its priority: a
higher value is handled first. Keys come in four kinds:

* **functionality keys** (values 1..46): one slot of behaviour each (Python,
  ADInplaceOrView, AutocastCPU, PythonDispatcher, ...);
* six of those are **per-backend functionalities** (Dense, Quantized, Sparse,
  SparseCsr, NestedTensor, AutogradFunctionality): they are never dispatched to
  directly; instead each of the 16 **backend components** gives them a
  **per-backend runtime key** (CPU = Dense x CPU, AutogradMeta =
  AutogradFunctionality x Meta, ...), numbered after the functionality keys;
* **alias keys** (Autograd, CompositeImplicitAutograd, ...) exist only at
  registration time and stand for a set of runtime keys (see ``alias.py``).

The old names ``Math`` and ``DefaultBackend`` are enum aliases of
CompositeImplicitAutograd and CompositeExplicitAutograd, as in PyTorch.
"""

from __future__ import annotations

from enum import IntEnum

# The 16 backend components, in bit order (c10::BackendComponent). Meta is last,
# so when several backend bits are set, Meta wins.
BACKENDS: tuple[str, ...] = (
    "CPU", "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU",
    "VE", "Lazy", "MTIA", "MAIA", "PrivateUse1", "PrivateUse2", "PrivateUse3", "Meta",
)
NUM_BACKENDS = len(BACKENDS)

# Functionality keys, value = priority (c10::DispatchKey, 2.13 numbering).
_FUNCTIONALITIES: tuple[str, ...] = (
    "Undefined",                       # 0
    "Dense",                           # 1  (per backend)
    "FPGA", "Vulkan", "Metal",         # 2..4
    "Quantized",                       # 5  (per backend)
    "CustomRNGKeyId", "MkldnnCPU",     # 6, 7
    "Sparse", "SparseCsr", "NestedTensor",  # 8..10 (per backend)
    "BackendSelect",                   # 11
    "Fake",                            # 12
    "Python",                          # 13
    "FuncTorchDynamicLayerBackMode",   # 14
    "Functionalize",                   # 15
    "Conjugate", "Negative", "ZeroTensor",  # 16..18
    "ADInplaceOrView",                 # 19
    "AutogradOther",                   # 20
    "AutogradFunctionality",           # 21 (per backend)
    "AutogradNestedTensor",            # 22
    "Tracer",                          # 23
    "AutocastCPU", "AutocastMTIA", "AutocastMAIA", "AutocastXPU", "AutocastIPU",
    "AutocastHPU", "AutocastXLA", "AutocastMPS", "AutocastCUDA", "AutocastPrivateUse1",  # 24..33
    "FuncTorchBatched",                # 34
    "BatchedNestedTensor",             # 35
    "FuncTorchVmapMode",               # 36
    "Batched",                         # 37
    "VmapMode",                        # 38
    "FuncTorchGradWrapper",            # 39
    "DeferredInit",                    # 40
    "PythonTLSSnapshot",               # 41
    "FuncTorchDynamicLayerFrontMode",  # 42
    "TESTING_ONLY_GenericWrapper",     # 43
    "TESTING_ONLY_GenericMode",        # 44
    "PreDispatch",                     # 45
    "PythonDispatcher",                # 46
)
NUM_FUNCTIONALITIES = len(_FUNCTIONALITIES)  # 47 == EndOfFunctionalityKeys

# Per-backend functionalities and the prefix of their runtime keys' names.
PER_BACKEND_FUNCTIONALITIES: dict[str, str] = {
    "Dense": "",
    "Quantized": "Quantized",
    "Sparse": "Sparse",
    "SparseCsr": "SparseCsr",
    "NestedTensor": "NestedTensor",
    "AutogradFunctionality": "Autograd",
}

_ALIASES: tuple[str, ...] = (
    "Autograd",
    "CompositeImplicitAutograd",
    "FuncTorchBatchedDecomposition",
    "CompositeImplicitAutogradNestedTensor",
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
)


def _build_members() -> dict[str, int]:
    members: dict[str, int] = {name: value for value, name in enumerate(_FUNCTIONALITIES)}
    members["EndOfFunctionalityKeys"] = NUM_FUNCTIONALITIES
    value = NUM_FUNCTIONALITIES
    for functionality, prefix in PER_BACKEND_FUNCTIONALITIES.items():
        value += 1
        members[f"StartOf{functionality}Backends"] = value
        for backend in BACKENDS:
            value += 1
            members[prefix + backend] = value
    value += 1
    for alias in _ALIASES:
        members[alias] = value
        value += 1
    # Old names kept by PyTorch as enum aliases.
    members["Math"] = members["CompositeImplicitAutograd"]
    members["DefaultBackend"] = members["CompositeExplicitAutograd"]
    return members


class _DispatchKeyBase(IntEnum):
    def __str__(self) -> str:
        return f"DispatchKey.{self.name}"

    def __repr__(self) -> str:
        return f"<DispatchKey.{self.name}: {int(self)}>"


DispatchKey = _DispatchKeyBase("DispatchKey", _build_members(), module=__name__)
DispatchKey.__doc__ = "PyTorch's dispatch keys; the value is the priority (higher runs first)."

# ----------------------------------------------------------------------------
# Tables derived once, so that questions about keys are list lookups.

_MAX_KEY = max(int(k) for k in DispatchKey)

#: functionality value -> first runtime key value - 1 (the StartOf... marker), or 0
PER_BACKEND_START: list[int] = [0] * NUM_FUNCTIONALITIES
for _f in PER_BACKEND_FUNCTIONALITIES:
    _v = int(DispatchKey[_f])
    PER_BACKEND_START[_v] = int(DispatchKey[f"StartOf{_f}Backends"])

#: runtime key value -> (functionality value, backend index 0..15) for per-backend keys
_KEY_TO_FUNCTIONALITY: list[int] = list(range(_MAX_KEY + 1))
_KEY_TO_BACKEND: list[int] = [-1] * (_MAX_KEY + 1)
for _f, _start in enumerate(PER_BACKEND_START):
    if _start:
        _KEY_TO_FUNCTIONALITY[_start] = _f
        for _b in range(NUM_BACKENDS):
            _KEY_TO_FUNCTIONALITY[_start + 1 + _b] = _f
            _KEY_TO_BACKEND[_start + 1 + _b] = _b
for _a in _ALIASES:
    _KEY_TO_FUNCTIONALITY[int(DispatchKey[_a])] = 0


def is_per_backend_functionality(key: int) -> bool:
    """True for Dense, Quantized, Sparse, SparseCsr, NestedTensor, AutogradFunctionality."""
    return key < NUM_FUNCTIONALITIES and PER_BACKEND_START[key] != 0


def is_alias_key(key: int) -> bool:
    """True for Autograd, CompositeImplicitAutograd and the other registration-only keys."""
    return int(key) >= int(DispatchKey.Autograd)


def is_per_backend_runtime_key(key: int) -> bool:
    """True for CPU, AutogradMeta, QuantizedXLA, ... (not for the StartOf... markers)."""
    return 0 <= key <= _MAX_KEY and _KEY_TO_BACKEND[key] >= 0


def is_runtime_key(key: int) -> bool:
    """A key that can own a dispatch-table slot: Undefined, a plain functionality, or a per-backend key."""
    if key < NUM_FUNCTIONALITIES:
        return not is_per_backend_functionality(key)
    return is_per_backend_runtime_key(key)


def to_functionality_key(key: int) -> DispatchKey:
    """The functionality of a key: AutogradCPU -> AutogradFunctionality; aliases -> Undefined."""
    key = int(key)
    if key < NUM_FUNCTIONALITIES:
        return DispatchKey(key)
    return DispatchKey(_KEY_TO_FUNCTIONALITY[key])


def to_backend_index(key: int) -> int:
    """Backend index 0..15 of a per-backend runtime key (CPU -> 0, Meta -> 15), or -1."""
    key = int(key)
    return _KEY_TO_BACKEND[key] if 0 <= key <= _MAX_KEY else -1


def runtime_key(functionality: int, backend: int) -> DispatchKey:
    """Combine a per-backend functionality with a backend index: (Dense, 0) -> CPU."""
    return DispatchKey(PER_BACKEND_START[int(functionality)] + 1 + backend)


def backend_dense_key(backend: int) -> DispatchKey:
    """The Dense runtime key of a backend index: 0 -> CPU, 15 -> Meta."""
    return runtime_key(DispatchKey.Dense, backend)


def autograd_key_for_backend(backend: int) -> DispatchKey:
    """AutogradCPU for CPU, AutogradMeta for Meta, ..."""
    return runtime_key(DispatchKey.AutogradFunctionality, backend)


def parse_dispatch_key(name: str | int | DispatchKey) -> DispatchKey:
    """Accept a DispatchKey, its value or its name (old names Math/DefaultBackend included).

    PyTorch's bindings convert a ``str`` to a DispatchKey implicitly wherever one is expected
    (``c10::parseDispatchKey``): ``DispatchKeySet("CPU")``, ``ks.has("CPU")``,
    ``_dispatch_tls_is_dispatch_key_included("CPU")`` ...; an unknown name is its RuntimeError."""
    if isinstance(name, DispatchKey):
        return name
    if isinstance(name, int):
        return DispatchKey(name)
    try:
        return DispatchKey[name]
    except KeyError:
        raise RuntimeError(f"could not parse dispatch key: {name}") from None


#: every runtime key in table order: Undefined first, then lowest to highest
#: priority, per-backend keys expanded in backend order (as _dispatch_dump_table prints).
RUNTIME_KEYS_IN_DUMP_ORDER: tuple[DispatchKey, ...] = tuple(
    [DispatchKey.Undefined]
    + [
        k
        for f in range(1, NUM_FUNCTIONALITIES)
        for k in (
            [runtime_key(f, b) for b in range(NUM_BACKENDS)]
            if is_per_backend_functionality(f)
            else [DispatchKey(f)]
        )
    ]
)
