"""A call mixing CPU and meta tensors: the device checks PyTorch's Meta kernels make, then the Meta kernel.

Corresponds to what PyTorch does when a call's tensors sit on CPU and on meta: the Meta backend bit wins, so the
Meta kernel runs. The Python meta functions and references behind most of them (torch/_meta_registrations.py,
torch/_refs, ``torch._prims_common.check_same_device``) refuse the mix, "Tensor on device cpu is not on the
expected device meta!" (the first tensor argument's device is the expected one; a 0-dim CPU tensor is a scalar and
passes); a few ops have their own wording (``index_copy``, ``div`` with rounding_mode='floor', ``silu_backward``'s
TensorIterator, ``copy`` out of meta, ``bernoulli_`` into a CPU tensor); the ``_foreach_*`` ops check each i-th
tuple of their lists (their Meta functions run the per-tensor reference), but for ``_foreach_{add,sub,mul,div}_.List``
and ``_foreach_copy_``; the others only read the inputs' metadata and return a meta tensor.

Ours share one kernel between CPU and Meta, telling them apart by one argument's device; so the dispatcher
(``dispatch.resolve_key_set``, when the key set holds both the CPU and the Meta backend bits and the kernel found is
the Meta one) asks ``mixed_device_kernel`` for a kernel that makes these checks and then runs the op's kernel with
every CPU tensor replaced by a meta tensor of the same metadata (as PyTorch's Meta kernel sees them). A
CompositeImplicitAutograd kernel is left as it is: the ops it calls make the checks. The few meta functions of
torch that shape their outputs by one tensor's own device (``device_hint``: embedding_bag's) ask ``device_hint``
here, for which such a stand-in still answers "cpu".
"""

from __future__ import annotations

from typing import Any

from ..kernel import BOXED, KernelFunction
from ..tensor import Tensor, device
from .native_functions import CIA, NATIVE_FUNCTIONS

_META = device("meta")
_KINDS = {op.name: op.kind for op in NATIVE_FUNCTIONS}

#: backend / CompositeExplicitAutograd ops whose Meta kernel checks that all tensors share a device
#: (torch._prims_common.check_same_device's message), measured against torch 2.13 by tests/bad_input_sweep.py
SAME_DEVICE = frozenset({
    "__irshift__.Tensor", "__ilshift__.Tensor", "__lshift__.Tensor", "__rshift__.Tensor", "__xor__.Tensor",
    "__ixor__.Tensor", "_log_softmax_backward_data", "_softmax_backward_data", "add.Tensor", "addcdiv",
    "addcdiv_", "addcmul", "addcmul_", "addmv", "addr", "allclose", "atan2", "atan2_", "binary_cross_entropy",
    "binary_cross_entropy_backward", "binary_cross_entropy_with_logits", "bitwise_and.Tensor", "bitwise_and_.Tensor",
    "bitwise_left_shift.Tensor", "bitwise_left_shift_.Tensor", "bitwise_or.Tensor", "bitwise_or_.Tensor",
    "bitwise_right_shift.Tensor", "bitwise_right_shift_.Tensor", "bitwise_xor.Tensor", "bitwise_xor_.Tensor", "cat",
    "clamp.Tensor", "clamp_.Tensor", "clamp_max.Tensor", "clamp_min.Tensor", "clamp_min_.Tensor", "clip.Tensor",
    "clip_.Tensor", "div.Tensor", "dot", "elu_backward", "eq.Tensor", "fmod.Tensor", "fmod_.Tensor", "ge.Tensor",
    "gelu_backward", "glu_backward", "gt.Tensor", "hardsigmoid_backward", "hardswish_backward",
    "hardtanh_backward", "heaviside", "heaviside_", "huber_loss", "huber_loss_backward", "hypot", "hypot_",
    "le.Tensor", "leaky_relu_backward", "lerp.Scalar", "lerp.Tensor", "lerp_.Scalar", "lerp_.Tensor",
    "log_sigmoid_backward", "logaddexp", "logical_and", "logical_or", "logical_xor", "logit_backward", "lt.Tensor",
    "masked_fill.Scalar", "max.other", "maximum", "min.other", "minimum", "mish_backward", "mse_loss",
    "mse_loss_backward", "mul.Tensor", "mv", "native_batch_norm", "native_group_norm", "native_group_norm_backward",
    "native_layer_norm", "native_layer_norm_backward", "ne.Tensor", "nll_loss2d_backward", "nll_loss2d_forward",
    "nll_loss_backward", "nll_loss_forward", "pow.Tensor_Tensor", "remainder.Tensor", "remainder_.Tensor",
    "sigmoid_backward", "smooth_l1_loss", "smooth_l1_loss_backward", "soft_margin_loss",
    "soft_margin_loss_backward", "softplus_backward", "stack", "sub.Tensor", "tanh_backward", "threshold_backward",
    "true_divide.Tensor", "vdot", "where.self", "xlogy.Tensor", "xlogy_.Tensor",
})
#: masked_fill with a tensor value: the value's device against self's first
_MASKED_FILL = frozenset({"masked_fill.Tensor", "masked_fill_.Tensor"})
#: ops whose Meta function checks only some arguments' devices, in this order (addmm: mat1, then self; max_unpool2d:
#: indices, then self; _weight_norm_interface's decomposition: g / norm(v); rsub.Tensor: sub(other, self))
_SOME_SAME_DEVICE = {"addmm": (1, 0), "max_unpool2d": (1, 0), "_weight_norm_interface": (1, 0),
                     "rsub.Tensor": (1, 0)}
