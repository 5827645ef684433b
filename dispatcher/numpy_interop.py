"""NumPy interoperation of ``Tensor``: what NumPy sees of a tensor, and what a ufunc gives back.

Corresponds to the NumPy hooks of torch/_tensor.py (``__array__``, ``__array_wrap__``,
``__array_priority__``) and the ndarray branch of ``Tensor.__eq__`` (PyTorch 2.13):

* ``__array_priority__ = 1000``: in ``tensor + ndarray`` the Tensor's operator declines the ndarray
  (NotImplemented), NumPy's reflected operator computes with the tensor's values (``__array__``,
  which is ``numpy()``: a tensor that requires grad refuses) and ``__array_wrap__`` turns the result
  back into a Tensor. So ``t + ndarray``, ``t * ndarray``, ``np.sin(t)`` give Tensors with NumPy's
  result dtype (a bool result becomes uint8, as PyTorch's wrapper does), while ``ndarray + t`` raises
  a TypeError (NumPy defers to the higher-priority Tensor, whose reflected operator declines).
* ``t == ndarray`` compares with the array made a tensor (a bool Tensor); ``!=``, ``<`` and friends
  decline, as PyTorch's do.

``from_numpy`` / ``numpy()`` themselves (memory shared both ways) live in api/from_data.py and
api/interop.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["install"]


def install(tensor_cls: Any, from_numpy: Any, as_tensor: Any) -> None:
    """Give ``tensor_cls`` the NumPy hooks (called once, by ``dispatcher/__init__``)."""

    def __array_wrap__(self: Any, array: np.ndarray, context: Any = None, return_scalar: bool = False) -> Any:  # noqa: N807
        if array.dtype == np.bool_:
            array = array.astype("uint8")  # PyTorch's workaround, kept: a NumPy bool result becomes a uint8 tensor
        return from_numpy(np.asarray(array))

    tensor_eq = tensor_cls.__eq__

    def __eq__(self: Any, other: Any) -> Any:  # noqa: N807
        if other.__class__ is np.ndarray:
            other = as_tensor(other)
        return tensor_eq(self, other)

    tensor_cls.__array_priority__ = 1000
    tensor_cls.__array_wrap__ = __array_wrap__
    tensor_cls.__eq__ = __eq__
