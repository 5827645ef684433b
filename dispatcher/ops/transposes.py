"""CompositeImplicitAutograd kernels of the transpose properties: ``x.T``, ``x.mT``, ``x.mH``, ``x.H``, ``x.adjoint()``.

Corresponds to TensorShape.cpp of PyTorch 2.13 (``numpy_T``, ``matrix_H``, ``mT``, ``mH``, ``adjoint``). They are
ops of their own, so a pre-dispatch trace records ``aten.numpy_T`` / ``aten.mT`` ... where a post-dispatch one
records the ``permute`` / ``transpose`` they call. Tensors here are never complex, so the conjugating forms
(``mH``, ``H``, ``adjoint``) transpose like ``mT``. Deprecated uses warn once per process, as TORCH_WARN_ONCE.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..tensor import Tensor
from .kernel_registry import impl

_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=4)


def _aten(name: str) -> Any:
    from ..op_overload import namespace

    base, _, overload = name.partition(".")
    return getattr(getattr(namespace("aten"), base), overload or "default")


@impl("numpy_T", "CompositeImplicitAutograd")
def numpy_T(self: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    n = len(self._shape)
    if n not in (0, 2):
        _warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
                   "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                   "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")
    if n == 0:
        _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.")
    return _aten("permute")(self, list(range(n - 1, -1, -1)))


def _adjoint(self: Tensor, name: str) -> Tensor:
    n = len(self._shape)
    if n == 1:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return self if n == 0 else _aten("transpose.int")(self, -2, -1)


@impl("mT", "CompositeImplicitAutograd")
def mT(self: Tensor) -> Tensor:  # noqa: N802
    if not self._shape:
        _warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.")
    return _adjoint(self, "mT")


@impl("mH", "CompositeImplicitAutograd")
def mH(self: Tensor) -> Tensor:  # noqa: N802
    if not self._shape:
        _warn_once("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")
    return _adjoint(self, "mH")


@impl("adjoint", "CompositeImplicitAutograd")
def adjoint(self: Tensor) -> Tensor:
    if not self._shape:
        _warn_once("adjoint() is deprecated on 0-D tensors. Consider using x.conj().")
    return _adjoint(self, "adjoint()")


@impl("matrix_H", "CompositeImplicitAutograd")
def matrix_H(self: Tensor) -> Tensor:  # noqa: N802
    n = len(self._shape)
    if n == 0:
        _warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
    if n not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if n > 2 else ""))
    return self if n == 0 else _aten("transpose.int")(self, -2, -1)
