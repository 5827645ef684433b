"""In-place helpers that backward formulas of the ops_b batch call: ``pow_.Scalar``, ``bitwise_and_.Tensor``,
``scatter_.value``.

Corresponds to aten/src/ATen/native/Pow.cpp, BinaryOps.cpp and TensorAdvancedIndexing.cpp:
each runs the out-of-place kernel (``pow.Tensor_Scalar``, ``bitwise_and.Tensor``,
``scatter.value``) and stores its result into ``self`` with TensorIterator's output checks
(pointwise_more.inplace_from). ``linalg_vector_norm``'s backward calls ``pow_``,
``cumprod``'s calls ``scatter_`` and ``&=``, as PyTorch's do.
"""

from __future__ import annotations

from .. import dtypes as _dt
from ..tensor import Tensor
from .kernel_registry import impl
from .meta_utils import can_cast, scalar_type_name
from .misc import scatter_value
from .pointwise import bitwise_and_tensor, pow_tensor_scalar
from .pointwise_more import inplace_from

pow__scalar = impl("pow_.Scalar", "CPU", "Meta")(inplace_from(pow_tensor_scalar, "pow_"))
_bitwise_and_store = inplace_from(bitwise_and_tensor, "bitwise_and_")


@impl("bitwise_and_.Tensor", "CPU", "Meta")
def bitwise_and__tensor(self: Tensor, other: Tensor) -> Tensor:
    """TensorIterator checks the cast into ``self`` before the kernel's dtype check (int &= float: a cast error)."""
    result = _dt.result_type(self, other)
    if result is not self._dtype and not can_cast(result, self._dtype):
        raise RuntimeError(f"result type {scalar_type_name(result)} can't be cast to the desired output type "
                           f"{scalar_type_name(self._dtype)}")
    return _bitwise_and_store(self, other)
scatter__value = impl("scatter_.value", "CPU", "Meta")(inplace_from(scatter_value, "scatter_"))
