"""Tensor metadata helpers shared by the passes that build graphs: serialize (load) and functionalize.

``tensor_meta(t)`` records what a ``meta["val"]`` FakeTensor says about a tensor (shape, stride,
dtype, device, storage offset, requires_grad) as plain data; ``fake_from_meta(mode, meta)``
makes a FakeTensor with exactly that metadata in ``mode``. Private to ``passes``.
"""

from __future__ import annotations

from typing import Any

from dispatcher.dtypes import ALL_DTYPES, UNSIGNED_DTYPES
from dispatcher.fake import FakeTensorMode
from dispatcher.fake.fake_tensor import make_fake
from dispatcher.tensor import Tensor, device

__all__ = ["DTYPES_BY_NAME", "fake_from_meta", "tensor_meta"]

#: dtype name ("float32") -> dispatcher dtype
DTYPES_BY_NAME = {d.name: d for d in ALL_DTYPES + UNSIGNED_DTYPES}
_META = device("meta")


def tensor_meta(t: Tensor) -> dict[str, Any]:
    """Plain-data description of a tensor's metadata (no data)."""
    return {
        "shape": [int(s) for s in t.shape],
        "stride": [int(s) for s in t.stride()],
        "storage_offset": int(t.storage_offset()),
        "dtype": t.dtype.name,
        "device": str(t.device),
        "requires_grad": bool(t.requires_grad),
    }


def fake_from_meta(mode: FakeTensorMode, meta: dict[str, Any]) -> Tensor:
    """A FakeTensor of ``mode`` with the shape / stride / dtype / device / requires_grad of ``meta``."""
    # built directly (a meta tensor handed to make_fake, as FakeTensorMode.from_real_tensor does): going
    # through aten.empty_strided under the mode costs ~30x more, which matters for 100,000-node graphs
    shape, stride = tuple(meta["shape"]), tuple(meta["stride"])
    dtype = DTYPES_BY_NAME[meta["dtype"]]
    raw = Tensor._from_storage(None, shape, stride, int(meta.get("storage_offset", 0)), dtype, _META, None)
    t = make_fake(raw, mode, device(meta["device"]))
    if meta.get("requires_grad"):
        t.requires_grad_(True)
    return t
