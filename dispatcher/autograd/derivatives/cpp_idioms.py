"""C++ expressions PyTorch's formulas of several families use, written as the aten ops they dispatch.

Corresponds to the idioms of torch/csrc/autograd/FunctionsManual.cpp and ATen's TensorOperators.h:
``t.options()`` as factory keyword arguments, ``maybe_multiply``, ``scalar - tensor``, ``t.type_as(other)``,
``maybe_wrap_dim`` and ``at::areAnyTensorSubclassLike``. Some C++ helpers take a different path when a tensor
is "subclass-like", which includes any call made while a dispatch mode is active (``index_backward`` calls
``index_put`` instead of ``_index_put_impl_``, ...); the formulas ask the same question
(``_subclass_like``, i.e. ``decompositions.is_tensor_subclass_like``). Helpers of one family live in that
family's module.
"""

from __future__ import annotations

from typing import Any

from ...memory_format import preserve_format, strided
from ...op_overload import namespace
from ...ops import composite as _decomp

aten = namespace("aten")
_STRIDED = 0  # Layout code of torch.strided


def _subclass_like(*tensors: Any) -> bool:
    """``areAnyTensorSubclassLike``: a dispatch mode is active or a tensor carries the Python key."""
    return any(_decomp.is_tensor_subclass_like(t) for t in tensors if t is not None)


def _options(t: Any, dtype: Any = None) -> dict[str, Any]:
    """``t.options()`` as factory keyword arguments (``.dtype(...)`` replaces the dtype)."""
    return {"dtype": t._dtype if dtype is None else dtype, "layout": _STRIDED, "device": t._device}


def _strided_options(t: Any) -> dict[str, Any]:
    """``t.options()`` as factory keyword arguments (dtype, layout, device; no pin_memory), the layout as
    ``torch.strided`` (``_options`` passes its code, 0). Imported as ``_options`` by the modules using it."""
    return {"dtype": t._dtype, "layout": strided, "device": t._device}


def _type_as(mask: Any, grad: Any) -> Any:
    """``mask.type_as(grad)``: ``_to_copy(mask, grad.options())``."""
    return aten._to_copy.default(mask, **_options(grad))


def _scaled(grad: Any, factor: Any) -> Any:
    """``maybe_multiply``: grad * factor (C++ ``Tensor * Scalar``, i.e. ``mul.Scalar``) unless factor is 1."""
    return grad if factor == 1 else aten.mul.Scalar(grad, factor)


def _rsub(scalar: Any, t: Any) -> Any:
    """C++ ``scalar - tensor``: ``empty_like(t, preserve_format).fill_(scalar).sub_(t)``."""
    out = aten.empty_like.default(t, memory_format=preserve_format)
    return aten.sub_.Tensor(aten.fill_.Scalar(out, scalar), t)


def _one_minus(x: Any) -> Any:
    """C++'s ``1 - x`` (operator-(Scalar, Tensor)): ``empty_like(x).fill_(1).sub_(x)``."""
    return aten.sub_.Tensor(aten.fill_.Scalar(aten.empty_like.default(x, memory_format=preserve_format), 1), x)


def _wrap(dim: int, ndim: int) -> int:
    """``maybe_wrap_dim``: a 0-dim tensor takes dims -1 and 0."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _conj(t: Any) -> Any:
    """``t.conj()`` (``Tensor::conj``, inlined in torch): ``_conj`` for a complex tensor, ``t`` itself otherwise, so
    formulas of real tensors record no extra op."""
    if t is None or not getattr(t, "_dtype", None) or not t._dtype.is_complex:
        return t
    return aten._conj.default(t)


def _handle_r_to_c(self_dtype: Any, grad: Any) -> Any:
    """``handle_r_to_c``: the real part of a complex gradient flowing to a real input."""
    if grad is not None and not self_dtype.is_complex and grad._dtype.is_complex:
        return aten.real.default(grad)
    return grad