#: ops whose divisor must be on the dividend's device (floor division: torch._refs' floor_divide)
_DIVISOR = frozenset({"floor_divide", "floor_divide_.Tensor"})
#: div with a rounding mode: 'floor' is floor_divide's check, None and 'trunc' check_same_device (self, then other)
_DIV_MODE = frozenset({"div.Tensor_mode", "divide.Tensor_mode", "div_.Tensor_mode", "divide_.Tensor_mode"})
#: index_add / index_copy: self, index and source on one device
_INDEX_SOURCE = {"index_add": "index_add", "index_add_": "index_add", "index_copy": "index_copy",
                 "index_copy_": "index_copy"}
#: foreach ops whose Meta function only checks the lists' lengths (the others check each i-th tuple's devices)
_FOREACH_NO_DEVICE_CHECK = frozenset({"_foreach_add_.List", "_foreach_sub_.List", "_foreach_mul_.List",
                                      "_foreach_div_.List", "_foreach_copy_"})
#: TensorIterator's check (C++ meta functions)
_TENSOR_ITERATOR = frozenset({"silu_backward"})
#: copies into a CPU tensor from a meta one
_COPIES = frozenset({"copy", "copy_", "native_dropout_backward"})


def _short_name(op: Any) -> str:
    return op.name().split("::", 1)[1]


def _tensors(args: tuple, kwargs: dict) -> list[Tensor]:
    out: list[Tensor] = []
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(t for t in v if isinstance(t, Tensor))
    return out


def _device_name(t: Tensor) -> str:
    return "meta" if t._data is None else "cpu"


def check_same_device(tensors: list[Tensor]) -> None:
    """``torch._prims_common.check_same_device`` (0-dim CPU tensors pass as scalars)."""
    expected = None
    for t in tensors:
        if t._data is not None and not t._shape:
            continue
        d = _device_name(t)
        if expected is None:
            expected = d
        elif d != expected:
            raise RuntimeError(f"Tensor on device {d} is not on the expected device {expected}!")


