"""``view.dtype``: the same memory read as another dtype (``x.view(torch.int32)``), the last dimension rescaled when
the element sizes differ.

Corresponds to aten/src/ATen/native/TensorConversions.cpp ``view_dtype`` (CompositeExplicitAutograd): the result
shares ``self``'s storage (the same StorageImpl, see dispatcher/storage.py) and version counter; it is not a view to
autograd and never requires grad (derivatives.yaml: ``output_differentiability: [False]``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .kernel_registry import impl

#: c10's ScalarType names, as view_dtype's messages print them
_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                 "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _name(dt: _dt.dtype) -> str:
    return _SCALAR_NAMES.get(dt.name, dt.name)


@impl("view.dtype", "CompositeExplicitAutograd")
def view_dtype(self: Tensor, dtype: int) -> Tensor:
    dt = _dt.from_code(dtype)
    old, new = self._dtype.itemsize, dt.itemsize
    shape, stride, offset = list(self._shape), list(self._stride), self._storage_offset
    if old != new:
        what = f"to view {_name(self._dtype)} as {_name(dt)} (different element sizes)"
        if not shape:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if stride[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
        if new > old:
            ratio = new // old
            if shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}")
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
            for i in range(len(shape) - 1):
                if stride[i] % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {stride[i]}")
            shape[-1] //= ratio
            stride = [s // ratio for s in stride[:-1]] + [1]
            offset //= ratio
        else:
            ratio = old // new
            shape[-1] *= ratio
            stride = [s * ratio for s in stride[:-1]] + [1]
            offset *= ratio
    flat = self._storage
    if flat is not None:
        raw = flat.view(np.uint8) if flat.ndim == 1 else flat.reshape(-1).view(np.uint8)
        flat = raw[: (raw.size // new) * new].view(dt.np_dtype)
    out = Tensor._from_storage(flat, tuple(shape), tuple(stride), offset, dt, self._device)
    out._version_counter = self._version_counter
    return out


def register_inplace_or_view(lib: Any) -> None:
    """view.dtype's ADInplaceOrView kernel: a non-differentiable view (``make_variable_non_differentiable_view``), the
    result ``shallow_copy_and_detach``-ed with ``self``'s version counter, so a dispatch mode sees an ``aten.detach``
    after ``aten.view.dtype``, as with torch."""
    from ..op_overload import namespace
    from ..python_key import shallow_copy_and_detach
    from .inplace_or_view import redispatch_below_adinplaceorview

    op = namespace("aten").view.dtype

    def kernel(ks: Any, *args: Any, **kwargs: Any) -> Any:
        out = redispatch_below_adinplaceorview(op, ks, args, kwargs)
        self = args[0] if args else kwargs["self"]
        return shallow_copy_and_detach(out, self._version_counter)

    kernel.__name__ = kernel.__qualname__ = "view_dtype_ADInplaceOrView"
    lib.impl("view.dtype", kernel, "ADInplaceOrView", with_keyset=True,
             debug="registered at dispatcher/ops/views_dtype.py")
