"""The legacy constructor ``Tensor(...)`` / ``SubTensor(...)``: ``Tensor.__new__``.

Corresponds to ``THPVariable_pynew`` (torch/csrc/autograd/python_variable.cpp) and ``base_tensor_ctor`` /
``legacy_tensor_generic_ctor_new`` (torch/csrc/utils/tensor_new.cpp). Its overloads, tried in this order:

* ``Tensor(*, device=None)``: an empty float tensor of the default dtype, size ``(0,)``;
* ``Tensor(Tensor other)``: ``other.alias()`` (a view, still attached to autograd: ``AliasBackward0``);
* ``Tensor(*sizes, device=None)`` (ints, or one ``torch.Size``): an uninitialised tensor of that size
  (``aten.empty.memory_format``; zeros here);
* ``Tensor(data, device=None)``: a tensor of the default float dtype from a sequence or an array
  (``aten.lift_fresh`` is what a mode sees, as for ``torch.tensor``).

Only the cpu device is accepted. For a subclass ``cls``, the result is re-typed as ``cls`` (and gets the
Python key when ``cls`` defines ``__torch_dispatch__``), unless the op's result already is a Python object of
another type, as when a mode or a wrapper subclass answered it: then PyTorch's "already associated to a python
object" error, or that very object when it is an instance of ``cls``. The ops run through the dispatcher, so
active modes see them.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..tensor import Size, Tensor, as_device
from ..tls import PYTHON_RAW, per_thread

_SIGNATURES = (
    " * (*, torch.device device = None)\n"
    " * (torch.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, torch.device device = None)\n"
    " * (object data, *, torch.device device = None)\n"
)


def _type_name(v: Any) -> str:
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, _dt.dtype):
        return "torch.dtype"
    name = type(v).__name__
    return f"torch.{name}" if name in ("device", "Size", "layout", "memory_format") else name


def _invalid(args: tuple, kwargs: dict, note: str) -> TypeError:
    got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    lines = _SIGNATURES.split("\n")
    lines.insert(1, f"      didn't match because {note}")
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + "\n".join(lines))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _base_tensor(args: tuple, kwargs: dict) -> Tensor:
    """``base_tensor_ctor``: the plain tensor the overload chosen by ``args`` / ``kwargs`` makes."""
    from ..api import torch_functions as F
    from ..op_overload import namespace

    bad_kw = [k for k in kwargs if k != "device"]
    if bad_kw:
        raise _invalid(args, kwargs, f"some of the keywords were incorrect: {', '.join(bad_kw)}")
    dev = kwargs.get("device")
    if dev is not None and as_device(dev).type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {as_device(dev).type} "
                           "was passed")
    if not args:
        return F.empty(0)
    first = args[0]
    if isinstance(first, Tensor):
        if len(args) > 1 or kwargs:
            marked = ", ".join(f"!{_type_name(a)}!" for a in args)
            raise _invalid(args, kwargs, f"some of the arguments have invalid types: ({marked})")
        return namespace("aten").alias.default(first)
    if all(_is_int(a) for a in args) or (len(args) == 1 and isinstance(first, Size)):
        sizes = list(first) if isinstance(first, Size) else list(args)
        for s in sizes:
            if s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {sizes}")
        return F.empty(sizes)
    if len(args) > 1:
        marked = ", ".join(f"!{_type_name(a)}!" for a in args)
        raise _invalid(args, kwargs, f"some of the arguments have invalid types: ({marked})")
    if isinstance(first, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(first, (int, float, bool, complex)):
        raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
    from ..api.from_data import tensor

    return tensor(first, dtype=_dt.get_default_dtype())


def legacy_new(cls: type, args: tuple, kwargs: dict) -> Tensor:
    """``Tensor.__new__(cls, *args, **kwargs)``."""
    from .subclass import _existing_object, _retype, _set_python_dispatch

    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        name = getattr(cls, "__name__", type(cls).__name__)
        raise TypeError(f"dispatcher.Tensor.__new__({name}): {name} is not a subtype of dispatcher.Tensor")
    s = per_thread.s
    mode_active = bool(s.dispatch_mode_stack) and not (s.excluded & PYTHON_RAW)
    out = _base_tensor(args, kwargs)
    if cls is Tensor:
        return out
    if type(out) is not Tensor or mode_active:
        # the result was made by Python (a mode, or a subclass's __torch_dispatch__): THPVariable_NewWithVar
        # finds it already associated with that object
        if type(out) is Tensor:
            raise RuntimeError(f"Creating a new Tensor subclass {cls.__name__} but the raw Tensor object is already "
                               "associated to a python object of type Tensor which is not a subclass of the requested "
                               "type")
        return _existing_object(out, cls)
    out = _retype(out, cls)
    _set_python_dispatch(out, cls)
    return out


__all__ = ["legacy_new"]
