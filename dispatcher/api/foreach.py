"""The torch-level ``_foreach_*`` functions (``torch._foreach_add_(tensors, 1.0)`` ...), as multi-tensor optimizers and
``nn.utils.clip_grad_norm_`` call them.

Corresponds to the python_torch_functions.cpp bindings of the ``_foreach_*`` ops: the binding picks the overload from
the second argument as PyTorch's parser does: a number is ``.Scalar``, a Tensor ``.Tensor``, a list of tensors
``.List``, a list of numbers ``.ScalarList`` (a 0-dim tensor is a Scalar where the op has no ``.Tensor`` overload);
the in-place ones return the list they were given (the binding's ``return self``). The kernels are dispatcher/ops/foreach.py.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = [
    "_foreach_add", "_foreach_add_", "_foreach_mul", "_foreach_mul_", "_foreach_div", "_foreach_div_",
    "_foreach_neg", "_foreach_neg_", "_foreach_sqrt", "_foreach_sqrt_", "_foreach_lerp", "_foreach_lerp_",
    "_foreach_addcmul", "_foreach_addcmul_", "_foreach_addcdiv", "_foreach_addcdiv_", "_foreach_maximum",
    "_foreach_maximum_", "_foreach_clamp_min_", "_foreach_clamp_max_", "_foreach_norm",
]

# --- torch/utils/_foreach_utils.py: which tensors take the foreach path, grouped how ----------------------------------


def _foreach_supported_types() -> tuple[type, ...]:
    from ..nn.parameter import Parameter

    return (Tensor, Parameter)


def _device_has_foreach_support(device: Any) -> bool:
    return device.type in ("cuda", "xpu", "mtia", "cpu")


def _has_foreach_support(tensors: list[Any], device: Any) -> bool:
    """``torch.utils._foreach_utils._has_foreach_support``: the device supports it and every tensor is plain."""
    supported = _foreach_supported_types()
    return _device_has_foreach_support(device) and all(t is None or type(t) in supported for t in tensors)


def group_tensors_by_device_and_dtype(tensorlistlist: list[list[Any]]) -> dict[tuple[Any, Any], tuple[list, list]]:
    """``torch.utils._foreach_utils._group_tensors_by_device_and_dtype``: ``{(device, dtype): ([sub-list per input
    list], indices)}``, grouped by the first list's tensors, groups in the order they first appear. Like PyTorch's it
    runs under ``no_grad`` (a pre-dispatch trace records the two grad-mode settings)."""
    from ..autograd.grad_mode import no_grad

    with no_grad():
        return _group(tensorlistlist)


def _group(tensorlistlist: list[list[Any]]) -> dict[tuple[Any, Any], tuple[list, list]]:
    groups: dict[tuple[Any, Any], tuple[list, list]] = {}
    for i, t in enumerate(tensorlistlist[0]):
        key = (t.device, t.dtype)
        if key not in groups:
            groups[key] = ([[] for _ in tensorlistlist], [])
        lists, indices = groups[key]
        for sub, source in zip(lists, tensorlistlist, strict=True):
            sub.append(source[i] if source else None)
        indices.append(i)
    return groups



def _kind(other: Any) -> str:
    """The overload a second argument selects."""
    if isinstance(other, Tensor):
        return "Tensor"
    if isinstance(other, (list, tuple)):
        if len(other) and all(isinstance(o, Tensor) for o in other):
            return "List"
        return "ScalarList"
    return "Scalar"


def _binary(base: str) -> Any:
    packet = getattr(aten, base)

    def fn(self: list[Tensor], other: Any, **kwargs: Any) -> Any:
        kind = _kind(other)
        if kind == "Tensor" and kind not in packet.overloads() and not other._shape:
            kind = "Scalar"  # PyTorch's parser takes a 0-dim tensor for a Scalar
        if kind not in packet.overloads():
            raise TypeError(f"{base}(): argument 'other' must be a {', '.join(packet.overloads())} here, not {kind}")
        out = getattr(packet, kind)(list(self), list(other) if isinstance(other, (list, tuple)) else other, **kwargs)
        return self if base.endswith("_") else out

    fn.__name__ = fn.__qualname__ = base
    fn.__doc__ = f"``torch.{base}``: the overload chosen by the second argument (Scalar / Tensor / List / ScalarList)."
    return fn


_foreach_add = _binary("_foreach_add")
_foreach_add_ = _binary("_foreach_add_")
_foreach_mul = _binary("_foreach_mul")
_foreach_mul_ = _binary("_foreach_mul_")
_foreach_div = _binary("_foreach_div")
_foreach_div_ = _binary("_foreach_div_")
_foreach_maximum = _binary("_foreach_maximum")
_foreach_maximum_ = _binary("_foreach_maximum_")
_foreach_clamp_min_ = _binary("_foreach_clamp_min_")
_foreach_clamp_max_ = _binary("_foreach_clamp_max_")


def _foreach_neg(self: list[Tensor]) -> list[Tensor]:
    return aten._foreach_neg.default(list(self))


def _foreach_neg_(self: list[Tensor]) -> list[Tensor]:
    aten._foreach_neg_.default(list(self))
    return self


def _foreach_sqrt(self: list[Tensor]) -> list[Tensor]:
    return aten._foreach_sqrt.default(list(self))


def _foreach_sqrt_(self: list[Tensor]) -> list[Tensor]:
    aten._foreach_sqrt_.default(list(self))
    return self


def _foreach_lerp(self: list[Tensor], tensors1: list[Tensor], weight: Any) -> list[Tensor]:
    return aten._foreach_lerp.Scalar(list(self), list(tensors1), weight)


def _foreach_lerp_(self: list[Tensor], tensors1: list[Tensor], weight: Any) -> list[Tensor]:
    aten._foreach_lerp_.Scalar(list(self), list(tensors1), weight)
    return self


def _addc(base: str) -> Any:
    packet = getattr(aten, base)

    def fn(self: list[Tensor], tensor1: list[Tensor], tensor2: list[Tensor], value: Any = 1) -> Any:
        if isinstance(value, (list, tuple)):
            if "ScalarList" not in packet.overloads():
                raise TypeError(f"{base}(): a list of scalars is not supported here")
            out = packet.ScalarList(list(self), list(tensor1), list(tensor2), list(value))
        else:
            out = packet.Scalar(list(self), list(tensor1), list(tensor2), value)
        return self if base.endswith("_") else out

    fn.__name__ = fn.__qualname__ = base
    fn.__doc__ = f"``torch.{base}``: ``value`` a number (``.Scalar``) or one number per tensor (``.ScalarList``)."
    return fn


_foreach_addcmul = _addc("_foreach_addcmul")
_foreach_addcmul_ = _addc("_foreach_addcmul_")
_foreach_addcdiv = _addc("_foreach_addcdiv")
_foreach_addcdiv_ = _addc("_foreach_addcdiv_")


def _foreach_norm(self: list[Tensor], ord: Any = 2, dtype: Any = None) -> list[Tensor]:  # noqa: A002 - torch's name
    """``torch._foreach_norm``: each tensor's vector norm."""
    if isinstance(ord, str) or isinstance(ord, bool):
        raise TypeError(f"_foreach_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}")
    kw = {} if dtype is None else {"dtype": dtype}
    if ord == 2 and not kw:
        return aten._foreach_norm.Scalar(list(self))
    return aten._foreach_norm.Scalar(list(self), ord, **kw)
