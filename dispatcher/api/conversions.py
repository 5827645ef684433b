"""Conversions and copies: ``Tensor.to`` / ``type`` / ``type_as`` / ``float()`` ... / ``cpu()``, ``item()`` and
``float(t)`` / ``int(t)`` / ``bool(t)`` / ``operator.index(t)``, contiguous, clone, copy_, fill_, zero_:
torch-level functions and Tensor methods.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops (``to``'s
parsing of its dtype / device / other forms, ``dispatch_to``) and to torch/_tensor.py. ``x.to(other)`` and
``x.to(device)`` call ``to.dtype_layout`` with the options PyTorch's binding passes; ``item()``, ``float()``,
``int()`` and ``__index__`` go through ``aten.item`` (which calls ``_local_scalar_dense``), ``bool()``
through ``is_nonzero``.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..memory_format import strided as _STRIDED  # ``torch.strided`` (equal to its c10::Layout code, 0)
from ..op_overload import namespace
from ..tensor import Tensor, as_device
from .arguments import _number

aten = namespace("aten")

__all__ = ["zero_", "fill_", "clone"]


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:  # noqa: A002
    return _clone_method(input, memory_format=memory_format)


# --- Tensor methods ----------------------------------------------------------------------------------------------------
def fill_(self: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        from .subscripts import fill_tensor

        return fill_tensor(self, value)
    return aten.fill_.Scalar(self, value)


def zero_(self: Tensor) -> Tensor:
    return aten.zero_.default(self)


def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """``aten.copy_``; a Python number ``src`` passes as a wrapped number (torch's parser allows numbers for
    copy_'s Tensor argument), anything else is the parser's TypeError."""
    if not isinstance(src, Tensor) and (isinstance(src, (str, bytes)) or _number(src) is None):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
    src = src if isinstance(src, Tensor) else _number(src)
    if non_blocking:
        return aten.copy_.default(self, src, non_blocking)
    return aten.copy_.default(self, src)


def contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    # PyTorch's binding (THPVariable_contiguous) returns self, without dispatching, when it already is laid out so:
    # a trace records aten.contiguous only where a copy is needed (also before dispatch, where it is kept whole)
    if self.is_contiguous(memory_format=memory_format):
        return self
    if memory_format is None:
        return aten.contiguous.default(self)
    return aten.contiguous.default(self, memory_format=memory_format)


def _clone_method(self: Tensor, *, memory_format: Any = None) -> Tensor:
    if memory_format is not None:
        return aten.clone.default(self, memory_format=memory_format)
    return aten.clone.default(self)


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``to(dtype)``, ``to(device[, dtype])``, ``to(other)``, ``to(dtype=..., device=...)`` (PyTorch's forms):
    ``to.dtype``, ``to.device`` (a device and a dtype; other's), ``to.dtype_layout`` (a device alone)."""
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    mf = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        # to(Tensor other, bool non_blocking=False, bool copy=False, *, memory_format): PyTorch's binding takes
        # other's device and dtype and calls to.device (never aten::to.other), as for to(device, dtype)
        other = rest.pop(0)
        if rest and isinstance(rest[0], bool):
            non_blocking = rest.pop(0)
        if rest and isinstance(rest[0], bool):
            copy = rest.pop(0)
        if rest or dtype is not None or dev is not None:
            got = ", ".join(f"torch.{type(a).__name__}" if isinstance(a, (_dt.dtype, type(self.device)))
                            else type(a).__name__ for a in args)
            raise TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:")
        dev, dtype = other.device, other.dtype
    if rest and isinstance(rest[0], (str, type(self.device))):
        dev = rest.pop(0)
    if rest and isinstance(rest[0], (_dt.dtype, int)) and not isinstance(rest[0], bool):
        dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        copy = rest.pop(0)
    if rest:
        got = tuple(type(a).__name__ for a in args)
        raise TypeError(f"to() received an invalid combination of arguments - got {got}")
    pos_flags = [non_blocking, copy] if copy or mf is not None else [non_blocking] if non_blocking else []
    mf_kw = {} if mf is None else {"memory_format": mf}
    if dev is not None and dtype is not None:
        return aten.to.device(self, as_device(dev), _dt.from_code(dtype), *pos_flags, **mf_kw)
    if dev is not None or (mf is not None and dtype is None):
        # a device alone (or only a memory format): PyTorch's binding passes self's TensorOptions (dtype, layout,
        # device) with the new device / memory format
        extra = _flags(non_blocking, copy, mf)
        return aten.to.dtype_layout(self, dtype=self.dtype, layout=_STRIDED,
                                    device=self.device if dev is None else as_device(dev), **extra)
    if dtype is not None:
        return aten.to.dtype(self, _dt.from_code(dtype), *pos_flags, **mf_kw)
    if copy:  # (a copy with nothing else: the binding passes self's options, as for a memory format)
        return aten.to.dtype_layout(self, dtype=self.dtype, layout=_STRIDED, device=self.device,
                                    **_flags(non_blocking, copy))
    return self


def _flags(non_blocking: bool, copy: bool, memory_format: Any = None) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if non_blocking:
        extra["non_blocking"] = True
    if copy:
        extra["copy"] = True
    if memory_format is not None:
        extra["memory_format"] = memory_format
    return extra


def _to_dtype(dtype: _dt.dtype) -> Any:
    def method(self: Tensor, memory_format: Any = None) -> Tensor:
        if memory_format is not None:  # (the binding's dispatch_to: to(dtype, non_blocking, copy, memory_format))
            return aten.to.dtype(self, dtype, False, False, memory_format=memory_format)
        return aten.to.dtype(self, dtype)

    method.__name__ = dtype.name if hasattr(dtype, "name") else str(dtype)
    return method


def type_as(self: Tensor, other: Tensor) -> Tensor:
    """``aten.type_as`` (CompositeImplicitAutograd: a pre-dispatch trace keeps it whole, as torch's does)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return aten.type_as.default(self, other)


def type_(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    if dtype is None:
        return _TYPE_NAMES.get(self.dtype.name if hasattr(self.dtype, "name") else "", "torch.Tensor")
    if isinstance(dtype, str):
        rev = {v: k for k, v in _TYPE_NAMES.items()}
        dtype = getattr(_dt, rev[dtype])
    return aten.to.dtype(self, _dt.from_code(dtype))


_TYPE_NAMES = {
    "float32": "torch.FloatTensor", "float64": "torch.DoubleTensor", "float16": "torch.HalfTensor",
    "int64": "torch.LongTensor", "int32": "torch.IntTensor", "int16": "torch.ShortTensor", "int8": "torch.CharTensor",
    "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor", "uint16": "torch.UInt16Tensor",
    "uint32": "torch.UInt32Tensor", "uint64": "torch.UInt64Tensor",
}


def item(self: Tensor) -> Any:
    # aten.item checks the size and calls _local_scalar_dense (float(), int() and __index__ go through it too)
    return aten.item.default(self)


def _float(self: Tensor) -> float:
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return float(aten.item.default(self))


def _int(self: Tensor) -> int:
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    value = int(aten.item.default(self))
    if value > 0x7FFFFFFFFFFFFFFF:  # a uint64 beyond int64: Tensor.__int__ reads an int64 (c10::checked_convert)
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return value


def _index(self: Tensor) -> int:
    if self.numel() != 1 or self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return int(aten.item.default(self))


def _bool(self: Tensor) -> bool:
    return bool(aten.is_nonzero.default(self))


def _cpu(self: Tensor) -> Tensor:
    return to(self, "cpu")


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the conversion Tensor methods (called by ``tensor_methods.install``)."""
    methods = {
        "fill_": fill_, "zero_": zero_, "copy_": copy_, "contiguous": contiguous, "clone": _clone_method,
        "to": to, "type_as": type_as, "type": type_, "cpu": _cpu,
        "float": _to_dtype(_dt.float32), "double": _to_dtype(_dt.float64), "half": _to_dtype(_dt.float16),
        "long": _to_dtype(_dt.int64), "int": _to_dtype(_dt.int32), "short": _to_dtype(_dt.int16),
        "char": _to_dtype(_dt.int8), "byte": _to_dtype(_dt.uint8), "bool": _to_dtype(_dt.bool),
        "item": item, "__float__": _float, "__int__": _int, "__index__": _index, "__bool__": _bool,
    }
    for name, fn in methods.items():
        setattr(T, name, fn)
