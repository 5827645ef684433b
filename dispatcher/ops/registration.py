"""Define every aten operator of the listing and register its kernels.

Corresponds to the generated RegisterSchema.cpp / RegisterCPU.cpp /
RegisterCompositeImplicitAutograd.cpp ... files. One ``Library("aten", "DEF")``
owns the namespace for the life of the process.
"""

from __future__ import annotations

import importlib

from ..library import Library
from .inplace_or_view import make_inplace_kernel
from .kernel_dtypes_unsigned import UNSIGNED_KERNELS
from .kernel_dtypes_unsigned import gate as unsigned_gate
from .kernel_registry import ELSEWHERE, KERNELS, SITES
from .memory_overlap import CHECKS_INTERNAL_OVERLAP, checking_internal_overlap
from .native_functions import BACKEND, CEA, CIA, NATIVE_FUNCTIONS

#: the kernel modules, one per op family (``<family>_<aspect>`` where a family's kernels are split)
KERNEL_MODULES = (
    "arithmetic", "arithmetic_clamp", "arithmetic_rounding", "arithmetic_aliases", "arithmetic_overloads", "transcendental", "comparison", "bitwise",
    "reductions", "reductions_std_var", "reductions_cumulative",
    "views", "views_scatter", "views_composite", "shape", "indexing", "indexing_scatter",
    "factories", "conversions", "random", "random_sampling", "random_inplace",
    "linalg", "linalg_matmul", "linalg_einsum",
    "activations", "activations_softmax", "normalization", "normalization_weight_norm", "losses", "losses_nll", "convolution", "pooling",
    "attention", "embedding", "dropout",
    "shape_padding", "convolution_fold",
    "tensor_info",
    "foreach",
    "activations", "activations_softmax", "normalization", "losses", "losses_nll", "convolution", "pooling",
    "attention", "embedding", "embedding_bag", "dropout",
    "pooling_nd", "resizing",
    "activations", "activations_softmax", "normalization", "losses", "losses_nll", "convolution", "pooling",
    "attention", "embedding", "dropout", "recurrent", "recurrent_kernels",
    "storage", "views_dtype",
    "complex",
    "arithmetic_zero_tensor",
    "streams",
)
KERNEL_MODULES += ("testing_ops",)
KERNEL_MODULES += ("fft",)  # wt-fft
KERNEL_MODULES += ("linalg_lstsq",)  # wt-lstsq

_KIND_KEYS = {
    BACKEND: ("CPU", "Meta"),
    CEA: ("CompositeExplicitAutograd",),
    CIA: ("CompositeImplicitAutograd",),
}

#: backend ops torch registers with a CPU kernel only: on meta tensors they reach the Meta backend fallback
#: (NotImplementedError "attempted to run this operator with Meta tensors"), as ``torch.equal`` does
NO_META_KERNEL = frozenset({"equal", "_nested_tensor_from_mask_left_aligned"})
NO_META_KERNEL = NO_META_KERNEL | {"is_set_to"}  # wt-storage
NO_META_KERNEL |= {"_foobar"}  # ATen's test op: a CPU kernel only
#: wt-stream: mutable ops torch gives no ADInplaceOrView kernel (gen_inplace_or_view_type skips ops returning
#: nothing: record_stream bumps no version counter)
NO_INPLACE_OR_VIEW = frozenset({"record_stream"})

ATEN: Library | None = None


def _overload(name: str):  # noqa: ANN202
    from ..op_overload import namespace

    base, _, overload = name.partition(".")
    return getattr(getattr(namespace("aten"), base), overload or "default")


def missing_kernels() -> list[str]:
    """Listed ops whose required kernels are not written yet (a test keeps this empty)."""
    missing = []
    for op in NATIVE_FUNCTIONS:
        for key in _KIND_KEYS[op.kind] + (("BackendSelect",) if op.factory else ()):
            if (op.name, key) not in KERNELS and not (key == "Meta" and op.name in NO_META_KERNEL) and not any(
                    (op.name, k) in ELSEWHERE for k in ("CUDA",)):
                missing.append(f"{op.name}:{key}")
    return missing


def register_aten() -> Library:
    """Import the kernel modules, define the aten ops and register every kernel found."""
    global ATEN
    if ATEN is not None:
        return ATEN
    for module in KERNEL_MODULES:
        try:
            importlib.import_module(f"{__package__}.{module}")
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.{module}":
                raise
    from .. import dispatch
    from .devices import mixed_device_kernel

    dispatch.MIXED_DEVICE_KERNEL = mixed_device_kernel
    lib = Library("aten", "DEF")
    listed = set()
    for op in NATIVE_FUNCTIONS:
        lib.define(op.schema, tags=op.tags)
        listed.add(op.name)
    for (name, key), fn in KERNELS.items():
        if name not in listed:
            raise RuntimeError(f"kernel for aten::{name} ({key}) but the op is not in native_functions.py")
        module = SITES[(name, key)][0] if (name, key) in SITES else fn.__module__
        if name in CHECKS_INTERNAL_OVERLAP and key != "CompositeImplicitAutograd":
            fn = checking_internal_overlap(fn)
        if name in UNSIGNED_KERNELS and key in ("CPU", "CompositeExplicitAutograd"):
            fn = unsigned_gate(fn, name)  # the CPU switch has no uint16 / uint32 / uint64 case
        lib.impl(name, fn, key, debug=f"registered at dispatcher/ops/{module.rsplit('.', 1)[-1]}.py")
    from ..autograd import (  # noqa: F401 - formulas (the derivatives package imports its family modules)
        MANUAL_AUTOGRAD_KERNELS,
        derivatives,
        register_autograd_kernel,
    )
    from ..autograd.views import is_multi_output_view, make_multi_output_view_kernel

    for op in NATIVE_FUNCTIONS:
        overload = _overload(op.name)
        if op.kind != CIA:
            register_autograd_kernel(overload)
        if overload._schema.is_mutable and op.name not in MANUAL_AUTOGRAD_KERNELS and op.name not in NO_INPLACE_OR_VIEW:
            lib.impl(op.name, make_inplace_kernel(overload), "ADInplaceOrView", with_keyset=True,
                     debug="registered at dispatcher/ops/inplace_or_view.py")
        elif op.kind != CIA and is_multi_output_view(overload._schema):  # unbind, split: outputs not modifiable
            lib.impl(op.name, make_multi_output_view_kernel(overload), "ADInplaceOrView", with_keyset=True,
                     debug="registered at dispatcher/autograd/views.py")
    from .views_dtype import register_inplace_or_view  # wt-storage: view.dtype's non-differentiable view

    register_inplace_or_view(lib)
    from ..library.core import fallthrough_kernel
    from ..math_bits import CONJUGATE_FALLTHROUGH, NEGATIVE_FALLTHROUGH

    for key, names, where in (("Conjugate", CONJUGATE_FALLTHROUGH, "ConjugateFallback.cpp"),
                              ("Negative", NEGATIVE_FALLTHROUGH, "NegateFallback.cpp")):
        for name in names:
            if name in listed:  # the per-op fallthroughs of the math-bit keys (math_bits.py)
                lib.impl(name, fallthrough_kernel, key, debug=f"registered at dispatcher/math_bits.py({where})")
    from ..zero_tensor import register as register_zero_tensor

    register_zero_tensor(lib, listed)  # the ZeroTensor kernels and fallthroughs (zero_tensor.py)
    ATEN = lib
    from .tensor_info import register_jit_ops  # TorchScript's metadata ops (aten::sym_size, prim::device, ...)

    register_jit_ops()
    return lib
