"""``torch.Stream`` (torch/csrc/Stream.cpp): a value naming a device queue.

This package runs every op at once on the CPU, so a stream is only a value: it can be made, compared, hashed,
passed to an op taking a ``Stream`` argument, returned by one (a custom op's ``-> Stream``) and by a dispatch mode.
"""

from __future__ import annotations

from typing import Any

#: c10::DeviceType's names by number (c10/core/DeviceType.h)
_DEVICE_TYPES = ("cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla", "vulkan",
                 "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia", "privateuseone")


class Stream:
    """``torch.Stream(device=None, *, priority=0)``, or ``torch.Stream(stream_id=, device_index=, device_type=)``."""

    __module__ = "dispatcher"  # torch.Stream's is "torch" (its type prints as <class 'torch.Stream'>)

    def __init__(self, device: Any = None, *, priority: int = 0, stream_id: int | None = None,
                 device_index: int | None = None, device_type: int | None = None) -> None:
        if stream_id is not None or device_index is not None or device_type is not None:
            if stream_id is None or device_index is None or device_type is None:
                raise TypeError("Stream() got an unexpected keyword argument 'stream_id'")
            self.stream_id, self.device_index, self.device_type = int(stream_id), int(device_index), int(device_type)
            return
        name = "cpu" if device is None else str(device)
        kind, _, index = name.partition(":")
        if kind not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: "
                               f"{name}")
        self.stream_id, self.device_index, self.device_type = 0, int(index) if index else -1, _DEVICE_TYPES.index(kind)

    def _type_name(self) -> str:
        t = self.device_type
        return _DEVICE_TYPES[t] if 0 <= t < len(_DEVICE_TYPES) else str(t)

    @property
    def device(self) -> Any:
        from .tensor import device

        name = self._type_name()
        return device(name if self.device_index < 0 else f"{name}:{self.device_index}")

    def query(self) -> bool:
        return True  # every op has already run

    def synchronize(self) -> None:
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Stream):
            return NotImplemented
        return (self.stream_id, self.device_index, self.device_type) == (
            other.stream_id, other.device_index, other.device_type)

    def __hash__(self) -> int:
        return hash((self.stream_id, self.device_index, self.device_type))

    def __repr__(self) -> str:
        return (f"torch.Stream device_type={self._type_name()}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")
