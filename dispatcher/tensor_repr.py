"""``repr(tensor)`` in PyTorch's format (a first version: values via NumPy, PyTorch's suffixes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt


def tensor_repr(t: Any) -> str:
    suffixes = []
    if t._device.type == "meta":
        body = "..."
        suffixes.append(f"size={tuple(t._shape)}")
    else:
        body = np.array2string(t._data, separator=", ", precision=4, floatmode="maxprec_equal")
    default_dtypes = (_dt.get_default_dtype(), _dt.int64, _dt.bool)
    if t._dtype not in default_dtypes or (t._device.type == "meta"):
        suffixes.append(f"dtype={t._dtype!r}")
    if t._device.type == "meta":
        suffixes.insert(0, "device='meta'")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    inner = ", ".join([body] + suffixes)
    return f"tensor({inner})"
