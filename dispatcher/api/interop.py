"""Tensor's Python and NumPy protocols: ``tolist``, ``numpy``, ``np.asarray(t)`` (``__array__``), iteration
and ``format()``.

Corresponds to torch/_tensor.py (``__iter__``, ``__format__``, ``__array__``) and the
python_variable_methods.cpp bindings of ``tolist`` / ``numpy``. Iterating unbinds dim 0 through the
``unbind`` method, so a TorchFunctionMode sees ``dim`` and ``unbind`` as with torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..math_bits import MATH_BITS, is_conj, logical_values
from ..tensor import Tensor
from ..zero_tensor import ZERO_BIT


def _has_python_key(self: Tensor) -> bool:
    from ..tls import PYTHON_RAW

    return bool(self._key_set & PYTHON_RAW)


def tolist(self: Tensor) -> Any:
    if _has_python_key(self):
        raise RuntimeError(f".tolist() is not supported for tensor subclasses, got {type(self).__name__}")
    if self._data is None:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
    if self._key_set & ZERO_BIT:  # torch's zero tensors have no storage
        raise RuntimeError("tolist() shouldn't be called on a tensor with unallocated storage")
    return logical_values(self).tolist()  # conj / neg bits resolved, as torch's tolist


def numpy(self: Tensor, *, force: bool = False) -> Any:
    if _has_python_key(self):
        raise RuntimeError(".numpy() is not supported for tensor subclasses.")
    if self._device.type != "cpu":
        raise TypeError(f"can't convert {self._device.type} device type tensor to numpy. Use Tensor.cpu() to copy the "
                        "tensor to host memory first.")
    if self._data is None:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
    if self.requires_grad and not force:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    if self._key_set & ZERO_BIT:  # a zero tensor (zero_tensor.py): force=True gives the zeros
        if force:
            return np.array(logical_values(self))
        raise RuntimeError(" Cannot convert a ZeroTensor to numpy. Set force=True if you need the zero array.")
    if self._key_set & MATH_BITS:  # the conjugate / negative bits (math_bits.py): force=True resolves them
        if force:
            return np.array(logical_values(self))
        bit, fix = ("conjugate", "resolve_conj") if is_conj(self) else ("negative", "resolve_neg")
        raise RuntimeError(f"Can't call numpy() on Tensor that has {bit} bit set. Use tensor.{fix}().numpy() instead.")
    return self._data


def _array(self: Tensor, dtype: Any = None, copy: Any = None) -> np.ndarray:
    """``np.asarray(t)``: the values (a copy when a dtype conversion is asked for)."""
    arr = numpy(self)
    return arr if dtype is None else arr.astype(dtype)


def _iter(self: Tensor) -> Any:
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))  # the method: a TorchFunctionMode sees dim, unbind as in torch


def _format(self: Tensor, spec: str) -> str:
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach ``tolist`` / ``numpy`` / ``__array__`` / ``__iter__`` / ``__format__`` (called by ``tensor_methods.install``)."""
    T.tolist = tolist
    T.numpy = numpy
    T.__array__ = _array
    T.__iter__ = _iter
    T.__format__ = _format