def _check(name: str, args: tuple, kwargs: dict) -> None:
    out = kwargs.get("out")
    if isinstance(out, Tensor) and out._data is not None:
        # an out= tensor on CPU: the result, computed on meta, cannot be copied into it
        raise RuntimeError("Attempting to copy from device meta to device cpu, but cross-device copies are not "
                           "allowed!")
    if name in ("_index_put_impl_", "bernoulli_.Tensor") and args[0]._data is not None:
        raise NotImplementedError("Cannot inplace into non-meta tensor with meta tensor argument")
    if name in _MASKED_FILL:
        self, mask, value = args[0], args[1], args[2]
        if isinstance(value, Tensor) and _device_name(value) != _device_name(self):
            raise RuntimeError("Expected `value` to be on same device as `a`")
        check_same_device([self, mask])
    elif name in SAME_DEVICE:
        check_same_device(_tensors(args, kwargs))
    elif name in _SOME_SAME_DEVICE:
        check_same_device([args[i] for i in _SOME_SAME_DEVICE[name] if isinstance(args[i], Tensor)])
    elif name in _DIV_MODE and kwargs.get("rounding_mode", args[2] if len(args) > 2 else None) != "floor":
        check_same_device([t for t in args[:2] if isinstance(t, Tensor)])
    elif name in _DIVISOR or name in _DIV_MODE:
        a, b = args[0], args[1]
        if isinstance(a, Tensor) and isinstance(b, Tensor) and b._data is None and a._data is not None:
            raise RuntimeError("Expected divisor (b) to be on the same device (cpu) as dividend (a), but it is found "
                               "on meta!")
    elif name in _INDEX_SOURCE:
        self, index, source = args[0], args[2], args[3]
        if not all(isinstance(t, Tensor) for t in (self, index, source)):
            return
        raise RuntimeError(f"{_INDEX_SOURCE[name]}(): self, index and source expected to be in the same device, but "
                           f"got (self) {_device_name(self)}, (index) {_device_name(index)}, and (source) "
                           f"{_device_name(source)}")
    elif name.startswith("_foreach_") and name not in _FOREACH_NO_DEVICE_CHECK:
        # the Meta kernel runs the per-tensor reference on each i-th tuple of the lists (torch/_meta_registrations.py)
        lists = [v for v in args if isinstance(v, (list, tuple)) and any(isinstance(t, Tensor) for t in v)]
        for i in range(max((len(v) for v in lists), default=0)):
            check_same_device([v[i] for v in lists if i < len(v) and isinstance(v[i], Tensor)])
    elif name in _TENSOR_ITERATOR:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, meta and "
                           "cpu!")
    elif name in _COPIES:
        dst, src = args[0], args[1]
        if isinstance(dst, Tensor) and isinstance(src, Tensor) and dst._data is not None and src._data is None:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")


#: CompositeExplicitAutograd ops whose kernel reads a CPU argument's values by design and runs on meta data as it
#: is (torch runs that kernel for the Meta key too): ``_pack_padded_sequence``'s CPU ``lengths``
_READS_CPU_ARGUMENT = frozenset({"_pack_padded_sequence"})


def _as_meta(v: Any) -> Any:
    if isinstance(v, Tensor):
        if v._data is None:
            return v
        stand_in = Tensor._empty(v._shape, v._dtype, _META, v._stride)
        stand_in._cpu_stand_in = True  # (see device_hint)
        return stand_in
    if isinstance(v, list) and any(isinstance(t, Tensor) for t in v):
        return [_as_meta(t) for t in v]
    return v


def device_hint(t: Tensor) -> str:
    """torch._meta_registrations' device_hint for a Meta kernel: the device type of the tensor the caller passed,
    "cpu" for the meta stand-in of a CPU tensor in a cpu/meta mix (a few meta functions shape their outputs by it)."""
    return "cpu" if getattr(t, "_cpu_stand_in", False) else t.device.type


def mixed_device_kernel(op: Any, kernel: KernelFunction) -> KernelFunction | None:
    """The kernel to run for ``op`` on CPU and meta tensors together, or None to keep ``kernel``."""
    if op.namespace != "aten" or kernel.is_fallthrough:
        return None
    name = _short_name(op)
    if _KINDS.get(name, CIA) == CIA or name in _READS_CPU_ARGUMENT:
        return None

    def mixed(op_: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        if not any(t._data is not None for t in _tensors(args, kwargs)):
            # no CPU tensor after all: fake tensors dispatch with both backend bits (fake/fake_mode.py)
            return kernel.call(op_, ks, args, kwargs)
        _check(name, args, kwargs)
        return kernel.call(op_, ks, tuple(_as_meta(a) for a in args), {k: _as_meta(v) for k, v in kwargs.items()})

    return KernelFunction(mixed, BOXED, debug=kernel.debug, from_python=False)
