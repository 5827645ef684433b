"""Kernels of the attn batch's ``lerp`` family and ``one_hot``.

Corresponds to PyTorch 2.13's native/Lerp.cpp + cpu/LerpKernel.cpp and the ``one_hot`` kernel of
native/Onehot.cpp:

* ``lerp.Scalar`` / ``lerp.Tensor`` (and in place ``lerp_``): ``self + weight * (end - self)``, computed as the
  CPU kernel does (``end - (end - self) * (1 - weight)`` where ``|weight| >= 0.5``, for precision). No type
  promotion: ``end`` and a tensor ``weight`` must have ``self``'s dtype; integral dtypes are refused.
* ``one_hot`` (CompositeImplicitAutograd) has two paths. On real tensors it reads the class range
  (``aminmax`` + two ``item``s, which a real-mode trace refuses as data-dependent, as PyTorch's does) and fills
  ``zeros`` with ``scatter_``; on meta / fake tensors (meta device or the Python key) it compares
  ``unsqueeze(-1)`` with an ``arange`` (``eq`` + ``to(int64)``), the path fake-mode graphs record.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..keys import DispatchKey
from ..keyset import key_bits
from ..memory_format import strided
from ..tensor import Tensor
from . import pointwise as _pw
from .decompositions import _op
from .kernel_registry import impl
from .pointwise_more import _store

_PYTHON_BIT = key_bits(DispatchKey.Python)


def _c_name(dt: _dt.dtype) -> str:
    """dtype as ``c10::toString(ScalarType)`` lower-cased in lerp's messages ("float", "double", "long")."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "bool": "bool"}.get(dt.name, dt.name)


def _lerp_values(start: Any, end: Any, weight: Any) -> Any:
    with np.errstate(all="ignore"):
        diff = end - start
        return np.where(np.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


def _lerp(kernel: str, self: Tensor, end: Tensor, weight: Any) -> Tensor:
    if end._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {_c_name(self._dtype)} for `end` but got dtype {_c_name(end._dtype)}")
    operands: tuple[Any, ...] = (self, end)
    if isinstance(weight, Tensor):
        if weight._dtype is not self._dtype:
            raise RuntimeError(
                f"expected dtype {_c_name(self._dtype)} for `weight` but got dtype {_c_name(weight._dtype)}")
        operands = (self, end, weight)
    meta = _pw.iter_meta(operands, self._dtype)
    _pw._require_dtype(kernel, self._dtype, self, lambda d: d.is_floating_point or d.is_complex)

    def compute() -> Any:
        dt = self._dtype
        w = _pw._operand(weight, dt) if isinstance(weight, Tensor) else dt.np_dtype.type(weight)
        return _lerp_values(_pw._operand(self, dt), _pw._operand(end, dt), w)

    return _pw._run(meta, self, compute)


@impl("lerp.Scalar", "CPU", "Meta")
def lerp_scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return _lerp("lerp_kernel_scalar", self, end, weight)


@impl("lerp.Tensor", "CPU", "Meta")
def lerp_tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    return _lerp("lerp_kernel_tensor", self, end, weight)


@impl("lerp_.Scalar", "CPU", "Meta")
def lerp__scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return _store(self, lerp_scalar(self, end, weight))


@impl("lerp_.Tensor", "CPU", "Meta")
def lerp__tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    return _store(self, lerp_tensor(self, end, weight))


# --- one_hot (Onehot.cpp) -------------------------------------------------------------------------------------------


def _is_meta_or_python(t: Tensor) -> bool:
    """``self.key_set()`` has the Meta backend bit or the Python key: meta tensors and fake tensors."""
    return t._device.type == "meta" or bool(getattr(t, "_key_set", 0) & _PYTHON_BIT)


@impl("one_hot", "CompositeImplicitAutograd")
def one_hot(self: Tensor, num_classes: int = -1) -> Tensor:
    if self._dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if _is_meta_or_python(self):
        if num_classes == -1:
            num_classes = int(_op("item")(_op("max")(self))) + 1
        index = _op("arange")(num_classes, dtype=_dt.int64, layout=strided, device=self._device)
        return _op("to.dtype")(_op("eq.Tensor")(_op("unsqueeze")(self, -1), index), _dt.int64)
    shape = list(self._shape)
    if self.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _op("empty.memory_format")([*shape, num_classes], dtype=_dt.int64, layout=strided,
                                          device=self._device)
    lo, hi = _op("aminmax")(self)
    min_value, max_value = int(_op("item")(lo)), int(_op("item")(hi))
    if min_value < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = max_value + 1
    elif max_value >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    result = _op("zeros")([*shape, num_classes], dtype=_dt.int64, layout=strided, device=self._device)
    _op("scatter_.value")(result, -1, _op("unsqueeze")(self, -1), 1)
    return result
