"""Fake tensors: run a program on metadata only (shapes, strides, dtypes), no data.

Corresponds to torch/_subclasses/fake_tensor.py and fake_impls.py. They live in ``dispatcher.fake`` (DESIGN.md
first placed them in ``tracer``): they need only the dispatcher, and ``tracer`` (make_fx's fake mode) can import
them from here, while ``tracer`` may not be imported by ``dispatcher``.

* ``fake_tensor.py``: ``FakeTensor`` (a meta tensor that reports its fake device, ``cpu``);
* ``fake_mode.py``: ``FakeTensorMode`` (the infra dispatch mode computing every op with Meta kernels,
  ``from_tensor``, constant propagation, the mixing errors);
* ``fake_impls.py``: the per-op rules (data-dependent outputs and shapes, boolean-mask indexing);
* ``exceptions.py``: ``DataDependentOutputException``, ``DynamicOutputShapeException`` and friends.

Example::

    from dispatcher.fake import FakeTensorMode
    with FakeTensorMode() as mode:
        x = mode.from_tensor(dispatcher.randn(8, 16))   # or dispatcher.randn(8, 16) inside the mode
        y = (x @ dispatcher.ones(16, 4)).relu()         # FakeTensor(..., size=(8, 4))
"""

from .exceptions import (
    DataDependentOutputException,
    DynamicOutputShapeException,
    MetadataMismatchError,
    UnsupportedFakeTensorException,
    UnsupportedOperatorException,
)
from .fake_impls import register_op_impl
from .fake_mode import CONSTANT_NUMEL_LIMIT, FakeTensorMode
from .fake_tensor import FakeTensor, render_call

__all__ = [
    "CONSTANT_NUMEL_LIMIT",
    "DataDependentOutputException",
    "DynamicOutputShapeException",
    "FakeTensor",
    "FakeTensorMode",
    "MetadataMismatchError",
    "UnsupportedFakeTensorException",
    "UnsupportedOperatorException",
    "register_op_impl",
    "render_call",
]
