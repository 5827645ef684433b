"""``torch.Stream`` (torch/csrc/Stream.cpp): a value naming a device queue.

This package runs every op at once on the CPU, so a stream is only a value: it can be made, compared, hashed,
passed to an op taking a ``Stream`` argument (``aten::record_stream``), returned by one (a custom op's
``-> Stream``) and by a dispatch mode. What a stream's methods do is what they do on torch's CPU-only build: a
``cpu`` or ``meta`` stream (the device guards such a build has) answers ``query()`` True and ``synchronize()``
None, has no events and no native handle; any other device type is "not linked".
"""

from __future__ import annotations

from typing import Any

#: c10::DeviceType's names by number (c10/core/DeviceType.h)
_DEVICE_TYPES = ("cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla", "vulkan",
                 "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia", "privateuseone")
#: the device types torch's CPU build has a device guard for (NoOpDeviceGuardImpl: streams with index -1)
_GUARDED = ("cpu", "meta")
_STREAM_KWARGS = ("stream_id", "device_index", "device_type")
#: the device-string names in the order c10/core/Device.cpp lists them in its parse error
_PARSE_ORDER = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, "
                "meta, hpu, mtia, privateuseone")


def _not_linked(name: str) -> RuntimeError:
    return RuntimeError(f"PyTorch is not linked with support for {name} devices")


def _int_arg(fn: str, name: str, v: Any, position: int | None = None) -> int:
    if type(v) is bool or not isinstance(v, int):
        where = f" (position {position})" if position is not None else ""
        raise TypeError(f"{fn}(): argument '{name}'{where} must be int, not {type(v).__name__}")
    return int(v)


class Stream:
    """``torch.Stream(device=None, *, priority=0)``, or ``torch.Stream(stream_id=, device_index=, device_type=)``."""

    __module__ = "dispatcher"  # torch.Stream's is "torch" (its type prints as <class 'torch.Stream'>)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        given = [k for k in kwargs if k in _STREAM_KWARGS]
        for k in kwargs:
            if k not in _STREAM_KWARGS + ("device", "priority"):
                raise TypeError(f"Stream() got an unexpected keyword argument '{k}'")
        if "priority" in kwargs:
            _int_arg("Stream", "priority", kwargs["priority"])
        if given:  # the (stream_id, device_index, device_type) signature: all three, by keyword
            if len(given) < 3 or "device" in kwargs:
                raise TypeError(f"Stream() got an unexpected keyword argument '{given[0]}'")
            if args:
                _int_arg("Stream", "stream_id", args[0], 1)
                raise TypeError("Stream() got multiple values for argument 'stream_id'")
            stream_id = _int_arg("Stream", "stream_id", kwargs["stream_id"])
            device_index = _int_arg("Stream", "device_index", kwargs["device_index"])
            device_type = _int_arg("Stream", "device_type", kwargs["device_type"])
            if not 0 <= device_type < len(_DEVICE_TYPES):
                raise RuntimeError("Expected isValidDeviceType(device_type) to be true, but got false.  (Could this "
                                   "error message be improved?  If so, please report an enhancement request to "
                                   "PyTorch.)")
            self.stream_id, self.device_index, self.device_type = stream_id, device_index, device_type
            return
        if len(args) > 1:
            raise TypeError(f"Stream() takes from 0 to 1 positional arguments but {len(args)} were given")
        if args and "device" in kwargs:
            raise TypeError("Stream() got multiple values for argument 'device'")
        device = args[0] if args else kwargs.get("device")
        if device is None:
            name = "cpu"
        elif isinstance(device, int) and type(device) is not bool:  # an accelerator index: none here
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif isinstance(device, str):
            name = device.partition(":")[0]
            if name not in _DEVICE_TYPES:
                raise RuntimeError(f"Expected one of {_PARSE_ORDER} device type at start of device string: {device}")
        elif hasattr(device, "type") and hasattr(device, "index"):  # a device object
            name = device.type
        else:
            raise TypeError(f"Stream(): argument 'device' (position 1) must be torch.device, not "
                            f"{type(device).__name__}")
        if name == "lazy":
            raise RuntimeError("Backend doesn't support create a new Stream.")
        if name not in _GUARDED:
            raise _not_linked(name)
        # the no-op device guard's default stream: id 0, index -1 whatever index the device named
        self.stream_id, self.device_index, self.device_type = 0, -1, _DEVICE_TYPES.index(name)

    def _type_name(self) -> str:
        t = self.device_type
        return _DEVICE_TYPES[t] if 0 <= t < len(_DEVICE_TYPES) else str(t)

    def _guarded(self) -> str:
        """The device type's name, or torch's "not linked" error for a type the CPU build has no guard for."""
        name = self._type_name()
        if name not in _GUARDED:
            raise _not_linked(name)
        return name

    @property
    def device(self) -> Any:
        from .tensor import device

        name, index = self._type_name(), None if self.device_index < 0 else self.device_index
        if name in _GUARDED:
            return device(name, index)
        # a device type this package has no tensors for (a stream made from its three numbers): the device only
        # names it, as torch.device("opengl", 2) does on a CPU build
        named = object.__new__(device)
        named.type, named.index = name, index
        return named

    def query(self) -> bool:
        self._guarded()
        return True  # every op has already run

    def synchronize(self) -> None:
        self._guarded()
        return None

    def record_event(self, event: Any = None) -> Any:
        raise RuntimeError(f"{self._guarded()} backend doesn't support events.")

    def wait_stream(self, stream: Stream) -> None:
        stream.record_event()  # (an event recorded on the other stream, which no CPU-build backend has)

    def wait_event(self, event: Any) -> None:
        return None

    @property
    def native_handle(self) -> int:
        self._guarded()
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def is_capturing(self) -> bool:
        self._guarded()
        return False

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
